//! The decoded instruction set: types, scopes, semantics, state spaces, operands and the
//! compact instruction forms the interpreter runs, with the helpers that read PTX qualifiers.

pub use super::parse::SrcPos;
use super::parse::type_size;
use std::collections::HashMap;

mod cold;
pub use cold::*;

/// Value kind of an instruction type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    B,
    U,
    S,
    /// IEEE binary floats: `f16`, `f32`, `f64` by size.
    F,
    /// `bf16` (2 bytes): the high half of an `f32`.
    Bf,
    /// `f16x2` (4 bytes): two `f16` lanes, the first in the low half.
    F16x2,
    /// `bf16x2` (4 bytes): two `bf16` lanes.
    Bf16x2,
}

impl Kind {
    /// Any floating-point kind, packed or not.
    #[inline(always)]
    pub fn is_float(self) -> bool {
        matches!(self, Kind::F | Kind::Bf | Kind::F16x2 | Kind::Bf16x2)
    }
}

/// An instruction type: kind and size in bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Ty {
    pub kind: Kind,
    pub bytes: u8,
}

impl Ty {
    pub fn parse(s: &str) -> Option<Ty> {
        let s = s.trim_start_matches('.');
        // The half-precision kinds whose first letter does not say them.
        let half = match s {
            "bf16" => Some((Kind::Bf, 2)),
            "f16x2" => Some((Kind::F16x2, 4)),
            "bf16x2" => Some((Kind::Bf16x2, 4)),
            _ => None,
        };
        if let Some((kind, bytes)) = half {
            return Some(Ty { kind, bytes });
        }
        let kind = match s.as_bytes().first()? {
            b'b' => Kind::B,
            b'u' => Kind::U,
            b's' => Kind::S,
            b'f' => Kind::F,
            b'p' if s == "pred" => return Some(Ty::PRED),
            _ => return None,
        };
        Some(Ty {
            kind,
            bytes: type_size(s)? as u8,
        })
    }
    pub const PRED: Ty = Ty {
        kind: Kind::U,
        bytes: 1,
    };
    pub fn bits(self) -> u32 {
        u32::from(self.bytes) * 8
    }
    pub fn mask(self) -> u64 {
        if self.bytes >= 8 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }
}

/// Memory scope of an operation.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Scope {
    Cta,
    Cluster,
    Gpu,
    Sys,
}

impl Scope {
    pub fn ptx(self) -> &'static str {
        match self {
            Scope::Cta => "cta",
            Scope::Cluster => "cluster",
            Scope::Gpu => "gpu",
            Scope::Sys => "sys",
        }
    }
}

/// Semantics of a memory operation or fence.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Sem {
    /// A plain (weak) access: never morally strong.
    Weak,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    Sc,
    /// `ld.volatile`/`st.volatile`: relaxed at system scope by the PTX rule (PTX ISA 8.4.2); a
    /// plain access when a launch asks for CUDA C++'s view ([`super::VolatileMode::Plain`]).
    Volatile,
}

impl Sem {
    /// Whether an access with this semantics is strong (morally strong candidates), given
    /// whether volatile accesses count as plain ones.
    #[inline(always)]
    pub fn strong(self, volatile_plain: bool) -> bool {
        match self {
            Sem::Weak => false,
            Sem::Volatile => !volatile_plain,
            _ => true,
        }
    }
    pub fn acquires(self) -> bool {
        matches!(self, Sem::Acquire | Sem::AcqRel | Sem::Sc)
    }
    pub fn releases(self) -> bool {
        matches!(self, Sem::Release | Sem::AcqRel | Sem::Sc)
    }
}

/// State space named by an instruction (`Generic` when none).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Space {
    Generic,
    Global,
    /// `.shared` / `.shared::cta`: the executing CTA's own shared memory only.
    Shared,
    /// `.shared::cluster`: the shared memory of any CTA of the cluster.
    SharedCluster,
    Local,
    Const,
}

/// A special register.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Special {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    LaneId,
    WarpId,
    NWarpId,
    SmId,
    Clock,
    Clock64,
    GlobalTimer,
    ClusterCtaRank,
    ClusterNCtaRank,
    ClusterCtaId(u8),
    ClusterNCtaId(u8),
    ClusterId(u8),
    NClusterId(u8),
    LaneMaskEq,
    LaneMaskLt,
    LaneMaskLe,
    LaneMaskGt,
    LaneMaskGe,
    GlobalTimerLo,
    GlobalTimerHi,
    /// `%envreg0`..`%envreg31`: what the driver passes (a cooperative launch's grid workspace
    /// in `%envreg1:%envreg2`; 0 otherwise).
    EnvReg(u8),
}

/// A source operand.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Src {
    Reg(u32),
    Imm(u64),
    Special(Special),
    /// A `.local` variable of the current frame, at this offset of its local area.
    Local(u64),
}

/// A memory address operand: base plus constant offset.
#[derive(Clone, Copy, Debug)]
pub struct Addr {
    pub base: Src,
    pub off: i64,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BinOp {
    Add,
    Sub,
    MulLo,
    MulHi,
    MulWide,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Min,
    Max,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum UnOp {
    Mov,
    Not,
    Neg,
    Abs,
    Popc,
    Clz,
    Brev,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Cmp {
    /// The ordered comparisons: false when either operand is a NaN.
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// The unordered comparisons (`equ`, `neu`, …): true when either operand is a NaN.
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    /// `nan`: either operand is a NaN.
    Nan,
    /// `num`: neither operand is a NaN.
    Num,
}

/// A read-modify-write operation of `atom`/`red`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rmw {
    Add,
    Exch,
    Cas,
    And,
    Or,
    Xor,
    Min,
    Max,
    Inc,
    Dec,
}

/// Callee of a call.
#[derive(Clone, Copy, Debug)]
pub enum Callee {
    Direct(u32),
    Indirect(Src),
    /// CUDA's `printf`: the `vprintf(format, args)` the toolkit's runtime provides.
    Vprintf,
    /// CUDA's failed `assert`: `__assertfail(message, file, line, function, char size)`.
    AssertFail,
    /// The device heap's `malloc(size)`: a new global region of its own.
    Malloc,
    /// The device heap's `free(ptr)`: the region is gone (later accesses fault).
    Free,
}

/// A decoded instruction.
#[derive(Clone, Debug)]
pub enum Op {
    Un(UnOp, Ty, u32, Src),
    Bin(BinOp, Ty, u32, Src, Src),
    Mad(bool, Ty, u32, Src, Src, Src),
    Selp(Ty, u32, Src, Src, Src),
    Setp(Cmp, Ty, u32, Src, Src),
    PredBin(BinOp, u32, Src, Src),
    Cvt(Ty, Ty, u32, Src),
    /// `bfe.type d, a, pos, len`: bit field extract (sign-extended for signed types).
    Bfe(Ty, u32, Src, Src, Src),
    /// `mov.b64 {lo, hi}, a` (None for `_`) / `mov.b32 {lo, hi}, a`; with 16 bytes,
    /// `mov.b128 {lo, hi}, %q` (a `.b128` register is two adjacent 64-bit slots, low first).
    Unpack(u8, Option<u32>, Option<u32>, Src),
    Pack(u8, u32, Src, Src),
    /// The carry chain of multi-word arithmetic (128-bit `fetch_add`/`fetch_sub`):
    /// `add.cc`/`addc{.cc}`/`sub.cc`/`subc{.cc}`: whether it subtracts, takes `CC.CF` in,
    /// writes it out.
    AddC(bool, bool, bool, Ty, u32, Src, Src),
    Cvta(bool, Space, u32, Src),
    Isspacep(Space, u32, Src),
    /// `isspacep.shared::cluster`: any CTA's shared memory of the cluster.
    IsspacepCluster(u32, Src),
    /// `mapa` (generic when true, else `.shared::cluster`): dst, address, rank.
    Mapa(bool, u32, Src, Src),
    /// `barrier.cluster.arrive` (`.relaxed` when true).
    ClusterArrive(bool),
    /// `barrier.cluster.wait`.
    ClusterWait,
    Ld(Space, Sem, Scope, Ty, u32, Addr),
    St(Space, Sem, Scope, Ty, Addr, Src),
    Atom(Space, Sem, Scope, Rmw, Ty, Option<u32>, Addr, Src, Src),
    LdParam(Ty, u32, u32),
    /// `ld.param.v2.<ty> {d0, d1}, [param]` (a 128-bit parameter as two 64-bit halves).
    LdParamV2(Ty, u32, u32, u32),
    StParam(Ty, u32, Src),
    Fence(Sem, Scope),
    /// `bar.sync`/`barrier.sync{.aligned}`: id, thread count, whether `.aligned`.
    Bar(Src, Option<Src>, bool),
    /// `bar.warp.sync membermask`: the warp-level barrier among the mask's lanes.
    BarWarp(Src),
    /// `bar.arrive a, b`: arrival at barrier `a` (of `b` threads) without waiting.
    BarArrive(Src, Src),
    /// `bar.red.op d, a{, b}, {!}c`: reduction op, destination, barrier, count, predicate, negated.
    BarRed(BarRedOp, u32, Src, Option<Src>, Src, bool),
    /// A warp collective (shfl, vote, match, redux).
    Warp(Box<WarpInst>),
    /// `activemask.b32 d`: the lanes of the warp executing it together.
    ActiveMask(u32),
    /// A cold floating-point operation.
    Float(Box<FloatInst>),
    /// A cold integer operation.
    Bits(Box<BitsInst>),
    /// `cvt` with rounding or saturation.
    CvtR(Box<CvtInst>),
    /// `setp` with two destinations or a combining predicate.
    SetpX(Box<SetpInst>),
    /// A vector `ld`/`st`.
    Vector(Box<VecInst>),
    /// `ld.global.nc`: a read through the non-coherent path (scalar).
    LdNc(Ty, u32, Addr),
    /// A vector access of the parameter space.
    ParamVector(Box<ParamVecInst>),
    /// No effect here (`fence.proxy.alias`: generic accesses need no proxy fence).
    Nop,
    /// `cp.async.{ca,cg}.shared.global`: a copy issued, completed at the thread's wait.
    CpAsync(Box<CpAsyncInst>),
    /// `cp.async.commit_group`.
    CpAsyncCommit,
    /// `cp.async.wait_group n` (`Some(n)`) or `cp.async.wait_all` (`None`).
    CpAsyncWait(Option<u32>),
    /// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [mbar]`: the copies complete, then
    /// (with `.noinc`, when true) one arrival on the mbarrier. Every mbarrier operation's
    /// [`Space`] is the one its instruction names (`Generic` for the generic forms): the address
    /// is read in it, as `ld`/`st` read theirs.
    CpAsyncMbArrive(Space, Addr, bool),
    MbInit(Space, Addr, Src),
    /// `mbarrier.arrive{_drop}{.noComplete}`: token register, object, count, whether `_drop`,
    /// whether `.noComplete` (must not complete the phase). The token holds the phase in its low
    /// 32 bits and the arrivals pending *before* this arrive in its high 32 bits. Last, the
    /// arrive's scope (`.cta` unless `.cluster`).
    MbArrive(Option<u32>, Space, Addr, Option<Src>, bool, bool, Scope),
    /// `mbarrier.pending_count.b64 dst, state`: the pending count of a token.
    MbPendingCount(u32, Src),
    /// `mbarrier.test_wait`/`try_wait{.parity}`: predicate, state space, object, token or
    /// parity, whether `.parity`, and the wait's scope (`.cta` unless `.cluster`).
    MbTestWait(u32, Space, Addr, Src, bool, Scope),
    MbInval(Space, Addr),
    Nanosleep(Src),
    /// `trap`, with the library check it belongs to where its guard names one.
    Trap(Option<super::library_checks::LibraryCheck>),
    Exit,
    Ret,
    Bra(u32),
    Call(Callee, Vec<u32>, Vec<u32>),
}

/// One decoded instruction with its guard and where it came from.
#[derive(Clone, Debug)]
pub struct Inst {
    pub guard: Option<(u32, bool)>,
    pub op: Op,
    pub line: u32,
    /// The source position of its `.loc`, and the kernel author's line for it (see
    /// [`crate::parse::RawInstr`]).
    pub src: SrcPos,
    pub caller: SrcPos,
}

/// Layout of one decoded function.
#[derive(Clone, Debug)]
pub struct FuncInfo {
    pub entry: u32,
    pub nregs: u32,
    /// Size of the frame's parameter area; incoming parameters and return values first.
    pub param_size: u32,
    pub params: Vec<(u32, u32)>,
    pub rets: Vec<(u32, u32)>,
    pub local_size: u64,
}

/// What a symbol names, for decoding operands.
#[derive(Clone, Copy, Debug)]
pub enum Symbol {
    /// A global or constant variable at this global address.
    Global(u64),
    /// A shared variable at this shared-space offset.
    Shared(u64),
    Func(u32),
}

/// The decoded program: every reachable function's instructions in one array.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Whether any instruction reads through `ld.global.nc` (the race detector then remembers
    /// every global write to check them).
    pub has_nc: bool,
    pub insts: Vec<Inst>,
    pub opcodes: Vec<String>,
    pub funcs: Vec<FuncInfo>,
    /// Module function index → decoded function index.
    pub by_module_index: HashMap<u32, u32>,
    /// The source files of the module's `.file` directives by number.
    pub files: HashMap<u32, String>,
}

pub fn float_literal(s: &str) -> Option<u64> {
    if s.contains('.') || s.contains('e') {
        s.parse::<f64>().ok().map(f64::to_bits)
    } else {
        None
    }
}

pub fn special(s: &str) -> Option<Special> {
    let (base, dim) = match s.rsplit_once('.') {
        Some((b, d)) if matches!(d, "x" | "y" | "z") => (b, d.as_bytes()[0] - b'x'),
        _ => (s, 0),
    };
    Some(match base {
        "%tid" => Special::Tid(dim),
        "%ntid" => Special::Ntid(dim),
        "%ctaid" => Special::Ctaid(dim),
        "%nctaid" => Special::Nctaid(dim),
        "%laneid" => Special::LaneId,
        "%warpid" => Special::WarpId,
        "%nwarpid" => Special::NWarpId,
        "%smid" => Special::SmId,
        "%clock" => Special::Clock,
        "%clock64" => Special::Clock64,
        "%globaltimer" => Special::GlobalTimer,
        "%cluster_ctarank" => Special::ClusterCtaRank,
        "%cluster_nctarank" => Special::ClusterNCtaRank,
        "%cluster_ctaid" => Special::ClusterCtaId(dim),
        "%cluster_nctaid" => Special::ClusterNCtaId(dim),
        "%clusterid" => Special::ClusterId(dim),
        "%nclusterid" => Special::NClusterId(dim),
        "%lanemask_eq" => Special::LaneMaskEq,
        "%lanemask_lt" => Special::LaneMaskLt,
        "%lanemask_le" => Special::LaneMaskLe,
        "%lanemask_gt" => Special::LaneMaskGt,
        "%lanemask_ge" => Special::LaneMaskGe,
        "%globaltimer_lo" => Special::GlobalTimerLo,
        "%globaltimer_hi" => Special::GlobalTimerHi,
        _ => match base
            .strip_prefix("%envreg")
            .and_then(|n| n.parse::<u8>().ok())
        {
            Some(n) if n < 32 => Special::EnvReg(n),
            _ => return None,
        },
    })
}

/// Qualifiers of a memory instruction, read from its dotted suffixes.
pub struct Quals {
    pub sem: Sem,
    pub scope: Option<Scope>,
    pub space: Space,
    pub ty: Option<Ty>,
    pub rmw: Option<Rmw>,
    /// `.nc`: the non-coherent read-only path of `ld.global.nc`.
    pub nc: bool,
    /// `.v2`/`.v4`: elements of a vector access (1 for a scalar one).
    pub vector: u8,
    pub others: Vec<String>,
}

pub fn quals(parts: &[&str]) -> Quals {
    let mut q = Quals {
        sem: Sem::Weak,
        scope: None,
        space: Space::Generic,
        ty: None,
        rmw: None,
        nc: false,
        vector: 1,
        others: Vec::new(),
    };
    for p in parts {
        match *p {
            "relaxed" => q.sem = Sem::Relaxed,
            "acquire" => q.sem = Sem::Acquire,
            "release" => q.sem = Sem::Release,
            "acq_rel" => q.sem = Sem::AcqRel,
            "sc" => q.sem = Sem::Sc,
            "volatile" => {
                // ld/st.volatile: relaxed at system scope (PTX ISA, memory consistency model).
                q.sem = Sem::Volatile;
                q.scope = Some(Scope::Sys);
            }
            "cta" => q.scope = Some(Scope::Cta),
            "cluster" => q.scope = Some(Scope::Cluster),
            "gpu" => q.scope = Some(Scope::Gpu),
            "sys" => q.scope = Some(Scope::Sys),
            "global" => q.space = Space::Global,
            "shared" | "shared::cta" => q.space = Space::Shared,
            "shared::cluster" => q.space = Space::SharedCluster,
            "L1::no_allocate"
            | "L1::evict_last"
            | "L1::evict_first"
            | "L1::evict_normal"
            | "L1::evict_unchanged"
            | "L2::evict_last"
            | "L2::evict_first"
            | "L2::evict_normal"
            | "L2::64B"
            | "L2::128B"
            | "L2::256B"
            // The policy operand after the others (from `createpolicy`) is not read.
            | "L2::cache_hint" => {}
            "local" => q.space = Space::Local,
            "v2" => q.vector = 2,
            "v4" => q.vector = 4,
            "v8" => q.vector = 8,
            "const" => q.space = Space::Const,
            "add" => q.rmw = Some(Rmw::Add),
            "exch" => q.rmw = Some(Rmw::Exch),
            "cas" => q.rmw = Some(Rmw::Cas),
            "and" => q.rmw = Some(Rmw::And),
            "or" => q.rmw = Some(Rmw::Or),
            "xor" => q.rmw = Some(Rmw::Xor),
            "min" => q.rmw = Some(Rmw::Min),
            "max" => q.rmw = Some(Rmw::Max),
            "inc" => q.rmw = Some(Rmw::Inc),
            "dec" => q.rmw = Some(Rmw::Dec),
            "nc" => q.nc = true,
            "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" | "aligned" | "noftz" | "ftz" => {}
            t => match Ty::parse(t) {
                Some(ty) => q.ty = Some(ty),
                None => q.others.push(t.to_string()),
            },
        }
    }
    q
}
