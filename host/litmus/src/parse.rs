//! Parser of litmus tests in the herd7 / Dat3M PTX syntax:
//!
//! ```text
//! PTX MP+rel+acq-gpu
//! "optional description"
//! { x=0; y=0; P1:r0=0; }
//!  P0@cta 0,gpu 0        | P1@cta 1,gpu 0          ;
//!  st.weak x, 1          | ld.acquire.gpu r0, y    ;
//!  st.release.gpu y, 1   | ld.weak r1, x           ;
//! exists (P1:r0 == 1 /\ P1:r1 == 0)
//! ```
//!
//! Every error names the file, the line and the offending token.

use super::cond;
use super::program::*;
use std::collections::BTreeMap;
use std::fmt;

/// A litmus file that cannot be decided: a syntax error or an unsupported construct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The file, as given.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// The token at fault.
    pub token: String,
    /// What is wrong.
    pub msg: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {} (at `{}`)",
            self.file, self.line, self.msg, self.token
        )
    }
}

impl std::error::Error for ParseError {}

/// Builds errors for one file.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'a> {
    pub file: &'a str,
}

impl Ctx<'_> {
    pub(crate) fn err(&self, line: usize, token: &str, msg: impl Into<String>) -> ParseError {
        ParseError {
            file: self.file.to_string(),
            line,
            token: token.to_string(),
            msg: msg.into(),
        }
    }
}

/// Parses the text of a litmus file; `file` is used in error messages.
///
/// ```
/// use ptx_litmus::parse::parse;
/// let t = parse("mp.litmus", "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n \
///     st.weak x, 1 | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.weak r1, x ;\n\
///     exists (P1:r0 == 1 /\\ P1:r1 == 0)\n").unwrap();
/// assert_eq!(t.name, "MP");
/// assert_eq!(t.threads.len(), 2);
/// let e = parse("bad.litmus", "PTX B\n{}\n P0@cta 0,gpu 0 ;\n ld.bogus r0, x ;\nexists (P0:r0 == 0)\n")
///     .unwrap_err();
/// assert_eq!((e.line, e.token.as_str()), (4, "bogus"));
/// ```
pub fn parse(file: &str, text: &str) -> Result<Litmus, ParseError> {
    let cx = Ctx { file };
    let text = strip_comments(text);
    let lines: Vec<(usize, &str)> = text.lines().enumerate().map(|(i, l)| (i + 1, l)).collect();
    let mut i = 0;
    let skip_blank = |i: &mut usize| {
        while *i < lines.len() && lines[*i].1.trim().is_empty() {
            *i += 1;
        }
    };
    skip_blank(&mut i);
    let Some(&(hl, header)) = lines.get(i) else {
        return Err(cx.err(1, "", "empty file: expected `PTX NAME`"));
    };
    let mut words = header.split_whitespace();
    let arch = words.next().unwrap_or("");
    if arch != "PTX" {
        return Err(cx.err(
            hl,
            arch,
            "not a PTX litmus test: the first line must be `PTX NAME`",
        ));
    }
    let name = words
        .next()
        .ok_or_else(|| cx.err(hl, header.trim(), "missing test name"))?;
    let name = name.to_string();
    i += 1;
    // Optional description lines ("…") and blank lines up to the initial state.
    while i < lines.len() && !lines[i].1.trim_start().starts_with('{') {
        let t = lines[i].1.trim();
        if !(t.is_empty() || t.starts_with('"')) {
            return Err(cx.err(
                lines[i].0,
                first_word(t),
                "expected the initial state `{ … }`",
            ));
        }
        i += 1;
    }
    if i >= lines.len() {
        return Err(cx.err(hl, &name, "missing the initial state `{ … }`"));
    }
    // Initial state: from `{` to the matching `}`, possibly over several lines.
    let mut init: Vec<(usize, String)> = Vec::new();
    let mut rest_of_close = None;
    let open_line = lines[i].0;
    let mut first = true;
    while i < lines.len() {
        let (ln, l) = lines[i];
        let mut s = l;
        if first {
            s = &s[s.find('{').unwrap() + 1..];
            first = false;
        }
        i += 1;
        if let Some(p) = s.find('}') {
            init.push((ln, s[..p].to_string()));
            rest_of_close = Some((ln, s[p + 1..].trim().to_string()));
            break;
        }
        init.push((ln, s.to_string()));
    }
    let Some((cl, after)) = rest_of_close else {
        return Err(cx.err(open_line, "{", "the initial state is not closed by `}`"));
    };
    if !after.is_empty() {
        return Err(cx.err(cl, &after, "unexpected text after `}`"));
    }
    let (init_mem, init_regs) = parse_init(&cx, &init)?;
    skip_blank(&mut i);
    // Thread header and instruction rows.
    let Some(&(tl, theader)) = lines.get(i) else {
        return Err(cx.err(cl, "}", "missing the thread table"));
    };
    let mut threads = parse_header(&cx, tl, theader)?;
    i += 1;
    while i < lines.len() {
        let (ln, l) = lines[i];
        let t = l.trim();
        if t.is_empty() {
            i += 1;
            continue;
        }
        if is_condition_start(t) || t.starts_with("locations") || t.starts_with("filter") {
            break;
        }
        let row = t.strip_suffix(';').unwrap_or(t);
        let cells: Vec<&str> = row.split('|').collect();
        if cells.len() > threads.len() {
            return Err(cx.err(ln, cells[threads.len()].trim(), "more columns than threads"));
        }
        for (k, cell) in cells.iter().enumerate() {
            let cell = cell.trim();
            if cell.is_empty() {
                continue;
            }
            let instr = super::instr::parse_instr(&cx, ln, cell, threads[k].place)?;
            threads[k].code.push(Line {
                line: ln,
                text: cell.to_string(),
                instr,
            });
        }
        i += 1;
    }
    // `locations [...]` lines are accepted and ignored (they only ask herd to print values).
    while i < lines.len() && !is_condition_start(lines[i].1.trim()) {
        let t = lines[i].1.trim();
        if !(t.is_empty() || t.starts_with("locations")) {
            return Err(cx.err(
                lines[i].0,
                first_word(t),
                "expected `exists`, `~exists` or `forall`",
            ));
        }
        i += 1;
    }
    let Some(&(ql, _)) = lines.get(i) else {
        return Err(cx.err(
            lines.len().max(1),
            "",
            "missing the final condition (`exists`, `~exists` or `forall`)",
        ));
    };
    let cond_lines: Vec<(usize, &str)> = lines[i..].to_vec();
    let (quantifier, prop) = cond::parse_condition(&cx, &cond_lines)?;
    check_labels(&cx, &threads)?;
    cond::check_terms(&cx, ql, &prop, &threads)?;
    Ok(Litmus {
        name,
        threads,
        init_mem,
        init_regs,
        quantifier,
        prop,
    })
}

fn first_word(s: &str) -> &str {
    s.split_whitespace().next().unwrap_or(s)
}

fn is_condition_start(t: &str) -> bool {
    let t = t.trim_start();
    t.starts_with("exists")
        || t.starts_with("~exists")
        || t.starts_with("~ exists")
        || t.starts_with("forall")
}

/// Removes OCaml-style `(* … *)` comments (herd), keeping line numbers.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    let b: Vec<char> = text.chars().collect();
    let mut k = 0;
    while k < b.len() {
        if b[k] == '(' && b.get(k + 1) == Some(&'*') {
            depth += 1;
            k += 2;
            continue;
        }
        if depth > 0 && b[k] == '*' && b.get(k + 1) == Some(&')') {
            depth -= 1;
            k += 2;
            continue;
        }
        if depth == 0 || b[k] == '\n' {
            out.push(b[k]);
        }
        k += 1;
    }
    out
}

type Init = (BTreeMap<String, i64>, BTreeMap<(usize, String), i64>);

/// `x=0; P0:r0=0; 1:r1=2; int y = 1; uint32_t z; w:global;` — types and state spaces are accepted
/// and ignored: every location is a naturally aligned scalar of its own.
fn parse_init(cx: &Ctx, init: &[(usize, String)]) -> Result<Init, ParseError> {
    let mut mem = BTreeMap::new();
    let mut regs = BTreeMap::new();
    for (ln, chunk) in init {
        for item in chunk.split(';') {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let (lhs, rhs) = match item.split_once('=') {
                Some((l, r)) => (l.trim(), Some(r.trim())),
                None => (item, None),
            };
            let value = match rhs {
                Some(r) => parse_int(r)
                    .ok_or_else(|| cx.err(*ln, r, "expected an integer initial value"))?,
                None => 0,
            };
            // The last word is the name; earlier words are a type (`int`, `uint32_t`, `.global .u32`).
            let name = lhs.split_whitespace().last().unwrap_or("");
            let name = name
                .strip_prefix('[')
                .and_then(|n| n.strip_suffix(']'))
                .unwrap_or(name);
            if let Some((t, r)) = name.split_once(':') {
                if let Some(tid) = thread_number(t) {
                    regs.insert((tid, norm_reg(r)), value);
                    continue;
                }
                // `x:global` / `x:shared`: a location declaration.
                if rhs.is_none() && matches!(r, "global" | "shared" | "generic") {
                    mem.entry(t.to_string()).or_insert(0);
                    continue;
                }
                return Err(cx.err(*ln, name, "expected `Pn:reg=value` or `location=value`"));
            }
            if !is_ident(name) {
                return Err(cx.err(*ln, name, "expected a location or register name"));
            }
            mem.insert(name.to_string(), value);
        }
    }
    Ok((mem, regs))
}

/// `P3` or `3` → 3.
pub(crate) fn thread_number(s: &str) -> Option<usize> {
    let s = s.trim();
    s.strip_prefix('P').unwrap_or(s).parse().ok()
}

/// Registers are compared without their PTX `%` sigil.
pub(crate) fn norm_reg(r: &str) -> String {
    r.trim().trim_start_matches('%').to_string()
}

pub(crate) fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_' || ch == '%')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.' || ch == '$')
}

pub(crate) fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()?
    } else {
        body.parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// ` P0@cta 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 | P2@host ;`
fn parse_header(cx: &Ctx, ln: usize, line: &str) -> Result<Vec<Thread>, ParseError> {
    let t = line.trim();
    let row = t.strip_suffix(';').unwrap_or(t);
    let mut threads = Vec::new();
    for (k, cell) in row.split('|').enumerate() {
        let cell = cell.trim();
        let (p, place) = match cell.split_once('@') {
            Some((p, place)) => (p.trim(), Some(place.trim())),
            None => (cell, None),
        };
        let id = match p.strip_prefix('P').and_then(|n| n.parse::<usize>().ok()) {
            Some(id) if id == k => id,
            _ => return Err(cx.err(ln, p, format!("expected thread `P{k}` in the table header"))),
        };
        let place = match place {
            None => Placement::Gpu {
                gpu: 0,
                cluster: None,
                cta: id as i64,
            },
            Some("host") => Placement::Host,
            Some(spec) => {
                let (mut gpu, mut cluster, mut cta) = (None, None, None);
                for part in spec.split(',') {
                    let mut w = part.split_whitespace();
                    let (key, val) = (w.next().unwrap_or(""), w.next());
                    let val = val.and_then(parse_int).ok_or_else(|| {
                        cx.err(ln, part.trim(), "expected `cta N`, `cluster N` or `gpu N`")
                    })?;
                    if w.next().is_some() {
                        return Err(cx.err(
                            ln,
                            part.trim(),
                            "expected `cta N`, `cluster N` or `gpu N`",
                        ));
                    }
                    let slot = match key {
                        "cta" => &mut cta,
                        "cluster" => &mut cluster,
                        "gpu" => &mut gpu,
                        _ => {
                            return Err(cx.err(
                                ln,
                                key,
                                "unknown placement: expected `cta`, `cluster`, `gpu` or `host`",
                            ));
                        }
                    };
                    *slot = Some(val);
                }
                let cta = cta.ok_or_else(|| cx.err(ln, spec, "the placement needs `cta N`"))?;
                Placement::Gpu {
                    gpu: gpu.unwrap_or(0),
                    cluster,
                    cta,
                }
            }
        };
        threads.push(Thread {
            id,
            place,
            code: Vec::new(),
        });
    }
    Ok(threads)
}

/// Every branch target must be a label of the same thread.
fn check_labels(cx: &Ctx, threads: &[Thread]) -> Result<(), ParseError> {
    for t in threads {
        for l in &t.code {
            if let Instr::Branch { target, .. } = &l.instr {
                let known = t
                    .code
                    .iter()
                    .any(|m| matches!(&m.instr, Instr::Label(n) if n == target));
                if !known {
                    return Err(cx.err(
                        l.line,
                        target,
                        format!("no label `{target}` in thread P{}", t.id),
                    ));
                }
            }
        }
    }
    Ok(())
}
