//! `cargo run -p benches --release --bin primitive-cost`: the **static** device cost model of the
//! synchronisation primitives against libcu++ — instruction counts, not a timing (no GPU is
//! involved).
//!
//! For every operation of `Barrier`, `Latch`, `CountingSemaphore`/`BinarySemaphore` and
//! `Atomic::wait`/`notify_*` at block, device and system scope (the primitive behind a pointer:
//! global memory), and for a block barrier initialised in shared memory, there are two kernels of
//! the same name and signature: ours (a scratch crate built with the pinned nightly and the
//! conformance flags) and libcu++'s (`cuda::barrier`, `cuda::latch`, `cuda::counting_semaphore`,
//! `cuda::atomic_ref::wait`/`notify_*`, CCCL of CUDA 13.5, `nvcc -ptx -std=c++17 -O3`). Both are
//! assembled by ptxas 13.5 (`-v`) and disassembled by `cuobjdump -sass`. Per kernel: PTX
//! instructions, `call` instructions, SASS instructions (NOP padding and the closing self-branch
//! dropped), registers and stack frame bytes (local memory) from `ptxas -v`; for sm_80 and
//! sm_90; and, for sm_90, the PTX of the shared-memory block barrier, ours and libcu++'s (the
//! wait loop on `mbarrier.try_wait`). Writes `target/device-cost/primitives.md` and prints it.

use benches::cuda_tools::{self, CudaTools, nvcc_ptx};
use benches::device_cost as dc;
use scoped_atomics_host::ptx::{self, Error, Target, Toolchain};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// One operation: kernel name, our primitive type, libcu++'s, our body, libcu++'s body (`b` is
/// the primitive, `n` a `u32`/`unsigned` argument).
struct Op {
    name: &'static str,
    ours: &'static str,
    theirs: &'static str,
    ours_body: &'static str,
    theirs_body: &'static str,
}

const OPS: [Op; 12] = [
    Op {
        name: "barrier_arrive_wait",
        ours: "Barrier<{S}>",
        theirs: "cuda::barrier<{S}>",
        ours_body: "b.arrive_and_wait()",
        theirs_body: "b->arrive_and_wait()",
    },
    Op {
        name: "barrier_arrive_then_wait",
        ours: "Barrier<{S}>",
        theirs: "cuda::barrier<{S}>",
        ours_body: "{ let t = b.arrive(); b.wait(t) }",
        theirs_body: "auto t = b->arrive(); b->wait(cuda::std::move(t))",
    },
    Op {
        name: "barrier_arrive_n",
        ours: "Barrier<{S}>",
        theirs: "cuda::barrier<{S}>",
        ours_body: "{ let t = b.arrive_n(n); b.wait(t) }",
        theirs_body: "auto t = b->arrive(n); b->wait(cuda::std::move(t))",
    },
    Op {
        name: "barrier_arrive_drop",
        ours: "Barrier<{S}>",
        theirs: "cuda::barrier<{S}>",
        ours_body: "b.arrive_and_drop()",
        theirs_body: "b->arrive_and_drop()",
    },
    Op {
        name: "latch_count_down",
        ours: "Latch<{S}>",
        theirs: "cuda::latch<{S}>",
        ours_body: "b.count_down(n)",
        theirs_body: "b->count_down(n)",
    },
    Op {
        name: "latch_arrive_wait",
        ours: "Latch<{S}>",
        theirs: "cuda::latch<{S}>",
        ours_body: "b.arrive_and_wait(n)",
        theirs_body: "b->arrive_and_wait(n)",
    },
    Op {
        name: "latch_try_wait",
        ours: "Latch<{S}>",
        theirs: "cuda::latch<{S}>",
        ours_body: "let _ = b.try_wait()",
        theirs_body: "(void)b->try_wait()",
    },
    Op {
        name: "semaphore_acquire_release",
        ours: "CountingSemaphore<{S}, 4>",
        theirs: "cuda::counting_semaphore<{S}, 4>",
        ours_body: "{ b.acquire(); b.release(n) }",
        theirs_body: "b->acquire(); b->release(n)",
    },
    Op {
        name: "semaphore_try_acquire_for",
        ours: "BinarySemaphore<{S}>",
        theirs: "cuda::binary_semaphore<{S}>",
        ours_body: "if b.try_acquire_for(core::time::Duration::from_micros(10)) { b.release(1) }",
        theirs_body: "if (b->try_acquire_for(cuda::std::chrono::microseconds(10))) b->release(1)",
    },
    Op {
        name: "atomic_wait",
        ours: "Atomic<u32, {S}>",
        theirs: "unsigned",
        ours_body: "b.wait(n, Ordering::Acquire)",
        theirs_body: "cuda::atomic_ref<unsigned, {S}>(*b).wait(n, cuda::memory_order_acquire)",
    },
    Op {
        name: "atomic_notify_one",
        ours: "Atomic<u32, {S}>",
        theirs: "unsigned",
        ours_body: "b.notify_one()",
        theirs_body: "cuda::atomic_ref<unsigned, {S}>(*b).notify_one()",
    },
    Op {
        name: "atomic_notify_all",
        ours: "Atomic<u32, {S}>",
        theirs: "unsigned",
        ours_body: "b.notify_all()",
        theirs_body: "cuda::atomic_ref<unsigned, {S}>(*b).notify_all()",
    },
];

/// (kernel suffix, our scope type, libcu++'s scope).
const SCOPES: [(&str, &str, &str); 3] = [
    ("block", "Block", "cuda::thread_scope_block"),
    ("device", "Device", "cuda::thread_scope_device"),
    ("system", "System", "cuda::thread_scope_system"),
];

const RUST_SHARED: &str = r#"
#[scoped_atomics::kernel]
pub fn barrier_shared_block() {
    use scoped_atomics::kernel::{block_dim, sync_threads, thread_idx};
    let place = scoped_atomics::block_shared!(BARRIER: [Barrier<Block>; 1]).cast::<Barrier<Block>>();
    if thread_idx().x == 0 {
        // SAFETY: block-shared memory, used after the `sync_threads` below.
        unsafe { Barrier::init_in_place(place, block_dim().x) };
    }
    sync_threads();
    // SAFETY: initialised above.
    let barrier = unsafe { &*place };
    let token = barrier.arrive();
    barrier.wait(token);
}

/// The same with the barrier whose type says it is in shared memory (issue 24, item 5).
#[scoped_atomics::kernel]
pub fn shared_barrier_block() {
    use scoped_atomics::kernel::{block_dim, sync_threads, thread_idx};
    let place = scoped_atomics::block_shared!(SHARED: [SharedBarrier; 1]).cast::<SharedBarrier>();
    if thread_idx().x == 0 {
        // SAFETY: block-shared memory, used after the `sync_threads` below.
        unsafe { SharedBarrier::init_in_place(place, block_dim().x) };
    }
    sync_threads();
    // SAFETY: initialised above.
    let barrier = unsafe { &*place };
    let token = barrier.arrive();
    barrier.wait(token);
}
"#;

const CUDA_SHARED: &str = r#"
extern "C" __global__ void barrier_shared_block() {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    auto t = bar.arrive();
    bar.wait(cuda::std::move(t));
}
// libcu++'s block barrier in shared memory again, the twin of our `shared_barrier_block`.
extern "C" __global__ void shared_barrier_block() {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    auto t = bar.arrive();
    bar.wait(cuda::std::move(t));
}
"#;

fn rust_source() -> String {
    let mut src = String::from(
        "#![no_std]\n#![feature(abi_ptx, asm_experimental_arch)]\n\
         use scoped_atomics::{Atomic, Barrier, BinarySemaphore, Block, CountingSemaphore, Device, \
         Latch, Ordering, SharedBarrier, System};\n\
         #[panic_handler]\nfn panic(_: &core::panic::PanicInfo) -> ! {\n    \
         // SAFETY: `trap` aborts the kernel.\n    \
         unsafe { core::arch::asm!(\"trap;\", options(noreturn)) }\n}\n",
    );
    for (suffix, scope, _) in SCOPES {
        for op in &OPS {
            let ty = op.ours.replace("{S}", scope);
            let _ = write!(
                src,
                "/// # Safety\n/// `b` points to a live primitive.\n\
                 #[scoped_atomics::kernel]\npub unsafe fn {}_{suffix}(b: *const {ty}, n: u32) {{\n    \
                 // SAFETY: the launcher passes a live primitive.\n    let b = unsafe {{ &*b }};\n    \
                 let _ = n;\n    {};\n}}\n",
                op.name, op.ours_body
            );
        }
    }
    src + RUST_SHARED
}

fn cuda_source() -> String {
    let mut src = String::from(
        "#include <cuda/atomic>\n#include <cuda/barrier>\n#include <cuda/latch>\n\
         #include <cuda/semaphore>\n#include <cuda/std/chrono>\n#include <cuda/std/utility>\n",
    );
    for (suffix, _, scope) in SCOPES {
        for op in &OPS {
            let ty = op.theirs.replace("{S}", scope);
            let body = op.theirs_body.replace("{S}", scope);
            let _ = writeln!(
                src,
                "extern \"C\" __global__ void {}_{suffix}({ty}* b, unsigned n) {{ (void)n; {body}; }}",
                op.name
            );
        }
    }
    src + CUDA_SHARED
}

fn run(cmd: &mut Command, what: &str) -> Result<String, Error> {
    let out = cmd
        .output()
        .map_err(|e| Error::Failed(format!("{what}: cannot run {cmd:?}: {e}")))?;
    if !out.status.success() {
        return Err(Error::Failed(format!(
            "{what} failed ({}):\n$ {cmd:?}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

/// Our kernels' PTX for `target` (scratch crate under `target/ptx/scratch/primitive-cost`).
fn our_ptx(tc: &Toolchain, target: Target) -> Result<PathBuf, Error> {
    let dir = tc.root.join("target/ptx/scratch/primitive-cost");
    fs::create_dir_all(dir.join("src")).map_err(|e| Error::Failed(e.to_string()))?;
    let manifest = format!(
        "[package]\nname = \"primitive-cost\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
         [lib]\ncrate-type = [\"rlib\"]\n\n[dependencies]\nscoped-atomics = {{ path = {:?}, default-features = false }}\n\n\
         [workspace]\n",
        tc.root.join("atomics")
    );
    fs::write(dir.join("Cargo.toml"), manifest).map_err(|e| Error::Failed(e.to_string()))?;
    fs::write(dir.join("src/lib.rs"), rust_source()).map_err(|e| Error::Failed(e.to_string()))?;
    let out = dir.join(format!("{}.ptx", target.name()));
    let mut cmd = ptx::cargo_rustc(tc, &dir, &target.rustflags(), &tc.target_dir(target));
    cmd.arg("--").arg(format!("--emit=asm={}", out.display()));
    run(&mut cmd, "building our kernels")?;
    Ok(out)
}

/// libcu++'s kernels' PTX for `target`.
fn their_ptx(tc: &Toolchain, cuda: &CudaTools, target: Target) -> Result<PathBuf, Error> {
    let dir = tc.root.join("target/device-cost/primitives");
    fs::create_dir_all(&dir).map_err(|e| Error::Failed(e.to_string()))?;
    let source = dir.join("primitives.cu");
    fs::write(&source, cuda_source()).map_err(|e| Error::Failed(e.to_string()))?;
    let out = dir.join(format!("libcu-{}.ptx", target.name()));
    nvcc_ptx(cuda, &source, target.arch(), &out)?;
    Ok(out)
}

/// Per kernel: PTX instructions, calls, SASS instructions, registers, stack frame bytes.
#[derive(Debug, Default, Clone, Copy)]
struct Cost {
    ptx: usize,
    calls: usize,
    sass: usize,
    registers: u32,
    stack: u32,
}

fn measure(
    tc: &Toolchain,
    cuda: &CudaTools,
    ptx_path: &Path,
    target: Target,
) -> Result<BTreeMap<String, Cost>, Error> {
    Ok(cuda_tools::measure(tc, cuda, ptx_path, target)?
        .into_iter()
        .map(|(name, m)| {
            let cost = Cost {
                ptx: m.ptx,
                calls: m.calls,
                sass: dc::sass_cost(&m.sass).total,
                registers: m.registers,
                stack: m.stack,
            };
            (name, cost)
        })
        .collect())
}

fn table(target: Target, ours: &BTreeMap<String, Cost>, theirs: &BTreeMap<String, Cost>) -> String {
    let mut names: Vec<String> = Vec::new();
    for op in &OPS {
        for (suffix, _, _) in SCOPES {
            names.push(format!("{}_{suffix}", op.name));
        }
    }
    names.push("barrier_shared_block".into());
    names.push("shared_barrier_block".into());
    let mut md = format!(
        "### {target} (ptxas 13.5 -arch={})\n\n\
         | kernel | PTX ours / libcu++ | calls | SASS ours / libcu++ | registers | stack bytes |\n\
         |---|--:|--:|--:|--:|--:|\n",
        target.arch()
    );
    for name in names {
        let (o, t) = (
            ours.get(&name).copied().unwrap_or_default(),
            theirs.get(&name).copied().unwrap_or_default(),
        );
        let _ = writeln!(
            md,
            "| `{name}` | {} / {} | {} / {} | {} / {} | {} / {} | {} / {} |",
            o.ptx,
            t.ptx,
            o.calls,
            t.calls,
            o.sass,
            t.sass,
            o.registers,
            t.registers,
            o.stack,
            t.stack
        );
    }
    md
}

/// The PTX of kernel `name` in the file at `ptx_path`, one instruction or label per line.
fn listing(ptx_path: &Path, name: &str) -> Result<String, Error> {
    let text = fs::read_to_string(ptx_path).map_err(|e| Error::Failed(e.to_string()))?;
    let kernel = ptx::parse_kernels(&text)
        .into_iter()
        .find(|k| k.name == name)
        .ok_or_else(|| Error::Failed(format!("no kernel {name} in {}", ptx_path.display())))?;
    let mut out = String::new();
    for item in ptx::instructions(&kernel) {
        match item {
            ptx::Item::Instr(i) => writeln!(out, "    {i}"),
            ptx::Item::Label(l) => writeln!(out, "{l}:"),
        }
        .expect("writing to a String");
    }
    Ok(out)
}

/// The PTX of the shared-memory block barrier, ours and libcu++'s: on sm_90 both wait in a loop
/// on `mbarrier.try_wait`, whose hardware suspend does the waiting (no `nanosleep` back-off).
fn shared_barrier_listings(target: Target, ours: &Path, theirs: &Path) -> Result<String, Error> {
    Ok(format!(
        "#### `barrier_shared_block` at {target}: the PTX (init, arrive, wait loop)\n\n\
         Ours:\n\n```text\n{}```\n\nlibcu++:\n\n```text\n{}```\n",
        listing(ours, "barrier_shared_block")?,
        listing(theirs, "barrier_shared_block")?
    ))
}

fn main() -> ExitCode {
    let result = (|| -> Result<String, Error> {
        let tc = Toolchain::discover()?;
        let cuda = CudaTools::discover(&tc.root)?;
        let mut md = String::from(
            "## Device cost of the primitives: a static model\n\n\
             Instruction counts of the kernels (not timings; no GPU is involved): ours built with \
             the pinned nightly (`-Cpanic=immediate-abort`, release), libcu++ (CCCL of CUDA 13.5) \
             with `nvcc -ptx -std=c++17 -O3`; both assembled by ptxas 13.5. Each kernel takes the \
             primitive by pointer (global memory), except `barrier_shared_block` (a `Barrier<Block>` \
             initialised in shared memory, one phase) and `shared_barrier_block` (the same with a \
             `SharedBarrier`; both against libcu++'s `__shared__ cuda::barrier<thread_scope_block>`). \
             Columns: ours / libcu++.\n\n",
        );
        for target in [Target::Sm80, Target::Sm90] {
            eprintln!("primitive-cost: {target}...");
            let (ours_ptx, theirs_ptx) = (our_ptx(&tc, target)?, their_ptx(&tc, &cuda, target)?);
            let ours = measure(&tc, &cuda, &ours_ptx, target)?;
            let theirs = measure(&tc, &cuda, &theirs_ptx, target)?;
            md += &table(target, &ours, &theirs);
            md.push('\n');
            if target == Target::Sm90 {
                md += &shared_barrier_listings(target, &ours_ptx, &theirs_ptx)?;
                md.push('\n');
            }
        }
        let out = tc.root.join("target/device-cost/primitives.md");
        fs::create_dir_all(out.parent().unwrap()).map_err(|e| Error::Failed(e.to_string()))?;
        fs::write(&out, &md).map_err(|e| Error::Failed(e.to_string()))?;
        Ok(md)
    })();
    match result {
        Ok(md) => {
            println!("{md}");
            ExitCode::SUCCESS
        }
        Err(Error::Missing(e)) => {
            eprintln!("primitive-cost: missing: {e} (run `bash tools/install.sh`)");
            ExitCode::from(2)
        }
        Err(Error::Failed(e)) => {
            eprintln!("primitive-cost: {e}");
            ExitCode::FAILURE
        }
    }
}
