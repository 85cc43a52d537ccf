package openfl.display3D;

/** A stand-in for `openfl.display3D.Context3DProgramType` (OpenFL's values). **/
enum abstract Context3DProgramType(String) from String to String
{
	var FRAGMENT = "fragment";
	var VERTEX = "vertex";
}
