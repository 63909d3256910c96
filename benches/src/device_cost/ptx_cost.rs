//! The PTX side of the count: extracting kernels from a PTX text and counting their instructions.

use scoped_atomics_host::ptx::{self, Item};
use std::collections::{BTreeMap, BTreeSet};

/// The `.entry` declared on `line`, if any.
fn entry_name(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    for prefix in [".visible", ".weak"] {
        if let Some(r) = rest.strip_prefix(prefix) {
            rest = r.trim_start();
        }
    }
    let rest = rest.strip_prefix(".entry")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| c == '(' || c.is_whitespace())
        .unwrap_or(rest.len());
    Some(&rest[..end]).filter(|n| !n.is_empty())
}

/// A PTX text with only the header (`.version`, `.target`, `.address_size`) and the `.entry`
/// kernels named in `names` of `ptx`, in their order there. Errs if a kernel is missing or
/// calls a function (the extract must assemble alone).
pub fn extract_entries(ptx: &str, names: &BTreeSet<&str>) -> Result<String, String> {
    let lines: Vec<&str> = ptx.lines().collect();
    let mut out = String::new();
    for directive in [".version", ".target", ".address_size"] {
        let line = lines
            .iter()
            .find(|l| l.trim_start().starts_with(directive))
            .ok_or_else(|| format!("the PTX has no {directive}"))?;
        out += line.trim();
        out.push('\n');
    }
    let mut found = BTreeSet::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(name) = entry_name(lines[i]).filter(|n| names.contains(n)) else {
            i += 1;
            continue;
        };
        let mut j = i;
        // The body ends with a `}` in column 0 (ptx-builder and nvcc both write it so).
        while j < lines.len() && lines[j].trim_end() != "}" {
            j += 1;
        }
        if j == lines.len() {
            return Err(format!("the body of {name} does not end"));
        }
        let body = &lines[i..=j];
        if body.iter().any(|l| {
            let code = l.split("//").next().unwrap_or_default().trim_start();
            code.starts_with("call") || code.contains(" call")
        }) {
            return Err(format!(
                "{name} calls a function; the cost model needs self-contained kernels"
            ));
        }
        out.push('\n');
        for l in body {
            out += l;
            out.push('\n');
        }
        found.insert(name.to_string());
        i = j + 1;
    }
    let missing: Vec<&str> = names
        .iter()
        .filter(|n| !found.contains(**n))
        .copied()
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "{} kernel(s) not in the PTX, e.g. {}",
            missing.len(),
            missing
                .iter()
                .take(5)
                .copied()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(out)
}

/// Whether a PTX mnemonic is a memory-model instruction: `ld`/`st` with a `.sem` or `.volatile`
/// (or `.mmio`), `atom`, `red`, `fence`, `membar`. `ld.param` and plain (weak) `ld`/`st` are not.
pub fn is_memory_model_ptx(mnemonic: &str) -> bool {
    let qualifiers: Vec<&str> = mnemonic.split('.').collect();
    match qualifiers[0] {
        "atom" | "red" | "fence" | "membar" => true,
        "ld" | "st" => qualifiers[1..].iter().any(|q| {
            matches!(
                *q,
                "relaxed" | "acquire" | "release" | "acq_rel" | "sc" | "volatile" | "mmio"
            )
        }),
        _ => false,
    }
}

/// The static PTX cost of one kernel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PtxCost {
    /// Memory-model instructions.
    pub mm: usize,
    /// All instructions of the body.
    pub total: usize,
    /// Number of `.param`s of the kernel.
    pub params: usize,
    /// The memory-model instructions, labels and branches, registers renamed (for the listing).
    pub mm_sequence: Vec<String>,
}

/// The PTX cost of every `.entry` of `ptx`.
pub fn ptx_costs(ptx_text: &str) -> BTreeMap<String, PtxCost> {
    let mut params_of: BTreeMap<String, usize> = BTreeMap::new();
    let lines: Vec<&str> = ptx_text.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if let Some(name) = entry_name(l) {
            let params = lines[i..]
                .iter()
                .take_while(|l| !l.trim_start().starts_with('{'))
                .filter(|l| l.trim_start().starts_with(".param"))
                .count();
            params_of.insert(name.to_string(), params);
        }
    }
    ptx::parse_kernels(ptx_text)
        .into_iter()
        .filter(|k| k.entry)
        .map(|k| {
            let items = ptx::instructions(&k);
            let instrs = items.iter().filter(|i| matches!(i, Item::Instr(_)));
            let mm = instrs
                .clone()
                .filter(|i| matches!(i, Item::Instr(x) if is_memory_model_ptx(&x.mnemonic)))
                .count();
            let shown: Vec<Item> = items
                .iter()
                .filter(|i| match i {
                    Item::Label(_) => true,
                    Item::Instr(x) => is_memory_model_ptx(&x.mnemonic) || x.is_branch(),
                })
                .cloned()
                .collect();
            let cost = PtxCost {
                mm,
                total: instrs.count(),
                params: params_of.get(&k.name).copied().unwrap_or(0),
                mm_sequence: ptx::normalise(&shown),
            };
            (k.name, cost)
        })
        .collect()
}
