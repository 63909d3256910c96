//! Candidate executions of a litmus test — one path per thread, the way its barriers complete,
//! reads-from, Fence-SC order and coherence order — and the consistent ones among them.
//!
//! *Candidates* are counted without pruning by the axioms: every combination of paths, barrier
//! phases and reads-from whose values do not decide a branch condition of the paths false
//! (values out of thin air decide nothing), times every Fence-SC order and every coherence
//! order. Coherence order is partial (8.9.6): two writes are ordered unless they are in a
//! data-race, so the coherence orders of a candidate are those of its reads-from and Fence-SC
//! choice (candidates whose reads-from an axiom rejects outright count every total order).
//! The consistent ones are searched with pruning that only skips choices an axiom rejects
//! outright: a read from a write later in its own thread (Causality), two writes of one thread
//! against program order in coherence (Coherence), and candidates with no values (No-Thin-Air).
//!
//! Liveness: when the arrivals of an execution can group into phases so that some thread
//! waits forever (a barrier that never fills, or barriers waited for in a crossing order), or
//! a thread loops past the unrolling bound while its last iteration reads the final value of
//! every location it reads (it can never read another: fairness makes every write eventually
//! visible, and there is none left), the execution is a *deadlock*: its threads' events up to
//! where they wait are checked for consistency, and a consistent one is reported, not counted
//! among the final states.

use super::barrier::{self, Phases};
use super::domain;
use super::events::{self, BarrierValues, Kind, Path};
use super::execution::{self, Hang};
use super::graph::Graph;
pub use super::outcome::Outcome;
use super::outcome::advance;
use super::program::*;
use super::races::Site;
use std::collections::{BTreeMap, BTreeSet};

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
/// assert_eq!(o.verdict(), "No");
/// ```
pub fn decide(t: &Litmus) -> Result<Outcome, String> {
    let mut all_paths = Vec::new();
    let mut needs_values = false;
    for th in &t.threads {
        all_paths.push(events::paths_with(
            th,
            &t.init_regs,
            BarrierValues::Placeholder,
            &mut needs_values,
        )?);
    }
    if needs_values {
        // A barrier id or thread count from a loaded value: one path per value it may take,
        // the reads-from choice of each execution deciding which.
        let values = domain::read_values(t, &all_paths).ok_or_else(|| {
            format!(
                "a barrier's id or thread count depends on loaded values that may take more \
                 than {} values (not modelled)",
                domain::MAX_DOMAIN
            )
        })?;
        all_paths = t
            .threads
            .iter()
            .map(|th| {
                events::paths_with(th, &t.init_regs, BarrierValues::Domain(&values), &mut false)
            })
            .collect::<Result<_, _>>()?;
    }
    let mut out = Outcome {
        ok: false,
        candidates: 0,
        consistent: 0,
        satisfying: 0,
        violating: 0,
        states: BTreeSet::new(),
        races: BTreeSet::new(),
        races_in_every: None,
        rejected_by: BTreeMap::new(),
        deadlocked: 0,
        deadlocks: BTreeSet::new(),
    };
    let ctas: Vec<Option<(i64, i64)>> = t.threads.iter().map(|th| th.place.cta()).collect();
    let mut pick = vec![0usize; all_paths.len()];
    if all_paths.iter().all(|p| !p.is_empty()) {
        loop {
            let chosen: Vec<&Path> = pick.iter().zip(&all_paths).map(|(&k, p)| &p[k]).collect();
            let g = Graph::build(t, &chosen)?;
            let per_thread: Vec<Vec<(usize, &Kind)>> = (0..chosen.len())
                .map(|k| {
                    (0..g.evs.len())
                        .filter(|&i| g.evs[i].thread == Some(k))
                        .map(|i| (i, &g.evs[i].ev.kind))
                        .collect()
                })
                .collect();
            let spinning = chosen.iter().any(|p| p.spin.is_some());
            for p in barrier::phasings(&per_thread, &ctas)? {
                if p.stuck.iter().all(Option::is_none) && !spinning {
                    execution::explore(t, &g.with_phases(&p), &mut out, None);
                } else {
                    hanging(t, &chosen, &g, &p, &mut out)?;
                }
            }
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
        Quantifier::Forall => out.violating == 0,
    };
    Ok(out)
}

/// Explores the executions in which the barriers complete as `p` says and some threads wait
/// forever — at a barrier (their events up to it), or in a loop whose last iteration reads
/// only final values (a write is eventually visible to a thread that keeps reading, so a loop
/// that still reads an older value would go on and exit; one that reads the last value of
/// each location it reads can never see another).
fn hanging(
    t: &Litmus,
    chosen: &[&Path],
    g: &Graph,
    p: &Phases,
    out: &mut Outcome,
) -> Result<(), String> {
    // Execution index → (thread, index in its path), in the full graph.
    let local = |e: usize| {
        let th = g.evs[e].thread.expect("a barrier of a thread");
        let first = (0..g.evs.len())
            .find(|&i| g.evs[i].thread == Some(th))
            .unwrap();
        (th, e - first)
    };
    let cut: Vec<Path> = chosen
        .iter()
        .enumerate()
        .map(|(k, path)| match p.stuck[k] {
            Some(e) => path.prefix(local(e).1),
            None => (*path).clone(),
        })
        .collect();
    let refs: Vec<&Path> = cut.iter().collect();
    let g2 = Graph::build(t, &refs)?;
    let first2 = |th: usize| (0..g2.evs.len()).find(|&i| g2.evs[i].thread == Some(th));
    let mut done = Vec::new();
    for phase in &p.done {
        let mapped: Option<Vec<usize>> = phase
            .iter()
            .map(|&e| {
                let (th, i) = local(e);
                first2(th)
                    .map(|f| f + i)
                    .filter(|&x| x < g2.evs.len() && g2.evs[x].thread == Some(th))
            })
            .collect();
        done.extend(mapped);
    }
    let phases = Phases {
        done,
        stuck: p.stuck.clone(),
    };
    let mut hang = Hang::default();
    for (th, e) in p.stuck.iter().enumerate() {
        if let Some(e) = e {
            hang.sites.push(Site {
                thread: th,
                line: g.evs[*e].ev.line,
                text: g.evs[*e].ev.text.clone(),
            });
        }
    }
    for (th, path) in cut.iter().enumerate() {
        if let Some(spin) = &path.spin {
            hang.sites.push(Site {
                thread: th,
                line: spin.line,
                text: spin.text.clone(),
            });
            let f = first2(th).unwrap_or(0);
            hang.spin_reads.push(
                (spin.from..path.events.len())
                    .map(|i| f + i)
                    .filter(|&x| g2.evs[x].reads())
                    .collect(),
            );
            hang.spin_regs.push(
                spin.regs
                    .iter()
                    .map(|(a, b)| (a.shifted(f), b.shifted(f)))
                    .collect(),
            );
        }
    }
    execution::explore(t, &g2.with_phases(&phases), out, Some(&hang));
    Ok(())
}
