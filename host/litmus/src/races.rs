//! Data races (PTX 8.7.1): two conflicting operations — overlapping, at least one a write — that
//! are not morally strong and not related in causality order, in a consistent execution.

use super::axioms::Orders;
use super::graph::Graph;
use std::fmt;

/// One instruction of a racing pair (or one a thread waits at forever).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site {
    /// Thread number.
    pub thread: usize,
    /// Source line.
    pub line: usize,
    /// Instruction text.
    pub text: String,
}

/// A racing pair of instructions, the lower thread first.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Race {
    /// First instruction.
    pub a: Site,
    /// Second instruction.
    pub b: Site,
}

impl fmt::Display for Race {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "P{}:{} `{}` and P{}:{} `{}`",
            self.a.thread, self.a.line, self.a.text, self.b.thread, self.b.line, self.b.text
        )
    }
}

/// Adds the racing pairs of one consistent execution to `out`.
pub fn collect(g: &Graph, orders: &Orders, out: &mut std::collections::BTreeSet<Race>) {
    let n = g.evs.len();
    for i in 0..n {
        let Some(ti) = g.evs[i].thread else { continue };
        for j in i + 1..n {
            let Some(tj) = g.evs[j].thread else { continue };
            let (ei, ej) = (&g.evs[i], &g.evs[j]);
            // Overlapping (same virtual address, 8.2), at least one a write (8.7.1).
            let conflict =
                ei.loc.is_some() && g.same_vaddr[i] >> j & 1 == 1 && (ei.writes() || ej.writes());
            if ti == tj
                || !conflict
                || g.is_ms(i, j)
                || orders.cause.has(i, j)
                || orders.cause.has(j, i)
            {
                continue;
            }
            let site = |t: usize, e: &super::graph::Ev| Site {
                thread: t,
                line: e.ev.line,
                text: e.ev.text.clone(),
            };
            out.insert(Race {
                a: site(ti, ei),
                b: site(tj, ej),
            });
        }
    }
}
