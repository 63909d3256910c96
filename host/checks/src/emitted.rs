//! The library's emitted code checked against the PTX axioms: the classic shapes written as Rust
//! threads of `scoped_atomics` operations, for every ordering class and scope, each operation's
//! PTX taken from the probe kernel the pipeline built for the target ([`crate::ptx_events`]), and
//! the outcome the scoped C++ model (libcu++, `004_*`) forbids checked to be forbidden by the
//! axioms for that code. CAS loops are unrolled to [`ptx_litmus::events::UNROLL`] iterations.

use crate::ptx_events::{Call, translate};
use ptx_litmus::enumerate::decide;
use ptx_litmus::program::*;
use ptx_sim::Simulator;
use std::collections::BTreeMap;

/// Whether an access takes part in the shape's synchronisation (its ordering follows the class)
/// or is a plain data access (relaxed, except in the `SeqCst` class where every access is).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Data,
    Sync,
}

/// One Rust operation of a shape.
#[derive(Clone, Copy)]
enum Step {
    /// `loc.store(value, order)`.
    St(&'static str, i64, Role),
    /// `let reg = loc.load(order)`.
    Ld(&'static str, &'static str, Role),
    /// `fence::<S>(order)`, present in the fence class only.
    F(&'static str),
}

/// The ordering classes of the table.
pub const CLASSES: [&str; 4] = ["relaxed", "release/acquire", "seq_cst", "fences"];

/// A shape: its threads, the outcome (registers `Pn:reg` and locations), and for each class
/// whether the scoped C++ model forbids that outcome.
struct Shape {
    name: &'static str,
    threads: Vec<Vec<Step>>,
    outcome: Vec<(&'static str, i64)>,
    cpp_forbids: [bool; 4],
}

fn shapes() -> Vec<Shape> {
    use Role::{Data as D, Sync as S};
    use Step::*;
    let s = |name, threads, outcome, cpp_forbids| Shape {
        name,
        threads,
        outcome,
        cpp_forbids,
    };
    vec![
        s(
            "MP",
            vec![
                vec![St("x", 1, D), F("release"), St("y", 1, S)],
                vec![Ld("y", "r0", S), F("acquire"), Ld("x", "r1", D)],
            ],
            vec![("P1:r0", 1), ("P1:r1", 0)],
            [false, true, true, true],
        ),
        s(
            "SB",
            vec![
                vec![St("x", 1, S), F("seq_cst"), Ld("y", "r0", S)],
                vec![St("y", 1, S), F("seq_cst"), Ld("x", "r1", S)],
            ],
            vec![("P0:r0", 0), ("P1:r1", 0)],
            [false, false, true, true],
        ),
        s(
            "LB",
            vec![
                vec![Ld("x", "r0", S), F("acq_rel"), St("y", 1, S)],
                vec![Ld("y", "r1", S), F("acq_rel"), St("x", 1, S)],
            ],
            vec![("P0:r0", 1), ("P1:r1", 1)],
            [false, true, true, true],
        ),
        s(
            "IRIW",
            vec![
                vec![St("x", 1, S)],
                vec![St("y", 1, S)],
                vec![Ld("x", "r0", S), F("seq_cst"), Ld("y", "r1", S)],
                vec![Ld("y", "r2", S), F("seq_cst"), Ld("x", "r3", S)],
            ],
            vec![("P2:r0", 1), ("P2:r1", 0), ("P3:r2", 1), ("P3:r3", 0)],
            [false, false, true, true],
        ),
        s(
            "WRC",
            vec![
                vec![St("x", 1, D)],
                vec![Ld("x", "r0", D), F("acq_rel"), St("y", 1, S)],
                vec![Ld("y", "r1", S), F("acq_rel"), Ld("x", "r2", D)],
            ],
            vec![("P1:r0", 1), ("P2:r1", 1), ("P2:r2", 0)],
            [false, true, true, true],
        ),
        s(
            "ISA2",
            vec![
                vec![St("x", 1, D), F("release"), St("y", 1, S)],
                vec![Ld("y", "r0", S), F("acq_rel"), St("z", 1, S)],
                vec![Ld("z", "r1", S), F("acquire"), Ld("x", "r2", D)],
            ],
            vec![("P1:r0", 1), ("P2:r1", 1), ("P2:r2", 0)],
            [false, true, true, true],
        ),
        s(
            "2+2W",
            vec![
                vec![St("x", 1, S), F("seq_cst"), St("y", 2, S)],
                vec![St("y", 1, S), F("seq_cst"), St("x", 2, S)],
            ],
            vec![("x", 1), ("y", 1)],
            [false, false, true, true],
        ),
        s(
            "R",
            vec![
                vec![St("x", 1, S), F("seq_cst"), St("y", 1, S)],
                vec![St("y", 2, S), F("seq_cst"), Ld("x", "r0", S)],
            ],
            vec![("y", 2), ("P1:r0", 0)],
            [false, false, true, true],
        ),
        s(
            "S",
            vec![
                vec![St("x", 2, D), F("release"), St("y", 1, S)],
                vec![Ld("y", "r0", S), F("acquire"), St("x", 1, D)],
            ],
            vec![("P1:r0", 1), ("x", 2)],
            [false, true, true, true],
        ),
        s(
            "RWC",
            vec![
                vec![St("x", 1, S)],
                vec![Ld("x", "r0", S), F("seq_cst"), Ld("y", "r1", S)],
                vec![St("y", 1, S), F("seq_cst"), Ld("x", "r2", S)],
            ],
            vec![("P1:r0", 1), ("P1:r1", 0), ("P2:r2", 0)],
            [false, false, true, true],
        ),
        s(
            "CoRR",
            vec![
                vec![St("x", 1, S)],
                vec![Ld("x", "r0", S), Ld("x", "r1", S)],
            ],
            vec![("P1:r0", 1), ("P1:r1", 0)],
            [true; 4],
        ),
        s(
            "CoRW",
            vec![vec![St("x", 2, S)], vec![Ld("x", "r0", S), St("x", 1, S)]],
            vec![("P1:r0", 2), ("x", 2)],
            [true; 4],
        ),
        s(
            "CoWR",
            vec![vec![St("x", 1, S), Ld("x", "r0", S)], vec![St("x", 2, S)]],
            vec![("P0:r0", 2), ("x", 1)],
            [true; 4],
        ),
        s(
            "CoWW",
            vec![vec![St("x", 1, S), St("x", 2, S)]],
            vec![("x", 1)],
            [true; 4],
        ),
    ]
}

/// One checked combination.
pub struct Row {
    /// Shape name.
    pub shape: &'static str,
    /// Ordering class (one of [`CLASSES`]).
    pub class: &'static str,
    /// `block`, `cluster`, `device` or `system`.
    pub scope: &'static str,
    /// Value type (`u32`, `u16`, `u8`).
    pub ty: &'static str,
    /// `None` when the C++ model allows the outcome (nothing to check); else whether the PTX
    /// axioms forbid it for the emitted code.
    pub ok: Option<bool>,
    /// Candidate executions of the check.
    pub candidates: u64,
}

/// Checks every shape × class × scope × type against the probes of one target's PTX.
pub fn check_target(
    sim: &Simulator,
    scopes: &[&'static str],
    types: &[&'static str],
) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for shape in shapes() {
        for (c, class) in CLASSES.iter().enumerate() {
            for &scope in scopes {
                for &ty in types {
                    // An 8-bit store is a CAS loop (up to three reads once unrolled): shapes with
                    // more than two stores are checked at 8 bits only where the search stays small.
                    let stores = shape
                        .threads
                        .iter()
                        .flatten()
                        .filter(|s| matches!(s, Step::St(..)))
                        .count();
                    if ty == "u8" && stores > 2 {
                        continue;
                    }
                    if !shape.cpp_forbids[c] {
                        rows.push(Row {
                            shape: shape.name,
                            class,
                            scope,
                            ty,
                            ok: None,
                            candidates: 0,
                        });
                        continue;
                    }
                    let t = program(sim, &shape, c, scope, ty)
                        .map_err(|e| format!("{} {class} {scope} {ty}: {e}", shape.name))?;
                    let started = std::time::Instant::now();
                    let o = decide(&t)
                        .map_err(|e| format!("{} {class} {scope} {ty}: {e}", shape.name))?;
                    if std::env::var_os("LITMUS_TRACE").is_some() {
                        eprintln!(
                            "{}: {} candidates, {:?}",
                            t.name,
                            o.candidates,
                            started.elapsed()
                        );
                    }
                    rows.push(Row {
                        shape: shape.name,
                        class,
                        scope,
                        ty,
                        ok: Some(!o.ok),
                        candidates: o.candidates,
                    });
                }
            }
        }
    }
    Ok(rows)
}

/// Checks one shape (by name) of class `class` (index into [`CLASSES`]) with every probe name
/// passed through `rename` (a test substitutes wrong code this way): whether the PTX axioms
/// forbid, for that code, the outcome C++ forbids.
pub fn check_one(
    sim: &Simulator,
    shape: &str,
    class: usize,
    scope: &str,
    ty: &str,
    rename: &dyn Fn(&str) -> String,
) -> Result<bool, String> {
    let shape = shapes()
        .into_iter()
        .find(|s| s.name == shape)
        .ok_or("no such shape")?;
    let t = program_with(sim, &shape, class, scope, ty, rename)?;
    Ok(!decide(&t)?.ok)
}

fn order(step: &Step, class: usize) -> &'static str {
    match (step, class) {
        (_, 2) => "seq_cst",
        (Step::St(_, _, Role::Sync), 1) => "release",
        (Step::Ld(_, _, Role::Sync), 1) => "acquire",
        _ => "relaxed",
    }
}

/// The litmus program of a shape whose threads run the probes' code.
fn program(
    sim: &Simulator,
    shape: &Shape,
    class: usize,
    scope: &str,
    ty: &str,
) -> Result<Litmus, String> {
    program_with(sim, shape, class, scope, ty, &|k| k.to_string())
}

fn program_with(
    sim: &Simulator,
    shape: &Shape,
    class: usize,
    scope: &str,
    ty: &str,
    rename: &dyn Fn(&str) -> String,
) -> Result<Litmus, String> {
    let mut threads = Vec::new();
    for (tid, steps) in shape.threads.iter().enumerate() {
        let place = match scope {
            "block" => Placement::Gpu {
                gpu: 0,
                cluster: None,
                cta: 0,
            },
            "cluster" => Placement::Gpu {
                gpu: 0,
                cluster: Some(0),
                cta: tid as i64,
            },
            _ => Placement::Gpu {
                gpu: 0,
                cluster: None,
                cta: tid as i64,
            },
        };
        let mut code = Vec::new();
        for (k, step) in steps.iter().enumerate() {
            let (kernel, loc, value, reg) = match step {
                Step::F(o) if class == 3 => (format!("fence__{o}__{scope}"), "", 0, None),
                Step::F(_) => continue,
                Step::St(loc, v, _) => (
                    format!("store__{ty}__{}__{scope}", order(step, class)),
                    *loc,
                    *v,
                    None,
                ),
                Step::Ld(loc, r, _) => (
                    format!("load__{ty}__{}__{scope}", order(step, class)),
                    *loc,
                    0,
                    Some(*r),
                ),
            };
            let kernel = rename(&kernel);
            let k_ = sim
                .kernel(&kernel)
                .map_err(|e| format!("{kernel}: {e:?}"))?;
            let prefix = format!("o{k}_");
            let tr = translate(
                &k_,
                &Call {
                    loc,
                    args: [value, 0],
                    prefix: &prefix,
                },
            )
            .map_err(|e| format!("{kernel}: {e}"))?;
            code.extend(tr.code);
            if let Some(r) = reg {
                let res = tr
                    .result
                    .ok_or_else(|| format!("{kernel}: the load reads nothing"))?;
                code.push(Line {
                    line: 0,
                    text: format!("{r} = {res}"),
                    instr: Instr::Alu {
                        op: AluOp::Second,
                        dst: r.to_string(),
                        a: Operand::Imm(0),
                        b: Operand::Reg(res),
                    },
                });
            }
        }
        threads.push(Thread {
            id: tid,
            place,
            code,
        });
    }
    let mut prop = Prop::True;
    for (k, v) in &shape.outcome {
        let term = match k.split_once(':') {
            Some((t, r)) => Term::Reg(t[1..].parse().unwrap(), r.to_string()),
            None => Term::Loc(k.to_string()),
        };
        prop = Prop::And(
            Box::new(prop),
            Box::new(Prop::Atom(Cmp::Eq, term, Term::Const(*v))),
        );
    }
    Ok(Litmus {
        name: format!("{}+{}+{scope}+{ty}", shape.name, CLASSES[class]),
        threads,
        init_mem: BTreeMap::new(),
        init_regs: BTreeMap::new(),
        quantifier: Quantifier::Exists,
        filter: None,
        aliases: BTreeMap::new(),
        prop,
    })
}

/// The Markdown table: shape × ordering rows, scope × target columns; a cell is `ok` when the
/// PTX axioms forbid, for the emitted code of every type, the outcome C++ forbids,
/// `counterexample (types)` otherwise, `—` where C++ allows the outcome.
pub fn table(results: &[(&str, Vec<Row>)]) -> String {
    let mut cols: Vec<(String, &str)> = Vec::new();
    for (target, rows) in results {
        for r in rows {
            if !cols.iter().any(|(t, s)| t == target && *s == r.scope) {
                cols.push((target.to_string(), r.scope));
            }
        }
    }
    let mut out = String::from("| shape | ordering |");
    for (t, s) in &cols {
        out.push_str(&format!(" {s} {t} |"));
    }
    out.push_str("\n|---|---|");
    out.push_str(&"---|".repeat(cols.len()));
    out.push('\n');
    for shape in shapes() {
        for class in CLASSES {
            out.push_str(&format!("| {} | {class} |", shape.name));
            for (t, s) in &cols {
                let rows: Vec<&Row> = results
                    .iter()
                    .filter(|(tt, _)| tt == t)
                    .flat_map(|(_, r)| r)
                    .filter(|r| r.shape == shape.name && r.class == class && r.scope == *s)
                    .collect();
                let bad: Vec<&str> = rows
                    .iter()
                    .filter(|r| r.ok == Some(false))
                    .map(|r| r.ty)
                    .collect();
                let cell = if rows.iter().all(|r| r.ok.is_none()) {
                    "—".to_string()
                } else if bad.is_empty() {
                    "ok".to_string()
                } else {
                    format!("**counterexample ({})**", bad.join(", "))
                };
                out.push_str(&format!(" {cell} |"));
            }
            out.push('\n');
        }
    }
    out
}
