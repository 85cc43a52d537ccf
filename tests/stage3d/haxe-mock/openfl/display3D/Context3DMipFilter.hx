package openfl.display3D;

/** A stand-in for `openfl.display3D.Context3DMipFilter` (OpenFL's values). **/
enum abstract Context3DMipFilter(String) from String to String
{
	var MIPLINEAR = "miplinear";
	var MIPNEAREST = "mipnearest";
	var MIPNONE = "mipnone";
}
