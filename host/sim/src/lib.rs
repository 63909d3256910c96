//! `ptx-sim`: a simulator of PTX. It runs a launch of a kernel of any PTX module (as rustc or
//! nvcc emits it) on host threads of simulation, with a scoped race detector, barrier-divergence, hang and
//! fault detection, and host threads sharing "mapped" memory with the launch.
//!
//! * [`Simulator::new`] parses a module; [`Simulator::kernel`] decodes one kernel and what it
//!   can reach (an unsupported instruction is an error naming it and its PTX line).
//! * [`Kernel::launch`] runs one schedule: grid and block in 3-D, kernel arguments ([`Arg`]),
//!   static and dynamic `.shared`, `.local`, `.param`, the special registers.
//! * Threads interleave at every memory operation by a seeded random choice ([`Mode::Random`])
//!   or in warp lockstep ([`Mode::WarpLockstep`]); memory is sequentially consistent, and races
//!   are found from the happens-before order of the executed schedule: vector clocks with
//!   scopes, and the PTX memory model's *morally strong* test (both strong, each one's scope
//!   includes the other's thread, the same bytes).
//! * Findings ([`Finding`]) start with `race:`, `divergence:`, `hang:` or `fault:` and name
//!   threads as `(block,thread)` and instructions by PTX line (and source line with `.loc`).
//!
//! **CUDA C++ kernels.** The PTX nvcc emits runs as it is: `membar` (`__threadfence()`,
//! `fence.sc` at its scope), `ld/st.volatile`, `ld.global.nc` (`__ldg`, `const __restrict__`:
//! a location read there and written during the kernel is a finding, since the memory model
//! does not cover that path), the warp collectives (`shfl.sync`, `vote.sync`, `match.sync`,
//! `redux.sync`, `activemask`, `bar.warp.sync`, with the member-mask rules), named barriers
//! (`bar.sync`/`bar.arrive`/`bar.red` with ids and thread counts), non-inlined functions with
//! `.local` frames, `printf` ([`Outcome::printed`]), vector accesses and the arithmetic of `-O3`
//! code with its rounding modifiers, and `.ftz` (`-use_fast_math`: an `.f32` subnormal source or
//! result is zero of its sign).
//!
//! **Two views of `volatile`.** PTX makes a volatile access a relaxed one at system scope, so
//! volatile accesses of the same location never race with each other; CUDA C++ (and the
//! published GPU race detectors) treat `volatile` as a plain access. [`Launch::volatile`]
//! chooses ([`VolatileMode`], with an example of a kernel race-free in one view and racy in the
//! other); `--volatile plain` on the command line.
//!
//! **What the race detector guarantees.** In the schedule it runs, every access that races with
//! an earlier access of that schedule is reported (each pair of instructions once): the shadow
//! memory keeps every access a later one could race with, and drops a record only when a later
//! access of the same bytes, ordered after it and morally strong with no more accesses than it,
//! stands in for it — nothing is evicted for space. Synchronisation is made only between
//! morally strong operations (PTX ISA 8.9.4): release and acquire patterns with fences on
//! either side, each checked at the scope of its first and last operation, release sequences
//! through morally strong read-modify-writes, `bar`, `barrier.cluster`, mbarrier phases and
//! `cp.async` completions. What it may miss: a race that only another interleaving shows, or
//! that needs a read to return an older value than the last write (run more seeds and
//! [`Mode::WarpLockstep`]). What it may report that PTX orders: synchronisation it does not
//! track, never the other way — the Fence-SC order between `fence.sc` operations (the schedule
//! does not fix it, so assuming the order they ran in could hide a race), the acquire pattern
//! `ld.relaxed [M]; ld.acquire [M]`, patterns through accesses of different sizes. One known
//! exception: `cp.async.mbarrier.arrive.noinc` releases the thread's earlier accesses with its
//! copies (PTX orders only the copies).
//!
//! The module tree: `parse` (PTX text → functions and statements), `validate` (the module
//! checks ptxas makes: duplicate symbols, state-space limits), `decode` (compact
//! instruction forms; `decode/arith` and `decode/collective` for the cold arithmetic and the
//! barriers and warp collectives), `exec` (the interpreter), `arith`/`fmath` (the cold
//! arithmetic, rounding exactly), `values` (arithmetic), `vector` (vector and read-only
//! accesses), `calls` and `printf` (calls, returns, `vprintf`), `memory` (state spaces,
//! mbarrier objects), `sched` (scheduler, CTA barriers in `sched/barrier`, warp collectives in
//! `sched/collective`, host threads, hangs; `sched/residency` which CTAs are resident and the
//! runnable threads), `race` (the detector; `race/clock` sparse vector clocks, `race/shadow` the
//! shadow memory, `race/sync` synchronisation), `report` (findings),
//! [`cli`] (the `ptx-sim` command, also `cargo host sim`).
//!
//! ```
//! use ptx_sim::{Arg, EXAMPLE_PTX, Launch, Simulator};
//! let sim = Simulator::new(EXAMPLE_PTX).unwrap();
//! let kernel = sim.kernel("count").unwrap();
//! let out = kernel
//!     .launch(&Launch::new([1, 1, 1], [32, 1, 1], vec![Arg::Buffer(vec![0; 4])]), Vec::new())
//!     .unwrap();
//! assert!(out.findings.is_empty());
//! assert_eq!(u32::from_le_bytes(out.buffers[0][..4].try_into().unwrap()), (0..32u32).sum::<u32>());
//! ```

// The crate's layers, lowest first. A module imports only modules of lower layers, or modules of
// its own layer listed left of it: nothing imports upward (tests/layers.rs computes the import
// graph of src/ from every `crate::`/`super::` path and checks it against these lines).
// - error: the error type every layer refuses bad input with;
// - text: the PTX text (`parse` reads `.loc`/`.file` through `source_lines`);
// - isa: the ISA's types decoding produces (`Space`, `Scope`, `Ty`, the operators, the operand
//   forms), the library-check table, the generic address layout;
// - decode: parsed text to those types, ptxas's module checks, findings (`report`: plain data,
//   built by execution and the scheduler, so below both);
// - state: what execution works on: value arithmetic, cluster geometry, memory, the race
//   detector (exec calls it at every access, so it sits below exec: a call down, no events
//   passed back up) and the `cp.async` copies in flight;
// - exec: one thread's step; instructions: its instruction families (`impl World` blocks);
// - sched: the scheduler; api: the launch types and the crate root; cli: the command.
//
// layer error: error
// layer text: source_lines parse
// layer isa: library_checks isa address
// layer decode: decode validate report
// layer state: values fmath printf cluster memory race copy_queue
// layer exec: exec
// layer instructions: arith vector wide mbarrier async_copy calls
// layer sched: sched
// layer api: launch lib
// layer cli: cli

mod address;
mod arith;
mod async_copy;
mod calls;
pub mod cli;
mod cluster;
mod copy_queue;
pub mod decode;
mod error;
mod exec;
mod fmath;
mod isa;
mod launch;
mod library_checks;
mod mbarrier;
mod memory;
mod parse;
mod printf;
mod race;
mod report;
mod sched;
mod source_lines;
mod validate;
mod values;
mod vector;
mod wide;

pub use decode::Program;
use decode::{Callee, Op, Symbol};
pub use error::SimError;
use exec::World;
pub use launch::{Arg, EXAMPLE_PTX, Launch, Outcome, Pointer, Slot, VolatileMode};
use parse::VarSpace;
pub use report::{Finding, FindingKind};
pub use sched::residency::resident_ctas;
pub use sched::{HostCtx, HostStatus, HostThread, HostWord, Mode};
use std::collections::HashMap;

/// The byte shared memory holds before a kernel writes it.
///
/// ```
/// use ptx_sim::{Arg, Launch, SHARED_FILL, Simulator};
/// let ptx = ".version 7.0\n.target sm_70\n.address_size 64\n.shared .align 4 .b8 s[4];\n\
///     .visible .entry k(.param .u64 k_param_0)\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\
///     \tld.param.u64 %rd1, [k_param_0];\n\
///     \tld.shared.u32 %r1, [s];\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n";
/// let k = Simulator::new(ptx).unwrap().kernel("k").unwrap();
/// let out = k.launch(&Launch::new([1; 3], [1; 3], vec![Arg::Buffer(vec![0; 4])]), Vec::new()).unwrap();
/// assert_eq!(out.buffers[0], [SHARED_FILL; 4]);
/// ```
pub const SHARED_FILL: u8 = 0xA5;

/// A parsed PTX module with its variables laid out.
///
/// ```
/// use ptx_sim::{EXAMPLE_PTX, Simulator};
/// let sim = Simulator::new(EXAMPLE_PTX).unwrap();
/// assert_eq!(sim.target(), "sm_70");
/// ```
pub struct Simulator {
    module: parse::Module,
    syms: HashMap<String, Symbol>,
    globals: Vec<(String, Vec<u8>, VarSpace)>,
    static_shared: u64,
}

/// A decoded kernel, ready to launch.
///
/// ```
/// use ptx_sim::{EXAMPLE_PTX, Simulator};
/// let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
/// assert_eq!(kernel.name, "count");
/// ```
#[derive(Debug)]
pub struct Kernel {
    /// The kernel's name.
    pub name: String,
    prog: Program,
    entry: u32,
    globals: Vec<(String, Vec<u8>, VarSpace)>,
    static_shared: u64,
    /// The cluster shape the kernel declares (`.reqnctapercluster`, nvcc's `__cluster_dims__`).
    cluster: Option<[u32; 3]>,
    /// The module's `.target` (a launch with clusters needs sm_90).
    target: String,
}

impl Kernel {
    /// The cluster shape the kernel's PTX declares (`.reqnctapercluster X, Y, Z`, what nvcc
    /// emits for `__cluster_dims__`), which a launch uses unless it gives its own.
    ///
    /// ```
    /// use ptx_sim::{EXAMPLE_PTX, Simulator};
    /// assert_eq!(Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap().declared_cluster(), None);
    /// ```
    pub fn declared_cluster(&self) -> Option<[u32; 3]> {
        self.cluster
    }

    /// The decoded instructions ([`decode`]) and the index of the kernel's first one: for tools
    /// that translate a kernel into another model (the repository's checks turn emitted code into
    /// litmus events with it).
    ///
    /// ```
    /// use ptx_sim::{EXAMPLE_PTX, Simulator};
    /// let sim = Simulator::new(EXAMPLE_PTX).unwrap();
    /// let kernel = sim.kernel("count").unwrap();
    /// let (program, entry) = kernel.decoded();
    /// assert!((entry as usize) < program.insts.len());
    /// ```
    pub fn decoded(&self) -> (&Program, u32) {
        (&self.prog, self.entry)
    }
}

impl Simulator {
    /// Parses a PTX module.
    ///
    /// ```
    /// use ptx_sim::{EXAMPLE_PTX, Simulator};
    /// assert!(Simulator::new(EXAMPLE_PTX).is_ok());
    /// assert!(Simulator::new("not PTX").is_err());
    /// ```
    pub fn new(ptx: &str) -> Result<Simulator, SimError> {
        let module = parse::parse(ptx)?;
        validate::module(&module)?;
        let mut syms = HashMap::new();
        let mut globals = Vec::new();
        let mut shared = 0u64;
        for v in &module.vars {
            match v.space {
                VarSpace::Global | VarSpace::Const => {
                    let mut data = v.init.clone();
                    data.resize(v.size.max(1) as usize, 0);
                    syms.insert(
                        v.name.clone(),
                        Symbol::Global(memory::region_base(globals.len() as u32)),
                    );
                    globals.push((v.name.clone(), data, v.space));
                }
                VarSpace::Shared if v.dynamic => {}
                VarSpace::Shared => {
                    let off = shared.next_multiple_of(v.align.max(1));
                    shared = off + v.size;
                    syms.insert(v.name.clone(), Symbol::Shared(off));
                }
                VarSpace::Local => {}
            }
        }
        let dyn_base = shared.next_multiple_of(16);
        for v in module.vars.iter().filter(|v| v.dynamic) {
            syms.insert(v.name.clone(), Symbol::Shared(dyn_base));
        }
        // Shared variables declared inside functions are static shared memory too, each
        // function's its own (the decoder finds them by `function/name`).
        for f in &module.funcs {
            for s in f.body.iter().flatten() {
                if let parse::Stmt::Local(v) = s
                    && v.space == VarSpace::Shared
                {
                    let off = shared.next_multiple_of(v.align.max(1));
                    shared = off + v.size;
                    syms.insert(decode::scoped_name(&f.name, &v.name), Symbol::Shared(off));
                }
            }
        }
        for (i, f) in module.funcs.iter().enumerate() {
            syms.insert(f.name.clone(), Symbol::Func(i as u32));
        }
        Ok(Simulator {
            module,
            syms,
            globals,
            static_shared: shared.next_multiple_of(16),
        })
    }

    /// The `.target` of the module.
    ///
    /// ```
    /// # use ptx_sim::{EXAMPLE_PTX, Simulator};
    /// assert_eq!(Simulator::new(EXAMPLE_PTX).unwrap().target(), "sm_70");
    /// ```
    pub fn target(&self) -> &str {
        &self.module.target
    }

    /// Names of the kernels (`.entry` functions) defined in the module.
    ///
    /// ```
    /// # use ptx_sim::{EXAMPLE_PTX, Simulator};
    /// let sim = Simulator::new(EXAMPLE_PTX).unwrap();
    /// assert_eq!(sim.kernels().collect::<Vec<_>>(), ["count"]);
    /// ```
    pub fn kernels(&self) -> impl Iterator<Item = &str> {
        self.module
            .funcs
            .iter()
            .filter(|f| f.is_entry && f.body.is_some())
            .map(|f| f.name.as_str())
    }

    /// Names of every function (kernels and `.func`s) of the module.
    ///
    /// ```
    /// # use ptx_sim::{EXAMPLE_PTX, Simulator};
    /// assert_eq!(Simulator::new(EXAMPLE_PTX).unwrap().functions().count(), 1);
    /// ```
    pub fn functions(&self) -> impl Iterator<Item = &str> {
        self.module.funcs.iter().map(|f| f.name.as_str())
    }

    /// The code address function `name` has in a simulation (what `mov.b64 %rd, name` gives):
    /// to place a device function pointer into a buffer built on the host.
    ///
    /// ```
    /// # use ptx_sim::{EXAMPLE_PTX, Simulator};
    /// let sim = Simulator::new(EXAMPLE_PTX).unwrap();
    /// assert!(sim.function_address("count").is_some());
    /// assert!(sim.function_address("nothing").is_none());
    /// ```
    pub fn function_address(&self, name: &str) -> Option<u64> {
        match self.syms.get(name) {
            Some(Symbol::Func(f)) => Some(memory::func_addr(*f)),
            _ => None,
        }
    }

    /// Decodes kernel `name` and every function it can reach.
    ///
    /// ```
    /// # use ptx_sim::{EXAMPLE_PTX, Simulator};
    /// let sim = Simulator::new(EXAMPLE_PTX).unwrap();
    /// assert!(sim.kernel("count").is_ok());
    /// assert!(sim.kernel("missing").unwrap_err().to_string().contains("no kernel named `missing`"));
    /// // An instruction outside the supported set is named with its PTX line.
    /// let odd = EXAMPLE_PTX.replace("\tret;", "\tpmevent 7;\n\tret;");
    /// let e = Simulator::new(&odd).unwrap().kernel("count").unwrap_err().to_string();
    /// assert!(e.contains("pmevent") && e.contains("PTX line 19"), "{e}");
    /// ```
    pub fn kernel(&self, name: &str) -> Result<Kernel, SimError> {
        let index = self
            .module
            .funcs
            .iter()
            .position(|f| f.name == name && f.is_entry && f.body.is_some())
            .ok_or_else(|| SimError::BadInput(format!("no kernel named `{name}` in the PTX")))?
            as u32;
        let mut prog = Program {
            files: self.module.files.clone(),
            ..Program::default()
        };
        let mut todo = vec![index];
        let mut entry = None;
        while let Some(f) = todo.pop() {
            let (d, reached) = decode::decode_func(&mut prog, &self.module.funcs, f, &self.syms)?;
            entry.get_or_insert(d);
            todo.extend(
                reached
                    .into_iter()
                    .filter(|r| !prog.by_module_index.contains_key(r))
                    .filter(|r| self.module.funcs[*r as usize].body.is_some()),
            );
        }
        validate::kernel_shared(&self.module, name, prog.by_module_index.keys().copied())?;
        // Functions reached only through pointers in data (a completion function stored in a
        // host-built object): every other device function, where it decodes, so an indirect
        // call can find it.
        let indirect = prog
            .insts
            .iter()
            .any(|i| matches!(i.op, Op::Call(Callee::Indirect(_), ..)));
        for (i, f) in self.module.funcs.iter().enumerate() {
            let i = i as u32;
            if !indirect || f.is_entry || f.body.is_none() || prog.by_module_index.contains_key(&i)
            {
                continue;
            }
            let (insts, funcs) = (prog.insts.len(), prog.funcs.len());
            let mut todo = vec![i];
            while let Some(g) = todo.pop() {
                match decode::decode_func(&mut prog, &self.module.funcs, g, &self.syms) {
                    Ok((_, reached)) => todo.extend(
                        reached
                            .into_iter()
                            .filter(|r| !prog.by_module_index.contains_key(r))
                            .filter(|r| self.module.funcs[*r as usize].body.is_some()),
                    ),
                    Err(_) => {
                        // Not executable here: leave it out (calling it faults).
                        prog.insts.truncate(insts);
                        prog.opcodes.truncate(insts);
                        prog.funcs.truncate(funcs);
                        prog.by_module_index.retain(|_, d| (*d as usize) < funcs);
                        break;
                    }
                }
            }
        }
        // Direct calls named module functions: now name decoded ones; CUDA's `printf` and
        // `assert` are the toolkit's `vprintf` and `__assertfail`, and the device heap its
        // `malloc` and `free`, declared and not defined.
        for inst in &mut prog.insts {
            if let Op::Call(callee @ Callee::Direct(_), ..) = &mut inst.op
                && let Callee::Direct(f) = *callee
                && self.module.funcs[f as usize].body.is_none()
            {
                match self.module.funcs[f as usize].name.as_str() {
                    "vprintf" => *callee = Callee::Vprintf,
                    "__assertfail" => *callee = Callee::AssertFail,
                    "malloc" => *callee = Callee::Malloc,
                    "free" => *callee = Callee::Free,
                    _ => {}
                }
            }
            if let Op::Call(Callee::Direct(f), ..) = &mut inst.op {
                *f = *prog.by_module_index.get(f).ok_or_else(|| {
                    SimError::BadInput(format!(
                        "call at PTX line {} to `{}`, declared but not defined in this PTX",
                        inst.line, self.module.funcs[*f as usize].name
                    ))
                })?;
            }
        }
        Ok(Kernel {
            name: name.to_string(),
            prog,
            entry: entry.unwrap_or(0),
            globals: self.globals.clone(),
            static_shared: self.static_shared,
            cluster: self
                .module
                .clusters
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, shape)| *shape),
            target: self.module.target.clone(),
        })
    }
}

impl Kernel {
    /// Sizes in bytes of the kernel's parameters, in order.
    ///
    /// ```
    /// # use ptx_sim::{EXAMPLE_PTX, Simulator};
    /// let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// assert_eq!(kernel.param_sizes(), [8]);
    /// ```
    pub fn param_sizes(&self) -> Vec<u32> {
        self.prog.funcs[self.entry as usize]
            .params
            .iter()
            .map(|p| p.1)
            .collect()
    }

    /// PTX instructions of the kernel and what it reaches (with a `ret` closing each body).
    ///
    /// ```
    /// # use ptx_sim::{EXAMPLE_PTX, Simulator};
    /// let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// assert_eq!(kernel.instruction_count(), 9);
    /// ```
    pub fn instruction_count(&self) -> usize {
        self.prog.insts.len()
    }

    /// Runs one schedule of `launch`, with `hosts` alongside.
    ///
    /// ```
    /// use ptx_sim::{Arg, EXAMPLE_PTX, Launch, Simulator};
    /// let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// let out = kernel
    ///     .launch(&Launch::new([3, 1, 1], [32, 1, 1], vec![Arg::Buffer(vec![0; 4])]), Vec::new())
    ///     .unwrap();
    /// assert_eq!(out.buffers[0], (0..96u32).sum::<u32>().to_le_bytes());
    /// ```
    pub fn launch(&self, launch: &Launch, hosts: Vec<HostThread>) -> Result<Outcome, SimError> {
        let (grid, block) = (launch.grid, launch.block);
        if grid.contains(&0) || block.contains(&0) {
            return Err(SimError::BadInput(format!(
                "empty launch: grid {grid:?}, block {block:?}"
            )));
        }
        let cta_threads = block.iter().map(|&b| u64::from(b)).product::<u64>();
        if cta_threads > 1024 {
            return Err(SimError::BadInput(format!(
                "a block of {cta_threads} threads is larger than the 1024 a block may have"
            )));
        }
        let ctas = grid.iter().map(|&g| u64::from(g)).product::<u64>();
        if ctas * cta_threads > 1 << 20 {
            return Err(SimError::BadInput(format!(
                "a grid of {} threads is larger than the simulator's 2^20",
                ctas * cta_threads
            )));
        }
        let info = &self.prog.funcs[self.entry as usize];
        if launch.args.len() != info.params.len() {
            return Err(SimError::BadInput(format!(
                "kernel `{}` takes {} parameters, {} arguments given",
                self.name,
                info.params.len(),
                launch.args.len()
            )));
        }
        let mut mem = memory::Memory::default();
        for (name, data, space) in &self.globals {
            mem.add_region(name, data.clone());
            if let Some(region) = mem.regions.last_mut() {
                region.constant = *space == VarSpace::Const;
            }
        }
        let mut envregs = [0u32; 32];
        if launch.cooperative {
            // The grid workspace: its size, then the grid barrier's arrival word.
            let workspace =
                mem.add_region("grid workspace", [8u32, 0].map(u32::to_le_bytes).concat());
            envregs[1] = (workspace >> 32) as u32;
            envregs[2] = workspace as u32;
        }
        let mut params = vec![0u8; info.param_size as usize];
        let mut buffers = Vec::new();
        let mut buffer_regions = Vec::new();
        for data in &launch.buffers {
            buffer_regions.push(mem.regions.len());
            buffers.push(mem.add_region(&format!("buffer {}", buffers.len()), data.clone()));
        }
        for (k, (arg, &(slot, size))) in launch.args.iter().zip(&info.params).enumerate() {
            let wide = match arg {
                Arg::U128(v) => Some(v.to_le_bytes().to_vec()),
                Arg::Bytes(b) => Some(b.clone()),
                _ => None,
            };
            if let Some(bytes) = wide {
                if bytes.len() != size as usize {
                    return Err(SimError::BadInput(format!(
                        "argument {k} of kernel `{}`: a {}-byte value for a {size}-byte parameter",
                        self.name,
                        bytes.len()
                    )));
                }
                let at = slot as usize;
                params[at..at + bytes.len()].copy_from_slice(&bytes);
                continue;
            }
            let (v, want) = match arg {
                Arg::U8(v) => (u64::from(*v), 1),
                Arg::U16(v) => (u64::from(*v), 2),
                Arg::U32(v) => (u64::from(*v), 4),
                Arg::U64(v) => (*v, 8),
                Arg::U128(_) | Arg::Bytes(_) => unreachable!("written above"),
                Arg::Buffer(data) => {
                    buffer_regions.push(mem.regions.len());
                    let a = mem.add_region(&format!("buffer {}", buffers.len()), data.clone());
                    buffers.push(a);
                    (a, 8)
                }
                Arg::Ptr(b, off) => {
                    let base = *buffers.get(*b).ok_or_else(|| {
                        SimError::BadInput(format!("argument {k}: no buffer {b} (yet)"))
                    })?;
                    (base + off, 8)
                }
            };
            if want != size {
                return Err(SimError::BadInput(format!(
                    "argument {k} of kernel `{}`: a {want}-byte value for a {size}-byte parameter",
                    self.name
                )));
            }
            memory::write(&mut params, slot as usize, u64::from(size), v);
        }
        launch::write_pointers(
            &launch.pointers,
            &buffers,
            &buffer_regions,
            &mut mem.regions,
            &mut params,
            &info.params,
        )?;
        let shared = self.static_shared + u64::from(launch.dynamic_shared);
        // Shared memory starts uninitialised on a GPU: a recognisable non-zero pattern, so that
        // a kernel that forgets to initialise it does not pass by luck.
        let cluster_dims = launch.cluster.or(self.cluster).unwrap_or([1; 3]);
        if cluster_dims.contains(&0)
            || (0..3).any(|d| grid[d] % cluster_dims[d] != 0)
            || cluster_dims.iter().product::<u32>() > 16
        {
            return Err(SimError::BadInput(format!(
                "clusters of {cluster_dims:?} CTAs do not fit a grid of {grid:?}: each component must divide the grid's, and a cluster has at most 16 CTAs"
            )));
        }
        if let Some(l) = launch.cluster
            && l != [1; 3]
            && let Some(why) = launch::clusters_unavailable(&self.target)
        {
            return Err(SimError::BadInput(format!(
                "a launch with clusters of {l:?} CTAs (`Launch::cluster`): {why}"
            )));
        }
        if let (Some(l), Some(k)) = (launch.cluster, self.cluster)
            && l != k
        {
            return Err(SimError::BadInput(format!(
                "kernel `{}` declares clusters of {k:?} CTAs (.reqnctapercluster) and the launch asks for {l:?}",
                self.name
            )));
        }
        mem.shape = cluster::Shape {
            grid,
            cluster: cluster_dims,
        };
        if cluster_dims != [1; 3] && shared >= cluster::OFFSET_MASK {
            return Err(SimError::BadInput(format!(
                "{shared} bytes of shared memory per CTA: a cluster launch reaches at most 16 MiB"
            )));
        }
        let cluster_size = cluster_dims.iter().product::<u32>();
        let resident = launch
            .resident_ctas
            .unwrap_or_else(|| sched::residency::resident_ctas(cta_threads as u32));
        if resident < cluster_size {
            return Err(SimError::BadInput(format!(
                "{resident} resident CTAs (`Launch::resident_ctas`) cannot hold one cluster of {cluster_size} CTAs"
            )));
        }
        let resident_clusters = resident / cluster_size;
        if launch.cooperative && ctas > u64::from(resident_clusters * cluster_size) {
            return Err(SimError::BadInput(format!(
                "a cooperative launch of {ctas} CTAs, more than the {} that can be resident at once (cudaLaunchCooperativeKernel refuses it: cudaErrorCooperativeLaunchTooLarge)",
                resident_clusters * cluster_size
            )));
        }
        let start = sched::residency::ThreadStart {
            nregs: info.nregs,
            local_size: info.local_size as u32,
            entry_pc: info.entry,
            grid,
            block,
            shared_fill: SHARED_FILL,
        };
        let n = (ctas * cta_threads) as u32;
        let mem_shape = mem.shape;
        let race = launch.race_detection.then(|| {
            let mut places: Vec<race::Place> = (0..n)
                .map(|t| {
                    let c = t / cta_threads as u32;
                    let ctaid = [c % grid[0], c / grid[0] % grid[1], c / (grid[0] * grid[1])];
                    race::Place {
                        cta: c,
                        cluster: mem_shape.cluster_of(ctaid),
                        device: true,
                    }
                })
                .collect();
            for h in 0..hosts.len() as u32 {
                places.push(race::Place {
                    cta: u32::MAX - h,
                    cluster: u32::MAX - h,
                    device: false,
                });
            }
            race::Race::new(places, self.prog.has_nc)
        });
        let mut world = World {
            prog: &self.prog,
            mem,
            race,
            grid,
            block,
            time: 0,
            instructions: 0,
            progress: false,
            mb_clocks: Vec::new(),
            race_hit: None,
            volatile_plain: launch.volatile == VolatileMode::Plain,
            printed: Vec::new(),
            envregs,
            entry_params: params,
        };
        let mut s = sched::Scheduler::new(
            &mut world,
            start,
            shared as usize,
            resident_clusters,
            hosts,
            launch.mode,
            launch.seed,
            buffers,
        );
        let completed = s.run(launch.hang_bound);
        let findings = std::mem::take(&mut s.findings);
        Ok(Outcome {
            seed: launch.seed,
            completed: completed && findings.is_empty(),
            findings,
            buffers: buffer_regions
                .iter()
                .map(|&r| world.mem.regions[r].data.clone())
                .collect(),
            instructions: world.instructions,
            printed: std::mem::take(&mut world.printed),
        })
    }
}
