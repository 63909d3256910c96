//! What each probe kernel must emit: the PTX Atomics ABI table (`host/abi/ptx-atomics-abi.txt`,
//! the source of truth for orders) realised per value type by the rules of the device backend,
//! and the check of a kernel's memory-model sequence against it.
//!
//! The probes are those `gpu-kernels/build.rs` generates, `<op>__<type>__<order>__<scope>`;
//! [`probes`] enumerates them from the same rules.
//!
//! Realisation rules (scope `S`: thread/block → `.cta`, cluster → `.cluster`, device → `.gpu`,
//! system → `.sys`; a thread-scope fence emits nothing):
//!
//! * width: `bool`/`u8`/`i8` → the containing aligned 32-bit word (`.b32`); 16-bit → `.b16`;
//!   32-bit → `.b32`; 64-bit and pointers → `.b64`; 128-bit → `.b128` (probed only where the
//!   target has it: sm_90 with PTX ISA 8.3 or newer, see [`Target::has_b128_atomics`]).
//! * `load`: `ld.<sem>.S.bN`. `store`: `st.<sem>.S.bN`; bytes: a CAS loop with the store row.
//! * `swap`: `atom.<sem>.S.exch.b32|b64`; 16-bit and bytes: a CAS loop.
//! * `compare_exchange`: the rmw row of the join of (success, failure); `atom.<sem>.S.cas.bN`;
//!   bytes: a CAS loop.
//! * 32/64-bit ints: `add`/`sub` → `.add.u32|u64`, `and`/`or`/`xor` → `.<op>.b32|b64`,
//!   `min`/`max` → `.<op>.u32|s32|u64|s64`, `nand` → CAS loop. 16-bit ints: every rmw a CAS loop.
//!   8-bit ints: `and`/`or`/`xor` one `.b32` atom on the word, the rest CAS loops. `bool`:
//!   `and`/`or`/`xor`/`not` (`xor`) one `.b32` atom, `nand` a CAS loop. Floats: `add`/`sub` →
//!   `.add.f32|f64`, `min`/`max` CAS loops. Pointers: `fetch_ptr_*`/`fetch_byte_*` → `.add.u64`.
//!   128-bit ints: `swap` → `.exch.b128`, `compare_exchange` → `.cas.b128`, every `fetch_*` a
//!   CAS loop (PTX has no 128-bit arithmetic or bitwise `atom`), no reductions.
//! * reductions: `red.<sem>.S.<op>`, `sub` as `add`.
//! * a CAS loop with row (fence_sc?, sem): optionally `fence.sc.S`, `ld.relaxed.S.bN`, then in
//!   a loop (a label after the `ld`, a conditional backward branch to it after the `atom`)
//!   `atom.<sem>.S.cas.bN`.

use crate::ptx::{Item, Kernel, Normaliser, Target, instructions};
use std::collections::BTreeMap;
use std::fmt;

/// A C++ memory order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Order {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl Order {
    pub const ALL: [Order; 5] = [
        Order::Relaxed,
        Order::Acquire,
        Order::Release,
        Order::AcqRel,
        Order::SeqCst,
    ];

    /// `relaxed`, `acquire`, `release`, `acq_rel`, `seq_cst`.
    pub fn name(self) -> &'static str {
        match self {
            Order::Relaxed => "relaxed",
            Order::Acquire => "acquire",
            Order::Release => "release",
            Order::AcqRel => "acq_rel",
            Order::SeqCst => "seq_cst",
        }
    }

    pub fn from_name(name: &str) -> Option<Order> {
        Order::ALL.into_iter().find(|o| o.name() == name)
    }

    fn acquires(self) -> bool {
        matches!(self, Order::Acquire | Order::AcqRel | Order::SeqCst)
    }

    fn releases(self) -> bool {
        matches!(self, Order::Release | Order::AcqRel | Order::SeqCst)
    }

    /// The order of a compare-exchange: the join of success and failure. `SeqCst` if either is;
    /// else acquiring if either acquires, releasing if success releases.
    pub fn compare_exchange(success: Order, failure: Order) -> Order {
        if success == Order::SeqCst || failure == Order::SeqCst {
            return Order::SeqCst;
        }
        match (success.acquires() || failure.acquires(), success.releases()) {
            (true, true) => Order::AcqRel,
            (true, false) => Order::Acquire,
            (false, true) => Order::Release,
            (false, false) => Order::Relaxed,
        }
    }
}

/// The operations of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Operation {
    Load,
    Store,
    Rmw,
    Reduction,
    Fence,
}

impl Operation {
    pub const ALL: [Operation; 5] = [
        Operation::Load,
        Operation::Store,
        Operation::Rmw,
        Operation::Reduction,
        Operation::Fence,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Operation::Load => "load",
            Operation::Store => "store",
            Operation::Rmw => "rmw",
            Operation::Reduction => "reduction",
            Operation::Fence => "fence",
        }
    }

    /// The orders the operation has (every one needs a row).
    pub fn orders(self) -> &'static [Order] {
        use Order::*;
        match self {
            Operation::Load => &[Relaxed, Acquire, SeqCst],
            Operation::Store => &[Relaxed, Release, SeqCst],
            Operation::Rmw => &Order::ALL,
            Operation::Reduction => &[Relaxed, Release],
            Operation::Fence => &[Acquire, Release, AcqRel, SeqCst],
        }
    }

    /// The mnemonic of the operation's own instruction (the last of its row).
    fn mnemonic(self) -> &'static str {
        match self {
            Operation::Load => "ld",
            Operation::Store => "st",
            Operation::Rmw => "atom",
            Operation::Reduction => "red",
            Operation::Fence => "fence",
        }
    }
}

/// When a conditional row replaces the unconditioned one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Condition {
    /// The target lacks `fence.acquire`/`fence.release` (anything but sm_90 with PTX ISA 8.6).
    BeforePtx86,
}

impl Condition {
    pub fn holds(self, target: Target) -> bool {
        match self {
            Condition::BeforePtx86 => !target.has_split_fences(),
        }
    }
}

/// One row: instruction templates with `{S}` for the scope qualifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub sequence: Vec<String>,
}

impl Row {
    /// The instructions before the operation's own (e.g. `fence.sc.{S}`).
    pub fn prefix(&self) -> &[String] {
        &self.sequence[..self.sequence.len() - 1]
    }

    /// The `.sem` of the last instruction (`ld.acquire.{S}` → `acquire`).
    pub fn sem(&self) -> &str {
        self.sequence
            .last()
            .and_then(|l| l.split('.').nth(1))
            .unwrap_or_default()
    }
}

/// The parsed table.
#[derive(Clone, Debug)]
pub struct AbiTable {
    rows: BTreeMap<(Operation, Order, Option<Condition>), Row>,
}

/// The table file, `host/abi/ptx-atomics-abi.txt`.
pub const ABI_TABLE: &str = include_str!("../abi/ptx-atomics-abi.txt");

impl AbiTable {
    /// The table in `host/abi/ptx-atomics-abi.txt`.
    pub fn builtin() -> AbiTable {
        AbiTable::parse(ABI_TABLE).unwrap_or_else(|e| panic!("host/abi/ptx-atomics-abi.txt: {e}"))
    }

    /// Parses the table format (see the file's header); every order of every operation must have
    /// an unconditioned row, and every instruction a scope placeholder `{S}`.
    pub fn parse(text: &str) -> Result<AbiTable, String> {
        let mut rows = BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            let err = |msg: String| format!("line {}: {msg}: `{line}`", n + 1);
            let mut fields = line.split_whitespace();
            let (Some(op), Some(order)) = (fields.next(), fields.next()) else {
                return Err(err(
                    "expected `<operation> <order>[@<condition>] <sequence>`".into(),
                ));
            };
            let seq = fields.collect::<Vec<_>>().join(" ");
            if seq.is_empty() {
                return Err(err(
                    "expected `<operation> <order>[@<condition>] <sequence>`".into(),
                ));
            };
            let op = Operation::ALL
                .into_iter()
                .find(|o| o.name() == op)
                .ok_or_else(|| err(format!("unknown operation `{op}`")))?;
            let (order, condition) = match order.split_once('@') {
                Some((o, "before_ptx86")) => (o, Some(Condition::BeforePtx86)),
                Some((_, c)) => return Err(err(format!("unknown condition `{c}`"))),
                None => (order, None),
            };
            let order = Order::from_name(order)
                .filter(|o| op.orders().contains(o))
                .ok_or_else(|| err(format!("`{order}` is not an order of {}", op.name())))?;
            let sequence: Vec<String> = seq
                .split(';')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            let last = sequence
                .last()
                .ok_or_else(|| err("empty sequence".into()))?;
            if let Some(bad) = sequence
                .iter()
                .find(|i| !i.ends_with(".{S}") || i.contains(' '))
            {
                return Err(err(format!("`{bad}` is not `<mnemonic>.<sem>.{{S}}`")));
            }
            let parts: Vec<&str> = last.split('.').collect();
            if parts.len() != 3 || parts[0] != op.mnemonic() {
                return Err(err(format!(
                    "the last instruction of a {} row must be `{}.<sem>.{{S}}`",
                    op.name(),
                    op.mnemonic()
                )));
            }
            if rows
                .insert((op, order, condition), Row { sequence })
                .is_some()
            {
                return Err(err("duplicate row".into()));
            }
        }
        for op in Operation::ALL {
            for &order in op.orders() {
                if !rows.contains_key(&(op, order, None)) {
                    return Err(format!("no row for {} {}", op.name(), order.name()));
                }
            }
        }
        Ok(AbiTable { rows })
    }

    /// The row of (`op`, `order`) on `target`.
    pub fn row(&self, op: Operation, order: Order, target: Target) -> &Row {
        self.rows
            .iter()
            .filter(|((o, r, c), _)| *o == op && *r == order && c.is_some_and(|c| c.holds(target)))
            .map(|(_, row)| row)
            .next()
            .unwrap_or_else(|| &self.rows[&(op, order, None)])
    }
}

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

    fn size(self) -> &'static str {
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

    fn signed(self) -> bool {
        matches!(
            self,
            Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64 | Ty::Isize | Ty::I128
        )
    }

    fn float(self) -> bool {
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

/// What a probe does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProbeOp {
    Load,
    Store,
    Swap,
    /// `fetch_add`, `fetch_ptr_add`, `fetch_not`, …
    Fetch(&'static str),
    /// With the failure order.
    CompareExchange(Order),
    /// `add`, `sub`, `and`, … (the method name, returning nothing).
    Reduce(&'static str),
    Fence,
}

impl ProbeOp {
    /// The row of the results table: `load`, `fetch_add`, `reduce_min`, `fence`, …
    pub fn group(self) -> String {
        match self {
            ProbeOp::Load => "load".into(),
            ProbeOp::Store => "store".into(),
            ProbeOp::Swap => "swap".into(),
            ProbeOp::Fetch(op) => op.into(),
            ProbeOp::CompareExchange(_) => "compare_exchange".into(),
            ProbeOp::Reduce(op) => format!("reduce_{op}"),
            ProbeOp::Fence => "fence".into(),
        }
    }
}

/// One probe kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// `<op>__<type>__<order>__<scope>`.
    pub name: String,
    pub op: ProbeOp,
    /// `None` for fences.
    pub ty: Option<Ty>,
    /// The order (the success order of a compare-exchange).
    pub order: Order,
    pub scope: Scope,
}

/// The probe kernels `gpu-kernels/build.rs` generates for `target`, in its order.
pub fn probes(target: Target) -> Vec<Probe> {
    let mut out = Vec::new();
    let orders = |op: Operation| op.orders().iter().copied();
    for scope in Scope::of(target) {
        let mut push = |op: ProbeOp, ty: Option<Ty>, order: Order, order_name: String| {
            let op_name = match op {
                ProbeOp::Load => "load",
                ProbeOp::Store => "store",
                ProbeOp::Swap => "swap",
                ProbeOp::Fetch(n) | ProbeOp::Reduce(n) => n,
                ProbeOp::CompareExchange(_) => "compare_exchange",
                ProbeOp::Fence => "fence",
            };
            let ty_name = ty.map_or(String::new(), |t| format!("__{}", t.name()));
            out.push(Probe {
                name: format!("{op_name}{ty_name}__{order_name}__{}", scope.name()),
                op,
                ty,
                order,
                scope,
            });
        };
        for ty in Ty::ALL {
            if ty.width() == Width::B128 && !target.has_b128_atomics() {
                continue;
            }
            let t = Some(ty);
            for o in orders(Operation::Load) {
                push(ProbeOp::Load, t, o, o.name().into());
            }
            for o in orders(Operation::Store) {
                push(ProbeOp::Store, t, o, o.name().into());
            }
            for o in orders(Operation::Rmw) {
                push(ProbeOp::Swap, t, o, o.name().into());
            }
            for &op in ty.rmw_ops() {
                for o in orders(Operation::Rmw) {
                    push(ProbeOp::Fetch(op), t, o, o.name().into());
                }
            }
            for s in orders(Operation::Rmw) {
                for f in orders(Operation::Load) {
                    let name = format!("{}_{}", s.name(), f.name());
                    push(ProbeOp::CompareExchange(f), t, s, name);
                }
            }
            for &op in ty.reductions() {
                for o in orders(Operation::Reduction) {
                    push(ProbeOp::Reduce(op), t, o, o.name().into());
                }
            }
        }
        for (op, operation) in FLAG_OPS {
            for o in orders(operation) {
                push(ProbeOp::Fetch(op), Some(Ty::Flag), o, o.name().into());
            }
        }
        for o in orders(Operation::Fence) {
            push(ProbeOp::Fence, None, o, o.name().into());
        }
    }
    out
}

/// Why a probe is a compare-and-swap loop rather than the one recommended instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LoopReason {
    /// Byte store: PTX has no atomic 8-bit store; the word is swapped by `atom.cas.b32`.
    ByteStore,
    /// Byte swap: no 8-bit `atom.exch`.
    ByteSwap,
    /// Byte compare-exchange: no 8-bit `atom.cas`; the word is compared.
    ByteCompareExchange,
    /// 8-bit `add`/`sub`/`min`/`max`/`nand` (and `bool` `nand`): no 8-bit arithmetic atom.
    ByteRmw,
    /// 16-bit swap: no `atom.exch.b16`.
    HalfSwap,
    /// 16-bit arithmetic and bitwise rmw: only `atom.cas.b16` exists.
    HalfRmw,
    /// 32/64-bit `fetch_nand`: no `atom.nand`.
    Nand,
    /// Float `fetch_min`/`fetch_max`: `atom.min/max.f32` would not follow `f32::min` on NaN (and
    /// needs sm_90).
    FloatMinMax,
    /// `bf16` add/sub (and their reductions) before sm_90: no `atom.add.noftz.bf16`.
    Bf16Add,
    /// 128-bit arithmetic and bitwise rmw: only `atom.cas.b128` (and `atom.exch.b128`) exist.
    WideRmw,
}

impl LoopReason {
    pub fn describe(self) -> &'static str {
        match self {
            LoopReason::ByteStore => "8-bit store (no 8-bit st: CAS on the word)",
            LoopReason::ByteSwap => "8-bit swap (no 8-bit atom.exch)",
            LoopReason::ByteCompareExchange => "8-bit compare_exchange (no 8-bit atom.cas)",
            LoopReason::ByteRmw => "8-bit add/sub/min/max/nand (no 8-bit atom op)",
            LoopReason::HalfSwap => "16-bit swap (no atom.exch.b16)",
            LoopReason::HalfRmw => "16-bit fetch_* (only atom.cas.b16)",
            LoopReason::Nand => "32/64-bit fetch_nand (no atom.nand)",
            LoopReason::FloatMinMax => "float fetch_min/max (NaN semantics)",
            LoopReason::Bf16Add => "bf16 add/sub before sm_90 (no atom.add.noftz.bf16)",
            LoopReason::WideRmw => "128-bit fetch_* (only atom.cas.b128)",
        }
    }
}

/// The memory-model instructions a probe must emit, in order, and whether the last two (the
/// `ld.relaxed` and the `atom.cas`) form a CAS loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    pub instructions: Vec<String>,
    pub cas_loop: Option<LoopReason>,
}

fn instantiate(template: &str, scope: Scope) -> String {
    template.replace("{S}", scope.qualifier())
}

/// The row's instructions, the last completed with `.<suffix>` (`ld.acquire.gpu` + `b32`).
fn single(row: &Row, scope: Scope, suffix: &str) -> Expected {
    let mut instructions: Vec<String> =
        row.sequence.iter().map(|t| instantiate(t, scope)).collect();
    if let Some(last) = instructions.last_mut() {
        *last = format!("{last}.{suffix}");
    }
    Expected {
        instructions,
        cas_loop: None,
    }
}

/// The row's prefix, `ld.relaxed.S.bN`, and `atom.<sem>.S.cas.bN` in a loop.
fn cas_loop(row: &Row, scope: Scope, width: Width, reason: LoopReason) -> Expected {
    let s = scope.qualifier();
    let bits = width.bits();
    let mut instructions: Vec<String> =
        row.prefix().iter().map(|t| instantiate(t, scope)).collect();
    instructions.push(format!("ld.relaxed.{s}.{bits}"));
    instructions.push(format!("atom.{}.{s}.cas.{bits}", row.sem()));
    Expected {
        instructions,
        cas_loop: Some(reason),
    }
}

/// The type suffix of an arithmetic or bitwise `atom`/`red` op (`add.u32`, `min.s64`, `xor.b32`,
/// `add.f64`) at `width` (32 or 64).
fn op_suffix(op: &str, ty: Ty, width: Width) -> String {
    let n = width.size();
    match op {
        "add" | "sub" if ty == Ty::F16 => "add.noftz.f16".into(),
        "add" | "sub" if ty == Ty::Bf16 => "add.noftz.bf16".into(),
        "add" | "sub" if ty.float() => format!("add.f{n}"),
        "add" | "sub" => format!("add.u{n}"),
        "and" | "or" | "xor" => format!("{op}.b{n}"),
        "not" => format!("xor.b{n}"),
        "min" | "max" => format!("{op}.{}{n}", if ty.signed() { 's' } else { 'u' }),
        _ => unreachable!("no single-instruction op `{op}`"),
    }
}

/// What `probe` must emit on `target`, by `table` and the realisation rules (module docs).
pub fn expected(probe: &Probe, table: &AbiTable, target: Target) -> Expected {
    let scope = probe.scope;
    let row = |op: Operation, order: Order| table.row(op, order, target);
    let Some(ty) = probe.ty else {
        // A fence.
        if scope == Scope::Thread {
            return Expected {
                instructions: vec![],
                cas_loop: None,
            };
        }
        let row = row(Operation::Fence, probe.order);
        return Expected {
            instructions: row.sequence.iter().map(|t| instantiate(t, scope)).collect(),
            cas_loop: None,
        };
    };
    let width = ty.width();
    let bits = width.bits();
    let rmw = row(Operation::Rmw, probe.order);
    // `atom.add.noftz.bf16` and `red.add.noftz.bf16` need sm_90.
    let has_bf16_add = matches!(target, Target::Sm90 | Target::Sm90Ptx86);
    if ty == Ty::Flag {
        let (_, operation) = FLAG_OPS
            .into_iter()
            .find(|&(op, _)| probe.op == ProbeOp::Fetch(op))
            .unwrap_or_else(|| unreachable!("no flag operation {:?}", probe.op));
        let suffix = if operation == Operation::Rmw {
            format!("exch.{bits}")
        } else {
            bits.to_string()
        };
        return single(row(operation, probe.order), scope, &suffix);
    }
    match probe.op {
        ProbeOp::Load => single(row(Operation::Load, probe.order), scope, bits),
        ProbeOp::Store if width == Width::Byte => cas_loop(
            row(Operation::Store, probe.order),
            scope,
            width,
            LoopReason::ByteStore,
        ),
        ProbeOp::Store => single(row(Operation::Store, probe.order), scope, bits),
        ProbeOp::Swap => match width {
            Width::Byte => cas_loop(rmw, scope, width, LoopReason::ByteSwap),
            Width::B16 => cas_loop(rmw, scope, width, LoopReason::HalfSwap),
            _ => single(rmw, scope, &format!("exch.{bits}")),
        },
        ProbeOp::CompareExchange(failure) => {
            let row = row(
                Operation::Rmw,
                Order::compare_exchange(probe.order, failure),
            );
            match width {
                Width::Byte => cas_loop(row, scope, width, LoopReason::ByteCompareExchange),
                _ => single(row, scope, &format!("cas.{bits}")),
            }
        }
        ProbeOp::Fetch(method) => {
            let op = method
                .strip_prefix("fetch_")
                .unwrap_or(method)
                .trim_start_matches("ptr_")
                .trim_start_matches("byte_");
            let bitwise = matches!(op, "and" | "or" | "xor" | "not");
            match (ty, width) {
                (Ty::Ptr, _) if bitwise => single(rmw, scope, &format!("{op}.b64")),
                (Ty::Ptr, _) => single(rmw, scope, "add.u64"),
                (_, Width::Byte) if bitwise => single(rmw, scope, &op_suffix(op, ty, Width::B32)),
                (_, Width::Byte) => cas_loop(rmw, scope, width, LoopReason::ByteRmw),
                (Ty::F16 | Ty::Bf16, _) if matches!(op, "min" | "max") => {
                    cas_loop(rmw, scope, width, LoopReason::FloatMinMax)
                }
                (Ty::Bf16, _) if !has_bf16_add => cas_loop(rmw, scope, width, LoopReason::Bf16Add),
                (Ty::F16 | Ty::Bf16, _) => single(rmw, scope, &op_suffix(op, ty, width)),
                (_, Width::B16) => cas_loop(rmw, scope, width, LoopReason::HalfRmw),
                (_, Width::B128) => cas_loop(rmw, scope, width, LoopReason::WideRmw),
                (_, _) if op == "nand" => cas_loop(rmw, scope, width, LoopReason::Nand),
                (Ty::F32 | Ty::F64, _) if matches!(op, "min" | "max") => {
                    cas_loop(rmw, scope, width, LoopReason::FloatMinMax)
                }
                (_, _) => single(rmw, scope, &op_suffix(op, ty, width)),
            }
        }
        ProbeOp::Reduce(_) if ty == Ty::Bf16 && !has_bf16_add => {
            cas_loop(rmw, scope, width, LoopReason::Bf16Add)
        }
        ProbeOp::Reduce(op) => single(
            row(Operation::Reduction, probe.order),
            scope,
            &op_suffix(op, ty, width),
        ),
        ProbeOp::Fence => unreachable!("fences have no type"),
    }
}

/// The problems of a kernel's memory-model sequence against `expected`; empty if it conforms.
///
/// Besides the exact memory-model instructions (mnemonic with sem, scope and type; operands
/// ignored), unpredicated: a non-loop probe has no branch at all; a CAS loop has no branch
/// before its `atom.cas`, a conditional backward branch after it to a label between the
/// `ld.relaxed` and the `atom.cas`, and no other backward branch.
pub fn check_sequence(sequence: &[Item], expected: &Expected) -> Vec<String> {
    let mut problems = Vec::new();
    let memory: Vec<(usize, &crate::ptx::Instr)> = sequence
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match item {
            Item::Instr(ins) if ins.is_memory_model() => Some((i, ins)),
            _ => None,
        })
        .collect();
    let actual: Vec<&str> = memory.iter().map(|(_, i)| i.mnemonic.as_str()).collect();
    if actual != expected.instructions {
        problems.push(format!(
            "memory-model instructions: expected [{}], found [{}]",
            expected.instructions.join("; "),
            actual.join("; ")
        ));
    }
    for (_, ins) in &memory {
        if ins.guard.is_some() {
            problems.push(format!("predicated memory-model instruction `{ins}`"));
        }
    }
    let labels: BTreeMap<&str, usize> = sequence
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match item {
            Item::Label(l) => Some((l.as_str(), i)),
            _ => None,
        })
        .collect();
    let branches: Vec<(usize, &crate::ptx::Instr)> = sequence
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match item {
            Item::Instr(ins) if ins.is_branch() => Some((i, ins)),
            _ => None,
        })
        .collect();
    let target_of =
        |ins: &crate::ptx::Instr| ins.branch_target().and_then(|t| labels.get(t).copied());
    match expected.cas_loop {
        None => {
            for (_, b) in &branches {
                problems.push(format!("unexpected branch `{b}` (no loop expected)"));
            }
        }
        Some(_) if problems.is_empty() => {
            let ld = memory[memory.len() - 2].0;
            let cas = memory[memory.len() - 1].0;
            let mut back_edge = false;
            for &(at, b) in &branches {
                let Some(to) = target_of(b) else {
                    problems.push(format!("branch `{b}` to a label outside the sequence"));
                    continue;
                };
                if at < cas {
                    problems.push(format!("branch `{b}` before the atom.cas"));
                } else if to <= at {
                    if ld < to && to < cas && b.guard.is_some() {
                        back_edge = true;
                    } else {
                        problems.push(format!(
                            "backward branch `{b}` that is not the CAS loop's back edge"
                        ));
                    }
                }
            }
            if !back_edge {
                problems.push(
                    "no CAS loop: no conditional backward branch after the atom.cas to a label \
                     between the ld.relaxed and the atom.cas"
                        .into(),
                );
            }
        }
        Some(_) => {}
    }
    problems
}

/// The problems of `kernel` against `expected`: [`check_sequence`], plus no `.extern` and no
/// `trap` (which the backend emits only for a row it cannot realise) in the body.
pub fn check_kernel(kernel: &Kernel, expected: &Expected) -> Vec<String> {
    check_items(kernel, &instructions(kernel), expected)
}

/// [`check_kernel`] given the kernel's [`instructions`].
pub fn check_items(kernel: &Kernel, items: &[Item], expected: &Expected) -> Vec<String> {
    let sequence: Vec<Item> = items
        .iter()
        .filter(|i| is_sequence_item(i))
        .cloned()
        .collect();
    let mut problems = check_sequence(&sequence, expected);
    if kernel.body.iter().any(|l| l.contains(".extern")) {
        problems.push("`.extern` declaration in the body".into());
    }
    for item in items {
        if matches!(item, Item::Instr(i) if i.mnemonic == "trap") {
            problems.push("`trap` in the body".into());
        }
    }
    problems
}

/// Whether an item belongs to the memory-model sequence (as in
/// [`crate::ptx::memory_model_sequence`]).
fn is_sequence_item(item: &Item) -> bool {
    match item {
        Item::Label(_) => true,
        Item::Instr(i) => i.is_memory_model() || i.is_branch(),
    }
}

/// A kernel's memory-model sequence as snapshot lines (registers and labels renamed).
pub fn snapshot_lines(kernel: &Kernel) -> Vec<String> {
    snapshot_lines_of(&instructions(kernel))
}

/// [`snapshot_lines`] given the kernel's [`instructions`].
pub fn snapshot_lines_of(items: &[Item]) -> Vec<String> {
    let mut n = Normaliser::new();
    items
        .iter()
        .filter(|i| is_sequence_item(i))
        .map(|i| n.item(i))
        .collect()
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(r) = self.cas_loop {
            let n = self.instructions.len();
            write!(
                f,
                "{}; loop {{ {} }} ({})",
                self.instructions[..n - 1].join("; "),
                self.instructions[n - 1],
                r.describe()
            )
        } else {
            f.write_str(&self.instructions.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parse_kernels;

    fn probe(target: Target, name: &str) -> Probe {
        probes(target)
            .into_iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("no probe {name}"))
    }

    fn exp(target: Target, name: &str) -> Expected {
        expected(&probe(target, name), &AbiTable::builtin(), target)
    }

    fn ins(target: Target, name: &str) -> Vec<String> {
        exp(target, name).instructions
    }

    #[test]
    fn table_parses_and_is_complete() {
        let t = AbiTable::builtin();
        let s = |op, o, target| t.row(op, o, target).sequence.join("; ");
        assert_eq!(
            s(Operation::Load, Order::SeqCst, Target::Sm70),
            "fence.sc.{S}; ld.acquire.{S}"
        );
        assert_eq!(
            s(Operation::Rmw, Order::AcqRel, Target::Sm70),
            "atom.acq_rel.{S}"
        );
        assert_eq!(
            s(Operation::Fence, Order::Acquire, Target::Sm90),
            "fence.acq_rel.{S}"
        );
        assert_eq!(
            s(Operation::Fence, Order::Acquire, Target::Sm90Ptx86),
            "fence.acquire.{S}"
        );
        assert_eq!(
            s(Operation::Fence, Order::Release, Target::Sm80),
            "fence.acq_rel.{S}"
        );
        assert_eq!(
            s(Operation::Reduction, Order::Release, Target::Sm80),
            "red.release.{S}"
        );
        assert!(
            AbiTable::parse("load relaxed ld.relaxed.{S}")
                .unwrap_err()
                .contains("no row")
        );
        let bad = ABI_TABLE.replace(
            "load       acquire              ld.acquire.{S}",
            "load acquire ld.acquire.gpu",
        );
        assert!(AbiTable::parse(&bad).is_err());
        let bad = ABI_TABLE.replace(
            "store      release              st.release.{S}",
            "store release ld.release.{S}",
        );
        assert!(AbiTable::parse(&bad).is_err());
        let bad = format!("{ABI_TABLE}\nload acquire@sometimes ld.acquire.{{S}}");
        assert!(AbiTable::parse(&bad).is_err());
    }

    #[test]
    fn probe_counts_follow_the_generator() {
        // Per scope: 1056 typed probes (50 each for f16 and bf16) + 4 fences + 11 flag probes
        // (3 test, 3 clear, 5 test_and_set).
        assert_eq!(probes(Target::Sm70).len(), 4284);
        assert_eq!(probes(Target::Sm80).len(), 4284);
        assert_eq!(probes(Target::Sm90).len(), 5355);
        // sm_90 + PTX 8.6 adds the 128-bit probes: 66 per type and scope (3 load, 3 store,
        // 5 swap, 40 fetch_*, 15 compare_exchange) for u128 and i128.
        assert_eq!(probes(Target::Sm90Ptx86).len(), 5355 + 2 * 66 * 5);
        let mut names: Vec<_> = probes(Target::Sm90).into_iter().map(|p| p.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 5355);
        for n in [
            "compare_exchange__u8__release_acquire__device",
            "fence__acq_rel__cluster",
            "add__f32__relaxed__block",
            "fetch_not__bool__seq_cst__system",
            "fetch_byte_sub__ptr__acquire__thread",
            "test__flag__seq_cst__cluster",
            "clear__flag__release__block",
            "test_and_set__flag__acq_rel__system",
            "fetch_add__f16__relaxed__device",
            "sub__bf16__release__cluster",
        ] {
            assert!(names.binary_search(&n.to_string()).is_ok(), "{n}");
        }
    }

    #[test]
    fn compare_exchange_order_is_the_join() {
        use Order::*;
        let j = Order::compare_exchange;
        assert_eq!(j(Release, Acquire), AcqRel);
        assert_eq!(j(Relaxed, Acquire), Acquire);
        assert_eq!(j(Release, Relaxed), Release);
        assert_eq!(j(Relaxed, Relaxed), Relaxed);
        assert_eq!(j(Acquire, Relaxed), Acquire);
        assert_eq!(j(AcqRel, Relaxed), AcqRel);
        assert_eq!(j(Relaxed, SeqCst), SeqCst);
        assert_eq!(j(SeqCst, Relaxed), SeqCst);
    }

    #[test]
    fn expected_sequences() {
        let t = Target::Sm80;
        assert_eq!(
            ins(t, "load__u8__seq_cst__device"),
            ["fence.sc.gpu", "ld.acquire.gpu.b32"]
        );
        assert_eq!(ins(t, "load__i16__acquire__thread"), ["ld.acquire.cta.b16"]);
        assert_eq!(
            ins(t, "store__ptr__release__system"),
            ["st.release.sys.b64"]
        );
        assert_eq!(
            ins(t, "store__f64__seq_cst__block"),
            ["fence.sc.cta", "st.relaxed.cta.b64"]
        );
        assert_eq!(
            ins(t, "swap__u32__acq_rel__device"),
            ["atom.acq_rel.gpu.exch.b32"]
        );
        assert_eq!(
            ins(t, "swap__f64__seq_cst__device"),
            ["fence.sc.gpu", "atom.acquire.gpu.exch.b64"]
        );
        assert_eq!(
            ins(t, "compare_exchange__u16__release_acquire__system"),
            ["atom.acq_rel.sys.cas.b16"]
        );
        assert_eq!(
            ins(t, "compare_exchange__i64__relaxed_seq_cst__block"),
            ["fence.sc.cta", "atom.acquire.cta.cas.b64"]
        );
        assert_eq!(
            ins(t, "fetch_sub__u32__relaxed__device"),
            ["atom.relaxed.gpu.add.u32"]
        );
        assert_eq!(
            ins(t, "fetch_min__isize__acquire__device"),
            ["atom.acquire.gpu.min.s64"]
        );
        assert_eq!(
            ins(t, "fetch_max__usize__acquire__device"),
            ["atom.acquire.gpu.max.u64"]
        );
        assert_eq!(
            ins(t, "fetch_xor__i8__release__block"),
            ["atom.release.cta.xor.b32"]
        );
        assert_eq!(
            ins(t, "fetch_not__bool__relaxed__device"),
            ["atom.relaxed.gpu.xor.b32"]
        );
        assert_eq!(
            ins(t, "fetch_sub__f32__acq_rel__device"),
            ["atom.acq_rel.gpu.add.f32"]
        );
        assert_eq!(
            ins(t, "fetch_ptr_sub__ptr__relaxed__device"),
            ["atom.relaxed.gpu.add.u64"]
        );
        assert_eq!(
            ins(t, "fetch_byte_add__ptr__release__device"),
            ["atom.release.gpu.add.u64"]
        );
        assert_eq!(
            ins(t, "sub__f64__release__system"),
            ["red.release.sys.add.f64"]
        );
        assert_eq!(
            ins(t, "min__i32__relaxed__device"),
            ["red.relaxed.gpu.min.s32"]
        );
        assert_eq!(
            ins(t, "or__u64__relaxed__device"),
            ["red.relaxed.gpu.or.b64"]
        );
        assert_eq!(ins(t, "fence__seq_cst__thread"), Vec::<String>::new());
        assert_eq!(ins(t, "fence__acquire__block"), ["fence.acq_rel.cta"]);
        assert_eq!(
            ins(Target::Sm90Ptx86, "fence__release__cluster"),
            ["fence.release.cluster"]
        );
        assert_eq!(
            ins(Target::Sm90, "fence__release__cluster"),
            ["fence.acq_rel.cluster"]
        );
        assert_eq!(
            ins(Target::Sm90, "load__u32__relaxed__cluster"),
            ["ld.relaxed.cluster.b32"]
        );
        assert!(
            probes(Target::Sm80)
                .iter()
                .all(|p| p.scope != Scope::Cluster)
        );
    }

    #[test]
    fn wide_probes_only_where_the_target_has_b128() {
        for t in [Target::Sm70, Target::Sm80, Target::Sm90] {
            assert!(probes(t).iter().all(|p| p.ty != Some(Ty::U128)), "{t}");
        }
        let t = Target::Sm90Ptx86;
        assert_eq!(
            ins(t, "load__u128__acquire__device"),
            ["ld.acquire.gpu.b128"]
        );
        assert_eq!(
            ins(t, "store__i128__seq_cst__system"),
            ["fence.sc.sys", "st.relaxed.sys.b128"]
        );
        assert_eq!(
            ins(t, "swap__u128__acq_rel__cluster"),
            ["atom.acq_rel.cluster.exch.b128"]
        );
        assert_eq!(
            ins(t, "compare_exchange__i128__release_acquire__block"),
            ["atom.acq_rel.cta.cas.b128"]
        );
        let e = exp(t, "fetch_max__i128__seq_cst__thread");
        assert_eq!(
            e.instructions,
            [
                "fence.sc.cta",
                "ld.relaxed.cta.b128",
                "atom.acquire.cta.cas.b128"
            ]
        );
        assert_eq!(e.cas_loop, Some(LoopReason::WideRmw));
        assert!(
            probes(t)
                .iter()
                .all(|p| !(p.ty == Some(Ty::U128) && matches!(p.op, ProbeOp::Reduce(_))))
        );
    }

    #[test]
    fn half_precision_probes() {
        let t = Target::Sm80;
        assert_eq!(
            ins(t, "fetch_add__f16__acq_rel__device"),
            ["atom.acq_rel.gpu.add.noftz.f16"]
        );
        assert_eq!(
            ins(t, "sub__f16__release__block"),
            ["red.release.cta.add.noftz.f16"]
        );
        assert_eq!(
            ins(t, "load__bf16__acquire__system"),
            ["ld.acquire.sys.b16"]
        );
        assert_eq!(
            exp(t, "fetch_add__bf16__relaxed__device").cas_loop,
            Some(LoopReason::Bf16Add)
        );
        assert_eq!(
            exp(t, "add__bf16__release__device").instructions,
            ["ld.relaxed.gpu.b16", "atom.release.gpu.cas.b16"]
        );
        assert_eq!(
            exp(t, "fetch_min__f16__relaxed__device").cas_loop,
            Some(LoopReason::FloatMinMax)
        );
        assert_eq!(
            exp(t, "swap__f16__relaxed__device").cas_loop,
            Some(LoopReason::HalfSwap)
        );
        let t = Target::Sm90;
        assert_eq!(
            ins(t, "fetch_sub__bf16__seq_cst__cluster"),
            ["fence.sc.cluster", "atom.acquire.cluster.add.noftz.bf16"]
        );
        assert_eq!(
            ins(t, "add__bf16__relaxed__device"),
            ["red.relaxed.gpu.add.noftz.bf16"]
        );
    }

    #[test]
    fn flag_probes_are_word_loads_stores_and_exchanges() {
        let t = Target::Sm80;
        assert_eq!(ins(t, "test__flag__acquire__block"), ["ld.acquire.cta.b32"]);
        assert_eq!(
            ins(t, "test__flag__seq_cst__device"),
            ["fence.sc.gpu", "ld.acquire.gpu.b32"]
        );
        assert_eq!(
            ins(t, "clear__flag__release__system"),
            ["st.release.sys.b32"]
        );
        assert_eq!(
            ins(t, "test_and_set__flag__seq_cst__block"),
            ["fence.sc.cta", "atom.acquire.cta.exch.b32"]
        );
        assert_eq!(
            ins(t, "test_and_set__flag__relaxed__thread"),
            exp(t, "swap__u32__relaxed__thread").instructions
        );
        assert_eq!(exp(t, "test_and_set__flag__acq_rel__device").cas_loop, None);
    }

    #[test]
    fn expected_cas_loops() {
        let t = Target::Sm70;
        let e = exp(t, "store__bool__seq_cst__system");
        assert_eq!(
            e.instructions,
            [
                "fence.sc.sys",
                "ld.relaxed.sys.b32",
                "atom.relaxed.sys.cas.b32"
            ]
        );
        assert_eq!(e.cas_loop, Some(LoopReason::ByteStore));
        let e = exp(t, "store__u8__release__device");
        assert_eq!(
            e.instructions,
            ["ld.relaxed.gpu.b32", "atom.release.gpu.cas.b32"]
        );
        let e = exp(t, "compare_exchange__u8__release_acquire__device");
        assert_eq!(
            e.instructions,
            ["ld.relaxed.gpu.b32", "atom.acq_rel.gpu.cas.b32"]
        );
        assert_eq!(e.cas_loop, Some(LoopReason::ByteCompareExchange));
        let e = exp(t, "swap__i16__seq_cst__block");
        assert_eq!(
            e.instructions,
            [
                "fence.sc.cta",
                "ld.relaxed.cta.b16",
                "atom.acquire.cta.cas.b16"
            ]
        );
        assert_eq!(e.cas_loop, Some(LoopReason::HalfSwap));
        assert_eq!(
            exp(t, "fetch_and__u16__relaxed__device").cas_loop,
            Some(LoopReason::HalfRmw)
        );
        assert_eq!(
            exp(t, "swap__bool__relaxed__device").cas_loop,
            Some(LoopReason::ByteSwap)
        );
        assert_eq!(
            exp(t, "fetch_add__u8__relaxed__device").cas_loop,
            Some(LoopReason::ByteRmw)
        );
        assert_eq!(
            exp(t, "fetch_nand__bool__relaxed__device").cas_loop,
            Some(LoopReason::ByteRmw)
        );
        assert_eq!(
            exp(t, "fetch_nand__u64__relaxed__device").instructions[1],
            "atom.relaxed.gpu.cas.b64"
        );
        assert_eq!(
            exp(t, "fetch_max__f32__acquire__device").cas_loop,
            Some(LoopReason::FloatMinMax)
        );
        assert_eq!(exp(t, "fetch_or__bool__acquire__device").cas_loop, None);
    }

    fn kernel(body: &str) -> Kernel {
        let ptx = format!(".visible .entry k()\n{{\n{body}\n}}\n");
        parse_kernels(&ptx).remove(0)
    }

    const BYTE_STORE: &str = "
	ld.param.b64 	%rd1, [k_param_0];
	fence.sc.sys;
	ld.relaxed.sys.b32 %r12, [%rd3];
$L__BB3231_1:
	and.b32 	%r11, %r12, %r1;
	atom.relaxed.sys.cas.b32 %r3, [%rd3], %r12, %r10;
	setp.ne.b32 	%p1, %r3, %r12;
	@%p1 bra 	$L__BB3231_1;
	ret;";

    const BYTE_CAS: &str = "
	ld.relaxed.gpu.b32 %r12, [%rd2];
$L__BB870_1:
	atom.acq_rel.gpu.cas.b32 %r12, [%rd2], %r9, %r9;
	setp.eq.b32 	%p1, %r12, %r9;
	@%p1 bra 	$L__BB870_3;
	setp.eq.b16 	%p2, %rs1, %rs3;
	@%p2 bra 	$L__BB870_1;
$L__BB870_3:
	ret;";

    #[test]
    fn conforming_kernels_pass() {
        let t = Target::Sm80;
        let e = exp(t, "store__bool__seq_cst__system");
        assert_eq!(check_kernel(&kernel(BYTE_STORE), &e), Vec::<String>::new());
        let e = exp(t, "compare_exchange__u8__release_acquire__device");
        assert_eq!(check_kernel(&kernel(BYTE_CAS), &e), Vec::<String>::new());
        let e = exp(t, "load__u32__seq_cst__device");
        let k =
            kernel("ld.param.b64 %rd1, [p];\nfence.sc.gpu;\nld.acquire.gpu.b32 %r1, [%rd1];\nret;");
        assert_eq!(check_kernel(&k, &e), Vec::<String>::new());
        let e = exp(t, "fence__seq_cst__thread");
        assert!(
            check_kernel(&kernel("// begin inline asm\n// end inline asm\nret;"), &e).is_empty()
        );
    }

    #[test]
    fn deviations_are_reported() {
        let t = Target::Sm80;
        let e = exp(t, "load__u32__acquire__device");
        // An extra fence.
        let k = kernel("fence.sc.gpu;\nld.acquire.gpu.b32 %r1, [%rd1];\nret;");
        let p = check_kernel(&k, &e);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].contains("found [fence.sc.gpu; ld.acquire.gpu.b32]"),
            "{p:?}"
        );
        // A plain global load in place of, or besides, the atomic one.
        let k = kernel("ld.global.u32 %r1, [%rd1];\nret;");
        assert!(check_kernel(&k, &e)[0].contains("found [ld.global.u32]"));
        let k = kernel("ld.acquire.gpu.b32 %r1, [%rd1];\nld.global.u32 %r2, [%rd1];\nret;");
        assert_eq!(check_kernel(&k, &e).len(), 1);
        // Wrong scope, sem, type; a membar.
        for wrong in [
            "ld.acquire.sys.b32",
            "ld.relaxed.gpu.b32",
            "ld.acquire.gpu.b64",
            "ld.acquire.gpu.u32",
        ] {
            assert!(
                !check_kernel(&kernel(&format!("{wrong} %r1, [%rd1];")), &e).is_empty(),
                "{wrong}"
            );
        }
        let k = kernel("membar.gl;\nld.acquire.gpu.b32 %r1, [%rd1];");
        assert!(!check_kernel(&k, &e).is_empty());
        // Extra fence in a thread-scope fence.
        let f = exp(t, "fence__acq_rel__thread");
        assert!(!check_kernel(&kernel("fence.acq_rel.cta;"), &f).is_empty());
        // Predicated, trapping, extern, branching.
        assert!(!check_kernel(&kernel("@%p1 ld.acquire.gpu.b32 %r1, [%rd1];"), &e).is_empty());
        assert!(!check_kernel(&kernel("ld.acquire.gpu.b32 %r1, [%rd1];\ntrap;"), &e).is_empty());
        assert!(
            !check_kernel(
                &kernel(".extern .func f();\nld.acquire.gpu.b32 %r1, [%rd1];"),
                &e
            )
            .is_empty()
        );
        let k = kernel("@%p1 bra $L1;\nld.acquire.gpu.b32 %r1, [%rd1];\n$L1:\nret;");
        assert!(check_kernel(&k, &e)[0].contains("unexpected branch"));
    }

    #[test]
    fn cas_loop_structure_is_checked() {
        let e = exp(Target::Sm80, "store__bool__seq_cst__system");
        // No loop at all.
        let k = kernel(
            "fence.sc.sys;\nld.relaxed.sys.b32 %r1, [%rd1];\natom.relaxed.sys.cas.b32 %r2, [%rd1], %r1, %r3;",
        );
        assert!(
            check_kernel(&k, &e)
                .iter()
                .any(|p| p.contains("no CAS loop"))
        );
        // The loop re-runs the ld (label before it).
        let k = kernel(
            "fence.sc.sys;\n$L1:\nld.relaxed.sys.b32 %r1, [%rd1];\natom.relaxed.sys.cas.b32 %r2, [%rd1], %r1, %r3;\n@%p1 bra $L1;",
        );
        let p = check_kernel(&k, &e);
        assert!(
            p.iter().any(|p| p.contains("not the CAS loop's back edge")),
            "{p:?}"
        );
        // The loop re-runs the fence.
        let k = kernel(
            "$L1:\nfence.sc.sys;\nld.relaxed.sys.b32 %r1, [%rd1];\n$L2:\natom.relaxed.sys.cas.b32 %r2, [%rd1], %r1, %r3;\n@%p1 bra $L2;\n@%p2 bra $L1;",
        );
        assert!(!check_kernel(&k, &e).is_empty());
        // Unconditional back edge: an endless loop.
        let k = kernel(
            "fence.sc.sys;\nld.relaxed.sys.b32 %r1, [%rd1];\n$L2:\natom.relaxed.sys.cas.b32 %r2, [%rd1], %r1, %r3;\nbra.uni $L2;",
        );
        assert!(!check_kernel(&k, &e).is_empty());
        // Order of the fence inside the loop body is wrong: missing fence.
        let k = kernel(&BYTE_STORE.replace("fence.sc.sys;", ""));
        assert!(!check_kernel(&k, &e).is_empty());
    }

    #[test]
    fn snapshot_lines_rename() {
        let k = kernel(BYTE_CAS);
        assert_eq!(
            snapshot_lines(&k),
            [
                "ld.relaxed.gpu.b32 %r0, [%rd0]",
                "L0:",
                "atom.acq_rel.gpu.cas.b32 %r0, [%rd0], %r1, %r1",
                "@%p0 bra L1",
                "@%p1 bra L0",
                "L1:",
            ]
        );
    }
}
