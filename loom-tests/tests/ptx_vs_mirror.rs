//! The mirror's documented limits, measured: every litmus test of the project (the reference
//! texts' in host/litmus/reference and the classic shapes in host/litmus/classic) is run on the
//! loom mirror by a small interpreter, and the outcomes loom explores are compared with the
//! outcomes the PTX axioms allow (`scoped_atomics_host::litmus`). The table is written to
//! `target/litmus/ptx-vs-mirror.md`.
//!
//! Mapping: `ld`/`st`/`atom`/`red` become loads, stores, read-modify-writes and reductions of an
//! `Atomic<i64, System>` viewed with the instruction's scope (`.cta` → `Block`, `.cluster` →
//! `Cluster`, `.gpu` → `Device`, `.sys` → `System`) and ordering; weak accesses become relaxed
//! system-scope atomics (the mirror has no weak atomics: plain data that races is reported as a
//! race instead of producing an outcome); fences become `fence::<S>(SeqCst | AcqRel | Acquire |
//! Release)`; `atom.inc` becomes `fetch_add(1)` (the tests' bounds are never reached). Loops are
//! cut after the checker's unrolling bound, and a cut execution gives no outcome, as in the
//! checker. Outcomes are projected on the registers and locations the condition names, as herd
//! lists them.
#![cfg(loom)]

use loom::sync::Arc;
use loom_tests::builder;
use scoped_atomics::model::{Position, set_position, spawn_in};
use scoped_atomics::{Atomic, Block, Cluster, Device, Ordering, System, fence};
use scoped_atomics_host::litmus::enumerate::decide;
use scoped_atomics_host::litmus::events::UNROLL;
use scoped_atomics_host::litmus::parse::parse;
use scoped_atomics_host::litmus::program::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

type State = Vec<(String, i64)>;
type Mem = Arc<BTreeMap<String, Arc<Atomic<i64, System>>>>;

fn ordering(sem: Sem) -> Ordering {
    match sem {
        Sem::Weak | Sem::Relaxed => Ordering::Relaxed,
        Sem::Acquire => Ordering::Acquire,
        Sem::Release => Ordering::Release,
        Sem::AcqRel => Ordering::AcqRel,
    }
}

/// Runs `$body` with `$r` the location viewed at the scope `$s`.
macro_rules! scoped {
    ($a:expr, $s:expr, |$r:ident| $body:expr) => {
        match $s {
            Scope::Cta => {
                let $r = $a.with_scope::<Block>();
                $body
            }
            Scope::Cluster => {
                let $r = $a.with_scope::<Cluster>();
                $body
            }
            Scope::Gpu => {
                let $r = $a.with_scope::<Device>();
                $body
            }
            Scope::Sys => {
                let $r = $a.with_scope::<System>();
                $body
            }
        }
    };
}

fn scoped_fence(scope: Scope, order: Ordering) {
    match scope {
        Scope::Cta => fence::<Block>(order),
        Scope::Cluster => fence::<Cluster>(order),
        Scope::Gpu => fence::<Device>(order),
        Scope::Sys => fence::<System>(order),
    }
}

/// Why a test cannot run on the mirror, if it cannot.
fn unsupported(t: &Litmus) -> Option<String> {
    for th in &t.threads {
        for l in &th.code {
            match &l.instr {
                Instr::Bar { .. } => return Some("bar.cta.sync".into()),
                Instr::Atom { dst: None, sem, .. } if sem.is_acquire() => {
                    return Some(format!("`{}`: no acquire reduction", l.text));
                }
                Instr::Atom { op: RmwOp::Dec, .. } => return Some("atom.dec".into()),
                Instr::Ld { proxy, .. } | Instr::St { proxy, .. } | Instr::Atom { proxy, .. }
                    if *proxy != Proxy::Generic =>
                {
                    return Some(format!(
                        "`{}`: the mirror has only the generic proxy",
                        l.text
                    ));
                }
                _ => {}
            }
        }
    }
    None
}

/// One thread of the test on the mirror; `None` when a loop ran past the bound.
fn run_thread(
    th: &Thread,
    mem: &Mem,
    init: &BTreeMap<String, i64>,
) -> Option<BTreeMap<String, i64>> {
    let mut regs = init.clone();
    let labels = th.labels();
    let mut visits: HashMap<usize, usize> = HashMap::new();
    let mut pc = 0;
    let val = |regs: &BTreeMap<String, i64>, o: &Operand| match o {
        Operand::Imm(v) => *v,
        Operand::Reg(r) => regs.get(r).copied().unwrap_or(0),
    };
    while let Some(line) = th.code.get(pc) {
        pc += 1;
        match &line.instr {
            Instr::Label(_) => {
                let n = visits.entry(pc - 1).or_insert(0);
                *n += 1;
                if *n > UNROLL {
                    return None;
                }
            }
            Instr::Ld {
                sem,
                scope,
                dst,
                loc,
                ..
            } => {
                let s = if *sem == Sem::Weak {
                    Scope::Sys
                } else {
                    *scope
                };
                let v = scoped!(mem[loc], s, |a| a.load(ordering(*sem)));
                regs.insert(dst.clone(), v);
            }
            Instr::St {
                sem,
                scope,
                loc,
                val: v,
                ..
            } => {
                let s = if *sem == Sem::Weak {
                    Scope::Sys
                } else {
                    *scope
                };
                let x = val(&regs, v);
                scoped!(mem[loc], s, |a| a.store(x, ordering(*sem)));
            }
            Instr::Atom {
                sem,
                scope,
                op,
                dst,
                loc,
                a,
                b,
                ..
            } => {
                let (x, o) = (val(&regs, a), ordering(*sem));
                let old = if dst.is_none() {
                    scoped!(mem[loc], *scope, |r| match op {
                        RmwOp::Add | RmwOp::Inc => r.add(if *op == RmwOp::Inc { 1 } else { x }, o),
                        RmwOp::Sub => r.sub(x, o),
                        RmwOp::And => r.and(x, o),
                        RmwOp::Or => r.or(x, o),
                        RmwOp::Xor => r.xor(x, o),
                        RmwOp::Min => r.min(x, o),
                        RmwOp::Max => r.max(x, o),
                        // `mul`/`div` (Dat3M's forms) have no `scoped_atomics` operation and no
                        // classic shape uses them.
                        RmwOp::Exch | RmwOp::Cas | RmwOp::Dec | RmwOp::Mul | RmwOp::Div => {
                            unreachable!()
                        }
                    });
                    0
                } else {
                    scoped!(mem[loc], *scope, |r| match op {
                        RmwOp::Add => r.fetch_add(x, o),
                        RmwOp::Inc => r.fetch_add(1, o),
                        RmwOp::Sub => r.fetch_sub(x, o),
                        RmwOp::And => r.fetch_and(x, o),
                        RmwOp::Or => r.fetch_or(x, o),
                        RmwOp::Xor => r.fetch_xor(x, o),
                        RmwOp::Min => r.fetch_min(x, o),
                        RmwOp::Max => r.fetch_max(x, o),
                        RmwOp::Exch => r.swap(x, o),
                        RmwOp::Cas => {
                            let fail = match o {
                                Ordering::AcqRel => Ordering::Acquire,
                                Ordering::Release => Ordering::Relaxed,
                                other => other,
                            };
                            let new = val(&regs, b.as_ref().unwrap());
                            match r.compare_exchange(x, new, o, fail) {
                                Ok(v) | Err(v) => v,
                            }
                        }
                        RmwOp::Dec | RmwOp::Mul | RmwOp::Div => unreachable!(),
                    })
                };
                if let Some(d) = dst {
                    regs.insert(d.clone(), old);
                }
            }
            Instr::Fence { kind, scope } => {
                let o = match kind {
                    FenceKind::Sc => Ordering::SeqCst,
                    FenceKind::AcqRel => Ordering::AcqRel,
                    FenceKind::Acquire => Ordering::Acquire,
                    FenceKind::Release => Ordering::Release,
                    // A proxy fence orders nothing between generic accesses, the only ones the
                    // classic shapes make.
                    FenceKind::ProxyAlias | FenceKind::Proxy(_) => continue,
                };
                scoped_fence(*scope, o);
            }
            Instr::Alu { op, dst, a, b } => {
                let v = op.apply(val(&regs, a), val(&regs, b));
                regs.insert(dst.clone(), v);
            }
            Instr::Branch { cond, target } => {
                let taken = match cond {
                    None => true,
                    Some((c, a, b)) => c.holds(val(&regs, a), val(&regs, b)),
                };
                if taken {
                    pc = labels[target.as_str()];
                }
            }
            Instr::Bar { .. } => unreachable!("refused by `unsupported`"),
        }
    }
    Some(regs)
}

fn position(p: Placement) -> Position {
    match p {
        Placement::Host => Position::host(),
        Placement::Gpu { gpu, cluster, cta } => {
            let pos = Position::gpu(gpu as u32, cta as u32);
            // A CTA without a cluster is a cluster of its own; numbered apart from given ones.
            pos.in_cluster(cluster.map_or(1000 + cta as u32, |k| k as u32))
        }
    }
}

/// The names the condition reads.
fn cond_keys(p: &Prop, out: &mut BTreeSet<String>) {
    match p {
        Prop::True => {}
        Prop::Atom(_, a, b) => {
            for t in [a, b] {
                match t {
                    Term::Reg(k, r) => {
                        out.insert(format!("P{k}:{r}"));
                    }
                    Term::Loc(l) => {
                        out.insert(l.clone());
                    }
                    Term::Const(_) => {}
                }
            }
        }
        Prop::Not(q) => cond_keys(q, out),
        Prop::And(a, b) | Prop::Or(a, b) => {
            cond_keys(a, out);
            cond_keys(b, out);
        }
    }
}

fn project(s: &[(String, i64)], keys: &BTreeSet<String>) -> State {
    keys.iter()
        .map(|k| {
            (
                k.clone(),
                s.iter().find(|(n, _)| n == k).map_or(0, |(_, v)| *v),
            )
        })
        .collect()
}

/// The outcomes the mirror explores, or the message of the report it fails with.
fn mirror(t: &Litmus, keys: &BTreeSet<String>) -> Result<BTreeSet<State>, String> {
    let t = std::sync::Arc::new(t.clone());
    let keys = keys.clone();
    // Four-thread tests (IRIW) at preemption bound 1: at the suite's bound 3 each takes about
    // 90 s; the weak outcomes come from loom's choice of store to read, not from preemption.
    let mut b = builder();
    if t.threads.len() > 3 {
        b.preemption_bound = Some(1);
    }
    let seen = std::sync::Arc::new(std::sync::Mutex::new(BTreeSet::new()));
    let sink = seen.clone();
    let run = catch_unwind(AssertUnwindSafe(|| {
        b.check(move || {
            set_position(Position::host());
            let mut locs = BTreeMap::new();
            let mut names: BTreeSet<String> = t.init_mem.keys().cloned().collect();
            for th in &t.threads {
                for l in &th.code {
                    match &l.instr {
                        Instr::Ld { loc, .. } | Instr::St { loc, .. } | Instr::Atom { loc, .. } => {
                            names.insert(loc.clone());
                        }
                        _ => {}
                    }
                }
            }
            names.extend(keys.iter().filter(|k| !k.contains(':')).cloned());
            for n in names {
                let v = t.init_mem.get(&n).copied().unwrap_or(0);
                locs.insert(n, Arc::new(Atomic::<i64, System>::new(v)));
            }
            let mem: Mem = Arc::new(locs);
            let handles: Vec<_> = t
                .threads
                .iter()
                .map(|th| {
                    let (mem, th) = (mem.clone(), th.clone());
                    let init: BTreeMap<String, i64> = t
                        .init_regs
                        .iter()
                        .filter(|((k, _), _)| *k == th.id)
                        .map(|((_, r), v)| (r.clone(), *v))
                        .collect();
                    spawn_in(position(th.place), move || run_thread(&th, &mem, &init))
                })
                .collect();
            let mut state = Vec::new();
            let mut cut = false;
            for (k, h) in handles.into_iter().enumerate() {
                match h.join().unwrap() {
                    Some(regs) => {
                        state.extend(regs.into_iter().map(|(r, v)| (format!("P{k}:{r}"), v)))
                    }
                    None => cut = true,
                }
            }
            for (n, a) in mem.iter() {
                state.push((n.clone(), a.load(Ordering::Relaxed)));
            }
            if !cut {
                sink.lock().unwrap().insert(project(&state, &keys));
            }
        })
    }));
    match run {
        Ok(()) => Ok(std::mem::take(&mut *seen.lock().unwrap())),
        Err(p) => Err(p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()),
    }
}

fn show(set: &BTreeSet<State>) -> String {
    let one = |s: &State| {
        s.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    set.iter()
        .map(|s| format!("`{}`", one(s)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/litmus");
    let mut v = Vec::new();
    for dir in ["reference", "classic"] {
        let mut d: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        d.sort();
        v.extend(
            d.into_iter()
                .filter(|p| p.extension().is_some_and(|x| x == "litmus")),
        );
    }
    v
}

/// Where the mirror does not explore exactly what PTX allows, and why. The comparison must find
/// exactly these: if it finds another, the mirror (or loom) changed and the docs must follow.
const EXPECTED: &[(&str, Class, &str)] = &[
    (
        "LB+rlx.gpu-2cta",
        Class::Fewer,
        "loom has no load buffering",
    ),
    (
        "CoRR+weak",
        Class::Fewer,
        "weak accesses run as relaxed .sys atomics (the mirror has no weak atomics)",
    ),
    (
        "CoRW+weak",
        Class::Fewer,
        "weak accesses run as relaxed .sys atomics (the mirror has no weak atomics)",
    ),
    (
        "CoWR+weak",
        Class::Fewer,
        "weak accesses run as relaxed .sys atomics (the mirror has no weak atomics); the PTX \
         model leaves the two racing st.weak unrelated in coherence order (8.9.6)",
    ),
    (
        "CoWR-alias",
        Class::More,
        "the mirror has no virtual aliases: the test's two names of one location are two \
         locations to it, where PTX orders them through fence.proxy.alias",
    ),
    (
        "SB+fence.sc.cta-2cta",
        Class::Fewer,
        "the mirror's SeqCst fences are ordered globally, whatever their scope",
    ),
    (
        "SB+fence.sc.gpu+fence.sc.cta-2cta",
        Class::Fewer,
        "the mirror's SeqCst fences are ordered globally, whatever their scope",
    ),
    (
        "2+2W+fence.sc.cta-2cta",
        Class::Fewer,
        "the mirror's SeqCst fences are ordered globally, whatever their scope",
    ),
    (
        "IRIW+fence.sc.cta",
        Class::Fewer,
        "the mirror's SeqCst fences are ordered globally, whatever their scope",
    ),
    (
        "ReleasePattern2",
        Class::More,
        "C++20 release sequences no longer contain later stores of the releasing thread; PTX release pattern (2) does",
    ),
];

/// How the mirror's outcomes compare with PTX's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// The same set.
    Same,
    /// A strict subset: outcomes PTX allows that the mirror never produces.
    Fewer,
    /// Outcomes PTX forbids that the mirror produces (the Rust/C++ model of the program is weaker).
    More,
    /// The mirror reports a scope race (or a synchronisation PTX does not have) instead.
    Reported,
    /// Not expressible on the mirror.
    NotRun,
}

/// The comparison; the table goes to target/litmus/ptx-vs-mirror.md. Each row: the outcomes PTX
/// allows (projected on the condition's registers and locations), the number the mirror explores
/// or the report it fails with, and the difference.
#[test]
fn mirror_outcomes_against_the_ptx_axioms() {
    let mut table =
        String::from("| test | PTX allows | mirror explores | difference |\n|---|--:|---|---|\n");
    let mut found: Vec<(String, Class)> = Vec::new();
    let mut classes = Vec::new();
    for f in files() {
        let text = std::fs::read_to_string(&f).unwrap();
        let t = parse(&f.display().to_string(), &text).unwrap();
        let mut keys = BTreeSet::new();
        cond_keys(&t.prop, &mut keys);
        let ptx: BTreeSet<State> = decide(&t)
            .unwrap()
            .states
            .iter()
            .map(|s| project(s, &keys))
            .collect();
        let (class, shown, diff) = match unsupported(&t) {
            Some(why) => (Class::NotRun, format!("not run ({why})"), String::new()),
            None => match mirror(&t, &keys) {
                Err(msg) => {
                    let first: String = msg
                        .lines()
                        .next()
                        .unwrap_or("")
                        .replace('|', "\\|")
                        .chars()
                        .take(90)
                        .collect();
                    (Class::Reported, format!("reports: {first}…"), String::new())
                }
                Ok(m) => {
                    let extra: BTreeSet<State> = m.difference(&ptx).cloned().collect();
                    let missing: BTreeSet<State> = ptx.difference(&m).cloned().collect();
                    let (class, diff) = if !extra.is_empty() {
                        (
                            Class::More,
                            format!("mirror also produces {} (PTX forbids)", show(&extra)),
                        )
                    } else if !missing.is_empty() {
                        (
                            Class::Fewer,
                            format!("mirror never produces {}", show(&missing)),
                        )
                    } else {
                        (Class::Same, "same".to_string())
                    };
                    (class, format!("{} outcomes", m.len()), diff)
                }
            },
        };
        let why = EXPECTED.iter().find(|e| e.0 == t.name).map_or("", |e| e.2);
        let diff = if why.is_empty() {
            diff
        } else {
            format!("{diff}: {why}")
        };
        table.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            t.name,
            ptx.len(),
            shown,
            diff
        ));
        classes.push(class);
        if class != Class::Same && class != Class::Reported {
            found.push((t.name.clone(), class));
        }
    }
    let count = |c: Class| classes.iter().filter(|k| **k == c).count();
    let summary = format!(
        "\n{} tests: {} the same, {} with outcomes PTX allows that the mirror never produces, {} where the mirror also produces outcomes PTX forbids, {} reported by the mirror as scope races, {} not run.\n",
        classes.len(),
        count(Class::Same),
        count(Class::Fewer),
        count(Class::More),
        count(Class::Reported),
        count(Class::NotRun),
    );
    table.push_str(&summary);
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/litmus");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("ptx-vs-mirror.md"), &table).unwrap();
    println!("{table}");
    let mut expected: Vec<(String, Class)> =
        EXPECTED.iter().map(|e| (e.0.to_string(), e.1)).collect();
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    found.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        found, expected,
        "the mirror's measured limits changed; update EXPECTED and the docs"
    );
}
