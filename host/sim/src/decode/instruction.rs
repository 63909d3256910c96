//! One PTX instruction decoded to its compact form (the opcode's big match).

use super::operands::{FnDecoder, err, invalid, need};
use super::*;
use super::{arith, collective};
use crate::parse::RawInstr;

pub(super) fn decode_one(d: &mut FnDecoder, i: &RawInstr, at: usize) -> Result<Op, SimError> {
    let parts: Vec<&str> = i.opcode.split('.').collect();
    let base = parts[0];
    let rest = &parts[1..];
    let ty_last = rest.last().and_then(|t| Ty::parse(t));
    let o = &i.operands;
    let op = match base {
        "mov" => {
            let ty = ty_last.ok_or_else(|| err(i, "no type"))?;
            need(i, 2)?;
            if o[0].starts_with('{') {
                let inner = brace_list(&o[0]);
                let mut reg = |s: &str| (s != "_").then(|| d.reg(s));
                let (lo, hi) = (reg(inner[0]), reg(inner.get(1).copied().unwrap_or("_")));
                let src = if ty.bytes == 16 {
                    Src::Reg(d.reg128(i, &o[1])?)
                } else {
                    d.src(i, &o[1])?
                };
                Op::Unpack(ty.bytes, lo, hi, src)
            } else if o[1].starts_with('{') {
                let inner = brace_list(&o[1]);
                if inner.len() != 2 {
                    return Err(err(i, "only two-element vectors are supported"));
                }
                let (lo, hi) = (d.src(i, inner[0])?, d.src(i, inner[1])?);
                let dst = if ty.bytes == 16 {
                    d.reg128(i, &o[0])?
                } else {
                    d.dst(i, &o[0])?
                };
                Op::Pack(ty.bytes, dst, lo, hi)
            } else if ty.bytes == 16 {
                return Err(err(
                    i,
                    "only packing and unpacking .b128 registers is supported",
                ));
            } else if rest.last() == Some(&"pred") {
                // A predicate is one bit: `mov.pred %p, -1` (nvcc -G) sets it true, so any
                // non-zero source is stored as 1 and `not.pred` after it gives false.
                Op::PredBin(BinOp::Or, d.dst(i, &o[0])?, d.src(i, &o[1])?, Src::Imm(0))
            } else {
                Op::Un(UnOp::Mov, ty, d.dst(i, &o[0])?, d.src(i, &o[1])?)
            }
        }
        "cnot" | "prmt" | "bfi" | "bfind" | "shf" | "sad" | "slct" | "mul24" | "mad24" | "dp4a"
        | "dp2a" => arith::bits(d, i, base, rest)?,
        "mad" if rest.first() == Some(&"wide") => arith::bits(d, i, base, rest)?,
        "sqrt" | "rsqrt" | "rcp" | "ex2" | "lg2" | "sin" | "cos" | "tanh" | "copysign"
        | "testp" => arith::float(d, i, base, rest)?,
        "add" | "sub" | "mul" | "div" | "fma" | "mad"
            if ty_last.is_some_and(|t| arith::cold_float(base, rest, t)) =>
        {
            arith::float(d, i, base, rest)?
        }
        "min" | "max" | "abs" | "neg" if ty_last.is_some_and(|t| arith::ftz(rest, t)) => {
            arith::float(d, i, base, rest)?
        }
        "min" | "max"
            if rest
                .iter()
                .any(|q| matches!(*q, "NaN" | "xorsign" | "abs" | "relu")) =>
        {
            return Err(err(
                i,
                "the .NaN/.xorsign/.abs/.relu forms are not supported",
            ));
        }
        "not" | "neg" | "abs" | "popc" | "clz" | "brev" => {
            need(i, 2)?;
            let ty = ty_last.ok_or_else(|| err(i, "no type"))?;
            let u = match base {
                "not" => UnOp::Not,
                "neg" => UnOp::Neg,
                "abs" => UnOp::Abs,
                "popc" => UnOp::Popc,
                "clz" => UnOp::Clz,
                "brev" => UnOp::Brev,
                _ => return Err(err(i, "not supported")),
            };
            if rest.last() == Some(&"pred") {
                // not.pred: logical not of a predicate, one bit whatever the source's bits.
                Op::PredBin(BinOp::Xor, d.dst(i, &o[0])?, d.src(i, &o[1])?, Src::Imm(1))
            } else {
                Op::Un(u, ty, d.dst(i, &o[0])?, d.src(i, &o[1])?)
            }
        }
        "add" | "sub" | "addc" | "subc" if rest.first() == Some(&"cc") || base.ends_with('c') => {
            need(i, 3)?;
            let ty = ty_last.ok_or_else(|| err(i, "no type"))?;
            if !matches!(ty.bytes, 4 | 8) || ty.kind == Kind::F {
                return Err(err(i, "carry arithmetic is for 32- and 64-bit integers"));
            }
            let (dd, a, bb) = (d.dst(i, &o[0])?, d.src(i, &o[1])?, d.src(i, &o[2])?);
            let sub = base.starts_with("sub");
            let carry_in = base.ends_with('c');
            let carry_out = rest.first() == Some(&"cc");
            Op::AddC(sub, carry_in, carry_out, ty, dd, a, bb)
        }
        "add" | "sub" | "mul" | "div" | "rem" | "and" | "or" | "xor" | "shl" | "shr" | "min"
        | "max" => {
            need(i, 3)?;
            let ty = ty_last.ok_or_else(|| err(i, "no type"))?;
            let b = match (base, rest.first().copied()) {
                ("add", _) => BinOp::Add,
                ("sub", _) => BinOp::Sub,
                ("mul", Some("hi")) => BinOp::MulHi,
                ("mul", Some("wide")) => BinOp::MulWide,
                ("mul", _) => BinOp::MulLo,
                ("div", _) => BinOp::Div,
                ("rem", _) => BinOp::Rem,
                ("and", _) => BinOp::And,
                ("or", _) => BinOp::Or,
                ("xor", _) => BinOp::Xor,
                ("shl", _) => BinOp::Shl,
                ("shr", _) => BinOp::Shr,
                ("min", _) => BinOp::Min,
                _ => BinOp::Max,
            };
            let (dd, a, bb) = (d.dst(i, &o[0])?, d.src(i, &o[1])?, d.src(i, &o[2])?);
            if rest.last() == Some(&"pred") {
                Op::PredBin(b, dd, a, bb)
            } else {
                Op::Bin(b, ty, dd, a, bb)
            }
        }
        "mad" | "fma" => {
            need(i, 4)?;
            let ty = ty_last.ok_or_else(|| err(i, "no type"))?;
            let hi = rest.first() == Some(&"hi");
            if rest.first() == Some(&"wide") {
                return Err(err(i, "mad.wide is not supported"));
            }
            if ty.kind.is_float() && (ty.kind != Kind::F || ty.bytes == 2) {
                return Err(err(i, "half-precision fma is not supported"));
            }
            Op::Mad(
                hi,
                ty,
                d.dst(i, &o[0])?,
                d.src(i, &o[1])?,
                d.src(i, &o[2])?,
                d.src(i, &o[3])?,
            )
        }
        "selp" => {
            need(i, 4)?;
            let ty = ty_last.ok_or_else(|| err(i, "no type"))?;
            Op::Selp(
                ty,
                d.dst(i, &o[0])?,
                d.src(i, &o[1])?,
                d.src(i, &o[2])?,
                d.src(i, &o[3])?,
            )
        }
        "setp" => arith::setp(d, i, rest)?,
        "cvt" => arith::cvt(d, i, rest)?,
        "bfe" => {
            need(i, 4)?;
            let ty = ty_last.ok_or_else(|| err(i, "no type"))?;
            Op::Bfe(
                ty,
                d.dst(i, &o[0])?,
                d.src(i, &o[1])?,
                d.src(i, &o[2])?,
                d.src(i, &o[3])?,
            )
        }
        "cvta" => {
            need(i, 2)?;
            let to = rest.first() == Some(&"to");
            let q = quals(rest);
            Op::Cvta(to, q.space, d.dst(i, &o[0])?, d.src(i, &o[1])?)
        }
        "isspacep" if rest.first() != Some(&"shared::cluster") => {
            need(i, 2)?;
            Op::Isspacep(quals(rest).space, d.dst(i, &o[0])?, d.src(i, &o[1])?)
        }
        "ld" | "st" if rest.first() == Some(&"param") => {
            need(i, 2)?;
            let ty = ty_last.ok_or_else(|| err(i, "no type"))?;
            if base == "ld" && rest.contains(&"v2") && o[0].starts_with('{') {
                let inner = brace_list(&o[0]);
                if inner.len() != 2 {
                    return Err(err(i, "a .v2 load needs two registers"));
                }
                let (d0, d1) = (d.dst(i, inner[0])?, d.dst(i, inner[1])?);
                Op::LdParamV2(ty, d0, d1, d.param_slot(i, &o[1])?)
            } else if rest.iter().any(|q| matches!(*q, "v2" | "v4")) {
                param_vector(d, i, base == "st", ty)?
            } else if base == "ld" {
                Op::LdParam(ty, d.dst(i, &o[0])?, d.param_slot(i, &o[1])?)
            } else {
                Op::StParam(ty, d.param_slot(i, &o[0])?, d.src(i, &o[1])?)
            }
        }
        "ld" | "st" => {
            need(i, 2)?;
            let q = quals(rest);
            if let Some(x) = q.others.first() {
                return Err(err(i, format!("qualifier `.{x}`")));
            }
            let ty = q.ty.ok_or_else(|| err(i, "no type"))?;
            if base == "st" && q.space == Space::Const {
                return Err(const_write(i));
            }
            let scope = q.scope.unwrap_or(Scope::Sys);
            if q.sem != Sem::Weak && q.scope.is_none() {
                return Err(err(i, "a strong access needs a scope"));
            }
            if q.nc && (base != "ld" || q.space != Space::Global || q.sem != Sem::Weak) {
                return Err(err(i, ".nc is a weak ld.global only"));
            }
            if q.nc {
                d.has_nc = true;
            }
            if q.vector > 1 {
                return vector(d, i, base == "st", &q, ty, scope);
            }
            let wide = ty.bytes == 16;
            if q.nc && !wide {
                return Ok(Op::LdNc(ty, d.dst(i, &o[0])?, d.addr(i, &o[1])?));
            }
            if base == "ld" {
                let dst = if wide {
                    d.reg128(i, &o[0])?
                } else {
                    d.dst(i, &o[0])?
                };
                Op::Ld(q.space, q.sem, scope, ty, dst, d.addr(i, &o[1])?)
            } else {
                let a = d.addr(i, &o[0])?;
                let src = if wide {
                    Src::Reg(d.reg128(i, &o[1])?)
                } else {
                    d.src(i, &o[1])?
                };
                Op::St(q.space, q.sem, scope, ty, a, src)
            }
        }
        "atom" | "red" => {
            let q = quals(rest);
            if let Some(x) = q.others.first() {
                return Err(err(i, format!("qualifier `.{x}`")));
            }
            let ty = q.ty.ok_or_else(|| err(i, "no type"))?;
            if q.space == Space::Const {
                return Err(const_write(i));
            }
            let rmw = q.rmw.ok_or_else(|| err(i, "no operation"))?;
            // Without .sem and scope, atom is relaxed at gpu scope (PTX ISA).
            let sem = if q.sem == Sem::Weak {
                Sem::Relaxed
            } else {
                q.sem
            };
            let scope = q.scope.unwrap_or(Scope::Gpu);
            if ty.bytes == 16 {
                // `atom.cas.b128` / `atom.exch.b128` (sm_90): operands are .b128 registers.
                if base != "atom" || !matches!(rmw, Rmw::Cas | Rmw::Exch) {
                    return Err(err(i, "128-bit: only atom.cas and atom.exch exist"));
                }
                need(i, if rmw == Rmw::Cas { 4 } else { 3 })?;
                let dst = d.reg128(i, &o[0])?;
                let a = d.addr(i, &o[1])?;
                let b = Src::Reg(d.reg128(i, &o[2])?);
                let c = if rmw == Rmw::Cas {
                    Src::Reg(d.reg128(i, &o[3])?)
                } else {
                    Src::Imm(0)
                };
                Op::Atom(q.space, sem, scope, rmw, ty, Some(dst), a, b, c)
            } else if base == "atom" {
                need(i, if rmw == Rmw::Cas { 4 } else { 3 })?;
                let c = if rmw == Rmw::Cas {
                    d.src(i, &o[3])?
                } else {
                    Src::Imm(0)
                };
                Op::Atom(
                    q.space,
                    sem,
                    scope,
                    rmw,
                    ty,
                    Some(d.dst(i, &o[0])?),
                    d.addr(i, &o[1])?,
                    d.src(i, &o[2])?,
                    c,
                )
            } else {
                need(i, 2)?;
                let (a, b) = (d.addr(i, &o[0])?, d.src(i, &o[1])?);
                Op::Atom(q.space, sem, scope, rmw, ty, None, a, b, Src::Imm(0))
            }
        }
        "prefetch" | "prefetchu" | "applypriority" => {
            // Cache hints: no effect on values or on the memory model (a prefetch of an address
            // that is not mapped does nothing on the device either).
            need(i, 1)?;
            Op::Nop
        }
        "createpolicy" => {
            // An opaque cache-eviction policy for `.L2::cache_hint` accesses, which ignore it
            // here: any value will do.
            need(i, 1)?;
            Op::Un(
                UnOp::Mov,
                Ty::parse("b64").unwrap(),
                d.dst(i, &o[0])?,
                Src::Imm(0),
            )
        }
        "fence" | "membar" if rest.first() == Some(&"proxy") => {
            // Generic accesses are in the generic proxy already: the alias proxy fence orders
            // nothing more here. Other proxies (async, tensormap) are not simulated.
            if rest.get(1) != Some(&"alias") {
                return Err(err(i, "only the alias proxy fence is supported"));
            }
            Op::Nop
        }
        "fence" | "membar" => {
            // `membar.{cta,gl,sys}` is `fence.sc` at that scope (PTX ISA, membar/fence).
            let rest: Vec<&str> = rest.iter().copied().filter(|q| *q != "gl").collect();
            let q = quals(&rest);
            let scope = match parts.last().copied() {
                Some("gl") => Scope::Gpu,
                _ => q.scope.ok_or_else(|| err(i, "no scope"))?,
            };
            let sem = if base == "membar" || q.sem == Sem::Weak {
                Sem::Sc
            } else {
                q.sem
            };
            if !q.others.is_empty() {
                return Err(err(i, format!("qualifier `.{}`", q.others[0])));
            }
            Op::Fence(sem, scope)
        }
        "bar" if rest.first() == Some(&"warp") => {
            if rest.get(1) != Some(&"sync") {
                return Err(err(i, "only bar.warp.sync is supported"));
            }
            need(i, 1)?;
            Op::BarWarp(d.src(i, &o[0])?)
        }
        "barrier" if rest.first() == Some(&"cluster") => match rest.get(1).copied() {
            Some("arrive") => Op::ClusterArrive(rest.contains(&"relaxed")),
            Some("wait") => Op::ClusterWait,
            _ => return Err(err(i, "barrier.cluster form")),
        },
        "mapa" => {
            need(i, 3)?;
            let generic = !rest.iter().any(|q| q.starts_with("shared"));
            Op::Mapa(
                generic,
                d.dst(i, &o[0])?,
                d.src(i, &o[1])?,
                d.src(i, &o[2])?,
            )
        }
        "isspacep" if rest.first() == Some(&"shared::cluster") => {
            need(i, 2)?;
            Op::IsspacepCluster(d.dst(i, &o[0])?, d.src(i, &o[1])?)
        }
        "bar" | "barrier" => collective::barrier(d, i, base, rest)?,
        "shfl" | "vote" | "match" | "redux" | "activemask" => collective::warp(d, i, base, rest)?,
        "mbarrier" => {
            let form = rest.first().copied().unwrap_or("");
            let space = mbarrier_space(rest);
            let parity = rest.contains(&"parity");
            let scope = if rest.contains(&"cluster") {
                Scope::Cluster
            } else {
                Scope::Cta
            };
            // Arrivals release and successful waits acquire here: a `.relaxed` form (which
            // does neither) would make the race detector order what PTX leaves unordered.
            if rest.contains(&"relaxed") {
                return Err(err(i, "mbarrier `.relaxed` forms"));
            }
            match form {
                "init" => {
                    need(i, 2)?;
                    Op::MbInit(space, d.addr(i, &o[0])?, d.src(i, &o[1])?)
                }
                "arrive" | "arrive_drop" => {
                    if rest.contains(&"expect_tx") {
                        return Err(err(i, "this mbarrier form"));
                    }
                    need(i, 2)?;
                    let dst = if o[0] == "_" {
                        None
                    } else {
                        Some(d.dst(i, &o[0])?)
                    };
                    let count = match o.get(2) {
                        Some(c) => Some(d.src(i, c)?),
                        None => None,
                    };
                    Op::MbArrive(
                        dst,
                        space,
                        d.addr(i, &o[1])?,
                        count,
                        form == "arrive_drop",
                        rest.contains(&"noComplete"),
                        scope,
                    )
                }
                "test_wait" | "try_wait" => {
                    need(i, 3)?;
                    Op::MbTestWait(
                        d.dst(i, &o[0])?,
                        space,
                        d.addr(i, &o[1])?,
                        d.src(i, &o[2])?,
                        parity,
                        scope,
                    )
                }
                "pending_count" => {
                    need(i, 2)?;
                    Op::MbPendingCount(d.dst(i, &o[0])?, d.src(i, &o[1])?)
                }
                "inval" => {
                    need(i, 1)?;
                    Op::MbInval(space, d.addr(i, &o[0])?)
                }
                _ => return Err(err(i, "this mbarrier form")),
            }
        }
        "cp" if rest.first() == Some(&"async") => async_copy(d, i, &rest[1..])?,
        "nanosleep" => {
            need(i, 1)?;
            Op::Nanosleep(d.src(i, &o[0])?)
        }
        "trap" => {
            // The predicate as the library's inline assembly declares it, in its own block.
            let guard = (i.guard.as_ref()).map(|(neg, p)| (*neg, crate::parse::as_declared(p)));
            let guard = guard.as_ref().map(|(neg, p)| (*neg, &**p));
            Op::Trap(crate::library_checks::LibraryCheck::of_guard(
                guard.as_ref(),
            ))
        }
        "exit" => Op::Exit,
        "ret" => Op::Ret,
        "bra" => {
            need(i, 1)?;
            d.fixups.push((at, o[0].clone()));
            Op::Bra(0)
        }
        "call" => {
            // call{.uni} (rets), target, (args){, prototype};
            let mut ops = o.iter().map(String::as_str).collect::<Vec<_>>();
            let mut rets = Vec::new();
            if ops.first().is_some_and(|s| s.starts_with('(')) && ops.len() >= 2 {
                let r = ops.remove(0);
                for name in r.trim_matches(|c| c == '(' || c == ')').split(',') {
                    let name = name.trim();
                    if !name.is_empty() {
                        rets.push(d.param_slot(i, name)?);
                    }
                }
            }
            let target = ops.first().ok_or_else(|| err(i, "no call target"))?;
            let callee = if target.starts_with('%') {
                Callee::Indirect(d.src(i, target)?)
            } else {
                match d.syms.get(*target) {
                    Some(Symbol::Func(f)) => {
                        d.reached.push(*f);
                        Callee::Direct(*f)
                    }
                    _ => return Err(invalid(i, format!("call to unknown function `{target}`"))),
                }
            };
            let mut args = Vec::new();
            if let Some(a) = ops.get(1).filter(|a| a.starts_with('(')) {
                for name in a.trim_matches(|c| c == '(' || c == ')').split(',') {
                    let name = name.trim();
                    if !name.is_empty() {
                        args.push(d.param_slot(i, name)?);
                    }
                }
            }
            Op::Call(callee, args, rets)
        }
        _ => return Err(err(i, "not supported by the simulator")),
    };
    Ok(op)
}

/// `ld`/`st` `.v2`/`.v4`: `{a, b, …}` element registers (`_` for an unused load element).
fn vector(
    d: &mut FnDecoder,
    i: &RawInstr,
    store: bool,
    q: &Quals,
    ty: Ty,
    scope: Scope,
) -> Result<Op, SimError> {
    let o = &i.operands;
    let list = if store { &o[1] } else { &o[0] };
    let inner = vector_list(list)
        .ok_or_else(|| err(i, format!("`{list}` is not a vector of registers")))?;
    if inner.len() != usize::from(q.vector) || ty.bytes > 8 {
        return Err(err(
            i,
            "a vector needs as many elements as its .v2/.v4 and a scalar type",
        ));
    }
    let regs = vector_regs(d, i, &inner, store)?;
    let addr = d.addr(i, if store { &o[0] } else { &o[1] })?;
    Ok(Op::Vector(Box::new(VecInst {
        store,
        space: q.space,
        sem: q.sem,
        scope,
        ty,
        nc: q.nc,
        regs,
        addr,
    })))
}

/// `st.param.v2/.v4 [p], {a, …}` and `ld.param.v4 {d, …}, [p]`: elements at consecutive offsets.
fn param_vector(d: &mut FnDecoder, i: &RawInstr, store: bool, ty: Ty) -> Result<Op, SimError> {
    let o = &i.operands;
    let (list, slot) = if store {
        (&o[1], &o[0])
    } else {
        (&o[0], &o[1])
    };
    let inner = vector_list(list).ok_or_else(|| err(i, format!("`{list}` is not a vector")))?;
    let regs = vector_regs(d, i, &inner, store)?;
    Ok(Op::ParamVector(Box::new(ParamVecInst {
        store,
        ty,
        slot: d.param_slot(i, slot)?,
        regs,
    })))
}

/// The elements of a `{a, b, …}` operand (a vector register list), trimmed.
fn brace_list(operand: &str) -> Vec<&str> {
    operand
        .trim_matches(|c| c == '{' || c == '}')
        .split(',')
        .map(str::trim)
        .collect()
}

/// The elements of an operand that must be a `{a, b, …}` list; `None` when it is not one.
fn vector_list(operand: &str) -> Option<Vec<&str>> {
    let inner = operand.trim().strip_prefix('{')?.strip_suffix('}')?;
    Some(inner.split(',').map(str::trim).collect())
}

/// The registers of a vector access: sources of a store, destinations of a load (`_` skips
/// an element of a load).
fn vector_regs(
    d: &mut FnDecoder,
    i: &RawInstr,
    elements: &[&str],
    store: bool,
) -> Result<Vec<Option<Src>>, SimError> {
    elements
        .iter()
        .map(|&e| {
            Ok(match e {
                "_" if !store => None,
                e if store => Some(d.src(i, e)?),
                e => Some(Src::Reg(d.dst(i, e)?)),
            })
        })
        .collect()
}

/// The `cp.async` family; cache hints (`.L2::128B`, a cache policy operand) change nothing here.
/// The state space an `mbarrier` instruction names: `.shared`/`.shared::cta`, `.shared::cluster`,
/// or none (the generic forms).
fn mbarrier_space(rest: &[&str]) -> Space {
    match rest.iter().find(|q| q.starts_with("shared")) {
        Some(&"shared::cluster") => Space::SharedCluster,
        Some(_) => Space::Shared,
        None => Space::Generic,
    }
}

fn async_copy(d: &mut FnDecoder, i: &RawInstr, rest: &[&str]) -> Result<Op, SimError> {
    let o = &i.operands;
    Ok(match rest.first().copied() {
        Some("commit_group") => Op::CpAsyncCommit,
        Some("wait_all") => Op::CpAsyncWait(None),
        Some("wait_group") => {
            need(i, 1)?;
            let n = o[0]
                .parse()
                .map_err(|_| err(i, "cp.async.wait_group takes an integer constant"))?;
            Op::CpAsyncWait(Some(n))
        }
        Some("mbarrier") => {
            need(i, 1)?;
            Op::CpAsyncMbArrive(
                mbarrier_space(rest),
                d.addr(i, &o[0])?,
                rest.contains(&"noinc"),
            )
        }
        Some("ca" | "cg") => {
            if !rest.iter().any(|q| q.starts_with("shared")) || !rest.contains(&"global") {
                return Err(err(i, "only cp.async from .global to .shared is supported"));
            }
            need(i, 3)?;
            let size: u8 = o[2]
                .parse()
                .ok()
                .filter(|s| matches!(s, 4 | 8 | 16))
                .ok_or_else(|| err(i, "cp.async's cp-size is 4, 8 or 16"))?;
            // A fourth operand is the source size unless it is the cache policy (64-bit register
            // with `.L2::cache_hint`).
            let src_size = match o.get(3) {
                Some(s) if !(rest.contains(&"L2::cache_hint") && o.len() == 4) => {
                    Some(d.src(i, s)?)
                }
                _ => None,
            };
            Op::CpAsync(Box::new(CpAsyncInst {
                dst: d.addr(i, &o[0])?,
                src: d.addr(i, &o[1])?,
                size,
                src_size,
            }))
        }
        _ => return Err(err(i, "this cp.async form")),
    })
}

/// A store or read-modify-write naming the `.const` state space, which it does not take
/// (ptxas: "State space incorrect"; the ISA: "Stores to const memory are illegal").
fn const_write(i: &RawInstr) -> SimError {
    invalid(
        i,
        "writes the .const state space, which no store or atomic takes (\"Stores to const memory are illegal\", PTX ISA)",
    )
}
