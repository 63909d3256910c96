//! Candidate executions of a litmus test — one path per thread, reads-from, coherence order per
//! location and Fence-SC order — and the consistent ones among them.
//!
//! *Candidates* are counted without pruning by the axioms: every combination of paths and
//! reads-from whose values do not decide a branch condition of the paths false (values out of
//! thin air decide nothing), times every coherence order (the initial write first) and every
//! Fence-SC order. The consistent
//! ones are then searched with pruning that only skips choices an axiom rejects outright: a read
//! from a write later in its own thread (Causality), two writes of one thread against program
//! order in coherence (Coherence), and candidates with no values (No-Thin-Air).

use super::axioms::{self, Axiom, Choice};
use super::events::{self, Path};
use super::graph::Graph;
use super::program::*;
use super::races::{self, Race};
use std::collections::{BTreeMap, BTreeSet};

/// The decision of one test.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Whether the condition is validated (herd's `Ok`).
    pub ok: bool,
    /// Number of candidate executions.
    pub candidates: u64,
    /// Number of consistent executions.
    pub consistent: u64,
    /// Consistent executions that satisfy the proposition.
    pub satisfying: u64,
    /// Final states of the consistent executions (registers and locations by name).
    pub states: BTreeSet<Vec<(String, i64)>>,
    /// Racing pairs over all consistent executions.
    pub races: BTreeSet<Race>,
    /// How many candidates each axiom rejected (the first violated one).
    pub rejected_by: BTreeMap<String, u64>,
}

/// Decides a test.
///
/// ```
/// use ptx_litmus::{parse::parse, enumerate::decide};
/// let t = parse("sb.litmus", "PTX SB\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n \
///     st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;\n fence.sc.gpu | fence.sc.gpu ;\n \
///     ld.relaxed.gpu r0, y | ld.relaxed.gpu r1, x ;\nexists (P0:r0 == 0 /\\ P1:r1 == 0)\n").unwrap();
/// let o = decide(&t).unwrap();
/// assert!(!o.ok); // fence.sc forbids the SB outcome
/// assert!(o.consistent > 0 && o.candidates >= o.consistent);
/// ```
pub fn decide(t: &Litmus) -> Result<Outcome, String> {
    let mut all_paths = Vec::new();
    for th in &t.threads {
        let p = events::paths(th, &t.init_regs).map_err(|line| {
            format!(
                "line {line}: thread P{} runs past {} events",
                th.id,
                events::MAX_EVENTS
            )
        })?;
        all_paths.push(p);
    }
    let mut out = Outcome {
        ok: false,
        candidates: 0,
        consistent: 0,
        satisfying: 0,
        states: BTreeSet::new(),
        races: BTreeSet::new(),
        rejected_by: BTreeMap::new(),
    };
    let mut pick = vec![0usize; all_paths.len()];
    if all_paths.iter().all(|p| !p.is_empty()) {
        loop {
            let chosen: Vec<&Path> = pick.iter().zip(&all_paths).map(|(&k, p)| &p[k]).collect();
            let g = Graph::build(t, &chosen)?;
            explore(t, &g, &mut out);
            if !advance(
                &mut pick,
                &all_paths.iter().map(Vec::len).collect::<Vec<_>>(),
            ) {
                break;
            }
        }
    }
    out.ok = match t.quantifier {
        Quantifier::Exists => out.satisfying > 0,
        Quantifier::NotExists => out.satisfying == 0,
        Quantifier::Forall => out.satisfying == out.consistent,
    };
    Ok(out)
}

/// Odometer over `sizes`; false once every combination was visited.
fn advance(pick: &mut [usize], sizes: &[usize]) -> bool {
    for k in (0..pick.len()).rev() {
        pick[k] += 1;
        if pick[k] < sizes[k] {
            return true;
        }
        pick[k] = 0;
    }
    false
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

fn explore(t: &Litmus, g: &Graph, out: &mut Outcome) {
    let n = g.evs.len();
    let reads: Vec<usize> = (0..n).filter(|&i| g.evs[i].reads()).collect();
    let options: Vec<Vec<usize>> = reads
        .iter()
        .map(|&r| {
            g.writes_to(g.evs[r].loc.unwrap())
                .into_iter()
                .filter(|&w| w != r)
                .collect()
        })
        .collect();
    // Coherence orders: all of them counted; those that respect program order explored.
    let mut co_count: u64 = 1;
    let mut co_orders: Vec<Vec<Vec<usize>>> = Vec::new();
    for l in 0..g.locs.len() {
        let ws: Vec<usize> = g
            .writes_to(l)
            .into_iter()
            .filter(|&w| g.evs[w].init.is_none())
            .collect();
        co_count = co_count.saturating_mul((1..=ws.len() as u64).product());
        let perms = permutations(&ws)
            .into_iter()
            .filter(|p| p.windows(2).all(|w| !g.po.has(w[1], w[0])))
            .collect();
        co_orders.push(perms);
    }
    // Fence-SC orders: one direction per morally strong pair, acyclic.
    let mut fscs: Vec<Vec<(usize, usize)>> = Vec::new();
    let m = g.sc_pairs.len();
    for mask in 0u64..(1u64 << m) {
        let mut rel = super::relation::Rel::new(n);
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
    let per_rf = co_count.saturating_mul(fscs.len() as u64);

    if options.iter().any(Vec::is_empty) {
        return;
    }
    let mut rf = vec![None; n];
    let ctx = RfSearch {
        t,
        g,
        reads: &reads,
        options: &options,
        co_orders: &co_orders,
        fscs: &fscs,
        per_rf,
    };
    ctx.assign(0, &mut rf, out);
}

/// The reads-from search: reads are assigned one by one, and a partial assignment is abandoned
/// as soon as a branch condition of the chosen paths is decided false (no candidate lies
/// below it, so the candidate count is unchanged).
struct RfSearch<'a> {
    t: &'a Litmus,
    g: &'a Graph,
    reads: &'a [usize],
    options: &'a [Vec<usize>],
    co_orders: &'a [Vec<Vec<usize>>],
    fscs: &'a [Vec<(usize, usize)>],
    per_rf: u64,
}

impl RfSearch<'_> {
    fn assign(&self, k: usize, rf: &mut Vec<Option<usize>>, out: &mut Outcome) {
        let g = self.g;
        if k == self.reads.len() {
            let vals = Values::compute(g, rf);
            out.candidates = out.candidates.saturating_add(self.per_rf);
            let own_future = self.reads.iter().any(|&r| g.po.has(r, rf[r].unwrap()));
            match &vals {
                None => {
                    *out.rejected_by
                        .entry(Axiom::NoThinAir.to_string())
                        .or_insert(0) += self.per_rf
                }
                Some(_) if own_future => {
                    *out.rejected_by
                        .entry(Axiom::Causality.to_string())
                        .or_insert(0) += self.per_rf
                }
                Some(v) => explore_co(self.t, g, rf, v, self.co_orders, self.fscs, out),
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

fn explore_co(
    t: &Litmus,
    g: &Graph,
    rf: &[Option<usize>],
    v: &Values,
    co_orders: &[Vec<Vec<usize>>],
    fscs: &[Vec<(usize, usize)>],
    out: &mut Outcome,
) {
    let n = g.evs.len();
    let mut pick = vec![0usize; co_orders.len()];
    let sizes: Vec<usize> = co_orders.iter().map(Vec::len).collect();
    let mut rank = vec![0usize; n];
    loop {
        for (l, order) in co_orders.iter().enumerate() {
            for (k, &w) in order[pick[l]].iter().enumerate() {
                rank[w] = k + 1;
            }
        }
        for fsc in fscs {
            match axioms::check(
                g,
                &Choice {
                    rf,
                    co_rank: &rank,
                    fsc,
                },
            ) {
                Ok(orders) => {
                    out.consistent += 1;
                    let state = final_state(t, g, v, &rank);
                    if eval_prop(&t.prop, &state) {
                        out.satisfying += 1;
                    }
                    out.states.insert(state.into_iter().collect());
                    races::collect(g, &orders, &mut out.races);
                }
                Err(a) => *out.rejected_by.entry(a.to_string()).or_insert(0) += 1,
            }
        }
        if !advance(&mut pick, &sizes) {
            break;
        }
    }
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

fn final_state(t: &Litmus, g: &Graph, v: &Values, rank: &[usize]) -> BTreeMap<String, i64> {
    let mut s = BTreeMap::new();
    for (l, name) in g.locs.iter().enumerate() {
        let last = g.writes_to(l).into_iter().max_by_key(|&w| rank[w]).unwrap();
        s.insert(name.clone(), v.write[last].unwrap_or(g.init_values[l]));
    }
    for (tid, regs) in g.regs.iter().enumerate() {
        for (r, e) in regs {
            let val = e.eval(&mut |i| v.read[i]).unwrap_or(0);
            s.insert(format!("P{tid}:{r}"), val);
        }
    }
    // Registers only initialised keep their initial value.
    for ((tid, r), val) in &t.init_regs {
        s.entry(format!("P{tid}:{r}")).or_insert(*val);
    }
    s
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
