//! The operand forms of the instructions outside the interpreter's hot path (boxed in
//! [`super::Op`] so that the hot forms stay small): floating point with rounding modifiers, the
//! bit and wide integer operations, `cvt` with rounding, `setp` with two destinations, vector
//! accesses, the warp collectives, `bar.red` and `cp.async`.

use super::{Addr, BinOp, Cmp, Scope, Sem, Space, Src, Ty};

/// A floating-point rounding modifier (`.rn` by default).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Round {
    /// To nearest, ties to even (also what `.approx` and `.full` compute here: the exact result
    /// rounded, within every error bound the ISA gives).
    Rn,
    /// Toward zero.
    Rz,
    /// Toward minus infinity.
    Rm,
    /// Toward plus infinity.
    Rp,
}

/// The floating-point operations outside the interpreter's hot path.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
    Fma,
    Sqrt,
    Rsqrt,
    Rcp,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Tanh,
    /// `copysign d, a, b`: `b` with the sign of `a`.
    Copysign,
    /// `testp.op`: a predicate on the class of `a`.
    Testp(TestClass),
    /// `min`/`max` (the hot path's semantics), here for their `.ftz` form.
    Min,
    Max,
    /// `abs`/`neg` (a sign change), here for their `.ftz` form.
    Abs,
    Neg,
}

/// The classes `testp` tests.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TestClass {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

/// A cold floating-point instruction: operation, rounding, `.sat`, `.ftz`, type, destination,
/// sources.
#[derive(Clone, Debug)]
pub struct FloatInst {
    pub op: FloatOp,
    pub round: Round,
    pub sat: bool,
    /// `.ftz` on `.f32`: subnormal sources and results are flushed to zero of the same sign.
    pub ftz: bool,
    pub ty: Ty,
    pub d: u32,
    pub src: [Src; 3],
}

/// Integer bit-manipulation and wide arithmetic outside the hot path.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BitsOp {
    /// `prmt.b32{.mode} d, a, b, c`: byte permute (the mode's index, 0 for the default).
    Prmt(u8),
    /// `bfi.b32 d, a, b, pos, len`: insert `len` bits of `a` into `b` at `pos`.
    Bfi,
    /// `bfind{.shiftamt}.type d, a`: the most significant non-sign bit.
    Bfind(bool),
    /// `shf.{l,r}.{wrap,clamp}.b32 d, a, b, c`: funnel shift (left, wrap).
    Shf(bool, bool),
    /// `sad.type d, a, b, c`: `|a - b| + c`.
    Sad,
    /// `slct.dtype.stype d, a, b, c`: `c >= 0 ? a : b` (`c` of `stype`, in `src_ty`).
    Slct(Ty),
    /// `mad.wide.type d, a, b, c`: `a * b` at twice the width plus `c`.
    MadWide,
    /// `cnot.type d, a`: 1 when `a` is 0, else 0.
    Cnot,
    /// `mul24.{lo,hi}` / `mad24.{lo,hi}`: products of the low 24 bits (high half when true).
    Mul24(bool, bool),
    /// `dp4a.atype.btype d, a, b, c`: `c` plus the four byte products (a signed, b signed).
    Dp4a(bool, bool),
    /// `dp2a.{lo,hi}.atype.btype d, a, b, c`: `c` plus the products of `a`'s two 16-bit halves
    /// with two bytes of `b` (its upper two when the first is true), (a signed, b signed).
    Dp2a(bool, bool, bool),
}

/// A cold integer instruction: operation, type, destination, sources.
#[derive(Clone, Debug)]
pub struct BitsInst {
    pub op: BitsOp,
    pub ty: Ty,
    pub d: u32,
    pub src: [Src; 4],
}

/// `cvt` with a rounding modifier or `.sat`.
#[derive(Clone, Debug)]
pub struct CvtInst {
    pub dst_ty: Ty,
    pub src_ty: Ty,
    /// `.rn`/`.rz`/`.rm`/`.rp` (to a float), or with `int` the integer rounding
    /// `.rni`/`.rzi`/`.rmi`/`.rpi` (to an integer value).
    pub round: Option<Round>,
    pub int: bool,
    pub sat: bool,
    /// `.ftz` with an `.f32` source or destination: a subnormal one is flushed to zero.
    pub ftz: bool,
    pub d: u32,
    pub a: Src,
    /// The second source of the packing form (converted to the lower half).
    pub b: Option<Src>,
}

/// `setp` with a second (negated) destination or a combining predicate:
/// `setp.cmp{.bool}.type p{|q}, a, b{, {!}c}`.
#[derive(Clone, Debug)]
pub struct SetpInst {
    pub cmp: Cmp,
    pub ty: Ty,
    /// `.ftz` on `.f32`: subnormal sources compare as zero of the same sign.
    pub ftz: bool,
    /// `.and`/`.or`/`.xor` with `c` (`BinOp::And` … ), if any.
    pub combine: Option<(BinOp, Src, bool)>,
    pub p: u32,
    pub q: Option<u32>,
    pub a: Src,
    pub b: Src,
}

/// A vector access: `ld`/`st` `.v2`/`.v4` with its element registers (loads) or sources
/// (stores); the memory model treats it as one scalar access per element (PTX ISA 8.2.4).
#[derive(Clone, Debug)]
pub struct VecInst {
    pub store: bool,
    pub space: Space,
    pub sem: Sem,
    pub scope: Scope,
    pub ty: Ty,
    pub nc: bool,
    /// Destination registers (`None` for `_`) or sources.
    pub regs: Vec<Option<Src>>,
    pub addr: Addr,
}

/// The warp-level collectives: each waits for the lanes of its member mask.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum WarpOp {
    /// `shfl.sync.{up,down,bfly,idx}.b32 d{|p}, a, b, c, membermask`.
    Shfl(ShflMode),
    /// `vote.sync.{all,any,uni}.pred` / `vote.sync.ballot.b32`.
    Vote(VoteMode),
    /// `match.any.sync.b32/b64 d, a, membermask`.
    MatchAny,
    /// `match.all.sync.b32/b64 d{|p}, a, membermask`.
    MatchAll,
    /// `redux.sync.op.type d, a, membermask`.
    Redux(ReduxOp),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ReduxOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

/// A warp collective: operation, type, destinations, sources (`a`, `b`, `c` as the
/// instruction has them; vote's predicate is `a`, negated when `negate`), member mask.
#[derive(Clone, Debug)]
pub struct WarpInst {
    pub op: WarpOp,
    pub ty: Ty,
    pub d: Option<u32>,
    /// `shfl`'s and `match.all`'s predicate destination.
    pub p: Option<u32>,
    pub src: [Src; 3],
    pub negate: bool,
    pub mask: Src,
}

/// `bar.red.{popc,and,or}`: the reduction over the participating threads' predicates.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BarRedOp {
    Popc,
    And,
    Or,
}

/// A vector access of the parameter space (`st.param.v4`, `ld.param.v4`): elements of `ty` at
/// consecutive offsets from `slot`.
#[derive(Clone, Debug)]
pub struct ParamVecInst {
    pub store: bool,
    pub ty: Ty,
    pub slot: u32,
    /// Sources (stores) or destination registers (loads; `None` for `_`).
    pub regs: Vec<Option<Src>>,
}

/// A decoded `cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size}`.
#[derive(Clone, Debug)]
pub struct CpAsyncInst {
    pub dst: Addr,
    pub src: Addr,
    pub size: u8,
    pub src_size: Option<Src>,
}
