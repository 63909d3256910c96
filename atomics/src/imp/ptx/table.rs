//! The PTX Atomics ABI table (`shared/reference/001_*`), recommended column, as data.
//!
//! Hold this file next to the table: each function is one of its sections, each arm one row.
//! `fence_sc` is the leading `fence.sc.<scope>;` of the sequentially consistent rows; `sem` is the
//! `.sem` of the one memory instruction that follows. The instruction itself (`ld`, `st`, `atom`,
//! `red`) and the scope qualifier are added by the `asm` layer.
//!
//! | C++ operation            | order   | PTX (recommended)                           |
//! |--------------------------|---------|---------------------------------------------|
//! | `atomic_load`            | relaxed | `ld.relaxed.S`                              |
//! |                          | acquire | `ld.acquire.S`                              |
//! |                          | seq_cst | `fence.sc.S; ld.acquire.S`                  |
//! | `atomic_store`           | relaxed | `st.relaxed.S`                              |
//! |                          | release | `st.release.S`                              |
//! |                          | seq_cst | `fence.sc.S; st.relaxed.S`                  |
//! | `atomic_<rmw>`           | relaxed | `atom.relaxed.S.<op>`                       |
//! |                          | acquire | `atom.acquire.S.<op>`                       |
//! |                          | release | `atom.release.S.<op>`                       |
//! |                          | acq_rel | `atom.acq_rel.S.<op>`                       |
//! |                          | seq_cst | `fence.sc.S; atom.acquire.S.<op>`           |
//! | `atomic_thread_fence`    | acquire | `fence.acquire.S` (sm_90 + PTX 8.6; else `fence.acq_rel.S`) |
//! |                          | release | `fence.release.S` (sm_90 + PTX 8.6; else `fence.acq_rel.S`) |
//! |                          | acq_rel | `fence.acq_rel.S`                           |
//! |                          | seq_cst | `fence.sc.S`                                |
//!
//! On a scope with a state space (`Global<S>`, `Shared<S>`: [`space`]) every `ld`/`st`/`atom`/`red`
//! row takes the space's qualifier after `S` (`ld.acquire.S.global`); the fences stay as they are.
//!
//! Compare-exchange is an `<rmw>` whose order covers both its success and failure orders.
//! Reductions (`red`) are `<rmw>`s without a result; their read forms no acquire pattern
//! (PTX ISA 8.8), so only relaxed and release exist.

// On the host this module is compiled only for its unit tests.
#![cfg_attr(not(target_arch = "nvptx64"), allow(dead_code))]

use crate::ordering::{cas_order, check_failure, check_load, check_store};
use crate::{Scope, ScopeKind, StateSpace};
use core::sync::atomic::Ordering::{self, AcqRel, Acquire, Relaxed, Release, SeqCst};

/// The `.sem` qualifier of a PTX memory instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sem {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
}

/// One row of the table: `fence.sc.S;` if `fence_sc`, then the instruction with `.sem`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mapped {
    pub fence_sc: bool,
    pub sem: Sem,
}

const fn plain(sem: Sem) -> Mapped {
    Mapped {
        fence_sc: false,
        sem,
    }
}

const fn after_fence_sc(sem: Sem) -> Mapped {
    Mapped {
        fence_sc: true,
        sem,
    }
}

/// `atomic_load(order, scope)`.
#[inline(always)]
#[track_caller]
pub(crate) fn load(order: Ordering) -> Mapped {
    check_load(order);
    match order {
        Relaxed => plain(Sem::Relaxed),
        Acquire => plain(Sem::Acquire),
        _ => after_fence_sc(Sem::Acquire),
    }
}

/// `atomic_store(order, scope)`.
#[inline(always)]
#[track_caller]
pub(crate) fn store(order: Ordering) -> Mapped {
    check_store(order);
    match order {
        Relaxed => plain(Sem::Relaxed),
        Release => plain(Sem::Release),
        _ => after_fence_sc(Sem::Relaxed),
    }
}

/// `atomic_<rmw op>(order, scope)`.
#[inline(always)]
pub(crate) fn rmw(order: Ordering) -> Mapped {
    match order {
        Relaxed => plain(Sem::Relaxed),
        Acquire => plain(Sem::Acquire),
        Release => plain(Sem::Release),
        AcqRel => plain(Sem::AcqRel),
        _ => after_fence_sc(Sem::Acquire),
    }
}

/// `atomic_compare_exchange(success, failure, scope)`: the `<rmw>` row of the order that covers
/// both.
#[inline(always)]
#[track_caller]
pub(crate) fn compare_exchange(success: Ordering, failure: Ordering) -> Mapped {
    check_failure(failure);
    rmw(cas_order(success, failure))
}

/// A reduction (`red`): relaxed or release only; the front has rejected the other orders.
#[inline(always)]
pub(crate) fn reduction(order: Ordering) -> Mapped {
    match order {
        Release => plain(Sem::Release),
        _ => plain(Sem::Relaxed),
    }
}

/// The state-space form of the memory instructions (`ld`, `st`, `atom`, `red`) of a scope with a
/// state space ([`Global<S>`](crate::Global), [`Shared<S>`](crate::Shared)): the qualifier that
/// follows the scope's (`atom.relaxed.gpu.global.add.u32`) and how the generic address becomes
/// the space's. Fences have no state space. (`asm::scoped_asm!` spells the same qualifiers as
/// `concat!` literals, so on the device only the guide's test reads this row.)
#[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
pub(crate) const fn space(space: StateSpace) -> (&'static str, &'static str) {
    match space {
        StateSpace::Generic => ("", "the generic address"),
        StateSpace::Global => (".global", "`cvta.to.global` of the address"),
        StateSpace::Shared => (
            ".shared",
            "the address minus the shared window's (`cvta.to.shared`, folded into the index)",
        ),
    }
}

/// Whether this build may emit `fence.acquire` / `fence.release`: sm_90 with PTX ISA 8.6 or newer.
pub(crate) const HAS_ACQUIRE_RELEASE_FENCES: bool =
    cfg!(all(target_feature = "sm_90", target_feature = "ptx86"));

/// Whether this build may use the `.cluster` scope: sm_90 (rustc then emits PTX ISA 7.8 or newer).
pub(crate) const HAS_CLUSTER_SCOPE: bool = cfg!(target_feature = "sm_90");

/// Whether this build may emit `ld`/`st` `.b128`: PTX ISA 8.3 or newer (sm_70 or newer).
pub(crate) const HAS_B128_LOAD_STORE: bool = cfg!(target_feature = "ptx83");

/// Whether this build may emit `atom.cas.b128`/`atom.exch.b128`: sm_90 with PTX ISA 8.3 or newer.
pub(crate) const HAS_B128_RMW: bool = cfg!(all(target_feature = "sm_90", target_feature = "ptx83"));

/// Whether this build may use `.b128` instructions at the `.sys` scope: PTX ISA 8.4 or newer.
pub(crate) const HAS_B128_SYSTEM: bool = cfg!(target_feature = "ptx84");

/// The instruction of `atomic_thread_fence(order, scope)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fence {
    /// No instruction: a thread-scope fence orders nothing beyond the thread (a compiler fence).
    Compiler,
    Sc,
    AcqRel,
    Acquire,
    Release,
}

/// `atomic_thread_fence(order, scope)`, for a target with or without the split fences.
#[inline(always)]
#[track_caller]
pub(crate) const fn fence_for(scope: ScopeKind, order: Ordering, split_fences: bool) -> Fence {
    check_fence_const(order);
    match (scope, order) {
        (ScopeKind::Thread, _) => Fence::Compiler,
        (_, SeqCst) => Fence::Sc,
        (_, Acquire) if split_fences => Fence::Acquire,
        (_, Release) if split_fences => Fence::Release,
        // The strengthening the ABI note allows where `fence.acquire`/`fence.release` don't exist.
        _ => Fence::AcqRel,
    }
}

#[inline(always)]
#[track_caller]
const fn check_fence_const(order: Ordering) {
    if let Relaxed = order {
        panic!("there is no such thing as a relaxed fence")
    }
}

/// `atomic_thread_fence(order, S)` on this build's target.
#[inline(always)]
#[track_caller]
pub(crate) fn fence<S: Scope>(order: Ordering) -> Fence {
    fence_for(S::KIND, order, HAS_ACQUIRE_RELEASE_FENCES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_stores_and_rmws_follow_the_recommended_column() {
        assert_eq!(load(Relaxed), plain(Sem::Relaxed));
        assert_eq!(load(Acquire), plain(Sem::Acquire));
        assert_eq!(load(SeqCst), after_fence_sc(Sem::Acquire));
        assert_eq!(store(Relaxed), plain(Sem::Relaxed));
        assert_eq!(store(Release), plain(Sem::Release));
        assert_eq!(store(SeqCst), after_fence_sc(Sem::Relaxed));
        assert_eq!(rmw(AcqRel), plain(Sem::AcqRel));
        assert_eq!(rmw(SeqCst), after_fence_sc(Sem::Acquire));
        assert_eq!(compare_exchange(Release, Acquire), plain(Sem::AcqRel));
        assert_eq!(
            compare_exchange(Relaxed, SeqCst),
            after_fence_sc(Sem::Acquire)
        );
        assert_eq!(reduction(Release), plain(Sem::Release));
    }

    #[test]
    fn state_spaces_qualify_memory_instructions_after_the_scope() {
        assert_eq!(space(StateSpace::Generic).0, "");
        assert_eq!(space(StateSpace::Global).0, StateSpace::Global.ptx());
        assert_eq!(space(StateSpace::Shared).0, StateSpace::Shared.ptx());
    }

    #[test]
    fn fences_split_only_where_the_target_has_them() {
        for split in [false, true] {
            assert_eq!(fence_for(ScopeKind::Device, SeqCst, split), Fence::Sc);
            assert_eq!(fence_for(ScopeKind::Block, AcqRel, split), Fence::AcqRel);
            assert_eq!(fence_for(ScopeKind::Thread, SeqCst, split), Fence::Compiler);
        }
        assert_eq!(fence_for(ScopeKind::System, Acquire, false), Fence::AcqRel);
        assert_eq!(fence_for(ScopeKind::System, Acquire, true), Fence::Acquire);
        assert_eq!(fence_for(ScopeKind::Cluster, Release, true), Fence::Release);
    }

    /// The guide's operation → PTX table (`src/guide/ptx-mapping.md`), rendered from the
    /// functions of this file, so the documentation cannot drift from the code.
    fn mapping_markdown() -> std::string::String {
        use std::format;
        use std::string::String;
        let sem = |s: Sem| match s {
            Sem::Relaxed => "relaxed",
            Sem::Acquire => "acquire",
            Sem::Release => "release",
            Sem::AcqRel => "acq_rel",
        };
        let row = |m: Mapped, instruction: &str, tail: &str| {
            let fence = if m.fence_sc { "fence.sc.S; " } else { "" };
            format!("`{fence}{instruction}.{}.S{tail}`", sem(m.sem))
        };
        let order = |o: Ordering| format!("{o:?}");
        let mut out = String::from(
            "<!-- Generated from atomics/src/imp/ptx/table.rs by its test \
             `the_guide_mapping_table_is_generated_from_this_table`; do not edit: run \
             `UPDATE_GUIDE=1 cargo test -p scoped-atomics --lib mapping` after changing the table. -->\n\n\
             | operation | ordering | PTX (`S` = the scope's qualifier) |\n|---|---|---|\n",
        );
        for o in [Relaxed, Acquire, SeqCst] {
            out += &format!("| `load` | {} | {} |\n", order(o), row(load(o), "ld", ""));
        }
        for o in [Relaxed, Release, SeqCst] {
            out += &format!("| `store` | {} | {} |\n", order(o), row(store(o), "st", ""));
        }
        for o in [Relaxed, Acquire, Release, AcqRel, SeqCst] {
            out += &format!(
                "| `swap`, `fetch_<op>` | {} | {} |\n",
                order(o),
                row(rmw(o), "atom", ".<op>")
            );
        }
        for success in [Relaxed, Acquire, Release, AcqRel, SeqCst] {
            for failure in [Relaxed, Acquire, SeqCst] {
                out += &format!(
                    "| `compare_exchange` | {} / {} | {} |\n",
                    order(success),
                    order(failure),
                    row(compare_exchange(success, failure), "atom", ".cas")
                );
            }
        }
        for o in [Relaxed, Release] {
            out += &format!(
                "| `add`, `sub`, `and`, … (reductions) | {} | {} |\n",
                order(o),
                row(reduction(o), "red", ".<op>")
            );
        }
        let fence = |f: Fence| match f {
            Fence::Compiler => "none (a compiler fence)",
            Fence::Sc => "`fence.sc.S`",
            Fence::AcqRel => "`fence.acq_rel.S`",
            Fence::Acquire => "`fence.acquire.S`",
            Fence::Release => "`fence.release.S`",
        };
        for o in [Acquire, Release, AcqRel, SeqCst] {
            let (old, split) = (
                fence_for(ScopeKind::Device, o, false),
                fence_for(ScopeKind::Device, o, true),
            );
            let cell = if old == split {
                String::from(fence(old))
            } else {
                format!("{} on sm_90 + PTX 8.6, else {}", fence(split), fence(old))
            };
            out += &format!("| `fence::<S>` | {} | {cell} |\n", order(o));
        }
        out += &format!(
            "| `fence::<Thread>` | any | {} |\n",
            fence(fence_for(ScopeKind::Thread, SeqCst, true))
        );
        for (scope, state) in [
            ("Global<S>", StateSpace::Global),
            ("Shared<S>", StateSpace::Shared),
        ] {
            let (qualifier, address) = space(state);
            out += &format!(
                "| every `ld`/`st`/`atom`/`red` above, on `{scope}` | as above | the same with \
                 `.S{qualifier}` (`atom.relaxed.S{qualifier}.add.u32`), on {address}; fences \
                 unchanged |\n"
            );
        }
        out
    }

    #[test]
    fn the_guide_mapping_table_is_generated_from_this_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/guide/ptx-mapping.md");
        let generated = mapping_markdown();
        if std::env::var_os("UPDATE_GUIDE").is_some() {
            std::fs::write(path, &generated).unwrap();
        }
        let stored = include_str!("../../guide/ptx-mapping.md");
        assert!(
            stored == generated,
            "src/guide/ptx-mapping.md is not what table.rs says: run \
             `UPDATE_GUIDE=1 cargo test -p scoped-atomics --lib mapping`\n--- generated:\n{generated}"
        );
    }

    #[test]
    #[should_panic(expected = "there is no such thing as an acquire store")]
    fn invalid_orders_panic_with_core_messages() {
        store(Acquire);
    }
}
