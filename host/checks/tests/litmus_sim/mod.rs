//! The differential check of the simulator against the litmus checker (issue 30, item 2): a
//! litmus test runs as a kernel ([`translate`]) over many schedules of `ptx-sim`, and what the
//! simulator sees is compared with what `ptx-litmus` decides:
//!
//! * every final state a schedule reaches must be one the checker allows;
//! * every race a schedule reports must be a race of the checker;
//! * every race the checker finds in *every* consistent execution with a final state a schedule
//!   reached (`Outcome::races_in_every` of the test pinned to that state by a `filter`) must be
//!   reported by that schedule — that race, or another of one of its two instructions, since
//!   the detector reports one race per access;
//! * a hang or a barrier divergence must be an execution the checker finds deadlocking.
//!
//! Races of the checker that no schedule showed otherwise are coverage, printed, not
//! disagreement; races of runs that then deadlock are printed too (the checker reports no races
//! of deadlocking executions).

mod host;
mod layout;
pub mod translate;

use ptx_litmus::enumerate::{Outcome, decide};
use ptx_litmus::program::{Cmp, Litmus, Prop, Term};
use ptx_sim::{Arg, FindingKind, Launch, Simulator};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What one test showed.
pub struct Report {
    /// What the simulator did that the checker does not allow.
    pub disagreements: Vec<String>,
    /// Races of the checker that no schedule showed.
    pub unseen_races: Vec<String>,
    /// Races of runs that then hang or diverge, which the checker does not report (it reports no
    /// races of the executions that deadlock).
    pub races_before_deadlock: Vec<String>,
    /// Distinct final states the schedules reached.
    pub states_seen: usize,
}

/// A racing pair as (thread, line) sites, the lower first.
type Pair = ((usize, usize), (usize, usize));

fn pair(a: (usize, usize), b: (usize, usize)) -> Pair {
    if a <= b { (a, b) } else { (b, a) }
}

/// The PTX lines a race finding names (`… at PTX line N …`), in order.
fn ptx_lines(text: &str) -> Vec<u32> {
    text.match_indices("PTX line ")
        .filter_map(|(at, m)| {
            let digits: String = text[at + m.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        })
        .collect()
}

fn shown(s: &BTreeMap<String, i64>) -> String {
    let v: Vec<String> = s.iter().map(|(n, v)| format!("{n}={v}")).collect();
    format!("{{{}}}", v.join(", "))
}

/// The host thread a race finding names (`host thread N`), if any.
fn host_of(text: &str) -> Option<usize> {
    let at = text.find("host thread ")? + "host thread ".len();
    let digits: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

fn term(t: &Term, s: &BTreeMap<String, i64>) -> i64 {
    match t {
        Term::Const(c) => *c,
        Term::Reg(k, r) => s.get(&format!("P{k}:{r}")).copied().unwrap_or(0),
        Term::Loc(l) => s.get(l).copied().unwrap_or(0),
    }
}

/// Evaluates a proposition (the test's `filter`) over a final state.
fn holds(p: &Prop, s: &BTreeMap<String, i64>) -> bool {
    match p {
        Prop::True => true,
        Prop::Atom(c, a, b) => c.holds(term(a, s), term(b, s)),
        Prop::Not(q) => !holds(q, s),
        Prop::And(a, b) => holds(a, s) && holds(b, s),
        Prop::Or(a, b) => holds(a, s) || holds(b, s),
    }
}

/// Whether the checker allows final state `seen` (every register and location): some final
/// state of the checker agrees with it on every name it gives, and the names it leaves out (a
/// register its path does not write) keep their initial values.
fn allowed(outcome: &Outcome, seen: &BTreeMap<String, i64>, init: &BTreeMap<String, i64>) -> bool {
    outcome.states.iter().any(|state| {
        let named: BTreeMap<&str, i64> = state.iter().map(|(n, v)| (n.as_str(), *v)).collect();
        named.iter().all(|(n, v)| seen.get(*n) == Some(v))
            && seen
                .iter()
                .all(|(n, v)| named.contains_key(n.as_str()) || init.get(n) == Some(v))
    })
}

/// Runs test `t` over `seeds` schedules (seeds 1..=seeds), its locations in buffers of their
/// own or `packed` in one, and compares; `Err` says why the test
/// cannot be translated or run (a skip, counted by the caller).
pub fn check(t: &Litmus, seeds: u64, packed: bool) -> Result<Report, String> {
    let outcome = decide(t).map_err(|e| format!("the checker refuses it: {e}"))?;
    let k = translate::translate(t, packed)?;
    let sim = Simulator::new(&k.ptx).map_err(|e| format!("the simulator refuses it: {e}"))?;
    let kernel = sim
        .kernel("litmus")
        .map_err(|e| format!("the simulator refuses it: {e}"))?;
    let checker_races: BTreeSet<Pair> = outcome
        .races
        .iter()
        .map(|r| pair((r.a.thread, r.a.line), (r.b.thread, r.b.line)))
        .collect();
    let site_text: BTreeMap<(usize, usize), String> = t
        .threads
        .iter()
        .flat_map(|th| {
            th.code.iter().map(move |l| {
                (
                    (th.id, l.line),
                    format!("P{}:{} `{}`", th.id, l.line, l.text),
                )
            })
        })
        .collect();
    let show = |p: &Pair| {
        format!(
            "{} and {}",
            site_text
                .get(&p.0)
                .cloned()
                .unwrap_or_else(|| format!("P{}: (a host access)", p.0.0)),
            site_text
                .get(&p.1)
                .cloned()
                .unwrap_or_else(|| format!("P{}: (a host access)", p.1.0))
        )
    };
    let mut init = BTreeMap::new();
    for (th, regs) in k.registers.iter().enumerate() {
        for (r, v) in regs {
            init.insert(format!("P{th}:{r}"), *v);
        }
    }
    for (l, v) in &k.locations {
        init.insert(l.clone(), *v);
    }
    let slots: usize = k.registers.iter().map(Vec::len).sum();
    let mut disagreements = BTreeSet::new();
    let mut sim_races = BTreeSet::new();
    let mut stopped_races = BTreeSet::new();
    // Final state → the sets of races the schedules that reached it reported.
    let mut states: BTreeMap<BTreeMap<String, i64>, BTreeSet<BTreeSet<Pair>>> = BTreeMap::new();
    for seed in 1..=seeds {
        // The locations are the launch's buffers (host threads reach those), the kernel given
        // their addresses; the output buffer comes after them.
        let initial = k.locations.iter().map(|(_, v)| (*v as i32).to_le_bytes());
        let buffers: Vec<Vec<u8>> = if k.packed && !k.locations.is_empty() {
            vec![initial.flatten().collect()]
        } else {
            initial.map(|b| b.to_vec()).collect()
        };
        let out_buffer = buffers.len();
        let mut args = vec![Arg::Buffer(vec![0; 4 * slots.max(1)])];
        args.extend((0..buffers.len()).map(|b| Arg::Ptr(b, 0)));
        let mut launch = Launch::new([k.blocks, 1, 1], [k.threads_per_block, 1, 1], args);
        launch.buffers = buffers;
        let at: HashMap<String, (usize, u64)> = k
            .locations
            .iter()
            .enumerate()
            .map(|(i, (l, _))| (l.clone(), if k.packed { (0, 4 * i as u64) } else { (i, 0) }))
            .collect();
        let (hosts, finals): (Vec<_>, Vec<_>) = k
            .hosts
            .iter()
            .map(|&h| host::thread(&t.threads[h], &k.registers[h], at.clone()))
            .unzip();
        launch.cluster = k.cluster.map(|c| [c, 1, 1]);
        launch.seed = seed;
        launch.hang_bound = 5_000;
        let out = kernel
            .launch(&launch, hosts)
            .map_err(|e| format!("the simulator refuses the launch: {e}"))?;
        let mut stopped = false;
        let mut races_here = BTreeSet::new();
        for f in &out.findings {
            match f.kind {
                FindingKind::Race => {
                    let sites: Vec<(usize, usize)> = ptx_lines(&f.text)
                        .iter()
                        .filter_map(|l| k.lines.get(l).copied())
                        .collect();
                    match (&sites[..], host_of(&f.text)) {
                        ([a, b], None) => {
                            races_here.insert(pair(*a, *b));
                        }
                        // A host access is not named by line: the checker's race of this
                        // instruction with some access of that host thread, if it has one.
                        ([a], Some(h)) => {
                            let host = k.hosts[h];
                            let found = checker_races.iter().find(|p| {
                                (p.0 == *a && p.1.0 == host) || (p.1 == *a && p.0.0 == host)
                            });
                            races_here.insert(found.copied().unwrap_or(pair(*a, (host, 0))));
                        }
                        _ => {
                            disagreements.insert(format!("a race outside the test's code: {f}"));
                        }
                    }
                }
                FindingKind::Hang | FindingKind::Divergence => {
                    stopped = true;
                    if outcome.deadlocked == 0 {
                        disagreements.insert(format!(
                            "the simulator stops where the checker finds no deadlock: {f}"
                        ));
                    }
                }
                FindingKind::Fault => {
                    stopped = true;
                    disagreements.insert(format!("{f}"));
                }
            }
        }
        if stopped {
            // No final state, and the checker reports no races of the executions that
            // deadlock: the races of a run stopped by a hang or a divergence are printed, not
            // compared.
            stopped_races.extend(races_here.difference(&checker_races).copied());
            continue;
        }
        let mut state = BTreeMap::new();
        let mut slot = 0;
        for (th, regs) in k.registers.iter().enumerate() {
            let host = k.hosts.iter().position(|&h| h == th);
            for (r, _) in regs {
                let v = match host {
                    Some(h) => finals[h]
                        .lock()
                        .unwrap()
                        .as_ref()
                        .expect("a host thread that ended")[r],
                    None => {
                        let b = &out.buffers[out_buffer][4 * slot..4 * slot + 4];
                        i64::from(i32::from_le_bytes(b.try_into().unwrap()))
                    }
                };
                state.insert(format!("P{th}:{r}"), v);
                slot += 1;
            }
        }
        for (l, _) in &k.locations {
            let (buffer, offset) = at[l];
            let b = &out.buffers[buffer][offset as usize..offset as usize + 4];
            state.insert(
                l.clone(),
                i64::from(i32::from_le_bytes(b.try_into().unwrap())),
            );
        }
        // The checker leaves out the executions the test's `filter` rejects, races and all.
        if t.filter.as_ref().is_none_or(|f| holds(f, &state)) {
            sim_races.extend(races_here.iter().copied());
            states.entry(state).or_default().insert(races_here);
        }
    }
    for s in states.keys() {
        if !allowed(&outcome, s, &init) {
            disagreements.insert(format!(
                "final state {} is not allowed by the checker",
                shown(s)
            ));
        }
    }
    for r in sim_races.difference(&checker_races) {
        disagreements.insert(format!("race {} is not a race of the checker", show(r)));
    }
    // A race of the checker no schedule showed is coverage, unless every consistent execution
    // with a final state the simulator reached has the race: each schedule that reached it ran
    // one of them, and must report it, or another race of one of its two instructions (the
    // detector reports one race per access, against the latest access of each thread).
    let reports = |reported: &BTreeSet<Pair>, p: &Pair| {
        reported
            .iter()
            .any(|q| [q.0, q.1].iter().any(|x| *x == p.0 || *x == p.1))
    };
    for (s, schedules) in &states {
        // The checker is asked only where some schedule left out one of its races.
        if schedules.iter().all(|r| checker_races.is_subset(r)) {
            continue;
        }
        let mut pinned = t.clone();
        let mut prop = t.filter.clone().unwrap_or(Prop::True);
        for (n, v) in s {
            let name = match n.split_once(':') {
                Some((th, r)) => Term::Reg(th[1..].parse().unwrap(), r.to_string()),
                None => Term::Loc(n.clone()),
            };
            let eq = Prop::Atom(Cmp::Eq, name, Term::Const(*v));
            prop = Prop::And(Box::new(prop), Box::new(eq));
        }
        pinned.filter = Some(prop);
        let Ok(pinned) = decide(&pinned) else {
            continue;
        };
        for r in pinned.races_in_every.iter().flatten() {
            let p = pair((r.a.thread, r.a.line), (r.b.thread, r.b.line));
            if !schedules.iter().all(|reported| reports(reported, &p)) {
                disagreements.insert(format!(
                    "race {} of every consistent execution with final state {} is missing from a schedule that reached it (no race of either instruction reported)",
                    show(&p),
                    shown(s)
                ));
            }
        }
    }
    Ok(Report {
        disagreements: disagreements.into_iter().collect(),
        unseen_races: checker_races.difference(&sim_races).map(&show).collect(),
        races_before_deadlock: stopped_races.iter().map(&show).collect(),
        states_seen: states.len(),
    })
}
