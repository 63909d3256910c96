//! The executions of one path per thread with its barrier phases: reads-from (searched with
//! pruning by the paths' branch conditions), Fence-SC orders, and the coherence orders each
//! reads-from and Fence-SC choice allows — partial, as 8.9.6 says: "Two *overlapping* write
//! operations are related in *coherence order* if they are *morally strong* or if they are
//! related in *causality order*. Two *overlapping* writes are unrelated in *coherence order*
//! if they are in a *data-race*". Causality order does not depend on coherence order, so it is
//! derived once per reads-from and Fence-SC choice, and the coherence orders are the total
//! orders of each location's writes with their racing pairs left unrelated (those that stay
//! transitive), each counted once.

use super::axioms::{self, Axiom};
use super::events::Expr;
use super::graph::Graph;
use super::outcome::{Outcome, advance};
use super::program::*;
use super::races::{self, Site};
use super::relation::{Rel, bits};
use std::collections::{BTreeMap, HashSet};

/// The most final states one execution may have (its locations' co-maximal writes).
const MAX_FINAL_STATES: usize = 4096;

/// Threads of an execution that may wait forever.
#[derive(Default)]
pub(crate) struct Hang {
    /// Where they wait (a barrier, or a loop's label).
    pub sites: Vec<Site>,
    /// Per spinning thread, the reads of its loop's last iteration: the thread spins forever
    /// when each reads a co-maximal write and the iteration leaves every register as it found
    /// it (`spin_regs`, values at its start and end, in execution indices).
    pub spin_reads: Vec<Vec<usize>>,
    /// Per spinning thread, its registers at the start and the end of the last iteration.
    pub spin_regs: Vec<Vec<(Expr, Expr)>>,
}

/// Explores the executions of `g` into `out`; with `deadlock`, they are executions in which
/// the threads of those sites wait forever: consistent ones are counted as deadlocked.
pub(crate) fn explore(t: &Litmus, g: &Graph, out: &mut Outcome, deadlock: Option<&Hang>) {
    let n = g.evs.len();
    let reads: Vec<usize> = (0..n).filter(|&i| g.evs[i].reads()).collect();
    // A spinning read of a hanging execution must read a co-maximal write: never the initial
    // write when the location has another, nor a write its own thread overwrites later.
    let spin_read =
        |r: usize| deadlock.is_some_and(|h| h.spin_reads.iter().any(|v| v.contains(&r)));
    let may_be_last = |w: usize| {
        let ws = g.writes_to(g.evs[w].loc.unwrap());
        let overwritten = ws.iter().any(|&x| x != w && g.po.has(w, x));
        !overwritten
    };
    let options: Vec<Vec<usize>> = reads
        .iter()
        .map(|&r| {
            g.writes_to(g.evs[r].loc.unwrap())
                .into_iter()
                .filter(|&w| w != r && (!spin_read(r) || may_be_last(w)))
                .collect()
        })
        .collect();
    // Total orders of each location's writes (the initial write first) that respect program
    // order; the partial orders are derived from them.
    let mut co_total: u64 = 1;
    let mut totals: Vec<Vec<Vec<usize>>> = Vec::new();
    for l in 0..g.locs.len() {
        let ws: Vec<usize> = g
            .writes_to(l)
            .into_iter()
            .filter(|&w| g.evs[w].init.is_none())
            .collect();
        co_total = co_total.saturating_mul((1..=ws.len() as u64).product());
        let init: Vec<usize> = g
            .writes_to(l)
            .into_iter()
            .filter(|&w| g.evs[w].init.is_some())
            .collect();
        let perms = permutations(&ws)
            .into_iter()
            .filter(|p| p.windows(2).all(|w| !g.po.has(w[1], w[0])))
            .map(|p| init.iter().copied().chain(p).collect())
            .collect();
        totals.push(perms);
    }
    // Fence-SC orders: one direction per morally strong pair, acyclic.
    let mut fscs: Vec<Vec<(usize, usize)>> = Vec::new();
    let m = g.sc_pairs.len();
    for mask in 0u64..(1u64 << m) {
        let mut rel = Rel::new(n);
        let dirs: Vec<(usize, usize)> = g
            .sc_pairs
            .iter()
            .enumerate()
            .map(|(k, &(a, b))| if mask >> k & 1 == 0 { (a, b) } else { (b, a) })
            .collect();
        for &(a, b) in &dirs {
            rel.add(a, b);
        }
        if !rel.is_cyclic() {
            fscs.push(dirs);
        }
    }
    if options.iter().any(Vec::is_empty) {
        return;
    }
    let mut rf = vec![None; n];
    let ctx = RfSearch {
        t,
        g,
        reads: &reads,
        options: &options,
        totals: &totals,
        fscs: &fscs,
        co_total,
        deadlock,
        found: std::cell::Cell::new(false),
    };
    ctx.assign(0, &mut rf, out);
}

fn permutations(v: &[usize]) -> Vec<Vec<usize>> {
    if v.is_empty() {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for i in 0..v.len() {
        let mut rest = v.to_vec();
        let x = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, x);
            out.push(p);
        }
    }
    out
}

/// The reads-from search: reads are assigned one by one, and a partial assignment is abandoned
/// as soon as a branch condition of the chosen paths is decided false (no candidate lies
/// below it, so the candidate count is unchanged).
struct RfSearch<'a> {
    t: &'a Litmus,
    g: &'a Graph,
    reads: &'a [usize],
    options: &'a [Vec<usize>],
    totals: &'a [Vec<Vec<usize>>],
    fscs: &'a [Vec<(usize, usize)>],
    co_total: u64,
    deadlock: Option<&'a Hang>,
    /// Set once a deadlocked execution is found: one is enough to report the hang.
    found: std::cell::Cell<bool>,
}

impl RfSearch<'_> {
    fn assign(&self, k: usize, rf: &mut Vec<Option<usize>>, out: &mut Outcome) {
        let g = self.g;
        if self.found.get() {
            return;
        }
        if k == self.reads.len() {
            let vals = Values::compute(g, rf);
            let own_future = self.reads.iter().any(|&r| g.po.has(r, rf[r].unwrap()));
            let per_rf = self.co_total.saturating_mul(self.fscs.len() as u64);
            match &vals {
                None => {
                    out.candidates = out.candidates.saturating_add(per_rf);
                    *out.rejected_by
                        .entry(Axiom::NoThinAir.to_string())
                        .or_insert(0) += per_rf
                }
                Some(_) if own_future => {
                    out.candidates = out.candidates.saturating_add(per_rf);
                    *out.rejected_by
                        .entry(Axiom::Causality.to_string())
                        .or_insert(0) += per_rf
                }
                Some(v) => {
                    for fsc in self.fscs {
                        if self.found.get() {
                            break;
                        }
                        self.explore_co(rf, v, fsc, out);
                    }
                }
            }
            return;
        }
        for &w in &self.options[k] {
            rf[self.reads[k]] = Some(w);
            if !violates_constraint(g, rf) {
                self.assign(k + 1, rf, out);
            }
        }
        rf[self.reads[k]] = None;
    }

    /// The coherence orders of one reads-from and Fence-SC choice, checked.
    fn explore_co(
        &self,
        rf: &[Option<usize>],
        v: &Values,
        fsc: &[(usize, usize)],
        out: &mut Outcome,
    ) {
        let g = self.g;
        let c = match axioms::causal(g, rf, fsc) {
            Ok(c) => c,
            Err(a) => {
                out.candidates = out.candidates.saturating_add(self.co_total);
                *out.rejected_by.entry(a.to_string()).or_insert(0) += self.co_total;
                return;
            }
        };
        // Per location, the distinct partial orders: each total order with its racing pairs
        // removed, kept when still transitive.
        let mut per_loc: Vec<Vec<Vec<(usize, u128)>>> = Vec::new();
        for orders in self.totals {
            let mut seen: HashSet<Vec<(usize, u128)>> = HashSet::new();
            let mut list = Vec::new();
            for order in orders {
                let mut rows: Vec<(usize, u128)> = order.iter().map(|&w| (w, 0u128)).collect();
                for i in 0..order.len() {
                    for j in i + 1..order.len() {
                        if !axioms::writes_race(g, &c, order[i], order[j]) {
                            rows[i].1 |= 1 << order[j];
                        }
                    }
                }
                let row_of = |w: usize| rows.iter().find(|r| r.0 == w).map_or(0, |r| r.1);
                let transitive = rows
                    .iter()
                    .all(|&(_, r)| bits(r).all(|b| row_of(b) & !r == 0));
                if transitive {
                    rows.sort();
                    if seen.insert(rows.clone()) {
                        list.push(rows);
                    }
                }
            }
            per_loc.push(list);
        }
        let sizes: Vec<usize> = per_loc.iter().map(Vec::len).collect();
        if sizes.contains(&0) {
            return;
        }
        let mut pick = vec![0usize; per_loc.len()];
        loop {
            out.candidates = out.candidates.saturating_add(1);
            let mut co = Rel::new(g.evs.len());
            for (l, list) in per_loc.iter().enumerate() {
                for &(w, row) in &list[pick[l]] {
                    for x in bits(row) {
                        co.add(w, x);
                    }
                }
            }
            if self.found.get() {
                break;
            }
            match axioms::check_co(g, &c, rf, &co) {
                Ok(()) => self.record(rf, v, &c, &co, out),
                Err(a) => *out.rejected_by.entry(a.to_string()).or_insert(0) += 1,
            }
            if !advance(&mut pick, &sizes) {
                break;
            }
        }
    }

    /// Records a consistent execution.
    fn record(
        &self,
        rf: &[Option<usize>],
        v: &Values,
        c: &axioms::Causal,
        co: &Rel,
        out: &mut Outcome,
    ) {
        let (t, g) = (self.t, self.g);
        if let Some(h) = self.deadlock {
            let last = |w: usize| {
                let l = g.evs[w].loc.expect("a write has a location");
                g.writes_to(l).into_iter().all(|x| !co.has(w, x))
            };
            let val = |e: &Expr| e.eval(&mut |i| v.read[i]);
            let spins_forever = h
                .spin_reads
                .iter()
                .all(|reads| reads.iter().all(|&r| rf[r].is_some_and(last)))
                && h.spin_regs
                    .iter()
                    .all(|regs| regs.iter().all(|(a, b)| val(a) == val(b)));
            if spins_forever {
                out.deadlocked += 1;
                out.deadlocks.extend(h.sites.iter().cloned());
                self.found.set(true);
            }
            return;
        }
        let states: Vec<BTreeMap<String, i64>> = final_states(t, g, v, co)
            .into_iter()
            .filter(|s| t.filter.as_ref().is_none_or(|f| eval_prop(f, s)))
            .collect();
        if states.is_empty() {
            return; // filtered out
        }
        out.consistent += 1;
        let sat = states.iter().filter(|s| eval_prop(&t.prop, s)).count();
        if sat > 0 {
            out.satisfying += 1;
        }
        if sat < states.len() {
            out.violating += 1;
        }
        for s in states {
            out.states.insert(s.into_iter().collect());
        }
        let mut here = std::collections::BTreeSet::new();
        races::collect(
            g,
            &axioms::Orders {
                cause: c.cause.clone(),
            },
            &mut here,
        );
        out.races_in_every = Some(match out.races_in_every.take() {
            Some(every) => every.intersection(&here).cloned().collect(),
            None => here.clone(),
        });
        out.races.extend(here);
    }
}

/// Whether some branch condition is already decided false by the reads assigned so far.
fn violates_constraint(g: &Graph, rf: &[Option<usize>]) -> bool {
    let n = g.evs.len();
    let mut memo: Vec<Option<Option<i64>>> = vec![None; n];
    let mut busy = vec![false; n];
    fn write_val(
        g: &Graph,
        rf: &[Option<usize>],
        w: usize,
        memo: &mut [Option<Option<i64>>],
        busy: &mut [bool],
    ) -> Option<i64> {
        if let Some(v) = memo[w] {
            return v;
        }
        if busy[w] {
            return None;
        }
        busy[w] = true;
        let v = g.evs[w]
            .ev
            .value
            .as_ref()
            .and_then(|e| e.eval(&mut |i| write_val(g, rf, rf[i]?, memo, busy)));
        busy[w] = false;
        memo[w] = Some(v);
        v
    }
    g.constraints.iter().any(|(c, a, b)| {
        let mut var = |i: usize| write_val(g, rf, rf[i]?, &mut memo, &mut busy);
        match (a.eval(&mut var), b.eval(&mut var)) {
            (Some(x), Some(y)) => !c.holds(x, y),
            _ => false,
        }
    })
}

/// The values of an execution: what each read returns and what each write writes.
struct Values {
    read: Vec<Option<i64>>,
    write: Vec<Option<i64>>,
}

impl Values {
    /// None when some value depends on itself (out of thin air).
    fn compute(g: &Graph, rf: &[Option<usize>]) -> Option<Values> {
        let n = g.evs.len();
        let mut v = Values {
            read: vec![None; n],
            write: vec![None; n],
        };
        let mut state = vec![0u8; n]; // 0 new, 1 in progress, 2 done (write values)
        fn write_val(
            g: &Graph,
            rf: &[Option<usize>],
            w: usize,
            v: &mut Values,
            st: &mut [u8],
        ) -> Option<i64> {
            match st[w] {
                2 => return v.write[w],
                1 => return None,
                _ => {}
            }
            st[w] = 1;
            let expr = g.evs[w].ev.value.clone()?;
            let r = expr.eval(&mut |i| write_val(g, rf, rf[i]?, v, st));
            st[w] = 2;
            v.write[w] = r;
            r
        }
        for i in 0..n {
            if let Some(w) = rf[i] {
                v.read[i] = Some(write_val(g, rf, w, &mut v, &mut state)?);
            }
            if g.evs[i].writes() {
                write_val(g, rf, i, &mut v, &mut state)?;
            }
        }
        Some(v)
    }
}

/// The final states of an execution: each location holds the value of one of its co-maximal
/// writes (several when racing writes are unrelated in coherence order).
fn final_states(t: &Litmus, g: &Graph, v: &Values, co: &Rel) -> Vec<BTreeMap<String, i64>> {
    let mut regs = BTreeMap::new();
    for (tid, rs) in g.regs.iter().enumerate() {
        for (r, e) in rs {
            let val = e.eval(&mut |i| v.read[i]).unwrap_or(0);
            regs.insert(format!("P{tid}:{r}"), val);
        }
    }
    // Registers only initialised keep their initial value.
    for ((tid, r), val) in &t.init_regs {
        regs.entry(format!("P{tid}:{r}")).or_insert(*val);
    }
    let mut states = vec![regs];
    // An alias's final value is its location's.
    let names = |l: &str| -> Vec<String> {
        std::iter::once(l.to_string())
            .chain(
                t.aliases
                    .iter()
                    .filter(|(_, p)| *p == l)
                    .map(|(a, _)| a.clone()),
            )
            .collect()
    };
    for (l, name) in g.locs.iter().enumerate() {
        let ws = g.writes_to(l);
        let mut finals: Vec<i64> = ws
            .iter()
            .filter(|&&w| ws.iter().all(|&x| !co.has(w, x)))
            .map(|&w| v.write[w].unwrap_or(g.init_values[l]))
            .collect();
        finals.sort();
        finals.dedup();
        let mut next = Vec::new();
        for s in &states {
            for &f in &finals {
                let mut s2 = s.clone();
                for n in names(name) {
                    s2.insert(n, f);
                }
                next.push(s2);
            }
        }
        next.truncate(MAX_FINAL_STATES);
        states = next;
    }
    states
}

fn term(t: &Term, s: &BTreeMap<String, i64>) -> i64 {
    match t {
        Term::Const(c) => *c,
        Term::Reg(tid, r) => s.get(&format!("P{tid}:{r}")).copied().unwrap_or(0),
        Term::Loc(l) => s.get(l).copied().unwrap_or(0),
    }
}

fn eval_prop(p: &Prop, s: &BTreeMap<String, i64>) -> bool {
    match p {
        Prop::True => true,
        Prop::Atom(c, a, b) => c.holds(term(a, s), term(b, s)),
        Prop::Not(q) => !eval_prop(q, s),
        Prop::And(a, b) => eval_prop(a, s) && eval_prop(b, s),
        Prop::Or(a, b) => eval_prop(a, s) || eval_prop(b, s),
    }
}
