package openfl.display3D;

/** A stand-in for `openfl.display3D.Context3DTextureFilter` (OpenFL's values). **/
enum abstract Context3DTextureFilter(String) from String to String
{
	var ANISOTROPIC16X = "anisotropic16x";
	var ANISOTROPIC2X = "anisotropic2x";
	var ANISOTROPIC4X = "anisotropic4x";
	var ANISOTROPIC8X = "anisotropic8x";
	var LINEAR = "linear";
	var NEAREST = "nearest";
}
