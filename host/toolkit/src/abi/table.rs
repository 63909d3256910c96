//! The parsed Atomics ABI table: C++ orders, the table's operations and conditions, and its rows.

use crate::ptx::Target;
use std::collections::BTreeMap;

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
pub const ABI_TABLE: &str = include_str!("../../abi/ptx-atomics-abi.txt");

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
