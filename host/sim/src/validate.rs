//! The module checks ptxas makes before it assembles, for what the simulator decodes: one
//! definition per variable and function name, the module's `.const` data within 64 KiB, and a
//! kernel's static `.shared` data within 48 KiB. Each refusal names the symbol and its PTX line.
//! (Registers, operands, symbols and labels are checked where [`super::decode`] reads them, and
//! declarations of one name in one block where the parser reads the blocks.)

use super::parse::{Module, Stmt, Var, VarSpace};
use crate::error::SimError;
use std::collections::HashMap;

/// The static shared memory a kernel may use without opting in to more (ptxas: "uses too much
/// shared data (… bytes, 0xc000 max)", the same for every target from sm_50 to sm_90).
pub const SHARED_LIMIT: u64 = 48 << 10;

/// The constant data a module may define (ptxas: "File uses too much global constant data (…
/// bytes, 0x10000 max)").
pub const CONST_LIMIT: u64 = 64 << 10;

/// Refuses two definitions of one name (variables of `.global`, `.shared` and `.const`, and
/// functions with bodies), a variable named as a function, and `.const` data beyond 64 KiB.
pub fn module(m: &Module) -> Result<(), SimError> {
    let mut defined: HashMap<&str, u32> = HashMap::new();
    for v in m.vars.iter().filter(|v| !v.external) {
        if let Some(first) = defined.insert(&v.name, v.line) {
            return Err(SimError::parse(
                v.line,
                format!(
                    "duplicate definition of variable `{}` (first defined at PTX line {first})",
                    v.name
                ),
            ));
        }
    }
    for f in &m.funcs {
        if let Some(&at) = defined.get(f.name.as_str()) {
            return Err(SimError::parse(
                f.line,
                format!(
                    "function `{}` has the name of the variable defined at PTX line {at}",
                    f.name
                ),
            ));
        }
    }
    let mut size = 0u64;
    for v in m
        .vars
        .iter()
        .filter(|v| v.space == VarSpace::Const && !v.external)
    {
        size = size.next_multiple_of(v.align.max(1)) + v.size;
        if size > CONST_LIMIT {
            return Err(SimError::parse(
                v.line,
                format!(
                    ".const variable `{}` ({} bytes) takes the module's constant data to {size} bytes, beyond the {CONST_LIMIT} (64 KiB) a module may have",
                    v.name, v.size
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses a kernel whose static `.shared` variables — the module's ones that its code (module
/// functions `funcs`, the kernel and what it calls) names, and those declared inside those
/// functions — exceed [`SHARED_LIMIT`], naming them from the largest.
pub fn kernel_shared(
    m: &Module,
    kernel: &str,
    funcs: impl IntoIterator<Item = u32>,
) -> Result<(), SimError> {
    let shared: HashMap<&str, &Var> = m
        .vars
        .iter()
        .filter(|v| v.space == VarSpace::Shared && !v.dynamic)
        .map(|v| (v.name.as_str(), v))
        .collect();
    let mut used: Vec<&Var> = Vec::new();
    for f in funcs {
        for s in m.funcs[f as usize].body.iter().flatten() {
            match s {
                Stmt::Instr(i) => {
                    for name in i.operands.iter().flat_map(|o| names(o)) {
                        if let Some(v) = shared.get(name)
                            && !used.iter().any(|u| std::ptr::eq(*u, *v))
                        {
                            used.push(v);
                        }
                    }
                }
                Stmt::Local(v) if v.space == VarSpace::Shared && !v.dynamic => used.push(v),
                _ => {}
            }
        }
    }
    let size = used
        .iter()
        .fold(0, |at: u64, v| at.next_multiple_of(v.align.max(1)) + v.size);
    if size <= SHARED_LIMIT {
        return Ok(());
    }
    used.sort_by_key(|v| std::cmp::Reverse(v.size));
    let list: Vec<String> = used
        .iter()
        .map(|v| format!("`{}` ({} bytes, PTX line {})", v.name, v.size, v.line))
        .collect();
    Err(SimError::BadInput(format!(
        "kernel `{kernel}` uses {size} bytes of static shared memory, beyond the {SHARED_LIMIT} (48 KiB) a kernel may have: {}",
        list.join(", ")
    )))
}

/// The identifiers in an operand (`[s+8]` → `s`, `{%r1, %r2}` → `%r1`, `%r2`).
fn names(operand: &str) -> impl Iterator<Item = &str> {
    operand
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '.')))
        .filter(|w| !w.is_empty())
}
