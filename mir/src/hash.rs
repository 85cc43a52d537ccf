//! Hash maps and sets keyed by the IR's small integer handles and keys. std's default
//! SipHash is built to resist hostile keys, which arena indices are not, and it was the
//! largest single cost of the optimiser; this multiplicative hash (Fibonacci hashing over
//! the written words) is several times cheaper. It is also seeded the same in every run,
//! which keeps any iteration order the same from run to run.

use std::hash::{BuildHasherDefault, Hasher};

/// A [`std::collections::HashMap`] with [`FastHasher`].
pub type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// A [`std::collections::HashSet`] with [`FastHasher`].
pub type HashSet<T> = std::collections::HashSet<T, BuildHasherDefault<FastHasher>>;

/// Mixes each written word into the state with a multiply by 2⁶⁴/φ and a rotation.
#[derive(Clone, Copy, Debug, Default)]
pub struct FastHasher(u64);

const K: u64 = 0x9e37_79b9_7f4a_7c15;

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
