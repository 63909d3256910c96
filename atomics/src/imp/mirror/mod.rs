//! The loom mirror: under `--cfg loom`, every operation runs on loom with the ordering structure
//! of its PTX mapping (the same [`table`] as the device backend: a `SeqCst` load is a `SeqCst`
//! fence and an acquire load, and so on), and scope misuse is reported as the data race it is on a
//! GPU.
//!
//! What it checks (details in [`location`]):
//! * two conflicting operations on one location that are not ordered by happens-before and are
//!   not morally strong (each one's scope includes the other's thread, PTX ISA 8.7) fail the model
//!   with a message naming the location's type, both operations, both scopes and both threads;
//! * plain accesses (`scoped_atomics::plain`) are logged on the same location as the `AtomicRef`
//!   views of that memory and are morally strong with nothing: a plain access and any
//!   conflicting access of another thread that happens-before does not order are a data race
//!   ("data race on `u32`: plain `write` by … and `fetch_add(Relaxed)` at device scope by …");
//! * a synchronisation through a fence whose scope does not include the other thread (the scoped
//!   fence rule of the libcu++ memory model) fails the model where the acquiring side reads the
//!   released write;
//! * optionally (`model::Options::strict_atomic_ref_scopes`, off by default), libcu++'s
//!   `atomic_ref` rule: two operations of different threads on one location with different
//!   scopes that happens-before does not order are reported, loads included, even where the PTX
//!   model makes them morally strong.
//!
//! # Model choices
//!
//! Where the mirror deliberately differs from PTX, each shown by a test in `loom-tests`
//! (`tests/limits.rs` unless named otherwise).
//!
//! Stricter than PTX — the language's verdict. The mirror checks the contract the program is
//! written against: `core::sync::atomic` promises the C++20 model, and the same source runs on
//! the host and through LLVM's optimisations, which follow that model, so a program that is
//! correct only by PTX's stronger rules is reported:
//! * a release store followed by a relaxed store of the same thread does not make the second
//!   store a release (PTX's release pattern `st.release [M]; st.relaxed [M]`, 8.8; in C++20 a
//!   release sequence continues only through read-modify-writes):
//!   `release_store_then_relaxed_store_is_not_a_release`, with the RMW contrast
//!   `release_store_then_relaxed_rmw_is_still_a_release`;
//! * likewise a relaxed read of a release followed by an acquire read of the same location does
//!   not acquire what the first read saw when the second reads a later write (PTX's acquire
//!   pattern `ld.relaxed [M]; ld.acquire [M]`):
//!   `relaxed_read_then_acquire_read_of_a_later_write_is_not_an_acquire`;
//! * the scoped fence rule is checked whether or not anything depends on the synchronisation
//!   (loom's fences cannot leave it out): `fence_rule_is_checked_even_when_nothing_depends_on_it`;
//! * a reduction's read followed by an acquire fence is reported when it read a released write
//!   of another thread, since loom would synchronise where PTX does not (8.8), also when nothing
//!   depends on it: `litmus::mp_with_reduction`;
//! * a location viewed with two sizes panics (PTX gives mixed-size races no guarantees, 8.7.2):
//!   `mixed_size_views_panic`;
//! * in the opt-in strict mode, libcu++'s `atomic_ref` rule (`strict_atomic_ref::*`).
//!
//! Weaker than PTX — what it does not check or explore:
//! * loom has no load buffering, and treats `SeqCst` accesses like `AcqRel` (loom issue 180);
//!   every `SeqCst` operation here is a `SeqCst` fence plus an acquire/relaxed access, as on the
//!   device, so fence-based SC reasoning (the SB litmus test) is explored faithfully;
//! * at most 5 threads per model (loom's limit);
//! * a release fence counts with the widest scope of the release fences its thread has executed,
//!   so data written between a wide and a later narrow fence is not caught;
//! * a thread spawned after another thread's atomic operation is not checked against that
//!   operation's scope (spawn every thread before the racing operations; loom's first executions
//!   do); plain accesses are checked against every thread, spawned later or not;
//! * narrow `SeqCst` fences order threads outside their scope (loom's `SeqCst` fences are global):
//!   `block_scope_seqcst_fences_order_other_blocks_in_loom`;
//! * `compare_exchange_weak` never fails spuriously: `compare_exchange_weak_never_fails_spuriously`;
//! * a byte is its own location, while on the device an 8-bit atomic rewrites its whole 32-bit
//!   word: a plain write to a neighbouring byte racing with it is not reported:
//!   `plain_write_to_a_neighbouring_byte_of_an_8bit_atomic_is_not_reported`;
//! * read-modify-writes always read the newest value, so the lost update of atomicity litmus
//!   test 2 is reported as a scope race rather than produced (`litmus::atomicity_2_*`);
//! * a spin round (`kernel::spin_loop`, `nanosleep`, the library's waits) that can see nothing
//!   new — no write changed a mirror location's value since the thread's previous round, and the
//!   thread read no outdated write since — ends loom's exploration below it
//!   (`topology::spin`): the round repeats the previous one. A spin whose exit depends on what
//!   the mirror does not see (a bounded spin's counter, raw memory) is explored along loom's
//!   default schedule after its first futile round. A bug that needs an interleaving after the
//!   spinners' rounds is still found: `spins::ttas_lock_released_early_is_found_with_*`;
//! * the emulation's barriers (`sync_threads`, `sync_warp`, the warp steps) block their waiters
//!   on loom (`kernel::emulation::LoomBarrier`) instead of polling mirror atomics, so they are
//!   not scope-checked: only the threads of their block (or warp) can reach them.

mod location;
#[path = "../ptx/table.rs"]
mod table;
pub(crate) mod topology;

use super::{RawAtomic, RawBool, RawFloat, RawInt, RawIntReduce, RawPtr, RawReduce};
use crate::{Scope, ScopeKind};
use core::marker::PhantomData;
use core::sync::atomic::Ordering;
use location::{Bits, LocationState, Op};
use std::collections::HashMap;
use std::sync::Mutex;

/// The storage of an `Atomic<T, S>` under loom: a mirror location holding values of `R`, the
/// `core` storage type (`u32` for `f32`, as `AtomicU32` does).
#[repr(transparent)]
pub struct Location<R> {
    state: LocationState,
    value: PhantomData<fn() -> R>,
}

pub(crate) mod storage {
    use super::Location;
    pub type Bool = Location<bool>;
    pub type U8 = Location<u8>;
    pub type I8 = Location<i8>;
    pub type U16 = Location<u16>;
    pub type I16 = Location<i16>;
    pub type U32 = Location<u32>;
    pub type I32 = Location<i32>;
    pub type U64 = Location<u64>;
    pub type I64 = Location<i64>;
    pub type U128 = Location<u128>;
    pub type I128 = Location<i128>;
    pub type Usize = Location<usize>;
    pub type Isize = Location<isize>;
    pub type F32 = Location<u32>;
    pub type F64 = Location<u64>;
    pub type F16 = Location<u16>;
    pub type Bf16 = Location<u16>;
    pub type Ptr<U> = Location<*mut U>;
}
pub(crate) use storage as Storage;

/// A value as the bits the mirror logs (zero-extended to 128), and the `core` storage type that
/// holds it.
pub trait Mirror: Copy {
    type Repr: Mirror;
    fn to_bits(self) -> Bits;
    fn from_bits(bits: Bits) -> Self;
}

/// `Mirror` for the types of at most 64 bits: `$to` gives the value's bits as a `u64`, `$from`
/// takes them back from one.
macro_rules! mirror {
    ($($t:ty => $repr:ty: |$a:ident| $to:expr, |$b:ident| $from:expr;)*) => {$(
        impl Mirror for $t {
            type Repr = $repr;
            #[inline]
            fn to_bits(self) -> Bits { let $a = self; Bits::from($to) }
            #[inline]
            fn from_bits(bits: Bits) -> Self { let $b = bits as u64; $from }
        }
    )*};
}

mirror! {
    bool => bool: |v| v as u64, |b| b != 0;
    u8 => u8: |v| v as u64, |b| b as u8;
    i8 => i8: |v| v as u8 as u64, |b| b as i8;
    u16 => u16: |v| v as u64, |b| b as u16;
    i16 => i16: |v| v as u16 as u64, |b| b as i16;
    u32 => u32: |v| v as u64, |b| b as u32;
    i32 => i32: |v| v as u32 as u64, |b| b as i32;
    u64 => u64: |v| v, |b| b;
    i64 => i64: |v| v as u64, |b| b as i64;
    usize => usize: |v| v as u64, |b| b as usize;
    isize => isize: |v| v as usize as u64, |b| b as isize;
    f32 => u32: |v| v.to_bits() as u64, |b| f32::from_bits(b as u32);
    f64 => u64: |v| v.to_bits(), |b| f64::from_bits(b);
    half::f16 => u16: |v| v.to_bits() as u64, |b| half::f16::from_bits(b as u16);
    half::bf16 => u16: |v| v.to_bits() as u64, |b| half::bf16::from_bits(b as u16);
}

impl Mirror for u128 {
    type Repr = u128;
    #[inline]
    fn to_bits(self) -> Bits {
        self
    }
    #[inline]
    fn from_bits(bits: Bits) -> Self {
        bits
    }
}

impl Mirror for i128 {
    type Repr = i128;
    #[inline]
    fn to_bits(self) -> Bits {
        self as u128
    }
    #[inline]
    fn from_bits(bits: Bits) -> Self {
        bits as i128
    }
}

impl<U> Mirror for *mut U {
    type Repr = *mut U;
    fn to_bits(self) -> Bits {
        self.expose_provenance() as Bits
    }
    fn from_bits(bits: Bits) -> Self {
        core::ptr::with_exposed_provenance_mut(bits as usize)
    }
}

/// A user's [`AtomicValue`](crate::AtomicValue) is logged as its bits, in its `Bits`' location.
impl<T> Mirror for T
where
    T: crate::AtomicValue,
    T::Bits: Mirror,
{
    type Repr = T::Bits;
    #[inline]
    fn to_bits(self) -> Bits {
        crate::value::to_bits(self).to_bits()
    }
    #[inline]
    fn from_bits(bits: Bits) -> Self {
        crate::value::from_bits(<T::Bits as Mirror>::from_bits(bits))
    }
}

impl<R: Mirror> Location<R> {
    pub fn new(value: R) -> Self {
        let state = LocationState::new(
            value.to_bits(),
            core::any::type_name::<R>(),
            size_of::<R>(),
            core::ptr::null_mut(),
        );
        Location {
            state,
            value: PhantomData,
        }
    }

    pub fn into_inner(self) -> R {
        R::from_bits(self.state.newest_bits())
    }
}

#[track_caller]
fn op<S: Scope, T>(name: &'static str, order: Ordering) -> Op {
    Op {
        at: core::panic::Location::caller(),
        value_type: core::any::type_name::<T>(),
        name,
        order,
        scope: S::KIND,
        plain: false,
    }
}

fn loom_order(sem: table::Sem) -> Ordering {
    match sem {
        table::Sem::Relaxed => Ordering::Relaxed,
        table::Sem::Acquire => Ordering::Acquire,
        table::Sem::Release => Ordering::Release,
        table::Sem::AcqRel => Ordering::AcqRel,
    }
}

impl<T: Mirror> RawAtomic<T> for Location<T::Repr> {
    #[track_caller]
    fn load<S: Scope>(&self, order: Ordering) -> T {
        T::from_bits(self.state.load(op::<S, T>("load", order)))
    }
    #[track_caller]
    fn store<S: Scope>(&self, value: T, order: Ordering) {
        self.state
            .store(op::<S, T>("store", order), value.to_bits())
    }
    #[track_caller]
    fn swap<S: Scope>(&self, value: T, order: Ordering) -> T {
        self.update::<S, T>("swap", order, |_| value)
    }
    #[track_caller]
    fn compare_exchange<S: Scope>(
        &self,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<T, T> {
        self.cas::<S, T>("compare_exchange", current, new, success, failure)
    }
    /// Never fails spuriously: loom would explore the spurious failures as extra executions
    /// without finding anything a strong compare-exchange in a loop does not.
    #[track_caller]
    fn compare_exchange_weak<S: Scope>(
        &self,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<T, T> {
        self.cas::<S, T>("compare_exchange_weak", current, new, success, failure)
    }
}

impl<R> Location<R> {
    #[track_caller]
    fn cas<S: Scope, T: Mirror>(
        &self,
        name: &'static str,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<T, T> {
        let op = op::<S, T>(name, success);
        let result = self
            .state
            .compare_exchange(op, failure, current.to_bits(), new.to_bits());
        result.map(T::from_bits).map_err(T::from_bits)
    }

    /// A read-modify-write storing `f(previous)`, with the table's rmw row for `order`.
    #[track_caller]
    fn update<S: Scope, T: Mirror>(
        &self,
        name: &'static str,
        order: Ordering,
        f: impl FnOnce(T) -> T,
    ) -> T {
        let bits = self
            .state
            .rmw(op::<S, T>(name, order), table::rmw(order), false, |b| {
                f(T::from_bits(b)).to_bits()
            });
        T::from_bits(bits)
    }

    /// A reduction: the table's reduction row (the front has rejected other orders).
    #[track_caller]
    fn reduce<S: Scope, T: Mirror>(
        &self,
        name: &'static str,
        order: Ordering,
        f: impl FnOnce(T) -> T,
    ) {
        self.state.rmw(
            op::<S, T>(name, order),
            table::reduction(order),
            true,
            |b| f(T::from_bits(b)).to_bits(),
        );
    }
}

macro_rules! mirror_int {
    ($($t:ty),*) => {$(
        impl RawInt<$t> for Location<$t> {
            #[track_caller] fn fetch_add<S: Scope>(&self, v: $t, o: Ordering) -> $t { self.update::<S, $t>("fetch_add", o, |x| x.wrapping_add(v)) }
            #[track_caller] fn fetch_sub<S: Scope>(&self, v: $t, o: Ordering) -> $t { self.update::<S, $t>("fetch_sub", o, |x| x.wrapping_sub(v)) }
            #[track_caller] fn fetch_and<S: Scope>(&self, v: $t, o: Ordering) -> $t { self.update::<S, $t>("fetch_and", o, |x| x & v) }
            #[track_caller] fn fetch_nand<S: Scope>(&self, v: $t, o: Ordering) -> $t { self.update::<S, $t>("fetch_nand", o, |x| !(x & v)) }
            #[track_caller] fn fetch_or<S: Scope>(&self, v: $t, o: Ordering) -> $t { self.update::<S, $t>("fetch_or", o, |x| x | v) }
            #[track_caller] fn fetch_xor<S: Scope>(&self, v: $t, o: Ordering) -> $t { self.update::<S, $t>("fetch_xor", o, |x| x ^ v) }
            #[track_caller] fn fetch_min<S: Scope>(&self, v: $t, o: Ordering) -> $t { self.update::<S, $t>("fetch_min", o, |x| x.min(v)) }
            #[track_caller] fn fetch_max<S: Scope>(&self, v: $t, o: Ordering) -> $t { self.update::<S, $t>("fetch_max", o, |x| x.max(v)) }
        }
        impl RawReduce<$t> for Location<$t> {
            #[track_caller] fn reduce_add<S: Scope>(&self, v: $t, o: Ordering) { self.reduce::<S, $t>("add", o, |x| x.wrapping_add(v)) }
            #[track_caller] fn reduce_sub<S: Scope>(&self, v: $t, o: Ordering) { self.reduce::<S, $t>("sub", o, |x| x.wrapping_sub(v)) }
        }
        impl RawIntReduce<$t> for Location<$t> {
            #[track_caller] fn reduce_and<S: Scope>(&self, v: $t, o: Ordering) { self.reduce::<S, $t>("and", o, |x| x & v) }
            #[track_caller] fn reduce_or<S: Scope>(&self, v: $t, o: Ordering) { self.reduce::<S, $t>("or", o, |x| x | v) }
            #[track_caller] fn reduce_xor<S: Scope>(&self, v: $t, o: Ordering) { self.reduce::<S, $t>("xor", o, |x| x ^ v) }
            #[track_caller] fn reduce_min<S: Scope>(&self, v: $t, o: Ordering) { self.reduce::<S, $t>("min", o, |x| x.min(v)) }
            #[track_caller] fn reduce_max<S: Scope>(&self, v: $t, o: Ordering) { self.reduce::<S, $t>("max", o, |x| x.max(v)) }
        }
    )*};
}

mirror_int!(
    u8, i8, u16, i16, u32, i32, u64, i64, u128, i128, usize, isize
);

macro_rules! mirror_float {
    ($($t:ty => $repr:ty),*) => {$(
        impl RawFloat<$t> for Location<$repr> {
            #[track_caller] fn fetch_add<S: Scope>(&self, v: $t, o: Ordering) -> $t { self.update::<S, $t>("fetch_add", o, |x| x + v) }
            #[track_caller] fn fetch_sub<S: Scope>(&self, v: $t, o: Ordering) -> $t { self.update::<S, $t>("fetch_sub", o, |x| x - v) }
            #[track_caller] fn fetch_min<S: Scope>(&self, v: $t, o: Ordering) -> $t { self.update::<S, $t>("fetch_min", o, |x| x.min(v)) }
            #[track_caller] fn fetch_max<S: Scope>(&self, v: $t, o: Ordering) -> $t { self.update::<S, $t>("fetch_max", o, |x| x.max(v)) }
        }
        impl RawReduce<$t> for Location<$repr> {
            #[track_caller] fn reduce_add<S: Scope>(&self, v: $t, o: Ordering) { self.reduce::<S, $t>("add", o, |x| x + v) }
            #[track_caller] fn reduce_sub<S: Scope>(&self, v: $t, o: Ordering) { self.reduce::<S, $t>("sub", o, |x| x - v) }
        }
    )*};
}

mirror_float!(f32 => u32, f64 => u64, half::f16 => u16, half::bf16 => u16);

impl RawBool for Location<bool> {
    #[track_caller]
    fn fetch_and<S: Scope>(&self, v: bool, o: Ordering) -> bool {
        self.update::<S, bool>("fetch_and", o, |x| x & v)
    }
    #[track_caller]
    fn fetch_nand<S: Scope>(&self, v: bool, o: Ordering) -> bool {
        self.update::<S, bool>("fetch_nand", o, |x| !(x & v))
    }
    #[track_caller]
    fn fetch_or<S: Scope>(&self, v: bool, o: Ordering) -> bool {
        self.update::<S, bool>("fetch_or", o, |x| x | v)
    }
    #[track_caller]
    fn fetch_xor<S: Scope>(&self, v: bool, o: Ordering) -> bool {
        self.update::<S, bool>("fetch_xor", o, |x| x ^ v)
    }
}

impl<U> RawPtr<U> for Location<*mut U> {
    #[track_caller]
    fn fetch_byte_add<S: Scope>(&self, bytes: usize, o: Ordering) -> *mut U {
        self.update::<S, *mut U>("fetch_byte_add", o, |p| p.wrapping_byte_add(bytes))
    }
    #[track_caller]
    fn fetch_byte_sub<S: Scope>(&self, bytes: usize, o: Ordering) -> *mut U {
        self.update::<S, *mut U>("fetch_byte_sub", o, |p| p.wrapping_byte_sub(bytes))
    }
    #[track_caller]
    fn fetch_addr_and<S: Scope>(&self, value: usize, o: Ordering) -> *mut U {
        self.update::<S, *mut U>("fetch_and", o, |p| p.map_addr(|a| a & value))
    }
    #[track_caller]
    fn fetch_addr_or<S: Scope>(&self, value: usize, o: Ordering) -> *mut U {
        self.update::<S, *mut U>("fetch_or", o, |p| p.map_addr(|a| a | value))
    }
    #[track_caller]
    fn fetch_addr_xor<S: Scope>(&self, value: usize, o: Ordering) -> *mut U {
        self.update::<S, *mut U>("fetch_xor", o, |p| p.map_addr(|a| a ^ value))
    }
}

/// `fence::<S>(order)`: loom's fence with the requested ordering (the weakest the device may
/// execute), plus the scoped fence rule: a release fence marks this thread's later writes with its
/// scope; an acquire fence checks every released write read since the previous acquire fence.
#[track_caller]
pub(crate) fn fence<S: Scope>(order: Ordering) {
    scoped_fence(S::KIND, order)
}

/// A fence of `scope`: `fence::<S>`, and the leading `fence.sc` of a `SeqCst` operation.
#[track_caller]
pub(crate) fn scoped_fence(scope: ScopeKind, order: Ordering) {
    if table::fence_for(scope, order, true) == table::Fence::Compiler {
        return;
    }
    let me = topology::current_index();
    loom::sync::atomic::fence(order);
    if matches!(
        order,
        Ordering::Release | Ordering::AcqRel | Ordering::SeqCst
    ) {
        topology::with_state(|s| s.release_fence = s.release_fence.max(Some(scope)));
    }
    if matches!(
        order,
        Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst
    ) {
        let pending = topology::with_state(|s| core::mem::take(&mut s.pending_acquire));
        for p in &pending {
            location::check_synchronisation(me, &p.released, &p.read, Some(scope), p.by_reduction);
        }
    }
}

/// `compiler_fence(order)`: loom explores orderings itself; only the ordering is checked.
#[track_caller]
pub(crate) fn compiler_fence(order: Ordering) {
    crate::ordering::check_fence(order);
}

loom::lazy_static! {
    /// The locations that `AtomicRef`s view, by address, for this execution.
    static ref VIEWS: Mutex<HashMap<usize, std::boxed::Box<LocationState>>> = Mutex::new(HashMap::new());
}

/// The mirror location of the `R` at `ptr`, created on first use with the value found there.
/// Every write through it is copied back to `ptr`.
///
/// # Safety
/// `ptr` is valid for reads and writes of `R` for as long as the returned reference is used.
pub(crate) unsafe fn view<'a, R: Mirror>(ptr: *mut R) -> &'a Location<R> {
    // SAFETY: the caller's contract. (A typed read, so that a pointer's provenance is exposed.)
    let initial = || unsafe { ptr.read() }.to_bits();
    // SAFETY: the caller's contract.
    let state = unsafe {
        view_state(
            ptr.cast(),
            size_of::<R>(),
            core::any::type_name::<R>(),
            initial,
        )
    };
    // SAFETY: `Location<R>` is `repr(transparent)` over `LocationState`.
    unsafe { &*(state as *const LocationState).cast::<Location<R>>() }
}

/// The state of the location of `size` bytes at `ptr`, of type `type_name`, created on first use
/// with the value `initial()` reads there (its bits, little-endian as `Mirror::to_bits` of every
/// type).
///
/// # Safety
/// `ptr` is valid for reads and writes of `size` bytes for as long as the result is used.
unsafe fn view_state<'a>(
    ptr: *mut u8,
    size: usize,
    type_name: &'static str,
    initial: impl Fn() -> Bits,
) -> &'a LocationState {
    assert!(
        size <= 16,
        "scoped-atomics loom mirror: `{type_name}` is wider than the 128 bits the mirror logs"
    );
    let mut views = VIEWS.lock().unwrap();
    let fresh = || std::boxed::Box::new(LocationState::new(initial(), type_name, size, ptr));
    let state = views.entry(ptr.addr()).or_insert_with(fresh);
    // Views write through, so memory that no longer holds the newest value was written plainly by
    // its owner after the last view ended (or reused for a new object): a new location, with a new
    // history, starts there. No view of the old one can still be in use: the plain write needed
    // the memory exclusively.
    if state.size() == size && !state.matches_memory() {
        *state = fresh();
        topology::count_change();
    }
    assert!(
        state.size() == size,
        "scoped-atomics loom mirror: `{}` viewed as `{type_name}`: a mixed-size access, for which the PTX model gives no guarantees (PTX ISA 8.7.2)",
        state.type_name(),
    );
    let state: *const LocationState = &**state;
    // SAFETY: the box lives in `VIEWS` until the execution ends and never moves.
    unsafe { &*state }
}

/// A plain access of `size` bytes at `ptr` (`scoped_atomics::plain`), logged on the location
/// that `AtomicRef` views of the same memory use: `Some(bits)` writes them (and the memory),
/// `None` only checks a read, after which the caller reads the memory.
///
/// # Safety
/// `ptr` is valid for reads (and, for a write, writes) of `size` bytes.
#[track_caller]
pub(crate) unsafe fn plain_access(
    ptr: *mut u8,
    size: usize,
    type_name: &'static str,
    write: Option<u64>,
) {
    let initial = || {
        let mut bytes = [0u8; 16];
        // SAFETY: the caller's contract (`view_state` rejects `size > 16` first).
        unsafe { core::ptr::copy_nonoverlapping(ptr, bytes.as_mut_ptr(), size) };
        Bits::from_le_bytes(bytes)
    };
    // SAFETY: the caller's contract; a read changes nothing, a write only `size` bytes.
    let state = unsafe { view_state(ptr, size, type_name, initial) };
    let at = core::panic::Location::caller();
    let op = |name| Op {
        at,
        value_type: type_name,
        name,
        order: Ordering::Relaxed,
        scope: ScopeKind::Thread,
        plain: true,
    };
    match write {
        Some(bits) => state.plain_write(op("write"), Bits::from(bits)),
        None => state.plain_read(op("read")),
    }
}
