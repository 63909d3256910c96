//! One instruction of a thread: `ld`, `st`, `atom`, `red` (and Dat3M's proxy twins `tld`,
//! `cold`, `suld`, `sust`, `suatom`, `sured`) with their qualifiers, fences (proxy fences
//! included), `bar.cta.sync`, register arithmetic, labels and branches. Real PTX texture and
//! surface instructions and the async proxy are refused by name.

use super::program::*;
use super::text::{Ctx, ParseError, is_ident, norm_reg, parse_int};

/// Mnemonics of what the model does not cover (real PTX texture and surface instructions,
/// asynchronous copies, …): refused by name.
const OTHER_PROXY: &[&str] = &[
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

/// The location a register holds the address of (`P0:r1=&x` in the initial state), if any.
pub(crate) type Pointers<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Parses one instruction cell of a thread placed at `place` into its instructions: a label
/// (`L:`, also before an instruction on the same cell), a guarded instruction (`@p INSTR`,
/// `@!p INSTR`: a branch around it), a `.sc` memory operation (the Atomics ABI's `fence.sc`
/// before the acquire or relaxed operation), or one instruction. `fresh` numbers the labels
/// this introduces.
pub(crate) fn parse_cell(
    cx: &Ctx,
    ln: usize,
    cell: &str,
    place: Placement,
    ptrs: Pointers,
    fresh: &mut usize,
) -> Result<Vec<Instr>, ParseError> {
    let cell = cell.trim();
    if let Some(label) = cell.strip_suffix(':')
        && is_ident(label.trim())
    {
        return Ok(vec![Instr::Label(label.trim().to_string())]);
    }
    if let Some((label, rest)) = cell.split_once(':')
        && is_ident(label.trim())
        && !label.trim().contains('.')
        && !rest.trim().is_empty()
    {
        let mut v = vec![Instr::Label(label.trim().to_string())];
        v.extend(parse_cell(cx, ln, rest, place, ptrs, fresh)?);
        return Ok(v);
    }
    if let Some(guarded) = cell.strip_prefix('@') {
        let (negate, g) = match guarded.strip_prefix('!') {
            Some(g) => (true, g),
            None => (false, guarded),
        };
        let (reg, rest) = g
            .split_once(char::is_whitespace)
            .ok_or_else(|| cx.err(ln, cell, "expected `@PRED INSTRUCTION`"))?;
        let pred = register(cx, ln, reg)?;
        *fresh += 1;
        let skip = format!("__guard{}", *fresh);
        // `@p I` runs I when p is true: skip it when p == 0 (`@!p`: when p != 0).
        let c = if negate { Cmp::Ne } else { Cmp::Eq };
        let mut v = vec![Instr::Branch {
            cond: Some((c, Operand::Reg(pred), Operand::Imm(0))),
            target: skip.clone(),
        }];
        v.extend(parse_cell(cx, ln, rest.trim(), place, ptrs, fresh)?);
        v.push(Instr::Label(skip));
        return Ok(v);
    }
    parse_instr(cx, ln, cell, place, ptrs)
}

/// Parses one instruction (the forms of [`parse_cell`] aside).
fn parse_instr(
    cx: &Ctx,
    ln: usize,
    cell: &str,
    place: Placement,
    ptrs: Pointers,
) -> Result<Vec<Instr>, ParseError> {
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
    // Dat3M's accesses through other proxies (8.6): texture and constant loads, surface loads,
    // stores and atomics; each is its generic twin performed via that proxy.
    let (head, proxy) = match quals[0] {
        "tld" => ("ld", Proxy::Texture),
        "cold" => ("ld", Proxy::Constant),
        "suld" => ("ld", Proxy::Surface),
        "sust" => ("st", Proxy::Surface),
        "suatom" => ("atom", Proxy::Surface),
        "sured" => ("red", Proxy::Surface),
        other => (other, Proxy::Generic),
    };
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
    let one = |i: Instr| Ok(vec![i]);
    match head {
        // Dat3M's register assignments spelled as loads: `ld r0, 1`, `ld r0, r1` and
        // `ld.MO r0, 1` (a constant is never an address).
        "ld" if proxy == Proxy::Generic
            && ops.len() == 2
            && (parse_int(ops[1]).is_some()
                || (quals.len() == 1 && is_register_name(ops[1]) && ptrs(ops[1]).is_none())) =>
        {
            one(Instr::Alu {
                op: AluOp::Second,
                dst: register(cx, ln, ops[0])?,
                a: Operand::Imm(0),
                b: operand(cx, ln, ops[1])?,
            })
        }
        "ld" | "st" | "atom" | "red" => {
            let mq = MemQuals::parse(cx, ln, (head, quals[0]), &quals[1..], host)?;
            let loc = |s: &str| location(cx, ln, s, ptrs);
            let (sem, fence) = match mq.sem {
                // `.sc` (Dat3M's grammar): the Atomics ABI's seq_cst mapping, `fence.sc`
                // then the acquire load / relaxed store / acquire read-modify-write.
                None => (
                    match head {
                        "ld" | "atom" => Sem::Acquire,
                        _ => Sem::Relaxed,
                    },
                    Some(Instr::Fence {
                        kind: FenceKind::Sc,
                        scope: mq.scope,
                    }),
                ),
                Some(s) => (s, None),
            };
            let mut out: Vec<Instr> = fence.into_iter().collect();
            match head {
                "ld" => {
                    want(2)?;
                    if sem.is_release() {
                        return Err(cx.err(ln, mnemonic, "a load cannot be `.release`"));
                    }
                    out.push(Instr::Ld {
                        sem,
                        scope: mq.scope,
                        dst: register(cx, ln, ops[0])?,
                        loc: loc(ops[1])?,
                        proxy,
                    });
                }
                "st" => {
                    want(2)?;
                    if sem.is_acquire() {
                        return Err(cx.err(ln, mnemonic, "a store cannot be `.acquire`"));
                    }
                    out.push(Instr::St {
                        sem,
                        scope: mq.scope,
                        loc: loc(ops[0])?,
                        val: operand(cx, ln, ops[1])?,
                        proxy,
                    });
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
                    out.push(Instr::Atom {
                        sem,
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
                        proxy,
                    });
                }
            }
            Ok(out)
        }
        "fence" | "membar" => {
            want(0)?;
            if quals.get(1) == Some(&"proxy") {
                // `fence.proxy.alias` and Dat3M's `fence.proxy.{texture,surface,constant,generic}`;
                // the async and tensor-map proxies (and `membar.proxy`) are not modelled.
                let kind = match (head, &quals[2..]) {
                    ("fence", ["alias"]) => Some(FenceKind::ProxyAlias),
                    ("fence", [proxy]) => Proxy::from_name(proxy).map(FenceKind::Proxy),
                    _ => None,
                };
                return match kind {
                    Some(kind) => one(Instr::Fence {
                        kind,
                        scope: Scope::Cta,
                    }),
                    None => Err(cx.err(ln, mnemonic, format!("unsupported instruction `{mnemonic}`: the proxy fences modelled are alias, texture, surface, constant and generic"))),
                };
            }
            let mut kind = if head == "membar" {
                Some(FenceKind::Sc)
            } else {
                Some(FenceKind::AcqRel)
            };
            let mut scope = None;
            for q in &quals[1..] {
                match *q {
                    "sc" if head == "fence" => kind = Some(FenceKind::Sc),
                    "acq_rel" if head == "fence" => kind = Some(FenceKind::AcqRel),
                    "acquire" if head == "fence" => kind = Some(FenceKind::Acquire),
                    "release" if head == "fence" => kind = Some(FenceKind::Release),
                    // Dat3M's grammar allows any memory order on a fence; PTX has no relaxed
                    // or weak fence, and such a fence orders nothing.
                    "relaxed" | "weak" if head == "fence" => kind = None,
                    "gl" if head == "membar" => scope = Some(Scope::Gpu),
                    "proxy" | "op_restrict" | "mbarrier_init" => {
                        return Err(cx.err(ln, mnemonic, format!("unsupported instruction `{mnemonic}`: fences of this kind are not modelled")));
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
            Ok(kind
                .map(|kind| Instr::Fence { kind, scope })
                .into_iter()
                .collect())
        }
        "bar" | "barrier" => {
            super::barrier::parse_barrier(cx, ln, cell, mnemonic, &quals, &ops, host)
                .map(|i| vec![i])
        }
        "mov" | "cvt" => {
            want(2)?;
            one(Instr::Alu {
                op: AluOp::Second,
                dst: register(cx, ln, ops[0])?,
                a: Operand::Imm(0),
                b: operand(cx, ln, ops[1])?,
            })
        }
        "setp" => {
            want(3)?;
            let c = quals[1..]
                .iter()
                .find_map(|q| match *q {
                    "eq" => Some(Cmp::Eq),
                    "ne" => Some(Cmp::Ne),
                    "lt" | "lo" => Some(Cmp::Lt),
                    "le" | "ls" => Some(Cmp::Le),
                    "gt" | "hi" => Some(Cmp::Gt),
                    "ge" | "hs" => Some(Cmp::Ge),
                    _ => None,
                })
                .ok_or_else(|| {
                    cx.err(ln, mnemonic, "`setp` needs a comparison (`.eq`, `.ne`, …)")
                })?;
            one(Instr::Alu {
                op: AluOp::Set(c),
                dst: register(cx, ln, ops[0])?,
                a: operand(cx, ln, ops[1])?,
                b: operand(cx, ln, ops[2])?,
            })
        }
        "add" | "sub" | "and" | "or" | "xor" | "min" | "max" | "mul" | "div" => {
            want(3)?;
            let op = match head {
                "add" => AluOp::Add,
                "sub" => AluOp::Sub,
                "and" => AluOp::And,
                "or" => AluOp::Or,
                "xor" => AluOp::Xor,
                "min" => AluOp::Min,
                "max" => AluOp::Max,
                "mul" => AluOp::Mul,
                _ => AluOp::Div,
            };
            one(Instr::Alu {
                op,
                dst: register(cx, ln, ops[0])?,
                a: operand(cx, ln, ops[1])?,
                b: operand(cx, ln, ops[2])?,
            })
        }
        "goto" | "bra" => {
            want(1)?;
            one(Instr::Branch {
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
            one(Instr::Branch {
                cond: Some((c, operand(cx, ln, ops[0])?, operand(cx, ln, ops[1])?)),
                target: label(cx, ln, ops[2])?,
            })
        }
        _ => Err(cx.err(ln, mnemonic, format!("unknown instruction `{mnemonic}`"))),
    }
}

/// `r12` or `%r3`: a register in Dat3M's and herd's PTX grammars (a location is never
/// spelled so).
fn is_register_name(s: &str) -> bool {
    let s = s.trim_start_matches('%');
    s.len() > 1
        && matches!(s.as_bytes()[0], b'r' | b'p')
        && s[1..].bytes().all(|b| b.is_ascii_digit())
}

/// The qualifiers of `ld`, `st`, `atom` and `red`.
struct MemQuals {
    /// `None` for `.sc`.
    sem: Option<Sem>,
    scope: Scope,
    op: Option<RmwOp>,
}

impl MemQuals {
    /// `head` is the generic twin (`ld` for `tld`), `written` the mnemonic as written.
    fn parse(
        cx: &Ctx,
        ln: usize,
        (head, written): (&str, &str),
        quals: &[&str],
        host: bool,
    ) -> Result<MemQuals, ParseError> {
        let atomic = matches!(head, "atom" | "red");
        let mut sem = None;
        let mut scope = None;
        let mut op = None;
        let mut volatile = false;
        let mut sc = false;
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
                "sc" => {
                    if sem.is_some() || sc {
                        return Err(cx.err(ln, q, "more than one memory-ordering qualifier"));
                    }
                    sc = true;
                }
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
                _ => {
                    return Err(cx.err(ln, q, format!("unknown qualifier `.{q}` of `{written}`")));
                }
            }
        }
        let sem = sem.unwrap_or(if atomic { Sem::Relaxed } else { Sem::Weak });
        // Dat3M's grammar allows a scope after `.weak` (`st.weak.gpu`); a weak operation has
        // none in PTX (table 20), so it is ignored.
        let sem = if sc { None } else { Some(sem) };
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

fn location(cx: &Ctx, ln: usize, s: &str, ptrs: Pointers) -> Result<String, ParseError> {
    let n = s
        .strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .unwrap_or(s)
        .trim();
    if let Some(l) = ptrs(n) {
        return Ok(l);
    }
    if is_register_name(n) {
        return Err(cx.err(
            ln,
            s,
            "the register does not hold a location's address (give it one in the initial state: `Pn:reg=&x`)",
        ));
    }
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
