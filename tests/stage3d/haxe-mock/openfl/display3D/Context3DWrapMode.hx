package openfl.display3D;

/** A stand-in for `openfl.display3D.Context3DWrapMode` (OpenFL's values). **/
enum abstract Context3DWrapMode(String) from String to String
{
	var CLAMP = "clamp";
	var CLAMP_U_REPEAT_V = "clamp_u_repeat_y";
	var REPEAT = "repeat";
	var REPEAT_U_CLAMP_V = "repeat_u_clamp_y";
}
