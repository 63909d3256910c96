//! Contended increments: `THREADS` threads × `ITERS` increments of one atomic, by `fetch_add(1)`,
//! by a compare-exchange loop, by `fetch_update` and (where the type has it) by the `add`
//! reduction, at every scope, for every numeric type; the final value must be exact (wrapped for the
//! narrow integers, exact for floats: `THREADS * ITERS` is far below 2^24).
//!
//! Also: `bool` toggles, pointer bumps, one location reached through views of every scope at once,
//! and statics of the per-scope modules.

use scoped_atomics::{Atomic, AtomicRef, Block, Cluster, Device, PlainScope, System, Thread};
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};

const THREADS: usize = if cfg!(miri) { 2 } else { 4 };
const ITERS: usize = if cfg!(miri) { 50 } else { 100_000 };
/// Increments in all.
const TOTAL: u64 = (THREADS * ITERS) as u64;

/// Runs `body` on `THREADS` threads at once (they start together, to maximise contention).
fn on_threads(body: impl Fn(usize) + Sync) {
    let start = std::sync::Barrier::new(THREADS);
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (body, start) = (&body, &start);
            s.spawn(move || {
                start.wait();
                body(t)
            });
        }
    });
}

/// One test module per type, with one test per operation and scope.
macro_rules! stress {
    ($($m:ident: $t:ty, one = $one:expr, expected = $expected:expr, next = $next:expr
        $(, reduce = $reduce:ident)?;)*) => {$(
        mod $m {
            use super::*;

            type T = $t;

            pub fn expected_value() -> T {
                $expected
            }

            fn fetch_add<S: PlainScope>() {
                let a = Atomic::<T, S>::new(Default::default());
                on_threads(|t| {
                    // A different (valid) ordering per thread.
                    let order = [Relaxed, AcqRel, SeqCst, Release][t % 4];
                    for _ in 0..ITERS {
                        a.fetch_add($one, order);
                    }
                });
                assert_eq!(a.into_inner(), expected_value());
            }

            fn cas_loop<S: PlainScope>() {
                let a = Atomic::<T, S>::new(Default::default());
                on_threads(|t| {
                    for i in 0..ITERS {
                        let mut current = a.load(Relaxed);
                        loop {
                            let next = ($next)(current);
                            // Weak and strong alternately.
                            let result = if (i + t) % 2 == 0 {
                                a.compare_exchange_weak(current, next, AcqRel, Relaxed)
                            } else {
                                a.compare_exchange(current, next, Release, Acquire)
                            };
                            match result {
                                Ok(_) => break,
                                Err(seen) => current = seen,
                            }
                        }
                    }
                });
                assert_eq!(a.into_inner(), expected_value());
            }

            fn fetch_update<S: PlainScope>() {
                let a = Atomic::<T, S>::new(Default::default());
                on_threads(|_| {
                    for _ in 0..ITERS {
                        let result = a.fetch_update(AcqRel, Acquire, |x| Some(($next)(x)));
                        assert!(result.is_ok());
                    }
                });
                assert_eq!(a.into_inner(), expected_value());
            }

            $(
            fn reduce<S: PlainScope>() {
                let a = Atomic::<T, S>::new(Default::default());
                on_threads(|t| {
                    let order = [Relaxed, Release][t % 2];
                    for _ in 0..ITERS {
                        a.$reduce($one, order);
                    }
                });
                assert_eq!(a.into_inner(), expected_value());
            }
            )?

            // Under Miri, `fetch_update` and the reduction run at System scope only (on the host
            // the scope changes no instruction); `fetch_add` and the CAS loop run at every scope.
            stress!(@scopes [
                thread Thread #[cfg(not(miri))],
                block Block #[cfg(not(miri))],
                cluster Cluster #[cfg(not(miri))],
                device Device #[cfg(not(miri))],
                system System
            ] [$($reduce)?]);
        }
    )*};
    (@scopes [$($scope_mod:ident $scope:ident $(#[$miri:meta])?),*] $reduce:tt) => {$(
        mod $scope_mod {
            #[test]
            fn fetch_add() {
                super::fetch_add::<scoped_atomics::$scope>()
            }
            #[test]
            fn cas_loop() {
                super::cas_loop::<scoped_atomics::$scope>()
            }
            #[test]
            $(#[$miri])?
            fn fetch_update() {
                super::fetch_update::<scoped_atomics::$scope>()
            }
            stress!(@reduce $scope $reduce [$(#[$miri])?]);
        }
    )*};
    (@reduce $scope:ident [] $attrs:tt) => {};
    (@reduce $scope:ident [$reduce:ident] [$($attr:tt)*]) => {
        #[test]
        $($attr)*
        fn $reduce() {
            super::reduce::<scoped_atomics::$scope>()
        }
    };
}

stress! {
    t_u8: u8, one = 1, expected = (TOTAL % 256) as u8, next = |x: u8| x.wrapping_add(1);
    t_i8: i8, one = 1, expected = (TOTAL % 256) as u8 as i8, next = |x: i8| x.wrapping_add(1);
    t_u16: u16, one = 1, expected = (TOTAL % 65_536) as u16, next = |x: u16| x.wrapping_add(1);
    t_i16: i16, one = 1, expected = (TOTAL % 65_536) as u16 as i16, next = |x: i16| x.wrapping_add(1);
    t_u32: u32, one = 1, expected = TOTAL as u32, next = |x: u32| x.wrapping_add(1), reduce = add;
    t_i32: i32, one = 1, expected = TOTAL as i32, next = |x: i32| x.wrapping_add(1), reduce = add;
    t_u64: u64, one = 1, expected = TOTAL, next = |x: u64| x.wrapping_add(1), reduce = add;
    t_i64: i64, one = 1, expected = TOTAL as i64, next = |x: i64| x.wrapping_add(1), reduce = add;
    t_usize: usize, one = 1, expected = TOTAL as usize, next = |x: usize| x.wrapping_add(1), reduce = add;
    t_isize: isize, one = 1, expected = TOTAL as isize, next = |x: isize| x.wrapping_add(1), reduce = add;
    t_f32: f32, one = 1.0, expected = TOTAL as f32, next = |x: f32| x + 1.0, reduce = add;
    t_f64: f64, one = 1.0, expected = TOTAL as f64, next = |x: f64| x + 1.0, reduce = add;
}

/// The wrapped values the narrow types must end at, spelled out for the full-size run.
#[test]
#[cfg(not(miri))] // the constants are for the native sizes
fn wrapped_totals() {
    assert_eq!(TOTAL, 400_000);
    assert_eq!(t_u8::expected_value(), 128); // 400_000 = 1562 * 256 + 128
    assert_eq!(t_i8::expected_value(), -128);
    assert_eq!(t_u16::expected_value(), 6_784); // 400_000 = 6 * 65_536 + 6_784
    assert_eq!(t_i16::expected_value(), 6_784);
}

/// Subtraction back down to zero, concurrently with additions: the result is exactly zero.
fn add_and_sub<S: PlainScope>() {
    let a = Atomic::<i64, S>::new(0);
    let f = Atomic::<f64, S>::new(0.0);
    on_threads(|t| {
        for _ in 0..ITERS {
            if t % 2 == 0 {
                a.fetch_add(3, Relaxed);
                f.fetch_add(0.5, Relaxed);
            } else {
                a.fetch_sub(3, Relaxed);
                f.fetch_sub(0.5, Relaxed);
            }
        }
    });
    assert_eq!(a.into_inner(), 0);
    assert_eq!(f.into_inner().to_bits(), 0.0f64.to_bits());
}

#[test]
fn add_and_sub_every_scope() {
    add_and_sub::<Thread>();
    add_and_sub::<Block>();
    add_and_sub::<Cluster>();
    add_and_sub::<Device>();
    add_and_sub::<System>();
}

/// `fetch_xor(true)` and `fetch_not` toggle; an even number of toggles leaves `false`, and exactly
/// half of all toggles saw `true`.
fn bool_toggles<S: PlainScope>() {
    let b = Atomic::<bool, S>::new(false);
    let seen_true = Atomic::<u64, S>::new(0);
    on_threads(|t| {
        for _ in 0..ITERS {
            let old = if t % 2 == 0 {
                b.fetch_xor(true, AcqRel)
            } else {
                b.fetch_not(SeqCst)
            };
            if old {
                seen_true.fetch_add(1, Relaxed);
            }
        }
    });
    assert_eq!(TOTAL % 2, 0);
    assert!(!b.into_inner());
    assert_eq!(seen_true.into_inner(), TOTAL / 2);
}

#[test]
fn bool_toggles_every_scope() {
    bool_toggles::<Thread>();
    bool_toggles::<Block>();
    bool_toggles::<Cluster>();
    bool_toggles::<Device>();
    bool_toggles::<System>();
}

/// Pointer bumps by `fetch_ptr_add(1)` (8 bytes each) and `fetch_byte_add(8)` from null.
fn ptr_bumps<S: PlainScope>() {
    let p = Atomic::<*mut u64, S>::new(std::ptr::null_mut());
    on_threads(|t| {
        for _ in 0..ITERS {
            if t % 2 == 0 {
                p.fetch_ptr_add(1, AcqRel);
            } else {
                p.fetch_byte_add(8, Relaxed);
            }
        }
    });
    assert_eq!(p.into_inner().addr() as u64, TOTAL * 8);
}

#[test]
fn ptr_bumps_every_scope() {
    ptr_bumps::<Thread>();
    ptr_bumps::<Block>();
    ptr_bumps::<Cluster>();
    ptr_bumps::<Device>();
    ptr_bumps::<System>();
}

/// One location, each thread reaching it through a different scope view (`with_scope`,
/// `AtomicRef`), mixing `fetch_add`, a compare-exchange loop and the reduction.
#[test]
fn one_location_every_scope_view() {
    let a = Atomic::<u32, Block>::new(0);
    on_threads(|t| {
        let r = AtomicRef::from(&a);
        for i in 0..ITERS {
            match (t + i) % 5 {
                0 => {
                    a.with_scope::<Thread>().fetch_add(1, Relaxed);
                }
                1 => {
                    r.fetch_add(1, AcqRel);
                }
                2 => {
                    let c = r.with_scope::<Cluster>();
                    let mut x = c.load(Relaxed);
                    while let Err(seen) = c.compare_exchange_weak(x, x + 1, AcqRel, Relaxed) {
                        x = seen;
                    }
                }
                3 => a.with_scope::<Device>().add(1, Release),
                _ => {
                    a.with_scope::<System>()
                        .fetch_update(SeqCst, SeqCst, |x| Some(x + 1))
                        .unwrap();
                }
            }
        }
    });
    assert_eq!(u64::from(a.into_inner()), TOTAL);
}

/// Statics of the per-scope modules, as a program ported from `std` would declare them.
#[test]
fn per_scope_module_statics() {
    static THREAD: scoped_atomics::thread::AtomicU64 = scoped_atomics::thread::AtomicU64::new(0);
    static BLOCK: scoped_atomics::block::AtomicU32 = scoped_atomics::block::AtomicU32::new(0);
    static CLUSTER: scoped_atomics::cluster::AtomicUsize =
        scoped_atomics::cluster::AtomicUsize::new(0);
    static DEVICE: scoped_atomics::device::AtomicI64 = scoped_atomics::device::AtomicI64::new(0);
    static SYSTEM: scoped_atomics::system::AtomicF64 = scoped_atomics::system::AtomicF64::new(0.0);
    on_threads(|_| {
        for _ in 0..ITERS {
            THREAD.fetch_add(1, Relaxed);
            BLOCK.fetch_add(1, Relaxed);
            CLUSTER.fetch_add(1, Relaxed);
            DEVICE.fetch_sub(1, Relaxed);
            SYSTEM.fetch_add(1.0, Relaxed);
        }
    });
    assert_eq!(THREAD.load(SeqCst), TOTAL);
    assert_eq!(u64::from(BLOCK.load(SeqCst)), TOTAL);
    assert_eq!(CLUSTER.load(SeqCst) as u64, TOTAL);
    assert_eq!(DEVICE.load(SeqCst), -(TOTAL as i64));
    assert_eq!(SYSTEM.load(SeqCst), TOTAL as f64);
}
