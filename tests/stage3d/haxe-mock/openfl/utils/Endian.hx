package openfl.utils;

/** A stand-in for `openfl.utils.Endian` (OpenFL's values). **/
enum abstract Endian(String) from String to String
{
	var BIG_ENDIAN = "bigEndian";
	var LITTLE_ENDIAN = "littleEndian";
}
