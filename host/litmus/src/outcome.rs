//! What deciding a test produces ([`Outcome`]), and the odometer the enumeration and the
//! execution search share: the layer under both, so that neither imports the other's result
//! type back.

use super::races::{Race, Site};
use std::collections::{BTreeMap, BTreeSet};

/// The decision of one test.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Whether the condition is validated (herd's `Ok`), over the executions that complete.
    pub ok: bool,
    /// Number of candidate executions.
    pub candidates: u64,
    /// Number of consistent executions that complete.
    pub consistent: u64,
    /// Consistent executions with a final state that satisfies the proposition.
    pub satisfying: u64,
    /// Consistent executions with a final state that does not.
    pub violating: u64,
    /// Final states of the consistent executions (registers and locations by name).
    pub states: BTreeSet<Vec<(String, i64)>>,
    /// Racing pairs over all consistent executions that complete, whether or not they satisfy
    /// the condition.
    pub races: BTreeSet<Race>,
    /// Racing pairs of every consistent execution that completes (`None` when none does): a
    /// race every execution has, which a run of the program must show whatever its schedule.
    ///
    /// ```
    /// use ptx_litmus::{enumerate::decide, parse::parse};
    /// let t = parse("w", "PTX W\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n \
    ///     st.weak x, 1 | st.weak x, 2 ;\n ld.relaxed.gpu r0, y | st.relaxed.gpu y, 1 ;\n\
    ///     exists (x == 1)\n").unwrap();
    /// let o = decide(&t).unwrap();
    /// assert_eq!(o.races_in_every.unwrap().len(), 1); // the two stores of x race in every execution
    /// ```
    pub races_in_every: Option<BTreeSet<Race>>,
    /// How many candidates each axiom rejected (the first violated one).
    pub rejected_by: BTreeMap<String, u64>,
    /// Ways the threads may run (one path per thread and one grouping of barrier arrivals)
    /// that have a consistent execution in which some thread waits forever (the search stops
    /// at the first such execution of each).
    pub deadlocked: u64,
    /// The instructions threads wait at forever, over those executions.
    pub deadlocks: BTreeSet<Site>,
}

impl Outcome {
    /// `Ok` or `No` (herd's verdict), or `Deadlock` when no consistent execution completes
    /// but some deadlocks: a liveness verdict, not a consistency one.
    ///
    /// ```
    /// use ptx_litmus::{enumerate::decide, parse::parse};
    /// let t = parse("b", "PTX B\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n \
    ///     bar.sync 1, 3 | bar.sync 1, 3 ;\nexists (x == 0)\n").unwrap();
    /// let o = decide(&t).unwrap();
    /// assert_eq!(o.verdict(), "Deadlock"); // a barrier of 3 threads that 2 reach
    /// assert_eq!(o.deadlocks.len(), 2);
    /// ```
    pub fn verdict(&self) -> &'static str {
        if self.consistent == 0 && self.deadlocked > 0 {
            "Deadlock"
        } else if self.ok {
            "Ok"
        } else {
            "No"
        }
    }
}

/// Odometer over `sizes`; false once every combination was visited.
pub(crate) fn advance(pick: &mut [usize], sizes: &[usize]) -> bool {
    for k in (0..pick.len()).rev() {
        pick[k] += 1;
        if pick[k] < sizes[k] {
            return true;
        }
        pick[k] = 0;
    }
    false
}
