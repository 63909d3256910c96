//! The cases of the model: value types, scopes, operations, orderings and each case's kernel name.

/// A value type of the model: the name in kernel names and the C++ type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ty {
    pub name: &'static str,
    pub cpp: &'static str,
}

/// The value types of the model.
pub const TYPES: [Ty; 6] = [
    Ty {
        name: "u32",
        cpp: "unsigned int",
    },
    Ty {
        name: "u64",
        cpp: "unsigned long long",
    },
    Ty {
        name: "f32",
        cpp: "float",
    },
    Ty {
        name: "i16",
        cpp: "short",
    },
    Ty {
        name: "u16",
        cpp: "unsigned short",
    },
    Ty {
        name: "u8",
        cpp: "unsigned char",
    },
];

/// The scopes of the model (our name, libcu++'s).
pub const SCOPES: [(&str, &str); 3] = [
    ("block", "cuda::thread_scope_block"),
    ("device", "cuda::thread_scope_device"),
    ("system", "cuda::thread_scope_system"),
];

/// The operations of the model, by our probe name (`swap` is C++'s `exchange`).
pub const OPS: [&str; 6] = [
    "load",
    "store",
    "fetch_add",
    "compare_exchange",
    "swap",
    "fetch_min",
];

const LOAD_ORDERS: [&str; 3] = ["relaxed", "acquire", "seq_cst"];
const STORE_ORDERS: [&str; 3] = ["relaxed", "release", "seq_cst"];
const RMW_ORDERS: [&str; 5] = ["relaxed", "acquire", "release", "acq_rel", "seq_cst"];
const FENCE_ORDERS: [&str; 4] = ["acquire", "release", "acq_rel", "seq_cst"];

/// What a case is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// An operation on an atomic of type `ty`.
    Op { op: &'static str, ty: Ty },
    /// `atomic_thread_fence`.
    Fence,
}

/// One case: a kernel name shared by both sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// `<op>__<type>__<order>__<scope>` (`fence__<order>__<scope>`); for compare-exchange the
    /// order is `<success>_<failure>`.
    pub name: String,
    pub kind: Kind,
    /// The (success) ordering.
    pub order: &'static str,
    /// The failure ordering of a compare-exchange.
    pub failure: Option<&'static str>,
    pub scope: &'static str,
}

impl Case {
    /// `load`, `fetch_add`, ..., `fence`.
    pub fn op(&self) -> &'static str {
        match self.kind {
            Kind::Op { op, .. } => op,
            Kind::Fence => "fence",
        }
    }

    /// The type name, or `—` for a fence.
    pub fn ty(&self) -> &'static str {
        match self.kind {
            Kind::Op { ty, .. } => ty.name,
            Kind::Fence => "—",
        }
    }

    /// `acq_rel` or, for a compare-exchange, `acq_rel/acquire`.
    pub fn order_label(&self) -> String {
        match self.failure {
            Some(f) => format!("{}/{f}", self.order),
            None => self.order.to_string(),
        }
    }
}

/// The failure ordering C++ derives from a single compare-exchange ordering (and that our probe
/// of the same success ordering uses in this model).
pub fn derived_failure(order: &str) -> &'static str {
    match order {
        "acquire" | "acq_rel" => "acquire",
        "seq_cst" => "seq_cst",
        _ => "relaxed",
    }
}

/// Every case of the model, fences last.
pub fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (scope, _) in SCOPES {
        for ty in TYPES {
            for op in OPS {
                let orders: &[&'static str] = match op {
                    "load" => &LOAD_ORDERS,
                    "store" => &STORE_ORDERS,
                    _ => &RMW_ORDERS,
                };
                for &order in orders {
                    let failure = (op == "compare_exchange").then(|| derived_failure(order));
                    let order_name = match failure {
                        Some(f) => format!("{order}_{f}"),
                        None => order.to_string(),
                    };
                    cases.push(Case {
                        name: format!("{op}__{}__{order_name}__{scope}", ty.name),
                        kind: Kind::Op { op, ty },
                        order,
                        failure,
                        scope,
                    });
                }
            }
        }
    }
    for (scope, _) in SCOPES {
        for order in FENCE_ORDERS {
            cases.push(Case {
                name: format!("fence__{order}__{scope}"),
                kind: Kind::Fence,
                order,
                failure: None,
                scope,
            });
        }
    }
    cases
}
