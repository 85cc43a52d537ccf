package openfl;

/**
	A stand-in for `openfl.Vector` with the members the generated classes and the tests use,
	over an `Array`, for running in Haxe's interpreter (`--interp`), where OpenFL's own
	Vector (JavaScript externs) cannot run.
**/
@:forward(length, join)
abstract Vector<T>(Array<T>)
{
	public inline function new(?length:Int, ?fixed:Bool, ?array:Array<T>)
	{
		this = array != null ? array.copy() : [];
	}

	@:arrayAccess inline function get(index:Int):T
	{
		return this[index];
	}

	@:arrayAccess inline function set(index:Int, value:T):T
	{
		return this[index] = value;
	}

	public static inline function ofArray<T>(array:Array<T>):Vector<T>
	{
		return new Vector<T>(null, null, array);
	}
}
