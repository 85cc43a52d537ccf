//! Recovering what picasso's syntax needs from a flat code blob: procedures (DVLE entry points and
//! CALL targets, nested where their ranges nest), which source file each lies in (one file per
//! DVLE, files in code order), and the labels JMPC/JMPU name.
//!
//! picasso lays code out in file order and a procedure never straddles files, so the blob is cut
//! after the top-level procedure that holds each DVLE's entry point. Code no procedure covers is
//! wrapped in a procedure of its own so that it is still assembled in place.

use std::collections::BTreeMap;

use crate::decode::Decoded;
use crate::inst::Inst;
use crate::shbin::ShaderBinary;

/// A procedure and the procedures nested in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ProcNode {
    pub(super) name: String,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) children: Vec<ProcNode>,
}

/// One source file of the listing.
#[derive(Clone, Debug)]
pub(super) struct FilePlan {
    /// The DVLE it produces (none when the binary has no DVLE at all).
    pub(super) dvle: Option<usize>,
    /// Its top-level procedures, in address order.
    pub(super) procs: Vec<ProcNode>,
    /// Its code range.
    pub(super) start: usize,
    pub(super) end: usize,
}

/// The layout of the whole listing.
#[derive(Clone, Debug)]
pub(super) struct Plan {
    pub(super) files: Vec<FilePlan>,
    /// The entry procedure's name of each DVLE.
    pub(super) entries: Vec<String>,
    /// Label names by address.
    pub(super) labels: BTreeMap<usize, String>,
}

fn insert(nodes: &mut Vec<ProcNode>, node: ProcNode) -> Result<(), ProcNode> {
    for n in nodes.iter_mut() {
        if node.start >= n.start && node.end <= n.end {
            return insert(&mut n.children, node);
        }
        if node.start < n.end && n.start < node.end {
            return Err(node);
        }
    }
    nodes.push(node);
    nodes.sort_by_key(|n| n.start);
    Ok(())
}

/// Works out procedures, files and labels, adding a warning for anything that cannot be spelled.
pub(super) fn plan(
    bin: &ShaderBinary,
    decoded: &[Option<Decoded>],
    warnings: &mut Vec<String>,
) -> Plan {
    let len = bin.code.len();
    // Candidate ranges, entries first so that they keep their names.
    let mut ranges: Vec<(usize, usize, String)> = Vec::new();
    let mut entries = Vec::new();
    for (k, d) in bin.dvles.iter().enumerate() {
        let (s, e) = (d.entry_start as usize, d.entry_end as usize);
        if let Some((_, _, name)) = ranges.iter().find(|r| r.0 == s && r.1 == e) {
            entries.push(name.clone());
            continue;
        }
        let name = if ranges.is_empty() {
            "main".to_string()
        } else {
            format!("main{k}")
        };
        if e <= s {
            warnings.push(format!(
                "DVLE {k}: empty entry procedure at {s:#05X}; picasso would pad it"
            ));
        }
        entries.push(name.clone());
        ranges.push((s, e.max(s), name));
    }
    for (addr, d) in decoded.iter().enumerate() {
        let Some(d) = d else { continue };
        if let Inst::Call { target, num }
        | Inst::CallC { target, num, .. }
        | Inst::CallU { target, num, .. } = d.inst
        {
            let (s, e) = (
                target.addr() as usize,
                target.addr() as usize + usize::from(num),
            );
            if num == 0 || e > len {
                warnings.push(format!(
                    "{addr:#05X}: call of {num} words at {s:#05X} cannot be a procedure"
                ));
                continue;
            }
            if !ranges.iter().any(|r| r.0 == s && r.1 == e) {
                ranges.push((s, e, format!("proc_{s:03x}")));
            }
        }
    }
    // Nest them: larger ranges first so that containers exist before their contents.
    let mut order: Vec<usize> = (0..ranges.len()).collect();
    order.sort_by_key(|&i| (ranges[i].0, std::cmp::Reverse(ranges[i].1)));
    let mut top: Vec<ProcNode> = Vec::new();
    for i in order {
        let (start, end, name) = ranges[i].clone();
        if start >= end {
            continue;
        }
        let node = ProcNode {
            name,
            start,
            end,
            children: Vec::new(),
        };
        if let Err(n) = insert(&mut top, node) {
            warnings.push(format!(
                "procedure {} ({:#05X}..{:#05X}) overlaps another",
                n.name, n.start, n.end
            ));
        }
    }
    // Code outside every procedure gets a procedure of its own.
    let mut filled = Vec::new();
    let mut pc = 0;
    for n in top {
        if n.start > pc {
            filled.push(ProcNode {
                name: format!("code_{pc:03x}"),
                start: pc,
                end: n.start,
                children: Vec::new(),
            });
        }
        pc = n.end;
        filled.push(n);
    }
    if pc < len {
        filled.push(ProcNode {
            name: format!("code_{pc:03x}"),
            start: pc,
            end: len,
            children: Vec::new(),
        });
    }

    // Files: DVLE k's file ends after the top-level procedure holding its entry's last word.
    let n = bin.dvles.len().max(1);
    let mut bounds = Vec::with_capacity(n);
    let mut prev = 0;
    for k in 0..n {
        let bound = if k + 1 == n {
            len
        } else {
            let d = &bin.dvles[k];
            let anchor = (d.entry_end as usize).max(d.entry_start as usize + 1) - 1;
            let end = filled
                .iter()
                .find(|p| p.start <= anchor && anchor < p.end)
                .map_or(anchor + 1, |p| p.end);
            end.max(prev)
        };
        let bound = bound.min(len).max(prev);
        bounds.push(bound);
        prev = bound;
    }
    let mut files = Vec::with_capacity(n);
    let mut start = 0;
    for (k, &end) in bounds.iter().enumerate() {
        let procs = filled
            .iter()
            .filter(|p| p.start >= start && p.start < end)
            .cloned()
            .collect();
        files.push(FilePlan {
            dvle: (!bin.dvles.is_empty()).then_some(k),
            procs,
            start,
            end,
        });
        start = end;
    }

    // Labels, which must lie in the jump's own file.
    let mut labels = BTreeMap::new();
    for (addr, d) in decoded.iter().enumerate() {
        let Some(d) = d else { continue };
        if let Inst::JmpC { target, .. } | Inst::JmpU { target, .. } = d.inst {
            let t = target.addr() as usize;
            let file = files.iter().find(|f| f.start <= addr && addr < f.end);
            if !file.is_some_and(|f| f.start <= t && t <= f.end) {
                warnings.push(format!("{addr:#05X}: jump to {t:#05X} leaves its file"));
            }
            labels.insert(t, format!("l_{t:03x}"));
        }
    }
    Plan {
        files,
        entries,
        labels,
    }
}
