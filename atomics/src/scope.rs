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
pub trait CompletionScope: Scope {}

impl CompletionScope for Thread {}
impl CompletionScope for Block {}
impl CompletionScope for Cluster {}
impl CompletionScope for Device {}

macro_rules! scope_types {
    ($($(#[$doc:meta])* $name:ident,)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl Scope for $name {
            const KIND: ScopeKind = ScopeKind::$name;
        }
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
