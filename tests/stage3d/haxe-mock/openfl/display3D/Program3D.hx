package openfl.display3D;

import openfl.utils.ByteArray;

/** A stand-in for `openfl.display3D.Program3D` that keeps what was uploaded. **/
class Program3D
{
	public var vertex:ByteArray;
	public var fragment:ByteArray;

	public function new() {}

	public function upload(vertexProgram:ByteArray, fragmentProgram:ByteArray):Void
	{
		vertex = vertexProgram;
		fragment = fragmentProgram;
	}
}
