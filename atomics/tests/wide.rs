//! 128-bit atomics on the host (issue 14): `Atomic<u128, S>` / `Atomic<i128, S>` against a
//! reference, single-threaded (random operation sequences, every ordering and access path) and
//! multi-threaded (a `Mutex<u128>` shadow of commutative updates, and a torn-value check); their
//! lock-freedom answers, layout, ordering panics and generic use. Also run under Miri.

use Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::RngAlgorithm;
use scoped_atomics::{
    Atomic, AtomicInteger, AtomicReadRef, AtomicRef, Block, Device, Ordering, PlainScope, System,
    Thread,
};
use std::sync::Mutex;

const CASES: u32 = if cfg!(miri) { 4 } else { 64 };
const MAX_OPS: usize = if cfg!(miri) { 8 } else { 40 };

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: CASES,
        failure_persistence: None,
        rng_algorithm: if cfg!(miri) {
            RngAlgorithm::XorShift
        } else {
            RngAlgorithm::default()
        },
        ..ProptestConfig::default()
    }
}

/// One operation; the reference is the plain integer arithmetic `core` documents.
#[derive(Clone, Copy, Debug)]
enum Op {
    Load(Ordering),
    Store(u128, Ordering),
    Swap(u128, Ordering),
    Cas(u128, u128, Ordering, Ordering),
    CasWeak(u128, u128, Ordering, Ordering),
    Add(u128, Ordering),
    Sub(u128, Ordering),
    And(u128, Ordering),
    Nand(u128, Ordering),
    Or(u128, Ordering),
    Xor(u128, Ordering),
    Min(u128, Ordering),
    Max(u128, Ordering),
    Update(u128, Ordering, Ordering),
}

const RMW: [Ordering; 5] = [Relaxed, Acquire, Release, AcqRel, SeqCst];
const LOADS: [Ordering; 3] = [Relaxed, Acquire, SeqCst];
const STORES: [Ordering; 3] = [Relaxed, Release, SeqCst];

/// Values that exercise both halves, the carry between them and the sign bit.
fn value() -> impl Strategy<Value = u128> {
    prop_oneof![
        any::<u128>(),
        select(vec![
            0,
            1,
            u64::MAX as u128,
            1 << 64,
            u128::MAX,
            1 << 127,
            (1 << 127) - 1
        ]),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let rmw = || select(RMW.to_vec());
    prop_oneof![
        select(LOADS.to_vec()).prop_map(Op::Load),
        (value(), select(STORES.to_vec())).prop_map(|(v, o)| Op::Store(v, o)),
        (value(), rmw()).prop_map(|(v, o)| Op::Swap(v, o)),
        (value(), value(), rmw(), select(LOADS.to_vec()))
            .prop_map(|(c, n, s, f)| Op::Cas(c, n, s, f)),
        (value(), value(), rmw(), select(LOADS.to_vec()))
            .prop_map(|(c, n, s, f)| Op::CasWeak(c, n, s, f)),
        (value(), rmw()).prop_map(|(v, o)| Op::Add(v, o)),
        (value(), rmw()).prop_map(|(v, o)| Op::Sub(v, o)),
        (value(), rmw()).prop_map(|(v, o)| Op::And(v, o)),
        (value(), rmw()).prop_map(|(v, o)| Op::Nand(v, o)),
        (value(), rmw()).prop_map(|(v, o)| Op::Or(v, o)),
        (value(), rmw()).prop_map(|(v, o)| Op::Xor(v, o)),
        (value(), rmw()).prop_map(|(v, o)| Op::Min(v, o)),
        (value(), rmw()).prop_map(|(v, o)| Op::Max(v, o)),
        (value(), rmw(), select(LOADS.to_vec())).prop_map(|(v, s, f)| Op::Update(v, s, f)),
    ]
}

/// The 128-bit integer types, with their reference arithmetic on the bits.
trait Wide: AtomicInteger + PartialEq + std::fmt::Debug {
    fn from_bits(bits: u128) -> Self;
    fn bits(self) -> u128;
    fn reference_min(a: u128, b: u128) -> u128;
}

impl Wide for u128 {
    fn from_bits(bits: u128) -> Self {
        bits
    }
    fn bits(self) -> u128 {
        self
    }
    fn reference_min(a: u128, b: u128) -> u128 {
        a.min(b)
    }
}

impl Wide for i128 {
    fn from_bits(bits: u128) -> Self {
        bits as i128
    }
    fn bits(self) -> u128 {
        self as u128
    }
    fn reference_min(a: u128, b: u128) -> u128 {
        (a as i128).min(b as i128) as u128
    }
}

/// Runs `op` on `a` and on the reference `r`; both must return the same and leave the same.
fn step<T: Wide, S: PlainScope>(a: &Atomic<T, S>, r: &mut u128, op: Op) {
    let t = T::from_bits;
    let old = *r;
    let min = T::reference_min;
    let max = |a: u128, b: u128| if T::reference_min(a, b) == a { b } else { a };
    let (got, new): (Result<T, T>, u128) = match op {
        Op::Load(o) => (Ok(a.load(o)), old),
        Op::Store(v, o) => {
            a.store(t(v), o);
            (Ok(t(old)), v)
        }
        Op::Swap(v, o) => (Ok(a.swap(t(v), o)), v),
        Op::Cas(c, n, s, f) => {
            let got = a.compare_exchange(t(c), t(n), s, f);
            (got, if old == c { n } else { old })
        }
        Op::CasWeak(c, n, s, f) => {
            // Spurious failures are allowed (Miri makes them): retry while the value matches.
            let mut got = a.compare_exchange_weak(t(c), t(n), s, f);
            for _ in 0..10_000 {
                if !matches!(got, Err(v) if v.bits() == c) {
                    break;
                }
                got = a.compare_exchange_weak(t(c), t(n), s, f);
            }
            (got, if old == c { n } else { old })
        }
        Op::Add(v, o) => (Ok(a.fetch_add(t(v), o)), old.wrapping_add(v)),
        Op::Sub(v, o) => (Ok(a.fetch_sub(t(v), o)), old.wrapping_sub(v)),
        Op::And(v, o) => (Ok(a.fetch_and(t(v), o)), old & v),
        Op::Nand(v, o) => (Ok(a.fetch_nand(t(v), o)), !(old & v)),
        Op::Or(v, o) => (Ok(a.fetch_or(t(v), o)), old | v),
        Op::Xor(v, o) => (Ok(a.fetch_xor(t(v), o)), old ^ v),
        Op::Min(v, o) => (Ok(a.fetch_min(t(v), o)), min(old, v)),
        Op::Max(v, o) => (Ok(a.fetch_max(t(v), o)), max(old, v)),
        Op::Update(v, s, f) => {
            // Declines on odd values, to exercise both outcomes.
            let got = a.fetch_update(s, f, |x| {
                (x.bits().is_multiple_of(2)).then(|| t(x.bits() ^ v))
            });
            (got, if old.is_multiple_of(2) { old ^ v } else { old })
        }
    };
    let expected_ok = match op {
        Op::Cas(c, ..) | Op::CasWeak(c, ..) => old == c,
        Op::Update(..) => old.is_multiple_of(2),
        _ => true,
    };
    match got {
        Ok(v) => assert!(
            expected_ok && v == t(old),
            "{op:?}: Ok({v:?}), old {old:#x}"
        ),
        Err(v) => assert!(
            !expected_ok && v == t(old),
            "{op:?}: Err({v:?}), old {old:#x}"
        ),
    }
    *r = new;
    assert_eq!(a.load(Relaxed), t(new), "after {op:?}");
}

/// Runs `ops` through every way of reaching a 128-bit location.
fn run<T: Wide, S: scoped_atomics::PlainScope>(init: u128, ops: &[Op]) {
    let mut r = init;
    let a = Atomic::<T, S>::new(T::from_bits(init));
    for (i, &op) in ops.iter().enumerate() {
        match i % 4 {
            0 => step(&a, &mut r, op),
            1 => step(&*AtomicRef::from(&a).with_scope::<Device>(), &mut r, op),
            2 => step(&*a.with_scope::<Thread>(), &mut r, op),
            _ => step(&*a.with_scope::<System>(), &mut r, op),
        }
    }
    assert_eq!(a.into_inner(), T::from_bits(r));

    // Memory the caller owns: `AtomicRef::new`, `from_mut`, `from_ptr`, slices.
    let mut plain = [T::from_bits(init), T::from_bits(!init)];
    let mut r = init;
    for (i, &op) in ops.iter().enumerate() {
        match i % 3 {
            0 => step(&AtomicRef::<T, S>::new(&mut plain[0]), &mut r, op),
            1 => step(Atomic::<T, S>::from_mut(&mut plain[0]), &mut r, op),
            _ => {
                // SAFETY: `plain[0]` is live, 16-aligned (u128's alignment on this host, checked
                // by `layout_is_core_like`) and only accessed through this view meanwhile.
                let view = unsafe { AtomicRef::<T, S>::from_ptr(&mut plain[0]) };
                step(&view, &mut r, op)
            }
        }
    }
    assert_eq!(plain[0], T::from_bits(r));
    let atomics = Atomic::<T, S>::from_mut_slice(&mut plain);
    assert_eq!(
        atomics[1].swap(T::from_bits(5), SeqCst),
        T::from_bits(!init)
    );
    Atomic::get_mut_slice(atomics)[0] = T::from_bits(7);
    assert_eq!(plain, [T::from_bits(7), T::from_bits(5)]);
    assert_eq!(
        AtomicReadRef::<T, S>::new(&plain[1]).load(Acquire),
        T::from_bits(5)
    );
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn u128_matches_the_reference(init in value(), ops in prop::collection::vec(op(), 1..MAX_OPS)) {
        run::<u128, Block>(init, &ops);
        run::<u128, System>(init, &ops);
    }

    #[test]
    fn i128_matches_the_reference(init in value(), ops in prop::collection::vec(op(), 1..MAX_OPS)) {
        run::<i128, Device>(init, &ops);
        run::<i128, Thread>(init, &ops);
    }
}

/// Concurrent commutative updates end where a `Mutex<u128>` shadow of the same updates ends.
#[test]
fn concurrent_updates_match_a_mutex_reference() {
    let (threads, rounds) = if cfg!(miri) { (3, 8) } else { (4, 2_000) };
    let sum = Atomic::<u128, Device>::new(u64::MAX as u128);
    let bits = Atomic::<u128, Device>::new(0);
    let top = Atomic::<i128, Device>::new(i128::MIN);
    let reference = Mutex::new((u64::MAX as u128, 0u128, i128::MIN));
    std::thread::scope(|s| {
        for t in 0..threads {
            let (sum, bits, top, reference) = (&sum, &bits, &top, &reference);
            s.spawn(move || {
                for i in 0..rounds {
                    // Crosses the 64-bit boundary on every add.
                    let step = (1u128 << 64) + (t * rounds + i) as u128 + u64::MAX as u128;
                    let mask = 1u128 << ((t * 37 + i) % 128);
                    let candidate = ((t as i128) << 100) - i as i128;
                    sum.fetch_add(step, Relaxed);
                    bits.fetch_xor(mask, AcqRel);
                    top.fetch_max(candidate, SeqCst);
                    let mut r = reference.lock().unwrap();
                    r.0 = r.0.wrapping_add(step);
                    r.1 ^= mask;
                    r.2 = r.2.max(candidate);
                }
            });
        }
    });
    let r = reference.into_inner().unwrap();
    assert_eq!(
        (sum.load(SeqCst), bits.load(SeqCst), top.load(SeqCst)),
        (r.0, r.1, r.2)
    );
}

/// A 128-bit value is read and written as one: writers keep both halves equal, and no reader
/// ever sees halves from two different writes.
#[test]
fn no_torn_values() {
    let rounds = if cfg!(miri) { 20 } else { 20_000 };
    let pair = Atomic::<u128, System>::new(0);
    let both = |x: u64| (u128::from(x) << 64) | u128::from(x);
    std::thread::scope(|s| {
        for w in 1..=2u64 {
            let pair = &pair;
            s.spawn(move || {
                for i in 0..rounds {
                    let x = w << 32 | i;
                    if i % 2 == 0 {
                        pair.store(both(x), Release);
                    } else {
                        let _ = pair.fetch_update(AcqRel, Acquire, |_| Some(both(x)));
                    }
                }
            });
        }
        s.spawn(|| {
            for _ in 0..rounds {
                let v = pair.load(Acquire);
                assert_eq!(v >> 64, v & u64::MAX as u128, "torn 128-bit value {v:#x}");
            }
        });
    });
}

#[test]
fn lock_freedom_is_what_the_cpu_has() {
    let a = Atomic::<u128, Block>::new(0);
    let always = Atomic::<u128, Block>::is_always_lock_free();
    assert_eq!(Atomic::<i128, Device>::is_always_lock_free(), always);
    assert_eq!(AtomicRef::<u128, Device>::is_always_lock_free(), always);
    assert!(!always || a.is_lock_free());
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        assert_eq!(always, cfg!(target_feature = "cmpxchg16b"));
        assert_eq!(
            a.is_lock_free(),
            std::arch::is_x86_feature_detected!("cmpxchg16b")
        );
    }
    #[cfg(all(target_arch = "aarch64", not(miri)))]
    assert!(a.is_lock_free());
    // The narrower types stay lock-free everywhere.
    assert!(Atomic::<u64, Block>::is_always_lock_free());
}

#[test]
fn layout_is_core_like() {
    use std::mem::{align_of, size_of};
    assert_eq!(size_of::<Atomic<u128, Device>>(), 16);
    assert_eq!(align_of::<Atomic<i128, Device>>(), 16);
    assert_eq!(Atomic::<u128, Device>::required_alignment(), 16);
    assert_eq!(AtomicReadRef::<i128, Block>::required_alignment(), 16);
    // `from_mut` compiles only where `u128` is as aligned as the atomic, as here.
    assert!(align_of::<u128>() >= align_of::<Atomic<u128, Device>>());
    assert_eq!(
        format!("{:?}", Atomic::<i128, Device>::new(-5)),
        format!("{:?}", -5i128)
    );
    assert_eq!(Atomic::<u128, Device>::default().into_inner(), 0);
    assert_eq!(Atomic::<u128, Device>::from(9).into_inner(), 9);
}

#[test]
fn aliases_exist_per_scope() {
    static COUNTER: scoped_atomics::device::AtomicU128 =
        scoped_atomics::device::AtomicU128::new(u128::MAX);
    assert_eq!(COUNTER.fetch_add(2, Relaxed), u128::MAX);
    assert_eq!(COUNTER.load(Relaxed), 1);
    let b = scoped_atomics::block::AtomicI128::new(-1);
    assert_eq!(b.fetch_sub(i128::MAX, Relaxed), -1);
    assert_eq!(b.load(Relaxed), i128::MIN);
    let _: scoped_atomics::AtomicU128<Thread> = Atomic::new(0);
}

#[test]
#[should_panic(expected = "there is no such thing as a release load")]
fn invalid_load_ordering_panics_with_cores_message() {
    Atomic::<u128, Device>::new(0).load(Release);
}

#[test]
#[should_panic(expected = "there is no such thing as an acquire store")]
fn invalid_store_ordering_panics_with_cores_message() {
    Atomic::<i128, Device>::new(0).store(1, Acquire);
}

#[test]
#[should_panic(expected = "there is no such thing as an acquire-release failure ordering")]
fn invalid_failure_ordering_panics_with_cores_message() {
    let _ = Atomic::<u128, Device>::new(0).compare_exchange(0, 1, SeqCst, AcqRel);
}

/// Generic code over the value type runs unchanged on 128 bits.
#[test]
fn generic_code_takes_128_bit_integers() {
    fn ticket<T: AtomicInteger, S: PlainScope>(next: &Atomic<T, S>, one: T) -> T {
        next.fetch_or(one, Relaxed);
        next.fetch_add(one, AcqRel)
    }
    let a = Atomic::<u128, Block>::new(u64::MAX as u128 - 1);
    assert_eq!(ticket(&a, 1), u64::MAX as u128);
    assert_eq!(a.load(Relaxed), 1 << 64);
    let b = Atomic::<i128, Device>::new(-2);
    assert_eq!(ticket(&b, 1), -1);
    assert_eq!(b.load(Relaxed), 0);
}
