//! The `--arg` forms: scalars, new buffers (N copies of one value, a list of elements, or the
//! elements of a file), pointers into buffers (as an argument, or as elements and fields inside a
//! buffer or a struct), device-function addresses, and structs passed by value.

use crate::{Arg, Pointer, Simulator, Slot};

/// The element type of a `buf:` argument.
///
/// ```
/// use ptx_sim::cli::Elem;
/// assert_eq!(Elem::F64.size(), 8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    U8,
    U16,
    U32,
    U64,
    I32,
    F32,
    F64,
}

impl Elem {
    /// Bytes per element.
    pub fn size(self) -> u32 {
        match self {
            Elem::U8 => 1,
            Elem::U16 => 2,
            Elem::U32 | Elem::I32 | Elem::F32 => 4,
            Elem::U64 | Elem::F64 => 8,
        }
    }

    fn parse(name: &str) -> Option<Elem> {
        Some(match name {
            "u8" => Elem::U8,
            "u16" => Elem::U16,
            "u32" => Elem::U32,
            "u64" => Elem::U64,
            "i32" => Elem::I32,
            "f32" => Elem::F32,
            "f64" => Elem::F64,
            _ => return None,
        })
    }

    /// The bits of `v` as an element of this type, if it is one.
    fn value(self, v: &str) -> Option<u64> {
        match self {
            Elem::U8 => number(v).filter(|&x| x <= 0xff),
            Elem::U16 => number(v).filter(|&x| x <= 0xffff),
            Elem::U32 => number(v).filter(|&x| x <= u64::from(u32::MAX)),
            Elem::U64 => number(v),
            Elem::I32 => signed(v).map(|x| u64::from(x as u32)),
            Elem::F32 => v.parse::<f32>().ok().map(|x| u64::from(x.to_bits())),
            Elem::F64 => v.parse::<f64>().ok().map(f64::to_bits),
        }
    }

    /// An element's bits shown as a JSON value of its type.
    pub(super) fn show(self, bits: u64) -> serde_json::Value {
        match self {
            Elem::I32 => serde_json::Value::from(bits as u32 as i32),
            Elem::F32 => serde_json::Value::from(f64::from(f32::from_bits(bits as u32))),
            Elem::F64 => serde_json::Value::from(f64::from_bits(bits)),
            _ => serde_json::Value::from(bits),
        }
    }
}

const TYPES: &str = "u8, u16, u32, u64, i32, f32, f64";

/// One value inside a buffer's element list or a struct: its bytes, at its natural alignment.
///
/// ```
/// use ptx_sim::cli::{CliArg, Elem, Field, parse_options};
/// let args: Vec<String> = ["k.ptx", "--kernel", "k", "--grid", "1", "--block", "1",
///     "--arg", "struct:u32:7,ptr:0:8,fn:helper,bytes:0a0b"].map(String::from).to_vec();
/// assert_eq!(
///     parse_options(&args).unwrap().args,
///     [CliArg::Struct(vec![
///         Field::Scalar(Elem::U32, 7),
///         Field::Ptr(0, 8),
///         Field::Fn("helper".into()),
///         Field::Bytes(vec![10, 11]),
///     ])]
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    /// `T:V`: a value of an element type, its bits.
    Scalar(Elem, u64),
    /// `ptr:B[:OFFSET]`: the 8-byte address of buffer B plus OFFSET.
    Ptr(usize, u64),
    /// `fn:NAME`: the 8-byte address of device function NAME.
    Fn(String),
    /// `bytes:HEX`: raw bytes, byte-aligned.
    Bytes(Vec<u8>),
}

impl Field {
    fn size(&self) -> u64 {
        match self {
            Field::Scalar(e, _) => u64::from(e.size()),
            Field::Ptr(..) | Field::Fn(_) => 8,
            Field::Bytes(b) => b.len() as u64,
        }
    }

    fn align(&self) -> u64 {
        match self {
            Field::Bytes(_) => 1,
            other => other.size(),
        }
    }

    /// `T:V`, `ptr:B[:OFFSET]`, `fn:NAME` or `bytes:HEX`.
    fn parse(s: &str) -> Result<Field, String> {
        let (kind, v) = s.split_once(':').ok_or_else(|| {
            format!("`{s}` is not a field (T:V, ptr:B[:OFFSET], fn:NAME, bytes:HEX)")
        })?;
        match kind {
            "ptr" => {
                let (b, off) = v.split_once(':').unwrap_or((v, "0"));
                let b = number(b)
                    .and_then(|b| usize::try_from(b).ok())
                    .ok_or_else(|| format!("`{b}` is not a buffer number"))?;
                let off = number(off).ok_or_else(|| format!("`{off}` is not a byte offset"))?;
                Ok(Field::Ptr(b, off))
            }
            "fn" => function_name(v).map(Field::Fn),
            "bytes" => hex(v).map(Field::Bytes),
            _ => {
                let elem = Elem::parse(kind).ok_or_else(|| {
                    format!("`{kind}` in `{s}` is not a type ({TYPES}) nor ptr, fn or bytes")
                })?;
                let bits = elem
                    .value(v)
                    .ok_or_else(|| format!("`{v}` is not a {kind}"))?;
                Ok(Field::Scalar(elem, bits))
            }
        }
    }
}

/// An `--arg`.
///
/// ```
/// use ptx_sim::cli::{CliArg, Elem, Field, parse_options};
/// let args: Vec<String> = ["k.ptx", "--kernel", "k", "--grid", "1", "--block", "1",
///     "--arg", "buf:u64:4:7", "--arg", "u32:0x10", "--arg", "f32:-1.5", "--arg", "buf:i32:2:-3"]
///     .map(String::from).to_vec();
/// assert_eq!(
///     parse_options(&args).unwrap().args,
///     [CliArg::Buf(Elem::U64, 4, 7), CliArg::U32(16), CliArg::F32(-1.5), CliArg::Buf(Elem::I32, 2, 0xffff_fffd)]
/// );
/// // A pointer 8 bytes into buffer 0 (checked against the buffer's size when the kernel runs),
/// // a buffer given element by element, one holding a pointer to buffer 0, a function's address.
/// let args: Vec<String> = ["k.ptx", "--kernel", "k", "--grid", "1", "--block", "1",
///     "--arg", "buf:u32:4", "--arg", "ptr:0:8", "--arg", "buf:u32:[0,1,2]",
///     "--arg", "buf:u64:[ptr:0:4,0]", "--arg", "fn:helper"].map(String::from).to_vec();
/// let parsed = parse_options(&args).unwrap().args;
/// assert_eq!(parsed[1], CliArg::Ptr(0, 8));
/// assert_eq!(parsed[2], CliArg::BufOf(Elem::U32, (0..3).map(|v| Field::Scalar(Elem::U32, v)).collect()));
/// assert_eq!(parsed[3], CliArg::BufOf(Elem::U64, vec![Field::Ptr(0, 4), Field::Scalar(Elem::U64, 0)]));
/// assert_eq!(parsed[4], CliArg::Fn("helper".into()));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum CliArg {
    /// `u32:V`.
    U32(u32),
    /// `u64:V`.
    U64(u64),
    /// `i32:V`.
    I32(i32),
    /// `f32:V`.
    F32(f32),
    /// `f64:V`.
    F64(f64),
    /// `buf:T:N[:INIT]`: element type, count, the bits of the initial value.
    Buf(Elem, u64, u64),
    /// `buf:T:[V,…]`, `buf:T:@FILE`, `buf:T:N:ptr:B[:OFFSET]`, `buf:struct:[FIELD,…]`: a new
    /// buffer of these elements, shown as elements of the type (bytes for a struct).
    BufOf(Elem, Vec<Field>),
    /// `ptr:B:OFFSET`: a pointer OFFSET bytes into buffer B (the B-th `buf:` argument).
    Ptr(usize, u64),
    /// `fn:NAME`: the address of device function NAME (a function pointer).
    Fn(String),
    /// `struct:FIELD,…` or `bytes:HEX`: a parameter passed by value, of any size.
    Struct(Vec<Field>),
}

pub(super) fn signed(s: &str) -> Option<i32> {
    match s.strip_prefix('-') {
        Some(m) => number(m)
            .and_then(|v| i64::try_from(v).ok())
            .and_then(|v| i32::try_from(-v).ok()),
        None => number(s).and_then(|v| i32::try_from(v).ok()),
    }
}

pub(super) fn number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

fn hex(s: &str) -> Result<Vec<u8>, String> {
    let bare = s.strip_prefix("0x").unwrap_or(s);
    let digits: String = bare.chars().filter(|c| *c != '_').collect();
    if digits.is_empty() || !digits.len().is_multiple_of(2) {
        return Err(format!(
            "`{s}` is not bytes in hexadecimal (two digits a byte, in memory order)"
        ));
    }
    (0..digits.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&digits[i..i + 2], 16)
                .map_err(|_| format!("`{}` in `{s}` is not a hexadecimal byte", &digits[i..i + 2]))
        })
        .collect()
}

fn function_name(s: &str) -> Result<String, String> {
    let ok = s.chars().next().is_some_and(|c| !c.is_ascii_digit())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$'));
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!("`{s}` is not a function name"))
    }
}

/// The elements of a list `[a,b,…]` (or of a file's text: separated by commas or white space,
/// the brackets optional).
fn list_items(s: &str) -> Vec<&str> {
    let inner = s.trim();
    let inner = inner.strip_prefix('[').unwrap_or(inner);
    let inner = inner.strip_suffix(']').unwrap_or(inner);
    inner
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect()
}

/// An element of a `buf:T:` list: a value of T, or (T of 8 bytes) `ptr:B[:OFFSET]`/`fn:NAME`.
fn element(elem: Elem, item: &str) -> Result<Field, String> {
    if item.starts_with("ptr:") || item.starts_with("fn:") {
        if elem.size() != 8 {
            return Err(format!(
                "`{item}` is an 8-byte address: a buffer of pointers is `buf:u64:…`"
            ));
        }
        return Field::parse(item);
    }
    let bits = elem
        .value(item)
        .ok_or_else(|| format!("`{item}` is not a {}", format!("{elem:?}").to_lowercase()))?;
    Ok(Field::Scalar(elem, bits))
}

/// The most elements a buffer argument may have.
const MAX_ELEMENTS: u64 = 1 << 28;

/// `T:N[:INIT]`, `T:[V,…]`, `T:@FILE` or `struct:[FIELD,…]` after `buf:`.
fn buffer(rest: &str) -> Result<CliArg, String> {
    let (ty, spec) = rest
        .split_once(':')
        .ok_or_else(|| "expected buf:T:N[:INIT], buf:T:[V,…] or buf:T:@FILE".to_string())?;
    let text;
    let listed = if let Some(path) = spec.strip_prefix('@') {
        text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        Some(list_items(&text))
    } else if spec.starts_with('[') {
        if !spec.ends_with(']') {
            return Err(format!("`{spec}`: a list ends with `]`"));
        }
        Some(list_items(spec))
    } else {
        None
    };
    if ty == "struct" {
        let items = listed.ok_or_else(|| "expected buf:struct:[FIELD,…]".to_string())?;
        let fields = items
            .iter()
            .map(|i| Field::parse(i))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(CliArg::BufOf(Elem::U8, fields));
    }
    let elem = Elem::parse(ty)
        .ok_or_else(|| format!("buffer type `{ty}` is not one of {TYPES} or struct"))?;
    if let Some(items) = listed {
        if items.is_empty() || items.len() as u64 > MAX_ELEMENTS {
            return Err(format!(
                "a buffer has 1 to 2^28 elements, not {}",
                items.len()
            ));
        }
        let fields = items
            .iter()
            .map(|i| element(elem, i))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(CliArg::BufOf(elem, fields));
    }
    let (count, init) = match spec.split_once(':') {
        Some((n, i)) => (n, Some(i)),
        None => (spec, None),
    };
    let n = number(count)
        .filter(|&n| n > 0 && n <= MAX_ELEMENTS)
        .ok_or_else(|| format!("`{count}` is not a count in 1..2^28"))?;
    match init.map(|i| element(elem, i)).transpose()? {
        None => Ok(CliArg::Buf(elem, n, 0)),
        Some(Field::Scalar(_, bits)) => Ok(CliArg::Buf(elem, n, bits)),
        Some(address) => Ok(CliArg::BufOf(elem, vec![address; n as usize])),
    }
}

/// Parses one `--buffer` (a `buf:` argument's form without `buf:`): a buffer that is no
/// kernel parameter, reached through pointers in other buffers and structs.
pub(super) fn parse_buffer(s: &str) -> Result<CliArg, String> {
    buffer(s).map_err(|e| format!("--buffer `{s}`: {e}"))
}

/// Parses one `--arg`; the error names the argument and what is wrong with it.
pub(super) fn parse_arg(s: &str) -> Result<CliArg, String> {
    let in_arg = |e: String| format!("argument `{s}`: {e}");
    let (kind, v) = s.split_once(':').unwrap_or((s, ""));
    let not_a = |v: &str, what: &str| format!("argument `{s}`: `{v}` is not a {what}");
    match kind {
        "u32" => number(v)
            .and_then(|v| u32::try_from(v).ok())
            .map(CliArg::U32)
            .ok_or_else(|| not_a(v, "u32")),
        "u64" => number(v).map(CliArg::U64).ok_or_else(|| not_a(v, "u64")),
        "i32" => signed(v).map(CliArg::I32).ok_or_else(|| not_a(v, "i32")),
        "f32" => v.parse().map(CliArg::F32).map_err(|_| not_a(v, "f32")),
        "f64" => v.parse().map(CliArg::F64).map_err(|_| not_a(v, "f64")),
        "buf" => buffer(v).map_err(in_arg),
        "fn" => function_name(v).map(CliArg::Fn).map_err(in_arg),
        "bytes" => hex(v)
            .map(|b| CliArg::Struct(vec![Field::Bytes(b)]))
            .map_err(in_arg),
        "struct" if !v.is_empty() => v
            .trim_start_matches(['{', '['])
            .trim_end_matches(['}', ']'])
            .split(',')
            .map(|f| Field::parse(f.trim()))
            .collect::<Result<Vec<_>, _>>()
            .map(CliArg::Struct)
            .map_err(in_arg),
        "ptr" if v.split(':').count() == 2 => {
            let (b, off) = v.split_once(':').unwrap_or_default();
            let b = number(b)
                .and_then(|b| usize::try_from(b).ok())
                .ok_or_else(|| not_a(b, "buffer number"))?;
            let off = number(off).ok_or_else(|| not_a(off, "byte offset"))?;
            Ok(CliArg::Ptr(b, off))
        }
        _ => Err(format!(
            "argument `{s}`: expected u32:V, u64:V, i32:V, f32:V, f64:V, buf:T:N[:INIT], buf:T:[V,…], buf:T:@FILE or buf:struct:[FIELD,…] with T one of {TYPES}, fn:NAME, struct:FIELD,…, bytes:HEX, or ptr:B:OFFSET"
        )),
    }
}

/// A pointer a layout places: its offset in the bytes, the buffer, the offset in the buffer.
type Placed = (u64, usize, u64);

/// Lays `fields` out as C does (each at its natural alignment, the whole padded to the largest):
/// the bytes, and the pointers to place (offset in the bytes, buffer, offset in the buffer).
/// `fn:` fields take the address `sim` gives the function.
fn layout(fields: &[Field], sim: &Simulator) -> Result<(Vec<u8>, Vec<Placed>), String> {
    let mut bytes = Vec::new();
    let mut pointers = Vec::new();
    let mut largest = 1;
    for f in fields {
        largest = largest.max(f.align());
        bytes.resize((bytes.len() as u64).next_multiple_of(f.align()) as usize, 0);
        let at = bytes.len() as u64;
        match f {
            Field::Scalar(e, bits) => {
                bytes.extend_from_slice(&bits.to_le_bytes()[..e.size() as usize])
            }
            Field::Ptr(b, off) => {
                pointers.push((at, *b, *off));
                bytes.extend_from_slice(&[0; 8]);
            }
            Field::Fn(name) => {
                if sim.kernels().any(|k| k == name) {
                    return Err(format!(
                        "`{name}` is a kernel (`.entry`), which no call can reach through a pointer: `fn:` names a device function (`.func`)"
                    ));
                }
                let address = sim.function_address(name).ok_or_else(|| {
                    let known: Vec<&str> = sim.functions().collect();
                    format!(
                        "no function `{name}` in the PTX (its functions: {})",
                        known.join(", ")
                    )
                })?;
                bytes.extend_from_slice(&address.to_le_bytes());
            }
            Field::Bytes(b) => bytes.extend_from_slice(b),
        }
    }
    bytes.resize((bytes.len() as u64).next_multiple_of(largest) as usize, 0);
    Ok((bytes, pointers))
}

/// What the `--arg`s give a launch: the buffers of the `buf:` arguments (allocated before the
/// arguments, numbered in order) with their element types, the kernel's arguments, and the
/// pointers to place. `param_sizes` are the kernel's parameter sizes (`u32:V` also fills an 8-
/// or 16-bit parameter when V fits); every pointer must point into a buffer.
pub(super) struct Inputs {
    pub buffers: Vec<Vec<u8>>,
    pub elems: Vec<Elem>,
    pub args: Vec<Arg>,
    pub pointers: Vec<Pointer>,
}

pub(super) fn inputs(
    args: &[CliArg],
    extra_buffers: &[CliArg],
    sim: &Simulator,
    kernel: &str,
    param_sizes: &[u32],
) -> Result<Inputs, String> {
    let mut out = Inputs {
        buffers: Vec::new(),
        elems: Vec::new(),
        args: Vec::new(),
        pointers: Vec::new(),
    };
    // Each pointer: the argument that places it, its text, the buffer and offset.
    let mut targets: Vec<(String, String, usize, u64)> = Vec::new();
    let every_buffer = args
        .iter()
        .enumerate()
        .map(|(k, a)| (format!("argument {k}"), a))
        .chain(
            extra_buffers
                .iter()
                .enumerate()
                .map(|(j, a)| (format!("--buffer {j}"), a)),
        );
    for (k, a) in every_buffer {
        let (elem, fields) = match a {
            CliArg::Buf(elem, n, init) => {
                let one = &init.to_le_bytes()[..elem.size() as usize];
                out.buffers.push(one.repeat(*n as usize));
                out.elems.push(*elem);
                continue;
            }
            CliArg::BufOf(elem, fields) => (*elem, fields),
            _ => continue,
        };
        let (bytes, pointers) = layout(fields, sim).map_err(|e| format!("{k}: {e}"))?;
        let b = out.buffers.len();
        for (at, target, offset) in pointers {
            targets.push((k.clone(), format!("ptr:{target}:{offset}"), target, offset));
            out.pointers.push(Pointer {
                slot: Slot::Buffer(b, at),
                target,
                offset,
            });
        }
        out.buffers.push(bytes);
        out.elems.push(elem);
    }
    for (k, a) in args.iter().enumerate() {
        let arg = match (a, param_sizes.get(k)) {
            (CliArg::U32(v), Some(&size @ (1 | 2))) => {
                if u64::from(*v) >> (8 * size) != 0 {
                    return Err(format!(
                        "argument {k} (`u32:{v}`): {v} does not fit kernel `{kernel}`'s {size}-byte parameter"
                    ));
                }
                if size == 1 {
                    Arg::U8(*v as u8)
                } else {
                    Arg::U16(*v as u16)
                }
            }
            (CliArg::U32(v), _) => Arg::U32(*v),
            (CliArg::U64(v), _) => Arg::U64(*v),
            (CliArg::I32(v), _) => Arg::U32(*v as u32),
            (CliArg::F32(v), _) => Arg::U32(v.to_bits()),
            (CliArg::F64(v), _) => Arg::U64(v.to_bits()),
            // Every buffer is allocated before the arguments, so a `ptr:` may name any.
            (CliArg::Buf(..) | CliArg::BufOf(..), _) => Arg::Ptr(
                args[..k]
                    .iter()
                    .filter(|a| matches!(a, CliArg::Buf(..) | CliArg::BufOf(..)))
                    .count(),
                0,
            ),
            (CliArg::Ptr(b, off), _) => {
                targets.push((format!("argument {k}"), format!("ptr:{b}:{off}"), *b, *off));
                Arg::Ptr(*b, *off)
            }
            (CliArg::Fn(name), _) => {
                let (bytes, _) = layout(&[Field::Fn(name.clone())], sim)
                    .map_err(|e| format!("argument {k} (`fn:{name}`): {e}"))?;
                Arg::U64(u64::from_le_bytes(bytes.try_into().unwrap_or_default()))
            }
            (CliArg::Struct(fields), _) => {
                let (bytes, pointers) =
                    layout(fields, sim).map_err(|e| format!("argument {k}: {e}"))?;
                for (at, target, offset) in pointers {
                    let text = format!("ptr:{target}:{offset}");
                    targets.push((format!("argument {k}"), text, target, offset));
                    out.pointers.push(Pointer {
                        slot: Slot::Arg(k, at),
                        target,
                        offset,
                    });
                }
                Arg::Bytes(bytes)
            }
        };
        out.args.push(arg);
    }
    for (k, text, b, off) in targets {
        let n = out.buffers.len();
        let Some(buffer) = out.buffers.get(b) else {
            return Err(format!(
                "{k} (`{text}`): no buffer {b}: there {} {n} `buf:` argument(s) and --buffer(s), numbered from 0",
                if n == 1 { "is" } else { "are" },
            ));
        };
        if off >= buffer.len() as u64 {
            return Err(format!(
                "{k} (`{text}`): offset {off} is outside buffer {b}, which has {} bytes (offsets 0..={})",
                buffer.len(),
                buffer.len() - 1
            ));
        }
    }
    Ok(out)
}

/// A buffer's contents as values of its element type.
pub(super) fn buffer_values(data: &[u8], elem: Elem) -> Vec<serde_json::Value> {
    data.chunks_exact(elem.size() as usize)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            elem.show(u64::from_le_bytes(b))
        })
        .collect()
}
