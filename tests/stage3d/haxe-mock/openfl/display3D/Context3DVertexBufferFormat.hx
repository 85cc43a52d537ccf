package openfl.display3D;

/** A stand-in for `openfl.display3D.Context3DVertexBufferFormat` (OpenFL's values). **/
enum abstract Context3DVertexBufferFormat(String) from String to String
{
	var BYTES_4 = "bytes4";
	var FLOAT_1 = "float1";
	var FLOAT_2 = "float2";
	var FLOAT_3 = "float3";
	var FLOAT_4 = "float4";
}
