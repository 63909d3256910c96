//! The C `printf` conversions CUDA's device `printf` supports: `%d %i %u %x %X %o %c %s %f %F
//! %e %E %g %G %p %%` with flags (`-+ #0`), width, precision and the length modifiers
//! `h hh l ll z`; `float` arguments arrive promoted to `double`.

/// Formats `fmt`, taking each argument from `next(size)` (8 bytes for 64-bit integers,
/// doubles and pointers, else 4) and reading each `%s` argument's string with `string`;
/// returns the text and the number of arguments.
pub fn format(
    fmt: &str,
    next: &mut dyn FnMut(usize) -> u64,
    string: &mut dyn FnMut(u64) -> String,
) -> (String, usize) {
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    let mut count = 0;
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut flags = String::new();
        while let Some(&f) = chars.peek().filter(|f| "-+ #0".contains(**f)) {
            flags.push(f);
            chars.next();
        }
        let number = |chars: &mut std::iter::Peekable<std::str::Chars>| {
            let mut n = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                n.push(d);
                chars.next();
            }
            n.parse::<usize>().ok()
        };
        let width = number(&mut chars);
        let precision = if chars.peek() == Some(&'.') {
            chars.next();
            Some(number(&mut chars).unwrap_or(0))
        } else {
            None
        };
        let mut long = false;
        while let Some(&l) = chars.peek().filter(|l| "hlzjt".contains(**l)) {
            long |= matches!(l, 'l' | 'z' | 'j' | 't');
            chars.next();
        }
        let Some(conv) = chars.next() else {
            out.push('%');
            break;
        };
        let int_size = if long { 8 } else { 4 };
        let left = flags.contains('-');
        let body = match conv {
            '%' => {
                out.push('%');
                continue;
            }
            'd' | 'i' => {
                let v = next(int_size);
                let v = if long {
                    v as i64
                } else {
                    i64::from(v as u32 as i32)
                };
                let mut s = v.unsigned_abs().to_string();
                if let Some(p) = precision {
                    s = format!("{s:0>p$}");
                }
                let sign = if v < 0 {
                    "-"
                } else if flags.contains('+') {
                    "+"
                } else if flags.contains(' ') {
                    " "
                } else {
                    ""
                };
                numeric(sign, &s, width, &flags, precision.is_none())
            }
            'u' | 'x' | 'X' | 'o' => {
                let v = next(int_size);
                let v = if long { v } else { v & 0xffff_ffff };
                let mut s = match conv {
                    'u' => v.to_string(),
                    'x' => format!("{v:x}"),
                    'X' => format!("{v:X}"),
                    _ => format!("{v:o}"),
                };
                if let Some(p) = precision {
                    s = format!("{s:0>p$}");
                }
                let prefix = match (flags.contains('#') && v != 0, conv) {
                    (true, 'x') => "0x",
                    (true, 'X') => "0X",
                    (true, 'o') => "0",
                    _ => "",
                };
                numeric(prefix, &s, width, &flags, precision.is_none())
            }
            'c' => ((next(4) as u8) as char).to_string(),
            'p' => format!("{:#x}", next(8)),
            's' => {
                let s = string(next(8));
                match precision {
                    Some(p) => s.chars().take(p).collect(),
                    None => s,
                }
            }
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' => {
                let v = f64::from_bits(next(8));
                let s = float(v, conv, precision.unwrap_or(6), &flags);
                let (sign, digits) = match s.strip_prefix('-') {
                    Some(d) => ("-", d.to_string()),
                    None if flags.contains('+') => ("+", s),
                    None if flags.contains(' ') => (" ", s),
                    None => ("", s),
                };
                numeric(sign, &digits, width, &flags, v.is_finite())
            }
            other => format!("%{other}"),
        };
        count += 1;
        let pad = width.unwrap_or(0).saturating_sub(body.chars().count());
        if left {
            out.push_str(&body);
            out.extend(std::iter::repeat_n(' ', pad));
        } else if matches!(conv, 'c' | 's' | 'p') {
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(&body);
        } else {
            out.push_str(&body);
        }
    }
    (out, count)
}

/// Sign or prefix and digits padded to `width`: zeros after the sign with `0` (when allowed),
/// else spaces before it (left-justified padding is added by the caller).
fn numeric(sign: &str, digits: &str, width: Option<usize>, flags: &str, zero_ok: bool) -> String {
    let len = sign.len() + digits.len();
    let pad = width.unwrap_or(0).saturating_sub(len);
    if flags.contains('-') {
        format!("{sign}{digits}")
    } else if flags.contains('0') && zero_ok {
        format!("{sign}{}{digits}", "0".repeat(pad))
    } else {
        format!("{}{sign}{digits}", " ".repeat(pad))
    }
}

/// `%f`, `%e`, `%g` of `v` with `precision`.
fn float(v: f64, conv: char, precision: usize, flags: &str) -> String {
    let upper = conv.is_ascii_uppercase();
    let s = if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        if v < 0.0 { "-inf" } else { "inf" }.to_string()
    } else {
        match conv.to_ascii_lowercase() {
            'f' => format!("{v:.precision$}"),
            'e' => exponent(v, precision),
            _ => {
                // %g: %e when the exponent is below -4 or at least the precision, else %f;
                // trailing zeros removed unless `#`.
                let p = precision.max(1);
                let x = if v == 0.0 {
                    0
                } else {
                    exponent(v, p - 1)
                        .rsplit_once('e')
                        .and_then(|(_, e)| e.parse::<i32>().ok())
                        .unwrap_or(0)
                };
                let s = if x < -4 || x >= p as i32 {
                    exponent(v, p - 1)
                } else {
                    format!("{v:.*}", (p as i32 - 1 - x).max(0) as usize)
                };
                if flags.contains('#') {
                    s
                } else {
                    strip_zeros(&s)
                }
            }
        }
    };
    if upper { s.to_uppercase() } else { s }
}

/// `d.ddde±xx`.
fn exponent(v: f64, precision: usize) -> String {
    let s = format!("{v:.precision$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    format!("{mantissa}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

fn strip_zeros(s: &str) -> String {
    let (mantissa, exp) = match s.find('e') {
        Some(p) => (&s[..p], &s[p..]),
        None => (s, ""),
    };
    let mantissa = if mantissa.contains('.') {
        mantissa.trim_end_matches('0').trim_end_matches('.')
    } else {
        mantissa
    };
    format!("{mantissa}{exp}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(fmt: &str, args: &[u64]) -> String {
        let mut it = args.iter();
        let (text, _) = format(fmt, &mut |_| *it.next().unwrap(), &mut |_| "ok".to_string());
        text
    }

    #[test]
    fn conversions_follow_c() {
        assert_eq!(
            run("%d|%5d|%-4d|%05d", &[(-3i32) as u32 as u64, 42, 7, 42]),
            "-3|   42|7   |00042"
        );
        assert_eq!(
            run("%u %x %X %#x %o", &[4_000_000_000, 255, 255, 255, 8]),
            "4000000000 ff FF 0xff 10"
        );
        assert_eq!(
            run("%lld %c %% %s|%-3s|", &[(-5i64) as u64, 65, 0, 0]),
            "-5 A % ok|ok |"
        );
        assert_eq!(
            run(
                "%.2f %e %g %g",
                &[
                    2.5f64.to_bits(),
                    1234.5f64.to_bits(),
                    0.0001f64.to_bits(),
                    1e20f64.to_bits()
                ]
            ),
            "2.50 1.234500e+03 0.0001 1e+20"
        );
    }
}
