package openfl.display3D;

import openfl.Vector;
import openfl.geom.Matrix3D;

/**
	A stand-in for `openfl.display3D.Context3D` that records what a program is given: the
	constant registers (four floats each), sampler states, vertex buffer formats and the
	program set. `setProgramConstantsFromVector` and `setProgramConstantsFromMatrix` copy into
	the registers exactly as OpenFL 8.9.6's Context3D does for AGAL programs
	(src/openfl/display3D/Context3D.hx: `numRegisters == -1` takes the vector's length / 4;
	a matrix goes in `rawData` order, or with `transposedMatrix` row by row:
	`source[0], source[4], source[8], source[12]` first), which is Flash Player's documented
	behaviour.
**/
class Context3D
{
	public var vertexConstants:Array<Float> = [for (k in 0...256 * 4) 0.0];
	public var fragmentConstants:Array<Float> = [for (k in 0...256 * 4) 0.0];
	public var log:Array<String> = [];
	public var program:Program3D;

	public function new() {}

	public function createProgram():Program3D
	{
		return new Program3D();
	}

	public function setProgram(program:Program3D):Void
	{
		this.program = program;
	}

	public function setProgramConstantsFromVector(programType:Context3DProgramType, firstRegister:Int, data:Vector<Float>, numRegisters:Int = -1):Void
	{
		if (numRegisters == -1)
			numRegisters = Std.int(data.length / 4);
		var dest = programType == Context3DProgramType.VERTEX ? vertexConstants : fragmentConstants;
		for (k in 0...numRegisters * 4)
			dest[firstRegister * 4 + k] = data[k];
		log.push('vector $programType $firstRegister $numRegisters');
	}

	public function setProgramConstantsFromMatrix(programType:Context3DProgramType, firstRegister:Int, matrix:Matrix3D, transposedMatrix:Bool = false):Void
	{
		var dest = programType == Context3DProgramType.VERTEX ? vertexConstants : fragmentConstants;
		var source = matrix.rawData;
		var i = firstRegister * 4;
		for (row in 0...4)
			for (col in 0...4)
				dest[i++] = transposedMatrix ? source[col * 4 + row] : source[row * 4 + col];
		log.push('matrix $programType $firstRegister $transposedMatrix');
	}

	public function setSamplerStateAt(sampler:Int, wrap:Context3DWrapMode, filter:Context3DTextureFilter, mipfilter:Context3DMipFilter):Void
	{
		log.push('sampler $sampler $wrap $filter $mipfilter');
	}

	public function setVertexBufferAt(index:Int, buffer:Dynamic, bufferOffset:Int = 0, ?format:Context3DVertexBufferFormat):Void
	{
		log.push('buffer $index $format');
	}

	public function setTextureAt(sampler:Int, texture:Dynamic):Void
	{
		log.push('texture $sampler');
	}
}
