//! Register operands of the type their instruction takes, as ptxas checks them ("Arguments
//! mismatch for instruction"): a guard is a predicate, and the operands of the instructions
//! whose operands all have the instruction's type (`add`, `mov`, `setp`, `selp`, …) are
//! registers of that type's size (any type of the size is accepted: ptxas lets a `.b32` or
//! `.f32` register serve a `.s32` operand) or predicates where the type is `.pred`.
//!
//! The data register of `ld` and `st` may be wider than the type, never narrower nor a
//! predicate; the registers of `atom` and `red` have the type's size. Only these are checked,
//! where a mismatch is always invalid: `cvt`'s two types, the `.wide` forms, shift amounts and
//! packed types have rules of their own that are left to the instructions' decoders.

use super::operands::{FnDecoder, invalid};
use crate::error::SimError;
use crate::parse::{RawInstr, type_size};

/// What an operand position takes.
#[derive(Clone, Copy, PartialEq)]
enum Takes {
    /// A register of the instruction's type.
    Typed,
    /// A register at least as wide as the instruction's type (`ld`, `st`).
    AtLeast,
    /// A predicate.
    Pred,
    /// Anything (not checked here).
    Any,
}

/// The positions of `base`'s operands, or `None` for an instruction not checked here.
fn positions(base: &str) -> Option<&'static [Takes]> {
    use Takes::*;
    Some(match base {
        "add" | "sub" | "addc" | "subc" | "mul" | "mad" | "madc" | "min" | "max" | "and" | "or"
        | "xor" | "not" | "neg" | "abs" | "mov" | "rem" | "div" | "fma" => {
            &[Typed, Typed, Typed, Typed]
        }
        "shl" | "shr" => &[Typed, Typed, Any],
        "ld" => &[AtLeast, Any],
        "st" => &[Any, AtLeast],
        "atom" => &[Typed, Any, Typed, Typed],
        "red" => &[Any, Typed],
        "selp" => &[Typed, Typed, Typed, Pred],
        "setp" => &[Pred, Typed, Typed, Pred],
        _ => return None,
    })
}

/// Refuses a register operand of `i` whose declared type does not fit its position.
pub(super) fn check(d: &FnDecoder, i: &RawInstr) -> Result<(), SimError> {
    if let Some((_, g)) = &i.guard
        && d.reg_size(g).is_some_and(|s| s != 0)
    {
        return Err(invalid(
            i,
            format!(
                "the guard `{}` is not a predicate register",
                crate::parse::as_declared(g)
            ),
        ));
    }
    let mut parts = i.opcode.split('.');
    let base = parts.next().unwrap_or("");
    let Some(takes) = positions(base) else {
        return Ok(());
    };
    let quals: Vec<&str> = parts.collect();
    if quals.iter().any(|q| matches!(*q, "wide" | "ftz_wide")) {
        return Ok(());
    }
    // The instruction's type: its last type suffix (`setp.lt.and.s32`: `.s32`).
    let size = match quals.iter().rev().find_map(|q| {
        if *q == "pred" {
            Some(Some(0))
        } else if q.ends_with("x2") {
            Some(None)
        } else {
            type_size(q).map(Some)
        }
    }) {
        Some(Some(size)) => size,
        _ => return Ok(()),
    };
    for (o, &want) in i.operands.iter().zip(takes) {
        let (want, wider_too) = match want {
            Takes::Any => continue,
            Takes::Pred => (0, false),
            Takes::Typed => (size, false),
            Takes::AtLeast => (size, true),
        };
        // `setp`'s two destinations `%p|%q`, and a negated predicate source `!%p`.
        for reg in o.split('|').map(|r| r.trim().trim_start_matches('!')) {
            let Some(got) = d.reg_size(reg) else {
                continue;
            };
            if got == want || (wider_too && got > want) {
                continue;
            }
            let what = |s: u32| match s {
                0 => "a predicate".to_string(),
                s => format!("a {}-bit register", 8 * s),
            };
            let what_wanted = match (want, wider_too) {
                (0, _) => "a predicate".to_string(),
                (s, true) => format!("a register of at least {} bits", 8 * s),
                (s, false) => format!("a {}-bit register", 8 * s),
            };
            return Err(invalid(
                i,
                format!(
                    "`{}` is {} where the instruction takes {} (ptxas: arguments mismatch)",
                    crate::parse::as_declared(reg),
                    what(got),
                    what_wanted
                ),
            ));
        }
    }
    Ok(())
}
