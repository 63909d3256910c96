//! The drop-in claim: code written against `std::sync::atomic` compiles unchanged against
//! `scoped_atomics::<scope>` when only the `use` line changes, and behaves the same.
//!
//! `program!` holds such code: statics with `const` `new` (and the `const` item + array repeat
//! idiom), a spin lock, message passing with fences, counters shared by threads, `fetch_update`,
//! `Default`, `From`, `from_ptr`/`as_ptr`, pointer arithmetic, and `Debug` under several formatter
//! flags. It is instantiated once per source of the names (std, and each per-scope module) and the
//! reports must be identical, including the layouts of every alias. A second part checks, at
//! compile time, the auto traits of every alias.

use std::panic::{RefUnwindSafe, UnwindSafe};

/// Memory that pointers point to: shared by every instantiation, so formatted addresses agree.
static SHARED: [u64; 4] = [0; 4];

fn shared_ptr(i: usize) -> *mut u64 {
    std::ptr::addr_of!(SHARED)
        .cast::<u64>()
        .cast_mut()
        .wrapping_add(i)
}

/// What one instantiation of the program observed.
#[derive(Debug, PartialEq)]
struct Report {
    counter: usize,
    slots: Vec<u32>,
    locked_total: u64,
    message: (u32, bool),
    update_results: Vec<Result<u32, u32>>,
    rmw_results: Vec<u32>,
    signed_results: Vec<i64>,
    bool_results: Vec<bool>,
    ptr_offsets: Vec<isize>,
    defaults: (u32, bool, bool, usize),
    froms: (u32, bool, bool, i64),
    via_raw_pointer: (u32, u32),
    debug: Vec<String>,
    layout: Vec<(&'static str, usize, usize)>,
}

/// `(name, size, alignment)` of each type.
macro_rules! layouts {
    ($($t:ty),*) => {
        vec![$((stringify!($t), std::mem::size_of::<$t>(), std::mem::align_of::<$t>())),*]
    };
}

macro_rules! program {
    ($m:ident, $($path:ident)::+) => {
        mod $m {
            use $($path)::+::{
                compiler_fence, fence, AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8,
                AtomicIsize, AtomicPtr, AtomicU16, AtomicU32, AtomicU64, AtomicU8, AtomicUsize,
                Ordering,
            };
            use super::{shared_ptr, Report};
            use std::cell::UnsafeCell;

            const THREADS: usize = if cfg!(miri) { 2 } else { 4 };
            const ITERS: usize = if cfg!(miri) { 20 } else { 10_000 };

            static COUNTER: AtomicUsize = AtomicUsize::new(0);
            #[allow(clippy::declare_interior_mutable_const)]
            const ZERO: AtomicU32 = AtomicU32::new(0);
            static SLOTS: [AtomicU32; 4] = [ZERO; 4];
            static MORE: [AtomicI64; 2] = [const { AtomicI64::new(-1) }, AtomicI64::new(1)];
            static READY: AtomicBool = AtomicBool::new(false);
            static DATA: AtomicU32 = AtomicU32::new(0);
            static HEAD: AtomicPtr<u64> = AtomicPtr::new(std::ptr::null_mut());

            /// A textbook spin lock.
            pub struct SpinLock<T> {
                locked: AtomicBool,
                value: UnsafeCell<T>,
            }

            // SAFETY: the lock gives one thread at a time access to the value.
            unsafe impl<T: Send> Sync for SpinLock<T> {}

            impl<T> SpinLock<T> {
                pub const fn new(value: T) -> Self {
                    Self { locked: AtomicBool::new(false), value: UnsafeCell::new(value) }
                }

                pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
                    while self
                        .locked
                        .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
                        .is_err()
                    {
                        while self.locked.load(Ordering::Relaxed) {
                            std::hint::spin_loop();
                        }
                    }
                    // SAFETY: the lock is held.
                    let result = f(unsafe { &mut *self.value.get() });
                    self.locked.store(false, Ordering::Release);
                    result
                }
            }

            static LOCK: SpinLock<u64> = SpinLock::new(0);

            fn bump(counter: &AtomicUsize) -> usize {
                counter.fetch_add(1, Ordering::Relaxed)
            }

            pub fn run() -> Report {
                // Counters and a lock shared by threads.
                std::thread::scope(|s| {
                    for t in 0..THREADS {
                        s.spawn(move || {
                            for i in 0..ITERS {
                                bump(&COUNTER);
                                SLOTS[(t + i) % 4].fetch_add(1, Ordering::Relaxed);
                                LOCK.with(|v| *v += 2);
                            }
                        });
                    }
                });

                // Message passing: data, release fence, flag / flag, acquire fence, data.
                let message = std::thread::scope(|s| {
                    s.spawn(|| {
                        DATA.store(42, Ordering::Relaxed);
                        fence(Ordering::Release);
                        READY.store(true, Ordering::Relaxed);
                    });
                    s.spawn(|| {
                        while !READY.load(Ordering::Relaxed) {
                            std::hint::spin_loop();
                        }
                        fence(Ordering::Acquire);
                        compiler_fence(Ordering::SeqCst);
                        (DATA.load(Ordering::Relaxed), READY.load(Ordering::SeqCst))
                    })
                    .join()
                    .unwrap()
                });
                fence(Ordering::SeqCst);
                compiler_fence(Ordering::AcqRel);

                // fetch_update: counts up to 3, then declines.
                let capped = AtomicU32::new(0);
                #[allow(deprecated, deprecated_in_future)]
                let update_results = (0..5)
                    .map(|_| {
                        capped.fetch_update(Ordering::AcqRel, Ordering::Acquire, |x| {
                            (x < 3).then_some(x + 1)
                        })
                    })
                    .collect();

                let x = AtomicU32::new(0b1100);
                let mut rmw_results = vec![
                    x.fetch_add(1, Ordering::SeqCst),
                    x.fetch_sub(3, Ordering::Release),
                    x.fetch_and(0b1010, Ordering::Acquire),
                    x.fetch_nand(0b0110, Ordering::AcqRel),
                    x.fetch_or(1, Ordering::Relaxed),
                    x.fetch_xor(u32::MAX, Ordering::SeqCst),
                    x.fetch_max(7, Ordering::SeqCst),
                    x.fetch_min(9, Ordering::SeqCst),
                    x.swap(17, Ordering::AcqRel),
                ];
                rmw_results.push(match x.compare_exchange(17, 18, Ordering::SeqCst, Ordering::Relaxed) {
                    Ok(v) | Err(v) => v,
                });
                rmw_results.push(x.compare_exchange(17, 19, Ordering::SeqCst, Ordering::Relaxed).unwrap_err());
                rmw_results.push(x.into_inner());

                let y = AtomicI64::new(-5);
                let signed_results = vec![
                    y.fetch_min(-9, Ordering::Relaxed),
                    y.fetch_max(3, Ordering::Relaxed),
                    y.fetch_sub(i64::MAX, Ordering::Relaxed),
                    y.fetch_add(i64::MIN, Ordering::Relaxed),
                    y.load(Ordering::Relaxed),
                    MORE[0].swap(5, Ordering::Relaxed),
                    MORE[1].load(Ordering::Relaxed),
                ];

                let b = AtomicBool::new(true);
                let bool_results = vec![
                    b.fetch_and(false, Ordering::SeqCst),
                    b.fetch_or(true, Ordering::SeqCst),
                    b.fetch_nand(true, Ordering::SeqCst),
                    b.fetch_xor(true, Ordering::SeqCst),
                    b.fetch_not(Ordering::SeqCst),
                    b.swap(true, Ordering::SeqCst),
                    b.load(Ordering::SeqCst),
                ];

                // Pointers: arithmetic and compare-exchange, reported as offsets from `SHARED`.
                HEAD.store(shared_ptr(0), Ordering::Release);
                let mut ptrs = vec![
                    HEAD.fetch_ptr_add(2, Ordering::AcqRel),
                    HEAD.fetch_byte_sub(8, Ordering::AcqRel),
                    HEAD.fetch_ptr_sub(1, Ordering::AcqRel),
                    HEAD.fetch_byte_add(24, Ordering::AcqRel),
                    HEAD.swap(shared_ptr(1), Ordering::AcqRel),
                ];
                ptrs.push(HEAD.compare_exchange(shared_ptr(1), shared_ptr(2), Ordering::SeqCst, Ordering::Relaxed).unwrap());
                ptrs.push(HEAD.load(Ordering::Acquire));
                let ptr_offsets = ptrs.iter().map(|p| (p.addr() as isize - shared_ptr(0).addr() as isize) / 8).collect();

                let defaults = (
                    AtomicU32::default().into_inner(),
                    AtomicBool::default().into_inner(),
                    AtomicPtr::<u8>::default().into_inner().is_null(),
                    AtomicUsize::default().load(Ordering::Relaxed),
                );
                let froms = (
                    AtomicU32::from(9).into_inner(),
                    AtomicBool::from(true).into_inner(),
                    AtomicPtr::from(shared_ptr(3)).into_inner() == shared_ptr(3),
                    AtomicI64::from(-4).load(Ordering::Relaxed),
                );

                // Raw pointers: `as_ptr`, `from_ptr`, `get_mut`.
                let mut plain = 5u32;
                // SAFETY: `plain` is aligned, live, and only accessed through `view` meanwhile.
                let view = unsafe { AtomicU32::from_ptr(&mut plain) };
                view.fetch_add(1, Ordering::Relaxed);
                let mut owned = AtomicU32::new(1);
                *owned.get_mut() += 10;
                // SAFETY: nothing else accesses `owned` while we read.
                let via_raw_pointer = (plain, unsafe { owned.as_ptr().read() });

                let debug = vec![
                    format!("{:?}", AtomicU32::new(7)),
                    format!("{:?}", AtomicI8::new(-7)),
                    format!("{:#?}", AtomicU64::new(u64::MAX)),
                    format!("{:x?}", AtomicU32::new(255)),
                    format!("{:#X?}", AtomicU16::new(0xbeef)),
                    format!("{:>8?}|{:<6?}|{:^7?}", AtomicI32::new(-3), AtomicU8::new(4), AtomicI16::new(5)),
                    format!("{:+?}|{:08?}", AtomicIsize::new(12), AtomicI64::new(-12)),
                    format!("{:?}", AtomicBool::new(true)),
                    format!("{:>6?}", AtomicBool::new(false)),
                    format!("{:?}", AtomicPtr::<u64>::new(std::ptr::null_mut())),
                    format!("{:?}", AtomicPtr::new(shared_ptr(2))),
                    format!("{:#?}", AtomicPtr::new(shared_ptr(1))),
                    format!("{:?}", AtomicUsize::new(usize::MAX)),
                    format!("{:?}", SLOTS),
                    format!("{:#?}", Some(&READY)),
                    format!("{:?}", (&COUNTER, &DATA, &HEAD)),
                ];

                let layout = layouts![
                    AtomicBool, AtomicU8, AtomicI8, AtomicU16, AtomicI16, AtomicU32, AtomicI32,
                    AtomicU64, AtomicI64, AtomicUsize, AtomicIsize, AtomicPtr<u8>,
                    AtomicPtr<[u64; 3]>, SpinLock<u64>, [AtomicU32; 4],
                    Option<AtomicU32>, (AtomicU8, AtomicU64)
                ];

                Report {
                    counter: COUNTER.load(Ordering::SeqCst),
                    slots: SLOTS.iter().map(|s| s.load(Ordering::Relaxed)).collect(),
                    locked_total: LOCK.with(|v| *v),
                    message,
                    update_results,
                    rmw_results,
                    signed_results,
                    bool_results,
                    ptr_offsets,
                    defaults,
                    froms,
                    via_raw_pointer,
                    debug,
                    layout,
                }
            }
        }
    };
}

program!(with_std, std::sync::atomic);
program!(with_system, scoped_atomics::system);
program!(with_device, scoped_atomics::device);
program!(with_cluster, scoped_atomics::cluster);
program!(with_block, scoped_atomics::block);
// Not `scoped_atomics::thread`: the program synchronises threads, which thread scope by definition
// does not (`fence::<Thread>` is a compiler fence, so the fence-based message passing may read
// stale data; Miri's weak-memory emulation does exactly that). Its layouts and auto traits are
// checked below.

/// Each instantiation's statics are its own, and each `run` is called exactly once (here).
#[test]
fn same_program_same_results() {
    let std = with_std::run();
    // Sanity of the reference itself.
    let total = std.counter;
    assert_eq!(std.slots.iter().map(|&s| s as usize).sum::<usize>(), total);
    assert_eq!(std.locked_total, 2 * total as u64);
    assert_eq!(std.message, (42, true));
    assert_eq!(std.update_results, [Ok(0), Ok(1), Ok(2), Err(3), Err(3)]);
    assert_eq!(std.debug[0], "7");
    assert_eq!(std.debug[9], "0x0");

    for (name, report) in [
        ("system", with_system::run()),
        ("device", with_device::run()),
        ("cluster", with_cluster::run()),
        ("block", with_block::run()),
    ] {
        assert_eq!(
            report, std,
            "scoped_atomics::{name} differs from std::sync::atomic"
        );
    }
}

/// The layouts of the thread-scope aliases (not covered by `program!`) equal std's.
#[test]
fn thread_scope_layouts_match_std() {
    macro_rules! same_layout {
        ($($t:ident $(<$p:ty>)?),*) => {$(
            assert_eq!(
                layouts![scoped_atomics::thread::$t $(<$p>)?][0].1..=layouts![scoped_atomics::thread::$t $(<$p>)?][0].2,
                layouts![std::sync::atomic::$t $(<$p>)?][0].1..=layouts![std::sync::atomic::$t $(<$p>)?][0].2,
                stringify!($t)
            );
        )*};
    }
    same_layout!(
        AtomicBool,
        AtomicU8,
        AtomicI8,
        AtomicU16,
        AtomicI16,
        AtomicU32,
        AtomicI32,
        AtomicU64,
        AtomicI64,
        AtomicUsize,
        AtomicIsize,
        AtomicPtr<u8>,
        AtomicPtr<[u64; 3]>
    );
}

/// The per-scope modules re-export std's `Ordering` itself, so values pass between the two APIs.
#[test]
fn ordering_is_stds() {
    let order: std::sync::atomic::Ordering = scoped_atomics::device::Ordering::AcqRel;
    let back: scoped_atomics::thread::Ordering = std::sync::atomic::Ordering::SeqCst;
    let root: scoped_atomics::Ordering = order;
    assert_eq!(
        (order, back, root),
        (std::sync::atomic::Ordering::AcqRel, back, order)
    );
}

/// Compiles only if `T` has every auto trait std's atomics have.
fn assert_traits<T: Send + Sync + Unpin + UnwindSafe + RefUnwindSafe>() {}
fn assert_send_sync<T: Send + Sync>() {}

macro_rules! auto_traits {
    ($($($path:ident)::+),*) => {$({
        use $($path)::+ as m;
        assert_traits::<m::AtomicBool>();
        assert_traits::<m::AtomicU8>();
        assert_traits::<m::AtomicI8>();
        assert_traits::<m::AtomicU16>();
        assert_traits::<m::AtomicI16>();
        assert_traits::<m::AtomicU32>();
        assert_traits::<m::AtomicI32>();
        assert_traits::<m::AtomicU64>();
        assert_traits::<m::AtomicI64>();
        assert_traits::<m::AtomicUsize>();
        assert_traits::<m::AtomicIsize>();
        assert_traits::<m::AtomicPtr<u8>>();
        assert_traits::<m::AtomicPtr<[u16; 3]>>();
        // `AtomicPtr<T>` is `Send + Sync` whatever `T` is.
        assert_send_sync::<m::AtomicPtr<std::rc::Rc<u8>>>();
        assert_send_sync::<m::AtomicPtr<std::cell::Cell<u8>>>();
    })*};
}

#[test]
fn auto_traits_match_std() {
    auto_traits!(
        std::sync::atomic,
        scoped_atomics::system,
        scoped_atomics::device,
        scoped_atomics::cluster,
        scoped_atomics::block,
        scoped_atomics::thread
    );
    // The float aliases (std has none) and `AtomicRef`.
    macro_rules! floats_and_refs {
        ($($m:ident),*) => {$(
            assert_traits::<scoped_atomics::$m::AtomicF32>();
            assert_traits::<scoped_atomics::$m::AtomicF64>();
            assert_traits::<scoped_atomics::$m::AtomicRef<'static, u32>>();
            assert_traits::<scoped_atomics::$m::AtomicRef<'static, f64>>();
            assert_traits::<scoped_atomics::$m::AtomicRef<'static, *mut u8>>();
        )*};
    }
    floats_and_refs!(system, device, cluster, block, thread);
    // And the generic root aliases with their default scope.
    assert_traits::<scoped_atomics::AtomicU32>();
    assert_traits::<scoped_atomics::AtomicF32>();
    assert_traits::<scoped_atomics::AtomicPtr<u8>>();
}

/// `fmt::Pointer` formatting of `$value` under each format string in `POINTER_FORMATS`, or `None`
/// if its (concrete) type does not implement `fmt::Pointer`. Decided by autoref specialization, so
/// that a missing impl is a runtime `None` rather than a compile error.
macro_rules! pointer_formats {
    ($value:expr) => {{
        struct Probe<'a, T>(&'a T);
        #[allow(dead_code)] // one of the two traits answers
        trait Yes {
            fn formats(&self) -> Option<Vec<String>>;
        }
        impl<T: std::fmt::Pointer> Yes for Probe<'_, T> {
            fn formats(&self) -> Option<Vec<String>> {
                // `*self.0`: formatting the reference itself would print its own address.
                Some(vec![
                    format!("{:p}", *self.0),
                    format!("{:#p}", *self.0),
                    format!("{:>24p}", *self.0),
                    format!("{:<24p}|", *self.0),
                    format!("{:024p}", *self.0),
                ])
            }
        }
        #[allow(dead_code)]
        trait No {
            fn formats(&self) -> Option<Vec<String>> {
                None
            }
        }
        impl<T> No for &Probe<'_, T> {}
        (&Probe(&$value)).formats()
    }};
}

/// `std::sync::atomic::AtomicPtr` implements `fmt::Pointer` (since 1.24), so
/// `format!("{:p}", atomic_ptr)` is valid std code; it must keep compiling, with the same output,
/// when the `use` line switches to `scoped_atomics::<scope>::AtomicPtr`.
#[test]
fn atomic_ptr_formats_as_pointer_like_std() {
    for p in [
        std::ptr::null_mut(),
        shared_ptr(1),
        std::ptr::without_provenance_mut(0xdead_beef),
    ] {
        let std = pointer_formats!(std::sync::atomic::AtomicPtr::<u64>::new(p));
        assert!(std.is_some(), "the probe itself works");
        assert_eq!(pointer_formats!(p), std, "std formats the pointer itself");
        let ours = [
            (
                "system",
                pointer_formats!(scoped_atomics::system::AtomicPtr::<u64>::new(p)),
            ),
            (
                "device",
                pointer_formats!(scoped_atomics::device::AtomicPtr::<u64>::new(p)),
            ),
            (
                "cluster",
                pointer_formats!(scoped_atomics::cluster::AtomicPtr::<u64>::new(p)),
            ),
            (
                "block",
                pointer_formats!(scoped_atomics::block::AtomicPtr::<u64>::new(p)),
            ),
            (
                "thread",
                pointer_formats!(scoped_atomics::thread::AtomicPtr::<u64>::new(p)),
            ),
        ];
        for (scope, formats) in ours {
            assert!(
                formats.is_some(),
                "scoped_atomics::{scope}::AtomicPtr lacks `impl fmt::Pointer` (std's AtomicPtr has \
                 it: `format!(\"{{:p}}\", atomic_ptr)` stops compiling after the switch)"
            );
            assert_eq!(
                formats, std,
                "scoped_atomics::{scope}::AtomicPtr {{:p}} of {p:?}"
            );
        }
    }
}
