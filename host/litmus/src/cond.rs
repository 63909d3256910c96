//! The final condition: `exists`, `~exists` or `forall` followed by a proposition over final
//! register values (`P1:r0`, also herd's `1:r0`) and location values, with `/\`, `\/`, `~`,
//! `==` (also `=`), `!=` and parentheses.

use super::program::*;
use super::text::{Ctx, ParseError, is_ident, norm_reg, parse_int, thread_number};

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    LParen,
    RParen,
    And,
    Or,
    Not,
    Cmp(Cmp),
    Word(String),
}

/// Parses the condition lines (the first starts with the quantifier).
pub(crate) fn parse_condition(
    cx: &Ctx,
    lines: &[(usize, &str)],
) -> Result<(Quantifier, Prop), ParseError> {
    let mut toks: Vec<(usize, Tok, String)> = Vec::new();
    for &(ln, l) in lines {
        lex(cx, ln, l, &mut toks)?;
    }
    let toks = join_thread_terms(toks);
    let first_line = lines[0].0;
    let word = |k: usize| match toks.get(k) {
        Some((_, Tok::Word(w), _)) => Some(w.as_str()),
        _ => None,
    };
    let is_not = |k: usize| matches!(toks.get(k), Some((_, Tok::Not, _))) || word(k) == Some("not");
    let pos;
    let mut quantifier = if is_not(0) {
        if word(1) != Some("exists") {
            return Err(cx.err(first_line, "~", "expected `~exists`"));
        }
        pos = 2;
        Quantifier::NotExists
    } else {
        pos = 1;
        match word(0) {
            Some("exists") => Quantifier::Exists,
            Some("forall") => Quantifier::Forall,
            // Dat3M's `final PROP with tso: exists; default: ~exists;` — the quantifier is
            // the `default` expectation's (the first one's when there is no `default`).
            Some("final") => Quantifier::Exists,
            _ => {
                return Err(cx.err(
                    first_line,
                    lines[0].1.trim(),
                    "expected `exists`, `~exists`, `forall` or `final`",
                ));
            }
        }
    };
    let mut p = Parser {
        cx,
        toks: &toks,
        pos,
        last_line: first_line,
    };
    let prop = p.or()?;
    if word(0) == Some("final") {
        quantifier = p.expectations(first_line)?;
    }
    if let Some((ln, _, text)) = toks.get(p.pos) {
        return Err(cx.err(*ln, text, "unexpected token after the condition"));
    }
    Ok((quantifier, prop))
}

/// A proposition alone (herd's `filter`).
pub(crate) fn parse_prop(cx: &Ctx, lines: &[(usize, &str)]) -> Result<Prop, ParseError> {
    let mut toks: Vec<(usize, Tok, String)> = Vec::new();
    for &(ln, l) in lines {
        lex(cx, ln, l, &mut toks)?;
    }
    let toks = join_thread_terms(toks);
    let mut p = Parser {
        cx,
        toks: &toks,
        pos: 0,
        last_line: lines[0].0,
    };
    let prop = p.or()?;
    if let Some((ln, _, text)) = toks.get(p.pos) {
        return Err(cx.err(*ln, text, "unexpected token after the filter"));
    }
    Ok(prop)
}

/// Dat3M's grammar skips whitespace between a thread and its register (`P3: r0`, `P3 : r0`,
/// `P3 :r0`): joins such words into one `P3:r0` term.
fn join_thread_terms(toks: Vec<(usize, Tok, String)>) -> Vec<(usize, Tok, String)> {
    let mut out: Vec<(usize, Tok, String)> = Vec::with_capacity(toks.len());
    for (ln, t, text) in toks {
        if let (Tok::Word(w), Some((_, Tok::Word(prev), prev_text))) = (&t, out.last_mut()) {
            let thread_part = |s: &str| thread_number(s).is_some() && !s.contains(':');
            let joins = (thread_part(prev) && w.starts_with(':'))
                || (prev.ends_with(':')
                    && thread_part(&prev[..prev.len() - 1])
                    && !w.starts_with(':'));
            if joins {
                prev.push_str(w);
                prev_text.push(' ');
                prev_text.push_str(&text);
                continue;
            }
        }
        out.push((ln, t, text));
    }
    out
}

fn lex(
    cx: &Ctx,
    ln: usize,
    l: &str,
    out: &mut Vec<(usize, Tok, String)>,
) -> Result<(), ParseError> {
    let b = l.as_bytes();
    let mut k = 0;
    while k < b.len() {
        let c = b[k] as char;
        let two = l.get(k..k + 2).unwrap_or("");
        let push = |out: &mut Vec<_>, t: Tok, s: &str| out.push((ln, t, s.to_string()));
        if c.is_whitespace() || c == ';' {
            k += 1;
        } else if two == "/\\" {
            push(out, Tok::And, two);
            k += 2;
        } else if two == "\\/" {
            push(out, Tok::Or, two);
            k += 2;
        } else if two == "==" || two == "!=" || two == "<=" || two == ">=" {
            let c = match two {
                "==" => Cmp::Eq,
                "!=" => Cmp::Ne,
                "<=" => Cmp::Le,
                _ => Cmp::Ge,
            };
            push(out, Tok::Cmp(c), two);
            k += 2;
        } else if c == '=' || c == '<' || c == '>' {
            let cmp = match c {
                '=' => Cmp::Eq,
                '<' => Cmp::Lt,
                _ => Cmp::Gt,
            };
            push(out, Tok::Cmp(cmp), &l[k..k + 1]);
            k += 1;
        } else if c == '(' {
            push(out, Tok::LParen, "(");
            k += 1;
        } else if c == ')' {
            push(out, Tok::RParen, ")");
            k += 1;
        } else if c == '~' {
            push(out, Tok::Not, "~");
            k += 1;
        } else if c.is_ascii_alphanumeric()
            || matches!(c, '_' | '%' | ':' | '-' | '[' | ']' | '.' | '$')
        {
            let start = k;
            while k < b.len() && {
                let d = b[k] as char;
                d.is_ascii_alphanumeric()
                    || matches!(d, '_' | '%' | ':' | '[' | ']' | '.' | '$')
                    || (k == start && d == '-')
            } {
                k += 1;
            }
            push(out, Tok::Word(l[start..k].to_string()), &l[start..k]);
        } else {
            return Err(cx.err(
                ln,
                &l[k..k + c.len_utf8()],
                "unexpected character in the condition",
            ));
        }
    }
    Ok(())
}

struct Parser<'a> {
    cx: &'a Ctx<'a>,
    toks: &'a [(usize, Tok, String)],
    pos: usize,
    last_line: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.1)
    }
    fn next(&mut self) -> Option<(usize, Tok, String)> {
        let t = self.toks.get(self.pos).cloned();
        if let Some((ln, ..)) = &t {
            self.last_line = *ln;
        }
        self.pos += 1;
        t
    }
    /// `with NAME: [~]exists; …` after a `final` proposition.
    fn expectations(&mut self, ln: usize) -> Result<Quantifier, ParseError> {
        match self.next() {
            Some((_, Tok::Word(w), _)) if w == "with" => {}
            Some((l2, _, t)) => return Err(self.cx.err(l2, &t, "expected `with` after `final`")),
            None => {
                return Err(self
                    .cx
                    .err(ln, "final", "expected `with` after the proposition"));
            }
        }
        let mut chosen: Option<Quantifier> = None;
        while let Some((l2, Tok::Word(name), _)) = self.toks.get(self.pos).cloned() {
            self.pos += 1;
            let name = name.trim_end_matches(':').to_string();
            let mut negated = false;
            if matches!(self.peek(), Some(Tok::Not))
                || matches!(self.peek(), Some(Tok::Word(w)) if w == "not")
            {
                self.next();
                negated = true;
            }
            match self.next() {
                Some((_, Tok::Word(w), _)) if w == "exists" => {}
                _ => {
                    return Err(self.cx.err(
                        l2,
                        &name,
                        "expected `NAME: exists` or `NAME: ~exists`",
                    ));
                }
            }
            let q = if negated {
                Quantifier::NotExists
            } else {
                Quantifier::Exists
            };
            if name == "default" || chosen.is_none() {
                chosen = Some(q);
            }
        }
        chosen.ok_or_else(|| {
            self.cx
                .err(ln, "with", "`with` needs at least one expectation")
        })
    }
    fn or(&mut self) -> Result<Prop, ParseError> {
        let mut p = self.and()?;
        while self.peek() == Some(&Tok::Or) {
            self.next();
            p = Prop::Or(Box::new(p), Box::new(self.and()?));
        }
        Ok(p)
    }
    fn and(&mut self) -> Result<Prop, ParseError> {
        let mut p = self.unary()?;
        while self.peek() == Some(&Tok::And) {
            self.next();
            p = Prop::And(Box::new(p), Box::new(self.unary()?));
        }
        Ok(p)
    }
    fn unary(&mut self) -> Result<Prop, ParseError> {
        match self.next() {
            Some((_, Tok::Not, _)) => Ok(Prop::Not(Box::new(self.unary()?))),
            Some((_, Tok::Word(w), _)) if w == "not" => Ok(Prop::Not(Box::new(self.unary()?))),
            Some((ln, Tok::LParen, _)) => {
                let p = self.or()?;
                match self.next() {
                    Some((_, Tok::RParen, _)) => Ok(p),
                    Some((l2, _, t)) => Err(self.cx.err(l2, &t, "expected `)`")),
                    None => Err(self.cx.err(ln, "(", "unclosed `(`")),
                }
            }
            Some((_, Tok::Word(w), _)) if w == "true" => Ok(Prop::True),
            Some((_, Tok::Word(w), _)) if w == "false" => Ok(Prop::Not(Box::new(Prop::True))),
            Some((ln, Tok::Word(w), _)) => {
                let a = self.term(ln, &w)?;
                let c = match self.next() {
                    Some((_, Tok::Cmp(c), _)) => c,
                    Some((l2, _, t)) => return Err(self.cx.err(l2, &t, "expected `==` or `!=`")),
                    None => return Err(self.cx.err(ln, &w, "expected `==` or `!=` after it")),
                };
                match self.next() {
                    Some((l2, Tok::Word(w2), _)) => Ok(Prop::Atom(c, a, self.term(l2, &w2)?)),
                    Some((l2, _, t)) => Err(self.cx.err(l2, &t, "expected a value")),
                    None => Err(self.cx.err(ln, &w, "expected a value after the comparison")),
                }
            }
            Some((ln, _, t)) => Err(self.cx.err(ln, &t, "expected a comparison, `~` or `(`")),
            None => Err(self
                .cx
                .err(self.last_line, "", "the condition ends too early")),
        }
    }
    fn term(&self, ln: usize, w: &str) -> Result<Term, ParseError> {
        if let Some(v) = parse_int(w) {
            return Ok(Term::Const(v));
        }
        if let Some((t, r)) = w.split_once(':') {
            let tid =
                thread_number(t).ok_or_else(|| self.cx.err(ln, w, "expected `Pn:register`"))?;
            if !is_ident(r) {
                return Err(self.cx.err(ln, w, "expected `Pn:register`"));
            }
            return Ok(Term::Reg(tid, norm_reg(r)));
        }
        let n = w
            .strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .unwrap_or(w);
        if is_ident(n) {
            Ok(Term::Loc(n.to_string()))
        } else {
            Err(self
                .cx
                .err(ln, w, "expected a register, a location or an integer"))
        }
    }
}

/// What the names of a condition may refer to: per thread, the registers its instructions write
/// or the initial state sets, and the locations the test declares or touches.
pub(crate) struct Known<'a> {
    /// Per thread, its registers.
    pub regs: &'a [std::collections::BTreeSet<String>],
    /// Locations and aliases.
    pub locs: &'a std::collections::BTreeSet<String>,
}

/// Every `Pn:reg` of the condition names an existing thread and a register the thread writes (or
/// the initial state sets), and every location is declared or touched: a typo (`P1:r7` for
/// `P1:r1`) would otherwise read as 0 and flip the verdict silently.
pub(crate) fn check_terms(cx: &Ctx, ln: usize, p: &Prop, known: &Known) -> Result<(), ParseError> {
    match p {
        Prop::True => Ok(()),
        Prop::Atom(_, a, b) => {
            for t in [a, b] {
                match t {
                    Term::Reg(tid, r) if *tid >= known.regs.len() => {
                        return Err(cx.err(ln, &format!("P{tid}:{r}"), "no such thread"));
                    }
                    Term::Reg(tid, r) if !known.regs[*tid].contains(r) => {
                        return Err(cx.err(
                            ln,
                            &format!("P{tid}:{r}"),
                            format!(
                                "no instruction of P{tid} writes register `{r}` and the initial state does not set it (a typo?)"
                            ),
                        ));
                    }
                    Term::Loc(l) if !known.locs.contains(l) => {
                        return Err(cx.err(
                            ln,
                            l,
                            format!(
                                "location `{l}` is neither declared in the initial state nor accessed by any instruction (a typo?)"
                            ),
                        ));
                    }
                    _ => {}
                }
            }
            Ok(())
        }
        Prop::Not(q) => check_terms(cx, ln, q, known),
        Prop::And(a, b) | Prop::Or(a, b) => {
            check_terms(cx, ln, a, known)?;
            check_terms(cx, ln, b, known)
        }
    }
}
