//! The axioms of the PTX memory consistency model (PTX ISA 8.10) over one candidate execution,
//! with the orders of 8.9 they are stated in: observation order, synchronisation (Fence-SC,
//! barriers, release and acquire patterns), base causality order, proxy-preserved base causality
//! order (generic proxy only: same location) and causality order.

use super::graph::Graph;
use super::relation::{Rel, bits};
use std::fmt;

/// An axiom of PTX 8.10, named as the text names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axiom {
    /// 8.10.1: a write causally before an overlapping write precedes it in coherence order.
    Coherence,
    /// 8.10.2: Fence-SC order does not contradict causality order.
    FenceSc,
    /// 8.10.3: atomicity of read-modify-write operations.
    Atomicity,
    /// 8.10.4: no value out of thin air (no cycle of reads-from and dependencies).
    NoThinAir,
    /// 8.10.5: sequential consistency per location.
    ScPerLocation,
    /// 8.10.6: communication order does not contradict causality order.
    Causality,
}

impl fmt::Display for Axiom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Axiom::Coherence => "Coherence",
            Axiom::FenceSc => "Fence-SC",
            Axiom::Atomicity => "Atomicity",
            Axiom::NoThinAir => "No-Thin-Air",
            Axiom::ScPerLocation => "SC-per-location",
            Axiom::Causality => "Causality",
        })
    }
}

/// The co-independent part of a candidate execution: reads-from and the causality order derived
/// from it and the Fence-SC order (8.9: none of it depends on coherence order).
pub(crate) struct Causal {
    /// Reads-from, as a relation from writes to reads.
    pub(crate) rf: Rel,
    /// Causality order (8.9.5).
    pub(crate) cause: Rel,
    /// Proxy-preserved base causality order: what follows a read in causality order (a read
    /// observes nothing; an `atom`'s read reaches what its write does only through it).
    pub(crate) ppbase: Rel,
}

/// The derived orders of a consistent execution (for the race check).
pub struct Orders {
    /// Causality order.
    pub cause: Rel,
}

/// Derives the orders of a reads-from choice `rf` (the write each read reads from) and a
/// Fence-SC order `fsc` (`(a, b)` for each morally strong pair of `fence.sc`, `a` first), and
/// checks the axioms that need no coherence order: No-Thin-Air and Fence-SC.
pub(crate) fn causal(
    g: &Graph,
    rf_choice: &[Option<usize>],
    fsc: &[(usize, usize)],
) -> Result<Causal, Axiom> {
    let n = g.evs.len();
    let mut rf = Rel::new(n);
    for (r, w) in rf_choice.iter().enumerate() {
        if let Some(w) = w {
            rf.add(*w, r);
        }
    }
    // No-Thin-Air first: it needs no causality at all.
    if thin_air(g, rf_choice) {
        return Err(Axiom::NoThinAir);
    }

    // Observation order (8.9.2): morally strong reads-from, extended through atomics that write.
    let mut obs1 = Rel::new(n);
    for (r, w) in rf_choice.iter().enumerate() {
        if let Some(w) = w
            && g.is_ms(*w, r)
        {
            obs1.add(*w, r);
        }
    }
    let mut obs = obs1.clone();
    loop {
        let mut next = obs.clone();
        for w in 0..n {
            for z in bits(obs.row(w)) {
                if g.evs[z].atomic() && g.evs[z].writes() {
                    next_or(&mut next, w, obs1.row(z));
                }
            }
        }
        if next == obs {
            break;
        }
        obs = next;
    }

    // Synchronisation (8.9.4) and base causality order (8.9.5).
    let mut base = g.po.clone();
    base.union_with(&g.bar_sync);
    for &(a, b) in fsc {
        base.add(a, b);
    }
    for &(first, w) in &g.release {
        for &(last, r) in &g.acquire {
            if obs.has(w, r) && g.is_ms(first, last) {
                base.add(first, last);
            }
        }
    }
    let base = base.closure();

    // Proxy-preserved base causality (8.9.5): memory operations "performed to the same address,
    // using the generic proxy", or aliases "and there is an alias proxy fence along the base
    // causality path from X to Y"; for the other proxies, where the prose says only "A proxy
    // fence is required" (8.6), the rule of NVIDIA's formal model (`Graph::proxy_preserved`).
    let mut ppbase = Rel::new(n);
    for i in 0..n {
        if let Some(l) = g.evs[i].loc {
            let mut reach = 0u128;
            for j in bits(base.row(i) & g.on_loc[l]) {
                if g.proxy_preserved(&base, i, j) {
                    reach |= 1 << j;
                }
            }
            next_or(&mut ppbase, i, reach);
        }
    }
    // Causality order: ppbase ∪ obs ; ppbase.
    let mut cause = ppbase.clone();
    cause.union_with(&obs.then(&ppbase));

    // 8.10.2 Fence-SC: causality order between fences is base causality order.
    for &(a, b) in fsc {
        if base.has(b, a) {
            return Err(Axiom::FenceSc);
        }
    }
    Ok(Causal { rf, cause, ppbase })
}

/// Whether writes `a` and `b` (to one location) are in a data-race (8.7.1): "not related in
/// causality order and not morally strong" — and so unrelated in coherence order (8.9.6).
pub(crate) fn writes_race(g: &Graph, c: &Causal, a: usize, b: usize) -> bool {
    !g.is_ms(a, b) && !c.cause.has(a, b) && !c.cause.has(b, a)
}

/// Checks the axioms that involve coherence order `co` (a strict partial order on the writes
/// of each location): Coherence, Atomicity, SC per location and Causality.
pub(crate) fn check_co(
    g: &Graph,
    c: &Causal,
    rf_choice: &[Option<usize>],
    co: &Rel,
) -> Result<(), Axiom> {
    let n = g.evs.len();
    let cause = &c.cause;
    // fr = rf⁻¹ ; co, without the identity (an atomic is one event that reads and writes).
    let mut fr = Rel::new(n);
    for (r, w) in rf_choice.iter().enumerate() {
        if let Some(w) = w {
            for x in bits(co.row(*w)) {
                if x != r {
                    fr.add(r, x);
                }
            }
        }
    }
    // 8.10.1 Coherence.
    for w in 0..n {
        if !g.evs[w].writes() {
            continue;
        }
        for w2 in bits(cause.row(w)) {
            if w2 != w && g.evs[w2].writes() && !co.has(w, w2) {
                return Err(Axiom::Coherence);
            }
        }
    }
    // 8.10.3 Atomicity of RMW: A reads from W' co-before a morally strong W co-before A.
    for (a, w1) in rf_choice.iter().enumerate() {
        let e = &g.evs[a];
        if !(e.atomic() && e.writes()) {
            continue;
        }
        let Some(w1) = *w1 else { continue };
        for w in bits(co.row(w1)) {
            if w != a && co.has(w, a) && g.is_ms(a, w) {
                return Err(Axiom::Atomicity);
            }
        }
    }
    // 8.10.5 SC per location: within each set of pairwise morally strong overlapping operations,
    // program order and communication order have no cycle.
    let mut com = g.po.clone();
    com.union_with(&c.rf);
    com.union_with(co);
    com.union_with(&fr);
    for &clique in &g.cliques {
        if com.cyclic_within(clique) {
            return Err(Axiom::ScPerLocation);
        }
    }
    // 8.10.6 Causality: irreflexive((rf ∪ fr) ; cause). An `atom` is a read event and a write
    // event joined by `rmw` (NVIDIA's formal model, alloy/ptx.als: `rmw: lone Write`,
    // `observation = strong[rf] + rmw`, `cause = optional[observation].proxy_preserved_cause_base`):
    // what its write is observed by follows its write in causality order, not its read, so a
    // read is causally before exactly what it precedes in proxy-preserved base causality order.
    for (r, w) in rf_choice.iter().enumerate() {
        if let Some(w) = *w
            && c.ppbase.has(r, w)
        {
            return Err(Axiom::Causality);
        }
        for w in bits(fr.row(r)) {
            if cause.has(w, r) {
                return Err(Axiom::Causality);
            }
        }
    }
    Ok(())
}

/// 8.10.4 No-Thin-Air: whether reads-from and dependencies form a cycle — "an execution cannot
/// speculatively produce a value in such a way that the speculation becomes self-satisfying
/// through chains of instruction dependencies and inter-thread communication". An `atom` is
/// one event that reads and writes; its read reaches its write only when the written value
/// depends on the value read (`add`, `cas`, …; not `exch`, whose write is its operand), so it
/// is two nodes here: two `atom.exch` that read each other's write form no chain of
/// dependencies.
fn thin_air(g: &Graph, rf_choice: &[Option<usize>]) -> bool {
    let n = g.evs.len();
    let rmw = |i: usize| g.evs[i].atomic() && g.evs[i].writes() && g.evs[i].reads();
    let w_node = |i: usize| if rmw(i) { n + i } else { i };
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); 2 * n];
    for (r, w) in rf_choice.iter().enumerate() {
        if let Some(w) = w {
            adj[w_node(*w)].push(r);
        }
    }
    for (a, succ) in adj.iter_mut().enumerate().take(n) {
        for b in bits(g.dep.row(a)) {
            succ.push(b);
            if rmw(b) {
                succ.push(n + b);
            }
        }
    }
    for (a, e) in g.evs.iter().enumerate() {
        if rmw(a) {
            let mut own = std::collections::BTreeSet::new();
            if let Some(v) = &e.ev.value {
                v.vars(&mut own);
            }
            if own.contains(&a) {
                adj[a].push(n + a);
            }
        }
    }
    // Iterative three-colour depth-first search.
    let mut colour = vec![0u8; 2 * n];
    for s in 0..2 * n {
        if colour[s] != 0 {
            continue;
        }
        let mut stack = vec![(s, 0usize)];
        colour[s] = 1;
        while let Some(&mut (v, ref mut k)) = stack.last_mut() {
            if let Some(&u) = adj[v].get(*k) {
                *k += 1;
                match colour[u] {
                    1 => return true,
                    0 => {
                        colour[u] = 1;
                        stack.push((u, 0));
                    }
                    _ => {}
                }
            } else {
                colour[v] = 2;
                stack.pop();
            }
        }
    }
    false
}

fn next_or(r: &mut Rel, i: usize, row: u128) {
    for j in bits(row) {
        r.add(i, j);
    }
}
