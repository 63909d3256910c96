//! Warp-level operations of the kernel API: CUDA's `__shfl_*_sync`, `__ballot_sync`,
//! `__all_sync`/`__any_sync`, `__activemask`, `__match_*_sync`, `__reduce_*_sync`, and the
//! block-wide `__syncthreads_count/and/or`.
//!
//! On the device each is its PTX instruction (`shfl.sync`, `vote.sync`, `activemask`,
//! `match.sync`, `redux.sync`, `barrier.red`, none of them `.aligned`, so lanes may reach them at
//! different call sites). On the host (the executor's threads, and loom) the lanes of the mask
//! meet in a warp-synchronous step: each deposits its value, all wait for each other, each reads
//! what it needs. The mask rules are checked there and a misuse panics naming the lanes: the
//! mask must name the calling lane and only lanes the warp has, and a lane may read only a lane
//! of the mask. Unlike the device, the host step also orders the members' memory (it is a
//! barrier): a race that only a missing `sync_warp` after a shuffle would cause is not reported.
//!
//! A warp is 32 threads of consecutive linear index in the block; bit `i` of a mask is lane `i`.

#[cfg(not(target_arch = "nvptx64"))]
use super::emulation;

/// A value [`shfl_sync`] and the other shuffles move between lanes: `u32`, `i32`, `f32` (one
/// `shfl.sync`), `u64`, `i64`, `f64` (two). Sealed.
pub trait ShuffleValue: Copy + sealed::Sealed {
    #[doc(hidden)]
    const WIDE: bool;
    #[doc(hidden)]
    const SIGNED: bool;
    #[doc(hidden)]
    fn to_bits(self) -> u64;
    #[doc(hidden)]
    fn from_bits(bits: u64) -> Self;
}

/// A value the warp reductions ([`reduce_add_sync`], [`reduce_min_sync`], [`reduce_max_sync`])
/// take: `u32` or `i32` (`redux.sync` `.u32`/`.s32`). Sealed.
pub trait ReduceValue: ShuffleValue + Ord + sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! shuffle_values {
    ($($t:ty: $wide:expr, $signed:expr, |$v:ident| $to:expr, |$b:ident| $from:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl ShuffleValue for $t {
            const WIDE: bool = $wide;
            const SIGNED: bool = $signed;
            #[inline(always)]
            fn to_bits(self) -> u64 { let $v = self; $to }
            #[inline(always)]
            fn from_bits(bits: u64) -> Self { let $b = bits; $from }
        }
    )*};
}
shuffle_values! {
    u32: false, false, |v| u64::from(v), |b| b as u32;
    i32: false, true, |v| u64::from(v as u32), |b| b as u32 as i32;
    f32: false, false, |v| u64::from(v.to_bits()), |b| f32::from_bits(b as u32);
    u64: true, false, |v| v, |b| b;
    i64: true, true, |v| v as u64, |b| b as i64;
    f64: true, false, |v| v.to_bits(), |b| f64::from_bits(b);
}
impl ReduceValue for u32 {}
impl ReduceValue for i32 {}

/// How a shuffle picks its source lane (PTX `shfl.sync` modes).
#[derive(Clone, Copy)]
enum Mode {
    Idx,
    Up,
    Down,
    Xor,
}

/// The `c` operand of `shfl.sync` for segments of `width` lanes (a power of two of at most 32),
/// as CUDA's intrinsics pass it: the segment mask `32 - width` in bits 12..8, and the clamp lane
/// in bits 4..0 — 0 for `.up` (the lowest lane a source may be, relative to the segment), 31 for
/// the other modes (the highest).
#[inline(always)]
const fn clamp_operand(mode: Mode, width: u32) -> u32 {
    ((32 - width) << 8) | if matches!(mode, Mode::Up) { 0 } else { 0x1f }
}

/// The source lane of `lane` for a `shfl.sync` of `mode` with operands `b` and `c`: the PTX ISA's
/// pseudo-code of `shfl.sync`, step by step. Only `b[4:0]`, `c[4:0]` (the clamp) and `c[12:8]`
/// (the segment mask) count. Where the computed lane is out of range the lane reads its own value.
/// `.bfly`'s only bound is the segment's top (`j <= maxLane`), so `lane ^ b` may be a lane
/// *below* the segment (CUDA: "able to access elements from earlier groups"). The host
/// emulation's; on the device `shfl.sync` computes it.
#[cfg(not(target_arch = "nvptx64"))]
fn source_lane(mode: Mode, lane: u32, b: u32, c: u32) -> u32 {
    let bval = b & 0x1f;
    let cval = c & 0x1f;
    let segmask = (c >> 8) & 0x1f;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    // `j` as a signed number: `.up`'s `lane - bval` may be negative.
    let (j, in_range) = match mode {
        Mode::Up => {
            let j = lane as i32 - bval as i32;
            (j, j >= max_lane as i32)
        }
        Mode::Down => {
            let j = (lane + bval) as i32;
            (j, j <= max_lane as i32)
        }
        Mode::Xor => {
            let j = (lane ^ bval) as i32;
            (j, j <= max_lane as i32)
        }
        Mode::Idx => {
            let j = (min_lane | (bval & !segmask)) as i32;
            (j, j <= max_lane as i32)
        }
    };
    if in_range { j as u32 } else { lane }
}

#[cfg(not(target_arch = "nvptx64"))]
#[track_caller]
fn shuffle<T: ShuffleValue>(name: &str, mode: Mode, mask: u32, value: T, b: u32, width: u32) -> T {
    assert!(
        width.is_power_of_two() && width <= 32,
        "{name}: width {width} is not a power of two of at most 32"
    );
    let (lane, values) = emulation::warp_exchange(name, mask, value.to_bits());
    let source = source_lane(mode, lane, b, clamp_operand(mode, width));
    assert!(
        mask & (1 << source) != 0,
        "{name}: lane {lane} reads lane {source}, which is not in mask {mask:#010x}"
    );
    T::from_bits(values[source as usize])
}

#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn shuffle<T: ShuffleValue>(_: &str, mode: Mode, mask: u32, value: T, b: u32, width: u32) -> T {
    if width == 0 || width > 32 || !width.is_power_of_two() {
        device::trap();
    }
    let clamp = clamp_operand(mode, width);
    let bits = value.to_bits();
    let low = device::shfl(mode, mask, bits as u32, b, clamp);
    let high = if T::WIDE {
        device::shfl(mode, mask, (bits >> 32) as u32, b, clamp)
    } else {
        0
    };
    T::from_bits(u64::from(low) | (u64::from(high) << 32))
}

/// `__shfl_sync(mask, value, src_lane, width)`: the `value` of lane `src_lane` (modulo `width`)
/// of this lane's segment of `width` lanes (`shfl.sync.idx`; only `src_lane`'s low five bits
/// count, as on the device). Every lane of `mask` must call it
/// with the same mask; `width` is a power of two of at most 32 (32: the whole warp).
///
/// # Panics
/// On the host: a mask without the calling lane or with lanes the warp lacks, a source lane
/// outside the mask, a bad `width` (undefined on the device, where a bad width traps).
///
/// ```
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
/// use scoped_atomics::kernel::{lane_id, shfl_sync};
/// // A warp of 4 lanes (a block of 4 threads): every lane reads lane 2's value.
/// warp_of(4, || assert_eq!(shfl_sync(0b1111, lane_id() * 10, 2, 32), 20));
/// ```
#[inline(always)]
#[track_caller]
pub fn shfl_sync<T: ShuffleValue>(mask: u32, value: T, src_lane: u32, width: u32) -> T {
    shuffle("shfl_sync", Mode::Idx, mask, value, src_lane, width)
}

/// `__shfl_up_sync(mask, value, delta, width)`: the `value` of lane `lane - delta`, or this
/// lane's own where that is below its segment of `width` lanes (`shfl.sync.up`). As on the
/// device, only `delta`'s low five bits count (a delta of 33 is one of 1).
///
/// # Panics
/// As [`shfl_sync`].
///
/// ```
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
/// use scoped_atomics::kernel::{lane_id, shfl_up_sync};
/// // An inclusive prefix sum over 4 lanes of 1s: lane i ends with i + 1.
/// warp_of(4, || {
///     let mut sum = 1u32;
///     for delta in [1, 2] {
///         let other = shfl_up_sync(0b1111, sum, delta, 32);
///         if lane_id() >= delta {
///             sum += other;
///         }
///     }
///     assert_eq!(sum, lane_id() + 1);
/// });
/// ```
#[inline(always)]
#[track_caller]
pub fn shfl_up_sync<T: ShuffleValue>(mask: u32, value: T, delta: u32, width: u32) -> T {
    shuffle("shfl_up_sync", Mode::Up, mask, value, delta, width)
}

/// `__shfl_down_sync(mask, value, delta, width)`: the `value` of lane `lane + delta`, or this
/// lane's own where that is above its segment of `width` lanes (`shfl.sync.down`). As on the
/// device, only `delta`'s low five bits count.
///
/// # Panics
/// As [`shfl_sync`].
///
/// ```
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
/// use scoped_atomics::kernel::{lane_id, shfl_down_sync};
/// // A tree sum over 4 lanes: lane 0 ends with 0 + 1 + 2 + 3.
/// warp_of(4, || {
///     let mut sum = lane_id();
///     for delta in [2, 1] {
///         sum += shfl_down_sync(0b1111, sum, delta, 4);
///     }
///     if lane_id() == 0 {
///         assert_eq!(sum, 6);
///     }
/// });
/// ```
#[inline(always)]
#[track_caller]
pub fn shfl_down_sync<T: ShuffleValue>(mask: u32, value: T, delta: u32, width: u32) -> T {
    shuffle("shfl_down_sync", Mode::Down, mask, value, delta, width)
}

/// `__shfl_xor_sync(mask, value, lane_mask, width)`: the `value` of lane `lane ^ lane_mask`,
/// or this lane's own where that is above its segment of `width` lanes (`shfl.sync.bfly`). A
/// lane *below* the segment is read, as on the device (CUDA: "able to access elements from
/// earlier groups"): `shfl_xor_sync(FULL_WARP, lane, 4, 4)` is `0 1 2 3 0 1 2 3 8 9 …`. Only
/// `lane_mask`'s low five bits count.
///
/// # Panics
/// As [`shfl_sync`].
///
/// ```
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
/// use scoped_atomics::kernel::{lane_id, shfl_xor_sync};
/// // A butterfly sum: every one of 4 lanes ends with the total, 1.5 + 1.5 + 1.5 + 1.5.
/// warp_of(4, || {
///     let mut sum = 1.5f64;
///     for m in [1, 2] {
///         sum += shfl_xor_sync(0b1111, sum, m, 32);
///     }
///     assert_eq!(sum, 6.0);
/// });
/// ```
#[inline(always)]
#[track_caller]
pub fn shfl_xor_sync<T: ShuffleValue>(mask: u32, value: T, lane_mask: u32, width: u32) -> T {
    shuffle("shfl_xor_sync", Mode::Xor, mask, value, lane_mask, width)
}

/// `__ballot_sync(mask, predicate)`: the lanes of `mask` whose `predicate` is true, as a mask
/// (`vote.sync.ballot.b32`).
///
/// # Panics
/// On the host, for a mask without the calling lane or with lanes the warp lacks.
///
/// ```
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
/// use scoped_atomics::kernel::{ballot_sync, lane_id};
/// warp_of(4, || assert_eq!(ballot_sync(0b1111, lane_id() % 2 == 1), 0b1010));
/// ```
#[inline(always)]
#[track_caller]
pub fn ballot_sync(mask: u32, predicate: bool) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return device::vote(device::Vote::Ballot, mask, predicate);
    #[cfg(not(target_arch = "nvptx64"))]
    return ballot_named("ballot_sync", mask, predicate);
}

/// `__all_sync(mask, predicate)`: whether `predicate` is true on every lane of `mask`
/// (`vote.sync.all.pred`).
///
/// # Panics
/// As [`ballot_sync`].
///
/// ```
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
/// use scoped_atomics::kernel::{all_sync, lane_id};
/// warp_of(4, || assert!(!all_sync(0b1111, lane_id() < 3)));
/// ```
#[inline(always)]
#[track_caller]
pub fn all_sync(mask: u32, predicate: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    return device::vote(device::Vote::All, mask, predicate) != 0;
    #[cfg(not(target_arch = "nvptx64"))]
    return ballot_named("all_sync", mask, predicate) == mask;
}

/// `__any_sync(mask, predicate)`: whether `predicate` is true on some lane of `mask`
/// (`vote.sync.any.pred`).
///
/// # Panics
/// As [`ballot_sync`].
///
/// ```
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
/// use scoped_atomics::kernel::{any_sync, lane_id};
/// warp_of(4, || assert!(any_sync(0b1111, lane_id() == 3)));
/// ```
#[inline(always)]
#[track_caller]
pub fn any_sync(mask: u32, predicate: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    return device::vote(device::Vote::Any, mask, predicate) != 0;
    #[cfg(not(target_arch = "nvptx64"))]
    return ballot_named("any_sync", mask, predicate) != 0;
}

#[cfg(not(target_arch = "nvptx64"))]
#[track_caller]
fn ballot_named(name: &str, mask: u32, predicate: bool) -> u32 {
    let (_, values) = emulation::warp_exchange(name, mask, u64::from(predicate));
    (0..32)
        .filter(|&i| values[i] != 0)
        .fold(0, |m, i| m | 1 << i)
}

/// `__activemask()`: the lanes of this warp that execute the call together (`activemask.b32`).
/// On the host every thread of a launch runs, so it is the lanes the warp has (32, or fewer in
/// a block's last warp); on the device it may be fewer where lanes diverged.
///
/// ```
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// # enter(ThreadContext { thread_idx: Dim3::new(33, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(40),
/// #     grid_dim: Dim3::x(1), block: BlockContext::new(40) });
/// // Thread 33 of a block of 40: the second warp has 8 lanes.
/// assert_eq!(scoped_atomics::kernel::activemask(), 0xff);
/// ```
#[inline(always)]
#[track_caller]
pub fn activemask() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return device::activemask();
    #[cfg(not(target_arch = "nvptx64"))]
    return emulation::activemask();
}

/// `__match_any_sync(mask, value)`: the lanes of `mask` whose `value` equals this lane's
/// (`match.any.sync`).
///
/// # Panics
/// As [`ballot_sync`].
///
/// ```
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
/// use scoped_atomics::kernel::{lane_id, match_any_sync};
/// // Lanes 0 and 2 hold 0, lanes 1 and 3 hold 1.
/// warp_of(4, || assert_eq!(match_any_sync(0b1111, lane_id() % 2), 0b0101 << (lane_id() % 2)));
/// ```
#[inline(always)]
#[track_caller]
pub fn match_any_sync<T: ShuffleValue + Eq>(mask: u32, value: T) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return device::match_sync(false, mask, value.to_bits(), T::WIDE).0;
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (lane, values) = emulation::warp_exchange("match_any_sync", mask, value.to_bits());
        (0..32)
            .filter(|&i| mask & (1 << i) != 0 && values[i] == values[lane as usize])
            .fold(0, |m, i| m | 1 << i)
    }
}

/// `__match_all_sync(mask, value, &pred)`: `Some(mask)` if every lane of `mask` holds the same
/// `value`, `None` otherwise (`match.all.sync`).
///
/// # Panics
/// As [`ballot_sync`].
///
/// ```
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
/// use scoped_atomics::kernel::{lane_id, match_all_sync};
/// warp_of(4, || {
///     assert_eq!(match_all_sync(0b1111, 7u64), Some(0b1111));
///     assert_eq!(match_all_sync(0b1111, lane_id()), None);
/// });
/// ```
#[inline(always)]
#[track_caller]
pub fn match_all_sync<T: ShuffleValue + Eq>(mask: u32, value: T) -> Option<u32> {
    #[cfg(target_arch = "nvptx64")]
    {
        let (m, all) = device::match_sync(true, mask, value.to_bits(), T::WIDE);
        return all.then_some(m);
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (lane, values) = emulation::warp_exchange("match_all_sync", mask, value.to_bits());
        let all = (0..32).all(|i| mask & (1 << i) == 0 || values[i] == values[lane as usize]);
        all.then_some(mask)
    }
}

macro_rules! reductions {
    ($($(#[$doc:meta])* $name:ident<$t:ident: $bound:ident>, $op:ident, |$a:ident, $b:ident| $fold:expr;)*) => {$(
        $(#[$doc])*
        ///
        /// # Panics
        /// As [`ballot_sync`]. On the device it needs sm_80 (`redux.sync`): a compile-time
        /// error elsewhere that says so.
        #[inline(always)]
        #[track_caller]
        pub fn $name<$t: $bound>(mask: u32, value: $t) -> $t {
            #[cfg(target_arch = "nvptx64")]
            return $t::from_bits(u64::from(device::redux::<$t>(device::Redux::$op, mask, value.to_bits() as u32)));
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let (_, values) = emulation::warp_exchange(stringify!($name), mask, value.to_bits());
                (0..32)
                    .filter(|&i| mask & (1 << i) != 0)
                    .map(|i| $t::from_bits(values[i]))
                    .reduce(|$a, $b| $fold)
                    .unwrap_or(value)
            }
        }
    )*};
}

reductions! {
    /// `__reduce_add_sync(mask, value)`: the wrapping sum of `value` over the lanes of `mask`
    /// (`redux.sync.add`).
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
    /// use scoped_atomics::kernel::{lane_id, reduce_add_sync};
    /// warp_of(4, || assert_eq!(reduce_add_sync(0b1111, lane_id()), 6));
    /// ```
    reduce_add_sync<T: ReduceValue>, Add, |a, b| T::from_bits(a.to_bits().wrapping_add(b.to_bits()));
    /// `__reduce_min_sync(mask, value)`: the least `value` over the lanes of `mask`
    /// (`redux.sync.min`).
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
    /// use scoped_atomics::kernel::{lane_id, reduce_min_sync};
    /// warp_of(4, || assert_eq!(reduce_min_sync(0b1111, 10 - lane_id() as i32 * 7), -11));
    /// ```
    reduce_min_sync<T: ReduceValue>, Min, |a, b| a.min(b);
    /// `__reduce_max_sync(mask, value)`: the greatest `value` over the lanes of `mask`
    /// (`redux.sync.max`).
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
    /// use scoped_atomics::kernel::{lane_id, reduce_max_sync};
    /// warp_of(4, || assert_eq!(reduce_max_sync(0b1111, lane_id()), 3));
    /// ```
    reduce_max_sync<T: ReduceValue>, Max, |a, b| a.max(b);
    /// `__reduce_and_sync(mask, value)`: the bitwise and of `value` over the lanes of `mask`
    /// (`redux.sync.and.b32`).
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
    /// use scoped_atomics::kernel::{lane_id, reduce_and_sync};
    /// warp_of(4, || assert_eq!(reduce_and_sync(0b1111, 0xf0 | lane_id()), 0xf0));
    /// ```
    reduce_and_sync<T: BitsValue>, And, |a, b| T::from_bits(a.to_bits() & b.to_bits());
    /// `__reduce_or_sync(mask, value)`: the bitwise or of `value` over the lanes of `mask`
    /// (`redux.sync.or.b32`).
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
    /// use scoped_atomics::kernel::{lane_id, reduce_or_sync};
    /// warp_of(4, || assert_eq!(reduce_or_sync(0b1111, 1 << lane_id()), 0b1111));
    /// ```
    reduce_or_sync<T: BitsValue>, Or, |a, b| T::from_bits(a.to_bits() | b.to_bits());
    /// `__reduce_xor_sync(mask, value)`: the bitwise exclusive or of `value` over the lanes of
    /// `mask` (`redux.sync.xor.b32`).
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
    /// use scoped_atomics::kernel::{lane_id, reduce_xor_sync};
    /// warp_of(4, || assert_eq!(reduce_xor_sync(0b1111, 0b11u32), 0));
    /// ```
    reduce_xor_sync<T: BitsValue>, Xor, |a, b| T::from_bits(a.to_bits() ^ b.to_bits());
}

/// The value of the bitwise warp reductions ([`reduce_and_sync`], …): `u32` (`redux.sync`
/// `.b32`). Sealed.
pub trait BitsValue: ShuffleValue + sealed::Sealed {}
impl BitsValue for u32 {}

/// `__syncthreads_count(predicate)`: the block's barrier ([`sync_threads`](super::sync_threads)),
/// returning how many of its threads passed a true `predicate` (`barrier.red.popc.u32`).
///
/// ```
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
/// use scoped_atomics::kernel::{sync_threads_count, thread_idx};
/// warp_of(5, || {
///     assert_eq!(sync_threads_count(thread_idx().x < 3), 3);
///     assert_eq!(sync_threads_count(true), 5); // the next call starts afresh
/// });
/// ```
#[inline(always)]
#[track_caller]
pub fn sync_threads_count(predicate: bool) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return device::bar_red_popc(predicate);
    #[cfg(not(target_arch = "nvptx64"))]
    return emulation::sync_threads_count(predicate);
}

/// `__syncthreads_and(predicate)`: the block's barrier, returning whether `predicate` was true
/// on every thread of the block.
///
/// ```
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
/// use scoped_atomics::kernel::{sync_threads_and, thread_idx};
/// warp_of(3, || assert!(!sync_threads_and(thread_idx().x != 1)));
/// ```
#[inline(always)]
#[track_caller]
pub fn sync_threads_and(predicate: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    return device::bar_red_popc(!predicate) == 0;
    #[cfg(not(target_arch = "nvptx64"))]
    return emulation::sync_threads_count(!predicate) == 0;
}

/// `__syncthreads_or(predicate)`: the block's barrier, returning whether `predicate` was true
/// on some thread of the block.
///
/// ```
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// # fn warp_of(n: u32, f: impl Fn() + Sync) { let block = BlockContext::new(n); std::thread::scope(|s| for t in 0..n { let (b, f) = (block.clone(), &f); s.spawn(move || { enter(ThreadContext { thread_idx: Dim3::new(t, 0, 0), block_idx: Dim3::new(0, 0, 0), block_dim: Dim3::x(n), grid_dim: Dim3::x(1), block: b }); f(); leave(); }); }); }
/// use scoped_atomics::kernel::{sync_threads_or, thread_idx};
/// warp_of(3, || assert!(sync_threads_or(thread_idx().x == 1)));
/// ```
#[inline(always)]
#[track_caller]
pub fn sync_threads_or(predicate: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    return device::bar_red_popc(predicate) != 0;
    #[cfg(not(target_arch = "nvptx64"))]
    return emulation::sync_threads_count(predicate) != 0;
}

#[cfg(target_arch = "nvptx64")]
mod device {
    use super::{Mode, ShuffleValue};
    use core::arch::asm;

    #[inline(always)]
    pub(super) fn trap() -> ! {
        // SAFETY: aborts the kernel.
        unsafe { asm!("trap;", options(noreturn, nostack)) }
    }

    /// `shfl.sync.<mode>.b32 d, a, b, c, mask`.
    #[inline(always)]
    pub(super) fn shfl(mode: Mode, mask: u32, a: u32, b: u32, c: u32) -> u32 {
        let d: u32;
        // SAFETY: exchanges registers among the lanes of `mask`; touches no memory. That every
        // lane of the mask executes a `shfl.sync` with the same mask is the caller's duty.
        unsafe {
            match mode {
                Mode::Idx => {
                    asm!("shfl.sync.idx.b32 {d}, {a}, {b}, {c}, {m};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b, c = in(reg32) c, m = in(reg32) mask, options(nostack))
                }
                Mode::Up => {
                    asm!("shfl.sync.up.b32 {d}, {a}, {b}, {c}, {m};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b, c = in(reg32) c, m = in(reg32) mask, options(nostack))
                }
                Mode::Down => {
                    asm!("shfl.sync.down.b32 {d}, {a}, {b}, {c}, {m};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b, c = in(reg32) c, m = in(reg32) mask, options(nostack))
                }
                Mode::Xor => {
                    asm!("shfl.sync.bfly.b32 {d}, {a}, {b}, {c}, {m};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b, c = in(reg32) c, m = in(reg32) mask, options(nostack))
                }
            }
        }
        d
    }

    pub(super) enum Vote {
        Ballot,
        All,
        Any,
    }

    /// `vote.sync.{ballot.b32, all.pred, any.pred}`; the predicate results as 0 or 1.
    #[inline(always)]
    pub(super) fn vote(kind: Vote, mask: u32, predicate: bool) -> u32 {
        let d: u32;
        let p = u32::from(predicate);
        // SAFETY: as for `shfl`.
        unsafe {
            match kind {
                Vote::Ballot => {
                    asm!("{{", ".reg .pred %p;", "setp.ne.u32 %p, {p}, 0;", "vote.sync.ballot.b32 {d}, %p, {m};", "}}", d = out(reg32) d, p = in(reg32) p, m = in(reg32) mask, options(nostack))
                }
                Vote::All => {
                    asm!("{{", ".reg .pred %p, %q;", "setp.ne.u32 %p, {p}, 0;", "vote.sync.all.pred %q, %p, {m};", "selp.u32 {d}, 1, 0, %q;", "}}", d = out(reg32) d, p = in(reg32) p, m = in(reg32) mask, options(nostack))
                }
                Vote::Any => {
                    asm!("{{", ".reg .pred %p, %q;", "setp.ne.u32 %p, {p}, 0;", "vote.sync.any.pred %q, %p, {m};", "selp.u32 {d}, 1, 0, %q;", "}}", d = out(reg32) d, p = in(reg32) p, m = in(reg32) mask, options(nostack))
                }
            }
        }
        d
    }

    #[inline(always)]
    pub(super) fn activemask() -> u32 {
        let d: u32;
        // SAFETY: reads which lanes are active; no side effect.
        unsafe { asm!("activemask.b32 {d};", d = out(reg32) d, options(nostack)) };
        d
    }

    /// `match.{any,all}.sync.b{32,64}`: the matching lanes, and for `all` whether all match.
    #[inline(always)]
    pub(super) fn match_sync(all: bool, mask: u32, value: u64, wide: bool) -> (u32, bool) {
        let (d, p): (u32, u32);
        // SAFETY: as for `shfl`.
        unsafe {
            match (all, wide) {
                (false, false) => {
                    asm!("match.any.sync.b32 {d}, {a}, {m};", "mov.u32 {p}, 1;", d = out(reg32) d, p = out(reg32) p, a = in(reg32) value as u32, m = in(reg32) mask, options(nostack))
                }
                (false, true) => {
                    asm!("match.any.sync.b64 {d}, {a}, {m};", "mov.u32 {p}, 1;", d = out(reg32) d, p = out(reg32) p, a = in(reg64) value, m = in(reg32) mask, options(nostack))
                }
                (true, false) => {
                    asm!("{{", ".reg .pred %q;", "match.all.sync.b32 {d}|%q, {a}, {m};", "selp.u32 {p}, 1, 0, %q;", "}}", d = out(reg32) d, p = out(reg32) p, a = in(reg32) value as u32, m = in(reg32) mask, options(nostack))
                }
                (true, true) => {
                    asm!("{{", ".reg .pred %q;", "match.all.sync.b64 {d}|%q, {a}, {m};", "selp.u32 {p}, 1, 0, %q;", "}}", d = out(reg32) d, p = out(reg32) p, a = in(reg64) value, m = in(reg32) mask, options(nostack))
                }
            }
        }
        (d, p != 0)
    }

    /// Stops, at compile time, a warp reduction on a target before sm_80.
    struct Sm80<T>(core::marker::PhantomData<T>);
    impl<T> Sm80<T> {
        const CHECK: () = assert!(
            cfg!(target_feature = "sm_80"),
            concat!(
                "scoped-atomics: the warp reductions (`reduce_*_sync`: PTX `redux.sync`) need \
                 sm_80 or newer, and this crate was compiled for ",
                env!("SCOPED_ATOMICS_PTX_TARGET"),
                ". With scoped-atomics-build: `PtxBuilder::arch(\"sm_80\")`; with cargo: \
                 `-C target-cpu=sm_80` in RUSTFLAGS, so that it reaches every crate of the build"
            )
        );
    }

    /// The operation of a `redux.sync` (an enum, not a string: comparing strings would call
    /// `memcmp`, which nothing links in a kernel).
    #[derive(Clone, Copy)]
    pub(super) enum Redux {
        Add,
        Min,
        Max,
        And,
        Or,
        Xor,
    }

    /// `redux.sync.<op>.{u32,s32,b32}`.
    #[inline(always)]
    pub(super) fn redux<T: ShuffleValue>(op: Redux, mask: u32, a: u32) -> u32 {
        let () = Sm80::<T>::CHECK;
        let d: u32;
        // SAFETY: as for `shfl`.
        unsafe {
            match (op, T::SIGNED) {
                (Redux::Add, false) => {
                    asm!("redux.sync.add.u32 {d}, {a}, {m};", d = out(reg32) d, a = in(reg32) a, m = in(reg32) mask, options(nostack))
                }
                (Redux::Add, true) => {
                    asm!("redux.sync.add.s32 {d}, {a}, {m};", d = out(reg32) d, a = in(reg32) a, m = in(reg32) mask, options(nostack))
                }
                (Redux::Min, false) => {
                    asm!("redux.sync.min.u32 {d}, {a}, {m};", d = out(reg32) d, a = in(reg32) a, m = in(reg32) mask, options(nostack))
                }
                (Redux::Min, true) => {
                    asm!("redux.sync.min.s32 {d}, {a}, {m};", d = out(reg32) d, a = in(reg32) a, m = in(reg32) mask, options(nostack))
                }
                (Redux::Max, false) => {
                    asm!("redux.sync.max.u32 {d}, {a}, {m};", d = out(reg32) d, a = in(reg32) a, m = in(reg32) mask, options(nostack))
                }
                (Redux::Max, true) => {
                    asm!("redux.sync.max.s32 {d}, {a}, {m};", d = out(reg32) d, a = in(reg32) a, m = in(reg32) mask, options(nostack))
                }
                (Redux::And, _) => {
                    asm!("redux.sync.and.b32 {d}, {a}, {m};", d = out(reg32) d, a = in(reg32) a, m = in(reg32) mask, options(nostack))
                }
                (Redux::Or, _) => {
                    asm!("redux.sync.or.b32 {d}, {a}, {m};", d = out(reg32) d, a = in(reg32) a, m = in(reg32) mask, options(nostack))
                }
                (Redux::Xor, _) => {
                    asm!("redux.sync.xor.b32 {d}, {a}, {m};", d = out(reg32) d, a = in(reg32) a, m = in(reg32) mask, options(nostack))
                }
            }
        }
        d
    }

    /// `barrier.red.popc.u32 d, 0, p`: the block barrier counting true predicates. The
    /// non-`.aligned` form, so that a copy of it in each arm of a branch is still correct.
    #[inline(always)]
    pub(super) fn bar_red_popc(predicate: bool) -> u32 {
        let d: u32;
        // SAFETY: a block-wide barrier that also orders memory among the block's threads; every
        // thread of the block must reach it (the caller's side of `__syncthreads_count`).
        unsafe {
            asm!("{{", ".reg .pred %p;", "setp.ne.u32 %p, {p}, 0;", "barrier.red.popc.u32 {d}, 0, %p;", "}}", d = out(reg32) d, p = in(reg32) u32::from(predicate), options(nostack))
        };
        d
    }
}

#[cfg(test)]
mod tests {
    use super::{Mode, clamp_operand, source_lane};
    use std::vec::Vec;

    /// The source lane of `lane` for the CUDA intrinsic of `mode` with `b` and `width`.
    fn source(mode: Mode, lane: u32, b: u32, width: u32) -> u32 {
        source_lane(mode, lane, b, clamp_operand(mode, width))
    }

    #[test]
    fn source_lanes_follow_the_isa_pseudo_code() {
        assert_eq!(source(Mode::Idx, 5, 2, 32), 2);
        assert_eq!(source(Mode::Idx, 5, 9, 4), 5); // lane 1 of the segment 4..8
        assert_eq!(source(Mode::Up, 5, 2, 4), 5); // 5 - 2 leaves the segment 4..8
        assert_eq!(source(Mode::Up, 7, 2, 4), 5);
        assert_eq!(source(Mode::Down, 5, 2, 4), 7);
        assert_eq!(source(Mode::Down, 6, 2, 4), 6);
        assert_eq!(source(Mode::Xor, 5, 1, 32), 4);
        assert_eq!(source(Mode::Xor, 5, 32, 32), 5); // b[4:0] = 0
    }

    /// Issue 29, item 4: `.bfly` bounds the source lane only by the segment's top, so
    /// `shfl_xor_sync(FULL_WARP, lane, 4, 4)` reads the lane 4 below in the upper half of each
    /// 8 lanes (`0 1 2 3 0 1 2 3 8 9 …` on the device); the old emulation returned the lane's own.
    #[test]
    fn a_butterfly_reads_below_its_segment() {
        let lanes: Vec<u32> = (0..32).map(|lane| source(Mode::Xor, lane, 4, 4)).collect();
        let expected: Vec<u32> = (0..32)
            .map(|lane| if lane & 4 != 0 { lane - 4 } else { lane })
            .collect();
        assert_eq!(lanes, expected);
        assert_eq!(&lanes[..10], &[0, 1, 2, 3, 0, 1, 2, 3, 8, 9]);
    }

    /// Issue 29, item 4: only `b[4:0]` counts: a delta of 33 is a delta of 1, a lane mask of 36
    /// is one of 4, a source lane of 34 is lane 2.
    #[test]
    fn only_the_low_five_bits_of_b_count() {
        assert_eq!(source(Mode::Up, 5, 33, 32), 4);
        assert_eq!(source(Mode::Down, 5, 33, 32), 6);
        assert_eq!(source(Mode::Xor, 1, 36, 32), 5);
        assert_eq!(source(Mode::Idx, 9, 34, 32), 2);
    }
}
