//! The litmus program as parsed: thread placement, instructions, initial state and the final
//! condition. Only what the PTX memory model of the generic proxy talks about is representable.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// A scope of a strong operation (PTX ISA 8.5), narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// `.cta`: the threads of the same CTA.
    Cta,
    /// `.cluster`: the threads of the same cluster.
    Cluster,
    /// `.gpu`: the threads of the same device.
    Gpu,
    /// `.sys`: every thread of the program, the host's included.
    Sys,
}

impl Scope {
    /// The scope named by a PTX qualifier without its dot (`cta`, `cluster`, `gpu`, `sys`).
    ///
    /// ```
    /// use ptx_litmus::program::Scope;
    /// assert_eq!(Scope::from_qualifier("gpu"), Some(Scope::Gpu));
    /// assert_eq!(Scope::from_qualifier("warp"), None);
    /// ```
    pub fn from_qualifier(q: &str) -> Option<Scope> {
        Some(match q {
            "cta" => Scope::Cta,
            "cluster" => Scope::Cluster,
            "gpu" => Scope::Gpu,
            "sys" => Scope::Sys,
            _ => return None,
        })
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scope::Cta => "cta",
            Scope::Cluster => "cluster",
            Scope::Gpu => "gpu",
            Scope::Sys => "sys",
        })
    }
}

/// Where a thread runs: `Pn@cta C,gpu G` (optionally `cluster K`) or `Pn@host`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// A GPU thread. A CTA without a cluster is a cluster of its own.
    Gpu {
        /// Device number.
        gpu: i64,
        /// Cluster number, when given.
        cluster: Option<i64>,
        /// CTA number (within the device).
        cta: i64,
    },
    /// A CPU thread of the host program: its strong operations are `.sys`.
    Host,
}

impl Placement {
    /// Whether an operation of scope `scope` executed by a thread placed at `self` includes a
    /// thread placed at `other` (PTX ISA table 21).
    ///
    /// ```
    /// use ptx_litmus::program::{Placement, Scope};
    /// let a = Placement::Gpu { gpu: 0, cluster: None, cta: 0 };
    /// let b = Placement::Gpu { gpu: 0, cluster: None, cta: 1 };
    /// assert!(!a.scope_includes(Scope::Cta, &b));
    /// assert!(a.scope_includes(Scope::Gpu, &b));
    /// assert!(!a.scope_includes(Scope::Gpu, &Placement::Host));
    /// ```
    pub fn scope_includes(&self, scope: Scope, other: &Placement) -> bool {
        if scope == Scope::Sys {
            return true;
        }
        match (self, other) {
            (
                Placement::Gpu { gpu, cluster, cta },
                Placement::Gpu {
                    gpu: g2,
                    cluster: k2,
                    cta: c2,
                },
            ) => match scope {
                Scope::Cta => gpu == g2 && cta == c2,
                Scope::Cluster => {
                    gpu == g2
                        && match (cluster, k2) {
                            (Some(k), Some(k2)) => k == k2,
                            _ => cta == c2 && cluster == k2,
                        }
                }
                Scope::Gpu => gpu == g2,
                Scope::Sys => true,
            },
            // A host thread's operations are all `.sys`; a narrower scope never reaches across.
            _ => false,
        }
    }

    /// The CTA a thread belongs to, for `bar.cta.sync` (host threads have none).
    pub fn cta(&self) -> Option<(i64, i64)> {
        match self {
            Placement::Gpu { gpu, cta, .. } => Some((*gpu, *cta)),
            Placement::Host => None,
        }
    }
}

pub use super::text::Dialect;

/// The memory-ordering qualifier of a load, store or atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sem {
    /// `.weak` (or none on `ld`/`st`): not a strong operation.
    Weak,
    /// `.relaxed` (also `.volatile`, which is relaxed at system scope).
    Relaxed,
    /// `.acquire`.
    Acquire,
    /// `.release`.
    Release,
    /// `.acq_rel`.
    AcqRel,
}

impl Sem {
    /// Whether the operation is an acquire operation (PTX table 20).
    pub fn is_acquire(self) -> bool {
        matches!(self, Sem::Acquire | Sem::AcqRel)
    }
    /// Whether the operation is a release operation (PTX table 20).
    pub fn is_release(self) -> bool {
        matches!(self, Sem::Release | Sem::AcqRel)
    }
}

/// The method of a memory access (8.6): the generic proxy of `ld`/`st`/`atom`/`red`, or the
/// texture (`tld`), surface (`suld`/`sust`/`suatom`/`sured`) or constant (`cold`) proxy of
/// Dat3M's grammar.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Proxy {
    /// `ld`, `st`, `atom`, `red`.
    #[default]
    Generic,
    /// `tld`.
    Texture,
    /// `suld`, `sust`, `suatom`, `sured`.
    Surface,
    /// `cold`.
    Constant,
}

impl Proxy {
    /// The proxy of a `fence.proxy.KIND` or a `LOC@KIND aliases LOC` declaration.
    pub fn from_name(name: &str) -> Option<Proxy> {
        Some(match name {
            "generic" => Proxy::Generic,
            "texture" => Proxy::Texture,
            "surface" => Proxy::Surface,
            "constant" => Proxy::Constant,
            _ => return None,
        })
    }
}

/// The kind of a memory fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FenceKind {
    /// `fence.sc` (also `membar`, `fence.SCOPE`): an acquire-release fence that is also in Fence-SC order.
    Sc,
    /// `fence.acq_rel`.
    AcqRel,
    /// `fence.acquire` (PTX 8.6): acquire only.
    Acquire,
    /// `fence.release` (PTX 8.6): release only.
    Release,
    /// `fence.proxy.alias`: a proxy fence (not a memory fence, table 20) that makes accesses
    /// through virtual aliases ordered by causality through it (8.9.5, proxy-preserved base
    /// causality order, rule 3).
    ProxyAlias,
    /// `fence.proxy.texture`, `.surface`, `.constant` (and Dat3M's `.generic`): a proxy fence
    /// that orders accesses of that proxy with accesses of others to the same location along a
    /// base causality path through it (8.6, 8.9.5 rule 3 for proxies as for aliases).
    Proxy(Proxy),
}

impl FenceKind {
    /// Whether the fence completes an acquire pattern.
    pub fn acquires(self) -> bool {
        !matches!(
            self,
            FenceKind::Release | FenceKind::ProxyAlias | FenceKind::Proxy(_)
        )
    }
    /// Whether the fence starts a release pattern.
    pub fn releases(self) -> bool {
        !matches!(
            self,
            FenceKind::Acquire | FenceKind::ProxyAlias | FenceKind::Proxy(_)
        )
    }
    /// Whether it is a proxy fence (no memory fence: no pattern, no Fence-SC).
    pub fn is_proxy(self) -> bool {
        matches!(self, FenceKind::ProxyAlias | FenceKind::Proxy(_))
    }
}

/// The operation of an `atom` or `red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmwOp {
    /// `add` (also spelled `plus`).
    Add,
    /// `sub` (herd spells `minus`).
    Sub,
    /// `exch`: writes the operand.
    Exch,
    /// `cas`: writes the second operand when the value equals the first.
    Cas,
    /// `inc`: `old >= b ? 0 : old + 1`.
    Inc,
    /// `dec`: `old == 0 || old > b ? b : old - 1`.
    Dec,
    /// `and`.
    And,
    /// `or`.
    Or,
    /// `xor`.
    Xor,
    /// `min`.
    Min,
    /// `max`.
    Max,
    /// `mul` (Dat3M's grammar).
    Mul,
    /// `div` (Dat3M's grammar; division by zero gives 0).
    Div,
}

impl RmwOp {
    /// The operation named by a PTX or herd qualifier (`add`, `plus`, `exch`, `cas`, …).
    pub fn from_qualifier(q: &str) -> Option<RmwOp> {
        Some(match q {
            "add" | "plus" => RmwOp::Add,
            "sub" | "minus" => RmwOp::Sub,
            "exch" => RmwOp::Exch,
            "cas" => RmwOp::Cas,
            "inc" => RmwOp::Inc,
            "dec" => RmwOp::Dec,
            "and" => RmwOp::And,
            "or" => RmwOp::Or,
            "xor" => RmwOp::Xor,
            "min" => RmwOp::Min,
            "max" => RmwOp::Max,
            "mul" => RmwOp::Mul,
            "div" => RmwOp::Div,
            _ => return None,
        })
    }
}

/// An arithmetic operation of registers (`add r1, r0, 1`), also the value computation of an atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AluOp {
    /// `a + b` (wrapping).
    Add,
    /// `a - b` (wrapping).
    Sub,
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
    /// `a ^ b`.
    Xor,
    /// `min(a, b)`.
    Min,
    /// `max(a, b)`.
    Max,
    /// `a >= b ? 0 : a + 1` (`atom.inc`).
    Inc,
    /// `a == 0 || a > b ? b : a - 1` (`atom.dec`).
    Dec,
    /// `b` (`atom.exch`, `mov`).
    Second,
    /// `a << b` (emitted code's sub-word masks).
    Shl,
    /// `a >> b`, logical.
    Shr,
    /// `a * b` (wrapping).
    Mul,
    /// `a / b`, 0 when `b` is 0.
    Div,
    /// `a CMP b ? 1 : 0` (`setp`).
    Set(Cmp),
}

impl AluOp {
    /// Applies the operation.
    pub fn apply(self, a: i64, b: i64) -> i64 {
        match self {
            AluOp::Add => a.wrapping_add(b),
            AluOp::Sub => a.wrapping_sub(b),
            AluOp::And => a & b,
            AluOp::Or => a | b,
            AluOp::Xor => a ^ b,
            AluOp::Min => a.min(b),
            AluOp::Max => a.max(b),
            AluOp::Inc => {
                if a >= b {
                    0
                } else {
                    a + 1
                }
            }
            AluOp::Dec => {
                if a == 0 || a > b {
                    b
                } else {
                    a - 1
                }
            }
            AluOp::Second => b,
            AluOp::Shl => a.wrapping_shl(b as u32),
            AluOp::Shr => ((a as u64).wrapping_shr(b as u32)) as i64,
            AluOp::Mul => a.wrapping_mul(b),
            AluOp::Div => a.checked_div(b).unwrap_or(0),
            AluOp::Set(c) => i64::from(c.holds(a, b)),
        }
    }
}

/// A comparison of a branch or of the final condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl Cmp {
    /// Evaluates `a CMP b`.
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
    /// The comparison that holds exactly when `self` does not.
    pub fn negate(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
            Cmp::Lt => Cmp::Ge,
            Cmp::Le => Cmp::Gt,
            Cmp::Gt => Cmp::Le,
            Cmp::Ge => Cmp::Lt,
        }
    }
}

/// A source operand: an immediate or a register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A constant.
    Imm(i64),
    /// A register of the executing thread.
    Reg(String),
}

/// One instruction of a thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Instr {
    /// `ld.SEM.SCOPE dst, loc`.
    Ld {
        sem: Sem,
        scope: Scope,
        dst: String,
        loc: String,
        proxy: Proxy,
    },
    /// `st.SEM.SCOPE loc, val`.
    St {
        sem: Sem,
        scope: Scope,
        loc: String,
        val: Operand,
        proxy: Proxy,
    },
    /// `atom.SEM.SCOPE.OP dst, loc, a[, b]` (`dst` is `None` for `red`).
    Atom {
        sem: Sem,
        scope: Scope,
        op: RmwOp,
        dst: Option<String>,
        loc: String,
        a: Operand,
        b: Option<Operand>,
        proxy: Proxy,
    },
    /// A memory fence.
    Fence { kind: FenceKind, scope: Scope },
    /// A CTA barrier: `bar{.cta}.sync a{, b}`, `bar{.cta}.arrive a{, b}` or
    /// `bar{.cta}.red.OP d, a{, b}, {!}c`; `a` the barrier, `b` the number of threads that
    /// complete it (all threads of the CTA when absent).
    Bar {
        /// What the thread does at the barrier.
        op: BarOp,
        /// The barrier's logical id.
        id: Operand,
        /// The thread count, if given.
        count: Option<Operand>,
    },
    /// `dst = a OP b` (`mov` is `Second` with `a` = 0).
    Alu {
        op: AluOp,
        dst: String,
        a: Operand,
        b: Operand,
    },
    /// A label.
    Label(String),
    /// `goto L` (no condition) or `bCMP a, b, L`.
    Branch {
        cond: Option<(Cmp, Operand, Operand)>,
        target: String,
    },
}

/// What a thread does at a CTA barrier (PTX `bar`/`barrier`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BarOp {
    /// `bar.sync`: arrive and wait for the barrier to complete.
    Sync,
    /// `bar.arrive`: arrive without waiting.
    Arrive,
    /// `bar.red.OP dst, a, {!}pred`: arrive, wait, and receive the reduction of every
    /// participant's predicate.
    Red {
        /// The reduction.
        op: BarRed,
        /// The register receiving the result.
        dst: String,
        /// The predicate (non-zero is true), negated when `negate`.
        pred: Operand,
        /// `!c`.
        negate: bool,
    },
}

/// The reduction of `bar.red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarRed {
    /// `.popc.u32`: how many predicates are true.
    Popc,
    /// `.and.pred`: 1 when all are true.
    And,
    /// `.or.pred`: 1 when any is true.
    Or,
}

impl BarRed {
    /// The result for `trues` true predicates among `n`.
    ///
    /// ```
    /// use ptx_litmus::program::BarRed;
    /// assert_eq!(BarRed::Popc.apply(2, 3), 2);
    /// assert_eq!((BarRed::And.apply(2, 3), BarRed::Or.apply(2, 3)), (0, 1));
    /// ```
    pub fn apply(self, trues: usize, n: usize) -> i64 {
        match self {
            BarRed::Popc => trues as i64,
            BarRed::And => i64::from(trues == n),
            BarRed::Or => i64::from(trues > 0),
        }
    }
}

/// An instruction with its source line and text (for reports).
#[derive(Clone, Debug)]
pub struct Line {
    /// 1-based line number in the file.
    pub line: usize,
    /// The instruction's text as written.
    pub text: String,
    /// The instruction.
    pub instr: Instr,
}

/// A thread of the test.
#[derive(Clone, Debug)]
pub struct Thread {
    /// Its number `n` of `Pn`.
    pub id: usize,
    /// Where it runs.
    pub place: Placement,
    /// Its code in program order.
    pub code: Vec<Line>,
}

impl Thread {
    /// Each label of the code with the index of its line (a branch goes there).
    pub fn labels(&self) -> HashMap<&str, usize> {
        self.code
            .iter()
            .enumerate()
            .filter_map(|(k, l)| match &l.instr {
                Instr::Label(n) => Some((n.as_str(), k)),
                _ => None,
            })
            .collect()
    }
}

/// A value in the final condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    /// A constant.
    Const(i64),
    /// `Pn:reg`, the final value of a register.
    Reg(usize, String),
    /// The final value of a location.
    Loc(String),
}

/// A propositional formula over comparisons.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prop {
    /// `true`.
    True,
    /// `a CMP b`.
    Atom(Cmp, Term, Term),
    /// `~p`.
    Not(Box<Prop>),
    /// `p /\ q`.
    And(Box<Prop>, Box<Prop>),
    /// `p \/ q`.
    Or(Box<Prop>, Box<Prop>),
}

/// The quantifier of the final condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantifier {
    /// `exists`: some consistent execution satisfies the proposition.
    Exists,
    /// `~exists`: no consistent execution does.
    NotExists,
    /// `forall`: every consistent execution does.
    Forall,
}

impl fmt::Display for Quantifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
        })
    }
}

/// A whole litmus test.
#[derive(Clone, Debug)]
pub struct Litmus {
    /// The test's name (second word of the first line).
    pub name: String,
    /// Its threads, by number.
    pub threads: Vec<Thread>,
    /// Initial values of locations (others are 0).
    pub init_mem: BTreeMap<String, i64>,
    /// Initial values of registers (others are 0).
    pub init_regs: BTreeMap<(usize, String), i64>,
    /// The quantifier of the final condition.
    pub quantifier: Quantifier,
    /// The proposition of the final condition.
    pub prop: Prop,
    /// herd's `filter PROP`: executions whose final state does not satisfy it are left out
    /// before the condition is evaluated.
    pub filter: Option<Prop>,
    /// Virtual aliases (Dat3M's `y = x`, `y = &x`, `y@generic aliases x`): a location name
    /// that is another virtual address of the memory location it maps to.
    pub aliases: BTreeMap<String, String>,
}
