//! Floating-point arithmetic with PTX's rounding modifiers, exactly: each operation's exact
//! result is kept as an `f64` plus the sign of what that `f64` misses (error-free transforms:
//! two-sum, the `fma` residual of a product, a quotient or a square root, and an exact
//! expansion for `fma`), then rounded once to the destination format in the requested
//! direction. The approximations (`.approx`: `rsqrt`, `ex2`, `lg2`, `sin`, `cos`, `tanh`) are
//! computed in `f64` and rounded: a value within every error bound the ISA gives.

use super::isa::{BinOp, FloatOp, Kind, Round, TestClass, Ty, UnOp};
use super::values::{binary, half_from_f64, half_to_f32, unary};

/// A scalar floating-point format.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Fmt {
    F16,
    Bf16,
    F32,
    F64,
}

impl Fmt {
    /// The scalar format of a type and its lanes (2 for the packed pairs).
    pub fn of(ty: Ty) -> (Fmt, u32) {
        match (ty.kind, ty.bytes) {
            (Kind::F16x2, _) => (Fmt::F16, 2),
            (Kind::Bf16x2, _) => (Fmt::Bf16, 2),
            (Kind::Bf, _) => (Fmt::Bf16, 1),
            (_, 2) => (Fmt::F16, 1),
            (_, 4) => (Fmt::F32, 1),
            _ => (Fmt::F64, 1),
        }
    }

    fn bits(self) -> u32 {
        match self {
            Fmt::F16 | Fmt::Bf16 => 16,
            Fmt::F32 => 32,
            Fmt::F64 => 64,
        }
    }

    /// The value of `bits` in this format, exactly.
    pub fn to_f64(self, bits: u64) -> f64 {
        match self {
            Fmt::F16 => f64::from(half_to_f32(bits as u16, false)),
            Fmt::Bf16 => f64::from(half_to_f32(bits as u16, true)),
            Fmt::F32 => f64::from(f32::from_bits(bits as u32)),
            Fmt::F64 => f64::from_bits(bits),
        }
    }

    fn nearest(self, x: f64) -> u64 {
        match self {
            Fmt::F16 => u64::from(half_from_f64(x, false)),
            Fmt::Bf16 => u64::from(half_from_f64(x, true)),
            Fmt::F32 => u64::from((x as f32).to_bits()),
            Fmt::F64 => x.to_bits(),
        }
    }

    /// The neighbour of `bits` (not a NaN) toward plus infinity when `up`, else minus.
    fn step(self, bits: u64, up: bool) -> u64 {
        let sign = 1u64 << (self.bits() - 1);
        let magnitude = bits & !sign;
        if magnitude == 0 {
            // From a zero: the smallest subnormal of the direction's sign.
            return if up { 1 } else { sign | 1 };
        }
        let negative = bits & sign != 0;
        if up != negative { bits + 1 } else { bits - 1 }
    }
}

/// `x` plus an error of sign `dir` (the exact value), rounded to `fmt` by `mode`.
pub fn round(x: f64, dir: i8, mode: Round, fmt: Fmt) -> u64 {
    if x.is_nan() {
        return fmt.nearest(f64::NAN);
    }
    let up_wanted = match mode {
        Round::Rn => None,
        Round::Rp => Some(true),
        Round::Rm => Some(false),
        // Toward zero: up for negative values.
        Round::Rz => Some(x < 0.0 || (x == 0.0 && dir < 0)),
    };
    if fmt == Fmt::F64 {
        // `x` is the nearest f64 already: step when the exact value lies beyond it.
        return match up_wanted {
            Some(true) if dir > 0 => Fmt::F64.step(x.to_bits(), true),
            Some(false) if dir < 0 => Fmt::F64.step(x.to_bits(), false),
            _ => x.to_bits(),
        };
    }
    // Round to odd at f64 precision: the sticky bit survives the second rounding to a format
    // of at most 51 bits, in every direction.
    let mut x = x;
    if dir != 0 && x.is_finite() && x.to_bits() & 1 == 0 {
        x = f64::from_bits(Fmt::F64.step(x.to_bits(), dir > 0));
    }
    let r = fmt.nearest(x);
    let back = fmt.to_f64(r);
    match up_wanted {
        Some(up) if back != x && (back < x) == up => fmt.step(r, up),
        _ => r,
    }
}

/// (`a + b` rounded to nearest, its error).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

fn sign(v: f64) -> i8 {
    if v > 0.0 {
        1
    } else if v < 0.0 {
        -1
    } else {
        0
    }
}

/// The sign of the exact sum of `terms` (Shewchuk's growing expansion).
fn sum_sign(terms: &[f64]) -> i8 {
    let mut e: Vec<f64> = Vec::new();
    for &t in terms {
        let mut q = t;
        let mut h = Vec::with_capacity(e.len() + 1);
        for &x in &e {
            let (s, err) = two_sum(q, x);
            if err != 0.0 {
                h.push(err);
            }
            q = s;
        }
        if q != 0.0 {
            h.push(q);
        }
        e = h;
    }
    e.last().map_or(0, |&v| sign(v))
}

/// The exact result of `op` on `a`, `b`, `c` as (nearest `f64`, sign of the rest).
fn exact(op: FloatOp, a: f64, b: f64, c: f64) -> (f64, i8) {
    let finite = |r: f64, d: i8| if r.is_finite() { (r, d) } else { (r, 0) };
    match op {
        FloatOp::Add => {
            let (s, e) = two_sum(a, b);
            finite(s, sign(e))
        }
        FloatOp::Sub => {
            let (s, e) = two_sum(a, -b);
            finite(s, sign(e))
        }
        FloatOp::Mul => {
            let p = a * b;
            finite(p, sign(a.mul_add(b, -p)))
        }
        FloatOp::Fma => {
            let r = a.mul_add(b, c);
            let ph = a * b;
            let pl = a.mul_add(b, -ph);
            if !(r.is_finite() && ph.is_finite()) {
                return (r, 0);
            }
            (r, sum_sign(&[ph, pl, c, -r]))
        }
        FloatOp::Div | FloatOp::Rcp => {
            let (a, b) = if op == FloatOp::Rcp { (1.0, a) } else { (a, b) };
            let q = a / b;
            if !q.is_finite() || q == 0.0 || !b.is_finite() {
                return (q, 0);
            }
            (q, sign((-q).mul_add(b, a)) * sign(b))
        }
        FloatOp::Sqrt => {
            let q = a.sqrt();
            finite(q, sign((-q).mul_add(q, a)))
        }
        FloatOp::Rsqrt => (1.0 / a.sqrt(), 0),
        FloatOp::Ex2 => (a.exp2(), 0),
        FloatOp::Lg2 => (a.log2(), 0),
        FloatOp::Sin => (a.sin(), 0),
        FloatOp::Cos => (a.cos(), 0),
        FloatOp::Tanh => (a.tanh(), 0),
        FloatOp::Copysign
        | FloatOp::Testp(_)
        | FloatOp::Min
        | FloatOp::Max
        | FloatOp::Abs
        | FloatOp::Neg => unreachable!("not rounded arithmetic"),
    }
}

/// `testp` of a value of format `fmt`.
fn test(class: TestClass, fmt: Fmt, bits: u64) -> bool {
    let x = fmt.to_f64(bits);
    let min_normal = match fmt {
        Fmt::F16 => 2f64.powi(-14),
        Fmt::Bf16 | Fmt::F32 => f64::from(f32::MIN_POSITIVE),
        Fmt::F64 => f64::MIN_POSITIVE,
    };
    match class {
        TestClass::Finite => x.is_finite(),
        TestClass::Infinite => x.is_infinite(),
        TestClass::Number => !x.is_nan(),
        TestClass::NotANumber => x.is_nan(),
        TestClass::Normal => x.is_finite() && x.abs() >= min_normal,
        TestClass::Subnormal => x != 0.0 && x.abs() < min_normal,
    }
}

/// `.ftz`: an `.f32` subnormal (of the low 32 bits) flushed to zero of the same sign; any other
/// value as it is.
pub fn flush_f32(bits: u64) -> u64 {
    let v = bits as u32;
    if v & 0x7f80_0000 == 0 {
        u64::from(v & 0x8000_0000)
    } else {
        bits
    }
}

/// A floating-point instruction of the cold path on the raw register values; with `ftz` on an
/// `.f32` type, subnormal sources and results flushed to zero (the sign kept), as `.ftz` says.
pub fn float_op(op: FloatOp, mode: Round, sat: bool, ftz: bool, ty: Ty, src: [u64; 3]) -> u64 {
    let ftz = ftz && Fmt::of(ty) == (Fmt::F32, 1);
    if ftz {
        let r = float_op(op, mode, sat, false, ty, src.map(flush_f32));
        // `testp` gives a predicate, not a value.
        return if matches!(op, FloatOp::Testp(_)) {
            r
        } else {
            flush_f32(r)
        };
    }
    match op {
        FloatOp::Min | FloatOp::Max => {
            let bin = if op == FloatOp::Min {
                BinOp::Min
            } else {
                BinOp::Max
            };
            return binary(bin, ty, src[0], src[1]).unwrap_or(src[0]);
        }
        FloatOp::Abs | FloatOp::Neg => {
            return unary(
                if op == FloatOp::Abs {
                    UnOp::Abs
                } else {
                    UnOp::Neg
                },
                ty,
                src[0],
            );
        }
        _ => {}
    }
    let (fmt, lanes) = Fmt::of(ty);
    let width = fmt.bits();
    let lane_mask = if width == 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    };
    let mut out = 0;
    for lane in 0..lanes {
        let shift = lane * width;
        let [a, b, c] = src.map(|v| (v >> shift) & lane_mask);
        let r = match op {
            FloatOp::Copysign => {
                let sign = 1 << (width - 1);
                (b & !sign) | (a & sign)
            }
            FloatOp::Testp(class) => return u64::from(test(class, fmt, a)),
            _ => {
                let [x, y, z] = [a, b, c].map(|v| fmt.to_f64(v));
                let (r, dir) = exact(op, x, y, z);
                let r = round(r, dir, mode, fmt);
                if sat { saturate(fmt, r) } else { r }
            }
        };
        out |= r << shift;
    }
    out
}

/// `.sat`: clamped to [0, 1], a NaN to 0.
pub fn saturate(fmt: Fmt, bits: u64) -> u64 {
    let x = fmt.to_f64(bits);
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= 1.0 {
        fmt.nearest(1.0)
    } else {
        bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F32: Ty = Ty {
        kind: Kind::F,
        bytes: 4,
    };
    const F64: Ty = Ty {
        kind: Kind::F,
        bytes: 8,
    };

    fn f32op(op: FloatOp, mode: Round, a: f32, b: f32, c: f32) -> f32 {
        let src = [a, b, c].map(|v| u64::from(v.to_bits()));
        f32::from_bits(float_op(op, mode, false, false, F32, src) as u32)
    }

    #[test]
    fn directed_rounding_brackets_the_exact_result() {
        let third_down = f32op(FloatOp::Div, Round::Rm, 1.0, 3.0, 0.0);
        let third_up = f32op(FloatOp::Div, Round::Rp, 1.0, 3.0, 0.0);
        assert_eq!(third_up, third_down.next_up());
        assert!(f64::from(third_down) < 1.0 / 3.0 && 1.0 / 3.0 < f64::from(third_up));
        assert_eq!(f32op(FloatOp::Div, Round::Rz, -1.0, 3.0, 0.0), -third_down);
        // 1 + 2^-30 is not an f32: down gives 1, up the next f32.
        let tiny = 2f32.powi(-30);
        assert_eq!(f32op(FloatOp::Add, Round::Rm, 1.0, tiny, 0.0), 1.0);
        assert_eq!(
            f32op(FloatOp::Add, Round::Rp, 1.0, tiny, 0.0),
            1f32.next_up()
        );
        assert_eq!(f32op(FloatOp::Add, Round::Rn, 1.0, tiny, 0.0), 1.0);
        // An exact result is itself in every mode.
        for mode in [Round::Rn, Round::Rz, Round::Rm, Round::Rp] {
            assert_eq!(f32op(FloatOp::Mul, mode, 1.5, 2.0, 0.0), 3.0);
            assert_eq!(f32op(FloatOp::Sqrt, mode, 4.0, 0.0, 0.0), 2.0);
        }
        // fma rounds once: (1 + 2^-12)^2 - 1 keeps the 2^-24 term.
        let x = 1.0 + 2f32.powi(-12);
        assert_eq!(
            f32op(FloatOp::Fma, Round::Rn, x, x, -1.0),
            2f32.powi(-11) + 2f32.powi(-24)
        );
        // Overflow toward zero stops at the largest finite value.
        assert_eq!(f32op(FloatOp::Mul, Round::Rz, f32::MAX, 2.0, 0.0), f32::MAX);
        assert_eq!(
            f32op(FloatOp::Mul, Round::Rn, f32::MAX, 2.0, 0.0),
            f32::INFINITY
        );
        // f64 fma toward minus infinity sees a residual far below the sum.
        let r = float_op(
            FloatOp::Fma,
            Round::Rm,
            false,
            false,
            F64,
            [1f64.to_bits(), 1f64.to_bits(), 1e-300f64.to_bits()],
        );
        assert_eq!(f64::from_bits(r), 1.0);
        let r = float_op(
            FloatOp::Fma,
            Round::Rp,
            false,
            false,
            F64,
            [1f64.to_bits(), 1f64.to_bits(), 1e-300f64.to_bits()],
        );
        assert_eq!(f64::from_bits(r), 1f64.next_up());
    }

    #[test]
    fn ftz_flushes_f32_subnormal_sources_and_results_to_signed_zero() {
        let bits = |v: f32| u64::from(v.to_bits());
        let op = |op, ftz, a: f32, b: f32| {
            f32::from_bits(float_op(op, Round::Rn, false, ftz, F32, [bits(a), bits(b), 0]) as u32)
        };
        let tiny = f32::MIN_POSITIVE / 4.0; // subnormal
        assert!(tiny > 0.0 && !tiny.is_normal());
        // A subnormal source is zero: 1 + tiny is 1 either way, but tiny * 2^20 is not.
        assert_eq!(
            op(FloatOp::Mul, false, tiny, 2f32.powi(20)),
            tiny * 2f32.powi(20)
        );
        assert_eq!(op(FloatOp::Mul, true, tiny, 2f32.powi(20)), 0.0);
        // A subnormal result is zero of its sign.
        let r = op(FloatOp::Mul, true, -f32::MIN_POSITIVE, 0.5);
        assert_eq!((r, r.is_sign_negative()), (0.0, true));
        assert!(op(FloatOp::Mul, false, -f32::MIN_POSITIVE, 0.5) < 0.0);
        // min/max/abs/neg take their `.ftz` form here: the flushed source.
        assert_eq!(op(FloatOp::Max, true, tiny, 0.0), 0.0);
        assert_eq!(op(FloatOp::Max, false, tiny, 0.0), tiny);
        let r = op(FloatOp::Neg, true, tiny, 0.0);
        assert_eq!((r, r.is_sign_negative()), (0.0, true));
        // Normal values and f64 are untouched.
        assert_eq!(op(FloatOp::Add, true, 1.5, 2.25), 3.75);
        let r = float_op(
            FloatOp::Mul,
            Round::Rn,
            false,
            true,
            F64,
            [1e-310f64.to_bits(), 1f64.to_bits(), 0],
        );
        assert_eq!(f64::from_bits(r), 1e-310);
        assert_eq!(flush_f32(bits(tiny)), 0);
        assert_eq!(flush_f32(bits(-tiny)), bits(-0.0));
    }
}
