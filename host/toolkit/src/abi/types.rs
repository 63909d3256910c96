//! The probes' scopes, PTX widths and value types, with the operations each type has.

use super::Operation;
use crate::ptx::Target;

/// A thread scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    Thread,
    Block,
    Cluster,
    Device,
    System,
}

impl Scope {
    pub const ALL: [Scope; 5] = [
        Scope::Thread,
        Scope::Block,
        Scope::Cluster,
        Scope::Device,
        Scope::System,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scope::Thread => "thread",
            Scope::Block => "block",
            Scope::Cluster => "cluster",
            Scope::Device => "device",
            Scope::System => "system",
        }
    }

    /// The PTX scope qualifier without its dot: `cta`, `cluster`, `gpu`, `sys`.
    pub fn qualifier(self) -> &'static str {
        match self {
            Scope::Thread | Scope::Block => "cta",
            Scope::Cluster => "cluster",
            Scope::Device => "gpu",
            Scope::System => "sys",
        }
    }

    /// The scopes of `target`'s probes.
    pub fn of(target: Target) -> impl Iterator<Item = Scope> {
        Scope::ALL
            .into_iter()
            .filter(move |s| *s != Scope::Cluster || target.has_cluster_scope())
    }
}

/// The state space a probe's atomic names: a generic address (the `from_ptr` probes), global
/// memory (`AtomicRef::from_global_ptr`, `__global` probes) or the block's shared memory
/// (`AtomicRef::from_shared_ptr` on a `block_shared!` cell, `__shared` probes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Space {
    Generic,
    Global,
    Shared,
}

impl Space {
    pub const ALL: [Space; 3] = [Space::Generic, Space::Global, Space::Shared];

    /// The PTX qualifier a memory instruction carries after its scope's (`.global`), empty for
    /// a generic address; fences carry none.
    pub fn qualifier(self) -> &'static str {
        match self {
            Space::Generic => "",
            Space::Global => ".global",
            Space::Shared => ".shared",
        }
    }

    /// The probe-name suffix: `""`, `"__global"`, `"__shared"`.
    pub fn suffix(self) -> &'static str {
        match self {
            Space::Generic => "",
            Space::Global => "__global",
            Space::Shared => "__shared",
        }
    }

    /// The scope of the probes of the space: every scope for a generic address; one for each
    /// named space — the scope and space qualifiers are independent parts of one instruction
    /// template, so one scope exercises every template (global: device, shared: block).
    pub fn probes_scope(self, scope: Scope) -> bool {
        match self {
            Space::Generic => true,
            Space::Global => scope == Scope::Device,
            Space::Shared => scope == Scope::Block,
        }
    }
}

/// The width PTX operates at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// 8-bit: the containing aligned 32-bit word.
    Byte,
    B16,
    B32,
    B64,
    /// `u128`/`i128`: `.b128` registers, packed from and unpacked to two `.b64` halves.
    B128,
}

impl Width {
    /// `b32` for bytes (the word), else `b16`/`b32`/`b64`/`b128`.
    pub fn bits(self) -> &'static str {
        match self {
            Width::Byte | Width::B32 => "b32",
            Width::B16 => "b16",
            Width::B64 => "b64",
            Width::B128 => "b128",
        }
    }

    pub(super) fn size(self) -> &'static str {
        &self.bits()[1..]
    }
}

/// A value type of the probes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ty {
    Bool,
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    Usize,
    Isize,
    F32,
    F64,
    /// `half::f16`: 16 bits; `atom.add.noftz.f16`.
    F16,
    /// `half::bf16`: 16 bits; `atom.add.noftz.bf16` from sm_90.
    Bf16,
    Ptr,
    /// 128 bits: probed only on targets with `.b128` atomics.
    U128,
    I128,
    /// `AtomicFlag`: a 32-bit word; probed only for its own operations (`FLAG_OPS`).
    Flag,
}

const INT_RMW: &[&str] = &[
    "fetch_add",
    "fetch_sub",
    "fetch_and",
    "fetch_nand",
    "fetch_or",
    "fetch_xor",
    "fetch_min",
    "fetch_max",
];
const INT_REDUCTIONS: &[&str] = &["add", "sub", "and", "or", "xor", "min", "max"];
const FLOAT_RMW: &[&str] = &["fetch_add", "fetch_sub", "fetch_min", "fetch_max"];
const FLOAT_REDUCTIONS: &[&str] = &["add", "sub"];
const BOOL_RMW: &[&str] = &[
    "fetch_and",
    "fetch_nand",
    "fetch_or",
    "fetch_xor",
    "fetch_not",
];
const PTR_RMW: &[&str] = &[
    "fetch_ptr_add",
    "fetch_ptr_sub",
    "fetch_byte_add",
    "fetch_byte_sub",
    "fetch_and",
    "fetch_or",
    "fetch_xor",
];

/// `AtomicFlag`'s operations, each with the table row it realises at 32 bits: `test` a load,
/// `clear` a store, `test_and_set` an `atom.exch.b32`.
pub const FLAG_OPS: [(&str, Operation); 3] = [
    ("test", Operation::Load),
    ("clear", Operation::Store),
    ("test_and_set", Operation::Rmw),
];

impl Ty {
    /// The value types of `Atomic<T, S>` (not `Flag`, which has its own operations).
    pub const ALL: [Ty; 18] = [
        Ty::Bool,
        Ty::U8,
        Ty::I8,
        Ty::U16,
        Ty::I16,
        Ty::U32,
        Ty::I32,
        Ty::U64,
        Ty::I64,
        Ty::Usize,
        Ty::Isize,
        Ty::F32,
        Ty::F64,
        Ty::F16,
        Ty::Bf16,
        Ty::U128,
        Ty::I128,
        Ty::Ptr,
    ];

    /// The name in kernel names.
    pub fn name(self) -> &'static str {
        match self {
            Ty::Bool => "bool",
            Ty::U8 => "u8",
            Ty::I8 => "i8",
            Ty::U16 => "u16",
            Ty::I16 => "i16",
            Ty::U32 => "u32",
            Ty::I32 => "i32",
            Ty::U64 => "u64",
            Ty::I64 => "i64",
            Ty::Usize => "usize",
            Ty::Isize => "isize",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::F16 => "f16",
            Ty::Bf16 => "bf16",
            Ty::Ptr => "ptr",
            Ty::U128 => "u128",
            Ty::I128 => "i128",
            Ty::Flag => "flag",
        }
    }

    pub fn width(self) -> Width {
        match self {
            Ty::Bool | Ty::U8 | Ty::I8 => Width::Byte,
            Ty::U16 | Ty::I16 | Ty::F16 | Ty::Bf16 => Width::B16,
            Ty::U32 | Ty::I32 | Ty::F32 | Ty::Flag => Width::B32,
            Ty::U128 | Ty::I128 => Width::B128,
            _ => Width::B64,
        }
    }

    pub(super) fn signed(self) -> bool {
        matches!(
            self,
            Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64 | Ty::Isize | Ty::I128
        )
    }

    pub(super) fn float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64 | Ty::F16 | Ty::Bf16)
    }

    /// The `fetch_*` methods probed (beyond `swap`), as in `gpu-kernels/build.rs`.
    pub fn rmw_ops(self) -> &'static [&'static str] {
        match self {
            Ty::Bool => BOOL_RMW,
            Ty::F32 | Ty::F64 | Ty::F16 | Ty::Bf16 => FLOAT_RMW,
            Ty::Ptr => PTR_RMW,
            Ty::Flag => &[],
            _ => INT_RMW,
        }
    }

    /// The reductions probed.
    pub fn reductions(self) -> &'static [&'static str] {
        match self {
            Ty::U32 | Ty::I32 | Ty::U64 | Ty::I64 | Ty::Usize | Ty::Isize => INT_REDUCTIONS,
            Ty::F32 | Ty::F64 | Ty::F16 | Ty::Bf16 => FLOAT_REDUCTIONS,
            _ => &[],
        }
    }
}
