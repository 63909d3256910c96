//! Generates the probe kernels: one `#[no_mangle]` kernel per (operation, type, ordering, scope),
//! named `<op>__<type>__<order>__<scope>`, with the atomic location as the first parameter.
//! The conformance test in `scoped-atomics-host` checks each one's PTX against the Atomics ABI table.

use std::fmt::Write as _;
use std::path::PathBuf;

const SCOPES: [(&str, &str); 5] = [
    ("thread", "Thread"),
    ("block", "Block"),
    ("cluster", "Cluster"),
    ("device", "Device"),
    ("system", "System"),
];
const LOAD_ORDERS: [&str; 3] = ["relaxed", "acquire", "seq_cst"];
const STORE_ORDERS: [&str; 3] = ["relaxed", "release", "seq_cst"];
const RMW_ORDERS: [&str; 5] = ["relaxed", "acquire", "release", "acq_rel", "seq_cst"];
const FAILURE_ORDERS: [&str; 3] = ["relaxed", "acquire", "seq_cst"];
const REDUCTION_ORDERS: [&str; 2] = ["relaxed", "release"];
const FENCE_ORDERS: [&str; 4] = ["acquire", "release", "acq_rel", "seq_cst"];

/// A value type: its Rust name, the name in kernel names, and its operations beyond the common ones.
struct Type {
    rust: &'static str,
    name: &'static str,
    rmw: &'static [&'static str],
    reductions: &'static [&'static str],
    /// 128 bits: its probes exist only on targets with the `.b128` instructions.
    wide: bool,
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

const fn int(rust: &'static str, reductions: bool) -> Type {
    Type {
        rust,
        name: rust,
        rmw: INT_RMW,
        reductions: if reductions { INT_REDUCTIONS } else { &[] },
        wide: false,
    }
}

/// A 128-bit integer: no reductions (PTX has no `red.b128`).
const fn int128(rust: &'static str) -> Type {
    Type {
        rust,
        name: rust,
        rmw: INT_RMW,
        reductions: &[],
        wide: true,
    }
}

const TYPES: [Type; 18] = [
    Type {
        rust: "bool",
        name: "bool",
        rmw: BOOL_RMW,
        reductions: &[],
        wide: false,
    },
    int("u8", false),
    int("i8", false),
    int("u16", false),
    int("i16", false),
    int("u32", true),
    int("i32", true),
    int("u64", true),
    int("i64", true),
    int("usize", true),
    int("isize", true),
    Type {
        rust: "f32",
        name: "f32",
        rmw: FLOAT_RMW,
        reductions: FLOAT_REDUCTIONS,
        wide: false,
    },
    Type {
        rust: "f64",
        name: "f64",
        rmw: FLOAT_RMW,
        reductions: FLOAT_REDUCTIONS,
        wide: false,
    },
    Type {
        rust: "scoped_atomics::f16",
        name: "f16",
        rmw: FLOAT_RMW,
        reductions: FLOAT_REDUCTIONS,
        wide: false,
    },
    Type {
        rust: "scoped_atomics::bf16",
        name: "bf16",
        rmw: FLOAT_RMW,
        reductions: FLOAT_REDUCTIONS,
        wide: false,
    },
    int128("u128"),
    int128("i128"),
    Type {
        rust: "*mut u32",
        name: "ptr",
        rmw: PTR_RMW,
        reductions: &[],
        wide: false,
    },
];

fn ordering(name: &str) -> &'static str {
    match name {
        "relaxed" => "Relaxed",
        "acquire" => "Acquire",
        "release" => "Release",
        "acq_rel" => "AcqRel",
        "seq_cst" => "SeqCst",
        _ => unreachable!("{name}"),
    }
}

/// The argument list a method takes after `self`, given the value parameter `v`.
fn arguments(op: &str, ty: &str) -> &'static str {
    match op {
        "load" | "fetch_not" => "",
        "fetch_ptr_add" | "fetch_ptr_sub" | "fetch_byte_add" | "fetch_byte_sub" => "n, ",
        "fetch_and" | "fetch_or" | "fetch_xor" if ty == "ptr" => "n, ",
        _ => "v, ",
    }
}

/// The state spaces of the probes: a generic address at every scope (`Atomic::from_ptr`), and
/// once more in global memory at device scope (`AtomicRef::from_global_ptr`, `__global`) and in
/// shared memory at block scope (`AtomicRef::from_shared_ptr`, `__shared`). The scope and space
/// qualifiers are independent parts of one instruction template, so one scope per space
/// exercises every template.
const SPACES: [(&str, &str); 3] = [("", ""), ("__global", "device"), ("__shared", "block")];

fn kernel(
    out: &mut String,
    scope: (&str, &str),
    space: &str,
    ty: &Type,
    op: &str,
    order: &str,
    call: &str,
) {
    let (scope_name, scope_type) = scope;
    let cfg = probe_cfg(scope_name, ty, op);
    let name = format!("{op}__{}__{order}__{scope_name}{space}", ty.name);
    let body = match space {
        "" => format!(
            "// SAFETY: the launcher passes a valid, aligned location.\n    \
             let a = unsafe {{ Atomic::<{rust}, {scope_type}>::from_ptr(p) }};\n    \
             let _ = a.{call};",
            rust = ty.rust
        ),
        "__global" => format!(
            "// SAFETY: the launcher passes a valid, aligned location in global memory.\n    \
             let a = unsafe {{ AtomicRef::<{rust}, {scope_type}>::from_global_ptr(p) }};\n    \
             let _ = a.{call};",
            rust = ty.rust
        ),
        // The location's 16-byte cell, copied into shared memory and back around the operation
        // with the plain state-space accesses (`ld.global`/`st.shared` and back, which the
        // conformance check leaves out), so that the launcher sees its effect, sub-word
        // neighbours included.
        "__shared" => format!(
            "let cell = scoped_atomics::block_shared!(CELL: [u128; 1]).cast::<u64>();\n    \
             let offset = p.addr() & 15;\n    \
             let buffer = p.cast::<u8>().wrapping_sub(offset).cast::<u64>();\n    \
             // SAFETY: the launcher passes a location in a 16-byte aligned buffer of 16 bytes in\n    \
             // global memory; one thread runs the probe.\n    \
             unsafe {{\n        \
                 scoped_atomics::plain::write_shared(cell, scoped_atomics::plain::read_global(buffer));\n        \
                 scoped_atomics::plain::write_shared(cell.add(1), scoped_atomics::plain::read_global(buffer.add(1)));\n    \
             }}\n    \
             // SAFETY: the location's copy in the block's shared memory, aligned as the original.\n    \
             let a = unsafe {{ AtomicRef::<{rust}, {scope_type}>::from_shared_ptr(cell.cast::<u8>().add(offset).cast()) }};\n    \
             let _ = a.{call};\n    \
             // SAFETY: as above.\n    \
             unsafe {{\n        \
                 scoped_atomics::plain::write_global(buffer, scoped_atomics::plain::read_shared(cell));\n        \
                 scoped_atomics::plain::write_global(buffer.add(1), scoped_atomics::plain::read_shared(cell.add(1)));\n    \
             }}",
            rust = ty.rust
        ),
        _ => unreachable!("{space}"),
    };
    writeln!(
        out,
        "{cfg}#[unsafe(no_mangle)]\npub unsafe extern \"ptx-kernel\" fn {name}(p: *mut {rust}, v: {rust}, w: {rust}, n: usize) {{\n    \
         let _ = (v, w, n);\n    \
         {body}\n}}\n",
        rust = ty.rust,
    )
    .unwrap();
}

/// The `#[cfg]` of a probe: the target features its instructions need. `.cluster` needs sm_90;
/// 128-bit `ld`/`st` PTX ISA 8.3, 128-bit `atom` sm_90 with PTX ISA 8.3, and `.b128` at `.sys`
/// PTX ISA 8.4 (the device backend stops a build without them at compile time).
fn probe_cfg(scope_name: &str, ty: &Type, op: &str) -> String {
    let mut features = Vec::new();
    if scope_name == "cluster" {
        features.push("sm_90");
    }
    if ty.wide {
        if !matches!(op, "load" | "store") && !features.contains(&"sm_90") {
            features.push("sm_90");
        }
        features.push(if scope_name == "system" {
            "ptx84"
        } else {
            "ptx83"
        });
    }
    match features.as_slice() {
        [] => String::new(),
        [one] => format!("#[cfg(target_feature = \"{one}\")]\n"),
        many => {
            let all: Vec<String> = many
                .iter()
                .map(|f| format!("target_feature = \"{f}\""))
                .collect();
            format!("#[cfg(all({}))]\n", all.join(", "))
        }
    }
}

/// `AtomicFlag`'s operations, named `<op>__flag__<order>__<scope>`: `test` (a load), `clear` (a
/// store) and `test_and_set` (a swap) of the flag's 32-bit word.
fn flag_kernels(out: &mut String, scope: (&str, &str)) {
    let (scope_name, scope_type) = scope;
    let cfg = if scope_name == "cluster" {
        "#[cfg(target_feature = \"sm_90\")]\n"
    } else {
        ""
    };
    let operations: [(&str, &[&str], &str); 3] = [
        ("test", &LOAD_ORDERS, "test"),
        ("clear", &STORE_ORDERS, "clear"),
        ("test_and_set", &RMW_ORDERS, "test_and_set"),
    ];
    for (op, orders, method) in operations {
        for &order in orders {
            writeln!(
                out,
                "{cfg}#[unsafe(no_mangle)]\npub unsafe extern \"ptx-kernel\" fn {op}__flag__{order}__{scope_name}(p: *mut u32) {{\n    \
                 // SAFETY: the launcher passes a valid, aligned word; `AtomicFlag` is `repr(transparent)` over it.\n    \
                 let f = unsafe {{ &*p.cast::<scoped_atomics::AtomicFlag<{scope_type}>>() }};\n    \
                 let _ = f.{method}(Ordering::{});\n}}\n",
                ordering(order)
            )
            .unwrap();
        }
    }
}

/// The synchronisation primitives, one kernel per operation and scope, named
/// `sync_<primitive>_<operation>_<scope>` (single underscores: not probe names), with the
/// primitive as the first parameter. They are assembled and snapshotted with the probes.
fn sync_kernels(out: &mut String) {
    // A block barrier in shared memory, initialised in place: the hardware `mbarrier` on sm_80+.
    out.push_str(
        "#[unsafe(no_mangle)]\npub unsafe extern \"ptx-kernel\" fn sync_barrier_shared_block() {\n    \
         use scoped_atomics::kernel::{block_dim, sync_threads, thread_idx};\n    \
         let place = scoped_atomics::block_shared!(BARRIER: [scoped_atomics::Barrier<Block>; 1]).cast::<scoped_atomics::Barrier<Block>>();\n    \
         if thread_idx().x == 0 {\n        \
         // SAFETY: shared memory of the block, used only after the `sync_threads` below.\n        \
         unsafe { scoped_atomics::Barrier::init_in_place(place, block_dim().x) };\n    }\n    \
         sync_threads();\n    \
         // SAFETY: initialised above, before the block-wide barrier.\n    \
         let barrier = unsafe { &*place };\n    \
         barrier.arrive_and_wait();\n    \
         let token = barrier.arrive();\n    \
         barrier.wait(token);\n}\n\n",
    );
    // Issue 14: the hardware forms of the non-blocking, timed and parity waits (the hardware
    // barrier needs PTX ISA 7.1 on sm_80; at 7.0 a block barrier is the generic one).
    out.push_str(
        "#[unsafe(no_mangle)]\npub unsafe extern \"ptx-kernel\" fn sync_barrier_shared_timed_block() {\n    \
         use core::time::Duration;\n    \
         use scoped_atomics::kernel::{block_dim, sync_threads, thread_idx};\n    \
         let place = scoped_atomics::block_shared!(TIMED: [scoped_atomics::Barrier<Block>; 1]).cast::<scoped_atomics::Barrier<Block>>();\n    \
         if thread_idx().x == 0 {\n        \
         // SAFETY: shared memory of the block, used only after the `sync_threads` below.\n        \
         unsafe { scoped_atomics::Barrier::init_in_place(place, block_dim().x) };\n    }\n    \
         sync_threads();\n    \
         // SAFETY: initialised above, before the block-wide barrier.\n    \
         let barrier = unsafe { &*place };\n    \
         let token = barrier.arrive();\n    \
         if !barrier.try_wait(&token)\n        \
         && !barrier.try_wait_for(&token, Duration::from_micros(10))\n        \
         && !barrier.try_wait_until(&token, scoped_atomics::time::Instant::now() + Duration::from_micros(10))\n    {\n        \
         barrier.wait(token);\n    }\n    \
         let _ = barrier.arrive();\n    \
         #[cfg(any(target_feature = \"ptx71\", target_feature = \"sm_90\"))]\n    \
         if !barrier.try_wait_parity(true) && !barrier.try_wait_parity_for(true, Duration::from_micros(10)) {\n        \
         barrier.wait_parity(true);\n    }\n}\n\n",
    );
    const OPERATIONS: [(&str, &str, &str); 15] = [
        ("barrier_arrive_wait", "Barrier<{S}>", "b.arrive_and_wait()"),
        ("barrier_arrive_drop", "Barrier<{S}>", "b.arrive_and_drop()"),
        ("latch_arrive_wait", "Latch<{S}>", "b.arrive_and_wait(1)"),
        (
            "semaphore_acquire_release",
            "CountingSemaphore<{S}, 4>",
            "{ b.acquire(); b.release(1) }",
        ),
        (
            "semaphore_try_acquire_for",
            "CountingSemaphore<{S}, 4>",
            "if b.try_acquire_for(core::time::Duration::from_micros(10)) { b.release(1) }",
        ),
        (
            "atomic_wait",
            "Atomic<u32, {S}>",
            "b.wait(0, Ordering::Acquire)",
        ),
        (
            "atomic_store_notify",
            "Atomic<u32, {S}>",
            "{ b.store(1, Ordering::Release); b.notify_all() }",
        ),
        // Issue 14: the non-blocking, timed and parity waits.
        (
            "barrier_try_wait",
            "Barrier<{S}>",
            "{ let t = b.arrive(); while !b.try_wait(&t) {} }",
        ),
        (
            "barrier_try_wait_for",
            "Barrier<{S}>",
            "{ let t = b.arrive(); if !b.try_wait_for(&t, core::time::Duration::from_micros(10)) { b.wait(t) } }",
        ),
        (
            "barrier_wait_parity",
            "Barrier<{S}>",
            "b.wait_parity(false)",
        ),
        (
            "barrier_try_wait_parity_for",
            "Barrier<{S}>",
            "let _ = b.try_wait_parity_for(true, core::time::Duration::from_micros(10))",
        ),
        (
            "semaphore_try_acquire_until",
            "CountingSemaphore<{S}, 4>",
            "if b.try_acquire_until(scoped_atomics::time::Instant::now() + core::time::Duration::from_micros(10)) { b.release(1) }",
        ),
        (
            "atomic_wait_for",
            "Atomic<u32, {S}>",
            "let _ = b.wait_for(0, Ordering::Acquire, core::time::Duration::from_micros(10))",
        ),
        (
            "atomic_wait_until",
            "Atomic<u32, {S}>",
            "let _ = b.wait_until(0, Ordering::Acquire, scoped_atomics::time::Instant::now() + core::time::Duration::from_micros(10))",
        ),
        (
            "flag_wait_for",
            "AtomicFlag<{S}>",
            "let _ = b.wait_for(false, Ordering::Acquire, core::time::Duration::from_micros(10))",
        ),
    ];
    for (scope_name, scope_type) in SCOPES {
        if scope_name == "thread" {
            continue;
        }
        for (operation, primitive, body) in OPERATIONS {
            // At cluster scope (sm_90 only), the three the simulator runs in a cluster launch.
            let cluster = scope_name == "cluster";
            if cluster
                && !matches!(
                    operation,
                    "barrier_arrive_wait" | "latch_arrive_wait" | "semaphore_acquire_release"
                )
            {
                continue;
            }
            if cluster {
                out.push_str("#[cfg(target_feature = \"sm_90\")]\n");
            }
            let primitive = primitive.replace("{S}", scope_type);
            writeln!(
                out,
                "#[unsafe(no_mangle)]\npub unsafe extern \"ptx-kernel\" fn sync_{operation}_{scope_name}(b: *const scoped_atomics::{primitive}) {{\n    \
                 // SAFETY: the launcher passes a live primitive.\n    \
                 let b = unsafe {{ &*b }};\n    \
                 {body};\n}}\n"
            )
            .unwrap();
        }
    }
}

fn main() {
    let mut out = String::from("// Generated by build.rs: the probe kernels.\n\n");
    for (space, scope) in SPACES.into_iter().flat_map(|(space, only)| {
        SCOPES
            .into_iter()
            .filter(move |(name, _)| only.is_empty() || *name == only)
            .map(move |scope| (space, scope))
    }) {
        for ty in &TYPES {
            for order in LOAD_ORDERS {
                kernel(
                    &mut out,
                    scope,
                    space,
                    ty,
                    "load",
                    order,
                    &format!("load(Ordering::{})", ordering(order)),
                );
            }
            for order in STORE_ORDERS {
                kernel(
                    &mut out,
                    scope,
                    space,
                    ty,
                    "store",
                    order,
                    &format!("store(v, Ordering::{})", ordering(order)),
                );
            }
            for op in ["swap"].iter().chain(ty.rmw) {
                for order in RMW_ORDERS {
                    let call = format!(
                        "{op}({}Ordering::{})",
                        arguments(op, ty.name),
                        ordering(order)
                    );
                    kernel(&mut out, scope, space, ty, op, order, &call);
                }
            }
            for success in RMW_ORDERS {
                for failure in FAILURE_ORDERS {
                    let call = format!(
                        "compare_exchange(v, w, Ordering::{}, Ordering::{})",
                        ordering(success),
                        ordering(failure)
                    );
                    let order = format!("{success}_{failure}");
                    kernel(
                        &mut out,
                        scope,
                        space,
                        ty,
                        "compare_exchange",
                        &order,
                        &call,
                    );
                }
            }
            for op in ty.reductions {
                for order in REDUCTION_ORDERS {
                    let call = format!("{op}(v, Ordering::{})", ordering(order));
                    kernel(&mut out, scope, space, ty, op, order, &call);
                }
            }
        }
        if !space.is_empty() {
            // `AtomicFlag` and fences have no state-space form.
            continue;
        }
        flag_kernels(&mut out, scope);
        let (scope_name, scope_type) = scope;
        let cfg = if scope_name == "cluster" {
            "#[cfg(target_feature = \"sm_90\")]\n"
        } else {
            ""
        };
        for order in FENCE_ORDERS {
            writeln!(
                out,
                "{cfg}#[unsafe(no_mangle)]\npub unsafe extern \"ptx-kernel\" fn fence__{order}__{scope_name}() {{\n    \
                 scoped_atomics::fence::<{scope_type}>(Ordering::{});\n}}\n",
                ordering(order)
            )
            .unwrap();
        }
    }
    sync_kernels(&mut out);
    let path = PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("probes.rs");
    std::fs::write(path, out).unwrap();
    println!("cargo::rerun-if-changed=build.rs");
}
