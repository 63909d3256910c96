//! The values a test's reads can return, when that set is finite and small: what a barrier id
//! or thread count computed from loaded values may be (each is then decided per execution, one
//! path per value).

use super::events::{BarWait, Expr, Kind, Path, possible_values};
use super::program::Litmus;
use std::collections::BTreeSet;

/// Every value a read of the test can return, when it is finite and small: the initial values
/// and whatever the writes of `all_paths` (every path of every thread) compute from such values
/// (a fixed point). `None` when it grows past [`MAX_DOMAIN`] values.
pub(crate) fn read_values(t: &Litmus, all_paths: &[Vec<Path>]) -> Option<BTreeSet<i64>> {
    let mut domain: BTreeSet<i64> = std::iter::once(0)
        .chain(t.init_mem.values().copied())
        .chain(t.init_regs.values().copied())
        .collect();
    let mut exprs: Vec<&Expr> = Vec::new();
    for paths in all_paths {
        for p in paths {
            for e in &p.events {
                match (&e.kind, &e.value) {
                    (Kind::Mem { writes: true, .. }, Some(v)) => exprs.push(v),
                    // A `bar.red` result: how many of the threads' predicates hold, or 0 / 1.
                    (
                        Kind::Barrier {
                            wait: BarWait::Red(_),
                            ..
                        },
                        _,
                    ) => domain.extend(0..=t.threads.len() as i64),
                    _ => {}
                }
            }
        }
    }
    loop {
        let mut next = domain.clone();
        for e in &exprs {
            let mut vars = BTreeSet::new();
            e.vars(&mut vars);
            if (domain.len() as f64).powi(vars.len() as i32) > 100_000.0 {
                return None;
            }
            next.extend(possible_values(e, &domain));
            if next.len() > MAX_DOMAIN {
                return None;
            }
        }
        if next == domain {
            return Some(domain);
        }
        domain = next;
    }
}

/// The most distinct values the reads of a test may return for a barrier operand to be decided
/// per value.
pub(crate) const MAX_DOMAIN: usize = 32;
