//! Writes a corpus of generated PTX litmus tests — classic shapes × memory orders × scopes ×
//! placements, with barrier and spin variants — for measuring the checker's speed:
//!
//! ```text
//! cargo run -p ptx-litmus --release --example corpus -- target/litmus-corpus
//! time target/release/ptx-litmus target/litmus-corpus
//! ```
//!
//! The files carry no expected verdict: they measure speed, not correctness.

use std::fmt::Write as _;
use std::path::PathBuf;

/// How the accesses of a shape are strengthened.
#[derive(Clone, Copy)]
enum Order {
    /// `.relaxed.SCOPE` everywhere.
    Relaxed,
    /// Release stores and acquire loads at SCOPE.
    RelAcq,
    /// Relaxed accesses with `fence.sc.SCOPE` between each thread's two accesses.
    FenceSc,
    /// Relaxed accesses with `fence.acq_rel.SCOPE` between them.
    FenceAcqRel,
    /// `.weak` accesses (the racy variants).
    Weak,
}

const ORDERS: [(Order, &str); 5] = [
    (Order::Relaxed, "rlx"),
    (Order::RelAcq, "rel-acq"),
    (Order::FenceSc, "fence.sc"),
    (Order::FenceAcqRel, "fence.acq_rel"),
    (Order::Weak, "weak"),
];

/// One access of a shape: `W(loc, value)` or `R(loc, register)`.
#[derive(Clone, Copy)]
enum Acc {
    W(&'static str, i64),
    R(&'static str, &'static str),
}

/// A shape: per thread its accesses, and the outcome asked about.
struct Shape {
    name: &'static str,
    threads: Vec<Vec<Acc>>,
    exists: &'static str,
}

fn shapes() -> Vec<Shape> {
    use Acc::*;
    vec![
        Shape {
            name: "MP",
            threads: vec![vec![W("x", 1), W("y", 1)], vec![R("y", "r0"), R("x", "r1")]],
            exists: "P1:r0 == 1 /\\ P1:r1 == 0",
        },
        Shape {
            name: "SB",
            threads: vec![vec![W("x", 1), R("y", "r0")], vec![W("y", 1), R("x", "r1")]],
            exists: "P0:r0 == 0 /\\ P1:r1 == 0",
        },
        Shape {
            name: "LB",
            threads: vec![vec![R("x", "r0"), W("y", 1)], vec![R("y", "r1"), W("x", 1)]],
            exists: "P0:r0 == 1 /\\ P1:r1 == 1",
        },
        Shape {
            name: "S",
            threads: vec![vec![W("x", 2), W("y", 1)], vec![R("y", "r0"), W("x", 1)]],
            exists: "P1:r0 == 1 /\\ x == 2",
        },
        Shape {
            name: "2+2W",
            threads: vec![vec![W("x", 1), W("y", 2)], vec![W("y", 1), W("x", 2)]],
            exists: "x == 1 /\\ y == 1",
        },
        Shape {
            name: "WRC",
            threads: vec![
                vec![W("x", 1)],
                vec![R("x", "r0"), W("y", 1)],
                vec![R("y", "r1"), R("x", "r2")],
            ],
            exists: "P1:r0 == 1 /\\ P2:r1 == 1 /\\ P2:r2 == 0",
        },
        Shape {
            name: "IRIW",
            threads: vec![
                vec![W("x", 1)],
                vec![W("y", 1)],
                vec![R("x", "r0"), R("y", "r1")],
                vec![R("y", "r2"), R("x", "r3")],
            ],
            exists: "P2:r0 == 1 /\\ P2:r1 == 0 /\\ P3:r2 == 1 /\\ P3:r3 == 0",
        },
        Shape {
            name: "ISA2",
            threads: vec![
                vec![W("x", 1), W("y", 1)],
                vec![R("y", "r0"), W("z", 1)],
                vec![R("z", "r1"), R("x", "r2")],
            ],
            exists: "P1:r0 == 1 /\\ P2:r1 == 1 /\\ P2:r2 == 0",
        },
        Shape {
            name: "CoRR2",
            threads: vec![
                vec![W("x", 1)],
                vec![W("x", 2)],
                vec![R("x", "r0"), R("x", "r1")],
                vec![R("x", "r2"), R("x", "r3")],
            ],
            exists: "P2:r0 == 1 /\\ P2:r1 == 2 /\\ P3:r2 == 2 /\\ P3:r3 == 1",
        },
    ]
}

fn access(a: Acc, order: Order, scope: &str, first: bool) -> String {
    let sem = |rel: bool| match order {
        Order::Weak => "weak".to_string(),
        Order::RelAcq if rel => format!("release.{scope}"),
        Order::RelAcq => format!("acquire.{scope}"),
        _ => format!("relaxed.{scope}"),
    };
    match a {
        // The second access of a thread releases; the first acquires (MP, WRC, ISA2 forms).
        Acc::W(l, v) => format!(
            "st.{} {l}, {v}",
            if first {
                sem(false).replace("acquire", "relaxed")
            } else {
                sem(true)
            }
        ),
        Acc::R(l, r) => format!(
            "ld.{} {r}, {l}",
            if first {
                sem(false)
            } else {
                sem(true).replace("release", "relaxed")
            }
        ),
    }
}

fn render(shape: &Shape, order: (Order, &str), scope: &str, ctas: &str) -> (String, String) {
    let name = format!("{}+{}.{scope}-{ctas}", shape.name, order.1);
    let n = shape.threads.len();
    let place = |k: usize| if ctas == "1cta" { 0 } else { k };
    let mut cols: Vec<Vec<String>> = Vec::new();
    for t in &shape.threads {
        let mut c = Vec::new();
        for (i, &a) in t.iter().enumerate() {
            if i > 0 {
                match order.0 {
                    Order::FenceSc => c.push(format!("fence.sc.{scope}")),
                    Order::FenceAcqRel => c.push(format!("fence.acq_rel.{scope}")),
                    _ => {}
                }
            }
            c.push(access(a, order.0, scope, i == 0));
        }
        cols.push(c);
    }
    let rows = cols.iter().map(Vec::len).max().unwrap();
    let mut s = String::new();
    writeln!(
        s,
        "PTX {name}\n\"generated: {} with {} at .{scope}, {ctas}\"",
        shape.name, order.1
    )
    .unwrap();
    writeln!(s, "{{ x=0; y=0; z=0; }}").unwrap();
    let header: Vec<String> = (0..n)
        .map(|k| format!("P{k}@cta {},gpu 0", place(k)))
        .collect();
    writeln!(s, " {} ;", header.join(" | ")).unwrap();
    for r in 0..rows {
        let cells: Vec<&str> = cols
            .iter()
            .map(|c| c.get(r).map_or("", String::as_str))
            .collect();
        writeln!(s, " {} ;", cells.join(" | ")).unwrap();
    }
    writeln!(s, "exists ({})", shape.exists).unwrap();
    (name, s)
}

/// Liveness and barrier variants: message passing through a CTA barrier with a thread count,
/// and a flag spin, for a few CTA sizes.
fn extra() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for extra_threads in 0..4 {
        let n = 2 + extra_threads;
        let header: Vec<String> = (0..n).map(|k| format!("P{k}@cta 0,gpu 0")).collect();
        let mut s = format!("PTX MP+bar{n}\n{{ x=0; }}\n {} ;\n", header.join(" | "));
        let row = |a: &str, b: &str, rest: &str| {
            let mut v = vec![a.to_string(), b.to_string()];
            v.extend((2..n).map(|_| rest.to_string()));
            format!(" {} ;\n", v.join(" | "))
        };
        s += &row("st.weak x, 1", "bar.sync 1, 2", "bar.sync 1, 2");
        s += &row("bar.sync 1, 2", "ld.weak r0, x", "");
        s += "exists (P1:r0 == 0)\n";
        out.push((format!("MP+bar{n}"), s));
        let mut s = format!(
            "PTX MP+spin{n}\n{{ x=0; f=0; }}\n {} ;\n",
            header.join(" | ")
        );
        s += &row("st.weak x, 1", "LC00:", "ld.relaxed.gpu r9, f");
        s += &row("st.release.gpu f, 1", "ld.acquire.gpu r0, f", "");
        s += &row("", "beq r0, 0, LC00", "");
        s += &row("", "ld.weak r1, x", "");
        s += "forall (P1:r1 == 1)\n";
        out.push((format!("MP+spin{n}"), s));
    }
    out
}

/// Every generated test as `(name, text)`; also read by the repository's differential check of
/// the simulator against the checker (host/checks/tests/litmus_vs_sim.rs includes this file).
pub fn files() -> Vec<(String, String)> {
    let mut files = extra();
    for shape in shapes() {
        for order in ORDERS {
            for scope in ["cta", "gpu", "sys"] {
                for ctas in ["1cta", "2cta"] {
                    if matches!(order.0, Order::Weak) && scope != "cta" {
                        continue; // weak accesses have no scope
                    }
                    files.push(render(&shape, order, scope, ctas));
                }
            }
        }
    }
    files
}

fn main() {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "target/litmus-corpus".into()),
    );
    std::fs::create_dir_all(&dir).expect("create the corpus directory");
    let files = files();
    for (name, text) in &files {
        std::fs::write(dir.join(format!("{name}.litmus")), text).expect("write a litmus file");
    }
    println!("{} files in {}", files.len(), dir.display());
}
