//! `Atomic<bool, S>`: `core::sync::atomic::AtomicBool` with a scope.

use super::Atomic;
use crate::Scope;

impl<S: Scope> Atomic<bool, S> {
    /// Logical "not" of the value; returns the previous value.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<bool, Device>::new(true);
    /// assert_eq!(a.fetch_not(Ordering::AcqRel), true);
    /// assert_eq!(a.load(Ordering::Relaxed), false);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn fetch_not(&self, order: core::sync::atomic::Ordering) -> bool {
        self.fetch_xor(true, order)
    }
}
