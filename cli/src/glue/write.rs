//! The class body both languages share: the members in order, through each language's
//! [`Syntax`]. Statements that read the same in Haxe and ActionScript 3 (calls, indexing,
//! assignments) are written here; declarations, types, loops and literals by the language.

use std::fmt::Write as _;

use super::{Model, Params, Scalar, Write};

/// What differs between Haxe and ActionScript 3.
pub(crate) trait Syntax {
    /// The file's start: comment, package, imports, the class's comment and opening line.
    fn open(&self, m: &Model, out: &mut String);
    /// The class's (and package's) end.
    fn close(&self, m: &Model, out: &mut String);
    /// `public static … NAME:int = value;`.
    fn int_constant(&self, name: &str, value: u32) -> String;
    /// `public static … NAME:<format type> = Context3DVertexBufferFormat.FLOAT_n;`.
    fn format_constant(&self, name: &str, size: u8) -> String;
    /// A private static `Vector` of floats with these values.
    fn buffer(&self, name: &str, values: &[f32]) -> String;
    /// The body of a function returning a new little-endian `ByteArray` of `bytes`, and any
    /// member it needs (`data` names a private static the language may use).
    fn bytes_function(&self, name: &str, data: &str, bytes: &[u8], doc: &str) -> String;
    /// `public static function NAME(PARAMS):RET {` (after the doc comment).
    fn function(&self, name: &str, params: &[(String, String)], ret: &str) -> String;
    /// Types: `Context3D`, `Program3D`, `Matrix3D`, the float vector, scalars, void.
    fn float_vector(&self) -> &'static str;
    fn scalar(&self, s: Scalar) -> &'static str;
    fn void(&self) -> &'static str;
    /// `var NAME:TYPE = VALUE;`.
    fn local(&self, name: &str, ty: &str, value: &str) -> String;
    /// The opening line of `for k from 0 while k < n`.
    fn for_k(&self, n: &str) -> String;
    /// `int(x)` (integer part of a non-negative number).
    fn int_of(&self, x: String) -> String;
    /// A float vector built from these values (a new one each time).
    fn vector_of(&self, values: &[f32]) -> String;
    /// A number literal (with the language's infinities and NaN).
    fn number(&self, v: f32) -> String;
    /// A doc comment at one indentation level.
    fn doc(&self, text: &str) -> String {
        format!("\t/** {text} **/\n")
    }
    /// One indentation level.
    fn indent(&self) -> &'static str {
        "\t"
    }
}

/// The whole class.
pub(crate) fn class(m: &Model, x: &dyn Syntax) -> String {
    let mut out = String::new();
    x.open(m, &mut out);
    let i1 = x.indent();
    let i2 = i1.repeat(2);
    let i3 = i1.repeat(3);
    // Constants: attributes, then samplers.
    for h in &m.halves {
        for a in &h.attributes {
            out += &x.doc(&format!(
                "Vertex attribute `{}`: register va{}, the index for `setVertexBufferAt`.",
                a.name, a.register
            ));
            out += &format!("{i1}{}\n", x.int_constant(&a.ident, a.register));
            out += &x.doc(&format!(
                "The `Context3DVertexBufferFormat` of `{}`: {} float(s).",
                a.name, a.size
            ));
            out += &format!("{i1}{}\n", x.format_constant(&a.format_ident, a.size));
        }
    }
    for h in &m.halves {
        for s in &h.samplers {
            out += &x.doc(&format!(
                "Sampler `{}`: register fs{}, the index for `setTextureAt` (compiled with the \
                 flags {}).",
                s.name,
                s.register,
                s.flags.join(", ")
            ));
            out += &format!("{i1}{}\n", x.int_constant(&s.ident, s.register));
        }
    }
    out += "\n";
    // The registers uniforms are set through (not those only `setProgramConstantsFromMatrix`
    // fills).
    for (k, h) in m.halves.iter().enumerate() {
        for (n, g) in h.groups.iter().enumerate() {
            let used = g.has_initial
                || m.setters.iter().any(|s| {
                    s.targets.iter().any(|t| {
                        t.half == k && t.group == n && !matches!(t.write, Write::Matrix4 { .. })
                    })
                });
            if used {
                out += &format!("{i1}{}\n", x.buffer(&g.buffer, &g.initial));
            }
        }
    }
    // Bytes.
    for h in &m.halves {
        let data = if h.vertex {
            "VERTEX_AGAL"
        } else {
            "FRAGMENT_AGAL"
        };
        out += "\n";
        out += &x.doc(&format!(
            "The {} program's AGAL bytes ({} bytes), a new little-endian `ByteArray` each \
             call, for `Program3D.upload`.",
            if h.vertex { "vertex" } else { "fragment" },
            h.bytes.len()
        ));
        out += &x.bytes_function(&h.bytes_fn, data, &h.bytes, "");
    }
    let context = ("context".to_string(), "Context3D".to_string());
    // upload
    if m.pair {
        out += "\n";
        out += &x.doc(
            "Creates the `Program3D`, uploads both programs' bytes, then `uploadConstants`. \
             Returns the program, for `context.setProgram`.",
        );
        out += &format!(
            "{i1}{}\n",
            x.function("upload", std::slice::from_ref(&context), "Program3D")
        );
        out += &format!(
            "{i2}{}\n",
            x.local("program", "Program3D", "context.createProgram()")
        );
        out += &format!("{i2}program.upload(vertexBytes(), fragmentBytes());\n");
        out += &format!("{i2}uploadConstants(context);\n");
        out += &format!("{i2}return program;\n{i1}}}\n");
    }
    // uploadConstants
    out += "\n";
    out += &x.doc(
        "Uploads the literal constants the program(s) read and the uniforms' initial values. \
         Constant registers belong to the context: call this again when another program has \
         used them.",
    );
    out += &format!(
        "{i1}{}\n",
        x.function("uploadConstants", std::slice::from_ref(&context), x.void())
    );
    for h in &m.halves {
        let mut k = 0;
        while k < h.constants.len() {
            // A run of consecutive registers: one call.
            let mut end = k + 1;
            while end < h.constants.len() && h.constants[end].0 == h.constants[end - 1].0 + 1 {
                end += 1;
            }
            let values: Vec<f32> = h.constants[k..end].iter().flat_map(|c| c.1).collect();
            out += &format!(
                "{i2}context.setProgramConstantsFromVector(Context3DProgramType.{}, {}, {}, {});\n",
                h.program_type(),
                h.constants[k].0,
                x.vector_of(&values),
                end - k
            );
            k = end;
        }
        for g in h.groups.iter().filter(|g| g.has_initial) {
            out += &format!(
                "{i2}context.setProgramConstantsFromVector(Context3DProgramType.{}, {}, {}, {});\n",
                h.program_type(),
                g.first,
                g.buffer,
                g.count
            );
        }
    }
    out += &format!("{i1}}}\n");
    // Setters.
    for s in &m.setters {
        out += "\n";
        let (params, what) = match &s.params {
            Params::Values(names, scalar) => (
                names
                    .iter()
                    .map(|n| (n.clone(), x.scalar(*scalar).to_string()))
                    .collect::<Vec<_>>(),
                "",
            ),
            Params::Matrix => (
                vec![("matrix".to_string(), "Matrix3D".to_string())],
                match s.targets.first().map(|t| &t.write) {
                    Some(Write::Matrix4 {
                        transposed: true, ..
                    }) => {
                        " Uploaded with `setProgramConstantsFromMatrix`, transposed: a register \
                         per row, so the program computes `matrix * v`."
                    }
                    Some(Write::Matrix4 { .. }) => {
                        " Uploaded with `setProgramConstantsFromMatrix`, not transposed: a \
                         register per column (`rawData` is column-major), so the program \
                         computes `matrix * v`."
                    }
                    _ => {
                        " The matrix's upper-left columns × rows are used, column `c`, row `r` \
                         from `rawData[c * 4 + r]`."
                    }
                },
            ),
            Params::Array => (
                vec![("values".to_string(), x.float_vector().to_string())],
                " `values` in GLSL order (element by element, a matrix column by column); \
                 fewer values set the first ones.",
            ),
        };
        out += &x.doc(&format!("Sets uniform {}.{what}", s.doc));
        let mut all = vec![context.clone()];
        all.extend(params.iter().cloned());
        out += &format!("{i1}{}\n", x.function(&s.ident, &all, x.void()));
        for t in &s.targets {
            let h = &m.halves[t.half];
            let g = &h.groups[t.group];
            let upload = format!(
                "{i2}context.setProgramConstantsFromVector(Context3DProgramType.{}, {}, {}, {});\n",
                h.program_type(),
                g.first,
                g.buffer,
                g.count
            );
            match &t.write {
                Write::Matrix4 {
                    register,
                    transposed,
                } => {
                    let _ = writeln!(
                        out,
                        "{i2}context.setProgramConstantsFromMatrix(Context3DProgramType.{}, {register}, matrix, {transposed});",
                        h.program_type()
                    );
                }
                Write::Values(lanes) => {
                    for &(lane, param) in lanes {
                        let value = match &s.params {
                            Params::Values(_, Scalar::Bool) => {
                                format!("({} ? 1 : 0)", params[param].0)
                            }
                            _ => params[param].0.clone(),
                        };
                        let _ = writeln!(out, "{i2}{}[{lane}] = {value};", g.buffer);
                    }
                    out += &upload;
                }
                Write::FromMatrix(lanes) => {
                    let _ = writeln!(
                        out,
                        "{i2}{}",
                        x.local("raw", x.float_vector(), "matrix.rawData")
                    );
                    for &(lane, raw) in lanes {
                        let _ = writeln!(out, "{i2}{}[{lane}] = raw[{raw}];", g.buffer);
                    }
                    out += &upload;
                }
                Write::Array { len, base, dims } => {
                    let lane = super::array_lane(*base, dims, &|e| x.int_of(e));
                    let _ = writeln!(
                        out,
                        "{i2}{}",
                        x.local(
                            "n",
                            x.scalar(Scalar::Int),
                            &format!("values.length < {len} ? values.length : {len}")
                        )
                    );
                    let _ = writeln!(out, "{i2}{}", x.for_k("n"));
                    let _ = writeln!(out, "{i3}{}[{lane}] = values[k];", g.buffer);
                    let _ = writeln!(out, "{i2}}}");
                    out += &upload;
                }
            }
        }
        out += &format!("{i1}}}\n");
    }
    // Sampler states.
    for h in &m.halves {
        for smp in &h.samplers {
            let Some((name, wrap, filter, mip)) = &smp.state else {
                continue;
            };
            out += "\n";
            out += &x.doc(&format!(
                "Sets sampler `{}`'s (fs{}) state as its flags say, with `setSamplerStateAt`: \
                 the state a sampler compiled with `ignoresampler` uses.",
                smp.name, smp.register
            ));
            out += &format!(
                "{i1}{}\n",
                x.function(name, std::slice::from_ref(&context), x.void())
            );
            let _ = writeln!(
                out,
                "{i2}context.setSamplerStateAt({}, Context3DWrapMode.{wrap}, Context3DTextureFilter.{filter}, Context3DMipFilter.{mip});",
                smp.register
            );
            out += &format!("{i1}}}\n");
        }
    }
    x.close(m, &mut out);
    out
}
