//! One PTX memory-model instruction per function, its `.sem` chosen by a [`Sem`] value and its
//! scope qualifier by the scope type.
//!
//! The template of every `asm!` is a string literal built by `concat!`: instruction, `.sem`, scope
//! qualifier, type. Each function expands to one `asm!` per (`.sem`, scope) pair; with the constant
//! orderings of normal code, inlining leaves exactly one. Every `asm!` may read and write memory
//! (no `nomem`/`readonly`), so it is also a compiler barrier, as the orderings require — except
//! the relaxed load, which is `readonly`: `ld.relaxed` writes no memory and orders nothing, so
//! LLVM may keep plain data it loaded before it in registers across it (with a memory clobber, a
//! polling loop re-read its unrelated arguments on every trip). It stays a side effect — not
//! `pure` — so that LLVM neither merges two loads of the location nor hoists a spin's load out of
//! its loop.
//!
//! The state space of a [`Global`](crate::Global) or [`Shared`](crate::Shared) scope adds its
//! qualifier after the scope's, on an address converted by [`in_space`]; fences have none.

use super::table::{HAS_B128_LOAD_STORE, HAS_B128_RMW, HAS_B128_SYSTEM, HAS_CLUSTER_SCOPE, Sem};
use crate::{Scope, ScopeKind, StateSpace};
use core::arch::asm;
use core::marker::PhantomData;

/// What this build targets, for the compile errors: `sm_100 with PTX ISA 8.6` (the CPU and the
/// PTX ISA version the build emits, derived by the build script in one place).
macro_rules! compiled_for {
    () => {
        env!("SCOPED_ATOMICS_PTX_TARGET")
    };
}

/// The end of the 128-bit compile errors: where the call is. Rustc's notes after the error point
/// inside this crate (the operation is inlined into the kernel, so no note names the kernel's
/// line).
macro_rules! where_128 {
    () => {
        ". The call is a `u128`/`i128` atomic operation in the kernel crate (the notes below point \
         inside scoped-atomics, where it is inlined)"
    };
}

/// The compile error of a 128-bit atomic at the System scope below PTX ISA 8.4.
macro_rules! system_message {
    () => {
        concat!(
            "scoped-atomics: a 128-bit atomic at the System scope (`.b128` with `.sys`) needs PTX \
             ISA 8.4 or newer, and this crate was compiled for ",
            compiled_for!(),
            ". With scoped-atomics-build: `PtxBuilder::ptx_isa(8, 4)`; with cargo: \
             `-C target-feature=+ptx84` in RUSTFLAGS",
            where_128!()
        )
    };
}

/// Stops, at compile time, a build that uses the cluster scope on a target without `.cluster`.
pub(super) struct ScopeAvailable<S>(PhantomData<S>);

impl<S: Scope> ScopeAvailable<S> {
    pub(super) const CHECK: () = assert!(
        !matches!(S::KIND, ScopeKind::Cluster) || HAS_CLUSTER_SCOPE,
        clusters_need_sm_90!()
    );
}

/// Stops, at compile time, a build that uses a 128-bit operation on a target without it:
/// `ld`/`st` `.b128` need PTX ISA 8.3 (sm_70 or newer), `atom.cas.b128`/`atom.exch.b128` sm_90
/// with PTX ISA 8.3; at the `.sys` scope every `.b128` form needs PTX ISA 8.4 (ptxas: "`.b128`
/// with `.sys` requires PTX ISA .version 8.4"). The PTX ISA version is the one the build emits
/// (the target CPU's, or a newer `+ptxNN`; see the build script).
pub(super) struct Wide128Available<S>(PhantomData<S>);

impl<S: Scope> Wide128Available<S> {
    const SYSTEM: bool = matches!(S::KIND, ScopeKind::System);

    pub(super) const LOAD_STORE: () = {
        assert!(
            HAS_B128_LOAD_STORE,
            concat!(
                "scoped-atomics: 128-bit atomic load/store (PTX `ld`/`st` `.b128`) needs PTX ISA \
                 8.3 or newer (sm_70 or newer), and this crate was compiled for ",
                compiled_for!(),
                ". With scoped-atomics-build: `PtxBuilder::ptx_isa(8, 4)` (or `(8, 3)` \
                 without the System scope); with cargo: `-C target-feature=+ptx84` in RUSTFLAGS, so \
                 that it reaches every crate of the build",
                where_128!()
            )
        );
        assert!(!Self::SYSTEM || HAS_B128_SYSTEM, system_message!());
    };

    pub(super) const RMW: () = {
        assert!(
            HAS_B128_RMW,
            concat!(
                "scoped-atomics: 128-bit atomic read-modify-writes (`swap`, `compare_exchange`, \
                 `fetch_*`: PTX `atom.cas.b128`/`atom.exch.b128`) need sm_90 or newer with PTX ISA \
                 8.3, and this crate was compiled for ",
                compiled_for!(),
                ". With scoped-atomics-build: `PtxBuilder::arch(\"sm_90\").ptx_isa(8, 4)`; \
                 with cargo: `-C target-cpu=sm_90 -C target-feature=+ptx84` in RUSTFLAGS, so that it \
                 reaches every crate of the build",
                where_128!()
            )
        );
        assert!(!Self::SYSTEM || HAS_B128_SYSTEM, system_message!());
    };
}

/// Unreachable for the `.sem` values the table produces and the scopes that compile; a trap
/// rather than undefined behaviour if that were ever wrong.
#[inline(always)]
fn trap() -> ! {
    // SAFETY: `trap` aborts the kernel; it touches no memory the program owns.
    unsafe { asm!("trap;", options(noreturn, nostack)) }
}

/// `$op.<sem><scope>$tail`, for the `.sem`s listed (those `$op` has); `$operands` is the
/// parenthesised operand list of the `asm!`.
macro_rules! scoped_asm {
    (
        $S:ty, $sem:expr, $op:literal [$($variant:ident $name:literal),*], $tail:expr, $operands:tt
    ) => {{
        let () = ScopeAvailable::<$S>::CHECK;
        #[allow(unreachable_patterns)]
        match $sem {
            $(Sem::$variant => scoped_asm!(@scope $S, $op, $name, $tail, $operands),)*
            _ => trap(),
        }
    }};
    // A memory instruction: the scope qualifier, then the state space's (none for a generic
    // address; `table::space` holds the rows). The address operand `p` has been converted to the
    // space by `in_space`.
    (@scope $S:ty, $op:literal, $sem:literal, $tail:expr, $operands:tt) => {
        match <$S as Scope>::SPACE {
            StateSpace::Generic => scoped_asm!(@kind $S, $op, $sem, "", $tail, $operands),
            StateSpace::Global => scoped_asm!(@kind $S, $op, $sem, ".global", $tail, $operands),
            StateSpace::Shared => scoped_asm!(@kind $S, $op, $sem, ".shared", $tail, $operands),
        }
    };
    (@kind $S:ty, $op:literal, $sem:literal, $space:literal, $tail:expr, ($($operands:tt)*)) => {
        match <$S as Scope>::KIND {
            ScopeKind::Thread | ScopeKind::Block => {
                asm!(concat!($op, ".", $sem, ".cta", $space, $tail), $($operands)*)
            }
            #[cfg(target_feature = "sm_90")]
            ScopeKind::Cluster => asm!(concat!($op, ".", $sem, ".cluster", $space, $tail), $($operands)*),
            #[cfg(not(target_feature = "sm_90"))]
            ScopeKind::Cluster => trap(),
            ScopeKind::Device => asm!(concat!($op, ".", $sem, ".gpu", $space, $tail), $($operands)*),
            ScopeKind::System => asm!(concat!($op, ".", $sem, ".sys", $space, $tail), $($operands)*),
        }
    };
}

/// The address operand of a memory instruction of scope `S`: `p` itself for a generic address;
/// for a [`Global`](crate::Global) scope, `p` converted by `cvta.to.global.u64` (a pure `asm!`,
/// so LLVM may hoist it out of a loop or share it between operations on one location); for a
/// [`Shared`](crate::Shared) scope, `p` minus the generic address of the shared window — what
/// `cvta.to.shared` computes, but as arithmetic LLVM sees: on a `block_shared!` pointer
/// (the window's base plus the array's shared address, see `kernel::shared_window`) the
/// base cancels and the instruction gets the array's shared address plus the index, as in
/// CUDA C++ (ptxas does not fold a `cvta.shared` and a `cvta.to.shared` around the index
/// arithmetic: two instructions per access). A debug build first checks with `isspacep` that
/// `p` is in the space, and traps if not.
#[inline(always)]
pub(super) fn in_space<S: Scope, P>(p: *mut P) -> *mut P {
    macro_rules! check {
        ($space:literal) => {
            #[cfg(debug_assertions)]
            // SAFETY: tests the address and traps if it is not in the space; no memory access.
            unsafe {
                asm!(
                    concat!("{{ .reg .pred %in_space; isspacep.", $space, " %in_space, {p}; @!%in_space trap; }}"),
                    p = in(reg64) p,
                    options(nomem, nostack),
                )
            };
        };
    }
    match S::SPACE {
        StateSpace::Generic => p,
        StateSpace::Global => {
            check!("global");
            let address: u64;
            // SAFETY: an address conversion; no memory access.
            unsafe {
                asm!(
                    "cvta.to.global.u64 {a}, {p};",
                    a = out(reg64) address,
                    p = in(reg64) p,
                    options(pure, nomem, nostack),
                )
            };
            // Not a generic address any more: only the `asm!` of the operation uses it, with
            // the space's qualifier.
            core::ptr::without_provenance_mut(address as usize)
        }
        StateSpace::Shared => {
            check!("shared");
            // As for `Global`: a shared-space address for the operation's `asm!` alone.
            core::ptr::without_provenance_mut(shared_offset(p) as usize)
        }
    }
}

/// The shared-space address of the generic address `p` of the block's shared memory: its
/// distance from the shared window (`kernel::shared_window`), which fits 32 bits. LLVM folds it
/// to the array's shared address plus the index for a `block_shared!` pointer.
#[inline(always)]
pub(super) fn shared_offset<P>(p: *mut P) -> u32 {
    p.addr().wrapping_sub(crate::kernel::shared_window().addr()) as u32
}

/// A location width with strong loads, stores and compare-and-swap: 16, 32, 64 or 128 bits.
pub(super) trait Width: Copy + Eq {
    /// `ld.<sem>.S.bN`; `sem` is `Relaxed` or `Acquire`.
    unsafe fn ld<S: Scope>(p: *const Self, sem: Sem) -> Self;
    /// `st.<sem>.S.bN`; `sem` is `Relaxed` or `Release`.
    unsafe fn st<S: Scope>(p: *mut Self, value: Self, sem: Sem);
    /// `atom.<sem>.S.cas.bN`: returns the previous value.
    unsafe fn cas<S: Scope>(p: *mut Self, expected: Self, new: Self, sem: Sem) -> Self;
    /// The first load of a compare-and-swap loop, `ld.relaxed.S.bN`: [`Width::ld`], stopped by
    /// the read-modify-write's compile-time check instead of the load's where they differ
    /// (128 bits), so that a `fetch_*` the target lacks fails with the one message about
    /// read-modify-writes, not also with the load/store one.
    #[inline(always)]
    unsafe fn ld_before_cas<S: Scope>(p: *const Self) -> Self {
        // SAFETY: the caller's contract is `ld`'s.
        unsafe { Self::ld::<S>(p, Sem::Relaxed) }
    }
}

macro_rules! widths {
    ($($t:ty: $reg:ident, $bits:literal;)*) => {$(
        impl Width for $t {
            #[inline(always)]
            unsafe fn ld<S: Scope>(p: *const Self, sem: Sem) -> Self {
                let value: $t;
                let p = in_space::<S, _>(p.cast_mut());
                // SAFETY: the caller passes a valid, aligned location of this width.
                unsafe {
                    match sem {
                        // `readonly`: see the module docs.
                        Sem::Relaxed => scoped_asm!(S, sem, "ld" [Relaxed "relaxed"],
                            concat!(".", $bits, " {v}, [{p}];"),
                            (v = out($reg) value, p = in(reg64) p, options(readonly, nostack))),
                        _ => scoped_asm!(S, sem, "ld" [Acquire "acquire"],
                            concat!(".", $bits, " {v}, [{p}];"),
                            (v = out($reg) value, p = in(reg64) p, options(nostack))),
                    }
                };
                value
            }
            #[inline(always)]
            unsafe fn st<S: Scope>(p: *mut Self, value: Self, sem: Sem) {
                let p = in_space::<S, _>(p);
                // SAFETY: as for `ld`.
                unsafe {
                    scoped_asm!(S, sem, "st" [Relaxed "relaxed", Release "release"],
                        concat!(".", $bits, " [{p}], {v};"),
                        (p = in(reg64) p, v = in($reg) value, options(nostack)))
                }
            }
            #[inline(always)]
            unsafe fn cas<S: Scope>(p: *mut Self, expected: Self, new: Self, sem: Sem) -> Self {
                let old: $t;
                let p = in_space::<S, _>(p);
                // SAFETY: as for `ld`.
                unsafe {
                    scoped_asm!(S, sem, "atom" [Relaxed "relaxed", Acquire "acquire", Release "release", AcqRel "acq_rel"],
                        concat!(".cas.", $bits, " {old}, [{p}], {e}, {n};"),
                        (old = out($reg) old, p = in(reg64) p, e = in($reg) expected, n = in($reg) new,
                        options(nostack)))
                };
                old
            }
        }
    )*};
}

widths! {
    u16: reg16, "b16";
    u32: reg32, "b32";
    u64: reg64, "b64";
}

/// 128 bits: Rust's `asm!` has no 128-bit register class on nvptx, so each instruction is a PTX
/// block `{ .reg .b128 …; … }` that packs the two 64-bit halves into `.b128` registers
/// (`mov.b128 %q, {lo, hi}`, the first element the low half), runs the one memory instruction and
/// unpacks the result. The block's leading `{ .reg …; mov …;` travels in the instruction literal of
/// `scoped_asm!`, which puts the `.sem` and scope qualifiers right after it.
///
/// Where the target lacks an instruction, [`Wide128Available`] stops the build first; the `trap`
/// is never reached.
impl Width for u128 {
    #[inline(always)]
    unsafe fn ld<S: Scope>(p: *const Self, sem: Sem) -> Self {
        let () = Wide128Available::<S>::LOAD_STORE;
        // SAFETY: the caller's contract.
        unsafe { ld_b128::<S>(p, sem) }
    }
    #[inline(always)]
    unsafe fn ld_before_cas<S: Scope>(p: *const Self) -> Self {
        // Where the read-modify-write compiles, so does the load (sm_90 with PTX ISA 8.3 has
        // PTX ISA 8.3; both checks hold the System scope's 8.4).
        let () = Wide128Available::<S>::RMW;
        // SAFETY: the caller's contract.
        unsafe { ld_b128::<S>(p, Sem::Relaxed) }
    }
    #[inline(always)]
    unsafe fn st<S: Scope>(p: *mut Self, value: Self, sem: Sem) {
        let () = Wide128Available::<S>::LOAD_STORE;
        #[cfg(ptx_isa_at_least = "83")]
        {
            let (lo, hi) = split(value);
            let p = in_space::<S, _>(p);
            // SAFETY: as for `ld`.
            unsafe {
                scoped_asm!(S, sem, "{{ .reg .b128 %q_v;\n\tmov.b128 %q_v, {{{lo}, {hi}}};\n\tst" [Relaxed "relaxed", Release "release"],
                    ".b128 [{p}], %q_v;\n\t}}",
                    (p = in(reg64) p, lo = in(reg64) lo, hi = in(reg64) hi, options(nostack)))
            }
        }
        #[cfg(not(ptx_isa_at_least = "83"))]
        {
            let _ = (p, value, sem);
            trap()
        }
    }
    #[inline(always)]
    unsafe fn cas<S: Scope>(p: *mut Self, expected: Self, new: Self, sem: Sem) -> Self {
        let () = Wide128Available::<S>::RMW;
        #[cfg(all(target_feature = "sm_90", ptx_isa_at_least = "83"))]
        {
            let ((e_lo, e_hi), (n_lo, n_hi)) = (split(expected), split(new));
            let (lo, hi): (u64, u64);
            let p = in_space::<S, _>(p);
            // SAFETY: as for `ld`.
            unsafe {
                scoped_asm!(S, sem, "{{ .reg .b128 %q_old, %q_cmp, %q_new;\n\tmov.b128 %q_cmp, {{{e_lo}, {e_hi}}};\n\tmov.b128 %q_new, {{{n_lo}, {n_hi}}};\n\tatom"
                        [Relaxed "relaxed", Acquire "acquire", Release "release", AcqRel "acq_rel"],
                    ".cas.b128 %q_old, [{p}], %q_cmp, %q_new;\n\tmov.b128 {{{lo}, {hi}}}, %q_old;\n\t}}",
                    (lo = out(reg64) lo, hi = out(reg64) hi, p = in(reg64) p, e_lo = in(reg64) e_lo,
                    e_hi = in(reg64) e_hi, n_lo = in(reg64) n_lo, n_hi = in(reg64) n_hi, options(nostack)))
            };
            join(lo, hi)
        }
        #[cfg(not(all(target_feature = "sm_90", ptx_isa_at_least = "83")))]
        {
            let _ = (p, expected, new, sem);
            trap()
        }
    }
}

/// `ld.<sem>.S.b128`, unchecked: its callers check the target first ([`Wide128Available`]).
#[inline(always)]
unsafe fn ld_b128<S: Scope>(p: *const u128, sem: Sem) -> u128 {
    #[cfg(ptx_isa_at_least = "83")]
    {
        let (lo, hi): (u64, u64);
        let p = in_space::<S, _>(p.cast_mut());
        // SAFETY: the caller passes a valid location of 16 bytes, 16-aligned.
        unsafe {
            match sem {
                // `readonly`: see the module docs.
                Sem::Relaxed => {
                    scoped_asm!(S, sem, "{{ .reg .b128 %q_v;\n\tld" [Relaxed "relaxed"],
                    ".b128 %q_v, [{p}];\n\tmov.b128 {{{lo}, {hi}}}, %q_v;\n\t}}",
                    (lo = out(reg64) lo, hi = out(reg64) hi, p = in(reg64) p, options(readonly, nostack)))
                }
                _ => scoped_asm!(S, sem, "{{ .reg .b128 %q_v;\n\tld" [Acquire "acquire"],
                    ".b128 %q_v, [{p}];\n\tmov.b128 {{{lo}, {hi}}}, %q_v;\n\t}}",
                    (lo = out(reg64) lo, hi = out(reg64) hi, p = in(reg64) p, options(nostack))),
            }
        };
        join(lo, hi)
    }
    #[cfg(not(ptx_isa_at_least = "83"))]
    {
        let _ = (p, sem);
        trap()
    }
}

/// `atom.<sem>.S.exch.b128`: returns the previous value (sm_90, PTX ISA 8.3).
#[inline(always)]
pub(super) unsafe fn atom_exch_b128<S: Scope>(p: *mut u128, value: u128, sem: Sem) -> u128 {
    let () = Wide128Available::<S>::RMW;
    #[cfg(all(target_feature = "sm_90", ptx_isa_at_least = "83"))]
    {
        let (n_lo, n_hi) = split(value);
        let (lo, hi): (u64, u64);
        let p = in_space::<S, _>(p);
        // SAFETY: the caller passes a valid location of 16 bytes, 16-aligned.
        unsafe {
            scoped_asm!(S, sem, "{{ .reg .b128 %q_old, %q_new;\n\tmov.b128 %q_new, {{{n_lo}, {n_hi}}};\n\tatom"
                    [Relaxed "relaxed", Acquire "acquire", Release "release", AcqRel "acq_rel"],
                ".exch.b128 %q_old, [{p}], %q_new;\n\tmov.b128 {{{lo}, {hi}}}, %q_old;\n\t}}",
                (lo = out(reg64) lo, hi = out(reg64) hi, p = in(reg64) p, n_lo = in(reg64) n_lo,
                n_hi = in(reg64) n_hi, options(nostack)))
        };
        join(lo, hi)
    }
    #[cfg(not(all(target_feature = "sm_90", ptx_isa_at_least = "83")))]
    {
        let _ = (p, value, sem);
        trap()
    }
}

/// The low and high 64 bits of a 128-bit value.
#[inline(always)]
#[allow(dead_code)] // unused on targets without `.b128`
fn split(value: u128) -> (u64, u64) {
    (value as u64, (value >> 64) as u64)
}

/// The 128-bit value of two 64-bit halves.
#[inline(always)]
#[allow(dead_code)] // unused on targets without `.b128`
fn join(lo: u64, hi: u64) -> u128 {
    u128::from(lo) | (u128::from(hi) << 64)
}

/// `atom.<sem>.S.<op>` returning the previous value, one function per op and type.
macro_rules! atom_fns {
    ($($name:ident: $t:ty, $reg:ident, $op:literal;)*) => {$(
        #[inline(always)]
        pub(super) unsafe fn $name<S: Scope>(p: *mut $t, value: $t, sem: Sem) -> $t {
            let old: $t;
            let p = in_space::<S, _>(p);
            // SAFETY: the caller passes a valid, aligned location of this width.
            unsafe {
                scoped_asm!(S, sem, "atom" [Relaxed "relaxed", Acquire "acquire", Release "release", AcqRel "acq_rel"],
                    concat!(".", $op, " {old}, [{p}], {v};"),
                    (old = out($reg) old, p = in(reg64) p, v = in($reg) value, options(nostack)))
            };
            old
        }
    )*};
}

atom_fns! {
    atom_exch_b32: u32, reg32, "exch.b32";
    atom_exch_b64: u64, reg64, "exch.b64";
    atom_add_u32: u32, reg32, "add.u32";
    atom_add_u64: u64, reg64, "add.u64";
    atom_add_f32: u32, reg32, "add.f32";
    atom_add_f64: u64, reg64, "add.f64";
    // Half precision: `.noftz` (subnormals kept) is the only form PTX has; `.f16` from sm_70,
    // `.bf16` from sm_90. The operands are `.b16` registers.
    atom_add_f16: u16, reg16, "add.noftz.f16";
    atom_and_b32: u32, reg32, "and.b32";
    atom_and_b64: u64, reg64, "and.b64";
    atom_or_b32: u32, reg32, "or.b32";
    atom_or_b64: u64, reg64, "or.b64";
    atom_xor_b32: u32, reg32, "xor.b32";
    atom_xor_b64: u64, reg64, "xor.b64";
    atom_min_u32: u32, reg32, "min.u32";
    atom_min_s32: u32, reg32, "min.s32";
    atom_min_u64: u64, reg64, "min.u64";
    atom_min_s64: u64, reg64, "min.s64";
    atom_max_u32: u32, reg32, "max.u32";
    atom_max_s32: u32, reg32, "max.s32";
    atom_max_u64: u64, reg64, "max.u64";
    atom_max_s64: u64, reg64, "max.s64";
}

/// `red.<sem>.S.<op>`: the read-modify-write without a result.
macro_rules! red_fns {
    ($($name:ident: $t:ty, $reg:ident, $op:literal;)*) => {$(
        #[inline(always)]
        pub(super) unsafe fn $name<S: Scope>(p: *mut $t, value: $t, sem: Sem) {
            let p = in_space::<S, _>(p);
            // SAFETY: the caller passes a valid, aligned location of this width.
            unsafe {
                scoped_asm!(S, sem, "red" [Relaxed "relaxed", Release "release"],
                    concat!(".", $op, " [{p}], {v};"),
                    (p = in(reg64) p, v = in($reg) value, options(nostack)))
            }
        }
    )*};
}

red_fns! {
    red_add_u32: u32, reg32, "add.u32";
    red_add_u64: u64, reg64, "add.u64";
    red_add_f32: u32, reg32, "add.f32";
    red_add_f64: u64, reg64, "add.f64";
    red_add_f16: u16, reg16, "add.noftz.f16";
    red_and_b32: u32, reg32, "and.b32";
    red_and_b64: u64, reg64, "and.b64";
    red_or_b32: u32, reg32, "or.b32";
    red_or_b64: u64, reg64, "or.b64";
    red_xor_b32: u32, reg32, "xor.b32";
    red_xor_b64: u64, reg64, "xor.b64";
    red_min_u32: u32, reg32, "min.u32";
    red_min_s32: u32, reg32, "min.s32";
    red_min_u64: u64, reg64, "min.u64";
    red_min_s64: u64, reg64, "min.s64";
    red_max_u32: u32, reg32, "max.u32";
    red_max_s32: u32, reg32, "max.s32";
    red_max_u64: u64, reg64, "max.u64";
    red_max_s64: u64, reg64, "max.s64";
}

/// `fence.<kind>.S;` for the fence kinds every sm_70+ target has (`sc`, `acq_rel`) and, where
/// the target has them, `acquire` and `release`.
macro_rules! fence_fns {
    ($($(#[$cfg:meta])* $name:ident: $kind:literal;)*) => {$(
        $(#[$cfg])*
        #[inline(always)]
        pub(super) fn $name<S: Scope>() {
            let () = ScopeAvailable::<S>::CHECK;
            // SAFETY: a fence only orders memory accesses.
            // A fence has no state space: `@kind` without one.
            unsafe { scoped_asm!(@kind S, "fence", $kind, "", ";", (options(nostack))) }
        }
    )*};
}

fence_fns! {
    fence_sc: "sc";
    fence_acq_rel: "acq_rel";
    #[cfg(all(target_feature = "sm_90", ptx_isa_at_least = "86"))]
    fence_acquire: "acquire";
    #[cfg(all(target_feature = "sm_90", ptx_isa_at_least = "86"))]
    fence_release: "release";
}

/// A compiler barrier: an empty `asm!` that may read and write memory.
#[inline(always)]
pub(super) fn compiler_barrier() {
    // SAFETY: emits nothing.
    unsafe { asm!("", options(nostack)) }
}

// `bf16` addition exists from sm_90 (PTX ISA 7.8); before it, `ops` uses a compare-and-swap loop.
#[cfg(target_feature = "sm_90")]
atom_fns! {
    atom_add_bf16: u16, reg16, "add.noftz.bf16";
}
#[cfg(target_feature = "sm_90")]
red_fns! {
    red_add_bf16: u16, reg16, "add.noftz.bf16";
}

pub(crate) mod word_after;
