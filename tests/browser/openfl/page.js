// The page side of stage3d.mjs: draws one case with OpenFL's Stage3D (openfl.display3D, as an
// OpenFL application on HTML5 uses it) and reads the pixels back. Loaded after pako and the
// OpenFL bundle (dist/openfl.js), which defines the global `openfl`.
//
// window.spvStage3D.init(width, height) creates a Stage of that size, requests a Context3D
// on its first Stage3D and resolves to the renderer's description. window.spvStage3D.draw(c)
// draws case c (see stage3d.mjs for its fields) and resolves to
// { ok, error, rgba (hex, row after row from the top), vertexGlsl, fragmentGlsl, log }.

(function () {
  'use strict';
  const D3 = openfl.display3D;
  const log = [];
  let context = null;
  let size = null;

  // OpenFL reports a shader that does not compile with Log.error, which throws or prints
  // depending on Lime's settings: keep what it prints, per case.
  for (const level of ['error', 'warn', 'info']) {
    const original = console[level].bind(console);
    console[level] = (...args) => {
      log.push(`${level}: ${args.map(String).join(' ')}`);
      original(...args);
    };
  }

  function bytes(hex) {
    const out = new Uint8Array(hex.length / 2);
    for (let i = 0; i < out.length; i += 1) out[i] = parseInt(hex.substr(i * 2, 2), 16);
    return out;
  }

  function hex(array) {
    let s = '';
    for (let i = 0; i < array.length; i += 1) s += (array[i] < 16 ? '0' : '') + array[i].toString(16);
    return s;
  }

  function byteArray(u8) {
    const b = new openfl.utils.ByteArray();
    b.endian = openfl.utils.Endian.LITTLE_ENDIAN;
    for (let i = 0; i < u8.length; i += 1) b.writeByte(u8[i]);
    b.position = 0;
    return b;
  }

  function init(width, height) {
    size = { width, height };
    return new Promise((resolve, reject) => {
      const stage = new openfl.display.Stage(width, height, 0x000000, null, { renderer: 'webgl1' });
      document.body.appendChild(stage.element);
      const s3d = stage.stage3Ds[0];
      s3d.addEventListener(openfl.events.Event.CONTEXT3D_CREATE, () => {
        context = s3d.context3D;
        context.configureBackBuffer(width, height, 0, true);
        const gl = context.gl;
        resolve({ driverInfo: context.driverInfo, version: gl.getParameter(gl.VERSION),
          renderer: gl.getParameter(gl.RENDERER) });
      });
      s3d.addEventListener(openfl.events.ErrorEvent.ERROR, (e) => reject(new Error(
        `requestContext3D failed (${e.text || e.type}): OpenFL got no WebGL context (is ` +
        'failIfMajorPerformanceCaveat still true, or is WebGL off?)')));
      s3d.requestContext3D();
    });
  }

  function draw(c) {
    log.length = 0;
    const result = { name: c.name, ok: false, error: null, rgba: null, vertexGlsl: null,
      fragmentGlsl: null, log: [] };
    const made = [];
    let program = null;
    try {
      // Program3D.upload converts both programs to GLSL (AGALConverter) and compiles them.
      program = context.createProgram();
      made.push(program);
      try {
        program.upload(byteArray(bytes(c.vertex)), byteArray(bytes(c.fragment)));
      } finally {
        result.vertexGlsl = program.__glVertexSource || null;
        result.fragmentGlsl = program.__glFragmentSource || null;
      }
      const gl = context.gl;
      if (!gl.getProgramParameter(program.__glProgram, gl.LINK_STATUS)) {
        throw new Error(`the GLSL OpenFL made does not link: ${gl.getProgramInfoLog(program.__glProgram)}`);
      }
      const n = c.vertices.length / c.floatsPerVertex;
      const vb = context.createVertexBuffer(n, c.floatsPerVertex);
      made.push(vb);
      vb.uploadFromTypedArray(new Float32Array(c.vertices));
      const ib = context.createIndexBuffer(n);
      made.push(ib);
      const indices = new Uint16Array(n);
      for (let i = 0; i < n; i += 1) indices[i] = i;
      ib.uploadFromTypedArray(indices);

      context.setRenderToBackBuffer();
      context.clear(c.background[0], c.background[1], c.background[2], 1, 1, 0);
      context.setProgram(program);
      context.setCulling(D3.Context3DTriangleFace.NONE);
      context.setDepthTest(true, D3.Context3DCompareMode.LESS);
      context.setBlendFactors(D3.Context3DBlendFactor.SOURCE_ALPHA,
        D3.Context3DBlendFactor.ONE_MINUS_SOURCE_ALPHA);
      // The colour is blended over the background by its alpha, as the preview does; the
      // back buffer's own alpha stays 1 (drawToBitmapData's copy would read a lower one as
      // premultiplied colour, which the preview's picture is not).
      context.setColorMask(true, true, true, false);
      for (const a of c.attributes) {
        context.setVertexBufferAt(a.register, vb, a.offset, D3.Context3DVertexBufferFormat.FLOAT_4);
      }
      context.setProgramConstantsFromVector(D3.Context3DProgramType.VERTEX, 0, c.vertexConstants,
        c.vertexConstants.length / 4);
      context.setProgramConstantsFromVector(D3.Context3DProgramType.FRAGMENT, 0, c.fragmentConstants,
        c.fragmentConstants.length / 4);
      for (const t of c.textures) {
        const tex = context.createTexture(t.width, t.height, D3.Context3DTextureFormat.BGRA, false);
        made.push(tex);
        // On WebGL OpenFL uploads these bytes as RGBA (TextureBase: no BGRA format there).
        tex.uploadFromTypedArray(bytes(t.rgba), 0);
        context.setTextureAt(t.sampler, tex);
      }
      context.drawTriangles(ib, 0, n / 3);
      if (c.second) {
        // A second frame: new constants, the program still set (as an application that
        // animates a matrix does); this frame's pixels are the ones read.
        context.clear(c.background[0], c.background[1], c.background[2], 1, 1, 0);
        context.setProgramConstantsFromVector(D3.Context3DProgramType.VERTEX, 0,
          c.second.vertexConstants, c.second.vertexConstants.length / 4);
        context.setProgramConstantsFromVector(D3.Context3DProgramType.FRAGMENT, 0,
          c.second.fragmentConstants, c.second.fragmentConstants.length / 4);
        context.drawTriangles(ib, 0, n / 3);
      }
      const error = gl.getError();
      if (error !== gl.NO_ERROR) throw new Error(`WebGL error 0x${error.toString(16)} after drawTriangles`);

      const bitmap = new openfl.display.BitmapData(size.width, size.height, true, 0);
      context.drawToBitmapData(bitmap);
      const argb = bitmap.getPixels(bitmap.rect);
      argb.position = 0;
      const rgba = new Uint8Array(size.width * size.height * 4);
      for (let i = 0; i < size.width * size.height; i += 1) {
        const a = argb.readUnsignedByte();
        rgba[i * 4] = argb.readUnsignedByte();
        rgba[i * 4 + 1] = argb.readUnsignedByte();
        rgba[i * 4 + 2] = argb.readUnsignedByte();
        rgba[i * 4 + 3] = a;
      }
      bitmap.dispose();
      result.rgba = hex(rgba);
      result.ok = true;
    } catch (err) {
      result.error = err && err.message ? err.message : String(err);
    } finally {
      for (let k = 0; k < 8; k += 1) {
        try { context.setTextureAt(k, null); context.setVertexBufferAt(k, null); } catch (_) { /* ignore */ }
      }
      for (const m of made) { try { m.dispose(); } catch (_) { /* ignore */ } }
      result.log = log.slice();
    }
    return result;
  }

  window.spvStage3D = { init, draw };
}());
