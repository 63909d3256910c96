//! Decoding the arithmetic outside the interpreter's hot path: floating point with a rounding
//! modifier, `.sat` or an approximation (`sqrt`, `rcp`, `ex2`, …), half-precision `fma`,
//! `copysign`, `testp`; the bit and wide integer operations (`prmt`, `bfi`, `bfind`, `shf`,
//! `sad`, `slct`, `mad.wide`, `cnot`, `mul24`); `cvt` with rounding or saturation; `setp` with
//! two destinations or a combining predicate.

use super::collective::predicate;
use super::operands::{FnDecoder, err, need};
use super::*;
use crate::parse::RawInstr;

/// The rounding modifier among `rest` (`.approx`/`.full` compute the rounded exact value).
pub(super) fn rounding(rest: &[&str]) -> Option<Round> {
    rest.iter().find_map(|q| match *q {
        "rn" | "approx" | "full" => Some(Round::Rn),
        "rz" => Some(Round::Rz),
        "rm" => Some(Round::Rm),
        "rp" => Some(Round::Rp),
        _ => None,
    })
}

/// Whether a float instruction needs the cold path: a directed rounding, `.sat`, `.ftz` on
/// `.f32`, or a half type in `fma`.
pub(super) fn cold_float(base: &str, rest: &[&str], ty: Ty) -> bool {
    ty.kind.is_float()
        && (!matches!(rounding(rest), None | Some(Round::Rn))
            || rest.contains(&"sat")
            || ftz(rest, ty)
            || (matches!(base, "fma" | "mad") && (ty.kind != Kind::F || ty.bytes == 2)))
}

/// Whether `.ftz` applies: on `.f32` (on other types PTX ignores it or has none).
pub(super) fn ftz(rest: &[&str], ty: Ty) -> bool {
    rest.contains(&"ftz") && ty.kind == Kind::F && ty.bytes == 4
}

/// A comparison name of `setp` at type `ty` (`lo`/`ls`/`hi`/`hs` compare unsigned).
pub(super) fn comparison(name: &str, ty: Ty) -> Option<(Cmp, Ty)> {
    let unsigned = Ty {
        kind: Kind::U,
        ..ty
    };
    Some(match name {
        "eq" => (Cmp::Eq, ty),
        "ne" => (Cmp::Ne, ty),
        "lt" => (Cmp::Lt, ty),
        "le" => (Cmp::Le, ty),
        "gt" => (Cmp::Gt, ty),
        "ge" => (Cmp::Ge, ty),
        "equ" => (Cmp::Equ, ty),
        "neu" => (Cmp::Neu, ty),
        "ltu" => (Cmp::Ltu, ty),
        "leu" => (Cmp::Leu, ty),
        "gtu" => (Cmp::Gtu, ty),
        "geu" => (Cmp::Geu, ty),
        "nan" => (Cmp::Nan, ty),
        "num" => (Cmp::Num, ty),
        "lo" => (Cmp::Lt, unsigned),
        "ls" => (Cmp::Le, unsigned),
        "hi" => (Cmp::Gt, unsigned),
        "hs" => (Cmp::Ge, unsigned),
        _ => return None,
    })
}

/// A floating-point instruction of the cold path.
pub(super) fn float(
    d: &mut FnDecoder,
    i: &RawInstr,
    base: &str,
    rest: &[&str],
) -> Result<Op, SimError> {
    let ty = rest
        .last()
        .and_then(|t| Ty::parse(t))
        .ok_or_else(|| err(i, "no type"))?;
    if !ty.kind.is_float() {
        return Err(err(i, "not a floating-point type"));
    }
    let op = match base {
        "add" => FloatOp::Add,
        "sub" => FloatOp::Sub,
        "mul" => FloatOp::Mul,
        "div" => FloatOp::Div,
        "fma" | "mad" => FloatOp::Fma,
        "sqrt" => FloatOp::Sqrt,
        "rsqrt" => FloatOp::Rsqrt,
        "rcp" => FloatOp::Rcp,
        "ex2" => FloatOp::Ex2,
        "lg2" => FloatOp::Lg2,
        "sin" => FloatOp::Sin,
        "cos" => FloatOp::Cos,
        "tanh" => FloatOp::Tanh,
        "copysign" => FloatOp::Copysign,
        "min" => FloatOp::Min,
        "max" => FloatOp::Max,
        "abs" => FloatOp::Abs,
        "neg" => FloatOp::Neg,
        "testp" => FloatOp::Testp(match rest.first().copied() {
            Some("finite") => TestClass::Finite,
            Some("infinite") => TestClass::Infinite,
            Some("number") => TestClass::Number,
            Some("notanumber") => TestClass::NotANumber,
            Some("normal") => TestClass::Normal,
            Some("subnormal") => TestClass::Subnormal,
            other => return Err(err(i, format!("testp class `{other:?}`"))),
        }),
        _ => return Err(err(i, "not supported by the simulator")),
    };
    if let Some(q) = rest
        .iter()
        .find(|q| matches!(**q, "relu" | "NaN" | "xorsign" | "abs"))
    {
        return Err(err(i, format!("qualifier `.{q}`")));
    }
    let sources = match op {
        FloatOp::Fma => 3,
        FloatOp::Add
        | FloatOp::Sub
        | FloatOp::Mul
        | FloatOp::Div
        | FloatOp::Copysign
        | FloatOp::Min
        | FloatOp::Max => 2,
        _ => 1,
    };
    need(i, 1 + sources)?;
    let mut src = [Src::Imm(0); 3];
    for (k, s) in src.iter_mut().enumerate().take(sources) {
        *s = d.src(i, &i.operands[1 + k])?;
    }
    Ok(Op::Float(Box::new(FloatInst {
        op,
        round: rounding(rest).unwrap_or(Round::Rn),
        sat: rest.contains(&"sat"),
        ftz: ftz(rest, ty),
        ty,
        d: d.dst(i, &i.operands[0])?,
        src,
    })))
}

/// `prmt`, `bfi`, `bfind`, `shf`, `sad`, `slct`, `mad.wide`, `cnot`, `mul24`/`mad24`,
/// `dp4a`/`dp2a`.
pub(super) fn bits(
    d: &mut FnDecoder,
    i: &RawInstr,
    base: &str,
    rest: &[&str],
) -> Result<Op, SimError> {
    let tys: Vec<Ty> = rest.iter().filter_map(|t| Ty::parse(t)).collect();
    let ty = *tys.first().ok_or_else(|| err(i, "no type"))?;
    let word = |k: usize| rest.get(k).copied().unwrap_or("");
    let (op, sources) = match base {
        "prmt" => {
            let mode = match rest.iter().find(|q| Ty::parse(q).is_none()).copied() {
                None => 0,
                Some("f4e") => 1,
                Some("b4e") => 2,
                Some("rc8") => 3,
                Some("ecl") => 4,
                Some("ecr") => 5,
                Some("rc16") => 6,
                Some(m) => return Err(err(i, format!("prmt mode `{m}`"))),
            };
            (BitsOp::Prmt(mode), 3)
        }
        "bfi" => (BitsOp::Bfi, 4),
        "bfind" => (BitsOp::Bfind(rest.contains(&"shiftamt")), 1),
        "shf" => {
            let left = match word(0) {
                "l" => true,
                "r" => false,
                w => return Err(err(i, format!("shf direction `{w}`"))),
            };
            (BitsOp::Shf(left, word(1) == "wrap"), 3)
        }
        "sad" => (BitsOp::Sad, 3),
        "slct" => {
            let c = *tys.get(1).ok_or_else(|| err(i, "slct needs two types"))?;
            (BitsOp::Slct(c), 3)
        }
        "mad" => (BitsOp::MadWide, 3),
        "cnot" => (BitsOp::Cnot, 1),
        "mul24" | "mad24" => {
            let hi = word(0) == "hi";
            (
                BitsOp::Mul24(hi, base == "mad24"),
                if base == "mad24" { 3 } else { 2 },
            )
        }
        "dp4a" | "dp2a" => {
            let signed = |k: usize| tys.get(k).map(|t| t.kind == Kind::S);
            let (Some(a), Some(b)) = (signed(0), signed(1)) else {
                return Err(err(i, format!("{base} needs two types")));
            };
            if base == "dp4a" {
                (BitsOp::Dp4a(a, b), 3)
            } else {
                let hi = match word(0) {
                    "hi" => true,
                    "lo" => false,
                    w => return Err(err(i, format!("dp2a mode `{w}`"))),
                };
                (BitsOp::Dp2a(hi, a, b), 3)
            }
        }
        _ => return Err(err(i, "not supported by the simulator")),
    };
    need(i, 1 + sources)?;
    let mut src = [Src::Imm(0); 4];
    for (k, s) in src.iter_mut().enumerate().take(sources) {
        *s = d.src(i, &i.operands[1 + k])?;
    }
    Ok(Op::Bits(Box::new(BitsInst {
        op,
        ty,
        d: d.dst(i, &i.operands[0])?,
        src,
    })))
}

/// `cvt` in every form: the plain one on the hot path, rounding and saturation on the cold one,
/// and the packing `cvt.rn.{f16x2,bf16x2}.f32 d, a, b` (`a` to the upper half).
pub(super) fn cvt(d: &mut FnDecoder, i: &RawInstr, rest: &[&str]) -> Result<Op, SimError> {
    need(i, 2)?;
    let tys: Vec<Ty> = rest.iter().filter_map(|t| Ty::parse(t)).collect();
    if tys.len() != 2 {
        return Err(err(i, "cvt needs two types"));
    }
    if let Some(q) = rest
        .iter()
        .find(|q| matches!(**q, "relu" | "satfinite" | "rna" | "rs" | "pack"))
    {
        return Err(err(i, format!("qualifier `.{q}`")));
    }
    let (dst_ty, src_ty) = (tys[0], tys[1]);
    let (round, int) = match rest.iter().find_map(|q| match *q {
        "rni" => Some(Round::Rn),
        "rzi" => Some(Round::Rz),
        "rmi" => Some(Round::Rm),
        "rpi" => Some(Round::Rp),
        _ => None,
    }) {
        Some(r) => (Some(r), true),
        None => (rounding(rest), false),
    };
    let sat = rest.contains(&"sat");
    let ftz = ftz(rest, dst_ty) || ftz(rest, src_ty);
    let packed = matches!(dst_ty.kind, Kind::F16x2 | Kind::Bf16x2);
    if packed && (i.operands.len() != 3 || src_ty != Ty::parse("f32").unwrap()) {
        return Err(err(i, "only cvt.rn.{f16x2,bf16x2}.f32 d, a, b packs"));
    }
    if matches!(src_ty.kind, Kind::F16x2 | Kind::Bf16x2) {
        return Err(err(i, "cvt from a packed pair is not supported"));
    }
    let float_to_int = src_ty.kind.is_float() && !dst_ty.kind.is_float();
    let plain =
        !(packed || sat || int || float_to_int || ftz) && matches!(round, None | Some(Round::Rn));
    if plain {
        return Ok(Op::Cvt(
            dst_ty,
            src_ty,
            d.dst(i, &i.operands[0])?,
            d.src(i, &i.operands[1])?,
        ));
    }
    let b = if packed {
        Some(d.src(i, &i.operands[2])?)
    } else {
        None
    };
    Ok(Op::CvtR(Box::new(CvtInst {
        dst_ty,
        src_ty,
        round,
        int,
        sat,
        ftz,
        d: d.dst(i, &i.operands[0])?,
        a: d.src(i, &i.operands[1])?,
        b,
    })))
}

/// `setp.cmp{.bool}.type p{|q}, a, b{, {!}c}`.
pub(super) fn setp(d: &mut FnDecoder, i: &RawInstr, rest: &[&str]) -> Result<Op, SimError> {
    need(i, 3)?;
    let ty = rest
        .last()
        .and_then(|t| Ty::parse(t))
        .ok_or_else(|| err(i, "no type"))?;
    let cmp_name = rest.first().copied().unwrap_or("");
    let (cmp, ty) =
        comparison(cmp_name, ty).ok_or_else(|| err(i, format!("comparison `{cmp_name}`")))?;
    let combine_name = rest.iter().find(|q| matches!(**q, "and" | "or" | "xor"));
    let (p, q) = match i.operands[0].split_once('|') {
        Some((p, q)) => (d.dst(i, p.trim())?, Some(d.dst(i, q.trim())?)),
        None => (d.dst(i, &i.operands[0])?, None),
    };
    let (a, b) = (d.src(i, &i.operands[1])?, d.src(i, &i.operands[2])?);
    let ftz = ftz(rest, ty);
    if combine_name.is_none() && q.is_none() && !ftz {
        return Ok(Op::Setp(cmp, ty, p, a, b));
    }
    let combine = match combine_name {
        Some(name) => {
            need(i, 4)?;
            let (c, negate) = predicate(d, i, &i.operands[3])?;
            let op = match *name {
                "and" => BinOp::And,
                "or" => BinOp::Or,
                _ => BinOp::Xor,
            };
            Some((op, c, negate))
        }
        None => None,
    };
    Ok(Op::SetpX(Box::new(SetpInst {
        cmp,
        ty,
        ftz,
        combine,
        p,
        q,
        a,
        b,
    })))
}
