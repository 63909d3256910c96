//! State spaces: where an atomic's memory lives, when the code knows it.
//!
//! An atomic operation through a pointer of unknown space is a *generic* PTX access
//! (`atom.relaxed.gpu.add.u32 [p]`): ptxas then emits the generic `ATOM` with fallback paths for
//! shared and local memory (a float `red` becomes an `ATOM` that waits for its reply plus a
//! shared-memory CAS loop). When the memory is known to be global or shared, the operation can
//! name the space (`cvta.to.global` of the address, then `red.relaxed.gpu.global.add.f32`), and
//! ptxas emits the one `RED`/`ATOMG`/`ATOMS` it needs — as CUDA's classic intrinsics do.
//!
//! The space rides on the scope parameter: [`Global<S>`] and [`Shared<S>`] are scopes with
//! the synchronisation scope of `S` ([`Scope::KIND`]) and a state space ([`Scope::SPACE`]).
//! The space is a promise about memory that the compiler cannot check: an operation that names
//! `.shared` on a global address reads and writes another location (or faults). So only `unsafe`
//! code makes a spaced scope: [`AtomicRef::from_global_ptr`](crate::AtomicRef::from_global_ptr)
//! and [`from_shared_ptr`](crate::AtomicRef::from_shared_ptr) hand out views with them, and
//! [`Atomic::new_in_space`](crate::Atomic::new_in_space) declares an atomic whose memory is known
//! to be global (a `static` on the device) or shared. Every safe constructor and conversion takes
//! only the plain scopes ([`PlainScope`](crate::PlainScope)); re-scoping a spaced view keeps its
//! space ([`RescopeFrom`](crate::RescopeFrom)).
//!
//! ```
//! use scoped_atomics::{Atomic, Device, Global, Ordering};
//! // A device `static` lives in global memory: every operation names `.global`.
//! // SAFETY: a `static` is in global memory on the device (on the host the space changes
//! // nothing), and it is never moved.
//! static HITS: Atomic<u32, Global<Device>> = unsafe { Atomic::new_in_space(0) };
//! HITS.add(1, Ordering::Relaxed); // `red.relaxed.gpu.global.add.u32` on the device
//! assert_eq!(HITS.load(Ordering::Relaxed), 1);
//! ```
//!
//! ```compile_fail
//! use scoped_atomics::{Atomic, Block, Shared};
//! // error: `Shared<Block>` promises a state space, which safe code cannot check
//! static COUNTER: Atomic<u32, Shared<Block>> = Atomic::new(0);
//! ```
//!
//! Only memory operations change: fences have no state space (a `fence::<Global<Device>>` is
//! `fence::<Device>`), and on the host and under loom the space changes nothing.

use crate::scope::{PlainScope, RescopeFrom, Scope, ScopeKind, sealed};
use core::fmt;
use core::marker::PhantomData;

/// The PTX state space of an atomic's memory operations.
///
/// ```
/// use scoped_atomics::{Block, Device, Global, Scope, Shared, StateSpace};
/// assert_eq!(Device::SPACE, StateSpace::Generic);
/// assert_eq!(<Global<Device>>::SPACE, StateSpace::Global);
/// assert_eq!(<Shared<Block>>::SPACE.ptx(), ".shared");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    /// A generic address: any space; the hardware finds out at run time.
    Generic,
    /// Global memory (`.global`): kernel arguments from `cudaMalloc`, device `static`s.
    Global,
    /// The block's shared memory (`.shared`, i.e. `.shared::cta`): `block_shared!` arrays.
    Shared,
}

impl StateSpace {
    /// The PTX qualifier of the space, with its leading dot (empty for a generic address).
    ///
    /// ```
    /// use scoped_atomics::StateSpace;
    /// assert_eq!(StateSpace::Generic.ptx(), "");
    /// assert_eq!(StateSpace::Global.ptx(), ".global");
    /// ```
    pub const fn ptx(self) -> &'static str {
        match self {
            StateSpace::Generic => "",
            StateSpace::Global => ".global",
            StateSpace::Shared => ".shared",
        }
    }
}

macro_rules! space_scope {
    ($($(#[$doc:meta])* $name:ident => $space:ident,)*) => {$(
        $(#[$doc])*
        pub struct $name<S: Scope>(PhantomData<S>);

        impl<S: Scope> Clone for $name<S> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<S: Scope> Copy for $name<S> {}
        impl<S: Scope> Default for $name<S> {
            fn default() -> Self {
                $name(PhantomData)
            }
        }
        impl<S: Scope> fmt::Debug for $name<S> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}<{:?}>", stringify!($name), S::default())
            }
        }
        impl<S: PlainScope> sealed::Sealed for $name<S> {}
        // Only over a plain scope: `Global<Shared<Block>>` would promise two spaces.
        impl<S: PlainScope> Scope for $name<S> {
            const KIND: ScopeKind = S::KIND;
            const SPACE: StateSpace = StateSpace::$space;
        }
        // Re-scoping keeps the space: `Global<Block>` -> `Global<Device>`.
        impl<From: PlainScope, To: PlainScope> RescopeFrom<$name<From>> for $name<To> {}
    )*};
}

space_scope! {
    /// Scope `S`, on memory in the global state space: every memory operation is the
    /// `.global` form (`ld.acquire.gpu.global.b32`, `atom.relaxed.gpu.global.add.u32`) of the
    /// operation of `S`, after a `cvta.to.global` of the address. The memory must be global
    /// (see [`AtomicRef::from_global_ptr`](crate::AtomicRef::from_global_ptr)).
    ///
    /// ```
    /// use scoped_atomics::{Device, Global, Scope, ScopeKind};
    /// assert_eq!(<Global<Device>>::KIND, ScopeKind::Device);
    /// assert_eq!(<Global<Device>>::PTX, ".gpu");
    /// ```
    Global => Global,
    /// Scope `S`, on memory in the block's shared state space: every memory operation is the
    /// `.shared` form (`atom.relaxed.cta.shared.add.u32`) of the operation of `S`, after a
    /// `cvta.to.shared` of the address. The memory must be shared memory of the calling
    /// thread's block (see [`AtomicRef::from_shared_ptr`](crate::AtomicRef::from_shared_ptr)).
    ///
    /// ```
    /// use scoped_atomics::{Block, Scope, ScopeKind, Shared, StateSpace};
    /// assert_eq!((<Shared<Block>>::KIND, <Shared<Block>>::SPACE), (ScopeKind::Block, StateSpace::Shared));
    /// ```
    Shared => Shared,
}
