//! Every probe kernel (operation × type × ordering × scope, and every fence) of every
//! configuration (sm_70, sm_80, sm_90, sm_90 + PTX 8.6) executed by the PTX simulator with
//! random operands, the atomic location inside a 16-byte buffer of random bytes at a random
//! aligned offset; the final buffer must equal what the host backend (`scoped_atomics` on host
//! memory) leaves after the same operation — sub-word neighbours untouched, floats bit for bit
//! (a NaN result only as a NaN: its sign and payload are unspecified on both sides).
//!
//! With a CUDA driver, the sm_70 cases also run on the GPU (`gpu::run_probes`) and the three
//! results are compared; without one, the test prints that this step was skipped.
//!
//! Every other kernel of each module (examples, primitives) must decode too: no instruction the
//! project emits is unknown to the simulator.
//!
//! The probes discard the operation's result (`let _ = a.op(..)`), so the returned value is not
//! observable in their memory; the final memory is.

mod sim_support;

use scoped_atomics::{Atomic, Ordering, System};
use scoped_atomics_host::conformance::is_probe_name;
use scoped_atomics_host::gpu;
use scoped_atomics_host::ptx::Target;
use scoped_atomics_host::sim::{Arg, Launch};
use sim_support::{Rng, simulator};

const RMW_ORDERS: [&str; 5] = ["relaxed", "acquire", "release", "acq_rel", "seq_cst"];
const FAILURE_ORDERS: [&str; 3] = ["relaxed", "acquire", "seq_cst"];

fn ordering(name: &str) -> Ordering {
    match name {
        "relaxed" => Ordering::Relaxed,
        "acquire" => Ordering::Acquire,
        "release" => Ordering::Release,
        "acq_rel" => Ordering::AcqRel,
        "seq_cst" => Ordering::SeqCst,
        _ => panic!("unknown ordering {name}"),
    }
}

/// (success, failure) orderings of a probe's ordering part.
fn orders(op: &str, order: &str) -> (Ordering, Ordering) {
    if op == "compare_exchange" {
        for s in RMW_ORDERS {
            for f in FAILURE_ORDERS {
                if order == format!("{s}_{f}") {
                    return (ordering(s), ordering(f));
                }
            }
        }
        panic!("unknown compare_exchange ordering {order}");
    }
    (ordering(order), Ordering::Relaxed)
}

/// Size in bytes of a probe type.
fn size_of(ty: &str) -> usize {
    match ty {
        "bool" | "u8" | "i8" => 1,
        "u16" | "i16" | "f16" | "bf16" => 2,
        "u32" | "i32" | "f32" | "flag" => 4,
        "u128" | "i128" => 16,
        _ => 8,
    }
}

macro_rules! int_op {
    ($t:ty, $a:expr, $op:expr, $v:expr, $w:expr, $s:expr, $f:expr) => {{
        let (a, v, w, s) = ($a, $v as $t, $w as $t, $s);
        match $op {
            "load" => drop(a.load(s)),
            "store" => a.store(v, s),
            "swap" => drop(a.swap(v, s)),
            "compare_exchange" => drop(a.compare_exchange(v, w, s, $f)),
            "fetch_add" => drop(a.fetch_add(v, s)),
            "fetch_sub" => drop(a.fetch_sub(v, s)),
            "fetch_and" => drop(a.fetch_and(v, s)),
            "fetch_nand" => drop(a.fetch_nand(v, s)),
            "fetch_or" => drop(a.fetch_or(v, s)),
            "fetch_xor" => drop(a.fetch_xor(v, s)),
            "fetch_min" => drop(a.fetch_min(v, s)),
            "fetch_max" => drop(a.fetch_max(v, s)),
            other => return Err(other.to_string()),
        }
        Ok(())
    }};
}

macro_rules! reduction {
    ($a:expr, $op:expr, $v:expr, $s:expr) => {{
        match $op {
            "add" => $a.add($v, $s),
            "sub" => $a.sub($v, $s),
            "and" => $a.and($v, $s),
            "or" => $a.or($v, $s),
            "xor" => $a.xor($v, $s),
            "min" => $a.min($v, $s),
            "max" => $a.max($v, $s),
            other => return Err(other.to_string()),
        }
        Ok(())
    }};
}

macro_rules! int_type {
    ($t:ty, $mem:expr, $op:expr, $v:expr, $w:expr, $s:expr, $f:expr) => {{
        // SAFETY: `mem` is 8-byte aligned, the offset aligned to the type and in bounds.
        let a = unsafe { Atomic::<$t, System>::from_ptr($mem.cast()) };
        int_op!($t, a, $op, $v, $w, $s, $f)
    }};
}

/// Types of 32 bits and more also have the reductions.
macro_rules! int_red_type {
    ($t:ty, $mem:expr, $op:expr, $v:expr, $w:expr, $s:expr, $f:expr) => {{
        // SAFETY: as above.
        let a = unsafe { Atomic::<$t, System>::from_ptr($mem.cast()) };
        if matches!($op, "add" | "sub" | "and" | "or" | "xor" | "min" | "max") {
            reduction!(a, $op, $v as $t, $s)
        } else {
            int_op!($t, a, $op, $v, $w, $s, $f)
        }
    }};
}

macro_rules! float_type {
    ($t:ty, $bits:ty, $mem:expr, $op:expr, $v:expr, $w:expr, $s:expr, $f:expr) => {{
        // SAFETY: as above.
        let a = unsafe { Atomic::<$t, System>::from_ptr($mem.cast()) };
        let (v, w) = (<$t>::from_bits($v as $bits), <$t>::from_bits($w as $bits));
        match $op {
            "load" => drop(a.load($s)),
            "store" => a.store(v, $s),
            "swap" => drop(a.swap(v, $s)),
            "compare_exchange" => drop(a.compare_exchange(v, w, $s, $f)),
            "fetch_add" => drop(a.fetch_add(v, $s)),
            "fetch_sub" => drop(a.fetch_sub(v, $s)),
            "fetch_min" => drop(a.fetch_min(v, $s)),
            "fetch_max" => drop(a.fetch_max(v, $s)),
            "add" => a.add(v, $s),
            "sub" => a.sub(v, $s),
            other => return Err(other.to_string()),
        }
        Ok(())
    }};
}

/// The host backend's effect of `op` on the 128-bit location at `mem` (`portable-atomic` on the
/// host), run on a 16-byte aligned copy.
fn reference_wide(
    ty: &str,
    op: &str,
    mem: *mut u8,
    v: u128,
    w: u128,
    (s, f): (Ordering, Ordering),
) -> Result<(), String> {
    #[repr(align(16))]
    struct Cell([u8; 16]);
    let mut cell = Cell([0; 16]);
    // SAFETY: `mem` holds 16 readable and writable bytes (the buffer is 16 bytes, offset 0).
    unsafe { std::ptr::copy_nonoverlapping(mem, cell.0.as_mut_ptr(), 16) };
    let p = cell.0.as_mut_ptr();
    let result = (|| match ty {
        "u128" => int_type!(u128, p, op, v, w, s, f),
        "i128" => int_type!(i128, p, op, v, w, s, f),
        other => Err(format!("type {other}")),
    })();
    // SAFETY: as above.
    unsafe { std::ptr::copy_nonoverlapping(cell.0.as_ptr(), mem, 16) };
    result
}

/// The host backend's effect of `op` on the location at `mem`.
fn reference(
    ty: &str,
    op: &str,
    mem: *mut u8,
    v: u64,
    w: u64,
    n: u64,
    (s, f): (Ordering, Ordering),
) -> Result<(), String> {
    match ty {
        "u8" => int_type!(u8, mem, op, v, w, s, f),
        "i8" => int_type!(i8, mem, op, v, w, s, f),
        "u16" => int_type!(u16, mem, op, v, w, s, f),
        "i16" => int_type!(i16, mem, op, v, w, s, f),
        "u32" => int_red_type!(u32, mem, op, v, w, s, f),
        "i32" => int_red_type!(i32, mem, op, v, w, s, f),
        "u64" => int_red_type!(u64, mem, op, v, w, s, f),
        "i64" => int_red_type!(i64, mem, op, v, w, s, f),
        "usize" => int_red_type!(usize, mem, op, v, w, s, f),
        "isize" => int_red_type!(isize, mem, op, v, w, s, f),
        "f32" => float_type!(f32, u32, mem, op, v, w, s, f),
        "f64" => float_type!(f64, u64, mem, op, v, w, s, f),
        "f16" => float_type!(scoped_atomics::f16, u16, mem, op, v, w, s, f),
        "bf16" => float_type!(scoped_atomics::bf16, u16, mem, op, v, w, s, f),
        "flag" => {
            // SAFETY: as above; `AtomicFlag` is `repr(transparent)` over its 32-bit word.
            let a = unsafe { &*mem.cast::<scoped_atomics::AtomicFlag<System>>() };
            match op {
                "test" => drop(a.test(s)),
                "clear" => a.clear(s),
                "test_and_set" => drop(a.test_and_set(s)),
                other => return Err(other.to_string()),
            }
            Ok(())
        }
        "bool" => {
            // SAFETY: as above; the byte holds 0 or 1.
            let a = unsafe { Atomic::<bool, System>::from_ptr(mem.cast()) };
            let (v, w) = (v & 1 == 1, w & 1 == 1);
            match op {
                "load" => drop(a.load(s)),
                "store" => a.store(v, s),
                "swap" => drop(a.swap(v, s)),
                "compare_exchange" => drop(a.compare_exchange(v, w, s, f)),
                "fetch_and" => drop(a.fetch_and(v, s)),
                "fetch_nand" => drop(a.fetch_nand(v, s)),
                "fetch_or" => drop(a.fetch_or(v, s)),
                "fetch_xor" => drop(a.fetch_xor(v, s)),
                "fetch_not" => drop(a.fetch_not(s)),
                other => return Err(other.to_string()),
            }
            Ok(())
        }
        "ptr" => {
            // SAFETY: as above; the pointer is never dereferenced.
            let a = unsafe { Atomic::<*mut u32, System>::from_ptr(mem.cast()) };
            let (v, w) = (v as usize as *mut u32, w as usize as *mut u32);
            let n = n as usize;
            match op {
                "load" => drop(a.load(s)),
                "store" => a.store(v, s),
                "swap" => drop(a.swap(v, s)),
                "compare_exchange" => drop(a.compare_exchange(v, w, s, f)),
                "fetch_ptr_add" => drop(a.fetch_ptr_add(n, s)),
                "fetch_ptr_sub" => drop(a.fetch_ptr_sub(n, s)),
                "fetch_byte_add" => drop(a.fetch_byte_add(n, s)),
                "fetch_byte_sub" => drop(a.fetch_byte_sub(n, s)),
                "fetch_and" => drop(a.fetch_and(n, s)),
                "fetch_or" => drop(a.fetch_or(n, s)),
                "fetch_xor" => drop(a.fetch_xor(n, s)),
                other => return Err(other.to_string()),
            }
            Ok(())
        }
        other => Err(format!("type {other}")),
    }
}

/// The probe launches of one configuration with the host backend's memory after each.
type Cases = Vec<(gpu::ProbeCase, [u8; 16])>;

/// Runs every probe of `target`; returns (probes run, failures, the cases for the GPU).
fn run_target(target: Target, seed: u64) -> Option<(usize, Vec<String>, Cases)> {
    let sim = simulator("sim_probes", target)?;
    let mut cases = Cases::new();
    let mut rng = Rng(seed);
    let mut failures = Vec::new();
    let mut count = 0;
    // Every kernel of the module decodes: every instruction the project emits is executable.
    for name in sim.kernels().filter(|k| !is_probe_name(k)) {
        if let Err(e) = sim.kernel(name) {
            failures.push(format!("{target} {name}: {e}"));
        }
    }
    let names: Vec<String> = sim
        .kernels()
        .filter(|k| is_probe_name(k))
        .map(str::to_string)
        .collect();
    for name in names {
        let kernel = match sim.kernel(&name) {
            Ok(k) => k,
            Err(e) => {
                failures.push(format!("{target} {name}: {e}"));
                continue;
            }
        };
        count += 1;
        let parts: Vec<&str> = name.split("__").collect();
        if parts[0] == "fence" {
            let out = kernel
                .launch(&Launch::new([1; 3], [1; 3], Vec::new()), Vec::new())
                .unwrap();
            if !out.completed {
                failures.push(format!("{target} {name}: {:?}", out.findings));
            }
            continue;
        }
        let (op, ty, order) = (parts[0], parts[1], parts[2]);
        let size = size_of(ty);
        let slot = rng.next() as usize;
        // A 128-bit location is the whole 16-byte buffer.
        let off = if size == 16 {
            0
        } else {
            (slot % (8 / size)) * size
        };
        let mut init = [rng.next(), rng.next()];
        let mut v = rng.next();
        let mut w = rng.next();
        let n = rng.next() % 4096;
        // The high halves of 128-bit operands.
        let (mut v_hi, w_hi) = if size == 16 {
            (rng.next(), rng.next())
        } else {
            (0, 0)
        };
        if ty == "bool" {
            // A bool location holds 0 or 1; its word's other bytes stay random.
            let bytes: &mut [u8; 16] = bytemuck_mut(&mut init);
            bytes[off] &= 1;
            v &= 1;
            w &= 1;
        }
        if op == "compare_exchange" && rng.next().is_multiple_of(2) {
            // Half the time the expected value matches: the success path.
            if size == 16 {
                (v, v_hi) = (init[0], init[1]);
            } else {
                let bytes: &[u8; 16] = bytemuck_ref(&init);
                let mut cur = [0u8; 8];
                cur[..size].copy_from_slice(&bytes[off..off + size]);
                v = u64::from_le_bytes(cur);
            }
        }
        let wide = |lo: u64, hi: u64| (u128::from(hi) << 64) | u128::from(lo);
        if size < 8 {
            w &= (1u64 << (size * 8)) - 1;
            v &= (1u64 << (size * 8)) - 1;
        }
        let mut expected = init;
        let orders = orders(op, order);
        // SAFETY: `expected` is 16 aligned bytes; `off` is in bounds and aligned to `size`.
        let at = unsafe { expected.as_mut_ptr().cast::<u8>().add(off) };
        let result = if size == 16 {
            reference_wide(ty, op, at, wide(v, v_hi), wide(w, w_hi), orders)
        } else {
            reference(ty, op, at, v, w, n, orders)
        };
        if let Err(what) = result {
            failures.push(format!(
                "{target} {name}: the test has no reference for {what}"
            ));
            continue;
        }
        let value = |x: u64, hi: u64| match size {
            1 => Arg::U8(x as u8),
            2 => Arg::U16(x as u16),
            4 => Arg::U32(x as u32),
            16 => Arg::U128(wide(x, hi)),
            _ => Arg::U64(x),
        };
        // An `AtomicFlag` probe takes only the flag's address.
        let args = if ty == "flag" {
            vec![Arg::Ptr(0, off as u64)]
        } else {
            vec![
                Arg::Ptr(0, off as u64),
                value(v, v_hi),
                value(w, w_hi),
                Arg::U64(n),
            ]
        };
        let mut launch = Launch::new([1; 3], [1; 3], args);
        launch.buffers = vec![bytemuck_ref(&init).to_vec()];
        launch.seed = seed;
        let out = match kernel.launch(&launch, Vec::new()) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{target} {name}: {e}"));
                continue;
            }
        };
        cases.push((
            gpu::ProbeCase {
                kernel: name.clone(),
                memory: *bytemuck_ref(&init),
                offset: off,
                size,
                v,
                w,
                n,
            },
            *bytemuck_ref(&expected),
        ));
        let got = &out.buffers[0];
        let same = got.as_slice() == bytemuck_ref(&expected)
            || same_nan(ty, got, bytemuck_ref(&expected), off);
        if !out.completed || !same {
            failures.push(format!(
                "{target} {name}: offset {off}, init {:02x?}, v {v:#x} (high {v_hi:#x}), w {w:#x} (high {w_hi:#x}), n {n}: simulator {:02x?} {:?}, host {:02x?}",
                bytemuck_ref(&init),
                got,
                out.findings,
                bytemuck_ref(&expected)
            ));
        }
    }
    Some((count, failures, cases))
}

/// With a CUDA driver, the sm_70 probe cases also run on the GPU and must leave the memory the
/// host backend (and so the simulator) left — a NaN result as a NaN (the GPU's is canonical);
/// without one, says that it was skipped.
fn on_the_gpu(cases: &Cases) -> Vec<String> {
    let Some(ptx) = sim_support::ptx("sim_probes", Target::Sm70) else {
        return Vec::new();
    };
    let probes: Vec<gpu::ProbeCase> = cases.iter().map(|c| c.0.clone()).collect();
    match gpu::run_probes(&ptx, &probes) {
        Ok(None) => {
            println!("probes on the GPU: {}", gpu::NO_DRIVER);
            assert!(!gpu::driver_present());
            Vec::new()
        }
        Ok(Some(results)) => cases
            .iter()
            .zip(results)
            .filter(|((c, host), gpu)| {
                let ty = c.kernel.split("__").nth(1).unwrap_or("");
                host != gpu && !same_nan(ty, gpu, host, c.offset)
            })
            .map(|((c, host), gpu)| {
                format!(
                    "GPU {}: {gpu:02x?}, host and simulator {host:02x?}",
                    c.kernel
                )
            })
            .collect(),
        Err(e) => {
            println!("probes on the GPU: driver present but unusable ({e}), skipped");
            Vec::new()
        }
    }
}

/// Whether `a` and `b` differ only in the NaN bits of a float result at `off`: both hold a NaN
/// there. A NaN's sign and payload are not specified — by PTX (the device returns a canonical
/// NaN) nor by Rust (whose arithmetic may return either operand's NaN) — so only "NaN" is compared.
fn same_nan(ty: &str, a: &[u8], b: &[u8; 16], off: usize) -> bool {
    let size = size_of(ty);
    let is_nan = |x: &[u8]| {
        let mut bits = [0u8; 8];
        bits[..size].copy_from_slice(&x[off..off + size]);
        let bits = u64::from_le_bytes(bits);
        match ty {
            "f16" => scoped_atomics::f16::from_bits(bits as u16).is_nan(),
            "bf16" => scoped_atomics::bf16::from_bits(bits as u16).is_nan(),
            "f32" => f32::from_bits(bits as u32).is_nan(),
            "f64" => f64::from_bits(bits).is_nan(),
            _ => false,
        }
    };
    let outside = |x: &[u8]| [&x[..off], &x[off + size..]].concat();
    a.len() == 16 && outside(a) == outside(b) && is_nan(a) && is_nan(b)
}

fn bytemuck_ref(x: &[u64; 2]) -> &[u8; 16] {
    // SAFETY: [u64; 2] and [u8; 16] have the same size; u8 has no alignment requirement.
    unsafe { &*(x as *const [u64; 2]).cast::<[u8; 16]>() }
}

fn bytemuck_mut(x: &mut [u64; 2]) -> &mut [u8; 16] {
    // SAFETY: as above.
    unsafe { &mut *(x as *mut [u64; 2]).cast::<[u8; 16]>() }
}

#[test]
fn every_probe_matches_the_host_backend() {
    let started = std::time::Instant::now();
    let mut all = Vec::new();
    for (i, target) in Target::ALL.into_iter().enumerate() {
        let Some((count, failures, cases)) = run_target(target, 0x5eed_0000 + i as u64) else {
            return;
        };
        if target == Target::Sm70 {
            all.extend(on_the_gpu(&cases));
        }
        assert!(count >= 3800, "{target}: only {count} probes");
        println!(
            "{target}: {count} probes simulated, {} differ",
            failures.len()
        );
        all.extend(failures);
    }
    println!("sim_probes: {:.1} s", started.elapsed().as_secs_f64());
    assert!(
        all.is_empty(),
        "{} probes differ from the host backend:\n{}",
        all.len(),
        all.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}
