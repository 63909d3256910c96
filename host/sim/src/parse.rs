//! PTX text → module: variables, functions, and each function's statements with their PTX line
//! (and the source line of the last `.loc`). No semantics here: [`super::decode`] gives meaning.

mod directives;
mod scopes;

use super::source_lines::{INLINED_AT, LocState, file_directive};
pub use super::source_lines::{InlinedAt, SrcPos};
use crate::error::SimError;
use directives::{attribute_inlined_code, declared_shape};
pub use scopes::as_declared;
use std::collections::HashMap;

/// A state space of a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarSpace {
    Global,
    Shared,
    Const,
    Local,
}

/// A variable (`.global`, `.shared`, `.const` at module level; `.local` inside a function).
#[derive(Debug, Clone)]
pub struct Var {
    pub name: String,
    pub space: VarSpace,
    pub align: u64,
    pub size: u64,
    pub init: Vec<u8>,
    /// `.extern .shared … name[]`: dynamic shared memory.
    pub dynamic: bool,
    /// Declared `.extern` (defined elsewhere), not defined here.
    pub external: bool,
    /// The PTX line of its declaration.
    pub line: u32,
}

/// A parameter of a function or a call sequence: name and size in bytes.
#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    pub size: u32,
}

/// One instruction as written: guard, opcode with its suffixes, operands.
#[derive(Debug, Clone)]
pub struct RawInstr {
    pub guard: Option<(bool, String)>,
    pub opcode: String,
    pub operands: Vec<String>,
    pub line: u32,
    /// Where the last `.loc` before the instruction points.
    pub src: SrcPos,
    /// The kernel author's line for it: the `inlined_at` position of that `.loc` where it has
    /// one (nvcc's `-lineinfo`), else the last `.loc` in the function's own file (rustc's
    /// line directives name only the innermost inlined line, often inside a library).
    pub caller: SrcPos,
    /// The body position when `caller` was last set from a line of the user's crate.
    pub caller_from: usize,
}

/// A statement of a function body.
#[derive(Debug, Clone)]
pub enum Stmt {
    Label(String),
    Instr(RawInstr),
    Local(Var),
    /// A `.param` declared inside a call sequence.
    Param(Param),
    /// The registers a `.reg` declares, as written: `%r<6>` (`%r0` to `%r5`), `%rd1`, or a
    /// name without `%` (`.reg .f16 low, high;`); and their type's size in bytes (0 for
    /// `.pred`; `None` for a vector or a type not read here).
    Regs(Vec<String>, Option<u32>),
}

/// A function (`.entry` kernel or `.func`), with its body if defined here.
#[derive(Debug, Clone)]
pub struct Func {
    pub name: String,
    pub is_entry: bool,
    pub params: Vec<Param>,
    pub rets: Vec<Param>,
    pub body: Option<Vec<Stmt>>,
    pub line: u32,
}

/// A parsed PTX module.
#[derive(Debug, Clone, Default)]
pub struct Module {
    pub version: String,
    pub target: String,
    pub vars: Vec<Var>,
    pub funcs: Vec<Func>,
    /// The entries that declare a cluster shape (`.reqnctapercluster`), with it.
    pub clusters: Vec<(String, [u32; 3])>,
    /// The source files of `.file` directives by number.
    pub files: HashMap<u32, String>,
    /// The inlined call sites the builder marks (`//@inlined_at`).
    pub inlined: Vec<InlinedAt>,
}

/// A lexical piece: a statement's text, a block brace, or a label.
#[derive(Debug)]
enum Piece {
    Text(String, u32),
    Open,
    Close,
    /// A label and its line.
    Label(String, u32),
}

/// Splits PTX into statements, braces and labels, dropping comments; each statement keeps the
/// line it starts on.
fn pieces(text: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut buf = String::new();
    let mut start = 0u32;
    let mut depth = 0u32; // braces inside a statement (`{_, %r1}`, initialisers)
    let mut skip_section = false;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i as u32 + 1;
        if let Some(site) = raw.trim_start().strip_prefix(INLINED_AT)
            && buf.trim().is_empty()
        {
            out.push(Piece::Text(format!("{INLINED_AT}{site}"), line_no));
            continue;
        }
        let line = match raw.find("//") {
            Some(p) => &raw[..p],
            None => raw,
        };
        let trimmed = line.trim();
        if buf.trim().is_empty() && depth == 0 && !skip_section {
            // Directives that end at the end of the line, without `;`.
            let first = trimmed.split_whitespace().next().unwrap_or("");
            let line_directive =
                [".version", ".target", ".address_size", ".loc", ".file"].contains(&first);
            if line_directive {
                out.push(Piece::Text(trimmed.to_string(), line_no));
                buf.clear();
                continue;
            }
            if trimmed.starts_with(".section") {
                skip_section = true;
            }
        }
        if skip_section {
            // Debug sections: skipped up to their closing brace, which may be on the same line
            // (LLVM's empty `.section .debug_macinfo { }`, before the `.file` directives).
            if trimmed.starts_with('}') || trimmed.ends_with('}') {
                skip_section = false;
            }
            continue;
        }
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                // `::` belongs to a state space (`.shared::cta`), never ends a label.
                ':' if chars.peek() == Some(&':') => {
                    chars.next();
                    buf.push_str("::");
                }
                ';' if depth == 0 => {
                    let s = buf.trim();
                    if !s.is_empty() {
                        out.push(Piece::Text(s.to_string(), start));
                    }
                    buf.clear();
                }
                '{' => {
                    let s = buf.trim();
                    let header = [".visible", ".entry", ".func", ".weak", ".extern"]
                        .iter()
                        .any(|h| s.starts_with(h))
                        && !s.contains('=');
                    if s.is_empty() || (header && depth == 0) {
                        if !s.is_empty() {
                            out.push(Piece::Text(s.to_string(), start));
                        }
                        buf.clear();
                        out.push(Piece::Open);
                    } else {
                        depth += 1;
                        buf.push(c);
                    }
                }
                '}' => {
                    if depth > 0 {
                        depth -= 1;
                        buf.push(c);
                    } else {
                        let s = buf.trim();
                        if !s.is_empty() {
                            out.push(Piece::Text(s.to_string(), start));
                        }
                        buf.clear();
                        out.push(Piece::Close);
                    }
                }
                ':' if depth == 0 && is_label(buf.trim()) => {
                    out.push(Piece::Label(buf.trim().to_string(), start));
                    buf.clear();
                }
                _ => {
                    if buf.trim().is_empty() && !c.is_whitespace() {
                        start = line_no;
                    }
                    buf.push(c);
                }
            }
        }
        buf.push('\n');
    }
    out
}

fn is_label(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('.')
        && !s.starts_with('@')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'))
}

/// Size in bytes of a PTX fundamental type name (`.b32` → 4).
pub fn type_size(t: &str) -> Option<u32> {
    let t = t.trim_start_matches('.');
    Some(match t {
        "pred" => 1,
        "b8" | "u8" | "s8" => 1,
        "b16" | "u16" | "s16" | "f16" | "bf16" => 2,
        "b32" | "u32" | "s32" | "f32" => 4,
        "b64" | "u64" | "s64" | "f64" => 8,
        "b128" => 16,
        _ => return None,
    })
}

/// `.param .u64 .ptr .align 1 name` or `.param .align 8 .b8 name[16]` → parameter.
fn parse_param(s: &str, line: u32) -> Result<Param, SimError> {
    let words: Vec<&str> = s.split_whitespace().collect();
    let name_word = words
        .last()
        .ok_or_else(|| SimError::parse(line, "empty parameter"))?;
    let elem = words
        .iter()
        .find_map(|w| type_size(w))
        .ok_or_else(|| SimError::parse(line, format!("parameter without a type: `{s}`")))?;
    let (name, count) = split_array(name_word, line)?;
    Ok(Param {
        name,
        size: elem * count.unwrap_or(1) as u32,
    })
}

/// `name[24]` → (name, Some(24)); `name[]` → (name, Some(0)); `name` → (name, None).
fn split_array(w: &str, line: u32) -> Result<(String, Option<u64>), SimError> {
    match w.find('[') {
        Some(p) => {
            let inner = w[p + 1..].trim_end_matches(']');
            let n = if inner.is_empty() {
                0
            } else {
                inner
                    .parse()
                    .map_err(|_| SimError::parse(line, format!("bad array size in `{w}`")))?
            };
            Ok((w[..p].to_string(), Some(n)))
        }
        None => Ok((w.to_string(), None)),
    }
}

fn parse_var(s: &str, line: u32) -> Result<Var, SimError> {
    let (decl, init) = match s.find('=') {
        Some(p) => (&s[..p], Some(&s[p + 1..])),
        None => (s, None),
    };
    let words: Vec<&str> = decl.split_whitespace().collect();
    let space = if words.contains(&".shared") {
        VarSpace::Shared
    } else if words.contains(&".const") {
        VarSpace::Const
    } else if words.contains(&".local") {
        VarSpace::Local
    } else {
        VarSpace::Global
    };
    let align = words
        .iter()
        .position(|w| *w == ".align")
        .and_then(|p| words.get(p + 1))
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let elem = words.iter().find_map(|w| type_size(w)).unwrap_or(1) as u64;
    let (name, count) = split_array(words.last().copied().unwrap_or(""), line)?;
    let dynamic = count == Some(0) && words.contains(&".extern");
    let size = elem * count.unwrap_or(1);
    let mut bytes = Vec::new();
    if let Some(init) = init {
        let inner = init.trim().trim_start_matches('{').trim_end_matches('}');
        for item in inner.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let v = parse_int(item).ok_or_else(|| {
                SimError::parse(
                    line,
                    format!("unsupported initialiser `{item}` of variable {name}"),
                )
            })?;
            bytes.extend_from_slice(&v.to_le_bytes()[..elem as usize]);
        }
    }
    Ok(Var {
        name,
        space,
        align,
        size,
        init: bytes,
        dynamic,
        external: words.contains(&".extern"),
        line,
    })
}

/// A PTX integer literal: decimal, `0x…` hexadecimal, negative, with an optional `U` suffix;
/// `0f…`/`0d…` float bit patterns.
pub fn parse_int(s: &str) -> Option<u64> {
    let s = s.trim().trim_end_matches('U');
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(h) = s.strip_prefix("0f").or_else(|| s.strip_prefix("0F")) {
        u64::from(u32::from_str_radix(h, 16).ok()?)
    } else if let Some(h) = s.strip_prefix("0d").or_else(|| s.strip_prefix("0D")) {
        u64::from_str_radix(h, 16).ok()?
    } else {
        s.parse::<u64>().ok()?
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

/// Splits operands at top-level commas (`{_, %r1}` and `[a+4]` stay whole).
fn split_operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0, String::new());
    for c in s.chars() {
        match c {
            '{' | '[' | '(' => {
                depth += 1;
                cur.push(c)
            }
            '}' | ']' | ')' => {
                depth -= 1;
                cur.push(c)
            }
            ',' if depth == 0 => out.push(std::mem::take(&mut cur).trim().to_string()),
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Refuses two operands written without a comma between them (`ld.param.u64 %rd1 [p]`), which
/// would otherwise read as one operand: ptxas rejects the statement.
fn check_commas(opcode: &str, operands: &[String], line: u32) -> Result<(), SimError> {
    for operand in operands.iter().filter(|o| o.contains(char::is_whitespace)) {
        let mut depth = 0i32;
        let mut words = vec![String::new()];
        for c in operand.chars() {
            match c {
                '{' | '[' | '(' => depth += 1,
                '}' | ']' | ')' => depth -= 1,
                _ => {}
            }
            if c.is_whitespace() && depth == 0 {
                if !words.last().is_some_and(String::is_empty) {
                    words.push(String::new());
                }
            } else if let Some(w) = words.last_mut() {
                w.push(c);
            }
        }
        words.retain(|w| !w.is_empty());
        let operator = |c: char| "+-*/|&!<>=".contains(c);
        for pair in words.windows(2) {
            if !pair[0].ends_with(operator) && !pair[1].starts_with(operator) {
                return Err(SimError::parse(
                    line,
                    format!(
                        "`{opcode}`: no comma between operands `{}` and `{}`",
                        pair[0], pair[1]
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn parse_instr(s: &str, line: u32, loc: &LocState) -> Result<RawInstr, SimError> {
    let mut rest = s.trim();
    let mut guard = None;
    if let Some(g) = rest.strip_prefix('@') {
        let end = g.find(char::is_whitespace).unwrap_or(g.len());
        let (neg, name) = match g[..end].strip_prefix('!') {
            Some(n) => (true, n),
            None => (false, &g[..end]),
        };
        guard = Some((neg, name.to_string()));
        rest = g[end..].trim();
    }
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let (opcode, operands) = (&rest[..end], split_operands(rest[end..].trim()));
    check_commas(opcode, &operands, line)?;
    Ok(RawInstr {
        guard,
        opcode: opcode.to_string(),
        operands,
        line,
        src: loc.current,
        caller: loc.caller,
        caller_from: loc.caller_from,
    })
}

/// The parameter list between the outermost parentheses of `s` starting at `from`.
fn paren_list(s: &str, from: usize) -> Option<(usize, &str)> {
    let open = s[from..].find('(')? + from;
    let mut depth = 0;
    for (i, c) in s[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some((open + i + 1, &s[open + 1..open + i]));
                }
            }
            _ => {}
        }
    }
    None
}

fn params_of(list: &str, line: u32) -> Result<Vec<Param>, SimError> {
    split_operands(list)
        .iter()
        .filter(|p| !p.is_empty())
        .map(|p| parse_param(p, line))
        .collect()
}

fn parse_header(s: &str, line: u32) -> Result<Func, SimError> {
    let is_entry = s.contains(".entry");
    let kw = if is_entry { ".entry" } else { ".func" };
    let mut at = s.find(kw).map(|p| p + kw.len()).unwrap_or(0);
    let mut rets = Vec::new();
    let after = s[at..].trim_start();
    if after.starts_with('(') {
        let (end, list) = paren_list(s, at).ok_or_else(|| SimError::parse(line, "bad header"))?;
        rets = params_of(list, line)?;
        at = end;
    }
    let rest = s[at..].trim_start();
    let name_end = rest
        .find(|c: char| c == '(' || c.is_whitespace())
        .unwrap_or(rest.len());
    let name = rest[..name_end].to_string();
    let params = match paren_list(s, s.len() - rest.len() + name_end) {
        Some((_, list)) => params_of(list, line)?,
        None => Vec::new(),
    };
    Ok(Func {
        name,
        is_entry,
        params,
        rets,
        body: None,
        line,
    })
}

/// Parses a PTX module.
pub fn parse(text: &str) -> Result<Module, SimError> {
    let ps = pieces(text);
    let mut m = Module::default();
    // `.file` directives usually follow the functions; a body's `.loc` reading needs them.
    for piece in &ps {
        if let Piece::Text(s, _) = piece
            && let Some((number, path)) = s.strip_prefix(".file").and_then(file_directive)
        {
            m.files.insert(number, path);
        }
    }
    let mut i = 0;
    while i < ps.len() {
        match &ps[i] {
            Piece::Text(s, line) => {
                let line = *line;
                if let Some(site) = s.strip_prefix(INLINED_AT) {
                    m.inlined.extend(InlinedAt::read(site));
                } else if s.starts_with(".file") {
                    // Read before the functions (above).
                } else if let Some(v) = s.strip_prefix(".version") {
                    m.version = v.trim().to_string();
                } else if let Some(t) = s.strip_prefix(".target") {
                    m.target = t.trim().to_string();
                } else if s.contains(".entry") || s.contains(".func") {
                    let mut f = parse_header(s, line)?;
                    if let Some(shape) = declared_shape(s) {
                        m.clusters.push((f.name.clone(), shape));
                    }
                    if matches!(ps.get(i + 1), Some(Piece::Open)) {
                        let (body, next) = parse_body(&ps, i + 2, &m.files)?;
                        f.body = Some(body);
                        i = next;
                    }
                    match m.funcs.iter_mut().find(|g| g.name == f.name) {
                        Some(g) if g.body.is_some() && f.body.is_some() => {
                            return Err(SimError::parse(
                                f.line,
                                format!(
                                    "duplicate definition of function `{}` (first defined at PTX line {})",
                                    f.name, g.line
                                ),
                            ));
                        }
                        Some(g) if f.body.is_some() => *g = f,
                        Some(_) => {}
                        None => m.funcs.push(f),
                    }
                } else if s.starts_with(".global")
                    || s.starts_with(".shared")
                    || s.starts_with(".const")
                    || s.starts_with(".extern")
                    || s.starts_with(".visible .global")
                    || s.starts_with(".visible .shared")
                    || s.starts_with(".visible .const")
                {
                    m.vars.push(parse_var(s, line)?);
                }
            }
            Piece::Open | Piece::Close | Piece::Label(..) => {}
        }
        i += 1;
    }
    for f in &mut m.funcs {
        if let Some(body) = &mut f.body {
            attribute_inlined_code(body, &m.inlined);
        }
    }
    if m.version.is_empty() && m.funcs.is_empty() {
        return Err(SimError::BadInput(
            "not a PTX module: no `.version` and no functions".into(),
        ));
    }
    Ok(m)
}

/// Parses statements from `i` to the matching close brace; returns them and the index of that
/// brace. Nested blocks (inline asm, call sequences) are flattened, each one's own labels,
/// registers and parameters renamed apart ([`scopes`]).
fn parse_body(
    ps: &[Piece],
    mut i: usize,
    files: &HashMap<u32, String>,
) -> Result<(Vec<Stmt>, usize), SimError> {
    let mut out = Vec::new();
    let mut loc = LocState::new(files);
    // The blocks: the body is block 0; `open` holds the blocks open here, innermost last.
    let mut blocks = scopes::Blocks::default();
    let mut open = vec![0];
    // Each statement's block and PTX line.
    let mut at: Vec<(u32, u32)> = Vec::new();
    while i < ps.len() {
        let mut line = 0;
        match &ps[i] {
            Piece::Open => open.push(blocks.open(open[open.len() - 1])),
            Piece::Close => {
                open.pop();
                if open.is_empty() {
                    blocks.resolve(&mut out, &at)?;
                    return Ok((out, i));
                }
            }
            Piece::Label(l, l_line) => {
                line = *l_line;
                out.push(Stmt::Label(l.clone()));
            }
            Piece::Text(s, s_line) => {
                line = *s_line;
                if let Some(directive) =
                    s.strip_prefix(".loc ").or_else(|| s.strip_prefix(".loc\t"))
                {
                    loc.read(directive, out.len());
                } else if let Some(decl) = s.strip_prefix(".reg") {
                    // Decode gives each register a slot where it is used and refuses a use
                    // no `.reg` declares (ptxas: "Unknown symbol").
                    let names: Vec<String> = decl
                        .split([' ', '\t', '\n', ','])
                        .filter(|w| !w.is_empty() && !w.starts_with('.'))
                        .map(str::to_string)
                        .collect();
                    let types: Vec<&str> = decl
                        .split_whitespace()
                        .filter(|w| w.starts_with('.'))
                        .collect();
                    let size = match types[..] {
                        [".pred"] => Some(0),
                        [".f16x2" | ".bf16x2"] => Some(4),
                        [t] => type_size(t),
                        _ => None,
                    };
                    if !names.is_empty() {
                        out.push(Stmt::Regs(names, size));
                    }
                } else if s.starts_with(".local") || s.starts_with(".shared") {
                    out.push(Stmt::Local(parse_var(s, line)?));
                } else if s.starts_with(".param") {
                    out.push(Stmt::Param(parse_param(s, line)?));
                } else if s.starts_with('.') || s.contains(".callprototype") {
                    // `.pragma`, `.maxntid`, prototypes: no effect on execution.
                } else {
                    out.push(Stmt::Instr(parse_instr(s, line, &loc)?));
                }
            }
        }
        at.resize(out.len(), (open[open.len() - 1], line));
        i += 1;
    }
    Err(SimError::BadInput("unterminated function body".into()))
}
