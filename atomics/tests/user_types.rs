//! Issue 25, item 5: `Atomic<T, S>` over the user's own types (`AtomicValue`) of 1, 2, 4, 8 and
//! 16 bytes: every operation of `AtomicPrimitive` on host threads, bitwise comparison as in C++
//! (not `PartialEq`), `AtomicRef` over the user's memory, `wait`/`notify`, lock freedom and
//! layout as the integer of the size. Also run under Miri.

use bytemuck::NoUninit;
use scoped_atomics::{Atomic, AtomicRef, AtomicValue, Block, Device, Ordering::*, System};
use std::sync::atomic::{AtomicU8, AtomicU64};

#[derive(Clone, Copy, Debug, Default, PartialEq, NoUninit)]
#[repr(C)]
struct Pair {
    version: u32,
    value: u32,
}
impl AtomicValue for Pair {
    type Bits = u64;
}

#[derive(Clone, Copy, Debug, Default, PartialEq, NoUninit)]
#[repr(transparent)]
struct Level(u8);
impl AtomicValue for Level {
    type Bits = u8;
}

#[derive(Clone, Copy, Debug, Default, PartialEq, NoUninit)]
#[repr(C)]
struct Rg {
    r: u8,
    g: u8,
}
impl AtomicValue for Rg {
    type Bits = u16;
}

/// A float pair whose `PartialEq` is not bitwise: `0.0 == -0.0`, `NaN != NaN`.
#[derive(Clone, Copy, Debug, Default, PartialEq, NoUninit)]
#[repr(C)]
struct Half2 {
    x: f32,
}
impl AtomicValue for Half2 {
    type Bits = u32;
}

#[derive(Clone, Copy, Debug, Default, PartialEq, NoUninit)]
#[repr(C, align(16))]
struct Quad {
    a: u32,
    b: u32,
    c: u32,
    d: u32,
}
impl AtomicValue for Quad {
    type Bits = u128;
}

#[test]
fn every_operation_on_an_8_byte_pair() {
    let p = Atomic::<Pair, Device>::new(Pair {
        version: 1,
        value: 7,
    });
    assert_eq!(
        p.load(Acquire),
        Pair {
            version: 1,
            value: 7
        }
    );
    p.store(
        Pair {
            version: 2,
            value: 8,
        },
        Release,
    );
    assert_eq!(
        p.swap(
            Pair {
                version: 3,
                value: 9
            },
            AcqRel
        ),
        Pair {
            version: 2,
            value: 8
        }
    );
    let cur = Pair {
        version: 3,
        value: 9,
    };
    let next = Pair {
        version: 4,
        value: 10,
    };
    assert_eq!(p.compare_exchange(cur, next, AcqRel, Acquire), Ok(cur));
    assert_eq!(p.compare_exchange(cur, next, AcqRel, Acquire), Err(next));
    loop {
        match p.compare_exchange_weak(next, cur, SeqCst, Relaxed) {
            Ok(v) => break assert_eq!(v, next),
            Err(v) => assert_eq!(v, next),
        }
    }
    let r = p.fetch_update(Release, Acquire, |v| {
        Some(Pair {
            version: v.version + 1,
            ..v
        })
    });
    assert_eq!(r, Ok(cur));
    assert_eq!(
        p.into_inner(),
        Pair {
            version: 4,
            value: 9
        }
    );
    assert_eq!(
        Atomic::<Pair, Block>::default().load(Relaxed),
        Pair::default()
    );
}

#[test]
fn sizes_1_2_4_16_work_and_have_the_integers_layout_and_lock_freedom() {
    let l = Atomic::<Level, System>::new(Level(3));
    assert_eq!(l.swap(Level(4), Relaxed), Level(3));
    let rg = Atomic::<Rg, Device>::new(Rg { r: 1, g: 2 });
    assert_eq!(
        rg.compare_exchange(Rg { r: 1, g: 2 }, Rg { r: 5, g: 6 }, AcqRel, Acquire),
        Ok(Rg { r: 1, g: 2 })
    );
    assert_eq!(rg.load(Relaxed), Rg { r: 5, g: 6 });
    let q = Atomic::<Quad, Device>::new(Quad {
        a: 1,
        b: 2,
        c: 3,
        d: 4,
    });
    let q2 = Quad {
        a: 5,
        b: 6,
        c: 7,
        d: 8,
    };
    assert_eq!(
        q.swap(q2, AcqRel),
        Quad {
            a: 1,
            b: 2,
            c: 3,
            d: 4
        }
    );
    assert_eq!(q.load(Acquire), q2);
    assert_eq!(
        q.is_lock_free(),
        Atomic::<u128, Device>::new(0).is_lock_free()
    );
    assert!(Atomic::<Pair, Device>::is_always_lock_free());
    assert_eq!(size_of::<Atomic<Pair, Device>>(), size_of::<AtomicU64>());
    assert_eq!(align_of::<Atomic<Pair, Device>>(), align_of::<AtomicU64>());
    assert_eq!(size_of::<Atomic<Level, Device>>(), size_of::<AtomicU8>());
    assert_eq!(size_of::<Atomic<Quad, Device>>(), 16);
    assert_eq!(align_of::<Atomic<Quad, Device>>(), 16);
}

#[test]
fn compare_exchange_compares_bits_not_partial_eq() {
    let a = Atomic::<Half2, Device>::new(Half2 { x: 0.0 });
    // `-0.0 == 0.0`, but the bits differ: no exchange, as in C++.
    let r = a.compare_exchange(Half2 { x: -0.0 }, Half2 { x: 1.0 }, AcqRel, Acquire);
    assert!(r.is_err());
    assert_eq!(a.load(Relaxed).x.to_bits(), 0.0f32.to_bits());
    // A NaN is not `==` to itself, but the same bits match.
    a.store(Half2 { x: f32::NAN }, Relaxed);
    let r = a.compare_exchange(Half2 { x: f32::NAN }, Half2 { x: 2.0 }, AcqRel, Acquire);
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(a.load(Relaxed), Half2 { x: 2.0 });
}

#[test]
fn an_atomic_ref_over_the_users_memory_and_threads_updating_one_pair() {
    #[repr(C, align(8))]
    struct Slot(Pair);
    let mut slot = Slot(Pair::default());
    {
        // SAFETY: `slot` is 8-aligned, live, and only accessed through `r` meanwhile.
        let r = unsafe { AtomicRef::<Pair, Device>::from_ptr(&mut slot.0) };
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(move || {
                    for _ in 0..if cfg!(miri) { 5 } else { 1000 } {
                        r.fetch_update(AcqRel, Acquire, |p| {
                            Some(Pair {
                                version: p.version + 1,
                                value: p.value + 2,
                            })
                        })
                        .unwrap();
                    }
                });
            }
        });
    }
    let n = if cfg!(miri) { 20 } else { 4000 };
    // Never torn: both halves were updated as one.
    assert_eq!(
        slot.0,
        Pair {
            version: n,
            value: 2 * n
        }
    );
}

#[test]
fn wait_returns_once_the_bits_change() {
    let a = Atomic::<Pair, Device>::new(Pair::default());
    std::thread::scope(|s| {
        s.spawn(|| {
            a.store(
                Pair {
                    version: 1,
                    value: 1,
                },
                Release,
            );
            a.notify_all();
        });
        a.wait(Pair::default(), Acquire);
    });
    assert_eq!(
        a.load(Acquire),
        Pair {
            version: 1,
            value: 1
        }
    );
}
