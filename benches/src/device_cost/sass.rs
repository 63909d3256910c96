//! The SASS side of the count: parsing a `cuobjdump -sass` listing and counting its instructions.

use std::collections::BTreeMap;

/// One SASS instruction: its address and text (without the encoding).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SassInstr {
    pub address: u64,
    pub text: String,
}

impl SassInstr {
    /// The opcode with its modifiers (`ATOM.E.CAS.STRONG.GPU`), without a predicate guard.
    pub fn opcode(&self) -> &str {
        let mut words = self.text.split_whitespace();
        let first = words.next().unwrap_or_default();
        if first.starts_with('@') {
            words.next().unwrap_or_default()
        } else {
            first
        }
        .trim_end_matches(';')
    }

    /// `NOP` padding, or the closing `BRA` to itself.
    pub fn is_padding(&self) -> bool {
        let op = self.opcode();
        if op == "NOP" {
            return true;
        }
        if op == "BRA" && !self.text.starts_with('@') {
            let target = self.text.split_whitespace().nth(1).unwrap_or_default();
            let target = target.trim_end_matches(';').trim_start_matches("0x");
            return u64::from_str_radix(target, 16).is_ok_and(|t| t == self.address);
        }
        false
    }
}

/// Whether a SASS opcode is a memory access or a memory barrier: `LD`, `ST`, `LDG`, `STG`,
/// `ATOM`, `ATOMG`, `RED`, `REDG`, `MEMBAR`, `FENCE`, `ERRBAR`, `CGAERRBAR`, `CCTL` (with any
/// modifiers). Constant, local and shared-memory accesses (`LDC`, `ULDC`, `LDL`, `LDS`, ...) are
/// not.
pub fn is_memory_model_sass(opcode: &str) -> bool {
    matches!(
        opcode.split('.').next().unwrap_or_default(),
        "LD" | "ST"
            | "LDG"
            | "STG"
            | "ATOM"
            | "ATOMG"
            | "RED"
            | "REDG"
            | "MEMBAR"
            | "FENCE"
            | "ERRBAR"
            | "CGAERRBAR"
            | "CCTL"
    )
}

/// The functions of a `cuobjdump -sass` listing with their instructions (padding included).
pub fn parse_sass(listing: &str) -> BTreeMap<String, Vec<SassInstr>> {
    let mut functions: BTreeMap<String, Vec<SassInstr>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in listing.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("Function : ") {
            let name = name.trim().to_string();
            functions.entry(name.clone()).or_default();
            current = Some(name);
            continue;
        }
        let Some(f) = &current else { continue };
        // `/*0040*/   CCTL.IVALL ;   /* 0x00000000ff00798f */`
        let Some(rest) = t.strip_prefix("/*") else {
            continue;
        };
        let Some((addr, rest)) = rest.split_once("*/") else {
            continue;
        };
        let Ok(address) = u64::from_str_radix(addr.trim(), 16) else {
            continue; // an encoding-only line: `/* 0x000fe20000000800 */`
        };
        let code = rest.split("/*").next().unwrap_or_default().trim();
        let code = code.trim_end_matches(';').trim();
        if code.is_empty() {
            continue;
        }
        functions.get_mut(f).unwrap().push(SassInstr {
            address,
            text: code.to_string(),
        });
    }
    functions
}

/// The static SASS cost of one function.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SassCost {
    pub total: usize,
    pub mm: usize,
    /// The instructions (padding dropped), for the listing.
    pub listing: Vec<String>,
}

/// The SASS cost of one function's instructions.
pub fn sass_cost(instrs: &[SassInstr]) -> SassCost {
    let kept: Vec<&SassInstr> = instrs.iter().filter(|i| !i.is_padding()).collect();
    SassCost {
        total: kept.len(),
        mm: kept
            .iter()
            .filter(|i| is_memory_model_sass(i.opcode()))
            .count(),
        listing: kept.iter().map(|i| i.text.clone()).collect(),
    }
}

impl SassCost {
    /// The memory instructions and barriers of the listing (see [`is_memory_model_sass`]).
    pub fn memory_listing(&self) -> Vec<&str> {
        self.listing
            .iter()
            .filter(|i| {
                let mut words = i.split_whitespace();
                let first = words.next().unwrap_or_default();
                let op = if first.starts_with('@') {
                    words.next().unwrap_or_default()
                } else {
                    first
                };
                is_memory_model_sass(op)
            })
            .map(String::as_str)
            .collect()
    }
}
