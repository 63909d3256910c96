//! Shared by the simulator tests: the PTX of every configuration (built with the pinned
//! nightly), skipped loudly without the tools and failed under `CI=true`, as in
//! `ptx_conformance.rs`.

#![allow(dead_code)]

use scoped_atomics_host::ptx::{Error, Target, Toolchain, build_ptx};
use scoped_atomics_host::sim::Simulator;
use std::io::Write as _;

fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// Skips (or, on CI, fails) for a missing tool.
pub fn missing(test: &str, why: &str) {
    if on_ci() {
        panic!(
            "{test}: {why}; with CI=true the tools must be installed (run bash tools/install.sh)"
        );
    }
    let bar = "=".repeat(72);
    let msg = format!("\n{bar}\nSKIPPED {test}: {why} (run bash tools/install.sh)\n{bar}\n\n");
    let _ = std::io::stderr().write_all(msg.as_bytes());
}

/// The PTX of `target` (built if needed), or None after printing why it was skipped.
pub fn ptx(test: &str, target: Target) -> Option<String> {
    let tc = match Toolchain::discover() {
        Ok(tc) => tc,
        Err(Error::Missing(why)) => {
            missing(test, &why);
            return None;
        }
        Err(e) => panic!("{test}: {e}"),
    };
    match build_ptx(&tc, target) {
        Ok(path) => Some(std::fs::read_to_string(path).expect("reading the PTX")),
        Err(Error::Missing(why)) => {
            missing(test, &why);
            None
        }
        Err(e) => panic!("{test}: {e}"),
    }
}

/// The simulator of `target`'s PTX, or None when skipped.
pub fn simulator(test: &str, target: Target) -> Option<Simulator> {
    let text = ptx(test, target)?;
    Some(Simulator::new(&text).unwrap_or_else(|e| panic!("{test}: {target}: {e}")))
}

/// A small deterministic generator for operands (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Reads buffer `i` of an outcome as `u32`s.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// `u32`s as buffer bytes.
pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
