//! Plain (non-atomic) loads and stores that name their state space: `ld.shared.b32`,
//! `st.global.b64`, … after `cvta.to.<space>` of the address ([`plain`](crate::plain)'s
//! `read_shared`, `write_global`, …).
//!
//! A pointer that LLVM cannot trace to a `.shared` variable — `block_shared!` makes its pointer
//! inside an `asm!` — gets generic `ld`/`st` and 64-bit address arithmetic; naming the space
//! gives ptxas `LDS`/`STS`. A load is `pure` and `readonly`: a plain read of memory no other
//! thread writes meanwhile (the caller's contract), so LLVM may merge or hoist it like any plain
//! load, up to the next write. A store may write any memory (a compiler barrier for plain data).

use super::asm::{in_space, shared_offset};
#[cfg(debug_assertions)]
use crate::Shared;
use crate::{Block, Global};
use core::arch::asm;
use core::mem::{size_of, transmute_copy};

/// `ld.<space>` and `st.<space>` of 8, 16, 32, 64 and 128 bits, for one state space.
macro_rules! plain_space {
    ($read:ident, $write:ident, $space:literal, |$q:ident| $address:expr, $reg:ident) => {
        /// The plain load of a `T` of 1, 2, 4, 8 or 16 bytes at `p`, in this space.
        ///
        /// # Safety
        /// `p` is in the space, valid for reads and aligned, and no other thread's write races
        /// with the load.
        #[inline(always)]
        pub(crate) unsafe fn $read<T: Copy>(p: *const T) -> T {
            let $q = p.cast_mut();
            let p = $address;
            // SAFETY: for each size, the caller's contract; `transmute_copy` reads `size_of::<T>()`
            // bytes of a value of exactly that size.
            unsafe {
                match size_of::<T>() {
                    1 => {
                        let v: u16;
                        asm!(concat!("ld.", $space, ".u8 {v}, [{p}];"), v = out(reg16) v, p = in($reg) p, options(pure, readonly, nostack));
                        transmute_copy(&(v as u8))
                    }
                    2 => {
                        let v: u16;
                        asm!(concat!("ld.", $space, ".b16 {v}, [{p}];"), v = out(reg16) v, p = in($reg) p, options(pure, readonly, nostack));
                        transmute_copy(&v)
                    }
                    4 => {
                        let v: u32;
                        asm!(concat!("ld.", $space, ".b32 {v}, [{p}];"), v = out(reg32) v, p = in($reg) p, options(pure, readonly, nostack));
                        transmute_copy(&v)
                    }
                    8 => {
                        let v: u64;
                        asm!(concat!("ld.", $space, ".b64 {v}, [{p}];"), v = out(reg64) v, p = in($reg) p, options(pure, readonly, nostack));
                        transmute_copy(&v)
                    }
                    16 => {
                        let (lo, hi): (u64, u64);
                        // Two 64-bit halves (`.b128` would need PTX ISA 8.3).
                        asm!(concat!("ld.", $space, ".b64 {lo}, [{p}];\n\tld.", $space, ".b64 {hi}, [{p}+8];"), lo = out(reg64) lo, hi = out(reg64) hi, p = in($reg) p, options(pure, readonly, nostack));
                        transmute_copy(&(u128::from(lo) | (u128::from(hi) << 64)))
                    }
                    _ => unreachable_size(),
                }
            }
        }

        /// The plain store of a `T` of 1, 2, 4, 8 or 16 bytes at `p`, in this space.
        ///
        /// # Safety
        /// `p` is in the space, valid for writes and aligned, and no other thread's access races
        /// with the store.
        #[inline(always)]
        pub(crate) unsafe fn $write<T: Copy>(p: *mut T, value: T) {
            let $q = p;
            let p = $address;
            // SAFETY: as for the load; `transmute_copy` reads a value of exactly `T`'s size.
            unsafe {
                match size_of::<T>() {
                    1 => {
                        let v = u16::from(transmute_copy::<T, u8>(&value));
                        asm!(concat!("st.", $space, ".u8 [{p}], {v};"), p = in($reg) p, v = in(reg16) v, options(nostack));
                    }
                    2 => {
                        let v: u16 = transmute_copy(&value);
                        asm!(concat!("st.", $space, ".b16 [{p}], {v};"), p = in($reg) p, v = in(reg16) v, options(nostack));
                    }
                    4 => {
                        let v: u32 = transmute_copy(&value);
                        asm!(concat!("st.", $space, ".b32 [{p}], {v};"), p = in($reg) p, v = in(reg32) v, options(nostack));
                    }
                    8 => {
                        let v: u64 = transmute_copy(&value);
                        asm!(concat!("st.", $space, ".b64 [{p}], {v};"), p = in($reg) p, v = in(reg64) v, options(nostack));
                    }
                    16 => {
                        let v: u128 = transmute_copy(&value);
                        let (lo, hi) = (v as u64, (v >> 64) as u64);
                        asm!(concat!("st.", $space, ".b64 [{p}], {lo};\n\tst.", $space, ".b64 [{p}+8], {hi};"), p = in($reg) p, lo = in(reg64) lo, hi = in(reg64) hi, options(nostack));
                    }
                    _ => unreachable_size(),
                }
            }
        }
    };
}

// Shared: a 32-bit shared-space address (as CUDA C++ has), so that LLVM keeps the index
// arithmetic in 32 bits. Global: `cvta.to.global` of the 64-bit address.
plain_space!(
    read_shared,
    write_shared,
    "shared",
    |p| {
        #[cfg(debug_assertions)]
        let _ = in_space::<Shared<Block>, _>(p); // the `isspacep.shared` check
        shared_offset(p)
    },
    reg32
);
plain_space!(
    read_global,
    write_global,
    "global",
    |p| in_space::<Global<Block>, _>(p),
    reg64
);

/// Every `AtomicPrimitive` is 1, 2, 4, 8 or 16 bytes.
#[inline(always)]
fn unreachable_size() -> ! {
    // SAFETY: `trap` aborts the kernel.
    unsafe { asm!("trap;", options(noreturn, nostack)) }
}
