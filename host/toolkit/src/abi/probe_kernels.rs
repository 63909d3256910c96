//! The probe kernels `gpu-kernels/build.rs` generates, enumerated from the same rules.

use super::{FLAG_OPS, Operation, Order, Scope, Space, Ty, Width};
use crate::ptx::Target;

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
    /// `<op>__<type>__<order>__<scope>`, then `__global` or `__shared` for a state-space form.
    pub name: String,
    pub op: ProbeOp,
    /// `None` for fences.
    pub ty: Option<Ty>,
    /// The order (the success order of a compare-exchange).
    pub order: Order,
    pub scope: Scope,
    /// The state space the atomic names.
    pub space: Space,
}

/// The probe kernels `gpu-kernels/build.rs` generates for `target`, in its order.
pub fn probes(target: Target) -> Vec<Probe> {
    let mut out = Vec::new();
    let orders = |op: Operation| op.orders().iter().copied();
    for (space, scope) in Space::ALL
        .into_iter()
        .flat_map(|space| Scope::of(target).map(move |scope| (space, scope)))
        .filter(|(space, scope)| space.probes_scope(*scope))
    {
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
                name: format!(
                    "{op_name}{ty_name}__{order_name}__{}{}",
                    scope.name(),
                    space.suffix()
                ),
                op,
                ty,
                order,
                scope,
                space,
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
        if space != Space::Generic {
            // `AtomicFlag` and fences have no state-space form.
            continue;
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
