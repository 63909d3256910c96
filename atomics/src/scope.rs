//! Thread scopes: which threads an atomic operation or fence synchronises with.
//!
//! A scope is part of an atomic's *type*, as in libcu++'s `cuda::atomic<T, Scope>`. On the device it
//! selects the PTX scope qualifier; on the host it changes no machine instruction, but the loom
//! mirror uses it to decide whether two operations are *morally strong* (PTX ISA 8.7) or race.

use crate::StateSpace;
use core::fmt;

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// A thread scope, runtime value of a [`Scope`] type.
///
/// Scopes are totally ordered by the set of threads they include:
/// `Thread < Block < Cluster < Device < System`.
///
/// ```
/// use scoped_atomics::{Device, Scope, ScopeKind};
/// assert_eq!(Device::KIND, ScopeKind::Device);
/// assert!(ScopeKind::Block < ScopeKind::System);
/// assert_eq!(ScopeKind::Device.ptx(), ".gpu");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ScopeKind {
    /// The executing thread only (`cuda::thread_scope_thread`).
    Thread,
    /// The threads of one thread block / CTA (`cuda::thread_scope_block`, PTX `.cta`).
    Block,
    /// The threads of one thread-block cluster (PTX `.cluster`, sm_90 and newer).
    Cluster,
    /// The threads of one GPU (`cuda::thread_scope_device`, PTX `.gpu`).
    Device,
    /// Every thread of the program: all GPUs and the host (`cuda::thread_scope_system`, PTX `.sys`).
    System,
}

impl ScopeKind {
    /// Every scope, narrowest first.
    ///
    /// ```
    /// use scoped_atomics::ScopeKind;
    /// assert_eq!(ScopeKind::ALL.len(), 5);
    /// assert!(ScopeKind::ALL.windows(2).all(|w| w[0] < w[1]));
    /// ```
    pub const ALL: [ScopeKind; 5] = [
        ScopeKind::Thread,
        ScopeKind::Block,
        ScopeKind::Cluster,
        ScopeKind::Device,
        ScopeKind::System,
    ];

    /// The PTX scope qualifier, with its leading dot.
    ///
    /// The thread scope has no PTX qualifier of its own: the CTA is the smallest scope of the PTX
    /// model (PTX ISA 8.5), so thread-scope operations use `.cta`.
    ///
    /// ```
    /// use scoped_atomics::ScopeKind;
    /// assert_eq!(ScopeKind::Thread.ptx(), ".cta");
    /// assert_eq!(ScopeKind::Cluster.ptx(), ".cluster");
    /// ```
    pub const fn ptx(self) -> &'static str {
        match self {
            ScopeKind::Thread | ScopeKind::Block => ".cta",
            ScopeKind::Cluster => ".cluster",
            ScopeKind::Device => ".gpu",
            ScopeKind::System => ".sys",
        }
    }

    /// The lower-case name used in kernel and test names (`"block"`, `"device"`, …).
    ///
    /// ```
    /// use scoped_atomics::ScopeKind;
    /// assert_eq!(ScopeKind::System.name(), "system");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            ScopeKind::Thread => "thread",
            ScopeKind::Block => "block",
            ScopeKind::Cluster => "cluster",
            ScopeKind::Device => "device",
            ScopeKind::System => "system",
        }
    }
}

impl fmt::Display for ScopeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A thread scope as a type parameter: [`Thread`], [`Block`], [`Cluster`], [`Device`] or
/// [`System`] — or one of them on memory of a known state space ([`Global<S>`](crate::Global),
/// [`Shared<S>`](crate::Shared)). Sealed: the PTX model has exactly these scopes.
///
/// ```
/// use scoped_atomics::{Block, Scope, ScopeKind};
/// fn describe<S: Scope>() -> (ScopeKind, &'static str) { (S::KIND, S::PTX) }
/// assert_eq!(describe::<Block>(), (ScopeKind::Block, ".cta"));
/// ```
pub trait Scope:
    sealed::Sealed + Copy + Default + fmt::Debug + Send + Sync + Unpin + 'static
{
    /// The runtime value of this scope.
    const KIND: ScopeKind;
    /// The PTX scope qualifier (`.cta`, `.cluster`, `.gpu` or `.sys`).
    const PTX: &'static str = Self::KIND.ptx();
    /// The state space of the memory operations: [`Generic`](StateSpace::Generic) for the five
    /// scopes, `Global` for [`Global<S>`](crate::Global), `Shared` for [`Shared<S>`](crate::Shared).
    const SPACE: StateSpace = StateSpace::Generic;
}

/// The scopes whose barriers may carry a completion function
/// ([`Barrier::with_completion`](crate::Barrier::with_completion)): [`Thread`], [`Block`],
/// [`Cluster`] and [`Device`], whose threads all run on one processor. Not [`System`]: a
/// `Barrier<System>` is shared by host and device threads, and a completion is code of one of
/// them. Sealed.
///
/// ```
/// use scoped_atomics::{Barrier, Block, CompletionScope};
/// fn counting_barrier<S: CompletionScope>(n: u32) -> Barrier<S, impl FnMut()> {
///     let mut phases = 0u32;
///     Barrier::with_completion(n, move || phases += 1)
/// }
/// counting_barrier::<Block>(1).arrive_and_wait();
/// ```
#[diagnostic::on_unimplemented(
    message = "a `Barrier<{Self}>` cannot carry a completion function: `{Self}` is not a `CompletionScope`",
    label = "`{Self}` is not a `CompletionScope`",
    note = "a completion is code of one processor, and the threads of the System scope run on the host and on the device; use a scope whose threads share one processor (`Thread`, `Block`, `Cluster`, `Device`), or `Barrier::new` (no completion) and run the code in one thread after `wait`"
)]
pub trait CompletionScope: PlainScope {}

impl CompletionScope for Thread {}
impl CompletionScope for Block {}
impl CompletionScope for Cluster {}
impl CompletionScope for Device {}

/// The five plain scopes — [`Thread`], [`Block`], [`Cluster`], [`Device`], [`System`] — as
/// opposed to a scope on a promised state space ([`Global<S>`](crate::Global),
/// [`Shared<S>`](crate::Shared)). Safe constructors and conversions take only these: an operation
/// of a spaced scope names `.global` or `.shared`, and on memory of another space it reads and
/// writes other memory (or faults), which only `unsafe` code may promise does not happen. Sealed.
///
/// ```
/// use scoped_atomics::{Atomic, Device, PlainScope};
/// fn counter<S: PlainScope>() -> Atomic<u32, S> { Atomic::new(0) }
/// assert_eq!(counter::<Device>().into_inner(), 0);
/// ```
///
/// A spaced scope is refused with a message that names the `unsafe` constructor:
///
/// ```compile_fail
/// use scoped_atomics::{Atomic, Block, Shared};
/// static COUNTER: Atomic<u32, Shared<Block>> = Atomic::new(0); // a static is not shared memory
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` promises a state space, which safe code cannot check: only the plain scopes (`Thread`, `Block`, `Cluster`, `Device`, `System`) are accepted here",
    label = "`{Self}` names a state space",
    note = "use the unsafe constructor of the spaced form instead: `AtomicRef::from_global_ptr`/`AtomicRef::from_shared_ptr` for a view, `Atomic::new_in_space` for a `static` or a `block_shared!` atomic, `new_in_space` of `Barrier`/`Latch`/`CountingSemaphore`/`AtomicFlag` for a primitive"
)]
pub trait PlainScope: Scope {}

/// The scopes a view of scope `S` may be re-scoped to without `unsafe`
/// ([`Atomic::with_scope`](crate::Atomic::with_scope),
/// [`AtomicRef::with_scope`](crate::AtomicRef::with_scope)): any plain scope (a generic address
/// reaches memory of every space), and, from a spaced scope, the same space with another scope
/// (`Global<Block>` → `Global<Device>`). Never into a space the view does not already promise
/// (`Device` → `Shared<Block>`, `Global<Device>` → `Shared<Device>`). Sealed.
///
/// ```
/// use scoped_atomics::{AtomicRef, Block, Device, Global, RescopeFrom};
/// fn widen<'a>(r: AtomicRef<'a, u32, Global<Block>>) -> AtomicRef<'a, u32, Global<Device>> {
///     r.with_scope::<Global<Device>>()
/// }
/// fn allowed<From: scoped_atomics::Scope, To: RescopeFrom<From>>() {}
/// allowed::<Global<Block>, Device>();
/// # let mut x = 0u32;
/// # // SAFETY: a host variable; on the host the space changes nothing.
/// # let r = unsafe { AtomicRef::<u32, Block>::from_global_ptr(&mut x) };
/// # let _ = widen(r);
/// ```
///
/// ```compile_fail
/// use scoped_atomics::{Atomic, Block, Device, Shared};
/// let a = Atomic::<u32, Device>::new(0);
/// let _ = a.with_scope::<Shared<Block>>(); // the atomic may not be in shared memory
/// ```
#[diagnostic::on_unimplemented(
    message = "a view of scope `{S}` cannot be re-scoped to `{Self}`: that would promise a state space the view does not have",
    label = "`{Self}` is not reachable from `{S}` without `unsafe`",
    note = "re-scoping keeps the state space (`Global<Block>` -> `Global<Device>`) or drops it (-> a plain scope); to name a space, use the unsafe `AtomicRef::from_global_ptr`/`AtomicRef::from_shared_ptr` on the address"
)]
pub trait RescopeFrom<S: Scope>: Scope {}

// Any view may drop its space: a plain scope (a generic address) reaches memory of every space.
// (Disjoint from the same-space impls in `space.rs`: `Global<_>` and `Shared<_>` are not plain.)
impl<From: Scope, To: PlainScope> RescopeFrom<From> for To {}

macro_rules! scope_types {
    ($($(#[$doc:meta])* $name:ident,)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl Scope for $name {
            const KIND: ScopeKind = ScopeKind::$name;
        }
        impl PlainScope for $name {}
    )*};
}

scope_types! {
    /// The executing thread alone (`cuda::thread_scope_thread`); PTX `.cta`, and a scoped fence of
    /// this scope is only a compiler fence.
    ///
    /// ```
    /// use scoped_atomics::{Scope, Thread};
    /// assert_eq!(Thread::PTX, ".cta");
    /// ```
    Thread,
    /// The threads of one thread block (`cuda::thread_scope_block`); PTX `.cta`.
    ///
    /// ```
    /// use scoped_atomics::{Block, Scope};
    /// assert_eq!(Block::PTX, ".cta");
    /// ```
    Block,
    /// The threads of one thread-block cluster; PTX `.cluster`, which needs sm_90 and PTX ISA 7.8.
    ///
    /// ```
    /// use scoped_atomics::{Cluster, Scope};
    /// assert_eq!(Cluster::PTX, ".cluster");
    /// ```
    Cluster,
    /// The threads of one GPU (`cuda::thread_scope_device`); PTX `.gpu`.
    ///
    /// ```
    /// use scoped_atomics::{Device, Scope};
    /// assert_eq!(Device::PTX, ".gpu");
    /// ```
    Device,
    /// Every thread of the program, GPUs and host (`cuda::thread_scope_system`); PTX `.sys`. The
    /// default scope, as in libcu++ and `std::atomic`.
    ///
    /// ```
    /// use scoped_atomics::{Scope, System};
    /// assert_eq!(System::PTX, ".sys");
    /// ```
    System,
}
