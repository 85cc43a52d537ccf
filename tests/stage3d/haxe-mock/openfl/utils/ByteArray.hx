package openfl.utils;

import haxe.io.Bytes;

/** A stand-in for `openfl.utils.ByteArray`: the bytes and the endianness they were given. **/
class ByteArray
{
	public var bytes:Bytes;
	public var endian:Endian = Endian.BIG_ENDIAN;
	public var length(get, never):Int;

	public function new()
	{
		bytes = Bytes.alloc(0);
	}

	public static function fromBytes(bytes:Bytes):ByteArray
	{
		var b = new ByteArray();
		b.bytes = bytes;
		return b;
	}

	function get_length():Int
	{
		return bytes.length;
	}
}
