//! Per-function decoding state (registers, parameters, locals, labels) and operand resolution.

use super::{Addr, SimError, Src, Symbol, float_literal, special};
use crate::parse::{RawInstr, parse_int};
use std::collections::HashMap;

pub(super) struct FnDecoder<'a> {
    pub(super) regs: HashMap<String, u32>,
    pub(super) params: HashMap<String, (u32, u32)>,
    pub(super) param_size: u32,
    pub(super) locals: HashMap<String, u64>,
    pub(super) syms: &'a HashMap<String, Symbol>,
    /// The `.shared` variables declared inside the function, by name.
    pub(super) scoped: HashMap<String, Symbol>,
    pub(super) labels: HashMap<String, u32>,
    /// Branches to patch: (instruction index, label).
    pub(super) fixups: Vec<(usize, String)>,
    /// Functions called or whose address is taken: module indices.
    pub(super) reached: Vec<u32>,
    /// Registers declared by name: `%rd1`, and those without `%` (`.reg .f16 low;` in the
    /// toolkit headers' inline asm).
    pub(super) declared: std::collections::HashSet<String>,
    /// Registers declared as a range (`.reg .b32 %r<6>;`): prefix → how many (`%r0` to `%r5`).
    pub(super) ranges: HashMap<String, u32>,
    /// The size in bytes of each register's declared type (0: `.pred`), by name and by range
    /// prefix, where the declaration gives one.
    pub(super) sizes: HashMap<String, u32>,
    /// The PTX line of the instruction being decoded.
    pub(super) line: u32,
    /// The first register used that no `.reg` declares, with its PTX line.
    pub(super) undeclared: Option<(String, u32)>,
    /// Whether an `ld.global.nc` was decoded.
    pub(super) has_nc: bool,
}

pub(super) fn err(i: &RawInstr, what: impl std::fmt::Display) -> SimError {
    SimError::Unsupported(format!(
        "unsupported instruction `{}` at PTX line {}: {what}",
        i.opcode, i.line
    ))
}

/// Invalid PTX (ptxas rejects it): bad input naming the line, the instruction and what is wrong.
pub(super) fn invalid(i: &RawInstr, what: impl std::fmt::Display) -> SimError {
    SimError::parse(i.line, format!("`{}`: {what}", i.opcode))
}

/// Whether `s` is written as a PTX identifier (a name ptxas would look up as a symbol).
fn identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '%'))
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$'))
}

impl FnDecoder<'_> {
    pub(super) fn reg(&mut self, name: &str) -> u32 {
        if !self.regs.contains_key(name) {
            self.check_declared(name);
        }
        let n = self.regs.len() as u32;
        *self.regs.entry(name.to_string()).or_insert(n)
    }
    /// Adds the registers of a `.reg` statement (`%r<6>`, `%rd1`, `low`) of a type of `size`
    /// bytes (0: `.pred`; `None`: not known).
    pub(super) fn declare(&mut self, names: &[String], size: Option<u32>) {
        for name in names {
            let range = name
                .strip_suffix('>')
                .and_then(|n| n.split_once('<'))
                .and_then(|(prefix, count)| Some((prefix, count.trim().parse::<u32>().ok()?)));
            let key = match range {
                Some((prefix, count)) => {
                    let known = self.ranges.entry(prefix.to_string()).or_insert(0);
                    *known = (*known).max(count);
                    format!("{prefix}<>")
                }
                None => {
                    self.declared.insert(name.clone());
                    name.clone()
                }
            };
            if let Some(size) = size {
                self.sizes.insert(key, size);
            }
        }
    }
    /// The size in bytes of the declared type of register `name` (0: `.pred`), where known.
    pub(super) fn reg_size(&self, name: &str) -> Option<u32> {
        if let Some(&size) = self.sizes.get(name) {
            return Some(size);
        }
        let prefix = name.trim_end_matches(|c: char| c.is_ascii_digit());
        if prefix.len() == name.len() {
            return None;
        }
        self.sizes.get(&format!("{prefix}<>")).copied()
    }
    /// Notes `name` as the first undeclared register unless a `.reg` declares it.
    fn check_declared(&mut self, name: &str) {
        if self.undeclared.is_some() || self.declared.contains(name) {
            return;
        }
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, number) = name.split_at(name.len() - digits);
        let in_range = !number.is_empty()
            && (number == "0" || !number.starts_with('0'))
            && number
                .parse::<u32>()
                .is_ok_and(|n| self.ranges.get(prefix).is_some_and(|&count| n < count));
        if !in_range {
            self.undeclared = Some((name.to_string(), self.line));
        }
    }
    /// A `.b128` register: two adjacent slots, the low 64 bits first (`%q`, then `%q+hi`).
    pub(super) fn reg128(&mut self, i: &RawInstr, s: &str) -> Result<u32, SimError> {
        if !s.starts_with('%') {
            return Err(err(i, format!("`{s}` is not a .b128 register")));
        }
        let hi = format!("{s}+hi");
        if !self.regs.contains_key(s) {
            self.check_declared(s);
        }
        match (self.regs.get(s), self.regs.get(&hi)) {
            (Some(&r), Some(_)) => Ok(r),
            (None, _) => {
                let n = self.regs.len() as u32;
                self.regs.insert(s.to_string(), n);
                self.regs.insert(hi, n + 1);
                Ok(n)
            }
            (Some(_), None) => Err(err(i, format!("`{s}` used both as .b128 and narrower"))),
        }
    }
    pub(super) fn dst(&mut self, i: &RawInstr, s: &str) -> Result<u32, SimError> {
        if s.starts_with('%') || self.declared.contains(s) {
            Ok(self.reg(s))
        } else {
            Err(err(i, format!("`{s}` is not a register")))
        }
    }
    pub(super) fn src(&mut self, i: &RawInstr, s: &str) -> Result<Src, SimError> {
        let s = s.trim();
        if let Some(sp) = special(s) {
            return Ok(Src::Special(sp));
        }
        if s.starts_with('%') || self.declared.contains(s) {
            return Ok(Src::Reg(self.reg(s)));
        }
        if let Some(v) = parse_int(s) {
            return Ok(Src::Imm(v));
        }
        if s == "WARP_SZ" {
            // The PTX constant nvcc emits for `warpSize`.
            return Ok(Src::Imm(32));
        }
        if let Some(f) = float_literal(s) {
            return Ok(Src::Imm(f));
        }
        if let Some(&off) = self.locals.get(s) {
            return Ok(Src::Local(off));
        }
        match self.scoped.get(s).or_else(|| self.syms.get(s)) {
            Some(Symbol::Global(a)) | Some(Symbol::Shared(a)) => Ok(Src::Imm(*a)),
            Some(Symbol::Func(f)) => {
                self.reached.push(*f);
                Ok(Src::Imm(crate::address::func_addr(*f)))
            }
            None if identifier(s) => Err(invalid(
                i,
                format!("unknown symbol `{s}` (no variable, function or register of that name)"),
            )),
            None => Err(err(i, format!("unknown operand `{s}`"))),
        }
    }
    pub(super) fn addr(&mut self, i: &RawInstr, s: &str) -> Result<Addr, SimError> {
        let inner = s
            .trim()
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .ok_or_else(|| err(i, format!("`{s}` is not an address")))?;
        // `[base+off]`, `[base-off]` and nvcc's `[base+-off]`.
        let (base, off) = match inner.find(['+', '-']).filter(|&p| p > 0) {
            Some(p) => {
                let text = inner[p + 1..].trim();
                let o =
                    parse_int(text).ok_or_else(|| err(i, format!("bad offset in `{s}`")))? as i64;
                (inner[..p].trim(), if &inner[p..=p] == "-" { -o } else { o })
            }
            None => (inner, 0),
        };
        Ok(Addr {
            base: self.src(i, base)?,
            off,
        })
    }
    pub(super) fn param_slot(&mut self, i: &RawInstr, s: &str) -> Result<u32, SimError> {
        let inner = s.trim().trim_start_matches('[').trim_end_matches(']');
        let (name, off) = match inner.find('+') {
            Some(p) => (&inner[..p], parse_int(&inner[p + 1..]).unwrap_or(0) as u32),
            None => (inner, 0),
        };
        match self.params.get(name) {
            Some(&(o, _)) => Ok(o + off),
            None => Err(invalid(i, format!("unknown parameter `{name}`"))),
        }
    }
    pub(super) fn add_param(&mut self, name: &str, size: u32) -> u32 {
        if let Some(&(o, _)) = self.params.get(name) {
            return o;
        }
        let o = self.param_size.next_multiple_of(8);
        self.param_size = o + size.max(1);
        self.params.insert(name.to_string(), (o, size));
        o
    }
}

pub(super) fn need(i: &RawInstr, n: usize) -> Result<&[String], SimError> {
    if i.operands.len() < n {
        Err(invalid(
            i,
            format!("expected {n} operands, {} given", i.operands.len()),
        ))
    } else {
        Ok(&i.operands)
    }
}
