//! A litmus test (as `ptx-litmus` parses it) as one PTX kernel for `ptx-sim`: one GPU thread per
//! litmus thread, each CTA of the test a block of the launch and each cluster a cluster, each
//! location a global buffer of its own holding its initial value, and each thread's registers
//! written to an output buffer when it ends. Every PTX line that executes a litmus instruction is
//! mapped back to the instruction's thread and line, so that a race the simulator names by PTX
//! line can be looked up among the checker's racing pairs. A thread placed on the host is left
//! to the caller (a host thread of the simulator, `host.rs`).
//!
//! What the translation cannot express is refused with the reason (counted by the caller):
//! several GPUs (the simulator runs one device), virtual aliases and the
//! texture, surface and constant proxies, `atom`/`red` operations PTX lacks (`mul`, `div`),
//! values outside 32 bits, fences and read-modify-writes of host threads, loops in tests with
//! barriers.

use super::layout::layout;
use ptx_litmus::program::{
    AluOp, BarOp, BarRed, Cmp, FenceKind, Instr, Litmus, Operand, Proxy, RmwOp, Scope, Sem,
};
use std::collections::{BTreeMap, HashMap};

/// A litmus test as a kernel and its launch.
pub struct Kernel {
    /// The PTX module (kernel `litmus`).
    pub ptx: String,
    /// The litmus threads that run on the host, in the order of the launch's host threads.
    pub hosts: Vec<usize>,
    /// Blocks in x (one per CTA of the test, clusters padded to one size).
    pub blocks: u32,
    /// Threads per block: the most litmus threads of one CTA, times the lanes each has.
    pub threads_per_block: u32,
    /// CTAs per cluster, when the test places threads in clusters.
    pub cluster: Option<u32>,
    /// The locations in buffer order (buffer 1 onwards, or 4 bytes apart in buffer 1 when
    /// `packed`) with their initial values.
    pub locations: Vec<(String, i64)>,
    /// Whether the locations share one buffer.
    pub packed: bool,
    /// Per litmus thread, the registers it writes to the output buffer, in order (the slots of
    /// thread `k` follow those of threads before it), with their initial values.
    pub registers: Vec<Vec<(String, i64)>>,
    /// PTX line → (litmus thread, litmus line) of the instruction it executes.
    pub lines: HashMap<u32, (usize, usize)>,
}

/// Keeps a line count while PTX is written, and the map from PTX lines to litmus instructions.
struct Writer {
    text: String,
    line: u32,
    lines: HashMap<u32, (usize, usize)>,
}

impl Writer {
    /// Writes one line of PTX, mapped to litmus instruction `from` when given.
    fn emit(&mut self, s: &str, from: Option<(usize, usize)>) {
        self.line += 1;
        self.text.push_str(s);
        self.text.push('\n');
        if let Some(f) = from {
            self.lines.insert(self.line, f);
        }
    }
}

fn fits(v: i64) -> Result<i64, String> {
    if i32::try_from(v).is_ok() {
        Ok(v)
    } else {
        Err(format!("the value {v} does not fit 32 bits"))
    }
}

fn scope(s: Scope) -> &'static str {
    match s {
        Scope::Cta => "cta",
        Scope::Cluster => "cluster",
        Scope::Gpu => "gpu",
        Scope::Sys => "sys",
    }
}

fn cmp(c: Cmp) -> &'static str {
    match c {
        Cmp::Eq => "eq",
        Cmp::Ne => "ne",
        Cmp::Lt => "lt",
        Cmp::Le => "le",
        Cmp::Gt => "gt",
        Cmp::Ge => "ge",
    }
}

/// The ordering qualifiers of an access: `` (weak), `.relaxed.gpu`, `.acquire.cta`, ….
fn sem_scope(sem: Sem, s: Scope) -> String {
    match sem {
        Sem::Weak => String::new(),
        Sem::Relaxed => format!(".relaxed.{}", scope(s)),
        Sem::Acquire => format!(".acquire.{}", scope(s)),
        Sem::Release => format!(".release.{}", scope(s)),
        Sem::AcqRel => format!(".acq_rel.{}", scope(s)),
    }
}

/// Translates `t`, or says why it cannot be: each location a buffer of its own, or with
/// `packed` all in one buffer, 4 bytes apart.
pub fn translate(t: &Litmus, packed: bool) -> Result<Kernel, String> {
    if !t.aliases.is_empty() {
        return Err("virtual aliases (the simulator has one address per location)".into());
    }
    if t.threads.iter().enumerate().any(|(k, th)| th.id != k) {
        return Err("threads not numbered P0, P1, … in order".into());
    }
    let (place, blocks, per_block, cluster) = layout(t)?;
    // A host thread's code: loads, stores, register arithmetic and branches (the simulator's
    // host threads have no fences or read-modify-writes).
    for (th, p) in t.threads.iter().zip(&place) {
        for l in th.code.iter().filter(|_| p.is_none()) {
            if !matches!(
                l.instr,
                Instr::Ld { .. }
                    | Instr::St { .. }
                    | Instr::Alu { .. }
                    | Instr::Label(_)
                    | Instr::Branch { .. }
            ) {
                return Err(format!("`{}` in a host thread", l.text));
            }
        }
    }
    // The simulator, like the PTX ISA, takes barrier thread counts in multiples of the warp
    // size: in a test with barriers each litmus thread is a warp whose lane 0 does the thread's
    // accesses and broadcasts the values it loads, every lane taking the same path to the same
    // barriers (so counts are 32 times the test's, and `popc` results 32 times too many).
    let has_bar = t
        .threads
        .iter()
        .any(|th| th.code.iter().any(|l| matches!(l.instr, Instr::Bar { .. })));
    if has_bar && t.threads.iter().any(spins) {
        return Err("a loop in a test with barriers (its warp's broadcasts are progress to the simulator, which then never reports the hang)".into());
    }
    let lanes: u32 = if has_bar { 32 } else { 1 };
    // A barrier may count more threads than a CTA of the test has (a barrier that never
    // fills): the block holds that many, the others exiting at once.
    let most_counted = t
        .threads
        .iter()
        .flat_map(|th| &th.code)
        .filter_map(|l| match &l.instr {
            Instr::Bar {
                count: Some(Operand::Imm(c)),
                ..
            } => u32::try_from(*c).ok(),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let per_block = per_block.max(most_counted);
    let lead = if has_bar { "@%p4 " } else { "" };
    // Litmus threads per CTA, for barriers without a thread count ("every thread of the CTA").
    let mut cta_size: HashMap<u32, u32> = HashMap::new();
    for &(b, _) in place.iter().flatten() {
        *cta_size.entry(b).or_default() += 1;
    }
    // Locations: those initialised and those accessed, in name order.
    let mut locs: BTreeMap<String, i64> = BTreeMap::new();
    for (l, v) in &t.init_mem {
        locs.insert(l.clone(), fits(*v)?);
    }
    for th in &t.threads {
        for l in &th.code {
            if let Instr::Ld { loc, proxy, .. }
            | Instr::St { loc, proxy, .. }
            | Instr::Atom { loc, proxy, .. } = &l.instr
            {
                if *proxy != Proxy::Generic {
                    return Err(format!("the {proxy:?} proxy (line {})", l.line));
                }
                locs.entry(loc.clone()).or_insert(0);
            }
        }
    }
    let loc_index: HashMap<&str, usize> = locs
        .keys()
        .enumerate()
        .map(|(i, l)| (l.as_str(), i))
        .collect();
    // Registers of each thread: those written and those initialised.
    let mut registers = Vec::new();
    for th in &t.threads {
        let mut regs: BTreeMap<String, i64> = BTreeMap::new();
        for ((k, r), v) in &t.init_regs {
            if *k == th.id {
                regs.insert(r.clone(), fits(*v)?);
            }
        }
        for l in &th.code {
            let mut add = |r: &String| {
                regs.entry(r.clone()).or_insert(0);
            };
            match &l.instr {
                Instr::Ld { dst, .. } | Instr::Alu { dst, .. } => add(dst),
                Instr::Atom { dst: Some(d), .. } => add(d),
                Instr::Bar {
                    op: BarOp::Red { dst, .. },
                    ..
                } => add(dst),
                _ => {}
            }
            for o in operands(&l.instr) {
                match o {
                    Operand::Reg(r) => add(r),
                    Operand::Imm(v) => {
                        fits(*v)?;
                    }
                }
            }
        }
        registers.push(regs.into_iter().collect::<Vec<_>>());
    }
    let mut w = Writer {
        text: String::new(),
        line: 0,
        lines: HashMap::new(),
    };
    w.emit(".version 8.0", None);
    w.emit(".target sm_90", None);
    w.emit(".address_size 64", None);
    w.emit("", None);
    let mut params = vec!["\t.param .u64 p_out".to_string()];
    let buffers = if packed {
        locs.len().min(1)
    } else {
        locs.len()
    };
    params.extend((0..buffers).map(|i| format!("\t.param .u64 p_loc{i}")));
    w.emit(".visible .entry litmus(", None);
    let last = params.len() - 1;
    for (i, p) in params.iter().enumerate() {
        w.emit(&format!("{p}{}", if i < last { "," } else { "" }), None);
    }
    w.emit(")", None);
    w.emit("{", None);
    let total_regs: usize = registers.iter().map(Vec::len).sum();
    w.emit(&format!("\t.reg .b32 %r<{}>;", total_regs + 8), None);
    w.emit("\t.reg .b32 %q<8>;", None);
    w.emit(&format!("\t.reg .b64 %rd<{}>;", locs.len() + 4), None);
    w.emit("\t.reg .pred %p<5>;", None);
    // %rd0: the output buffer; %rd(i+1): location i.
    w.emit("\tld.param.u64 %rd0, [p_out];", None);
    w.emit("\tcvta.to.global.u64 %rd0, %rd0;", None);
    for i in 0..buffers {
        w.emit(&format!("\tld.param.u64 %rd{}, [p_loc{i}];", i + 1), None);
        w.emit(
            &format!("\tcvta.to.global.u64 %rd{}, %rd{};", i + 1, i + 1),
            None,
        );
    }
    if packed {
        // Location i at byte 4 i of the one buffer: two locations share each 8-byte granule.
        for i in 1..locs.len() {
            w.emit(&format!("\tadd.s64 %rd{}, %rd1, {};", i + 1, 4 * i), None);
        }
    }
    w.emit("\tmov.u32 %q0, %ctaid.x;", None);
    w.emit("\tmov.u32 %q1, %tid.x;", None);
    if has_bar {
        // %q1: the warp (litmus thread) in the block; %p4: lane 0.
        w.emit("\tand.b32 %q4, %q1, 31;", None);
        w.emit("\tsetp.eq.u32 %p4, %q4, 0;", None);
        w.emit("\tshr.u32 %q1, %q1, 5;", None);
    }
    for (k, (b, i)) in place
        .iter()
        .enumerate()
        .filter_map(|(k, p)| p.map(|p| (k, p)))
    {
        w.emit(&format!("\tsetp.eq.u32 %p0, %q0, {b};"), None);
        w.emit(&format!("\tsetp.eq.and.u32 %p0, %q1, {i}, %p0;"), None);
        w.emit(&format!("\t@%p0 bra THREAD{k};"), None);
    }
    w.emit("\tret;", None);
    let mut base = 0usize;
    for (k, th) in t.threads.iter().enumerate() {
        if place[k].is_none() {
            // A host thread runs on the host (the caller interprets its code).
            base += registers[k].len();
            continue;
        }
        let reg_no: HashMap<&str, usize> = registers[k]
            .iter()
            .enumerate()
            .map(|(i, (r, _))| (r.as_str(), base + i))
            .collect();
        let r = |name: &str| format!("%r{}", reg_no[name]);
        let op = |o: &Operand| match o {
            Operand::Imm(v) => v.to_string(),
            Operand::Reg(n) => r(n),
        };
        let addr = |loc: &str| format!("%rd{}", loc_index[loc] + 1);
        let label = |name: &str| {
            let clean: String = name
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            format!("L{k}_{clean}")
        };
        w.emit(&format!("THREAD{k}:"), None);
        for (name, v) in &registers[k] {
            w.emit(&format!("\tmov.b32 {}, {v};", r(name)), None);
        }
        for l in &th.code {
            let at = Some((th.id, l.line));
            match &l.instr {
                Instr::Ld {
                    sem,
                    scope: s,
                    dst,
                    loc,
                    ..
                } => {
                    w.emit(
                        &format!(
                            "\t{lead}ld{}.global.u32 {}, [{}];",
                            sem_scope(*sem, *s),
                            r(dst),
                            addr(loc)
                        ),
                        at,
                    );
                    if has_bar {
                        broadcast(&mut w, &r(dst), at);
                    }
                }
                Instr::St {
                    sem,
                    scope: s,
                    loc,
                    val,
                    ..
                } => w.emit(
                    &format!(
                        "\t{lead}st{}.global.u32 [{}], {};",
                        sem_scope(*sem, *s),
                        addr(loc),
                        op(val)
                    ),
                    at,
                ),
                Instr::Atom {
                    sem,
                    scope: s,
                    op: rmw,
                    dst,
                    loc,
                    a,
                    b,
                    ..
                } => {
                    let (name, ty) = match rmw {
                        RmwOp::Add | RmwOp::Sub => ("add", "s32"),
                        RmwOp::Exch => ("exch", "b32"),
                        RmwOp::Cas => ("cas", "b32"),
                        RmwOp::Inc => ("inc", "u32"),
                        RmwOp::Dec => ("dec", "u32"),
                        RmwOp::And => ("and", "b32"),
                        RmwOp::Or => ("or", "b32"),
                        RmwOp::Xor => ("xor", "b32"),
                        RmwOp::Min => ("min", "s32"),
                        RmwOp::Max => ("max", "s32"),
                        RmwOp::Mul | RmwOp::Div => {
                            return Err(format!("`{}`: PTX has no such atom operation", l.text));
                        }
                    };
                    if dst.is_none() && matches!(sem, Sem::Acquire | Sem::AcqRel) {
                        return Err(format!("`{}`: red has no acquire form", l.text));
                    }
                    if dst.is_none() && *rmw == RmwOp::Cas {
                        return Err(format!("`{}`: red has no cas form", l.text));
                    }
                    // `sub` is `add` of the negated operand.
                    let a = if *rmw == RmwOp::Sub {
                        match a {
                            Operand::Imm(v) => fits(-*v)?.to_string(),
                            Operand::Reg(n) => {
                                w.emit(&format!("\tneg.s32 %q2, {};", r(n)), at);
                                "%q2".into()
                            }
                        }
                    } else {
                        op(a)
                    };
                    let sem = match sem {
                        Sem::Weak => sem_scope(Sem::Relaxed, *s),
                        other => sem_scope(*other, *s),
                    };
                    let b = b
                        .as_ref()
                        .map(|b| format!(", {}", op(b)))
                        .unwrap_or_default();
                    match dst {
                        Some(d) => {
                            w.emit(
                                &format!(
                                    "\t{lead}atom{sem}.global.{name}.{ty} {}, [{}], {a}{b};",
                                    r(d),
                                    addr(loc)
                                ),
                                at,
                            );
                            if has_bar {
                                broadcast(&mut w, &r(d), at);
                            }
                        }
                        None => w.emit(
                            &format!(
                                "\t{lead}red{sem}.global.{name}.{ty} [{}], {a}{b};",
                                addr(loc)
                            ),
                            at,
                        ),
                    }
                }
                Instr::Fence { kind, scope: s } => {
                    let k = match kind {
                        FenceKind::Sc => "sc",
                        FenceKind::AcqRel => "acq_rel",
                        FenceKind::Acquire => "acquire",
                        FenceKind::Release => "release",
                        FenceKind::ProxyAlias | FenceKind::Proxy(_) => {
                            return Err(format!("`{}`: a proxy fence", l.text));
                        }
                    };
                    w.emit(&format!("\t{lead}fence.{k}.{};", scope(*s)), at);
                }
                Instr::Bar { op: bop, id, count } => {
                    // `barrier.*` (not `.aligned`): litmus threads of one CTA share a warp and
                    // reach their barriers at different instructions. Without a count, the
                    // barrier waits for every litmus thread of the CTA.
                    let count = match count {
                        Some(Operand::Imm(c)) => (c * i64::from(lanes)).to_string(),
                        Some(Operand::Reg(c)) => {
                            w.emit(&format!("\tmul.lo.s32 %q5, {}, {lanes};", r(c)), at);
                            "%q5".into()
                        }
                        None => (cta_size[&place[k].expect("a GPU thread").0] * lanes).to_string(),
                    };
                    match bop {
                        BarOp::Sync => w.emit(&format!("\tbarrier.sync {}, {count};", op(id)), at),
                        BarOp::Arrive => {
                            w.emit(&format!("\tbarrier.arrive {}, {count};", op(id)), at)
                        }
                        BarOp::Red {
                            op: red,
                            dst,
                            pred,
                            negate,
                        } => {
                            w.emit(&format!("\tsetp.ne.s32 %p1, {}, 0;", op(pred)), at);
                            let not = if *negate { "!" } else { "" };
                            match red {
                                BarRed::Popc => {
                                    w.emit(
                                        &format!(
                                            "\tbarrier.red.popc.u32 {}, {}, {count}, {not}%p1;",
                                            r(dst),
                                            op(id)
                                        ),
                                        at,
                                    );
                                    // Every lane of a litmus thread's warp counted.
                                    w.emit(&format!("\tdiv.u32 {0}, {0}, {lanes};", r(dst)), at);
                                }
                                BarRed::And | BarRed::Or => {
                                    let red = if *red == BarRed::And { "and" } else { "or" };
                                    w.emit(
                                        &format!(
                                            "\tbarrier.red.{red}.pred %p2, {}, {count}, {not}%p1;",
                                            op(id)
                                        ),
                                        at,
                                    );
                                    w.emit(&format!("\tselp.s32 {}, 1, 0, %p2;", r(dst)), at);
                                }
                            }
                        }
                    }
                }
                Instr::Alu { op: alu, dst, a, b } => {
                    let (d, a, b) = (r(dst), op(a), op(b));
                    let simple = |name: &str| format!("\t{name} {d}, {a}, {b};");
                    match alu {
                        AluOp::Add => w.emit(&simple("add.s32"), at),
                        AluOp::Sub => w.emit(&simple("sub.s32"), at),
                        AluOp::And => w.emit(&simple("and.b32"), at),
                        AluOp::Or => w.emit(&simple("or.b32"), at),
                        AluOp::Xor => w.emit(&simple("xor.b32"), at),
                        AluOp::Min => w.emit(&simple("min.s32"), at),
                        AluOp::Max => w.emit(&simple("max.s32"), at),
                        AluOp::Shl => w.emit(&simple("shl.b32"), at),
                        AluOp::Shr => w.emit(&simple("shr.u32"), at),
                        AluOp::Mul => w.emit(&simple("mul.lo.s32"), at),
                        AluOp::Second => w.emit(&format!("\tmov.b32 {d}, {b};"), at),
                        AluOp::Div => {
                            // The litmus `div` gives 0 for a zero divisor.
                            w.emit(&format!("\tmov.b32 %q3, {b};"), at);
                            w.emit("\tsetp.eq.s32 %p3, %q3, 0;", at);
                            w.emit("\tselp.s32 %q3, 1, %q3, %p3;", at);
                            w.emit(&format!("\tdiv.s32 %q3, {a}, %q3;"), at);
                            w.emit(&format!("\tselp.s32 {d}, 0, %q3, %p3;"), at);
                        }
                        AluOp::Set(c) => {
                            w.emit(&format!("\tsetp.{}.s32 %p3, {a}, {b};", cmp(*c)), at);
                            w.emit(&format!("\tselp.s32 {d}, 1, 0, %p3;"), at);
                        }
                        AluOp::Inc | AluOp::Dec => {
                            return Err(format!("`{}`: inc/dec of registers", l.text));
                        }
                    }
                }
                Instr::Label(name) => w.emit(&format!("{}:", label(name)), None),
                Instr::Branch { cond, target } => match cond {
                    None => w.emit(&format!("\tbra.uni {};", label(target)), at),
                    Some((c, a, b)) => {
                        w.emit(
                            &format!("\tsetp.{}.s32 %p3, {}, {};", cmp(*c), op(a), op(b)),
                            at,
                        );
                        w.emit(&format!("\t@%p3 bra {};", label(target)), at);
                    }
                },
            }
        }
        // The final values of the registers, in the thread's slots of the output buffer.
        for (i, (name, _)) in registers[k].iter().enumerate() {
            w.emit(
                &format!(
                    "\t{lead}st.global.u32 [%rd0+{}], {};",
                    4 * (base + i),
                    r(name)
                ),
                None,
            );
        }
        w.emit("\tret;", None);
        base += registers[k].len();
    }
    w.emit("}", None);
    Ok(Kernel {
        ptx: w.text,
        blocks,
        threads_per_block: per_block * lanes,
        cluster,
        locations: locs.into_iter().collect(),
        packed,
        registers,
        lines: w.lines,
        hosts: (0..t.threads.len())
            .filter(|&k| place[k].is_none())
            .collect(),
    })
}

/// Whether a thread branches back (a loop).
fn spins(th: &ptx_litmus::program::Thread) -> bool {
    let labels = th.labels();
    th.code.iter().enumerate().any(|(at, l)| match &l.instr {
        Instr::Branch { target, .. } => labels.get(target.as_str()).is_some_and(|&to| to <= at),
        _ => false,
    })
}

/// Lane 0's value of `reg` to every lane of its warp.
fn broadcast(w: &mut Writer, reg: &str, at: Option<(usize, usize)>) {
    w.emit(
        &format!("\tshfl.sync.idx.b32 {reg}, {reg}, 0, 31, 0xffffffff;"),
        at,
    );
}

/// The source operands of an instruction (to find its registers and check its immediates).
fn operands(i: &Instr) -> Vec<&Operand> {
    match i {
        Instr::St { val, .. } => vec![val],
        Instr::Atom { a, b, .. } => std::iter::once(a).chain(b).collect(),
        Instr::Bar { op, id, count } => {
            let mut v: Vec<&Operand> = std::iter::once(id).chain(count).collect();
            if let BarOp::Red { pred, .. } = op {
                v.push(pred);
            }
            v
        }
        Instr::Alu { a, b, .. } => vec![a, b],
        Instr::Branch {
            cond: Some((_, a, b)),
            ..
        } => vec![a, b],
        _ => Vec::new(),
    }
}
