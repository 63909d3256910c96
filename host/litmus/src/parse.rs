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
use super::init::parse_init;
use super::program::*;
pub use super::text::ParseError;
use super::text::{Ctx, is_ident, norm_reg, parse_int};
use std::collections::BTreeMap;

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
    parse_dialect(file, text, Dialect::Ptx)
}

/// [`parse`] in a chosen [`Dialect`] (Dat3M's barrier forms with [`Dialect::Dat3m`]).
///
/// ```
/// use ptx_litmus::{enumerate::decide, parse::parse_dialect, program::Dialect};
/// // Two instructions labelled 1 and 2 of one CTA-wide barrier: they meet.
/// let t = "PTX B\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n \
///     bar.cta.sync 1 | bar.cta.sync 2 ;\nexists (x == 0)\n";
/// let o = decide(&parse_dialect("b", t, Dialect::Dat3m).unwrap()).unwrap();
/// assert_eq!(o.verdict(), "Ok");
/// let o = decide(&parse_dialect("b", t, Dialect::Ptx).unwrap()).unwrap();
/// assert_eq!(o.verdict(), "Deadlock"); // PTX: barriers 1 and 2, each waiting for both threads
/// ```
pub fn parse_dialect(file: &str, text: &str, dialect: Dialect) -> Result<Litmus, ParseError> {
    let cx = Ctx { file, dialect };
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
    if !matches!(arch, "PTX" | "ptx" | "GPU_PTX") {
        return Err(cx.err(
            hl,
            arch,
            "not a PTX litmus test: the first line must be `PTX NAME`",
        ));
    }
    let name = words
        .next()
        .ok_or_else(|| cx.err(hl, header.trim(), "missing test name"))?;
    let name = name.trim_end_matches('{').to_string();
    // Everything after the name up to the first `{` outside a quoted string is description:
    // quoted lines (several, or one string over several lines) and herd's `key=value` lines
    // (Dat3M's grammar: `PTX ~('{')* {`).
    let (open_line, open_col) =
        find_init_open(&lines, i, header.find(&*name).unwrap_or(0) + name.len())
            .ok_or_else(|| cx.err(hl, &name, "missing the initial state `{ … }`"))?;
    i = open_line;
    // Initial state: from `{` to the matching `}`, possibly over several lines.
    let mut init: Vec<(usize, String)> = Vec::new();
    let mut rest_of_close = None;
    let open_ln = lines[i].0;
    let mut first = true;
    while i < lines.len() {
        let (ln, l) = lines[i];
        let mut s = l;
        if first {
            s = &s[open_col + 1..];
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
        return Err(cx.err(open_ln, "{", "the initial state is not closed by `}`"));
    };
    if !(after.is_empty() || after == ";") {
        return Err(cx.err(cl, &after, "unexpected text after `}`"));
    }
    let mut init = parse_init(&cx, &init)?;
    let reg_ptrs = init.resolve();
    let mut aliases = BTreeMap::new();
    let mut vaddrs = BTreeMap::new();
    for (virt, phys) in init.aliases.iter().chain(&init.proxy_aliases) {
        if init.mem.contains_key(virt) {
            return Err(cx.err(
                cl,
                virt,
                format!("`{virt}` is both a location and an alias (of `{phys}`)"),
            ));
        }
        let root = init
            .root(virt)
            .map_err(|a| cx.err(cl, &a, format!("the aliases of `{a}` lead back to `{a}`")))?;
        aliases.insert(virt.clone(), root);
        vaddrs.insert(virt.clone(), init.vaddr(virt));
    }
    let (init_mem, init_regs) = (init.mem, init.regs);
    skip_blank(&mut i);
    // Thread header and instruction rows.
    let Some(&(tl, theader)) = lines.get(i) else {
        return Err(cx.err(cl, "}", "missing the thread table"));
    };
    let mut threads = parse_header(&cx, tl, theader)?;
    let mut fresh = 0usize;
    i += 1;
    while i < lines.len() {
        let (ln, l) = lines[i];
        let t = l.trim();
        if t.is_empty() {
            i += 1;
            continue;
        }
        if is_condition_start(t)
            || t.starts_with("locations")
            || t.starts_with("filter")
            || t.starts_with("scopeTree")
        {
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
            let ptrs = |r: &str| reg_ptrs.get(&(k, norm_reg(r))).cloned();
            let instrs =
                super::instr::parse_cell(&cx, ln, cell, threads[k].place, &ptrs, &mut fresh)?;
            for instr in instrs {
                threads[k].code.push(Line {
                    line: ln,
                    text: cell.to_string(),
                    instr,
                });
            }
        }
        i += 1;
    }
    // After the code: `locations [...]` (ignored: it only asks herd to print values), Dat3M's
    // `<< … >>` run configurations (ignored), `filter PROP`, then the final condition.
    let mut filter = None;
    while i < lines.len() && !is_condition_start(lines[i].1.trim()) {
        let (ln, l) = lines[i];
        let t = l.trim();
        if t.is_empty() {
            i += 1;
        } else if t.starts_with("locations") {
            i = skip_until(&lines, i, ']')
                .ok_or_else(|| cx.err(ln, "locations", "`locations [` is not closed by `]`"))?;
        } else if t.starts_with("<<") {
            i = skip_until(&lines, i, '>')
                .ok_or_else(|| cx.err(ln, "<<", "`<<` is not closed by `>>`"))?;
        } else if t.starts_with("scopeTree") {
            // herd's GPU_PTX placement, to the balancing `)`, then its memory map.
            let from = i;
            let mut depth = 0i64;
            let mut opened = false;
            while i < lines.len() {
                for ch in lines[i].1.chars() {
                    match ch {
                        '(' => {
                            depth += 1;
                            opened = true;
                        }
                        ')' => depth -= 1,
                        _ => {}
                    }
                }
                i += 1;
                if opened && depth <= 0 {
                    break;
                }
            }
            for (tid, place) in super::scope_tree::parse(&cx, &lines[from..i])? {
                let th = threads.get_mut(tid).ok_or_else(|| {
                    cx.err(ln, &format!("P{tid}"), "no such thread in the scope tree")
                })?;
                th.place = place;
            }
            while i < lines.len() && is_memory_map(lines[i].1) {
                i += 1;
            }
        } else if let Some(rest) = t.strip_prefix("filter") {
            let mut flines = vec![(ln, rest)];
            i += 1;
            while i < lines.len() && !is_condition_start(lines[i].1.trim()) {
                flines.push(lines[i]);
                i += 1;
            }
            filter = Some(cond::parse_prop(&cx, &flines)?);
        } else {
            return Err(cx.err(
                ln,
                first_word(t),
                "expected `exists`, `~exists`, `forall`, `final`, `filter` or `locations`",
            ));
        }
    }
    // Dat3M's grammar makes the condition optional: without one, the question is whether
    // the program has a consistent execution (`exists (true)`).
    let (ql, quantifier, prop) = match lines.get(i) {
        Some(&(ql, _)) => {
            let cond_lines: Vec<(usize, &str)> = lines[i..].to_vec();
            let (q, p) = cond::parse_condition(&cx, &cond_lines)?;
            (ql, q, p)
        }
        None => (lines.len().max(1), Quantifier::Exists, Prop::True),
    };
    // An access through a proxy alias is to the address it aliases (by its own proxy).
    for th in &mut threads {
        for l in &mut th.code {
            if let Instr::Ld { loc, .. } | Instr::St { loc, .. } | Instr::Atom { loc, .. } =
                &mut l.instr
                && let Some(v) = vaddrs.get(loc.as_str())
            {
                *loc = v.clone();
            }
        }
    }
    check_labels(&cx, &threads)?;
    let regs: Vec<std::collections::BTreeSet<String>> = threads
        .iter()
        .map(|th| {
            let mut set: std::collections::BTreeSet<String> = init_regs
                .keys()
                .filter(|(t, _)| *t == th.id)
                .map(|(_, r)| r.clone())
                .collect();
            set.extend(th.code.iter().filter_map(|l| written_register(&l.instr)));
            set
        })
        .collect();
    let mut locs: std::collections::BTreeSet<String> = init_mem.keys().cloned().collect();
    locs.extend(aliases.keys().cloned());
    for th in &threads {
        for l in &th.code {
            if let Instr::Ld { loc, .. } | Instr::St { loc, .. } | Instr::Atom { loc, .. } =
                &l.instr
            {
                locs.insert(loc.clone());
            }
        }
    }
    let known = cond::Known {
        regs: &regs,
        locs: &locs,
    };
    cond::check_terms(&cx, ql, &prop, &known)?;
    if let Some(f) = &filter {
        cond::check_terms(&cx, ql, f, &known)?;
    }
    Ok(Litmus {
        name,
        threads,
        init_mem,
        init_regs,
        quantifier,
        prop,
        filter,
        aliases,
    })
}

/// The register an instruction writes, if any.
fn written_register(i: &Instr) -> Option<String> {
    match i {
        Instr::Ld { dst, .. } | Instr::Alu { dst, .. } => Some(dst.clone()),
        Instr::Atom { dst, .. } => dst.clone(),
        Instr::Bar {
            op: BarOp::Red { dst, .. },
            ..
        } => Some(dst.clone()),
        _ => None,
    }
}

/// herd's GPU_PTX memory map line: `x: global, y: shared` (state spaces are not modelled).
fn is_memory_map(l: &str) -> bool {
    let l = l.trim();
    !l.is_empty()
        && l.split(',').all(|item| {
            matches!(item.split_once(':'), Some((n, sp)) if is_ident(n.trim())
                && matches!(sp.trim(), "global" | "shared" | "local"))
        })
}

/// The index of the line after the one (at or after `from`) that contains `close`.
fn skip_until(lines: &[(usize, &str)], from: usize, close: char) -> Option<usize> {
    (from..lines.len())
        .find(|&k| lines[k].1.contains(close))
        .map(|k| k + 1)
}

/// The line index and byte column of the `{` that opens the initial state: the first one at or
/// after `col` of line `from` that is not inside a `"…"` description (which may span lines).
fn find_init_open(lines: &[(usize, &str)], from: usize, col: usize) -> Option<(usize, usize)> {
    let mut quoted = false;
    for (k, (_, l)) in lines.iter().enumerate().skip(from) {
        let start = if k == from { col.min(l.len()) } else { 0 };
        for (c, ch) in l[start..].char_indices() {
            match ch {
                '"' => quoted = !quoted,
                '{' if !quoted => return Some((k, start + c)),
                _ => {}
            }
        }
    }
    None
}

fn first_word(s: &str) -> &str {
    s.split_whitespace().next().unwrap_or(s)
}

fn is_condition_start(t: &str) -> bool {
    let mut w = t.split(|c: char| c.is_whitespace() || c == '(');
    match w.next().unwrap_or("") {
        "exists" | "~exists" | "forall" | "final" => true,
        "~" | "not" => w.find(|x| !x.is_empty()) == Some("exists"),
        _ => false,
    }
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
