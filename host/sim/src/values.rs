//! Instruction semantics on values: integer and float arithmetic at an instruction type's width,
//! comparisons, conversions and the read-modify-write operations of `atom`/`red`. Registers hold
//! 64 bits; every operation reads its operands at its own type, so the upper bits never matter.
//! Half precision (`f16`, `bf16` and their `x2` pairs) is computed in `f32` and rounded to
//! nearest even: `f32`'s 24 bits are at least twice a half's significand plus two, so the double
//! rounding of `+ - * /` is exact.

use super::isa::{BinOp, Cmp, Kind, Rmw, Ty, UnOp};

#[inline]
pub fn sext(v: u64, bytes: u8) -> i64 {
    let sh = 64 - u32::from(bytes) * 8;
    ((v << sh) as i64) >> sh
}

#[inline]
fn f32v(v: u64) -> f32 {
    f32::from_bits(v as u32)
}
#[inline]
fn f64v(v: u64) -> f64 {
    f64::from_bits(v)
}
#[inline]
fn from_f32(f: f32) -> u64 {
    u64::from(f.to_bits())
}

/// A half-precision value (`f16` bits, or `bf16` bits when `brain`) widened to `f32`, exactly.
#[inline]
pub(super) fn half_to_f32(bits: u16, brain: bool) -> f32 {
    if brain {
        half::bf16::from_bits(bits).to_f32()
    } else {
        half::f16::from_bits(bits).to_f32()
    }
}

/// `x` rounded to nearest even at half precision (`bf16` when `brain`), as bits.
#[inline]
pub(super) fn half_from_f64(x: f64, brain: bool) -> u16 {
    if brain {
        half::bf16::from_f64(x).to_bits()
    } else {
        half::f16::from_f64(x).to_bits()
    }
}

/// Arithmetic on `f16`/`bf16` and on both lanes of `f16x2`/`bf16x2`; off the hot path.
#[cold]
#[inline(never)]
fn half_binary(op: BinOp, ty: Ty, a: u64, b: u64) -> Result<u64, &'static str> {
    let brain = matches!(ty.kind, Kind::Bf | Kind::Bf16x2);
    let lanes = u32::from(ty.bytes) / 2;
    let mut out = 0;
    for lane in 0..lanes {
        let shift = 16 * lane;
        let x = half_to_f32((a >> shift) as u16, brain);
        let y = half_to_f32((b >> shift) as u16, brain);
        let r = match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::MulLo => x * y,
            BinOp::Div => x / y,
            BinOp::Min => x.min(y),
            BinOp::Max => x.max(y),
            _ => return Err("this half-precision operation"),
        };
        out |= u64::from(half_from_f64(f64::from(r), brain)) << shift;
    }
    Ok(out)
}

/// PTX `min`/`max` on floats: a NaN operand yields the other operand.
fn fmin(a: f64, b: f64, max: bool) -> f64 {
    if max { a.max(b) } else { a.min(b) }
}

#[inline]
pub fn unary(op: UnOp, ty: Ty, a: u64) -> u64 {
    let m = ty.mask();
    if ty.kind.is_float() {
        // `neg`/`abs` of a float only change its sign bit (of each lane of a packed pair).
        let sign = match ty.kind {
            Kind::F16x2 | Kind::Bf16x2 => 0x8000_8000,
            _ => 1 << (ty.bits() - 1),
        };
        return match op {
            UnOp::Neg => (a ^ sign) & m,
            UnOp::Abs => a & !sign & m,
            _ => a & m,
        };
    }
    match op {
        UnOp::Mov => a & m,
        UnOp::Not => !a & m,
        UnOp::Neg => a.wrapping_neg() & m,
        UnOp::Abs => (sext(a, ty.bytes).unsigned_abs()) & m,
        UnOp::Popc => u64::from((a & m).count_ones()),
        UnOp::Clz => u64::from((a & m).leading_zeros() - (64 - ty.bits())),
        UnOp::Brev => (a & m).reverse_bits() >> (64 - ty.bits()),
    }
}

#[inline(always)]
pub fn binary(op: BinOp, ty: Ty, a: u64, b: u64) -> Result<u64, &'static str> {
    let m = ty.mask();
    let signed = ty.kind == Kind::S;
    if ty.kind.is_float() {
        if ty.kind != Kind::F || ty.bytes == 2 {
            return half_binary(op, ty, a, b);
        }
        return Ok(if ty.bytes == 4 {
            let (x, y) = (f32v(a), f32v(b));
            from_f32(match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::MulLo => x * y,
                BinOp::Div => x / y,
                BinOp::Min => x.min(y),
                BinOp::Max => x.max(y),
                _ => return Err("this float operation"),
            })
        } else {
            let (x, y) = (f64v(a), f64v(b));
            match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::MulLo => x * y,
                BinOp::Div => x / y,
                BinOp::Min => fmin(x, y, false),
                BinOp::Max => fmin(x, y, true),
                _ => return Err("this float operation"),
            }
            .to_bits()
        });
    }
    let (sa, sb) = (sext(a, ty.bytes), sext(b, ty.bytes));
    let (ua, ub) = (a & m, b & m);
    let bits = u64::from(ty.bits());
    Ok(match op {
        BinOp::Add => a.wrapping_add(b) & m,
        BinOp::Sub => a.wrapping_sub(b) & m,
        BinOp::MulLo => a.wrapping_mul(b) & m,
        BinOp::MulHi => {
            let p = if signed {
                (i128::from(sa) * i128::from(sb)) as u128
            } else {
                u128::from(ua) * u128::from(ub)
            };
            ((p >> bits) as u64) & m
        }
        BinOp::MulWide => {
            if signed {
                (sa.wrapping_mul(sb)) as u64
            } else {
                ua.wrapping_mul(ub)
            }
        }
        BinOp::Div | BinOp::Rem => {
            if ub == 0 {
                // Division by zero is unspecified in PTX, not a trap: all ones, as hardware gives.
                return Ok(m);
            }
            let r = if signed {
                let (x, y) = (sa, sb);
                if op == BinOp::Div {
                    x.wrapping_div(y) as u64
                } else {
                    x.wrapping_rem(y) as u64
                }
            } else if op == BinOp::Div {
                ua / ub
            } else {
                ua % ub
            };
            r & m
        }
        BinOp::And => a & b & m,
        BinOp::Or => (a | b) & m,
        BinOp::Xor => (a ^ b) & m,
        BinOp::Shl => {
            let s = b & 0xffff_ffff;
            if s >= bits { 0 } else { (ua << s) & m }
        }
        BinOp::Shr => {
            let s = (b & 0xffff_ffff).min(bits);
            if signed {
                ((sa >> s.min(63)) as u64) & m
            } else if s >= bits {
                0
            } else {
                ua >> s
            }
        }
        BinOp::Min => {
            if signed {
                sa.min(sb) as u64 & m
            } else {
                ua.min(ub)
            }
        }
        BinOp::Max => {
            if signed {
                sa.max(sb) as u64 & m
            } else {
                ua.max(ub)
            }
        }
    })
}

#[inline]
pub fn compare(cmp: Cmp, ty: Ty, a: u64, b: u64) -> bool {
    use std::cmp::Ordering as O;
    let ord = match ty.kind {
        Kind::F if ty.bytes == 4 => f32v(a).partial_cmp(&f32v(b)),
        Kind::F if ty.bytes == 8 => f64v(a).partial_cmp(&f64v(b)),
        Kind::F | Kind::Bf => {
            let brain = ty.kind == Kind::Bf;
            half_to_f32(a as u16, brain).partial_cmp(&half_to_f32(b as u16, brain))
        }
        Kind::S => Some(sext(a, ty.bytes).cmp(&sext(b, ty.bytes))),
        _ => Some((a & ty.mask()).cmp(&(b & ty.mask()))),
    };
    match ord {
        // A NaN operand: the ordered comparisons are false, the unordered ones true.
        None => matches!(
            cmp,
            Cmp::Equ | Cmp::Neu | Cmp::Ltu | Cmp::Leu | Cmp::Gtu | Cmp::Geu | Cmp::Nan
        ),
        Some(o) => match cmp {
            Cmp::Eq | Cmp::Equ => o == O::Equal,
            Cmp::Ne | Cmp::Neu => o != O::Equal,
            Cmp::Lt | Cmp::Ltu => o == O::Less,
            Cmp::Le | Cmp::Leu => o != O::Greater,
            Cmp::Gt | Cmp::Gtu => o == O::Greater,
            Cmp::Ge | Cmp::Geu => o != O::Less,
            Cmp::Nan => false,
            Cmp::Num => true,
        },
    }
}

/// `cvt.dst.src`: the source read at its type, converted, written at the destination type
/// (signed results sign-extended to 64 bits).
pub fn convert(dst: Ty, src: Ty, a: u64) -> u64 {
    let half_src = matches!(src.kind, Kind::F | Kind::Bf) && src.bytes == 2;
    if dst.kind.is_float() {
        let x: f64 = match src.kind {
            _ if half_src => f64::from(half_to_f32(a as u16, src.kind == Kind::Bf)),
            Kind::F if src.bytes == 4 => f64::from(f32v(a)),
            Kind::F => f64v(a),
            Kind::S => sext(a, src.bytes) as f64,
            _ => (a & src.mask()) as f64,
        };
        // One rounding, from the exact `f64`, to the destination's precision.
        return match (dst.kind, dst.bytes) {
            (Kind::F, 4) => from_f32(x as f32),
            (Kind::F, 8) => x.to_bits(),
            (kind, _) => u64::from(half_from_f64(x, kind == Kind::Bf)),
        };
    }
    let v: i128 = match src.kind {
        _ if half_src => half_to_f32(a as u16, src.kind == Kind::Bf) as i128,
        Kind::F if src.bytes == 4 => f32v(a) as i128,
        Kind::F => f64v(a) as i128,
        Kind::S => i128::from(sext(a, src.bytes)),
        _ => i128::from(a & src.mask()),
    };
    let v = v as u64 & dst.mask();
    if dst.kind == Kind::S {
        sext(v, dst.bytes) as u64
    } else {
        v
    }
}

/// `bfe`: `len` bits of `a` from bit `pos` (both taken mod 256), sign-extended from the field's
/// top bit (or from the type's top bit when the field reaches past it) for signed types.
pub fn bit_field_extract(ty: Ty, a: u64, pos: u64, len: u64) -> u64 {
    let msb = u64::from(ty.bits()) - 1;
    let (pos, len) = (pos & 0xff, len & 0xff);
    let a = a & ty.mask();
    let sign = ty.kind == Kind::S && len != 0 && (a >> (pos + len - 1).min(msb)) & 1 == 1;
    let mut d = 0;
    for i in 0..=msb {
        let bit = if i < len && pos + i <= msb {
            (a >> (pos + i)) & 1 == 1
        } else {
            sign
        };
        d |= u64::from(bit) << i;
    }
    if ty.kind == Kind::S {
        sext(d, ty.bytes) as u64
    } else {
        d
    }
}

/// The new value of an `atom`/`red` location holding `old`, with operands `b` (and `c` for
/// `cas`).
pub fn rmw(op: Rmw, ty: Ty, old: u64, b: u64, c: u64) -> u64 {
    let m = ty.mask();
    match op {
        Rmw::Add => {
            if ty.kind.is_float() {
                binary(BinOp::Add, ty, old, b).unwrap_or(old)
            } else {
                old.wrapping_add(b) & m
            }
        }
        Rmw::Exch => b & m,
        Rmw::Cas => {
            if old & m == b & m {
                c & m
            } else {
                old & m
            }
        }
        Rmw::And => old & b & m,
        Rmw::Or => (old | b) & m,
        Rmw::Xor => (old ^ b) & m,
        Rmw::Min => binary(BinOp::Min, ty, old, b).unwrap_or(old),
        Rmw::Max => binary(BinOp::Max, ty, old, b).unwrap_or(old),
        Rmw::Inc => {
            if old & m >= b & m {
                0
            } else {
                (old + 1) & m
            }
        }
        Rmw::Dec => {
            if old & m == 0 || old & m > b & m {
                b & m
            } else {
                (old - 1) & m
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    const U32: Ty = Ty {
        kind: Kind::U,
        bytes: 4,
    };
    const S32: Ty = Ty {
        kind: Kind::S,
        bytes: 4,
    };

    #[test]
    fn bfe_extracts_and_sign_extends_as_the_ptx_pseudocode() {
        for (a, pos, len) in [
            (0xabcd_1234u64, 16, 1),
            (0xdead_beef, 4, 12),
            (0xffff, 0, 32),
        ] {
            let plain = (a >> pos) & ((1u64 << len) - 1);
            assert_eq!(
                bit_field_extract(U32, a, pos, len),
                plain,
                "{a:#x} {pos} {len}"
            );
        }
        // Signed: the field's top bit extends; past bit 31 the type's top bit does.
        assert_eq!(bit_field_extract(S32, 0xf000, 12, 4), u64::MAX);
        assert_eq!(bit_field_extract(S32, 0x7000, 12, 4), 7);
        assert_eq!(bit_field_extract(S32, 0x8000_0000, 28, 8) as i64, -8);
        // A zero length gives 0; `pos` and `len` are taken modulo 256.
        assert_eq!(bit_field_extract(S32, u64::MAX, 3, 0), 0);
        assert_eq!(bit_field_extract(U32, 0xf0, 256 + 4, 256 + 4), 0xf);
    }

    #[test]
    fn half_precision_arithmetic_rounds_as_the_half_crate() {
        let (f16_ty, bf16_ty) = (
            Ty {
                kind: Kind::F,
                bytes: 2,
            },
            Ty {
                kind: Kind::Bf,
                bytes: 2,
            },
        );
        let samples = (0..=u16::MAX).step_by(251).chain([0x0001, 0x7bff, 0x3c01]);
        for a in samples.clone() {
            for b in samples.clone().step_by(7) {
                let (x, y) = (u64::from(a), u64::from(b));
                let sum = binary(BinOp::Add, f16_ty, x, y).unwrap() as u16;
                let expected = f16::from_bits(a) + f16::from_bits(b);
                assert!(
                    sum == expected.to_bits()
                        || (expected.is_nan() && f16::from_bits(sum).is_nan()),
                    "f16 {a:#06x} + {b:#06x}"
                );
                let product = binary(BinOp::MulLo, bf16_ty, x, y).unwrap() as u16;
                let expected = bf16::from_bits(a) * bf16::from_bits(b);
                assert!(
                    product == expected.to_bits()
                        || (expected.is_nan() && bf16::from_bits(product).is_nan()),
                    "bf16 {a:#06x} * {b:#06x}"
                );
            }
        }
        // The packed pairs work lane by lane: (1 + 2, 3 + -0.5) in f16x2.
        let pair = |lo: f32, hi: f32| {
            u64::from(f16::from_f32(lo).to_bits()) | u64::from(f16::from_f32(hi).to_bits()) << 16
        };
        let f16x2 = Ty {
            kind: Kind::F16x2,
            bytes: 4,
        };
        assert_eq!(
            rmw(Rmw::Add, f16x2, pair(1.0, 3.0), pair(2.0, -0.5), 0),
            pair(3.0, 2.5)
        );
        // `neg` flips each lane's sign bit only.
        assert_eq!(unary(UnOp::Neg, f16x2, pair(1.0, -2.0)), pair(-1.0, 2.0));
    }

    #[test]
    fn half_precision_conversions_round_to_nearest_even_and_compare() {
        let f32_ty = Ty {
            kind: Kind::F,
            bytes: 4,
        };
        let (f16_ty, bf16_ty) = (
            Ty {
                kind: Kind::F,
                bytes: 2,
            },
            Ty {
                kind: Kind::Bf,
                bytes: 2,
            },
        );
        let bits = |x: f32| u64::from(x.to_bits());
        // 1 + 2^-11 is halfway between two f16 values: to the even one, 1.0.
        assert_eq!(convert(f16_ty, f32_ty, bits(1.0 + 2f32.powi(-11))), 0x3c00);
        assert_eq!(convert(f16_ty, f32_ty, bits(65520.0)), 0x7c00); // to infinity
        assert_eq!(convert(bf16_ty, f32_ty, bits(1.0 + 2f32.powi(-8))), 0x3f80);
        assert_eq!(convert(f32_ty, f16_ty, 0xc000), bits(-2.0));
        assert_eq!(convert(f32_ty, bf16_ty, 0x4049), bits(3.140625));
        assert_eq!(convert(S32, f16_ty, 0xc500) as i64, -5);
        // Comparisons read the half's value; a NaN is unordered.
        assert!(compare(Cmp::Lt, f16_ty, 0xbc00, 0x3c00)); // -1 < 1
        assert!(!compare(Cmp::Lt, bf16_ty, 0x7fc0, 0x3f80));
        assert!(compare(Cmp::Ltu, bf16_ty, 0x7fc0, 0x3f80));
    }
}
