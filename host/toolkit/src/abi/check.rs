//! The check of a kernel's memory-model sequence against its probe's expectation; snapshot lines.

use super::Expected;
use crate::ptx::{Item, Kernel, Normaliser, instructions};
use std::collections::BTreeMap;

/// The problems of a kernel's memory-model sequence against `expected`; empty if it conforms.
///
/// Besides the exact memory-model instructions (mnemonic with sem, scope and type; operands
/// ignored), unpredicated: a non-loop probe has no branch at all; a CAS loop has no branch
/// before its `atom.cas`, a conditional backward branch after it to a label between the
/// `ld.relaxed` and the `atom.cas`, and no other backward branch.
pub fn check_sequence(sequence: &[Item], expected: &Expected) -> Vec<String> {
    let mut problems = Vec::new();
    let memory: Vec<(usize, &crate::ptx::Instr)> = sequence
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match item {
            Item::Instr(ins) if ins.is_memory_model() => Some((i, ins)),
            _ => None,
        })
        .collect();
    let actual: Vec<&str> = memory.iter().map(|(_, i)| i.mnemonic.as_str()).collect();
    if actual != expected.instructions {
        problems.push(format!(
            "memory-model instructions: expected [{}], found [{}]",
            expected.instructions.join("; "),
            actual.join("; ")
        ));
    }
    for (_, ins) in &memory {
        if ins.guard.is_some() {
            problems.push(format!("predicated memory-model instruction `{ins}`"));
        }
    }
    let labels: BTreeMap<&str, usize> = sequence
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match item {
            Item::Label(l) => Some((l.as_str(), i)),
            _ => None,
        })
        .collect();
    let branches: Vec<(usize, &crate::ptx::Instr)> = sequence
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match item {
            Item::Instr(ins) if ins.is_branch() => Some((i, ins)),
            _ => None,
        })
        .collect();
    let target_of =
        |ins: &crate::ptx::Instr| ins.branch_target().and_then(|t| labels.get(t).copied());
    match expected.cas_loop {
        None => {
            for (_, b) in &branches {
                problems.push(format!("unexpected branch `{b}` (no loop expected)"));
            }
        }
        Some(_) if problems.is_empty() => {
            let ld = memory[memory.len() - 2].0;
            let cas = memory[memory.len() - 1].0;
            let mut back_edge = false;
            for &(at, b) in &branches {
                let Some(to) = target_of(b) else {
                    problems.push(format!("branch `{b}` to a label outside the sequence"));
                    continue;
                };
                if at < cas {
                    problems.push(format!("branch `{b}` before the atom.cas"));
                } else if to <= at {
                    if ld < to && to < cas && b.guard.is_some() {
                        back_edge = true;
                    } else {
                        problems.push(format!(
                            "backward branch `{b}` that is not the CAS loop's back edge"
                        ));
                    }
                }
            }
            if !back_edge {
                problems.push(
                    "no CAS loop: no conditional backward branch after the atom.cas to a label \
                     between the ld.relaxed and the atom.cas"
                        .into(),
                );
            }
        }
        Some(_) => {}
    }
    problems
}

/// The problems of `kernel` against `expected`: [`check_sequence`], plus no `.extern` and no
/// `trap` (which the backend emits only for a row it cannot realise) in the body.
pub fn check_kernel(kernel: &Kernel, expected: &Expected) -> Vec<String> {
    check_items(kernel, &instructions(kernel), expected)
}

/// [`check_kernel`] given the kernel's [`instructions`].
pub fn check_items(kernel: &Kernel, items: &[Item], expected: &Expected) -> Vec<String> {
    let sequence: Vec<Item> = items
        .iter()
        .filter(|i| is_sequence_item(i))
        .filter(|i| !(expected.copies && matches!(i, Item::Instr(ins) if is_plain_access(ins))))
        .cloned()
        .collect();
    let mut problems = check_sequence(&sequence, expected);
    if kernel.body.iter().any(|l| l.contains(".extern")) {
        problems.push("`.extern` declaration in the body".into());
    }
    for item in items {
        if matches!(item, Item::Instr(i) if i.mnemonic == "trap") {
            problems.push("`trap` in the body".into());
        }
    }
    problems
}

/// A plain `ld`/`st`: no `.sem`, not `.volatile` (a `__shared` probe's cell copies).
fn is_plain_access(ins: &crate::ptx::Instr) -> bool {
    let m = ins.mnemonic.as_str();
    (m.starts_with("ld.") || m.starts_with("st."))
        && !m.starts_with("ld.param.")
        && ![
            ".relaxed",
            ".acquire",
            ".release",
            ".volatile",
            ".weak",
            ".mmio",
        ]
        .iter()
        .any(|q| m.contains(q))
}

/// Whether an item belongs to the memory-model sequence (as in
/// [`crate::ptx::memory_model_sequence`]).
fn is_sequence_item(item: &Item) -> bool {
    match item {
        Item::Label(_) => true,
        Item::Instr(i) => i.is_memory_model() || i.is_branch(),
    }
}

/// A kernel's memory-model sequence as snapshot lines (registers and labels renamed).
pub fn snapshot_lines(kernel: &Kernel) -> Vec<String> {
    snapshot_lines_of(&instructions(kernel))
}

/// [`snapshot_lines`] given the kernel's [`instructions`].
pub fn snapshot_lines_of(items: &[Item]) -> Vec<String> {
    let mut n = Normaliser::new();
    items
        .iter()
        .filter(|i| is_sequence_item(i))
        .map(|i| n.item(i))
        .collect()
}
