//! Decoding the barriers (`bar`/`barrier` `.sync`, `.arrive`, `.red`; `bar.warp.sync`) and the
//! warp collectives (`shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`, `activemask`).

use super::operands::{FnDecoder, err, need};
use super::*;
use crate::parse::RawInstr;

/// A predicate operand written `p` or `!p`: the source and whether it is negated.
pub(super) fn predicate(d: &mut FnDecoder, i: &RawInstr, s: &str) -> Result<(Src, bool), SimError> {
    match s.trim().strip_prefix('!') {
        Some(p) => Ok((d.src(i, p)?, true)),
        None => Ok((d.src(i, s)?, false)),
    }
}

/// `d|p` → (d, Some(p)); `d` → (d, None).
fn pair_dst(d: &mut FnDecoder, i: &RawInstr, s: &str) -> Result<(u32, Option<u32>), SimError> {
    match s.split_once('|') {
        Some((a, b)) => Ok((d.dst(i, a.trim())?, Some(d.dst(i, b.trim())?))),
        None => Ok((d.dst(i, s)?, None)),
    }
}

/// `bar`/`barrier` with `.sync`, `.arrive` or `.red` (`.cta` and `.aligned` as written).
pub(super) fn barrier(
    d: &mut FnDecoder,
    i: &RawInstr,
    base: &str,
    rest: &[&str],
) -> Result<Op, SimError> {
    let quals: Vec<&str> = rest.iter().copied().filter(|q| *q != "cta").collect();
    let o = &i.operands;
    // `bar.*` is `barrier.*.aligned`.
    let aligned = base == "bar" || quals.contains(&"aligned");
    match quals.first().copied() {
        Some("sync") | None => {
            need(i, 1)?;
            let count = match o.get(1) {
                Some(c) => Some(d.src(i, c)?),
                None => None,
            };
            Ok(Op::Bar(d.src(i, &o[0])?, count, aligned))
        }
        Some("arrive") => {
            // The thread count is required: the arriving threads do not wait for the others.
            need(i, 2)?;
            Ok(Op::BarArrive(d.src(i, &o[0])?, d.src(i, &o[1])?))
        }
        Some("red") => {
            let op = match quals.get(1).copied() {
                Some("popc") => BarRedOp::Popc,
                Some("and") => BarRedOp::And,
                Some("or") => BarRedOp::Or,
                other => return Err(err(i, format!("bar.red operation `{other:?}`"))),
            };
            need(i, 3)?;
            let dst = d.dst(i, &o[0])?;
            let id = d.src(i, &o[1])?;
            let (count, pred) = if o.len() >= 4 {
                (Some(d.src(i, &o[2])?), &o[3])
            } else {
                (None, &o[2])
            };
            let (pred, negate) = predicate(d, i, pred)?;
            Ok(Op::BarRed(op, dst, id, count, pred, negate))
        }
        Some(form) => Err(err(i, format!("barrier form `.{form}`"))),
    }
}

/// `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`, `activemask`.
pub(super) fn warp(
    d: &mut FnDecoder,
    i: &RawInstr,
    base: &str,
    rest: &[&str],
) -> Result<Op, SimError> {
    let o = &i.operands;
    if base == "activemask" {
        need(i, 1)?;
        return Ok(Op::ActiveMask(d.dst(i, &o[0])?));
    }
    if !rest.contains(&"sync") {
        return Err(err(
            i,
            "the forms without `.sync` are not supported from sm_70 on; use the `.sync` form",
        ));
    }
    let ty = rest
        .last()
        .and_then(|t| Ty::parse(t))
        .ok_or_else(|| err(i, "no type"))?;
    let word = |k: usize| rest.get(k).copied().unwrap_or("");
    let inst = match base {
        "shfl" => {
            let mode = match word(1) {
                "up" => ShflMode::Up,
                "down" => ShflMode::Down,
                "bfly" => ShflMode::Bfly,
                "idx" => ShflMode::Idx,
                m => return Err(err(i, format!("shfl mode `{m}`"))),
            };
            need(i, 5)?;
            let (dst, p) = pair_dst(d, i, &o[0])?;
            WarpInst {
                op: WarpOp::Shfl(mode),
                ty,
                d: Some(dst),
                p,
                src: [d.src(i, &o[1])?, d.src(i, &o[2])?, d.src(i, &o[3])?],
                negate: false,
                mask: d.src(i, &o[4])?,
            }
        }
        "vote" => {
            let mode = match word(1) {
                "all" => VoteMode::All,
                "any" => VoteMode::Any,
                "uni" => VoteMode::Uni,
                "ballot" => VoteMode::Ballot,
                m => return Err(err(i, format!("vote mode `{m}`"))),
            };
            need(i, 3)?;
            let (pred, negate) = predicate(d, i, &o[1])?;
            WarpInst {
                op: WarpOp::Vote(mode),
                ty,
                d: Some(d.dst(i, &o[0])?),
                p: None,
                src: [pred, Src::Imm(0), Src::Imm(0)],
                negate,
                mask: d.src(i, &o[2])?,
            }
        }
        "match" => {
            need(i, 3)?;
            let (dst, p) = pair_dst(d, i, &o[0])?;
            let op = match word(0) {
                "any" if p.is_none() => WarpOp::MatchAny,
                "all" => WarpOp::MatchAll,
                m => return Err(err(i, format!("match form `{m}`"))),
            };
            WarpInst {
                op,
                ty,
                d: Some(dst),
                p,
                src: [d.src(i, &o[1])?, Src::Imm(0), Src::Imm(0)],
                negate: false,
                mask: d.src(i, &o[2])?,
            }
        }
        "redux" => {
            let op = match word(1) {
                "add" => ReduxOp::Add,
                "min" => ReduxOp::Min,
                "max" => ReduxOp::Max,
                "and" => ReduxOp::And,
                "or" => ReduxOp::Or,
                "xor" => ReduxOp::Xor,
                m => return Err(err(i, format!("redux operation `{m}`"))),
            };
            if ty.kind.is_float() || rest.len() != 3 {
                return Err(err(i, "only the integer redux.sync forms are supported"));
            }
            need(i, 3)?;
            WarpInst {
                op: WarpOp::Redux(op),
                ty,
                d: Some(d.dst(i, &o[0])?),
                p: None,
                src: [d.src(i, &o[1])?, Src::Imm(0), Src::Imm(0)],
                negate: false,
                mask: d.src(i, &o[2])?,
            }
        }
        _ => return Err(err(i, "not supported by the simulator")),
    };
    Ok(Op::Warp(Box::new(inst)))
}
