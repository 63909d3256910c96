//! `AtomicRef<'a, T, S>`: `Copy` views shared across threads, over slices (`from_mut_slice`),
//! plain values (`new`), raw pointers (`from_ptr`), every scope on one location (`with_scope`), and
//! `Debug` equal to the value's `Debug`.

use scoped_atomics::{
    Atomic, AtomicPrimitive, AtomicRef, Block, Cluster, Device, PlainScope, System, Thread,
};
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};

const THREADS: usize = if cfg!(miri) { 2 } else { 4 };
const ITERS: usize = if cfg!(miri) { 25 } else { 10_000 };

fn assert_copy<T: Copy>(_: &T) {}

#[test]
fn is_copy_and_clone_and_views_the_same_location() {
    let a = Atomic::<u32, Device>::new(1);
    let r = AtomicRef::from(&a);
    assert_copy(&r);
    let copy = r;
    #[allow(clippy::clone_on_copy)]
    let clone = r.clone();
    r.fetch_add(1, Relaxed);
    copy.fetch_add(10, Relaxed);
    clone.fetch_add(100, Relaxed);
    assert_eq!(a.load(Relaxed), 112);
    assert!(std::ptr::eq(r.as_atomic(), &a));
    assert!(std::ptr::eq(copy.as_atomic(), clone.as_atomic()));
    assert_eq!(r.as_ptr(), a.as_ptr());
}

/// Each thread gets copies of the views of every element of a `&mut [u32]`.
#[test]
fn shared_across_scoped_threads_over_a_slice() {
    const BINS: usize = 8;
    let mut histogram = vec![0u32; BINS];
    {
        let atomics = Atomic::<u32, Block>::from_mut_slice(&mut histogram);
        let bins: Vec<AtomicRef<'_, u32, Block>> = atomics.iter().map(AtomicRef::from).collect();
        let bins = &bins[..];
        std::thread::scope(|s| {
            for t in 0..THREADS {
                s.spawn(move || {
                    for i in 0..ITERS {
                        let bin = bins[(t + i) % BINS];
                        match i % 3 {
                            0 => {
                                bin.fetch_add(1, Relaxed);
                            }
                            1 => bin.add(1, Release),
                            _ => {
                                bin.with_scope::<Device>().fetch_add(1, AcqRel);
                            }
                        }
                    }
                });
            }
        });
    }
    let total: u64 = histogram.iter().map(|&x| u64::from(x)).sum();
    assert_eq!(total, (THREADS * ITERS) as u64);
    // Thread t, step i hits bin (t + i) % BINS: count them exactly.
    let mut expected = vec![0u32; BINS];
    for t in 0..THREADS {
        for i in 0..ITERS {
            expected[(t + i) % BINS] += 1;
        }
    }
    assert_eq!(histogram, expected);
}

/// Neighbouring bytes of a `&mut [u8]` updated by different threads stay independent.
#[test]
fn byte_slice_neighbours_stay_independent() {
    let mut bytes = [0u8; 8];
    {
        let atomics = Atomic::<u8, Block>::from_mut_slice(&mut bytes);
        std::thread::scope(|s| {
            for (t, cell) in atomics.iter().enumerate().take(THREADS) {
                let r = AtomicRef::from(cell);
                s.spawn(move || {
                    for _ in 0..ITERS {
                        r.fetch_add(t as u8 + 1, Relaxed);
                    }
                });
            }
        });
    }
    for (t, &b) in bytes.iter().enumerate() {
        let expected = if t < THREADS {
            ((t + 1) * ITERS % 256) as u8
        } else {
            0
        };
        assert_eq!(b, expected, "byte {t}");
    }
}

#[test]
fn new_over_a_mut_value() {
    let mut x = 5u64;
    {
        let r = AtomicRef::<u64, Cluster>::new(&mut x);
        assert_eq!(r.fetch_add(2, SeqCst), 5);
        assert_eq!(r.swap(40, AcqRel), 7);
        assert_eq!(r.compare_exchange(40, 41, AcqRel, Acquire), Ok(40));
        let r2 = r; // still usable after copying
        assert_eq!(r2.fetch_update(SeqCst, Relaxed, |v| Some(v * 2)), Ok(41));
        assert_eq!(r.load(Acquire), 82);
    }
    assert_eq!(x, 82);

    let mut f = -1.5f32;
    AtomicRef::<f32, Thread>::new(&mut f).fetch_add(4.0, Relaxed);
    assert_eq!(f, 2.5);

    let mut b = false;
    assert!(!AtomicRef::<bool, Device>::new(&mut b).fetch_not(SeqCst));
    assert!(b);

    let mut array = [7u16; 4];
    let mut p = array.as_mut_ptr();
    AtomicRef::<*mut u16, System>::new(&mut p).fetch_ptr_add(3, Relaxed);
    assert_eq!(p, array.as_mut_ptr().wrapping_add(3));
}

#[test]
fn from_ptr_over_raw_memory() {
    let mut counter = 7i64;
    let p: *mut i64 = &mut counter;
    {
        // SAFETY: `counter` is aligned, live, and only accessed through these views meanwhile.
        let r = unsafe { AtomicRef::<i64, Device>::from_ptr(p) };
        // SAFETY: as above.
        let r2 = unsafe { AtomicRef::<i64, System>::from_ptr(p) };
        std::thread::scope(|s| {
            s.spawn(move || {
                for _ in 0..ITERS {
                    r.fetch_sub(1, Relaxed);
                }
            });
            s.spawn(move || {
                for _ in 0..ITERS {
                    r2.fetch_add(3, Relaxed);
                }
            });
        });
        assert_eq!(r.load(SeqCst), 7 + 2 * ITERS as i64);
    }
    assert_eq!(counter, 7 + 2 * ITERS as i64);

    // A field of a `#[repr(C)]` struct, as shared with a kernel.
    #[repr(C)]
    struct Shared {
        flag: u32,
        sum: f64,
    }
    let mut shared = Shared { flag: 0, sum: 0.5 };
    let (flag, sum) = (&raw mut shared.flag, &raw mut shared.sum);
    // SAFETY: both fields are aligned and live; only accessed through the views meanwhile.
    let (flag, sum) = unsafe {
        (
            AtomicRef::<u32, System>::from_ptr(flag),
            AtomicRef::<f64, Device>::from_ptr(sum),
        )
    };
    sum.fetch_add(1.0, Relaxed);
    flag.store(1, Release);
    assert_eq!((flag.load(Acquire), sum.load(Relaxed)), (1, 1.5));
    assert_eq!((shared.flag, shared.sum), (1, 1.5));
}

/// The same location through every scope, from a view and from the atomic, chained and
/// concurrently.
#[test]
fn with_scope_across_scopes_on_one_location() {
    let a = Atomic::<u32, Thread>::new(0);
    let r = AtomicRef::from(&a);
    let views = (
        r.with_scope::<Thread>(),
        r.with_scope::<Block>(),
        r.with_scope::<Cluster>(),
        r.with_scope::<Device>(),
        r.with_scope::<System>(),
    );
    let ptrs = [
        views.0.as_ptr(),
        views.1.as_ptr(),
        views.2.as_ptr(),
        views.3.as_ptr(),
        views.4.as_ptr(),
    ];
    assert!(ptrs.iter().all(|&p| p == a.as_ptr()));

    // Chained: Thread -> Block -> Cluster -> Device -> System -> Thread.
    let chained = r
        .with_scope::<Block>()
        .with_scope::<Cluster>()
        .with_scope::<Device>()
        .with_scope::<System>()
        .with_scope::<Thread>();
    chained.store(5, Release);
    assert_eq!(views.4.load(Acquire), 5);
    assert_eq!(a.with_scope::<Cluster>().swap(0, AcqRel), 5);

    // Concurrently: one thread per scope view.
    std::thread::scope(|s| {
        s.spawn(move || {
            for _ in 0..ITERS {
                views.0.fetch_add(1, Relaxed);
            }
        });
        s.spawn(move || {
            for _ in 0..ITERS {
                views.1.fetch_add(1, Relaxed);
            }
        });
        s.spawn(move || {
            for _ in 0..ITERS {
                views.2.add(1, Relaxed);
            }
        });
        s.spawn(move || {
            for _ in 0..ITERS {
                views
                    .3
                    .fetch_update(AcqRel, Acquire, |x| Some(x + 1))
                    .unwrap();
            }
        });
        s.spawn(move || {
            for _ in 0..ITERS {
                let mut x = views.4.load(Relaxed);
                while let Err(seen) = views.4.compare_exchange_weak(x, x + 1, SeqCst, Relaxed) {
                    x = seen;
                }
            }
        });
    });
    assert_eq!(a.load(SeqCst) as usize, 5 * ITERS);
    // And a view is usable after `with_scope` consumed a copy of it.
    assert_eq!(r.load(Relaxed) as usize, 5 * ITERS);
}

/// `AtomicRef` borrows generically: a helper written for any scope.
fn drain<S: PlainScope>(r: AtomicRef<'_, u64, S>) -> u64 {
    r.swap(0, AcqRel)
}

#[test]
fn generic_over_scope() {
    let mut x = 9u64;
    assert_eq!(drain(AtomicRef::<u64, Block>::new(&mut x)), 9);
    assert_eq!(x, 0);
    let a = Atomic::<u64, Device>::new(4);
    assert_eq!(drain(a.with_scope::<System>()), 4);
    assert_eq!(drain(AtomicRef::from(&a)), 0);
}

/// `{:?}` of a view equals `{:?}` of the value (also with formatter flags), for every type.
macro_rules! debug_matches_value {
    ($($t:ty: [$($v:expr),*];)*) => {$(
        for value in [$($v),*] {
            let mut owned: $t = value;
            let expected = [
                format!("{:?}", value),
                format!("{:#?}", value),
                format!("{:x?}", value),
                format!("{:>12?}", value),
            ];
            let check = |r: &dyn Fn(&str) -> String| {
                for (fmt, want) in ["{:?}", "{:#?}", "{:x?}", "{:>12?}"].iter().zip(&expected) {
                    assert_eq!(&r(fmt), want, "{} {fmt} of {}", stringify!($t), want);
                }
            };
            {
                let r = AtomicRef::<$t, Block>::new(&mut owned);
                check(&|fmt| render(fmt, &r));
                check(&|fmt| render(fmt, &r.with_scope::<System>()));
                check(&|fmt| render(fmt, r.as_atomic()));
            }
            let atomic = Atomic::<$t, Thread>::new(value);
            check(&|fmt| render(fmt, &AtomicRef::from(&atomic)));
        }
    )*};
}

/// Formats `x` with one of the format strings of `debug_matches_value!`.
fn render(fmt: &str, x: &dyn std::fmt::Debug) -> String {
    match fmt {
        "{:?}" => format!("{x:?}"),
        "{:#?}" => format!("{x:#?}"),
        "{:x?}" => format!("{x:x?}"),
        "{:>12?}" => format!("{x:>12?}"),
        _ => unreachable!(),
    }
}

#[test]
fn debug_equals_the_values_debug() {
    static TARGET: u8 = 0;
    let p = (&raw const TARGET).cast_mut();
    debug_matches_value! {
        bool: [false, true];
        u8: [0, 255];
        i8: [-128, 7];
        u16: [0xbeef];
        i16: [-1];
        u32: [0, 42, u32::MAX];
        i32: [i32::MIN];
        u64: [u64::MAX];
        i64: [-42];
        usize: [usize::MAX];
        isize: [isize::MIN];
        f32: [0.0, -0.0, 1.5, f32::NAN, f32::INFINITY, f32::from_bits(1), f32::MAX];
        f64: [-0.0, f64::NAN, f64::NEG_INFINITY, 1e-310, 0.1];
        *mut u8: [std::ptr::null_mut(), p];
    }
}

/// A compile-time check that `AtomicRef` is available for every value type at every scope.
#[allow(dead_code)]
fn views_for_every_type<T: AtomicPrimitive, S: PlainScope>(
    a: &Atomic<T, S>,
) -> AtomicRef<'_, T, S> {
    AtomicRef::from(a)
}
