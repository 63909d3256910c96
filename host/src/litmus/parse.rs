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
/// use scoped_atomics_host::litmus::parse::parse;
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
            let instr = parse_instr(&cx, ln, cell, threads[k].place)?;
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

/// Mnemonics of other proxies (textures, surfaces, constant memory, …) and of what the model
/// does not cover (asynchronous copies, proxy fences): refused by name.
const OTHER_PROXY: &[&str] = &[
    "suld",
    "sust",
    "sured",
    "suq",
    "tex",
    "tld4",
    "txq",
    "ldu",
    "cp",
    "cp.async",
    "multimem",
    "mbarrier",
    "wgmma",
    "tensormap",
];

/// Parses one instruction cell of thread placed at `place`.
pub(crate) fn parse_instr(
    cx: &Ctx,
    ln: usize,
    cell: &str,
    place: Placement,
) -> Result<Instr, ParseError> {
    if let Some(label) = cell.strip_suffix(':') {
        if is_ident(label.trim()) {
            return Ok(Instr::Label(label.trim().to_string()));
        }
    }
    let (mnemonic, ops) = match cell.find(char::is_whitespace) {
        Some(p) => (&cell[..p], cell[p..].trim()),
        None => (cell, ""),
    };
    let ops: Vec<&str> = if ops.is_empty() {
        Vec::new()
    } else {
        ops.split(',').map(str::trim).collect()
    };
    let quals: Vec<&str> = mnemonic.split('.').collect();
    let head = quals[0];
    if OTHER_PROXY.contains(&head) {
        return Err(cx.err(
            ln,
            mnemonic,
            format!("unsupported instruction `{mnemonic}`: only the generic proxy is modelled"),
        ));
    }
    let host = place == Placement::Host;
    let want = |n: usize| -> Result<(), ParseError> {
        if ops.len() == n {
            Ok(())
        } else {
            Err(cx.err(
                ln,
                cell,
                format!("`{head}` takes {n} operands, found {}", ops.len()),
            ))
        }
    };
    match head {
        "ld" | "st" | "atom" | "red" => {
            let mq = MemQuals::parse(cx, ln, head, &quals[1..], host)?;
            let loc = |s: &str| location(cx, ln, s);
            match head {
                "ld" => {
                    want(2)?;
                    if mq.sem.is_release() {
                        return Err(cx.err(ln, mnemonic, "a load cannot be `.release`"));
                    }
                    Ok(Instr::Ld {
                        sem: mq.sem,
                        scope: mq.scope,
                        dst: register(cx, ln, ops[0])?,
                        loc: loc(ops[1])?,
                    })
                }
                "st" => {
                    want(2)?;
                    if mq.sem.is_acquire() {
                        return Err(cx.err(ln, mnemonic, "a store cannot be `.acquire`"));
                    }
                    Ok(Instr::St {
                        sem: mq.sem,
                        scope: mq.scope,
                        loc: loc(ops[0])?,
                        val: operand(cx, ln, ops[1])?,
                    })
                }
                _ => {
                    let op = mq.op.ok_or_else(|| {
                        cx.err(
                            ln,
                            mnemonic,
                            format!("`{head}` needs an operation (add, exch, cas, …)"),
                        )
                    })?;
                    let red = head == "red";
                    if red && matches!(op, RmwOp::Exch | RmwOp::Cas) {
                        return Err(cx.err(ln, mnemonic, "`red` has no `exch` or `cas`"));
                    }
                    let n = usize::from(!red) + 2 + usize::from(op == RmwOp::Cas);
                    want(n)?;
                    let o = usize::from(!red);
                    Ok(Instr::Atom {
                        sem: mq.sem,
                        scope: mq.scope,
                        op,
                        dst: if red {
                            None
                        } else {
                            Some(register(cx, ln, ops[0])?)
                        },
                        loc: loc(ops[o])?,
                        a: operand(cx, ln, ops[o + 1])?,
                        b: if op == RmwOp::Cas {
                            Some(operand(cx, ln, ops[o + 2])?)
                        } else {
                            None
                        },
                    })
                }
            }
        }
        "fence" | "membar" => {
            want(0)?;
            let mut kind = if head == "membar" {
                FenceKind::Sc
            } else {
                FenceKind::AcqRel
            };
            let mut scope = None;
            for q in &quals[1..] {
                match *q {
                    "sc" if head == "fence" => kind = FenceKind::Sc,
                    "acq_rel" if head == "fence" => kind = FenceKind::AcqRel,
                    "acquire" if head == "fence" => kind = FenceKind::Acquire,
                    "release" if head == "fence" => kind = FenceKind::Release,
                    "gl" if head == "membar" => scope = Some(Scope::Gpu),
                    "proxy" | "op_restrict" | "mbarrier_init" => {
                        return Err(cx.err(ln, mnemonic, format!("unsupported instruction `{mnemonic}`: proxy fences are not modelled (generic proxy only)")));
                    }
                    q => match Scope::from_qualifier(q) {
                        Some(s) => scope = Some(s),
                        None => {
                            return Err(cx.err(
                                ln,
                                q,
                                format!("unknown qualifier `.{q}` of `{head}`"),
                            ));
                        }
                    },
                }
            }
            let scope = if host {
                Scope::Sys
            } else {
                scope.unwrap_or(Scope::Gpu)
            };
            Ok(Instr::Fence { kind, scope })
        }
        "bar" | "barrier" => {
            match &quals[1..] {
                ["sync"] | ["cta", "sync"] | ["sync", "aligned"] | ["cta", "sync", "aligned"] => {}
                _ => {
                    return Err(cx.err(ln, mnemonic, format!("unsupported instruction `{mnemonic}`: only `bar.cta.sync N` is modelled")));
                }
            }
            if ops.is_empty() || ops.len() > 2 {
                return Err(cx.err(
                    ln,
                    cell,
                    "`bar.cta.sync` takes a barrier number (and an optional thread count)",
                ));
            }
            let id =
                parse_int(ops[0]).ok_or_else(|| cx.err(ln, ops[0], "expected a barrier number"))?;
            if host {
                return Err(cx.err(ln, mnemonic, "a host thread has no CTA barrier"));
            }
            Ok(Instr::Bar { id })
        }
        "mov" => {
            want(2)?;
            Ok(Instr::Alu {
                op: AluOp::Second,
                dst: register(cx, ln, ops[0])?,
                a: Operand::Imm(0),
                b: operand(cx, ln, ops[1])?,
            })
        }
        "add" | "sub" | "and" | "or" | "xor" | "min" | "max" => {
            want(3)?;
            let op = match head {
                "add" => AluOp::Add,
                "sub" => AluOp::Sub,
                "and" => AluOp::And,
                "or" => AluOp::Or,
                "xor" => AluOp::Xor,
                "min" => AluOp::Min,
                _ => AluOp::Max,
            };
            Ok(Instr::Alu {
                op,
                dst: register(cx, ln, ops[0])?,
                a: operand(cx, ln, ops[1])?,
                b: operand(cx, ln, ops[2])?,
            })
        }
        "goto" | "bra" => {
            want(1)?;
            Ok(Instr::Branch {
                cond: None,
                target: label(cx, ln, ops[0])?,
            })
        }
        "beq" | "bne" | "blt" | "ble" | "bgt" | "bge" => {
            want(3)?;
            let c = match head {
                "beq" => Cmp::Eq,
                "bne" => Cmp::Ne,
                "blt" => Cmp::Lt,
                "ble" => Cmp::Le,
                "bgt" => Cmp::Gt,
                _ => Cmp::Ge,
            };
            Ok(Instr::Branch {
                cond: Some((c, operand(cx, ln, ops[0])?, operand(cx, ln, ops[1])?)),
                target: label(cx, ln, ops[2])?,
            })
        }
        _ => Err(cx.err(ln, mnemonic, format!("unknown instruction `{mnemonic}`"))),
    }
}

/// The qualifiers of `ld`, `st`, `atom` and `red`.
struct MemQuals {
    sem: Sem,
    scope: Scope,
    op: Option<RmwOp>,
}

impl MemQuals {
    fn parse(
        cx: &Ctx,
        ln: usize,
        head: &str,
        quals: &[&str],
        host: bool,
    ) -> Result<MemQuals, ParseError> {
        let atomic = matches!(head, "atom" | "red");
        let mut sem = None;
        let mut scope = None;
        let mut op = None;
        let mut volatile = false;
        for &q in quals {
            let set_sem = |sem: &mut Option<Sem>, s: Sem| -> Result<(), ParseError> {
                if sem.is_some() {
                    return Err(cx.err(ln, q, "more than one memory-ordering qualifier"));
                }
                *sem = Some(s);
                Ok(())
            };
            match q {
                "weak" if !atomic => set_sem(&mut sem, Sem::Weak)?,
                "relaxed" => set_sem(&mut sem, Sem::Relaxed)?,
                "acquire" => set_sem(&mut sem, Sem::Acquire)?,
                "release" => set_sem(&mut sem, Sem::Release)?,
                "acq_rel" if atomic => set_sem(&mut sem, Sem::AcqRel)?,
                "volatile" | "mmio" if !atomic => {
                    set_sem(&mut sem, Sem::Relaxed)?;
                    volatile = true;
                }
                "global" | "shared" | "generic" => {}
                "cta" | "cluster" | "gpu" | "sys" => scope = Scope::from_qualifier(q),
                "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" => {}
                "const" | "nc" | "param" | "tex" | "surf" | "local" => {
                    return Err(cx.err(ln, q, format!("unsupported state space or proxy `.{q}`: only the generic proxy is modelled")));
                }
                _ if is_type(q) => {}
                _ if atomic && RmwOp::from_qualifier(q).is_some() => {
                    if op.is_some() {
                        return Err(cx.err(ln, q, "more than one operation"));
                    }
                    op = RmwOp::from_qualifier(q);
                }
                _ => return Err(cx.err(ln, q, format!("unknown qualifier `.{q}` of `{head}`"))),
            }
        }
        let sem = sem.unwrap_or(if atomic { Sem::Relaxed } else { Sem::Weak });
        if sem == Sem::Weak && scope.is_some() {
            return Err(cx.err(ln, head, "a weak operation has no scope"));
        }
        let scope = if host || volatile {
            Scope::Sys
        } else {
            scope.unwrap_or(Scope::Gpu)
        };
        Ok(MemQuals { sem, scope, op })
    }
}

fn is_type(q: &str) -> bool {
    matches!(
        q,
        "b8" | "b16"
            | "b32"
            | "b64"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "s8"
            | "s16"
            | "s32"
            | "s64"
            | "f16"
            | "f32"
            | "f64"
    )
}

fn location(cx: &Ctx, ln: usize, s: &str) -> Result<String, ParseError> {
    let n = s
        .strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .unwrap_or(s)
        .trim();
    if is_ident(n) && !n.starts_with('%') {
        Ok(n.to_string())
    } else {
        Err(cx.err(ln, s, "expected a location name"))
    }
}

fn register(cx: &Ctx, ln: usize, s: &str) -> Result<String, ParseError> {
    if is_ident(s) {
        Ok(norm_reg(s))
    } else {
        Err(cx.err(ln, s, "expected a register"))
    }
}

fn operand(cx: &Ctx, ln: usize, s: &str) -> Result<Operand, ParseError> {
    match parse_int(s) {
        Some(v) => Ok(Operand::Imm(v)),
        None if is_ident(s) => Ok(Operand::Reg(norm_reg(s))),
        None => Err(cx.err(ln, s, "expected a register or an integer")),
    }
}

fn label(cx: &Ctx, ln: usize, s: &str) -> Result<String, ParseError> {
    if is_ident(s) {
        Ok(s.to_string())
    } else {
        Err(cx.err(ln, s, "expected a label"))
    }
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
