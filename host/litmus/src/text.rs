//! The text layer under the statement parsers: the error every parser returns (naming the file,
//! the line and the token), the context that builds it, and the lexical forms the parsers share
//! (identifiers, registers, integers, thread numbers).

use std::fmt;

/// How a litmus file's instructions are read where the field's grammars spell one form two ways.
///
/// `bar{.cta}.sync a{, b}` is PTX's barrier `a` with thread count `b` ([`Dialect::Ptx`], the
/// default); Dat3M's `LitmusPTX.g4` writes `bar.cta.{sync|arrive} INSTANCE{, ID{, QUORUM}}`, whose
/// first operand only names the barrier instruction ([`Dialect::Dat3m`]).
///
/// ```
/// use ptx_litmus::program::Dialect;
/// assert_eq!(Dialect::default(), Dialect::Ptx);
/// assert_eq!(Dialect::from_name("dat3m"), Some(Dialect::Dat3m));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Dialect {
    /// The PTX ISA's reading (herd7's and the project's corpora).
    #[default]
    Ptx,
    /// Dat3M's barrier forms: one operand is the CTA-wide barrier 0 of every thread of the CTA;
    /// `INSTANCE, ID` the named barrier `ID` of every thread; `INSTANCE, ID, QUORUM` barrier `ID`
    /// completed by `QUORUM` threads.
    Dat3m,
}

impl Dialect {
    /// The dialect named on the command line (`ptx`, `dat3m`).
    pub fn from_name(name: &str) -> Option<Dialect> {
        match name {
            "ptx" => Some(Dialect::Ptx),
            "dat3m" => Some(Dialect::Dat3m),
            _ => None,
        }
    }
}

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
    /// How dialect-dependent forms are read.
    pub dialect: Dialect,
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
