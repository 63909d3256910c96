//! Invalid orderings panic with `core`'s messages, word for word.
//!
//! The main test runs a table of `(operation, expected message)` cases under `catch_unwind`, and
//! runs the same operation on `std`'s atomic wherever `std` has it (for floats: the integer atomic
//! holding the bits), asserting that both panic, with exactly the expected message. It covers every
//! value type at every scope, the views (`AtomicRef`, `with_scope`), the scoped fences, each
//! per-scope module's `fence` and `compiler_fence`, and the reductions (which `std` lacks: their
//! messages are the crate's own, and the panic must point at the caller). A second table checks
//! that every *valid* ordering does not panic. A few `#[should_panic]` tests follow, as the
//! simplest possible statement of each message.

// The calls on std below are invalid on purpose; rustc rejects them when it can see the ordering.
#![allow(invalid_atomic_ordering)]

use scoped_atomics::{Atomic, AtomicRef, Block, Cluster, Device, PlainScope, System, Thread};
use std::sync::atomic as sa;
use std::sync::atomic::Ordering::{self, AcqRel, Acquire, Relaxed, Release, SeqCst};

const RELEASE_LOAD: &str = "there is no such thing as a release load";
const ACQ_REL_LOAD: &str = "there is no such thing as an acquire-release load";
const ACQUIRE_STORE: &str = "there is no such thing as an acquire store";
const ACQ_REL_STORE: &str = "there is no such thing as an acquire-release store";
const RELEASE_FAILURE: &str = "there is no such thing as a release failure ordering";
const ACQ_REL_FAILURE: &str = "there is no such thing as an acquire-release failure ordering";
const RELAXED_FENCE: &str = "there is no such thing as a relaxed fence";
const ACQUIRE_REDUCTION: &str = "there is no such thing as an acquire reduction";
const ACQ_REL_REDUCTION: &str = "there is no such thing as an acquire-release reduction";
const SEQ_CST_REDUCTION: &str = "there is no such thing as a sequentially consistent reduction";

type Op = Box<dyn Fn()>;

struct Case {
    name: String,
    expected: &'static str,
    ours: Op,
    /// The same operation on `std`'s atomic, where `std` has it.
    std: Option<Op>,
    /// Whether the panic must be reported at the caller (`#[track_caller]` all the way).
    at_caller: bool,
}

mod common;
use common::panic_of;

// Views of an owned atomic through which a case runs its operation.
fn direct<T: scoped_atomics::AtomicPrimitive, S: PlainScope>(a: &Atomic<T, S>) -> &Atomic<T, S> {
    a
}
fn via_ref<T: scoped_atomics::AtomicPrimitive, S: PlainScope>(
    a: &Atomic<T, S>,
) -> AtomicRef<'_, T, S> {
    AtomicRef::from(a)
}
fn via_thread_scope<T: scoped_atomics::AtomicPrimitive, S: PlainScope>(
    a: &Atomic<T, S>,
) -> AtomicRef<'_, T, Thread> {
    a.with_scope::<Thread>()
}
fn via_ref_system_scope<T: scoped_atomics::AtomicPrimitive, S: PlainScope>(
    a: &Atomic<T, S>,
) -> AtomicRef<'_, T, System> {
    AtomicRef::from(a).with_scope::<System>()
}

/// Pushes one case: `$body` runs with `$a` bound to our atomic (through `$view`) and `$v` to a
/// value, and again with `$a` bound to std's atomic and `$v` to std's value.
macro_rules! case {
    ($cases:ident, $label:expr, $what:literal, $msg:expr, |$a:ident, $v:ident| $body:block,
        ours: $view:ident($ours:expr), $ov:expr; std: $std:expr, $sv:expr) => {
        $cases.push(Case {
            name: format!("{}: {}", $label, $what),
            expected: $msg,
            ours: Box::new(move || {
                let owner = $ours;
                let $a = $view(&owner);
                let $v = $ov;
                let _ = $v;
                $body
            }),
            std: Some(Box::new(move || {
                let $a = $std;
                let $v = $sv;
                let _ = $v;
                $body
            })),
            at_caller: false,
        });
    };
}

/// The invalid-ordering cases every value type shares. `$ours` makes our atomic, `$ov` is a value
/// of our type; `$std` and `$sv` are the same for std's atomic.
macro_rules! value_cases {
    ($cases:ident, $label:expr, $view:ident($ours:expr), $ov:expr; $std:expr, $sv:expr) => {
        macro_rules! push {
                            ($what:literal, $msg:expr, |$a:ident, $v:ident| $body:block) => {
                                case!($cases, $label, $what, $msg, |$a, $v| $body,
                                    ours: $view($ours), $ov; std: $std, $sv)
                            };
                        }
        push!("load(Release)", RELEASE_LOAD, |a, v| {
            a.load(Release);
        });
        push!("load(AcqRel)", ACQ_REL_LOAD, |a, v| {
            a.load(AcqRel);
        });
        push!("store(Acquire)", ACQUIRE_STORE, |a, v| {
            a.store(v, Acquire);
        });
        push!("store(AcqRel)", ACQ_REL_STORE, |a, v| {
            a.store(v, AcqRel);
        });
        // Failing and succeeding comparisons: the failure ordering is checked either way.
        push!(
            "compare_exchange(SeqCst, Release)",
            RELEASE_FAILURE,
            |a, v| {
                let _ = a.compare_exchange(v, v, SeqCst, Release);
            }
        );
        push!(
            "compare_exchange(Relaxed, Release) failing",
            RELEASE_FAILURE,
            |a, v| {
                let current = a.load(Relaxed);
                let _ = a.swap(v, Relaxed);
                let _ = a.compare_exchange(current, v, Relaxed, Release);
            }
        );
        push!(
            "compare_exchange(AcqRel, AcqRel)",
            ACQ_REL_FAILURE,
            |a, v| {
                let _ = a.compare_exchange(v, v, AcqRel, AcqRel);
            }
        );
        push!(
            "compare_exchange(Relaxed, AcqRel)",
            ACQ_REL_FAILURE,
            |a, v| {
                let _ = a.compare_exchange(v, v, Relaxed, AcqRel);
            }
        );
        push!(
            "compare_exchange_weak(Release, Release)",
            RELEASE_FAILURE,
            |a, v| {
                let _ = a.compare_exchange_weak(v, v, Release, Release);
            }
        );
        push!(
            "compare_exchange_weak(SeqCst, AcqRel)",
            ACQ_REL_FAILURE,
            |a, v| {
                let _ = a.compare_exchange_weak(v, v, SeqCst, AcqRel);
            }
        );
        // `fetch_update` loads with its fetch ordering first, so std panics as a load does.
        push!("fetch_update(SeqCst, Release)", RELEASE_LOAD, |a, v| {
            #[allow(deprecated, deprecated_in_future)]
            let _ = a.fetch_update(SeqCst, Release, |_| None);
        });
        push!("fetch_update(Relaxed, AcqRel)", ACQ_REL_LOAD, |a, v| {
            #[allow(deprecated, deprecated_in_future)]
            let _ = a.fetch_update(Relaxed, AcqRel, |x| Some(x));
        });
    };
}

/// `value_cases!` for one type at every scope (and through every view at one scope).
macro_rules! type_cases {
    ($cases:ident, $t:ty, $ov:expr; $std:ty, $sv:expr) => {
        type_cases!(@scopes $cases, $t, $ov; $std, $sv; Thread Block Cluster Device System);
        for_views!($cases, $t, $ov; $std, $sv; via_ref via_thread_scope via_ref_system_scope);
    };
    (@scopes $cases:ident, $t:ty, $ov:expr; $std:ty, $sv:expr; $($scope:ident)*) => {$(
        {
            // One small function per table slice: one huge function takes rustc minutes.
            fn push_cases(cases: &mut Vec<Case>) {
                value_cases!(cases, concat!("Atomic<", stringify!($t), ", ", stringify!($scope), ">"),
                    direct(Atomic::<$t, $scope>::new($ov)), $ov; <$std>::new($sv), $sv);
            }
            push_cases(&mut $cases);
        }
    )*};
}
macro_rules! for_views {
    ($cases:ident, $t:ty, $ov:expr; $std:ty, $sv:expr; $($view:ident)*) => {$(
        {
            fn push_cases(cases: &mut Vec<Case>) {
                value_cases!(cases, concat!(stringify!($view), "(Atomic<", stringify!($t), ", Device>)"),
                    $view(Atomic::<$t, Device>::new($ov)), $ov; <$std>::new($sv), $sv);
            }
            push_cases(&mut $cases);
        }
    )*};
}

/// Reductions with an acquiring ordering, for each type that has them, at every scope.
macro_rules! reduction_cases {
    ($cases:ident, $($t:ty: $v:expr => [$($op:ident)*];)*) => {$(
        reduction_cases!(@scopes $cases, $t, $v, [$($op)*]; Thread Block Cluster Device System);
    )*};
    (@scopes $cases:ident, $t:ty, $v:expr, $ops:tt; $($scope:ident)*) => {$(
        {
            fn push_cases(cases: &mut Vec<Case>) {
                reduction_cases!(@ops cases, $t, $v, $scope, $ops);
            }
            push_cases(&mut $cases);
        }
    )*};
    (@ops $cases:ident, $t:ty, $v:expr, $scope:ident, [$($op:ident)*]) => {$(
        for (order, expected) in [
            (Acquire, ACQUIRE_REDUCTION),
            (AcqRel, ACQ_REL_REDUCTION),
            (SeqCst, SEQ_CST_REDUCTION),
        ] {
            $cases.push(Case {
                name: format!(
                    "Atomic<{}, {}>::{}({order:?})",
                    stringify!($t), stringify!($scope), stringify!($op)
                ),
                expected,
                ours: Box::new(move || Atomic::<$t, $scope>::new($v).$op($v, order)),
                std: None,
                at_caller: true,
            });
            $cases.push(Case {
                name: format!(
                    "AtomicRef<{}, {}>::{}({order:?})",
                    stringify!($t), stringify!($scope), stringify!($op)
                ),
                expected,
                ours: Box::new(move || {
                    let a = Atomic::<$t, Device>::new($v);
                    a.with_scope::<$scope>().$op($v, order)
                }),
                std: None,
                at_caller: true,
            });
        }
    )*};
}

/// `fence(Relaxed)`: the scoped fence at every scope, each per-scope module's `fence` and
/// `compiler_fence`, and the crate's `compiler_fence`, against std's `fence` / `compiler_fence`.
fn fence_cases(cases: &mut Vec<Case>) {
    fn push(cases: &mut Vec<Case>, name: &str, ours: fn(Ordering), std: fn(Ordering)) {
        cases.push(Case {
            name: format!("{name}(Relaxed)"),
            expected: RELAXED_FENCE,
            ours: Box::new(move || ours(Relaxed)),
            std: Some(Box::new(move || std(Relaxed))),
            at_caller: false,
        });
    }
    push(
        cases,
        "fence::<Thread>",
        scoped_atomics::fence::<Thread>,
        sa::fence,
    );
    push(
        cases,
        "fence::<Block>",
        scoped_atomics::fence::<Block>,
        sa::fence,
    );
    push(
        cases,
        "fence::<Cluster>",
        scoped_atomics::fence::<Cluster>,
        sa::fence,
    );
    push(
        cases,
        "fence::<Device>",
        scoped_atomics::fence::<Device>,
        sa::fence,
    );
    push(
        cases,
        "fence::<System>",
        scoped_atomics::fence::<System>,
        sa::fence,
    );
    push(
        cases,
        "thread::fence",
        scoped_atomics::thread::fence,
        sa::fence,
    );
    push(
        cases,
        "block::fence",
        scoped_atomics::block::fence,
        sa::fence,
    );
    push(
        cases,
        "cluster::fence",
        scoped_atomics::cluster::fence,
        sa::fence,
    );
    push(
        cases,
        "device::fence",
        scoped_atomics::device::fence,
        sa::fence,
    );
    push(
        cases,
        "system::fence",
        scoped_atomics::system::fence,
        sa::fence,
    );
    push(
        cases,
        "compiler_fence",
        scoped_atomics::compiler_fence,
        sa::compiler_fence,
    );
    push(
        cases,
        "thread::compiler_fence",
        scoped_atomics::thread::compiler_fence,
        sa::compiler_fence,
    );
    push(
        cases,
        "block::compiler_fence",
        scoped_atomics::block::compiler_fence,
        sa::compiler_fence,
    );
    push(
        cases,
        "cluster::compiler_fence",
        scoped_atomics::cluster::compiler_fence,
        sa::compiler_fence,
    );
    push(
        cases,
        "device::compiler_fence",
        scoped_atomics::device::compiler_fence,
        sa::compiler_fence,
    );
    push(
        cases,
        "system::compiler_fence",
        scoped_atomics::system::compiler_fence,
        sa::compiler_fence,
    );
}

fn all_invalid_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    type_cases!(cases, bool, true; sa::AtomicBool, true);
    type_cases!(cases, u8, 7u8; sa::AtomicU8, 7u8);
    type_cases!(cases, i8, -7i8; sa::AtomicI8, -7i8);
    type_cases!(cases, u16, 7u16; sa::AtomicU16, 7u16);
    type_cases!(cases, i16, -7i16; sa::AtomicI16, -7i16);
    type_cases!(cases, u32, 7u32; sa::AtomicU32, 7u32);
    type_cases!(cases, i32, -7i32; sa::AtomicI32, -7i32);
    type_cases!(cases, u64, 7u64; sa::AtomicU64, 7u64);
    type_cases!(cases, i64, -7i64; sa::AtomicI64, -7i64);
    type_cases!(cases, usize, 7usize; sa::AtomicUsize, 7usize);
    type_cases!(cases, isize, -7isize; sa::AtomicIsize, -7isize);
    // std has no float atomics: what a std program does, the integer atomic holding the bits.
    type_cases!(cases, f32, 1.5f32; sa::AtomicU32, 1.5f32.to_bits());
    type_cases!(cases, f64, -2.5f64; sa::AtomicU64, (-2.5f64).to_bits());
    type_cases!(cases, *mut u8, std::ptr::null_mut::<u8>(); sa::AtomicPtr<u8>, std::ptr::null_mut::<u8>());
    type_cases!(cases, *mut u64, std::ptr::dangling_mut::<u64>();
        sa::AtomicPtr<u64>, std::ptr::dangling_mut::<u64>());
    fence_cases(&mut cases);
    reduction_cases!(cases,
        u32: 5u32 => [add sub and or xor min max];
        i32: -5i32 => [add sub and or xor min max];
        u64: 5u64 => [add sub and or xor min max];
        i64: -5i64 => [add sub and or xor min max];
        usize: 5usize => [add sub and or xor min max];
        isize: -5isize => [add sub and or xor min max];
        f32: 0.5f32 => [add sub];
        f64: 0.5f64 => [add sub];
    );
    cases
}

/// Under Miri (every panic and unwind is interpreted) only every `MIRI_STRIDE`-th case runs. The
/// stride is coprime to the 12 cases of each `value_cases!` block, so the kept cases still rotate
/// through every operation, type and view.
const MIRI_STRIDE: usize = 11;

#[test]
fn invalid_orderings_panic_with_cores_messages() {
    let all = all_invalid_cases();
    // Guard against the table silently shrinking: 15 types x 8 views x 12 operations, 16 fences,
    // (6 x 7 + 2 x 2) reductions x 5 scopes x 3 orderings x 2 views.
    assert_eq!(all.len(), 15 * 8 * 12 + 16 + (6 * 7 + 2 * 2) * 5 * 3 * 2);
    let stride = if cfg!(miri) { MIRI_STRIDE } else { 1 };
    let cases: Vec<Case> = all.into_iter().step_by(stride).collect();
    let mut failures = Vec::new();
    let mut compared_with_std = 0;
    for case in &cases {
        match panic_of(&*case.ours) {
            None => failures.push(format!("{}: did not panic", case.name)),
            Some((message, location)) => {
                if message != case.expected {
                    failures.push(format!(
                        "{}: panicked with {message:?}, expected {:?}",
                        case.name, case.expected
                    ));
                }
                if case.at_caller
                    && !location
                        .as_deref()
                        .is_some_and(|f| f.ends_with("misuse.rs"))
                {
                    failures.push(format!(
                        "{}: panic reported at {location:?}, not at the caller",
                        case.name
                    ));
                }
            }
        }
        if let Some(std_op) = &case.std {
            compared_with_std += 1;
            match panic_of(&**std_op) {
                None => failures.push(format!("{}: std did not panic (bad test)", case.name)),
                Some((message, _)) if message != case.expected => failures.push(format!(
                    "{}: std panics with {message:?}, the table expects {:?}",
                    case.name, case.expected
                )),
                Some(_) => {}
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    if stride == 1 {
        assert_eq!(compared_with_std, 15 * 8 * 12 + 16);
    }
}

/// Every valid ordering of every operation runs without a panic, on ours and on std's.
macro_rules! valid_orderings {
    ($($t:ty, $ov:expr; $std:ty, $sv:expr;)*) => {{
        let mut ran = 0;
        $(
            let ours = Atomic::<$t, Device>::new($ov);
            let std = <$std>::new($sv);
            for order in [Relaxed, Acquire, SeqCst] {
                assert!(panic_of(&|| { ours.load(order); std.load(order); }).is_none());
                ran += 1;
            }
            for order in [Relaxed, Release, SeqCst] {
                assert!(panic_of(&|| { ours.store($ov, order); std.store($sv, order); }).is_none());
                ran += 1;
            }
            for success in [Relaxed, Release, Acquire, AcqRel, SeqCst] {
                assert!(panic_of(&|| { ours.swap($ov, success); std.swap($sv, success); }).is_none());
                for failure in [Relaxed, Acquire, SeqCst] {
                    assert!(panic_of(&|| {
                        let _ = ours.compare_exchange($ov, $ov, success, failure);
                        let _ = ours.compare_exchange_weak($ov, $ov, success, failure);
                        let _ = ours.fetch_update(success, failure, |x| Some(x));
                        let _ = std.compare_exchange($sv, $sv, success, failure);
                        let _ = std.compare_exchange_weak($sv, $sv, success, failure);
                        #[allow(deprecated, deprecated_in_future)]
                        let _ = std.fetch_update(success, failure, |x| Some(x));
                    })
                    .is_none());
                    ran += 1;
                }
            }
        )*
        ran
    }};
}

#[test]
fn valid_orderings_do_not_panic() {
    let ran = valid_orderings! {
        bool, true; sa::AtomicBool, true;
        u8, 1u8; sa::AtomicU8, 1u8;
        i16, 1i16; sa::AtomicI16, 1i16;
        u32, 1u32; sa::AtomicU32, 1u32;
        i64, 1i64; sa::AtomicI64, 1i64;
        usize, 1usize; sa::AtomicUsize, 1usize;
        f32, 1.0f32; sa::AtomicU32, 1.0f32.to_bits();
        f64, 1.0f64; sa::AtomicU64, 1.0f64.to_bits();
        *mut u8, std::ptr::null_mut::<u8>(); sa::AtomicPtr<u8>, std::ptr::null_mut::<u8>();
    };
    assert_eq!(ran, 9 * (3 + 3 + 5 * 3));

    // Read-modify-writes accept every ordering; reductions accept Relaxed and Release.
    for order in [Relaxed, Release, Acquire, AcqRel, SeqCst] {
        let (u, f, b) = (
            Atomic::<u32, Block>::new(1),
            Atomic::<f64, Block>::new(1.0),
            Atomic::<bool, Block>::new(true),
        );
        let p = Atomic::<*mut u64, Block>::new(std::ptr::null_mut());
        assert!(
            panic_of(|| {
                u.fetch_add(1, order);
                u.fetch_sub(1, order);
                u.fetch_and(1, order);
                u.fetch_nand(1, order);
                u.fetch_or(1, order);
                u.fetch_xor(1, order);
                u.fetch_min(1, order);
                u.fetch_max(1, order);
                f.fetch_add(1.0, order);
                f.fetch_sub(1.0, order);
                f.fetch_min(1.0, order);
                f.fetch_max(1.0, order);
                b.fetch_and(true, order);
                b.fetch_nand(true, order);
                b.fetch_or(true, order);
                b.fetch_xor(true, order);
                b.fetch_not(order);
                p.fetch_ptr_add(1, order);
                p.fetch_ptr_sub(1, order);
                p.fetch_byte_add(1, order);
                p.fetch_byte_sub(1, order);
            })
            .is_none()
        );
    }
    for order in [Relaxed, Release] {
        let (u, i, f) = (
            Atomic::<u64, Thread>::new(1),
            Atomic::<isize, System>::new(1),
            Atomic::<f32, Cluster>::new(1.0),
        );
        assert!(
            panic_of(|| {
                u.add(1, order);
                u.sub(1, order);
                u.and(1, order);
                u.or(1, order);
                u.xor(1, order);
                u.min(1, order);
                u.max(1, order);
                i.max(1, order);
                f.add(1.0, order);
                f.sub(1.0, order);
            })
            .is_none()
        );
    }
    for order in [Release, Acquire, AcqRel, SeqCst] {
        assert!(
            panic_of(|| {
                scoped_atomics::fence::<Thread>(order);
                scoped_atomics::fence::<Block>(order);
                scoped_atomics::fence::<Cluster>(order);
                scoped_atomics::fence::<Device>(order);
                scoped_atomics::fence::<System>(order);
                scoped_atomics::device::fence(order);
                scoped_atomics::compiler_fence(order);
            })
            .is_none()
        );
    }
}

// The simplest statement of each message (`expected` matches a substring; the table above checks
// the whole message).

#[test]
#[should_panic(expected = "there is no such thing as a release load")]
fn load_release() {
    Atomic::<u32, Device>::new(0).load(Release);
}

#[test]
#[should_panic(expected = "there is no such thing as an acquire-release load")]
fn load_acq_rel() {
    Atomic::<f32, Block>::new(0.0).load(AcqRel);
}

#[test]
#[should_panic(expected = "there is no such thing as an acquire store")]
fn store_acquire() {
    Atomic::<u8, Thread>::new(0).store(1, Acquire);
}

#[test]
#[should_panic(expected = "there is no such thing as an acquire-release store")]
fn store_acq_rel() {
    Atomic::<bool, System>::new(false).store(true, AcqRel);
}

#[test]
#[should_panic(expected = "there is no such thing as a release failure ordering")]
fn failure_release() {
    let _ = Atomic::<u64, Cluster>::new(0).compare_exchange(0, 1, SeqCst, Release);
}

#[test]
#[should_panic(expected = "there is no such thing as an acquire-release failure ordering")]
fn failure_acq_rel() {
    let p = std::ptr::null_mut::<u8>();
    let _ = Atomic::<*mut u8, Device>::new(p).compare_exchange_weak(p, p, SeqCst, AcqRel);
}

#[test]
#[should_panic(expected = "there is no such thing as a relaxed fence")]
fn thread_fence_relaxed() {
    scoped_atomics::fence::<Thread>(Relaxed);
}

#[test]
#[should_panic(expected = "there is no such thing as a relaxed fence")]
fn system_fence_relaxed() {
    scoped_atomics::system::fence(Relaxed);
}

#[test]
#[should_panic(expected = "there is no such thing as a relaxed fence")]
fn compiler_fence_relaxed() {
    scoped_atomics::compiler_fence(Relaxed);
}

#[test]
#[should_panic(expected = "there is no such thing as an acquire reduction")]
fn reduction_acquire() {
    Atomic::<u32, Device>::new(0).add(1, Acquire);
}

#[test]
#[should_panic(expected = "there is no such thing as an acquire-release reduction")]
fn reduction_acq_rel() {
    Atomic::<i64, Block>::new(0).max(1, AcqRel);
}

#[test]
#[should_panic(expected = "there is no such thing as a sequentially consistent reduction")]
fn reduction_seq_cst() {
    Atomic::<f64, System>::new(0.0).sub(1.0, SeqCst);
}
