//! `ptx-litmus`: the PTX memory consistency model (PTX ISA chapter 8) as an executable checker.
//!
//! A litmus test in the herd7 / Dat3M PTX syntax is parsed ([`parse`]), each thread is turned into
//! its possible event sequences ([`events`]), and every candidate execution — one path per thread,
//! reads-from, coherence order, Fence-SC order ([`enumerate`]) — is checked against the axioms of
//! 8.10 as the text states them ([`axioms`]): Coherence, Fence-SC, Atomicity, No-Thin-Air,
//! SC per location and Causality, over morally strong operations, scopes, observation order,
//! release and acquire patterns and causality order. Data races (8.7.1) are reported per
//! consistent execution ([`races`]). Proxies (8.6) are modelled: virtual aliases (Dat3M's
//! `y = x`, `y@PROXY aliases x`) with `fence.proxy.alias`, and Dat3M's texture (`tld`),
//! surface (`suld`, `sust`, `suatom`, `sured`) and constant (`cold`) accesses with
//! `fence.proxy.{texture,surface,constant}`. Accesses through different aliases do not overlap
//! (8.2); operations of different proxies are never morally strong (8.7); and proxy-preserved
//! base causality order (8.9.5) is NVIDIA's formal model's (`alloy/ptx.als` of NVlabs'
//! `mixedproxy`): the generic proxy at one address, or one other proxy at one address within
//! one CTA, or else a base causality path from the source (or a fence of its proxy in its CTA
//! after it) to the destination (or a fence of its proxy in its CTA before it), through a
//! `fence.proxy.alias` when the virtual addresses differ. `LOC@PROXY aliases LOC` with a
//! non-generic proxy is the same address through that proxy; aliases chain to the root
//! location. An `atom` is a read and a write in causality: what observes its write does not
//! follow its read (`rmw` in the model's observation).
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
//! The dialects: herd7's and Dat3M's PTX litmus grammars (`PTX` header, `Pn@cta C,gpu G`
//! placement, Dat3M's `LitmusPTX.g4` forms: register assignments spelled `ld r, v`, `mul`/`div`,
//! registers holding addresses `P0:r1=&x`, `filter`, `final … with`, `not`, optional condition) and
//! herd's `GPU_PTX` (typed and cache-operator accesses through `[reg]`, `mov`, `setp`, guarded
//! `@p`/`@!p` instructions, `cvt`, `membar.{cta,gl,sys}`, the `scopeTree` placement). What
//! neither grammar defines (real PTX texture and surface instructions such as `tex.1d` or
//! `suld.b.1d`, the async and tensor-map proxies, `cp.async`) is refused with one line naming
//! it and its line.
//!
//! Coherence order is partial as 8.9.6 says: writes are ordered when morally strong or related
//! in causality order, and racing writes are unrelated (each is then a possible final value).
//! CTA barriers complete per phase when their thread count arrived (every thread
//! of the CTA without one), with ids and counts from registers; executions in which a thread
//! waits forever — at a barrier that cannot fill, or in a loop that can only read final values
//! (a write eventually becomes visible to a thread that keeps reading it) — are reported as
//! deadlocks ([`enumerate::Outcome::verdict`] is `Deadlock` when no execution completes).
//! The corpora in the repository: `classic/` and `reference/` (the text's tests), `forms/` (one
//! file per grammar form) and `rules/` (the rule of the text that decides each kind of
//! disagreement with other tools), each file with its expected verdict and deciding sentence;
//! `disagreements.md` indexes the rules.
//!
//! Decisions where the text is silent: the initial write of each location is first in
//! coherence order and morally strong with everything; `fence.SCOPE` without `.sem` is
//! `fence.acq_rel` and `membar` is `fence.sc` (PTX ISA); a missing scope is `.gpu`; a thread
//! without placement runs in a CTA of its own on GPU 0; causality order between fences (for
//! Fence-SC) is base causality order; No-Thin-Air is `acyclic(rf ∪ dep)` with data and control
//! dependencies (as in the formal model of Lustig et al., ASPLOS 2019), an `atom` being a read
//! and a write joined only when the written value depends on the value read; Dat3M's `.sc`
//! accesses are the Atomics ABI's seq_cst sequences (`fence.sc` then the access), a relaxed or
//! weak fence orders nothing, and the scope of a weak access is ignored. A barrier id, thread
//! count or `bar.red` predicate computed from loaded values is decided per execution: the
//! thread's path forks over the values the reads can return (the initial values and what the
//! writes compute from them, when that set is small), each branch under the constraint that the
//! operand has that value.
//!
//! Dialects ([`program::Dialect`], `--dialect`): `ptx` (the default) reads `bar{.cta}.sync a{, b}`
//! as PTX does; `dat3m` reads Dat3M's `bar.cta.{sync|arrive} INSTANCE{, ID{, QUORUM}}`, whose
//! first operand only names the instruction ([`parse::parse_dialect`]).

// Layers, each importing only from those below it: the text layer `text` (errors, lexical
// forms, the dialect); `program` (the parsed test); the statement parsers `cond`, `instr`,
// `barrier`, `scope_tree` and `init`, under `parse`; `events`, then `domain` (the values reads
// may return), `graph`, `axioms`, `races`; `outcome` under the execution search `execution`,
// under the enumeration `enumerate`; `cli` on top.
pub mod axioms;
mod barrier;
pub mod cli;
mod cond;
mod domain;
pub mod enumerate;
pub mod events;
mod execution;
pub mod graph;
mod init;
mod instr;
mod outcome;
pub mod parse;
pub mod program;
pub mod races;
pub mod relation;
mod scope_tree;
mod text;
