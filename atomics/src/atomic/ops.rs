//! The operations that come with a capability of the value type: read-modify-writes for
//! [`AtomicArithmetic`] and [`AtomicBitwise`] types, reductions for [`AtomicReduce`] and
//! [`AtomicIntegerReduce`] types.
//!
//! Each bound sits on its method, not on the `impl` block: a call on a type without the
//! capability (`fetch_add` on `Atomic<bool, _>`) is then E0277 with the trait's
//! `#[diagnostic::on_unimplemented]` message, which says what to use instead, where a bound on
//! the block gives E0599 "trait bounds were not satisfied", which does not.

use super::Atomic;
use crate::primitive::sealed::NotPointer;
use crate::{
    AtomicArithmetic, AtomicBitwise, AtomicIntegerReduce, AtomicPrimitive, AtomicReduce, Scope,
};
use core::sync::atomic::Ordering;

impl<T: AtomicPrimitive, S: Scope> Atomic<T, S> {
    /// Adds `value` and returns the previous value. Integers wrap on overflow; floats round as
    /// IEEE addition (see [`AtomicFloat`](crate::AtomicFloat) for the device's subnormals).
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<u32, Device>::new(5);
    /// assert_eq!(a.fetch_add(10, Ordering::AcqRel), 5);
    /// assert_eq!(a.load(Ordering::Relaxed), 15);
    /// let f = Atomic::<f32, Device>::new(1.5);
    /// assert_eq!(f.fetch_add(2.0, Ordering::AcqRel), 1.5);
    /// assert_eq!(f.load(Ordering::Relaxed), 3.5);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn fetch_add(&self, value: T, order: Ordering) -> T
    where
        T: AtomicArithmetic,
    {
        T::raw_fetch_add::<S>(&self.inner, value, order)
    }

    /// Subtracts `value` and returns the previous value. Integers wrap on overflow.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<u8, Device>::new(5);
    /// assert_eq!(a.fetch_sub(10, Ordering::AcqRel), 5);
    /// assert_eq!(a.load(Ordering::Relaxed), 251);
    /// let f = Atomic::<f64, Device>::new(1.5);
    /// assert_eq!(f.fetch_sub(2.0, Ordering::AcqRel), 1.5);
    /// assert_eq!(f.load(Ordering::Relaxed), -0.5);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn fetch_sub(&self, value: T, order: Ordering) -> T
    where
        T: AtomicArithmetic,
    {
        T::raw_fetch_sub::<S>(&self.inner, value, order)
    }

    /// Stores the minimum of the value and `value`; returns the previous value. For floats, the
    /// minimum is [`f32::min`]'s: a NaN operand is ignored.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<i32, Device>::new(5);
    /// assert_eq!(a.fetch_min(-10, Ordering::AcqRel), 5);
    /// assert_eq!(a.load(Ordering::Relaxed), -10);
    /// let f = Atomic::<f32, Device>::new(1.5);
    /// assert_eq!(f.fetch_min(f32::NAN, Ordering::AcqRel), 1.5);
    /// assert_eq!(f.load(Ordering::Relaxed), 1.5);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn fetch_min(&self, value: T, order: Ordering) -> T
    where
        T: AtomicArithmetic,
    {
        T::raw_fetch_min::<S>(&self.inner, value, order)
    }

    /// Stores the maximum of the value and `value`; returns the previous value. For floats, the
    /// maximum is [`f32::max`]'s: a NaN operand is ignored.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<u64, Device>::new(5);
    /// assert_eq!(a.fetch_max(10, Ordering::AcqRel), 5);
    /// assert_eq!(a.load(Ordering::Relaxed), 10);
    /// let f = Atomic::<f32, Device>::new(f32::NAN);
    /// assert!(f.fetch_max(2.0, Ordering::AcqRel).is_nan());
    /// assert_eq!(f.load(Ordering::Relaxed), 2.0);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn fetch_max(&self, value: T, order: Ordering) -> T
    where
        T: AtomicArithmetic,
    {
        T::raw_fetch_max::<S>(&self.inner, value, order)
    }
}

impl<T: AtomicPrimitive + NotPointer, S: Scope> Atomic<T, S> {
    /// Bitwise (for `bool`: logical) "and" with `value`; returns the previous value.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<u32, Device>::new(0b0101);
    /// assert_eq!(a.fetch_and(0b1100, Ordering::AcqRel), 0b0101);
    /// assert_eq!(a.load(Ordering::Relaxed), 0b0100);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn fetch_and(&self, value: T, order: Ordering) -> T
    where
        T: AtomicBitwise,
    {
        T::raw_fetch_and::<S>(&self.inner, value, order)
    }

    /// Bitwise (for `bool`: logical) "nand" with `value`; returns the previous value.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<u8, Device>::new(0b0101);
    /// assert_eq!(a.fetch_nand(0b1100, Ordering::AcqRel), 0b0101);
    /// assert_eq!(a.load(Ordering::Relaxed), !0b0100);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn fetch_nand(&self, value: T, order: Ordering) -> T
    where
        T: AtomicBitwise,
    {
        T::raw_fetch_nand::<S>(&self.inner, value, order)
    }

    /// Bitwise (for `bool`: logical) "or" with `value`; returns the previous value.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<u32, Device>::new(0b0101);
    /// assert_eq!(a.fetch_or(0b1100, Ordering::AcqRel), 0b0101);
    /// assert_eq!(a.load(Ordering::Relaxed), 0b1101);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn fetch_or(&self, value: T, order: Ordering) -> T
    where
        T: AtomicBitwise,
    {
        T::raw_fetch_or::<S>(&self.inner, value, order)
    }

    /// Bitwise (for `bool`: logical) "xor" with `value`; returns the previous value.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<bool, Device>::new(true);
    /// assert_eq!(a.fetch_xor(true, Ordering::AcqRel), true);
    /// assert_eq!(a.load(Ordering::Relaxed), false);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn fetch_xor(&self, value: T, order: Ordering) -> T
    where
        T: AtomicBitwise,
    {
        T::raw_fetch_xor::<S>(&self.inner, value, order)
    }
}

impl<T: AtomicPrimitive, S: Scope> Atomic<T, S> {
    /// Adds `value` (integers wrap), returning nothing.
    ///
    /// A reduction returns nothing: on the device it is `red`, which needs no result register and
    /// lets the thread go on at once — the fast path for counters and histograms. Its read forms
    /// no acquire pattern (PTX ISA 8.8), so `order` is `Relaxed` or `Release`.
    ///
    /// # Panics
    /// If `order` is `Acquire`, `AcqRel` or `SeqCst`.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<u32, Device>::new(5);
    /// a.add(10, Ordering::Release);
    /// assert_eq!(a.load(Ordering::Relaxed), 15);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn add(&self, value: T, order: Ordering)
    where
        T: AtomicReduce,
    {
        crate::ordering::check_reduction(order);
        T::raw_add::<S>(&self.inner, value, order)
    }

    /// Subtracts `value` (integers wrap), returning nothing; a reduction like [`add`](Self::add).
    ///
    /// # Panics
    /// If `order` is `Acquire`, `AcqRel` or `SeqCst`.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<f32, Device>::new(1.5);
    /// a.sub(2.0, Ordering::Relaxed);
    /// assert_eq!(a.load(Ordering::Relaxed), -0.5);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn sub(&self, value: T, order: Ordering)
    where
        T: AtomicReduce,
    {
        crate::ordering::check_reduction(order);
        T::raw_sub::<S>(&self.inner, value, order)
    }
}

impl<T: AtomicPrimitive, S: Scope> Atomic<T, S> {
    /// Bitwise "and" with `value`, returning nothing; a reduction like [`add`](Self::add).
    ///
    /// # Panics
    /// If `order` is `Acquire`, `AcqRel` or `SeqCst`.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<u32, Device>::new(0b0101);
    /// a.and(0b1100, Ordering::Relaxed);
    /// assert_eq!(a.load(Ordering::Relaxed), 0b0100);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn and(&self, value: T, order: Ordering)
    where
        T: AtomicIntegerReduce,
    {
        crate::ordering::check_reduction(order);
        T::raw_and::<S>(&self.inner, value, order)
    }

    /// Bitwise "or" with `value`, returning nothing; a reduction like [`add`](Self::add).
    ///
    /// # Panics
    /// If `order` is `Acquire`, `AcqRel` or `SeqCst`.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<u64, Device>::new(0b0101);
    /// a.or(0b1100, Ordering::Release);
    /// assert_eq!(a.load(Ordering::Relaxed), 0b1101);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn or(&self, value: T, order: Ordering)
    where
        T: AtomicIntegerReduce,
    {
        crate::ordering::check_reduction(order);
        T::raw_or::<S>(&self.inner, value, order)
    }

    /// Bitwise "xor" with `value`, returning nothing; a reduction like [`add`](Self::add).
    ///
    /// # Panics
    /// If `order` is `Acquire`, `AcqRel` or `SeqCst`.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<i32, Device>::new(0b0101);
    /// a.xor(0b1100, Ordering::Relaxed);
    /// assert_eq!(a.load(Ordering::Relaxed), 0b1001);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn xor(&self, value: T, order: Ordering)
    where
        T: AtomicIntegerReduce,
    {
        crate::ordering::check_reduction(order);
        T::raw_xor::<S>(&self.inner, value, order)
    }

    /// Stores the minimum of the value and `value`, returning nothing; a reduction like
    /// [`add`](Self::add).
    ///
    /// # Panics
    /// If `order` is `Acquire`, `AcqRel` or `SeqCst`.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<i64, Device>::new(5);
    /// a.min(-10, Ordering::Relaxed);
    /// assert_eq!(a.load(Ordering::Relaxed), -10);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn min(&self, value: T, order: Ordering)
    where
        T: AtomicIntegerReduce,
    {
        crate::ordering::check_reduction(order);
        T::raw_min::<S>(&self.inner, value, order)
    }

    /// Stores the maximum of the value and `value`, returning nothing; a reduction like
    /// [`add`](Self::add).
    ///
    /// # Panics
    /// If `order` is `Acquire`, `AcqRel` or `SeqCst`.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<usize, Device>::new(5);
    /// a.max(10, Ordering::Relaxed);
    /// assert_eq!(a.load(Ordering::Relaxed), 10);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn max(&self, value: T, order: Ordering)
    where
        T: AtomicIntegerReduce,
    {
        crate::ordering::check_reduction(order);
        T::raw_max::<S>(&self.inner, value, order)
    }
}
