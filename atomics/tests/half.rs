//! Half-precision atomics, `Atomic<f16, S>` and `Atomic<bf16, S>` (issue 14): every operation
//! against an independent model (IEEE sums rounded once, from exact `f64` sums; `f32::min`'s NaN
//! rule written out), bit-exact compare-exchange, exact concurrent sums, and the generic bounds.

use scoped_atomics::{
    Atomic, AtomicFloat, AtomicReduce, Block, Device, Ordering::*, PlainScope, System, bf16, f16,
};

const THREADS: usize = if cfg!(miri) { 2 } else { 4 };
const ITERS: usize = if cfg!(miri) { 5 } else { 50 };

/// The two half types with what the model needs.
trait Half: AtomicFloat + AtomicReduce + PartialEq + core::fmt::Debug + Send + Sync {
    fn of(x: f64) -> Self;
    fn wide(self) -> f64;
    fn bits(self) -> u16;
}
impl Half for f16 {
    fn of(x: f64) -> Self {
        f16::from_f64(x)
    }
    fn wide(self) -> f64 {
        self.to_f64()
    }
    fn bits(self) -> u16 {
        self.to_bits()
    }
}
impl Half for bf16 {
    fn of(x: f64) -> Self {
        bf16::from_f64(x)
    }
    fn wide(self) -> f64 {
        self.to_f64()
    }
    fn bits(self) -> u16 {
        self.to_bits()
    }
}

/// IEEE addition rounded once: the `f64` sum of two half values is exact.
fn sum<T: Half>(a: T, b: T) -> T {
    T::of(a.wide() + b.wide())
}

/// `f32::min`/`max`'s rule: a NaN operand is ignored.
fn pick<T: Half>(a: T, b: T, min: bool) -> T {
    match (a.wide().is_nan(), b.wide().is_nan()) {
        (true, _) => b,
        (_, true) => a,
        _ if (a.wide() < b.wide()) == min => a,
        _ => b,
    }
}

/// Runs a fixed mix of operations over `values` on an atomic and on the model.
fn against_model<T: Half, S: PlainScope>(values: &[f64]) {
    let values: Vec<T> = values.iter().map(|&v| T::of(v)).collect();
    let a = Atomic::<T, S>::new(values[0]);
    let mut model = values[0];
    for (i, &v) in values.iter().enumerate() {
        let before = match i % 8 {
            0 => (a.fetch_add(v, AcqRel), model = sum(model, v)).0,
            1 => {
                (
                    a.fetch_sub(v, Relaxed),
                    model = sum(model, T::of(-v.wide())),
                )
                    .0
            }
            2 => (a.fetch_min(v, SeqCst), model = pick(model, v, true)).0,
            3 => (a.fetch_max(v, Acquire), model = pick(model, v, false)).0,
            4 => {
                let seen = a.load(Relaxed);
                a.add(v, Release);
                model = sum(model, v);
                seen
            }
            5 => {
                let seen = a.load(Relaxed);
                a.sub(v, Relaxed);
                model = sum(model, T::of(-v.wide()));
                seen
            }
            6 => (a.swap(v, AcqRel), model = v).0,
            _ => {
                let seen = a.load(Acquire);
                assert!(a.compare_exchange(seen, v, AcqRel, Acquire).is_ok());
                model = v;
                seen
            }
        };
        let _ = before;
        let now = a.load(Relaxed);
        // IEEE leaves the sign and payload of a computed NaN open: compare NaN-ness there.
        if !(now.wide().is_nan() && model.wide().is_nan()) {
            assert_eq!(now.bits(), model.bits(), "after op {i} with {v:?}");
        }
    }
}

const VALUES: [f64; 16] = [
    1.5,
    0.1,
    -3.25,
    1e-6,
    6.0e4,
    f64::NAN,
    -0.0,
    0.0,
    2.0,
    7.0e-3,
    -1.0e3,
    1.0 / 3.0,
    65504.0,
    -6.1e-5,
    3.0e38,
    0.5,
];

#[test]
fn every_operation_matches_the_model() {
    for rotation in 0..VALUES.len() {
        let mut v = VALUES;
        v.rotate_left(rotation);
        against_model::<f16, Device>(&v);
        against_model::<bf16, Block>(&v);
        against_model::<f16, System>(&v[..8]);
    }
}

#[test]
fn compare_exchange_compares_bits() {
    let a = Atomic::<f16, Device>::new(f16::NEG_ZERO);
    assert!(
        a.compare_exchange(f16::ZERO, f16::ONE, AcqRel, Acquire)
            .is_err()
    );
    let nan = f16::from_bits(0x7e01);
    a.store(nan, Relaxed);
    assert_eq!(
        a.compare_exchange(nan, f16::ONE, AcqRel, Acquire)
            .map(f16::to_bits),
        Ok(0x7e01)
    );
    assert_eq!(
        format!("{:?}", Atomic::<bf16, Block>::new(bf16::ONE)),
        "1.0"
    );
    assert_eq!(Atomic::<f16, Device>::default().load(Relaxed), f16::ZERO);
    assert_eq!(size_of::<Atomic<bf16, Device>>(), 2);
    assert_eq!(Atomic::<f16, Device>::required_alignment(), 2);
}

fn concurrent_sum<T: Half, S: PlainScope>() {
    let total = Atomic::<T, S>::new(T::of(0.0));
    let one = T::of(1.0);
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let total = &total;
            s.spawn(move || {
                for i in 0..ITERS {
                    if (i + t) % 2 == 0 {
                        total.fetch_add(one, Relaxed);
                    } else {
                        total.add(one, Relaxed);
                    }
                }
            });
        }
    });
    // Integers up to 256 are exact in both formats.
    assert_eq!(total.load(Acquire).wide(), (THREADS * ITERS) as f64);
}

#[test]
fn concurrent_sums_are_exact() {
    concurrent_sum::<f16, Device>();
    concurrent_sum::<bf16, Block>();
}
