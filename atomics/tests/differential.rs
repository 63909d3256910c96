//! Differential test: random single-threaded sequences of operations on `Atomic<T, S>` against the
//! `std::sync::atomic` type of the same `T` (or, for `f32`/`f64`, which `std` lacks, against a
//! reference model made of the integer atomic of the same width plus plain float arithmetic: what
//! `std` would do). Every operation must return the same value and leave the same value behind.
//!
//! * Every `T` the crate supports, every method, every valid ordering (drawn at random per
//!   operation), and every way of reaching the location: the atomic itself, `AtomicRef::from`,
//!   `with_scope` (on the atomic and on an `AtomicRef`), `from_mut`, `from_mut_slice`,
//!   `AtomicRef::new`, `from_ptr` and `AtomicRef::from_ptr`, each at a random scope, plus
//!   `get_mut`, `into_inner`/`From` and `Debug`.
//! * The main atomic's own scope is drawn at random too.
//! * Floats are compared by bits (`to_bits`), never with `==`.

use Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::{BoxedStrategy, Union};
use proptest::test_runner::RngAlgorithm;
use scoped_atomics::{
    Atomic, AtomicRef, Block, Cluster, Device, Ordering, PlainScope, System, Thread,
};
use std::fmt;
use std::sync::atomic as sa;

/// Kept moderate natively, and small under Miri (which interprets every step).
const CASES: u32 = if cfg!(miri) { 4 } else { 64 };
const MAX_OPS: usize = if cfg!(miri) { 6 } else { 32 };

/// A single-threaded weak compare-exchange whose value is `current` succeeds eventually; Miri makes
/// it fail spuriously 80% of the time by default. This many failures in a row is a bug.
const WEAK_RETRY_LIMIT: usize = 10_000;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: CASES,
        // No files: Miri's isolation forbids them, and a regression file per type would be noise.
        failure_persistence: None,
        // proptest's default ChaCha generator dominates the run time under Miri; any generator
        // will do for drawing test cases.
        rng_algorithm: if cfg!(miri) {
            RngAlgorithm::XorShift
        } else {
            RngAlgorithm::default()
        },
        ..ProptestConfig::default()
    }
}

/// Runs `$e` with the type alias `$S` bound to the scope numbered `$i` (mod 5).
macro_rules! by_scope {
    ($i:expr, $S:ident => $e:expr) => {
        match $i % 5 {
            0 => {
                type $S = Thread;
                $e
            }
            1 => {
                type $S = Block;
                $e
            }
            2 => {
                type $S = Cluster;
                $e
            }
            3 => {
                type $S = Device;
                $e
            }
            _ => {
                type $S = System;
                $e
            }
        }
    };
}

fn any_order() -> BoxedStrategy<Ordering> {
    select(vec![Relaxed, Release, Acquire, AcqRel, SeqCst]).boxed()
}
/// Valid for loads, and for the failure (fetch) ordering of compare-exchange and `fetch_update`.
fn load_order() -> BoxedStrategy<Ordering> {
    select(vec![Relaxed, Acquire, SeqCst]).boxed()
}
fn store_order() -> BoxedStrategy<Ordering> {
    select(vec![Relaxed, Release, SeqCst]).boxed()
}
fn reduce_order() -> BoxedStrategy<Ordering> {
    select(vec![Relaxed, Release]).boxed()
}

/// How an operation reaches the location; the `u8` picks the scope of the view (see `by_scope!`).
#[derive(Clone, Copy, Debug)]
enum View {
    Direct,
    Ref,
    WithScope(u8),
    RefWithScope(u8),
    FromMut(u8),
    FromMutSlice(u8),
    RefNew(u8),
    FromPtr(u8),
    RefFromPtr(u8),
}

fn view() -> impl Strategy<Value = View> {
    let scope = || 0u8..5;
    prop_oneof![
        4 => Just(View::Direct),
        1 => Just(View::Ref),
        1 => scope().prop_map(View::WithScope),
        1 => scope().prop_map(View::RefWithScope),
        1 => scope().prop_map(View::FromMut),
        1 => scope().prop_map(View::FromMutSlice),
        1 => scope().prop_map(View::RefNew),
        1 => scope().prop_map(View::FromPtr),
        1 => scope().prop_map(View::RefFromPtr),
    ]
}

/// Runs a weak compare-exchange until its outcome is not a spurious failure.
///
/// Why this is sound: the test is single-threaded, so nothing changes the value between attempts.
/// A weak compare-exchange may fail even though the value equals `current` (spuriously; on LL/SC
/// machines, and under Miri, which fails 80% of them on purpose), and then returns `Err(v)` with `v`
/// equal to `current` and leaves the value alone. Any other outcome is final: `Ok(_)`, or `Err(v)`
/// with `v != current` (a genuine mismatch, which a retry would repeat). So retrying exactly the
/// spurious failures turns each side into the strong compare-exchange, whose result is
/// deterministic, and both sides (ours and std's, each retried the same way) can be compared
/// exactly. A spurious failure that changed the value would show up as a mismatch in the final
/// value, which is compared after every operation.
fn settle_weak<T: Copy + fmt::Debug>(
    current: T,
    same: impl Fn(&T, &T) -> bool,
    mut cas: impl FnMut() -> Result<T, T>,
) -> Result<Result<T, T>, TestCaseError> {
    for _ in 0..WEAK_RETRY_LIMIT {
        match cas() {
            Err(seen) if same(&seen, &current) => continue,
            outcome => return Ok(outcome),
        }
    }
    Err(TestCaseError::fail(format!(
        "compare_exchange_weak({current:?}, ..) failed spuriously {WEAK_RETRY_LIMIT} times in a row"
    )))
}

/// The reference model for an atomic float: `std`'s integer atomic of the same width holding the
/// bits, with the float operations a program using `std` would write. Read-modify-writes are a
/// plain load and store (the test is single-threaded), so they share no code with the crate's
/// compare-exchange loops.
macro_rules! float_model {
    ($name:ident, $f:ident, $atomic:ty) => {
        #[derive(Default)]
        struct $name($atomic);

        #[allow(dead_code)]
        impl $name {
            fn new(v: $f) -> Self {
                Self(<$atomic>::new(v.to_bits()))
            }
            fn load(&self, o: Ordering) -> $f {
                $f::from_bits(self.0.load(o))
            }
            fn store(&self, v: $f, o: Ordering) {
                self.0.store(v.to_bits(), o)
            }
            fn swap(&self, v: $f, o: Ordering) -> $f {
                $f::from_bits(self.0.swap(v.to_bits(), o))
            }
            fn compare_exchange(&self, c: $f, n: $f, s: Ordering, f: Ordering) -> Result<$f, $f> {
                let r = self.0.compare_exchange(c.to_bits(), n.to_bits(), s, f);
                r.map($f::from_bits).map_err($f::from_bits)
            }
            fn compare_exchange_weak(
                &self,
                c: $f,
                n: $f,
                s: Ordering,
                f: Ordering,
            ) -> Result<$f, $f> {
                let r = self.0.compare_exchange_weak(c.to_bits(), n.to_bits(), s, f);
                r.map($f::from_bits).map_err($f::from_bits)
            }
            #[allow(deprecated, deprecated_in_future)]
            fn fetch_update(
                &self,
                s: Ordering,
                f: Ordering,
                mut g: impl FnMut($f) -> Option<$f>,
            ) -> Result<$f, $f> {
                let r = self
                    .0
                    .fetch_update(s, f, |bits| g($f::from_bits(bits)).map($f::to_bits));
                r.map($f::from_bits).map_err($f::from_bits)
            }
            fn rmw(&self, next: impl FnOnce($f) -> $f) -> $f {
                let old = self.load(Relaxed);
                self.store(next(old), Relaxed);
                old
            }
            fn fetch_add(&self, v: $f, _: Ordering) -> $f {
                self.rmw(|x| x + v)
            }
            fn fetch_sub(&self, v: $f, _: Ordering) -> $f {
                self.rmw(|x| x - v)
            }
            fn fetch_min(&self, v: $f, _: Ordering) -> $f {
                self.rmw(|x| x.min(v))
            }
            fn fetch_max(&self, v: $f, _: Ordering) -> $f {
                self.rmw(|x| x.max(v))
            }
            fn get_mut(&mut self) -> &mut $f {
                // SAFETY: same size and alignment, every bit pattern is a valid float.
                unsafe { &mut *(self.0.get_mut() as *mut _ as *mut $f) }
            }
            fn into_inner(self) -> $f {
                $f::from_bits(self.0.into_inner())
            }
        }

        impl From<$f> for $name {
            fn from(v: $f) -> Self {
                Self::new(v)
            }
        }

        /// As `std` formats its atomics: the value's `Debug`.
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.load(Relaxed), f)
            }
        }
    };
}

float_model!(F32Model, f32, sa::AtomicU32);
float_model!(F64Model, f64, sa::AtomicU64);

/// One differential test module for one `T`:
/// * `model`: the std atomic (or float model) to compare against;
/// * `values`: strategy for values of `T`;
/// * `same`: exact equality of two `T`s (bits for floats, addresses for pointers);
/// * `tolerate(op, ours, model)`: whether a differing *final* value after operation `op` is allowed
///   by Rust's semantics (see the float invocations), in which case the model adopts ours;
/// * `update`: a deterministic `T -> T` used by `fetch_update` closures;
/// * `rmw(Arg = strategy) [...]`: the `fetch_*(arg, order) -> T` methods, same name on both sides;
/// * `reduce [ours => std]`: reductions and the std `fetch_*` they must behave like;
/// * `unary [...]`: `fetch_*(order) -> T` methods without operand.
macro_rules! differential {
    (
        $name:ident: $t:ty, model $model:ty,
        values $vals:expr,
        same $same:expr,
        tolerate $tol:expr,
        update $xform:expr,
        rmw($arg:ty = $args:expr) [$($rmw:ident),* $(,)?],
        reduce [$($red:ident => $red_std:ident),* $(,)?],
        unary [$($un:ident),* $(,)?] $(,)?
    ) => {
        #[allow(dead_code, unused_variables, unreachable_code, unreachable_patterns)]
        mod $name {
            use super::*;

            type T = $t;
            type Model = $model;

            fn values() -> BoxedStrategy<T> {
                ($vals).boxed()
            }
            fn same(a: &T, b: &T) -> bool {
                ($same)(a, b)
            }
            fn tolerate(op: &'static str, ours: T, model: T) -> bool {
                ($tol)(op, ours, model)
            }
            fn transform(x: T) -> T {
                ($xform)(x)
            }

            #[allow(non_camel_case_types)]
            #[derive(Clone, Copy, Debug)]
            enum Rmw { $($rmw),* }
            #[allow(non_camel_case_types)]
            #[derive(Clone, Copy, Debug)]
            enum Red { $($red),* }
            #[allow(non_camel_case_types)]
            #[derive(Clone, Copy, Debug)]
            enum Un { $($un),* }

            /// The expected value of a compare-exchange: the current value (so it succeeds) or any.
            #[derive(Clone, Copy, Debug)]
            enum Cur {
                Actual,
                Value(T),
            }

            /// The closure given to `fetch_update`: a deterministic function of the value it sees
            /// and of `arg`, which declines (`None`) in some cases.
            #[derive(Clone, Copy, Debug)]
            enum Upd {
                Never,
                Always,
                UnlessEqual,
                Transform,
                TransformUnlessEqual,
            }

            impl Upd {
                fn apply(self, x: T, arg: T) -> Option<T> {
                    match self {
                        Upd::Never => None,
                        Upd::Always => Some(arg),
                        Upd::UnlessEqual => (!same(&x, &arg)).then_some(arg),
                        Upd::Transform => Some(transform(x)),
                        Upd::TransformUnlessEqual => (!same(&x, &arg)).then(|| transform(x)),
                    }
                }
            }

            #[derive(Clone, Copy, Debug)]
            enum Op {
                Load(Ordering),
                Store(T, Ordering),
                Swap(T, Ordering),
                Cas { current: Cur, new: T, success: Ordering, failure: Ordering, weak: bool },
                Update { set: Ordering, fetch: Ordering, f: Upd, arg: T },
                Rmw(Rmw, $arg, Ordering),
                Reduce(Red, T, Ordering),
                Unary(Un, Ordering),
                Debug,
                GetMut(T),
                IntoInner,
            }

            fn op() -> BoxedStrategy<Op> {
                let cur = prop_oneof![Just(Cur::Actual), values().prop_map(Cur::Value)];
                let upd = select(vec![
                    Upd::Never,
                    Upd::Always,
                    Upd::UnlessEqual,
                    Upd::Transform,
                    Upd::TransformUnlessEqual,
                ]);
                let mut arms: Vec<(u32, BoxedStrategy<Op>)> = vec![
                    (2, load_order().prop_map(Op::Load).boxed()),
                    (2, (values(), store_order()).prop_map(|(v, o)| Op::Store(v, o)).boxed()),
                    (2, (values(), any_order()).prop_map(|(v, o)| Op::Swap(v, o)).boxed()),
                    (
                        5,
                        (cur, values(), any_order(), load_order(), any::<bool>())
                            .prop_map(|(current, new, success, failure, weak)| Op::Cas {
                                current,
                                new,
                                success,
                                failure,
                                weak,
                            })
                            .boxed(),
                    ),
                    (
                        3,
                        (any_order(), load_order(), upd, values())
                            .prop_map(|(set, fetch, f, arg)| Op::Update { set, fetch, f, arg })
                            .boxed(),
                    ),
                    (1, Just(Op::Debug).boxed()),
                    (1, values().prop_map(Op::GetMut).boxed()),
                    (1, Just(Op::IntoInner).boxed()),
                ];
                let rmw: Vec<Rmw> = vec![$(Rmw::$rmw),*];
                if !rmw.is_empty() {
                    let s = (select(rmw), $args, any_order());
                    arms.push((8, s.prop_map(|(k, v, o)| Op::Rmw(k, v, o)).boxed()));
                }
                let red: Vec<Red> = vec![$(Red::$red),*];
                if !red.is_empty() {
                    let s = (select(red), values(), reduce_order());
                    arms.push((4, s.prop_map(|(k, v, o)| Op::Reduce(k, v, o)).boxed()));
                }
                let un: Vec<Un> = vec![$(Un::$un),*];
                if !un.is_empty() {
                    let s = (select(un), any_order());
                    arms.push((2, s.prop_map(|(k, o)| Op::Unary(k, o)).boxed()));
                }
                Union::new_weighted(arms).boxed()
            }

            /// The name of an arithmetic operation (for `tolerate`), or `"other"`.
            fn op_name(op: &Op) -> &'static str {
                match op {
                    Op::Rmw(k, ..) => match *k { $(Rmw::$rmw => stringify!($rmw),)* },
                    Op::Reduce(k, ..) => match *k { $(Red::$red => stringify!($red),)* },
                    Op::Unary(k, ..) => match *k { $(Un::$un => stringify!($un),)* },
                    _ => "other",
                }
            }

            fn check(ours: T, std: T) -> Result<(), TestCaseError> {
                prop_assert!(same(&ours, &std), "ours returned {:?}, std {:?}", ours, std);
                Ok(())
            }

            fn check_result(ours: Result<T, T>, std: Result<T, T>) -> Result<(), TestCaseError> {
                match (ours, std) {
                    (Ok(x), Ok(y)) | (Err(x), Err(y)) if same(&x, &y) => Ok(()),
                    _ => Err(TestCaseError::fail(format!(
                        "ours returned {ours:?}, std {std:?}"
                    ))),
                }
            }

            /// One operation through an `&Atomic<T, S>` of any scope, and on the model.
            fn apply<S: PlainScope>(a: &Atomic<T, S>, m: &Model, op: &Op) -> Result<(), TestCaseError> {
                match *op {
                    Op::Load(o) => check(a.load(o), m.load(o)),
                    Op::Store(v, o) => {
                        a.store(v, o);
                        m.store(v, o);
                        Ok(())
                    }
                    Op::Swap(v, o) => check(a.swap(v, o), m.swap(v, o)),
                    Op::Cas { current, new, success, failure, weak } => {
                        let current = match current {
                            Cur::Actual => m.load(Relaxed),
                            Cur::Value(v) => v,
                        };
                        if weak {
                            let ours = settle_weak(current, same, || {
                                a.compare_exchange_weak(current, new, success, failure)
                            })?;
                            let std = settle_weak(current, same, || {
                                m.compare_exchange_weak(current, new, success, failure)
                            })?;
                            check_result(ours, std)
                        } else {
                            check_result(
                                a.compare_exchange(current, new, success, failure),
                                m.compare_exchange(current, new, success, failure),
                            )
                        }
                    }
                    Op::Update { set, fetch, f, arg } => {
                        let before = m.load(Relaxed);
                        let mut seen = Vec::new();
                        let ours = a.fetch_update(set, fetch, |x| {
                            seen.push(x);
                            f.apply(x, arg)
                        });
                        #[allow(deprecated, deprecated_in_future)]
                        let std = m.fetch_update(set, fetch, |x| f.apply(x, arg));
                        // Single-threaded, the closure only ever sees the value there was (it is
                        // called again only after a spurious weak failure).
                        prop_assert!(!seen.is_empty(), "fetch_update never called the closure");
                        for x in &seen {
                            prop_assert!(same(x, &before), "closure saw {:?}, value was {:?}", x, before);
                        }
                        check_result(ours, std)
                    }
                    Op::Rmw(k, v, o) => match k {
                        $(Rmw::$rmw => check(a.$rmw(v, o), m.$rmw(v, o)),)*
                    },
                    Op::Reduce(k, v, o) => match k {
                        $(Red::$red => {
                            a.$red(v, o);
                            let _ = m.$red_std(v, o);
                            Ok(())
                        })*
                    },
                    Op::Unary(k, o) => match k {
                        $(Un::$un => check(a.$un(o), m.$un(o)),)*
                    },
                    Op::Debug => {
                        let expected = format!("{m:?}");
                        prop_assert_eq!(&format!("{a:?}"), &expected);
                        prop_assert_eq!(&format!("{:?}", AtomicRef::from(a)), &expected);
                        Ok(())
                    }
                    Op::GetMut(_) | Op::IntoInner => unreachable!("needs the owned atomic"),
                }
            }

            /// One operation through the view `view` of the owned atomic.
            fn via_view<S0: scoped_atomics::PlainScope>(
                a: &mut Atomic<T, S0>,
                m: &Model,
                view: View,
                op: &Op,
            ) -> Result<(), TestCaseError> {
                match view {
                    View::Direct => apply(&*a, m, op),
                    View::Ref => apply(&*AtomicRef::from(&*a), m, op),
                    View::WithScope(s) => by_scope!(s, S => apply(&*a.with_scope::<S>(), m, op)),
                    View::RefWithScope(s) => {
                        by_scope!(s, S => apply(&*AtomicRef::from(&*a).with_scope::<S>(), m, op))
                    }
                    View::FromMut(s) => {
                        by_scope!(s, S => apply(Atomic::<T, S>::from_mut(a.get_mut()), m, op))
                    }
                    View::FromMutSlice(s) => {
                        // The value in the middle of three copies: the neighbours must not change.
                        let x = *a.get_mut();
                        let mut buf = [x, x, x];
                        by_scope!(s, S => apply(&Atomic::<T, S>::from_mut_slice(&mut buf)[1], m, op))?;
                        prop_assert!(same(&buf[0], &x) && same(&buf[2], &x), "neighbours changed: {:?}", buf);
                        *a.get_mut() = buf[1];
                        Ok(())
                    }
                    View::RefNew(s) => {
                        by_scope!(s, S => apply(&*AtomicRef::<T, S>::new(a.get_mut()), m, op))
                    }
                    View::FromPtr(s) => {
                        let p = a.as_ptr();
                        // SAFETY: `a` is borrowed exclusively for the whole call, so `p` is
                        // valid, aligned and accessed only through this view meanwhile.
                        by_scope!(s, S => apply(unsafe { Atomic::<T, S>::from_ptr(p) }, m, op))
                    }
                    View::RefFromPtr(s) => {
                        let p = a.as_ptr();
                        // SAFETY: as above.
                        by_scope!(s, S => apply(&*unsafe { AtomicRef::<T, S>::from_ptr(p) }, m, op))
                    }
                }
            }

            fn run<S: scoped_atomics::PlainScope>(init: T, ops: &[(View, Op)]) -> Result<(), TestCaseError> {
                let mut a = Atomic::<T, S>::new(init);
                let mut m = Model::new(init);
                for (i, (view, op)) in ops.iter().enumerate() {
                    let ctx = |e: TestCaseError| {
                        TestCaseError::fail(format!("op #{i} {op:?} via {view:?}: {e}"))
                    };
                    match *op {
                        Op::GetMut(v) => {
                            check(*a.get_mut(), *m.get_mut()).map_err(ctx)?;
                            *a.get_mut() = v;
                            *m.get_mut() = v;
                        }
                        Op::IntoInner => {
                            let x = std::mem::take(&mut a).into_inner();
                            let y = std::mem::take(&mut m).into_inner();
                            check(x, y).map_err(ctx)?;
                            a = Atomic::from(x);
                            m = Model::from(y);
                        }
                        _ => via_view(&mut a, &m, *view, op).map_err(ctx)?,
                    }
                    let (x, y) = (a.load(Relaxed), m.load(Relaxed));
                    if !same(&x, &y) {
                        prop_assert!(
                            tolerate(op_name(op), x, y),
                            "op #{} {:?} via {:?}: ours left {:?}, std {:?}",
                            i, op, view, x, y
                        );
                        m.store(x, Relaxed);
                    }
                }
                check(a.into_inner(), m.into_inner())
            }

            proptest! {
                #![proptest_config(config())]
                #[test]
                fn matches_std(
                    scope in 0u8..5,
                    init in values(),
                    ops in proptest::collection::vec((view(), op()), 0..=MAX_OPS),
                ) {
                    by_scope!(scope, S => run::<S>(init, &ops))?;
                }
            }
        }
    };
}

/// Integers: edge values often, arbitrary ones otherwise.
macro_rules! int_values {
    ($t:ty) => {
        prop_oneof![
            3 => any::<$t>(),
            2 => (0u8..8).prop_map(|x| x as $t),
            1 => Just(<$t>::MAX),
            1 => Just(<$t>::MIN),
            1 => Just((0 as $t).wrapping_sub(1)),
            1 => Just(<$t>::MAX / 2 + 1),
        ]
    };
}

/// `Atomic<int>` against `std`'s atomic of the same type; `reduce` lists the reductions (32/64-bit).
macro_rules! int_differential {
    ($($name:ident: $t:ident, $std:ident, reduce [$($red:ident => $red_std:ident),*];)*) => {$(
        differential! {
            $name: $t, model sa::$std,
            values int_values!($t),
            same |a: &$t, b: &$t| a == b,
            tolerate |_, _, _| false,
            update |x: $t| x.wrapping_mul(3).wrapping_add(1),
            rmw($t = values()) [
                fetch_add, fetch_sub, fetch_and, fetch_nand, fetch_or, fetch_xor, fetch_min, fetch_max,
            ],
            reduce [$($red => $red_std),*],
            unary [],
        }
    )*};
}

int_differential! {
    u8_: u8, AtomicU8, reduce [];
    i8_: i8, AtomicI8, reduce [];
    u16_: u16, AtomicU16, reduce [];
    i16_: i16, AtomicI16, reduce [];
    u32_: u32, AtomicU32, reduce [
        add => fetch_add, sub => fetch_sub, and => fetch_and, or => fetch_or, xor => fetch_xor,
        min => fetch_min, max => fetch_max
    ];
    i32_: i32, AtomicI32, reduce [
        add => fetch_add, sub => fetch_sub, and => fetch_and, or => fetch_or, xor => fetch_xor,
        min => fetch_min, max => fetch_max
    ];
    u64_: u64, AtomicU64, reduce [
        add => fetch_add, sub => fetch_sub, and => fetch_and, or => fetch_or, xor => fetch_xor,
        min => fetch_min, max => fetch_max
    ];
    i64_: i64, AtomicI64, reduce [
        add => fetch_add, sub => fetch_sub, and => fetch_and, or => fetch_or, xor => fetch_xor,
        min => fetch_min, max => fetch_max
    ];
    usize_: usize, AtomicUsize, reduce [
        add => fetch_add, sub => fetch_sub, and => fetch_and, or => fetch_or, xor => fetch_xor,
        min => fetch_min, max => fetch_max
    ];
    isize_: isize, AtomicIsize, reduce [
        add => fetch_add, sub => fetch_sub, and => fetch_and, or => fetch_or, xor => fetch_xor,
        min => fetch_min, max => fetch_max
    ];
}

/// Floats: NaNs (quiet, negative, and arbitrary payloads from raw bits, signalling ones included),
/// ±0.0, subnormals, ±infinity, extremes, small integers, and arbitrary values.
macro_rules! float_values {
    ($f:ident, $bits:ident) => {
        prop_oneof![
            3 => any::<$f>(),
            2 => any::<$bits>().prop_map($f::from_bits),
            3 => (-4i8..=4).prop_map(|x| x as $f * 0.5),
            1 => Just($f::NAN),
            1 => Just(-$f::NAN),
            2 => Just(0.0),
            2 => Just(-0.0),
            1 => Just($f::from_bits(1)),
            1 => Just(-$f::from_bits(1)),
            1 => Just($f::MIN_POSITIVE / 2.0),
            1 => Just($f::MIN_POSITIVE),
            1 => Just($f::INFINITY),
            1 => Just($f::NEG_INFINITY),
            1 => Just($f::MAX),
            1 => Just($f::MIN),
            1 => Just($f::EPSILON),
        ]
    };
}

/// Whether a float result that differs from the model's is allowed by Rust's semantics: Rust does
/// not specify the bits of a NaN produced by arithmetic (RFC 3514; Miri picks them at random), and
/// `f32::min`/`max` may return either zero for `(-0.0, 0.0)` (Miri picks at random). Only for the
/// arithmetic operations; everything else (loads, stores, swaps, compare-exchanges, `fetch_update`
/// with bit-exact closures, and the previous values every operation returns) must match bit for bit.
fn float_tolerance(op: &str, ours_nan: bool, model_nan: bool, both_zero: bool) -> bool {
    let arithmetic = op != "other";
    let min_max = op.contains("min") || op.contains("max");
    arithmetic && ((ours_nan && model_nan) || (min_max && both_zero))
}

macro_rules! float_differential {
    ($($name:ident: $f:ident, $bits:ident, $model:ident;)*) => {$(
        differential! {
            $name: $f, model $model,
            values float_values!($f, $bits),
            same |a: &$f, b: &$f| a.to_bits() == b.to_bits(),
            tolerate |op, x: $f, y: $f| float_tolerance(op, x.is_nan(), y.is_nan(), x == 0.0 && y == 0.0),
            // Bit manipulation: deterministic even for NaNs, unlike arithmetic.
            update |x: $f| $f::from_bits(x.to_bits().rotate_left(1) ^ 1),
            rmw($f = values()) [fetch_add, fetch_sub, fetch_min, fetch_max],
            reduce [add => fetch_add, sub => fetch_sub],
            unary [],
        }
    )*};
}

float_differential! {
    f32_: f32, u32, F32Model;
    f64_: f64, u64, F64Model;
}

differential! {
    bool_: bool, model sa::AtomicBool,
    values any::<bool>(),
    same |a: &bool, b: &bool| a == b,
    tolerate |_, _, _| false,
    update |x: bool| !x,
    rmw(bool = any::<bool>()) [fetch_and, fetch_nand, fetch_or, fetch_xor],
    reduce [],
    unary [fetch_not],
}

/// The memory pointers point into (never dereferenced: only compared and offset, wrapping).
static TARGET: [u64; 16] = [0; 16];

fn target<U>() -> *mut U {
    std::ptr::addr_of!(TARGET).cast::<U>().cast_mut()
}

/// Pointers: null, into `TARGET` (aligned or not), and arbitrary addresses without provenance.
macro_rules! ptr_differential {
    ($($name:ident: $u:ty;)*) => {$(
        differential! {
            $name: *mut $u, model sa::AtomicPtr<$u>,
            values prop_oneof![
                1 => Just(std::ptr::null_mut::<$u>()),
                3 => (0usize..=128).prop_map(|i| target::<$u>().wrapping_byte_add(i)),
                1 => any::<usize>().prop_map(std::ptr::without_provenance_mut::<$u>),
            ],
            same |a: &*mut $u, b: &*mut $u| a == b,
            tolerate |_, _, _| false,
            update |x: *mut $u| x.wrapping_byte_add(8),
            rmw(usize = prop_oneof![3 => 0usize..16, 1 => any::<usize>()]) [
                fetch_ptr_add, fetch_ptr_sub, fetch_byte_add, fetch_byte_sub,
            ],
            reduce [],
            unary [],
        }
    )*};
}

ptr_differential! {
    ptr_u8: u8;
    ptr_u64: u64;
    ptr_u16x3: [u16; 3];
    ptr_zst: ();
}
