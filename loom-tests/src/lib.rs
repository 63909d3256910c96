//! Model-checked tests of `scoped-atomics`: the litmus tests of the PTX memory model, scope
//! misuse reported as data races, and the limits of the model. Everything here is compiled only
//! under `--cfg loom`; a plain `cargo test` builds an empty crate.
//!
//! ```text
//! RUSTFLAGS="--cfg loom" cargo test -p loom-tests --release --target-dir target/loom
//! ```
//!
//! (`--release`: loom is much slower in debug builds. `--target-dir`: the `--cfg loom` build
//! does not invalidate the normal one.) On 2 idle cores the tests take about 10 s, about 55 s
//! including compiling `scoped-atomics` and this crate; the plain-and-atomic, strict-mode and
//! model-choice tests add about 2.5 s (0.5 s of CPU) and two test binaries to compile. On a
//! machine shared with other builds the whole command took 3.5–4 min (1 min 17 s of CPU).
//!
//! # Exploration bound
//!
//! Every model runs through `builder`: loom's default builder with the preemption bound
//! `PREEMPTION_BOUND` = 3 set in code, and no permutation or duration limit, so that CI and
//! developers explore exactly the same executions whatever `LOOM_MAX_PREEMPTIONS`,
//! `LOOM_MAX_PERMUTATIONS` or `LOOM_MAX_DURATION` say (loom's other variables, such as
//! `LOOM_MAX_BRANCHES` and `LOOM_CHECKPOINT_FILE`, still apply). Every outcome and every race
//! the suite asserts already appears at bound 1 (loom's choice of the store a load reads is not a
//! preemption); bound 3 searches the correct programs' interleavings more deeply for about 8 s
//! more. Every scope bug of `scope_pairs` and of the litmus tests is reported within the first
//! three executions (asserted by `scope_pairs::bugs_are_reported_within_the_first_executions` and
//! `litmus::scope_races_are_reported_in_the_first_executions`).
//!
//! # The tests
//!
//! | file | what |
//! |------|------|
//! | `tests/litmus.rs` | PTX ISA 8.10–8.11 litmus tests with their outcome sets; the libcu++ message-passing example (device scope passes, block scope is a scope race) |
//! | `tests/scope_pairs.rs` | fourteen pairs of a correct program and the same program with a scope bug (`<pair>::correct` passes, `<pair>::buggy` panics with "scope race"), and the early-detection test |
//! | `tests/limits.rs` | one test per limit listed below |
//! | `tests/sanity.rs` | the first smoke tests of the mirror |
//! | `tests/primitives.rs` | `Barrier`, `Latch`, `BinarySemaphore` and `wait`/`notify` with 2 threads: phases, completion once per phase, exclusion, happens-before; a block barrier used across blocks is a scope race |
//! | `tests/timed_waits.rs` | the timed, non-blocking and parity waits (`Barrier::try_wait*`, `wait_parity`, `try_acquire_until`, `Atomic::wait_for`/`wait_until`) with 2 threads: a success orders the data, both a success and a timeout are explored; a block barrier's parity wait across blocks is a scope race |
//! | `tests/kernels.rs` | the example kernels of `gpu-kernels` on tiny grids through the `scoped-atomics-host` executor's loom launch (the topology comes from the launch); the block-scope twin of message passing is a scope race |
//! | `tests/spins.rs` | spin loops of several threads at once (`kernel::spin_loop`): the ticket lock of three blocks finishes (two threads spin at once) and its block-scope twin is a scope race; a test-and-test-and-set lock finishes, and its twin that releases before leaving its critical section is found with three and four blocks (the bug needs an interleaving after the spinners' rounds, which the pruning of futile rounds must keep) |
//! | `tests/mirror_regressions.rs` | bugs of the mirror found by this suite, fixed: each must stay fixed |
//! | `tests/plain_and_atomic.rs` | one location, plain and atomic (`scoped_atomics::plain` next to `AtomicRef` views): CoRR, CoWR, CoRW and CoWW with one plain access, ordered (exact outcome sets) and racy (reported, naming both operations and threads); kernel shapes — plain init → `sync_threads` / grid `Barrier` / release-acquire → atomic use, plain read of the result — each next to its racy twin; the `count_above` kernel |
//! | `tests/strict_atomic_ref.rs` | libcu++'s `atomic_ref` rule as the opt-in strict mode (`model::Options`): each program in both modes |
//! | `tests/wide.rs` | 128-bit atomics: a release compare-exchange on a versioned 128-bit word (the version in the high half, bumped by a carry) publishes plain data at device scope; the same at block scope across blocks is a scope race; `i128` views write all 16 bytes |
//!
//! Outcome sets: each litmus test returns its outcome from the model's closure; `outcomes`
//! collects them across executions (outside the model, since loom re-runs the closure) and
//! `assert_outcomes` checks that the set is exactly the expected one — the forbidden outcomes
//! never appear and every allowed outcome loom can produce does. Observed:
//!
//! | litmus test | outcome | observed | PTX |
//! |-------------|---------|----------|-----|
//! | atomicity 1 (`atom.sys` ×2) | (r0, r1, x) | (0,1,2) (1,0,2) | x == 2 |
//! | atomicity 2 (`atom.cta` / `atom.gpu`, two CTAs) | — | scope race, first execution | x == 1 or 2 |
//! | LB, values copied | (r0, r1, x, y) | (0,0,0,0) | x == 0 and y == 0 |
//! | LB, constant stores | (r0, r1) | (0,0) (0,1) (1,0) | also (1,1): not in loom |
//! | CoRR | (r0, r1) | (0,0) (0,1) (1,1) | not (1,0) |
//! | MP, `fence.acq_rel.sys` | (r0, r1) | (0,0) (0,1) (1,1) | not (1,0) |
//! | MP, release/acquire | (r0, r1) | (0,0) (0,1) (1,1) | not (1,0) |
//! | SB, `fence.sc.sys` | (r0, r1) | (0,1) (1,0) (1,1) | not (0,0) |
//! | SB, `fence.acq_rel.sys` | (r0, r1) | all four | (0,0) allowed |
//! | MP with `red` (and with `atom`) | (r1, flag) | (0,1) (42,1) (42,2) | `red` also (0,2): not in loom |
//! | IRIW, `SeqCst` | (r1.x, r1.y, r2.y, r2.x) | all 16 but (1,0,1,0) | not (1,0,1,0) |
//! | IRIW, acquire loads | same | all 16 | all allowed |
//!
//! # What loom does not model
//!
//! Each limit with the test that shows it (in `tests/limits.rs` unless named otherwise).
//!
//! * **No load buffering.** loom runs each load before the stores that follow it in program
//!   order, so the weak outcome (1, 1) of the classic LB test never appears, although PTX and C++
//!   allow it: `loom_has_no_load_buffering`. (The text's LB, whose only outcome is all zeros, is
//!   `litmus::lb_no_values_out_of_thin_air`.)
//! * **`SeqCst` accesses are only `AcqRel`** (loom issue 180): SB with `SeqCst` accesses on
//!   loom's own atomics produces (0, 0): `loom_seqcst_accesses_are_only_acqrel`. Through
//!   `scoped_atomics` every `SeqCst` operation is a `SeqCst` fence plus an acquire load / relaxed
//!   store / acquire RMW, as in the PTX mapping, and loom's `SeqCst` fences are sound, so SB and
//!   IRIW keep their SC guarantees: `mirror_seqcst_accesses_are_fences_plus_accesses`,
//!   `iriw_seqcst_readers_agree` (and `iriw_acquire_readers_may_disagree` for contrast).
//! * **At most 5 threads per model**, the model's own thread included: `a_sixth_thread_panics`.
//! * **Read-modify-writes are always atomic and always read the newest value**, so loom cannot
//!   produce the lost update of atomicity litmus test 2; the mirror reports the two operations as
//!   a scope race instead: `litmus::atomicity_2_rmws_that_are_not_morally_strong_race`.
//! * **A reduction's read is an ordinary relaxed read** to loom, and an acquire fence
//!   synchronises with every store its thread has read, so the weak outcome of MP with `red`
//!   (r1 == 0 and flag == 2) never appears: `litmus::mp_with_reduction`.
//! * **Fences have no scope.** `fence::<Block>(SeqCst)` in two blocks orders them in loom,
//!   although the two `fence.sc.cta` are not morally strong: SB with such fences never gives
//!   (0, 0), which a GPU allows: `block_scope_seqcst_fences_order_other_blocks_in_loom`. (The
//!   mirror adds the scoped fence rule for release/acquire fences; see below.)
//! * **Spinning until another thread's plain store replaces a read-modify-write never ends.**
//!   loom orders a store after another thread's RMW only if the storing thread has seen it, so a
//!   test-and-test-and-set lock unlocked with a plain store exceeds loom's branch limit:
//!   `loom_spin_after_foreign_rmw_never_ends`. Unlock with a `swap` (as `scope_pairs::spin_lock`
//!   does) or lock with a compare-exchange (`scope_pairs::cas_lock`). Spin loops must yield to loom
//!   (`spin_until`).
//!
//! # Model choices of the mirror
//!
//! Where the mirror is deliberately stricter or weaker than PTX, each with its test (in
//! `tests/limits.rs` unless named otherwise); the module docs of `atomics/src/imp/mirror/mod.rs`
//! give the same list.
//!
//! Stricter than PTX: the verdict of the language. `core::sync::atomic` promises the C++20
//! model, the same source runs on the host, and LLVM optimises by that model, so a program
//! correct only under PTX's stronger patterns is reported:
//!
//! * **A release store followed by a relaxed store of the same thread is not a release** of the
//!   second store (PTX release pattern 2, `st.release [M]; st.relaxed [M]`, is; C++20 release
//!   sequences continue only through read-modify-writes; on ARM `stlr; str` lets the second
//!   store be seen before the data): `release_store_then_relaxed_store_is_not_a_release` is
//!   reported, `release_store_then_relaxed_rmw_is_still_a_release` passes.
//! * **A relaxed read followed by an acquire read is not an acquire pattern** for what the first
//!   read saw, when the second reads a later write (PTX acquire pattern 2):
//!   `relaxed_read_then_acquire_read_of_a_later_write_is_not_an_acquire`.
//! * **The scoped fence rule is checked whether or not anything depends on the
//!   synchronisation** (loom's fences cannot leave it out): a relaxed read of a write released
//!   by a narrow fence, followed by an acquire fence for an unrelated reason, is reported
//!   although the program is correct: `fence_rule_is_checked_even_when_nothing_depends_on_it`.
//! * **A reduction's read followed by an acquire fence is reported** when it read a released
//!   write of another thread, since loom would synchronise where PTX does not (8.8) — also when
//!   nothing depends on it (`litmus::mp_with_reduction`).
//! * **Mixed-size views panic** (no guarantees in PTX, 8.7.2): `mixed_size_views_panic`.
//! * **Opt-in: libcu++'s `atomic_ref` rule** (`strict_atomic_ref::*`; off by default, where the
//!   PTX rule applies).
//!
//! Weaker than PTX: what the mirror does not check (besides the loom limits above).
//!
//! * **A release fence counts with the widest scope of the release fences its thread has
//!   executed**, so data written between a wide fence and a later narrow one, published through
//!   the narrow one, is not caught: `release_fence_scope_is_the_widest_so_far` (passes although
//!   the data races on a GPU).
//! * **A thread spawned after another thread's atomic operation is not checked against that
//!   operation's scope** — precisely when the earlier operation's scope excludes the late thread
//!   and the late thread's operation's scope includes the earlier thread:
//!   `thread_spawned_after_the_operation_is_not_checked` passes, the same program with the reader
//!   spawned first is reported (`thread_spawned_before_the_operation_is_checked`). Spawn every
//!   thread before the racing operations (as every other test here does). Plain accesses are
//!   checked against every thread.
//! * **Narrow `SeqCst` fences order threads outside their scope**: loom's `SeqCst` fences are
//!   global, so two `fence::<Block>(SeqCst)` in different blocks are ordered, which a GPU does not
//!   promise (Fence-SC relates only morally strong fences); a program relying on that is not
//!   reported: `block_scope_seqcst_fences_order_other_blocks_in_loom`.
//! * **`compare_exchange_weak` never fails spuriously**:
//!   `compare_exchange_weak_never_fails_spuriously`.
//! * **A byte is its own location**, while on the device an 8-bit atomic rewrites its whole
//!   32-bit word: a plain write to a neighbouring byte racing with it (a mixed-size race there)
//!   passes: `plain_write_to_a_neighbouring_byte_of_an_8bit_atomic_is_not_reported`.
//!
//! # Writing a test
//!
//! * Start the file with `#![cfg(loom)]`; run every model through `model`, `outcomes` or
//!   `first_failure` (never `loom::model`, which takes the bound from the environment).
//! * Give the model's thread a position with `set_position` before its first atomic operation,
//!   spawn the others with `spawn_in`, and keep to 2–3 spawned threads.
//! * Plain data is `Plain` (a `loom::cell::UnsafeCell`); memory shared through `AtomicRef`
//!   views is a `Heap`, whose plain accesses (`Heap::read`, `Heap::write`: `scoped_atomics::plain`)
//!   the mirror checks against the views. A race involving a plain access is reported as
//!   "data race on `T`"; set `model::Options` with `set_options` first, when needed.
//! * A buggy program's test is `#[should_panic(expected = "scope race")]`; add it to the
//!   early-detection list of `scope_pairs.rs`.
#![cfg_attr(not(loom), allow(unused))]

#[cfg(loom)]
mod harness;
#[cfg(loom)]
pub use harness::*;
