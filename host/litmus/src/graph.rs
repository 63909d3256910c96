//! The static part of a candidate execution: the events of one path per thread plus an initial
//! write per location, program order, morally strong pairs, the release and acquire patterns
//! (PTX 8.8), barrier synchronisation and dependencies. Reads-from, coherence and Fence-SC order
//! are chosen on top of it by `enumerate`.

use super::barrier::{self, Phases};
use super::events::{BarWait, Event, Expr, Kind, Path};
use super::program::*;
use super::relation::{self, Rel};
use std::collections::BTreeMap;

/// An event of the execution.
#[derive(Clone, Debug)]
pub struct Ev {
    /// Its thread, `None` for an initial write.
    pub thread: Option<usize>,
    /// The event (variables of its value renumbered to execution indices).
    pub ev: Event,
    /// Index of its location in [`Graph::locs`], for memory operations.
    pub loc: Option<usize>,
    /// For an initial write, the initial value.
    pub init: Option<i64>,
}

impl Ev {
    /// Reads memory.
    pub fn reads(&self) -> bool {
        matches!(self.ev.kind, Kind::Mem { reads: true, .. })
    }
    /// Writes memory.
    pub fn writes(&self) -> bool {
        self.init.is_some() || matches!(self.ev.kind, Kind::Mem { writes: true, .. })
    }
    /// An `atom` or `red`.
    pub fn atomic(&self) -> bool {
        matches!(self.ev.kind, Kind::Mem { atomic: true, .. })
    }
    /// A `red`.
    pub fn red(&self) -> bool {
        matches!(self.ev.kind, Kind::Mem { red: true, .. })
    }
    /// A `fence.sc`.
    pub fn sc_fence(&self) -> bool {
        matches!(self.ev.kind, Kind::Fence(FenceKind::Sc))
    }
    fn sem(&self) -> Option<Sem> {
        match self.ev.kind {
            Kind::Mem { sem, .. } => Some(sem),
            _ => None,
        }
    }
    /// The virtual address of a memory operation (its location as written; the initial write's
    /// is its location).
    ///
    /// ```
    /// use ptx_litmus::{graph::Graph, parse::parse, events::paths};
    /// let t = parse("a", "PTX A\n{ x=0; y=x; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, y ;\nexists (P0:r0 == 0)\n").unwrap();
    /// let p = paths(&t.threads[0], &t.init_regs).unwrap();
    /// let g = Graph::build(&t, &[&p[0]]).unwrap();
    /// let load = g.evs.iter().find(|e| e.thread == Some(0)).unwrap();
    /// assert_eq!(load.vaddr(), Some("y")); // an alias of x
    /// assert_eq!(g.locs[load.loc.unwrap()], "x");
    /// ```
    pub fn vaddr(&self) -> Option<&str> {
        match &self.ev.kind {
            Kind::Mem { loc, .. } => Some(loc),
            _ => None,
        }
    }
    /// The proxy of a memory operation (generic for the initial writes and non-memory events).
    ///
    /// ```
    /// use ptx_litmus::{graph::Graph, parse::parse, events::paths, program::Proxy};
    /// let t = parse("a", "PTX A\n{ x=0; y@texture aliases x; }\n P0@cta 0,gpu 0 ;\n tld.weak r0, y ;\nexists (P0:r0 == 0)\n").unwrap();
    /// let p = paths(&t.threads[0], &t.init_regs).unwrap();
    /// let g = Graph::build(&t, &[&p[0]]).unwrap();
    /// let load = g.evs.iter().find(|e| e.thread == Some(0)).unwrap();
    /// assert_eq!(load.proxy(), Proxy::Texture);
    /// ```
    pub fn proxy(&self) -> Proxy {
        match self.ev.kind {
            Kind::Mem { proxy, .. } => proxy,
            _ => Proxy::Generic,
        }
    }
    fn strong(&self) -> bool {
        self.init.is_some() || self.ev.is_strong()
    }
}

/// The static part of a candidate execution.
#[derive(Clone, Debug)]
pub struct Graph {
    /// Events: the initial writes first (one per location), then thread by thread in program order.
    pub evs: Vec<Ev>,
    /// Location names.
    pub locs: Vec<String>,
    /// Initial values of the locations.
    pub init_values: Vec<i64>,
    /// Events on each location (a bit set).
    pub on_loc: Vec<u128>,
    /// Program order, plus every initial write before every thread event (kernel start
    /// synchronises with every thread).
    pub po: Rel,
    /// Morally strong pairs (symmetric bit rows).
    pub ms: Vec<u128>,
    /// Barrier synchronisation: within each completed phase of a barrier, every arrival
    /// synchronizes with every other `bar.sync`/`bar.red` (PTX 8.9.4).
    pub bar_sync: Rel,
    /// Release patterns: (first instruction, a write of the pattern).
    pub release: Vec<(usize, usize)>,
    /// Acquire patterns: (last instruction, a read of the pattern).
    pub acquire: Vec<(usize, usize)>,
    /// Morally strong pairs of `fence.sc` (`i < j`).
    pub sc_pairs: Vec<(usize, usize)>,
    /// Data and control dependencies from reads to later events.
    pub dep: Rel,
    /// Constraints of the chosen paths on read values.
    pub constraints: Vec<(Cmp, Expr, Expr)>,
    /// Final register values per thread.
    pub regs: Vec<BTreeMap<String, Expr>>,
    /// Maximal sets of pairwise morally strong operations per location (SC per location).
    pub cliques: Vec<u128>,
    /// Per event, the memory operations to the same virtual address (8.2: they overlap).
    pub same_vaddr: Vec<u128>,
    /// The proxy fences (`fence.proxy.alias`, `fence.proxy.KIND`) with their kind.
    pub proxy_fences: Vec<(usize, FenceKind)>,
    /// Per event, the (GPU, CTA) of its thread (`None` for the initial writes and host threads).
    pub cta: Vec<Option<(i64, i64)>>,
}

impl Graph {
    /// Builds the graph of one path per thread.
    pub fn build(t: &Litmus, paths: &[&Path]) -> Result<Graph, String> {
        let phys = |l: &str| t.aliases.get(l).cloned().unwrap_or_else(|| l.to_string());
        let mut locs: Vec<String> = t.init_mem.keys().cloned().collect();
        for p in paths {
            for e in &p.events {
                if let Kind::Mem { loc, .. } = &e.kind
                    && !locs.contains(&phys(loc))
                {
                    locs.push(phys(loc));
                }
            }
        }
        for l in cond_locs(&t.prop) {
            if !locs.contains(&phys(&l)) {
                locs.push(phys(&l));
            }
        }
        let total = locs.len() + paths.iter().map(|p| p.events.len()).sum::<usize>();
        if total > relation::MAX {
            return Err(format!(
                "{total} events in one execution; at most {} are supported",
                relation::MAX
            ));
        }
        let mut evs = Vec::with_capacity(total);
        let init_values: Vec<i64> = locs
            .iter()
            .map(|l| t.init_mem.get(l).copied().unwrap_or(0))
            .collect();
        for (k, l) in locs.iter().enumerate() {
            let ev = Event {
                kind: Kind::Mem {
                    loc: l.clone(),
                    reads: false,
                    writes: true,
                    atomic: false,
                    red: false,
                    sem: Sem::Relaxed,
                    proxy: Proxy::Generic,
                },
                scope: Scope::Sys,
                value: Some(Expr::Const(init_values[k])),
                deps: Default::default(),
                line: 0,
                text: format!("init {l}={}", init_values[k]),
            };
            evs.push(Ev {
                thread: None,
                ev,
                loc: Some(k),
                init: Some(init_values[k]),
            });
        }
        let mut constraints = Vec::new();
        let mut regs = Vec::new();
        let mut dep_pairs = Vec::new();
        for (tid, p) in paths.iter().enumerate() {
            let off = evs.len();
            for (i, e) in p.events.iter().enumerate() {
                let mut e = e.clone();
                e.value = e.value.map(|v| v.shifted(off));
                for d in std::mem::take(&mut e.deps) {
                    if d != i {
                        dep_pairs.push((off + d, off + i));
                    }
                }
                let loc = match &e.kind {
                    Kind::Mem { loc, .. } => locs.iter().position(|l| *l == phys(loc)),
                    _ => None,
                };
                evs.push(Ev {
                    thread: Some(tid),
                    ev: e,
                    loc,
                    init: None,
                });
            }
            for (c, a, b) in &p.constraints {
                constraints.push((*c, a.shifted(off), b.shifted(off)));
            }
            regs.push(
                p.regs
                    .iter()
                    .map(|(r, v)| (r.clone(), v.shifted(off)))
                    .collect(),
            );
        }
        let n = evs.len();
        let mut on_loc = vec![0u128; locs.len()];
        for (i, e) in evs.iter().enumerate() {
            if let Some(l) = e.loc {
                on_loc[l] |= 1 << i;
            }
        }
        // Virtual addresses: operations through different aliases of one location do not
        // overlap (8.2: "Two memory operations are said to overlap when they specify the same
        // virtual address"); the initial write counts as every alias of its location.
        let mut same_vaddr = vec![0u128; n];
        for i in 0..n {
            for j in 0..n {
                let same = match (evs[i].vaddr(), evs[j].vaddr()) {
                    (Some(a), Some(b)) => {
                        evs[i].loc == evs[j].loc
                            && (a == b || evs[i].init.is_some() || evs[j].init.is_some())
                    }
                    _ => false,
                };
                if same {
                    same_vaddr[i] |= 1 << j;
                }
            }
        }
        let proxy_fences: Vec<(usize, FenceKind)> = (0..n)
            .filter_map(|i| match evs[i].ev.kind {
                Kind::Fence(k) if k.is_proxy() => Some((i, k)),
                _ => None,
            })
            .collect();
        let cta: Vec<Option<(i64, i64)>> = evs
            .iter()
            .map(|e| match e.thread.map(|k| t.threads[k].place) {
                Some(Placement::Gpu { gpu, cta, .. }) => Some((gpu, cta)),
                _ => None,
            })
            .collect();
        let mut po = Rel::new(n);
        for i in 0..n {
            for j in 0..n {
                let ordered = match (evs[i].thread, evs[j].thread) {
                    (None, Some(_)) => true,
                    (Some(a), Some(b)) => a == b && i < j,
                    _ => false,
                };
                if ordered {
                    po.add(i, j);
                }
            }
        }
        let place = |e: &Ev| e.thread.map(|k| t.threads[k].place);
        let mut ms = vec![0u128; n];
        for i in 0..n {
            for j in 0..n {
                let overlap =
                    evs[i].loc.is_none() || evs[j].loc.is_none() || same_vaddr[i] >> j & 1 == 1;
                if i != j
                    && overlap
                    && morally_strong(&evs[i], &evs[j], place(&evs[i]), place(&evs[j]))
                {
                    ms[i] |= 1 << j;
                }
            }
        }
        // Set per way the barriers complete (`with_phases`).
        let bar_sync = Rel::new(n);
        let (release, acquire) = patterns(&evs, &po, &same_vaddr);
        let mut sc_pairs = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                if evs[i].sc_fence() && evs[j].sc_fence() && ms[i] >> j & 1 == 1 {
                    sc_pairs.push((i, j));
                }
            }
        }
        let mut dep = Rel::new(n);
        for (a, b) in dep_pairs {
            dep.add(a, b);
        }
        let mut cliques = Vec::new();
        for &set in &on_loc {
            cliques.extend(relation::maximal_cliques(&ms, set));
        }
        Ok(Graph {
            evs,
            locs,
            init_values,
            on_loc,
            po,
            ms,
            bar_sync,
            release,
            acquire,
            sc_pairs,
            dep,
            constraints,
            regs,
            cliques,
            same_vaddr,
            proxy_fences,
            cta,
        })
    }

    /// The graph with the barrier synchronisation of `phases` (execution indices), and the
    /// results of its `bar.red` operations in the values and constraints that use them.
    pub(crate) fn with_phases(&self, phases: &Phases) -> Graph {
        let mut g = self.clone();
        for phase in &phases.done {
            for &x in phase {
                for &y in phase {
                    let waits = matches!(
                        g.evs[y].ev.kind,
                        Kind::Barrier { wait, .. } if wait != BarWait::Arrive
                    );
                    if x != y && waits {
                        g.bar_sync.add(x, y);
                    }
                }
            }
        }
        let reds = barrier::reductions(phases, &|e| match (
            &self.evs[e].ev.kind,
            &self.evs[e].ev.value,
        ) {
            (
                Kind::Barrier {
                    wait: BarWait::Red(op),
                    ..
                },
                Some(Expr::Const(p)),
            ) => Some((*op, *p != 0)),
            _ => None,
        });
        if !reds.is_empty() {
            let known = |v: usize| reds.get(&v).copied();
            for e in &mut g.evs {
                if matches!(e.ev.kind, Kind::Mem { .. }) {
                    e.ev.value = e.ev.value.as_ref().map(|v| v.subst(&known));
                }
            }
            for c in &mut g.constraints {
                *c = (c.0, c.1.subst(&known), c.2.subst(&known));
            }
            for regs in &mut g.regs {
                for v in regs.values_mut() {
                    *v = v.subst(&known);
                }
            }
        }
        g
    }

    /// Whether `a` and `b` are morally strong.
    pub fn is_ms(&self, a: usize, b: usize) -> bool {
        self.ms[a] >> b & 1 == 1
    }

    /// Whether `a` preceding `b` in base causality order (both memory operations on one
    /// location) puts them in proxy-preserved base causality order by rule 1 or 2 of 8.9.5
    /// alone: the same address through the generic proxy, or through one other proxy by
    /// threads of one CTA. The initial writes precede everything.
    pub fn proxy_preserved_directly(&self, a: usize, b: usize) -> bool {
        let (ea, eb) = (&self.evs[a], &self.evs[b]);
        if ea.init.is_some() || eb.init.is_some() {
            return true;
        }
        let same_address = self.same_vaddr[a] >> b & 1 == 1;
        same_address
            && ea.proxy() == eb.proxy()
            && (ea.proxy() == Proxy::Generic
                || (self.cta[a].is_some() && self.cta[a] == self.cta[b]))
    }

    /// Whether `a` preceding `b` in base causality order `base` (both memory operations on one
    /// location) puts them in proxy-preserved base causality order, as NVIDIA's formal model of
    /// mixed proxies (the Alloy model of NVlabs' `mixedproxy`, extending Lustig et al.'s PTX
    /// model) defines it: directly for one address through the generic proxy, or through one
    /// other proxy within one CTA; else along a base causality path that starts at `a` when `a`
    /// is generic, or at a proxy fence of `a`'s proxy executed in `a`'s CTA after `a`, and ends
    /// at `b` when `b` is generic, or at a proxy fence of `b`'s proxy executed in `b`'s CTA
    /// before `b` (a proxy fence only acts on the operations of its proxy in its own CTA), with
    /// a `fence.proxy.alias` between the two when `a` and `b` use different virtual addresses.
    /// The initial writes precede everything.
    pub fn proxy_preserved(&self, base: &Rel, a: usize, b: usize) -> bool {
        let (ea, eb) = (&self.evs[a], &self.evs[b]);
        if ea.init.is_some() || eb.init.is_some() {
            return true;
        }
        let same_address = self.same_vaddr[a] >> b & 1 == 1;
        let (pa, pb) = (ea.proxy(), eb.proxy());
        let same_cta = |x: usize, y: usize| self.cta[x].is_some() && self.cta[x] == self.cta[y];
        if same_address && pa == pb && (pa == Proxy::Generic || same_cta(a, b)) {
            return true;
        }
        let fences_for = |e: usize, p: Proxy| {
            self.proxy_fences
                .iter()
                .filter(move |&&(f, k)| k == FenceKind::Proxy(p) && same_cta(f, e))
                .map(|&(f, _)| f)
        };
        let starts: Vec<usize> = if pa == Proxy::Generic {
            vec![a]
        } else {
            fences_for(a, pa).filter(|&f| base.has(a, f)).collect()
        };
        let ends: Vec<usize> = if pb == Proxy::Generic {
            vec![b]
        } else {
            fences_for(b, pb).filter(|&f| base.has(f, b)).collect()
        };
        let alias_fences: Vec<usize> = self
            .proxy_fences
            .iter()
            .filter(|&&(_, k)| k == FenceKind::ProxyAlias)
            .map(|&(f, _)| f)
            .collect();
        starts.iter().any(|&s| {
            ends.iter().any(|&e| {
                if same_address {
                    (s == a && e == b) || base.has(s, e)
                } else {
                    alias_fences
                        .iter()
                        .any(|&x| base.has(s, x) && base.has(x, e))
                }
            })
        })
    }

    /// The kinds of proxy fence the two accesses involve (the checker decides with
    /// [`Graph::proxy_preserved`], which also says where each fence must be executed). Which
    /// proxy fences one of which (per entry) must lie on a base causality path from `a` to
    /// `b` for rule 3 of 8.9.5: `fence.proxy.alias` between generic accesses through different
    /// aliases, and `fence.proxy.KIND` for each other proxy KIND of the two (a texture read
    /// after a generic write needs `fence.proxy.texture`).
    pub fn proxy_fences_needed(&self, a: usize, b: usize) -> Vec<FenceKind> {
        let (pa, pb) = (self.evs[a].proxy(), self.evs[b].proxy());
        if pa == Proxy::Generic && pb == Proxy::Generic {
            return vec![FenceKind::ProxyAlias];
        }
        let mut kinds: Vec<FenceKind> = [pa, pb]
            .into_iter()
            .filter(|p| *p != Proxy::Generic)
            .map(FenceKind::Proxy)
            .collect();
        kinds.dedup();
        kinds
    }

    /// The writes to location `l`, the initial one first.
    pub fn writes_to(&self, l: usize) -> Vec<usize> {
        relation::bits(self.on_loc[l])
            .filter(|&i| self.evs[i].writes())
            .collect()
    }
}

/// Locations the condition mentions (they exist even if no thread touches them).
fn cond_locs(p: &Prop) -> Vec<String> {
    match p {
        Prop::True => vec![],
        Prop::Atom(_, a, b) => [a, b]
            .into_iter()
            .filter_map(|t| match t {
                Term::Loc(l) => Some(l.clone()),
                _ => None,
            })
            .collect(),
        Prop::Not(q) => cond_locs(q),
        Prop::And(a, b) | Prop::Or(a, b) => {
            let mut v = cond_locs(a);
            v.extend(cond_locs(b));
            v
        }
    }
}

/// PTX 8.7: same thread, or both strong with scopes including each other's thread; same (generic)
/// proxy; memory operations overlap completely (here: the same location). An initial write is
/// morally strong with every operation on its location.
fn morally_strong(a: &Ev, b: &Ev, pa: Option<Placement>, pb: Option<Placement>) -> bool {
    let (a_mem, b_mem) = (
        matches!(a.ev.kind, Kind::Mem { .. }),
        matches!(b.ev.kind, Kind::Mem { .. }),
    );
    if a_mem && b_mem && a.loc != b.loc {
        return false;
    }
    if matches!(a.ev.kind, Kind::Barrier { .. }) || matches!(b.ev.kind, Kind::Barrier { .. }) {
        return a.thread == b.thread;
    }
    if a.init.is_some() || b.init.is_some() {
        return a_mem && b_mem;
    }
    // 8.7, condition 2: "Both operations are performed via the same proxy."
    if a_mem && b_mem && a.proxy() != b.proxy() {
        return false;
    }
    if a.thread == b.thread {
        return true;
    }
    let (pa, pb) = (pa.unwrap(), pb.unwrap());
    a.strong()
        && b.strong()
        && pa.scope_includes(a.ev.scope, &pb)
        && pb.scope_includes(b.ev.scope, &pa)
}

/// The release patterns (first instruction, write) and acquire patterns (last instruction, read)
/// of PTX 8.8.
/// Pairs of (pattern end, memory operation of the pattern).
type Patterns = Vec<(usize, usize)>;

fn patterns(evs: &[Ev], po: &Rel, same_vaddr: &[u128]) -> (Patterns, Patterns) {
    let n = evs.len();
    let mut rel = Vec::new();
    let mut acq = Vec::new();
    let strong_write = |i: usize| evs[i].init.is_none() && evs[i].writes() && evs[i].strong();
    let strong_read = |i: usize| evs[i].reads() && evs[i].strong() && !evs[i].red();
    for f in 0..n {
        if evs[f].thread.is_none() {
            continue;
        }
        match (&evs[f].ev.kind, evs[f].sem()) {
            (Kind::Mem { .. }, Some(sem)) => {
                if sem.is_release() {
                    // (1) a release operation that writes; (2) followed by a strong write on M.
                    if evs[f].writes() {
                        rel.push((f, f));
                    }
                    for w in 0..n {
                        if po.has(f, w) && same_vaddr[f] >> w & 1 == 1 && strong_write(w) {
                            rel.push((f, w));
                        }
                    }
                }
                if sem.is_acquire() && !evs[f].red() {
                    // (1) an acquire operation that reads; (2) preceded by a strong read on M.
                    if evs[f].reads() {
                        acq.push((f, f));
                    }
                    for (r, e) in evs.iter().enumerate() {
                        if po.has(r, f)
                            && e.thread.is_some()
                            && same_vaddr[f] >> r & 1 == 1
                            && strong_read(r)
                        {
                            acq.push((f, r));
                        }
                    }
                }
            }
            (Kind::Fence(k), _) => {
                // (3) a release fence followed by a strong write; a strong read followed by an
                // acquire fence.
                for (x, e) in evs.iter().enumerate() {
                    if k.releases() && po.has(f, x) && strong_write(x) {
                        rel.push((f, x));
                    }
                    if k.acquires() && po.has(x, f) && e.thread.is_some() && strong_read(x) {
                        acq.push((f, x));
                    }
                }
            }
            _ => {}
        }
    }
    (rel, acq)
}
