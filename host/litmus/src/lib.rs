//! `ptx-litmus`: the PTX memory consistency model (PTX ISA chapter 8) as an executable checker.
//!
//! A litmus test in the herd7 / Dat3M PTX syntax is parsed ([`parse`]), each thread is turned into
//! its possible event sequences ([`events`]), and every candidate execution — one path per thread,
//! reads-from, coherence order, Fence-SC order ([`enumerate`]) — is checked against the axioms of
//! 8.10 as the text states them ([`axioms`]): Coherence, Fence-SC, Atomicity, No-Thin-Air,
//! SC per location and Causality, over morally strong operations, scopes, observation order,
//! release and acquire patterns and causality order. Data races (8.7.1) are reported per
//! consistent execution ([`races`]). Only the generic proxy is modelled: textures, surfaces,
//! constant memory, aliases and proxy fences are refused by name.
//!
//! The command `ptx-litmus FILE_OR_DIR... [--races] [--json]` ([`cli`]; also `cargo host litmus`
//! in a scoped-atomics checkout) decides files and directories of tests. (The scoped-atomics
//! repository also checks its own emitted code with this model: its `host/checks` package turns
//! the probe kernels' PTX into [`program`] threads.)
//!
//! ```
//! use ptx_litmus::{parse::parse, enumerate::decide};
//! let mp = "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n \
//!           st.weak x, 1 | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.weak r1, x ;\n\
//!           exists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
//! let o = decide(&parse("mp.litmus", mp).unwrap()).unwrap();
//! assert!(!o.ok); // release/acquire at .gpu between two CTAs forbids the stale read
//! let cta = mp.replace(".gpu", ".cta");
//! assert!(decide(&parse("mp.litmus", &cta).unwrap()).unwrap().ok); // .cta does not reach CTA 1
//! ```
//!
//! Decisions where the text is silent: coherence order is enumerated as a total order per
//! location (as herd does; the text's order is partial only between racing writes), the initial
//! write of each location is first in it and morally strong with everything; `fence.SCOPE`
//! without `.sem` is `fence.acq_rel` and `membar` is `fence.sc` (PTX ISA); a missing scope is
//! `.gpu`; a thread without `@` placement runs in a CTA of its own on GPU 0; causality order
//! between fences (for Fence-SC) is base causality order; No-Thin-Air is `acyclic(rf ∪ dep)`
//! with data and control dependencies (as in the formal model of Lustig et al., ASPLOS 2019).

pub mod axioms;
pub mod barrier;
pub mod cli;
mod cond;
pub mod enumerate;
pub mod events;
mod execution;
pub mod graph;
mod instr;
pub mod parse;
pub mod program;
pub mod races;
pub mod relation;
mod scope_tree;
