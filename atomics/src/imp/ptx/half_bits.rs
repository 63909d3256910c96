//! Branch-free half-precision arithmetic on bits, for the device's compare-and-swap loops: the
//! values computed inside a loop are plain bit arithmetic, so that each loop is the
//! `ld.relaxed`/`atom.cas` loop the ABI checks expect (the `half` crate's software conversions
//! branch on NaN and subnormals). Plain data: the unit tests run on the host, against `half`.

/// `f32::min`/`max` of two halves whose exponent mask is `exp` (`0x7c00` for `f16`,
/// `0x7f80` for `bf16`): a NaN operand is ignored; otherwise the smaller (larger) in IEEE
/// order, `-0.0` below `+0.0`.
#[inline(always)]
pub(crate) fn min_max(a: u16, b: u16, exp: u16, min: bool) -> u16 {
    let nan = |x: u16| (x & 0x7fff) > exp;
    // Sign-magnitude to an unsigned key of the same order: negatives flipped, positives
    // moved above them.
    let key = |x: u16| x ^ ((((x as i16) >> 15) as u16) | 0x8000);
    let a_first = (key(a) < key(b)) == min;
    let ordered = if a_first { a } else { b };
    if nan(a) {
        b
    } else if nan(b) {
        a
    } else {
        ordered
    }
}

/// `a + b` for `bf16` bits, rounded to nearest even: the `f32` sum (a `bf16` is the high
/// half of an `f32`, and `f32`'s 24 bits make the double rounding exact for addition) rounded
/// to its high 16 bits; a NaN sum stays a (quiet) NaN.
#[cfg(not(target_feature = "sm_90"))]
#[inline(always)]
pub(crate) fn bf16_add(a: u16, b: u16) -> u16 {
    let sum = f32::from_bits(u32::from(a) << 16) + f32::from_bits(u32::from(b) << 16);
    let bits = sum.to_bits();
    let rounded = (bits.wrapping_add(0x7fff + ((bits >> 16) & 1)) >> 16) as u16;
    let quiet_nan = (bits >> 16) as u16 | 0x0040;
    if sum.is_nan() { quiet_nan } else { rounded }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    /// Every 97th bit pattern (every 4099th under Miri), and the zeros, infinities, NaNs and
    /// smallest subnormal.
    fn samples() -> impl Iterator<Item = u16> {
        (0..=u16::MAX)
            .step_by(if cfg!(miri) { 4099 } else { 97 })
            .chain([0, 0x8000, 0x7c00, 0xfc00, 0x7f80, 0xff80, 0x7e00, 0x0001])
    }

    #[test]
    fn min_max_follows_f32_min_max() {
        for a in samples() {
            for b in samples() {
                for (exp, wide) in [
                    (0x7c00, (|x| f16::from_bits(x).to_f32()) as fn(u16) -> f32),
                    (0x7f80, |x| bf16::from_bits(x).to_f32()),
                ] {
                    let (x, y) = (wide(a), wide(b));
                    for (min, expected) in [(true, x.min(y)), (false, x.max(y))] {
                        let got = wide(min_max(a, b, exp, min));
                        // `f32::min` leaves the sign of a zero result open.
                        let same = got == expected || (got.is_nan() && expected.is_nan());
                        assert!(same, "{a:#06x} {b:#06x} min={min}: {got} vs {expected}");
                    }
                }
            }
        }
    }

    #[test]
    fn bf16_add_rounds_as_half_does() {
        for a in samples() {
            for b in samples() {
                let expected = bf16::from_bits(a) + bf16::from_bits(b);
                let got = bf16::from_bits(bf16_add(a, b));
                if expected.is_nan() {
                    assert!(got.is_nan(), "{a:#06x} + {b:#06x}");
                } else {
                    assert_eq!(got.to_bits(), expected.to_bits(), "{a:#06x} + {b:#06x}");
                }
            }
        }
    }
}
