//! One instruction of a thread: `ld`, `st`, `atom`, `red` with their qualifiers, fences,
//! `bar.cta.sync`, register arithmetic, labels and branches. Operations of other proxies are
//! refused by name.

use super::parse::{Ctx, ParseError, is_ident, norm_reg, parse_int};
use super::program::*;

/// Mnemonics of other proxies (textures, surfaces, constant memory, …) and of what the model
/// does not cover (asynchronous copies, proxy fences): refused by name.
const OTHER_PROXY: &[&str] = &[
    "suld",
    "sust",
    "sured",
    "suq",
    "tex",
    "tld4",
    "txq",
    "ldu",
    "cp",
    "cp.async",
    "multimem",
    "mbarrier",
    "wgmma",
    "tensormap",
];

/// Parses one instruction cell of thread placed at `place`.
pub(crate) fn parse_instr(
    cx: &Ctx,
    ln: usize,
    cell: &str,
    place: Placement,
) -> Result<Instr, ParseError> {
    if let Some(label) = cell.strip_suffix(':')
        && is_ident(label.trim())
    {
        return Ok(Instr::Label(label.trim().to_string()));
    }
    let (mnemonic, ops) = match cell.find(char::is_whitespace) {
        Some(p) => (&cell[..p], cell[p..].trim()),
        None => (cell, ""),
    };
    let ops: Vec<&str> = if ops.is_empty() {
        Vec::new()
    } else {
        ops.split(',').map(str::trim).collect()
    };
    let quals: Vec<&str> = mnemonic.split('.').collect();
    let head = quals[0];
    if OTHER_PROXY.contains(&head) {
        return Err(cx.err(
            ln,
            mnemonic,
            format!("unsupported instruction `{mnemonic}`: only the generic proxy is modelled"),
        ));
    }
    let host = place == Placement::Host;
    let want = |n: usize| -> Result<(), ParseError> {
        if ops.len() == n {
            Ok(())
        } else {
            Err(cx.err(
                ln,
                cell,
                format!("`{head}` takes {n} operands, found {}", ops.len()),
            ))
        }
    };
    match head {
        "ld" | "st" | "atom" | "red" => {
            let mq = MemQuals::parse(cx, ln, head, &quals[1..], host)?;
            let loc = |s: &str| location(cx, ln, s);
            match head {
                "ld" => {
                    want(2)?;
                    if mq.sem.is_release() {
                        return Err(cx.err(ln, mnemonic, "a load cannot be `.release`"));
                    }
                    Ok(Instr::Ld {
                        sem: mq.sem,
                        scope: mq.scope,
                        dst: register(cx, ln, ops[0])?,
                        loc: loc(ops[1])?,
                    })
                }
                "st" => {
                    want(2)?;
                    if mq.sem.is_acquire() {
                        return Err(cx.err(ln, mnemonic, "a store cannot be `.acquire`"));
                    }
                    Ok(Instr::St {
                        sem: mq.sem,
                        scope: mq.scope,
                        loc: loc(ops[0])?,
                        val: operand(cx, ln, ops[1])?,
                    })
                }
                _ => {
                    let op = mq.op.ok_or_else(|| {
                        cx.err(
                            ln,
                            mnemonic,
                            format!("`{head}` needs an operation (add, exch, cas, …)"),
                        )
                    })?;
                    let red = head == "red";
                    if red && matches!(op, RmwOp::Exch | RmwOp::Cas) {
                        return Err(cx.err(ln, mnemonic, "`red` has no `exch` or `cas`"));
                    }
                    let n = usize::from(!red) + 2 + usize::from(op == RmwOp::Cas);
                    want(n)?;
                    let o = usize::from(!red);
                    Ok(Instr::Atom {
                        sem: mq.sem,
                        scope: mq.scope,
                        op,
                        dst: if red {
                            None
                        } else {
                            Some(register(cx, ln, ops[0])?)
                        },
                        loc: loc(ops[o])?,
                        a: operand(cx, ln, ops[o + 1])?,
                        b: if op == RmwOp::Cas {
                            Some(operand(cx, ln, ops[o + 2])?)
                        } else {
                            None
                        },
                    })
                }
            }
        }
        "fence" | "membar" => {
            want(0)?;
            let mut kind = if head == "membar" {
                FenceKind::Sc
            } else {
                FenceKind::AcqRel
            };
            let mut scope = None;
            for q in &quals[1..] {
                match *q {
                    "sc" if head == "fence" => kind = FenceKind::Sc,
                    "acq_rel" if head == "fence" => kind = FenceKind::AcqRel,
                    "acquire" if head == "fence" => kind = FenceKind::Acquire,
                    "release" if head == "fence" => kind = FenceKind::Release,
                    "gl" if head == "membar" => scope = Some(Scope::Gpu),
                    "proxy" | "op_restrict" | "mbarrier_init" => {
                        return Err(cx.err(ln, mnemonic, format!("unsupported instruction `{mnemonic}`: proxy fences are not modelled (generic proxy only)")));
                    }
                    q => match Scope::from_qualifier(q) {
                        Some(s) => scope = Some(s),
                        None => {
                            return Err(cx.err(
                                ln,
                                q,
                                format!("unknown qualifier `.{q}` of `{head}`"),
                            ));
                        }
                    },
                }
            }
            let scope = if host {
                Scope::Sys
            } else {
                scope.unwrap_or(Scope::Gpu)
            };
            Ok(Instr::Fence { kind, scope })
        }
        "bar" | "barrier" => {
            match &quals[1..] {
                ["sync"] | ["cta", "sync"] | ["sync", "aligned"] | ["cta", "sync", "aligned"] => {}
                _ => {
                    return Err(cx.err(ln, mnemonic, format!("unsupported instruction `{mnemonic}`: only `bar.cta.sync N` is modelled")));
                }
            }
            if ops.is_empty() || ops.len() > 2 {
                return Err(cx.err(
                    ln,
                    cell,
                    "`bar.cta.sync` takes a barrier number (and an optional thread count)",
                ));
            }
            let id =
                parse_int(ops[0]).ok_or_else(|| cx.err(ln, ops[0], "expected a barrier number"))?;
            if host {
                return Err(cx.err(ln, mnemonic, "a host thread has no CTA barrier"));
            }
            Ok(Instr::Bar { id })
        }
        "mov" => {
            want(2)?;
            Ok(Instr::Alu {
                op: AluOp::Second,
                dst: register(cx, ln, ops[0])?,
                a: Operand::Imm(0),
                b: operand(cx, ln, ops[1])?,
            })
        }
        "add" | "sub" | "and" | "or" | "xor" | "min" | "max" => {
            want(3)?;
            let op = match head {
                "add" => AluOp::Add,
                "sub" => AluOp::Sub,
                "and" => AluOp::And,
                "or" => AluOp::Or,
                "xor" => AluOp::Xor,
                "min" => AluOp::Min,
                _ => AluOp::Max,
            };
            Ok(Instr::Alu {
                op,
                dst: register(cx, ln, ops[0])?,
                a: operand(cx, ln, ops[1])?,
                b: operand(cx, ln, ops[2])?,
            })
        }
        "goto" | "bra" => {
            want(1)?;
            Ok(Instr::Branch {
                cond: None,
                target: label(cx, ln, ops[0])?,
            })
        }
        "beq" | "bne" | "blt" | "ble" | "bgt" | "bge" => {
            want(3)?;
            let c = match head {
                "beq" => Cmp::Eq,
                "bne" => Cmp::Ne,
                "blt" => Cmp::Lt,
                "ble" => Cmp::Le,
                "bgt" => Cmp::Gt,
                _ => Cmp::Ge,
            };
            Ok(Instr::Branch {
                cond: Some((c, operand(cx, ln, ops[0])?, operand(cx, ln, ops[1])?)),
                target: label(cx, ln, ops[2])?,
            })
        }
        _ => Err(cx.err(ln, mnemonic, format!("unknown instruction `{mnemonic}`"))),
    }
}

/// The qualifiers of `ld`, `st`, `atom` and `red`.
struct MemQuals {
    sem: Sem,
    scope: Scope,
    op: Option<RmwOp>,
}

impl MemQuals {
    fn parse(
        cx: &Ctx,
        ln: usize,
        head: &str,
        quals: &[&str],
        host: bool,
    ) -> Result<MemQuals, ParseError> {
        let atomic = matches!(head, "atom" | "red");
        let mut sem = None;
        let mut scope = None;
        let mut op = None;
        let mut volatile = false;
        for &q in quals {
            let set_sem = |sem: &mut Option<Sem>, s: Sem| -> Result<(), ParseError> {
                if sem.is_some() {
                    return Err(cx.err(ln, q, "more than one memory-ordering qualifier"));
                }
                *sem = Some(s);
                Ok(())
            };
            match q {
                "weak" if !atomic => set_sem(&mut sem, Sem::Weak)?,
                "relaxed" => set_sem(&mut sem, Sem::Relaxed)?,
                "acquire" => set_sem(&mut sem, Sem::Acquire)?,
                "release" => set_sem(&mut sem, Sem::Release)?,
                "acq_rel" if atomic => set_sem(&mut sem, Sem::AcqRel)?,
                "volatile" | "mmio" if !atomic => {
                    set_sem(&mut sem, Sem::Relaxed)?;
                    volatile = true;
                }
                "global" | "shared" | "generic" => {}
                "cta" | "cluster" | "gpu" | "sys" => scope = Scope::from_qualifier(q),
                "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" => {}
                "const" | "nc" | "param" | "tex" | "surf" | "local" => {
                    return Err(cx.err(ln, q, format!("unsupported state space or proxy `.{q}`: only the generic proxy is modelled")));
                }
                _ if is_type(q) => {}
                _ if atomic && RmwOp::from_qualifier(q).is_some() => {
                    if op.is_some() {
                        return Err(cx.err(ln, q, "more than one operation"));
                    }
                    op = RmwOp::from_qualifier(q);
                }
                _ => return Err(cx.err(ln, q, format!("unknown qualifier `.{q}` of `{head}`"))),
            }
        }
        let sem = sem.unwrap_or(if atomic { Sem::Relaxed } else { Sem::Weak });
        if sem == Sem::Weak && scope.is_some() {
            return Err(cx.err(ln, head, "a weak operation has no scope"));
        }
        let scope = if host || volatile {
            Scope::Sys
        } else {
            scope.unwrap_or(Scope::Gpu)
        };
        Ok(MemQuals { sem, scope, op })
    }
}

fn is_type(q: &str) -> bool {
    matches!(
        q,
        "b8" | "b16"
            | "b32"
            | "b64"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "s8"
            | "s16"
            | "s32"
            | "s64"
            | "f16"
            | "f32"
            | "f64"
    )
}

fn location(cx: &Ctx, ln: usize, s: &str) -> Result<String, ParseError> {
    let n = s
        .strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .unwrap_or(s)
        .trim();
    if is_ident(n) && !n.starts_with('%') {
        Ok(n.to_string())
    } else {
        Err(cx.err(ln, s, "expected a location name"))
    }
}

fn register(cx: &Ctx, ln: usize, s: &str) -> Result<String, ParseError> {
    if is_ident(s) {
        Ok(norm_reg(s))
    } else {
        Err(cx.err(ln, s, "expected a register"))
    }
}

fn operand(cx: &Ctx, ln: usize, s: &str) -> Result<Operand, ParseError> {
    match parse_int(s) {
        Some(v) => Ok(Operand::Imm(v)),
        None if is_ident(s) => Ok(Operand::Reg(norm_reg(s))),
        None => Err(cx.err(ln, s, "expected a register or an integer")),
    }
}

fn label(cx: &Ctx, ln: usize, s: &str) -> Result<String, ParseError> {
    if is_ident(s) {
        Ok(s.to_string())
    } else {
        Err(cx.err(ln, s, "expected a label"))
    }
}
