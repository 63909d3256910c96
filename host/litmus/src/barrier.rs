//! CTA barriers: the `bar`/`barrier` instruction forms (PTX ISA `bar{.cta}.sync`, `.arrive`,
//! `.red`, with a thread count and with the barrier and the count in registers), and how the
//! arrivals of one execution group into barrier phases — or never complete (a deadlock).
//!
//! PTX 8.9.4: "A `bar{.cta}.sync` or `bar{.cta}.red` or `bar{.cta}.arrive` operation
//! *synchronizes* with a `bar{.cta}.sync` or `bar{.cta}.red` operation executed on the same
//! barrier." A barrier is one of a CTA's logical barriers, named by its value (an immediate or
//! a register's value), and a phase of it completes when the expected number of threads arrived:
//! `b` when the instruction gives it, else every thread of the CTA (PTX ISA, `bar`).

use super::events::{BarWait, Kind};
use super::program::*;
use super::text::{Ctx, ParseError, is_ident, norm_reg, parse_int};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// Parses a `bar`/`barrier` instruction (`quals` is the mnemonic split at dots).
pub(crate) fn parse_barrier(
    cx: &Ctx,
    ln: usize,
    cell: &str,
    mnemonic: &str,
    quals: &[&str],
    ops: &[&str],
    host: bool,
) -> Result<Instr, ParseError> {
    if host {
        return Err(cx.err(ln, mnemonic, "a host thread has no CTA barrier"));
    }
    let rest: Vec<&str> = quals[1..]
        .iter()
        .copied()
        .filter(|q| !matches!(*q, "cta" | "aligned"))
        .collect();
    let unsupported = |why: &str| {
        cx.err(
            ln,
            mnemonic,
            format!("unsupported instruction `{mnemonic}`: {why}"),
        )
    };
    if quals.contains(&"warp") {
        return Err(unsupported(
            "a warp barrier (litmus threads are not lanes of one warp)",
        ));
    }
    if quals.contains(&"cluster") {
        return Err(unsupported("cluster barriers are not modelled"));
    }
    let operand = |s: &str| -> Result<Operand, ParseError> {
        match parse_int(s) {
            Some(v) => Ok(Operand::Imm(v)),
            None if is_ident(s) => Ok(Operand::Reg(norm_reg(s))),
            None => Err(cx.err(ln, s, "expected a register or an integer")),
        }
    };
    let arity = |lo: usize, hi: usize, what: &str| {
        if (lo..=hi).contains(&ops.len()) {
            Ok(())
        } else {
            Err(cx.err(ln, cell, format!("`{mnemonic}` takes {what}")))
        }
    };
    if cx.dialect == Dialect::Dat3m && matches!(rest.as_slice(), ["sync"] | ["arrive"]) {
        // Dat3M's `bar.cta.{sync|arrive} INSTANCE{, ID{, QUORUM}}`: the instance only names
        // the instruction; without an id, the CTA-wide barrier 0; without a quorum, every
        // thread of the CTA.
        arity(
            1,
            3,
            "an instance (and an optional barrier id and thread count)",
        )?;
        operand(ops[0])?;
        return Ok(Instr::Bar {
            op: if rest == ["sync"] {
                BarOp::Sync
            } else {
                BarOp::Arrive
            },
            id: ops
                .get(1)
                .map(|c| operand(c))
                .transpose()?
                .unwrap_or(Operand::Imm(0)),
            count: ops.get(2).map(|c| operand(c)).transpose()?,
        });
    }
    match rest.as_slice() {
        ["sync"] | [] if quals[0] == "bar" || rest == ["sync"] => {
            arity(1, 2, "a barrier (and an optional thread count)")?;
            Ok(Instr::Bar {
                op: BarOp::Sync,
                id: operand(ops[0])?,
                count: ops.get(1).map(|c| operand(c)).transpose()?,
            })
        }
        ["arrive"] => {
            arity(1, 2, "a barrier and a thread count")?;
            Ok(Instr::Bar {
                op: BarOp::Arrive,
                id: operand(ops[0])?,
                count: ops.get(1).map(|c| operand(c)).transpose()?,
            })
        }
        ["red", op, ty] => {
            let op = match (*op, *ty) {
                ("popc", "u32") => BarRed::Popc,
                ("and", "pred") => BarRed::And,
                ("or", "pred") => BarRed::Or,
                _ => {
                    return Err(unsupported(
                        "expected `bar.red.popc.u32`, `bar.red.and.pred` or `bar.red.or.pred`",
                    ));
                }
            };
            arity(3, 4, "`d, a, {!}c` or `d, a, b, {!}c`")?;
            let c = ops[ops.len() - 1];
            let (negate, c) = match c.strip_prefix('!') {
                Some(c) => (true, c.trim()),
                None => (false, c),
            };
            if !is_ident(ops[0]) {
                return Err(cx.err(ln, ops[0], "expected a register"));
            }
            Ok(Instr::Bar {
                op: BarOp::Red {
                    op,
                    dst: norm_reg(ops[0]),
                    pred: operand(c)?,
                    negate,
                },
                id: operand(ops[1])?,
                count: if ops.len() == 4 {
                    Some(operand(ops[2])?)
                } else {
                    None
                },
            })
        }
        _ => Err(unsupported(
            "expected `bar{.cta}.sync`, `bar{.cta}.arrive` or `bar{.cta}.red`",
        )),
    }
}

/// One barrier arrival of an execution: its event, thread, CTA, barrier id, expected count
/// and whether the thread waits.
#[derive(Clone, Debug)]
struct Arrival {
    event: usize,
    key: ((i64, i64), i64),
    count: Option<i64>,
    waits: bool,
}

/// How the barrier arrivals of one execution complete.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Phases {
    /// Completed phases: the arrival events of each.
    pub(crate) done: Vec<Vec<usize>>,
    /// Per thread, the barrier event it waits at forever, if it does (a deadlock).
    pub(crate) stuck: Vec<Option<usize>>,
}

/// The most distinct ways barrier arrivals may complete that are explored per execution.
pub(crate) const MAX_PHASINGS: usize = 4096;

/// Every way the barrier arrivals of an execution may group into phases, found by running
/// the arrivals in every order: a thread arrives at its next barrier when it does not wait
/// at an incomplete one; a phase completes when its expected count arrived. Each result is
/// either complete (nobody stuck) or a deadlock (some thread waits at a phase that can no
/// longer fill). `events[thread]` are the thread's events in program order, with their
/// execution indices; `cta_size` gives the number of threads of a CTA.
pub(crate) fn phasings(
    events: &[Vec<(usize, &Kind)>],
    ctas: &[Option<(i64, i64)>],
) -> Result<Vec<Phases>, String> {
    let mut cta_size: BTreeMap<(i64, i64), i64> = BTreeMap::new();
    for c in ctas.iter().flatten() {
        *cta_size.entry(*c).or_insert(0) += 1;
    }
    let arrivals: Vec<Vec<Arrival>> = events
        .iter()
        .enumerate()
        .map(|(t, evs)| {
            evs.iter()
                .filter_map(|&(e, k)| match k {
                    Kind::Barrier { id, count, wait } => Some(Arrival {
                        event: e,
                        key: (ctas[t].expect("a barrier of a GPU thread"), *id),
                        count: *count,
                        waits: !matches!(wait, BarWait::Arrive),
                    }),
                    _ => None,
                })
                .collect()
        })
        .collect();
    if arrivals.iter().all(Vec::is_empty) {
        return Ok(vec![Phases {
            done: vec![],
            stuck: vec![None; events.len()],
        }]);
    }
    let expected = |a: &Arrival| a.count.unwrap_or(cta_size[&a.key.0]);
    #[derive(Clone, Hash, PartialEq, Eq)]
    struct State {
        next: Vec<usize>,
        waiting: Vec<bool>,
        open: BTreeMap<((i64, i64), i64), Vec<usize>>,
        done: BTreeSet<Vec<usize>>,
    }
    let n = arrivals.len();
    let start = State {
        next: vec![0; n],
        waiting: vec![false; n],
        open: BTreeMap::new(),
        done: BTreeSet::new(),
    };
    let mut seen: HashSet<State> = HashSet::new();
    let mut results: BTreeSet<Phases> = BTreeSet::new();
    let mut work = vec![start];
    while let Some(st) = work.pop() {
        if !seen.insert(st.clone()) {
            continue;
        }
        if seen.len() > 200_000 || results.len() > MAX_PHASINGS {
            return Err(format!(
                "more than {MAX_PHASINGS} ways for the barriers to complete"
            ));
        }
        let mut moved = false;
        for t in 0..n {
            if st.waiting[t] || st.next[t] >= arrivals[t].len() {
                continue;
            }
            let a = &arrivals[t][st.next[t]];
            if st.open.get(&a.key).is_some_and(|m| m.contains(&t)) {
                continue; // arrived at this phase already (without waiting): PTX leaves it undefined
            }
            moved = true;
            let mut s2 = st.clone();
            s2.next[t] += 1;
            let phase = s2.open.entry(a.key).or_default();
            phase.push(t);
            let members: Vec<usize> = phase.clone();
            // PTX leaves a phase whose arrivals expect different counts undefined: such a
            // phase never completes here.
            let counts_agree = members
                .iter()
                .all(|&m| expected(&arrivals[m][s2.next[m] - 1]) == expected(a));
            if counts_agree && members.len() as i64 >= expected(a) {
                s2.open.remove(&a.key);
                let mut evs: Vec<usize> = members
                    .iter()
                    .map(|&m| arrivals[m][s2.next[m] - 1].event)
                    .collect();
                evs.sort();
                s2.done.insert(evs);
                for &m in &members {
                    s2.waiting[m] = false;
                }
            } else if a.waits {
                s2.waiting[t] = true;
            }
            work.push(s2);
        }
        if !moved {
            let stuck = (0..n)
                .map(|t| {
                    if st.waiting[t] {
                        Some(arrivals[t][st.next[t] - 1].event)
                    } else {
                        arrivals[t].get(st.next[t]).map(|a| a.event)
                    }
                })
                .collect();
            results.insert(Phases {
                done: st.done.iter().cloned().collect(),
                stuck,
            });
        }
    }
    Ok(results.into_iter().collect())
}

/// The `bar.red` results of a phasing: for each `bar.red` event of a completed phase, the
/// reduction over the phase's participants (`preds[e]`: the predicate of event `e`, a
/// participant without one — `bar.sync`, `bar.arrive` — counting as false).
pub(crate) fn reductions(
    p: &Phases,
    kinds: &dyn Fn(usize) -> Option<(BarRed, bool)>,
) -> BTreeMap<usize, i64> {
    let mut out = BTreeMap::new();
    for phase in &p.done {
        let trues = phase
            .iter()
            .filter(|&&e| kinds(e).is_some_and(|(_, v)| v))
            .count();
        for &e in phase {
            if let Some((op, _)) = kinds(e) {
                out.insert(e, op.apply(trues, phase.len()));
            }
        }
    }
    out
}
