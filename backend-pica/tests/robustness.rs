//! Damaged inputs never panic: every byte of every golden file flipped, and code words replaced
//! by pseudo-random ones, go through the reader, the listing and the simulator.

use crate::common;

use backend_pica::sim::{Simulator, Uniforms};
use backend_pica::{disasm, shbin};

fn exercise(bytes: &[u8]) {
    let Ok(bin) = shbin::read(bytes) else { return };
    let _ = disasm::disassemble(&bin);
    if let Ok(sim) = Simulator::new(bytes) {
        let sim = sim.with_step_limit(5_000);
        for k in 0..bin.dvles.len() {
            let _ = sim.run(k, &[[1.0; 4]; 16], &Uniforms::default());
        }
    }
}

#[test]
fn flipped_bytes() {
    for name in common::programs() {
        let bytes = common::shbin(&name);
        for i in 0..bytes.len() {
            let mut m = bytes.clone();
            m[i] ^= 0xFF;
            exercise(&m);
        }
    }
}

#[test]
fn random_code_words() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed as u32
    };
    for name in common::programs() {
        let bytes = common::shbin(&name);
        let bin = shbin::read(&bytes).unwrap();
        for _ in 0..200 {
            let mut b = bin.clone();
            for w in b.code.iter_mut() {
                if next() % 3 == 0 {
                    *w = next();
                }
            }
            exercise(&shbin::write(&b).unwrap());
        }
    }
}
