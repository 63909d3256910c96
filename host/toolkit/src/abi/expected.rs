//! What a probe must emit: the table row realised per value type (the module's realisation rules).

use super::{AbiTable, FLAG_OPS, Operation, Order, Probe, ProbeOp, Row, Scope, Space, Ty, Width};
use crate::ptx::Target;
use std::fmt;

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
    /// A `__shared` probe copies its 16-byte cell from the argument into shared memory before
    /// the operation and back after it, with plain `ld`/`st` (no `.sem`): those copies are not
    /// part of the sequence checked.
    pub copies: bool,
}

/// Where a probe's instructions are: its scope and its state space.
#[derive(Clone, Copy)]
struct At {
    scope: Scope,
    space: Space,
}

impl At {
    /// The qualifiers of a memory instruction: the scope's, then the space's (`gpu.global`).
    fn memory(self) -> String {
        format!("{}{}", self.scope.qualifier(), self.space.qualifier())
    }
}

/// A template of the table at `at`: `{S}` is the scope qualifier, followed by the space's for a
/// memory instruction (a fence has no state space).
fn instantiate(template: &str, at: At) -> String {
    if template.starts_with("fence") {
        template.replace("{S}", at.scope.qualifier())
    } else {
        template.replace("{S}", &at.memory())
    }
}

/// The row's instructions, the last completed with `.<suffix>` (`ld.acquire.gpu` + `b32`).
fn single(row: &Row, scope: At, suffix: &str) -> Expected {
    let mut instructions: Vec<String> =
        row.sequence.iter().map(|t| instantiate(t, scope)).collect();
    if let Some(last) = instructions.last_mut() {
        *last = format!("{last}.{suffix}");
    }
    Expected {
        instructions,
        cas_loop: None,
        copies: false,
    }
}

/// The row's prefix, `ld.relaxed.S.bN`, and `atom.<sem>.S.cas.bN` in a loop.
fn cas_loop(row: &Row, scope: At, width: Width, reason: LoopReason) -> Expected {
    let s = scope.memory();
    let bits = width.bits();
    let mut instructions: Vec<String> =
        row.prefix().iter().map(|t| instantiate(t, scope)).collect();
    instructions.push(format!("ld.relaxed.{s}.{bits}"));
    instructions.push(format!("atom.{}.{s}.cas.{bits}", row.sem()));
    Expected {
        instructions,
        cas_loop: Some(reason),
        copies: false,
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
    Expected {
        copies: probe.space == Space::Shared,
        ..realised(probe, table, target)
    }
}

/// [`expected`] without the cell copies.
fn realised(probe: &Probe, table: &AbiTable, target: Target) -> Expected {
    let scope = At {
        scope: probe.scope,
        space: probe.space,
    };
    let row = |op: Operation, order: Order| table.row(op, order, target);
    let Some(ty) = probe.ty else {
        // A fence.
        if probe.scope == Scope::Thread {
            return Expected {
                instructions: vec![],
                cas_loop: None,
                copies: false,
            };
        }
        let row = row(Operation::Fence, probe.order);
        return Expected {
            instructions: row.sequence.iter().map(|t| instantiate(t, scope)).collect(),
            cas_loop: None,
            copies: false,
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
