//! The library's emitted PTX as checker instructions: a kernel of the PTX module, decoded by the
//! simulator's decoder (`sim::decode`), becomes a list of litmus [`Line`]s that the checker runs
//! like a hand-written litmus thread.
//!
//! The probe kernels of `gpu-kernels` (one per operation × type × ordering × scope, the location
//! as parameter 0, the operands as parameters 1 and 2) are the unit: one Rust operation of a
//! litmus program is its probe's code, so a thread's PTX is the concatenation of its operations'
//! probes as the pipeline built them for the target. Registers whose value is known when the
//! code is translated (parameters, addresses and their arithmetic, masks) are folded; the others
//! are litmus registers. Memory operations must have a known address: the location is the one
//! whose 4-byte word the address falls in. A sub-word location therefore shares its word with
//! nothing, and the 32-bit CAS loops on the containing word are accesses to that location (its
//! other bytes stay 0); PTX would call the 8-bit and 32-bit accesses a partial overlap.

use ptx_litmus::program::{AluOp, Cmp, FenceKind, Instr, Line, Operand, Proxy, RmwOp, Scope, Sem};
use ptx_sim::Kernel;
use ptx_sim::decode::{self, BinOp, Inst, Op, Src, UnOp};
use std::collections::HashMap;

/// What one Rust operation is translated against.
pub struct Call<'a> {
    /// The location parameter 0 points to.
    pub loc: &'a str,
    /// Parameters 1 and 2 (the value, and the second value of a compare-exchange).
    pub args: [i64; 2],
    /// Prefix of the litmus registers of this operation (unique per operation in a thread).
    pub prefix: &'a str,
}

/// The translation of one kernel.
pub struct Translated {
    /// The code, in program order.
    pub code: Vec<Line>,
    /// The litmus register holding the value the operation read last (what a load or a
    /// read-modify-write returns), if it reads.
    pub result: Option<String>,
}

#[derive(Clone, Copy, Debug)]
enum Val {
    Known(i64),
    Sym,
}

/// Translates `kernel` for `call`; an error names the instruction that cannot be translated.
pub fn translate(kernel: &Kernel, call: &Call) -> Result<Translated, String> {
    let (prog, entry) = kernel.decoded();
    let func = prog
        .funcs
        .iter()
        .find(|f| f.entry == entry)
        .ok_or("no decoded entry function")?;
    let mut end = entry as usize;
    while end < prog.insts.len() && !matches!(prog.insts[end].op, Op::Ret | Op::Exit) {
        end += 1;
    }
    let insts = &prog.insts[entry as usize..end];
    let mut offsets: Vec<u32> = func.params.iter().map(|p| p.0).collect();
    offsets.sort_unstable();
    let base: i64 = 0x1000;
    // Registers defined more than once, or from memory, are symbolic everywhere.
    let mut defs: HashMap<u32, usize> = HashMap::new();
    for i in insts {
        if let Some(d) = dest(&i.op) {
            *defs.entry(d).or_insert(0) += 1;
        }
    }
    let mut vals: HashMap<u32, Val> = HashMap::new();
    let mut preds: HashMap<u32, (Cmp, Operand, Operand)> = HashMap::new();
    let mut targets: Vec<u32> = insts
        .iter()
        .filter_map(|i| match i.op {
            Op::Bra(t) => Some(t),
            _ => None,
        })
        .collect();
    targets.sort_unstable();
    let mut code = Vec::new();
    let mut result = None;
    let reg = |r: u32| format!("{}r{r}", call.prefix);
    for (k, inst) in insts.iter().enumerate() {
        let here = entry + k as u32;
        if targets.binary_search(&here).is_ok() {
            code.push(line(inst, Instr::Label(format!("{}L{here}", call.prefix))));
        }
        let opnd = |vals: &HashMap<u32, Val>, s: &Src| -> Result<Operand, String> {
            match s {
                Src::Imm(v) => Ok(Operand::Imm(*v as i64)),
                Src::Reg(r) => Ok(match vals.get(r) {
                    Some(Val::Known(v)) => Operand::Imm(*v),
                    _ => Operand::Reg(reg(*r)),
                }),
                other => Err(format!("operand {other:?} of `{}`", text(inst))),
            }
        };
        let single = |d: u32| defs.get(&d) == Some(&1);
        if inst.guard.is_some() && !matches!(inst.op, Op::Bra(_)) {
            return Err(format!("guarded instruction `{}`", text(inst)));
        }
        let set = |vals: &mut HashMap<u32, Val>, d: u32, v: Option<i64>| {
            vals.insert(
                d,
                match v {
                    Some(v) if single(d) => Val::Known(v),
                    _ => Val::Sym,
                },
            );
        };
        match &inst.op {
            Op::LdParam(_, d, off) => {
                let idx = offsets
                    .iter()
                    .position(|o| o == off)
                    .ok_or("unknown parameter")?;
                let v = match idx {
                    0 => base,
                    1 | 2 => call.args[idx - 1],
                    _ => 0,
                };
                set(&mut vals, *d, Some(v));
                if !single(*d) {
                    code.push(line(
                        inst,
                        Instr::Alu {
                            op: AluOp::Second,
                            dst: reg(*d),
                            a: Operand::Imm(0),
                            b: Operand::Imm(v),
                        },
                    ));
                }
            }
            Op::Un(op, ty, d, s) => {
                let a = opnd(&vals, s)?;
                let mask = width_mask(ty.bytes);
                let (alu, x, y) = match op {
                    UnOp::Mov => (AluOp::Second, Operand::Imm(0), a),
                    UnOp::Not => (AluOp::Xor, a, Operand::Imm(mask)),
                    _ => return Err(format!("unsupported `{}`", text(inst))),
                };
                emit_alu(
                    &mut code,
                    &mut vals,
                    inst,
                    alu,
                    *d,
                    x,
                    y,
                    single(*d),
                    &reg,
                    mask,
                )?;
            }
            Op::Bin(op, ty, d, a, b) => {
                let (x, y) = (opnd(&vals, a)?, opnd(&vals, b)?);
                let alu = match op {
                    BinOp::Add => AluOp::Add,
                    BinOp::Sub => AluOp::Sub,
                    BinOp::And => AluOp::And,
                    BinOp::Or => AluOp::Or,
                    BinOp::Xor => AluOp::Xor,
                    BinOp::Shl => AluOp::Shl,
                    BinOp::Shr => AluOp::Shr,
                    BinOp::Min => AluOp::Min,
                    BinOp::Max => AluOp::Max,
                    _ => return Err(format!("unsupported `{}`", text(inst))),
                };
                emit_alu(
                    &mut code,
                    &mut vals,
                    inst,
                    alu,
                    *d,
                    x,
                    y,
                    single(*d),
                    &reg,
                    width_mask(ty.bytes),
                )?;
            }
            Op::Cvt(to, _, d, s) => {
                let a = opnd(&vals, s)?;
                let m = width_mask(to.bytes);
                emit_alu(
                    &mut code,
                    &mut vals,
                    inst,
                    AluOp::And,
                    *d,
                    a,
                    Operand::Imm(m),
                    single(*d),
                    &reg,
                    m,
                )?;
            }
            Op::Setp(c, _, p, a, b) => {
                let c = match c {
                    // Litmus values are integers, never NaN: unordered is ordered here.
                    decode::Cmp::Eq | decode::Cmp::Equ => Cmp::Eq,
                    decode::Cmp::Ne | decode::Cmp::Neu => Cmp::Ne,
                    decode::Cmp::Lt | decode::Cmp::Ltu => Cmp::Lt,
                    decode::Cmp::Le | decode::Cmp::Leu => Cmp::Le,
                    decode::Cmp::Gt | decode::Cmp::Gtu => Cmp::Gt,
                    decode::Cmp::Ge | decode::Cmp::Geu => Cmp::Ge,
                    decode::Cmp::Nan | decode::Cmp::Num => {
                        return Err(format!("unsupported `{}` (float NaN test)", text(inst)));
                    }
                };
                // The compared values are copied: the registers may change before the branch.
                let (x, y) = (opnd(&vals, a)?, opnd(&vals, b)?);
                let (tx, ty) = (
                    format!("{}p{p}a", call.prefix),
                    format!("{}p{p}b", call.prefix),
                );
                code.push(line(
                    inst,
                    Instr::Alu {
                        op: AluOp::Second,
                        dst: tx.clone(),
                        a: Operand::Imm(0),
                        b: x,
                    },
                ));
                code.push(line(
                    inst,
                    Instr::Alu {
                        op: AluOp::Second,
                        dst: ty.clone(),
                        a: Operand::Imm(0),
                        b: y,
                    },
                ));
                preds.insert(*p, (c, Operand::Reg(tx), Operand::Reg(ty)));
            }
            Op::Bra(t) => {
                let target = format!("{}L{t}", call.prefix);
                let cond = match inst.guard {
                    None => None,
                    Some((p, positive)) => {
                        let (c, a, b) = preds
                            .get(&p)
                            .cloned()
                            .ok_or_else(|| format!("predicate of `{}`", text(inst)))?;
                        Some((if positive { c } else { c.negate() }, a, b))
                    }
                };
                if *t < entry || *t as usize > end {
                    return Err(format!("branch out of the kernel: `{}`", text(inst)));
                }
                code.push(line(inst, Instr::Branch { cond, target }));
            }
            Op::Ld(_, sem, scope, _, d, addr) => {
                let (sem, scope) = sem_scope(*sem, *scope);
                let loc = location(&vals, addr, base, call.loc, inst)?;
                vals.insert(*d, Val::Sym);
                result = Some(reg(*d));
                code.push(line(
                    inst,
                    Instr::Ld {
                        sem,
                        scope,
                        dst: reg(*d),
                        loc,
                        proxy: Proxy::Generic,
                    },
                ));
            }
            Op::St(_, sem, scope, _, addr, s) => {
                let (sem, scope) = sem_scope(*sem, *scope);
                let loc = location(&vals, addr, base, call.loc, inst)?;
                let val = opnd(&vals, s)?;
                code.push(line(
                    inst,
                    Instr::St {
                        sem,
                        scope,
                        loc,
                        val,
                        proxy: Proxy::Generic,
                    },
                ));
            }
            Op::Atom(_, sem, scope, rmw, _, d, addr, a, b) => {
                let (sem, scope) = sem_scope(*sem, *scope);
                let loc = location(&vals, addr, base, call.loc, inst)?;
                let op = match rmw {
                    decode::Rmw::Add => RmwOp::Add,
                    decode::Rmw::Exch => RmwOp::Exch,
                    decode::Rmw::Cas => RmwOp::Cas,
                    decode::Rmw::And => RmwOp::And,
                    decode::Rmw::Or => RmwOp::Or,
                    decode::Rmw::Xor => RmwOp::Xor,
                    decode::Rmw::Min => RmwOp::Min,
                    decode::Rmw::Max => RmwOp::Max,
                    decode::Rmw::Inc => RmwOp::Inc,
                    decode::Rmw::Dec => RmwOp::Dec,
                };
                let b = if op == RmwOp::Cas {
                    Some(opnd(&vals, b)?)
                } else {
                    None
                };
                let dst = d.map(reg);
                if let Some(d) = d {
                    vals.insert(*d, Val::Sym);
                    result = Some(reg(*d));
                }
                code.push(line(
                    inst,
                    Instr::Atom {
                        sem,
                        scope,
                        op,
                        dst,
                        loc,
                        a: opnd(&vals, a)?,
                        b,
                        proxy: Proxy::Generic,
                    },
                ));
            }
            Op::Fence(sem, scope) => {
                let kind = match sem {
                    decode::Sem::Sc => FenceKind::Sc,
                    decode::Sem::Acquire => FenceKind::Acquire,
                    decode::Sem::Release => FenceKind::Release,
                    _ => FenceKind::AcqRel,
                };
                code.push(line(
                    inst,
                    Instr::Fence {
                        kind,
                        scope: scope_of(*scope),
                    },
                ));
            }
            _ => return Err(format!("unsupported `{}`", text(inst))),
        }
    }
    if targets.binary_search(&(end as u32)).is_ok() {
        code.push(Line {
            line: 0,
            text: "ret".into(),
            instr: Instr::Label(format!("{}L{end}", call.prefix)),
        });
    }
    Ok(Translated { code, result })
}

fn dest(op: &Op) -> Option<u32> {
    match op {
        Op::Un(_, _, d, _)
        | Op::Bin(_, _, d, _, _)
        | Op::Cvt(_, _, d, _)
        | Op::LdParam(_, d, _) => Some(*d),
        Op::Ld(_, _, _, _, d, _) => Some(*d),
        Op::Atom(_, _, _, _, _, d, _, _, _) => *d,
        _ => None,
    }
}

fn width_mask(bytes: u8) -> i64 {
    if bytes >= 8 {
        -1
    } else {
        (1i64 << (8 * bytes as u32)) - 1
    }
}

#[allow(clippy::too_many_arguments)]
fn emit_alu(
    code: &mut Vec<Line>,
    vals: &mut HashMap<u32, Val>,
    inst: &Inst,
    op: AluOp,
    d: u32,
    a: Operand,
    b: Operand,
    single: bool,
    reg: &dyn Fn(u32) -> String,
    mask: i64,
) -> Result<(), String> {
    match (&a, &b) {
        (Operand::Imm(x), Operand::Imm(y)) if single => {
            vals.insert(d, Val::Known(op.apply(*x, *y) & mask));
        }
        _ => {
            vals.insert(d, Val::Sym);
            code.push(line(
                inst,
                Instr::Alu {
                    op,
                    dst: reg(d),
                    a,
                    b,
                },
            ));
        }
    }
    Ok(())
}

fn location(
    vals: &HashMap<u32, Val>,
    addr: &decode::Addr,
    base: i64,
    loc: &str,
    inst: &Inst,
) -> Result<String, String> {
    let a = match addr.base {
        Src::Reg(r) => match vals.get(&r) {
            Some(Val::Known(v)) => *v + addr.off,
            _ => {
                return Err(format!(
                    "address not known when translating `{}`",
                    text(inst)
                ));
            }
        },
        Src::Imm(v) => v as i64 + addr.off,
        _ => return Err(format!("address of `{}`", text(inst))),
    };
    if a & !3 == base {
        Ok(loc.to_string())
    } else {
        Err(format!(
            "`{}` accesses another location than its parameter",
            text(inst)
        ))
    }
}

fn sem_scope(sem: decode::Sem, scope: decode::Scope) -> (Sem, Scope) {
    let s = match sem {
        decode::Sem::Weak => Sem::Weak,
        // ld/st.volatile: relaxed at system scope (PTX ISA 8.4.2; the decoder gives it .sys).
        decode::Sem::Relaxed | decode::Sem::Volatile => Sem::Relaxed,
        decode::Sem::Acquire => Sem::Acquire,
        decode::Sem::Release => Sem::Release,
        decode::Sem::AcqRel | decode::Sem::Sc => Sem::AcqRel,
    };
    (s, scope_of(scope))
}

fn scope_of(s: decode::Scope) -> Scope {
    match s {
        decode::Scope::Cta => Scope::Cta,
        decode::Scope::Cluster => Scope::Cluster,
        decode::Scope::Gpu => Scope::Gpu,
        decode::Scope::Sys => Scope::Sys,
    }
}

fn text(inst: &Inst) -> String {
    format!("{:?} (PTX line {})", inst.op, inst.line)
}

fn line(inst: &Inst, instr: Instr) -> Line {
    Line {
        line: inst.line as usize,
        text: format!("{instr:?}"),
        instr,
    }
}
