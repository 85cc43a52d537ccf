package openfl.geom;

import openfl.Vector;

/** A stand-in for `openfl.geom.Matrix3D`: its column-major `rawData`, nothing else. **/
class Matrix3D
{
	public var rawData:Vector<Float>;

	public function new(v:Vector<Float> = null)
	{
		rawData = v != null ? Vector.ofArray([for (k in 0...16) v[k]]) : Vector.ofArray([1.0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
	}
}
