//! The interpreter's cold arithmetic: floating point with rounding modifiers and
//! approximations ([`super::fmath`]), the bit and wide integer operations, `cvt` with rounding
//! and saturation, `setp` with two destinations or a combining predicate.

use super::decode::{BinOp, BitsInst, BitsOp, CvtInst, FloatInst, Kind, Round, SetpInst, Ty};
use super::exec::{Thread, World};
use super::fmath::{self, Fmt};
use super::values::{compare, sext};

impl World<'_> {
    #[cold]
    pub(super) fn float(&mut self, th: &mut Thread, f: &FloatInst) {
        let src = f.src.map(|s| self.val(th, s));
        Self::set(
            th,
            f.d,
            fmath::float_op(f.op, f.round, f.sat, f.ftz, f.ty, src),
        );
    }

    #[cold]
    pub(super) fn bits(&mut self, th: &mut Thread, b: &BitsInst) {
        let s = b.src.map(|s| self.val(th, s));
        Self::set(th, b.d, bits_op(b.op, b.ty, s));
    }

    #[cold]
    pub(super) fn cvt(&mut self, th: &mut Thread, c: &CvtInst) {
        let f32 = Ty {
            kind: Kind::F,
            bytes: 4,
        };
        let a = self.val(th, c.a);
        let a = if c.ftz && c.src_ty == f32 {
            fmath::flush_f32(a)
        } else {
            a
        };
        let v = match c.b {
            // The packing form: `a` to the upper half, `b` to the lower.
            Some(b) => {
                let b = self.val(th, b);
                let half = Ty {
                    kind: if c.dst_ty.kind == Kind::F16x2 {
                        Kind::F
                    } else {
                        Kind::Bf
                    },
                    bytes: 2,
                };
                let one = |v| convert_rounded(half, c.src_ty, c.round, false, c.sat, v);
                (one(a) << 16) | one(b)
            }
            None => convert_rounded(c.dst_ty, c.src_ty, c.round, c.int, c.sat, a),
        };
        let v = if c.ftz && c.dst_ty == f32 {
            fmath::flush_f32(v)
        } else {
            v
        };
        Self::set(th, c.d, v);
    }

    #[cold]
    pub(super) fn setp(&mut self, th: &mut Thread, x: &SetpInst) {
        let (a, b) = (self.val(th, x.a), self.val(th, x.b));
        let flush = |v| if x.ftz { fmath::flush_f32(v) } else { v };
        let t = compare(x.cmp, x.ty, flush(a), flush(b));
        let combine = |t: bool| match x.combine {
            None => t,
            Some((op, c, negate)) => {
                let c = (self.val(th, c) != 0) != negate;
                match op {
                    BinOp::And => t && c,
                    BinOp::Or => t || c,
                    _ => t != c,
                }
            }
        };
        let (p, q) = (combine(t), combine(!t));
        Self::set(th, x.p, u64::from(p));
        if let Some(qd) = x.q {
            Self::set(th, qd, u64::from(q));
        }
    }
}

/// The value of an integer register at type `ty` (sign-extended for signed types).
fn int_value(ty: Ty, v: u64) -> i128 {
    if ty.kind == Kind::S {
        i128::from(sext(v, ty.bytes))
    } else {
        i128::from(v & ty.mask())
    }
}

/// The range of integer type `ty`.
fn int_range(ty: Ty) -> (i128, i128) {
    let bits = ty.bits();
    if ty.kind == Kind::S {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// An integer result written at type `ty` (signed results sign-extended to 64 bits).
fn int_result(ty: Ty, v: i128) -> u64 {
    let v = v as u64 & ty.mask();
    if ty.kind == Kind::S {
        sext(v, ty.bytes) as u64
    } else {
        v
    }
}

/// `cvt` with a rounding modifier (`int`: the integer rounding `.rni` …) and `.sat`.
pub fn convert_rounded(
    dst: Ty,
    src: Ty,
    round: Option<Round>,
    int: bool,
    sat: bool,
    a: u64,
) -> u64 {
    let mode = round.unwrap_or(Round::Rn);
    let integral = |x: f64| match mode {
        Round::Rn => x.round_ties_even(),
        Round::Rz => x.trunc(),
        Round::Rm => x.floor(),
        Round::Rp => x.ceil(),
    };
    match (src.kind.is_float(), dst.kind.is_float()) {
        (true, true) => {
            let (sf, df) = (Fmt::of(src).0, Fmt::of(dst).0);
            let mut x = sf.to_f64(a);
            if int {
                x = integral(x);
            }
            let r = fmath::round(x, 0, if int { Round::Rn } else { mode }, df);
            if sat { fmath::saturate(df, r) } else { r }
        }
        (false, true) => {
            let v = int_value(src, a);
            let x = v as f64;
            let dir = (v - x as i128).signum() as i8;
            let df = Fmt::of(dst).0;
            let r = fmath::round(x, dir, mode, df);
            if sat { fmath::saturate(df, r) } else { r }
        }
        (true, false) => {
            // Float to integer saturates to the destination's range; a NaN gives 0.
            let x = Fmt::of(src).0.to_f64(a);
            let (lo, hi) = int_range(dst);
            let v = if x.is_nan() {
                0
            } else {
                let r = integral(x);
                if r <= lo as f64 {
                    lo
                } else if r >= hi as f64 {
                    hi
                } else {
                    r as i128
                }
            };
            int_result(dst, v)
        }
        (false, false) => {
            let v = int_value(src, a);
            let v = if sat {
                let (lo, hi) = int_range(dst);
                v.clamp(lo, hi)
            } else {
                v
            };
            int_result(dst, v)
        }
    }
}

/// `prmt`'s byte selection: the default mode from the selector's nibbles (bit 3 replicates
/// the byte's sign), the others from the fixed patterns of the ISA (indices of d.b0 … d.b3).
fn permute(mode: u8, a: u64, b: u64, c: u64) -> u64 {
    let bytes = (a & 0xffff_ffff) | (b & 0xffff_ffff) << 32;
    let byte = |i: u64| (bytes >> (8 * (i & 7))) & 0xff;
    let n = (c & 3) as usize;
    let pick = |idx: [u64; 4]| {
        idx.iter()
            .enumerate()
            .fold(0, |d, (k, &i)| d | byte(i) << (8 * k))
    };
    match mode {
        0 => (0..4).fold(0, |d, k| {
            let sel = (c >> (4 * k)) & 0xf;
            let v = byte(sel & 7);
            let v = if sel & 8 != 0 {
                if v & 0x80 != 0 { 0xff } else { 0 }
            } else {
                v
            };
            d | v << (8 * k)
        }),
        // f4e: bytes n, n+1, n+2, n+3.
        1 => pick([n as u64, n as u64 + 1, n as u64 + 2, n as u64 + 3]),
        // b4e: bytes n, n-1, n-2, n-3 into d.b0 … d.b3 (mod 8).
        2 => {
            let n = n as u64;
            pick([n, (n + 7) & 7, (n + 6) & 7, (n + 5) & 7])
        }
        // rc8: byte n everywhere.
        3 => pick([n as u64; 4]),
        // ecl: d.bk = byte max(k, n).
        4 => pick([0, 1, 2, 3].map(|k: u64| k.max(n as u64))),
        // ecr: d.bk = byte min(k, n).
        5 => pick([0, 1, 2, 3].map(|k: u64| k.min(n as u64))),
        // rc16: the half word n & 1 twice.
        _ => {
            let h = (n as u64 & 1) * 2;
            pick([h, h + 1, h, h + 1])
        }
    }
}

/// The cold integer operations on raw register values.
pub fn bits_op(op: BitsOp, ty: Ty, s: [u64; 4]) -> u64 {
    let bits = ty.bits();
    let m = ty.mask();
    match op {
        BitsOp::Prmt(mode) => permute(mode, s[0], s[1], s[2]),
        BitsOp::Bfi => {
            let (pos, len) = (s[2] & 0xff, s[3] & 0xff);
            if len == 0 || pos >= u64::from(bits) {
                return s[1] & m;
            }
            let len = len.min(u64::from(bits) - pos);
            let field = if len >= 64 { u64::MAX } else { (1 << len) - 1 };
            ((s[1] & !(field << pos)) | ((s[0] & field) << pos)) & m
        }
        BitsOp::Bfind(shiftamt) => {
            let a = int_value(ty, s[0]);
            let a = if a < 0 { !a } else { a } as u128 & u128::from(m);
            if a == 0 {
                return 0xffff_ffff;
            }
            let msb = 127 - a.leading_zeros();
            u64::from(if shiftamt { bits - 1 - msb } else { msb })
        }
        BitsOp::Shf(left, wrap) => {
            let n = if wrap {
                s[2] & 31
            } else {
                (s[2] & 0xffff_ffff).min(32)
            };
            let wide = (s[1] & 0xffff_ffff) << 32 | (s[0] & 0xffff_ffff);
            if left {
                (wide << n >> 32) & 0xffff_ffff
            } else {
                (wide >> n) & 0xffff_ffff
            }
        }
        BitsOp::Sad => {
            let (a, b) = (int_value(ty, s[0]), int_value(ty, s[1]));
            ((a - b).unsigned_abs() as u64).wrapping_add(s[2]) & m
        }
        BitsOp::Slct(c_ty) => {
            let non_negative = if c_ty.kind == Kind::F {
                f32::from_bits(s[2] as u32) >= 0.0
            } else {
                sext(s[2], 4) >= 0
            };
            (if non_negative { s[0] } else { s[1] }) & m
        }
        BitsOp::MadWide => {
            let wide = Ty {
                bytes: ty.bytes * 2,
                ..ty
            };
            let p = int_value(ty, s[0]) * int_value(ty, s[1]);
            int_result(wide, p.wrapping_add(i128::from(s[2] as i64)))
        }
        BitsOp::Cnot => u64::from(s[0] & m == 0),
        BitsOp::Mul24(hi, mad) => {
            let low24 = |v: u64| {
                if ty.kind == Kind::S {
                    i128::from(sext(v & 0xff_ffff, 3))
                } else {
                    i128::from(v & 0xff_ffff)
                }
            };
            let p = low24(s[0]) * low24(s[1]);
            let r = if hi { (p >> 16) as u64 } else { p as u64 };
            let r = if mad { r.wrapping_add(s[2]) } else { r };
            int_result(ty, i128::from(r & m))
        }
        BitsOp::Dp4a(a_signed, b_signed) => {
            let byte = |v: u64, k: u32, signed: bool| {
                let b = (v >> (8 * k)) & 0xff;
                if signed { sext(b, 1) } else { b as i64 }
            };
            let sum = (0..4).fold(s[2] as i64, |acc, k| {
                acc.wrapping_add(byte(s[0], k, a_signed) * byte(s[1], k, b_signed))
            });
            sum as u64 & 0xffff_ffff
        }
        BitsOp::Dp2a(hi, a_signed, b_signed) => {
            let part = |v: u64, bits: u32, k: u32, signed: bool| {
                let x = (v >> (bits * k)) & ((1 << bits) - 1);
                if signed {
                    sext(x, (bits / 8) as u8)
                } else {
                    x as i64
                }
            };
            let first = if hi { 2 } else { 0 };
            let sum = (0..2).fold(s[2] as i64, |acc, k| {
                acc.wrapping_add(part(s[0], 16, k, a_signed) * part(s[1], 8, first + k, b_signed))
            });
            sum as u64 & 0xffff_ffff
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: &str) -> Ty {
        Ty::parse(s).unwrap()
    }

    /// `dp4a`/`dp2a` by the ISA's definition: byte (and half-word) products, each operand
    /// sign- or zero-extended by its type, added to `c` modulo 2^32.
    #[test]
    fn dot_products_extend_each_operand_by_its_type() {
        let u = ty("u32");
        // a = bytes 1, 2, 3, 0xff; b = bytes 4, 5, 6, 2.
        let (a, b) = (0xff03_0201, 0x0206_0504);
        assert_eq!(
            bits_op(BitsOp::Dp4a(false, false), u, [a, b, 10, 0]),
            10 + 4 + 10 + 18 + 510
        );
        assert_eq!(
            bits_op(BitsOp::Dp4a(true, false), u, [a, b, 10, 0]),
            10 + 4 + 10 + 18 - 2
        );
        let minus_one = bits_op(BitsOp::Dp4a(true, true), u, [0xff, 0x01, 0, 0]);
        assert_eq!(minus_one, 0xffff_ffff);
        // a = halves 3, -1 (0xffff); b bytes 0..3 = 1, 2, 3, 4.
        let (a, b) = (0xffff_0003, 0x0403_0201);
        assert_eq!(
            bits_op(BitsOp::Dp2a(false, true, false), u, [a, b, 0, 0]),
            3 - 2
        );
        assert_eq!(
            bits_op(BitsOp::Dp2a(true, true, false), u, [a, b, 0, 0]),
            9 - 4
        );
        assert_eq!(
            bits_op(BitsOp::Dp2a(true, false, false), u, [a, b, 0, 0]),
            9 + 0xffff * 4
        );
    }

    #[test]
    fn cvt_rounds_saturates_and_clamps() {
        let f = |x: f32| u64::from(x.to_bits());
        let s32 = ty("s32");
        let cvt = |round, x| convert_rounded(s32, ty("f32"), Some(round), true, false, f(x)) as i64;
        assert_eq!(cvt(Round::Rn, 2.5), 2);
        assert_eq!(cvt(Round::Rn, 3.5), 4);
        assert_eq!(cvt(Round::Rz, -2.7), -2);
        assert_eq!(cvt(Round::Rm, -2.2), -3);
        assert_eq!(cvt(Round::Rp, 2.2), 3);
        assert_eq!(cvt(Round::Rz, 1e20), i64::from(i32::MAX));
        assert_eq!(cvt(Round::Rz, f32::NAN), 0);
        let u8t = ty("u8");
        assert_eq!(
            convert_rounded(u8t, ty("f32"), Some(Round::Rn), true, false, f(300.0)),
            255
        );
        assert_eq!(
            convert_rounded(ty("f32"), ty("f32"), None, false, true, f(1.5)),
            f(1.0)
        );
        assert_eq!(
            convert_rounded(ty("u8"), s32, None, false, true, (-4i64) as u64),
            0
        );
    }

    #[test]
    fn bit_operations_follow_the_isa() {
        let b32 = ty("b32");
        // prmt default mode: selector 0x5140 picks b.b1, a.b1, b.b0, a.b0 into d.b3 … d.b0.
        assert_eq!(
            bits_op(BitsOp::Prmt(0), b32, [0x4433_2211, 0x8877_6655, 0x5140, 0]),
            0x6622_5511
        );
        // Sign replication: selector bit 3.
        assert_eq!(
            bits_op(BitsOp::Prmt(0), b32, [0x80, 0, 0x8888, 0]),
            0xffff_ffff
        );
        assert_eq!(
            bits_op(BitsOp::Bfi, b32, [0b101, 0xffff_0000, 4, 3]),
            0xffff_0050
        );
        assert_eq!(bits_op(BitsOp::Bfind(false), ty("u32"), [0x10, 0, 0, 0]), 4);
        assert_eq!(bits_op(BitsOp::Bfind(true), ty("u32"), [0x10, 0, 0, 0]), 27);
        assert_eq!(
            bits_op(BitsOp::Bfind(false), ty("s32"), [(-2i64) as u64, 0, 0, 0]),
            0
        );
        assert_eq!(
            bits_op(BitsOp::Bfind(false), ty("u32"), [0, 0, 0, 0]),
            0xffff_ffff
        );
        assert_eq!(
            bits_op(BitsOp::Shf(true, true), b32, [0x8000_0000, 1, 1, 0]),
            3
        );
        // Clamped at 32: the high word whole.
        assert_eq!(bits_op(BitsOp::Shf(false, false), b32, [0, 1, 40, 0]), 1);
        assert_eq!(
            bits_op(BitsOp::Sad, ty("s32"), [(-3i64) as u64, 4, 1, 0]),
            8
        );
        assert_eq!(
            bits_op(BitsOp::MadWide, ty("u32"), [0xffff_ffff, 2, 1, 0]),
            0x1_ffff_ffff
        );
    }
}
