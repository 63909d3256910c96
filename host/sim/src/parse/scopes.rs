//! The nested blocks `{ … }` of a function body as ptxas reads them: each block is a scope of
//! its own for the labels, registers and `.param`s declared in it. The toolkit headers' inline
//! asm repeats `{ .reg .pred P1; LAB_WAIT: … @P1 bra LAB_WAIT; }` wherever it is inlined, and
//! nvcc's call sequences each declare their own `param0`, `param1`, … of the callee's types; a
//! declaration shadows one of the same name in an enclosing block.
//!
//! The body is flattened for decoding, so a name declared in a nested block is renamed apart
//! (`name__bN_`, `N` the block) in its declaration and in the uses its block (and blocks inside
//! it that do not declare it again) make. Two declarations of one name in one block are
//! refused, as ptxas refuses them ("Duplicate definition").

use super::Stmt;
use crate::error::SimError;
use std::borrow::Cow;
use std::collections::HashMap;

/// What one block declares: names (labels, registers, parameters) and register ranges
/// (`%r<6>`: prefix → count), each with its PTX line.
#[derive(Default)]
struct Decls {
    names: HashMap<String, u32>,
    ranges: HashMap<String, (u32, u32)>,
}

impl Decls {
    /// The declaration of the register range `prefix` that contains `name`, if any.
    fn range_of<'a>(&self, name: &'a str) -> Option<(&'a str, &'a str)> {
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, number) = name.split_at(name.len() - digits);
        let n: u32 = number.parse().ok()?;
        let canonical = number == "0" || !number.starts_with('0');
        let &(count, _) = self.ranges.get(prefix)?;
        (canonical && n < count).then_some((prefix, number))
    }

    fn duplicate(name: &str, line: u32, first: u32) -> SimError {
        SimError::parse(
            line,
            format!("duplicate definition of `{name}` in one block (first at PTX line {first})"),
        )
    }

    fn name(&mut self, name: &str, line: u32) -> Result<(), SimError> {
        if let Some(&first) = self.names.get(name) {
            return Err(Self::duplicate(name, line, first));
        }
        if let Some((prefix, _)) = self.range_of(name) {
            return Err(Self::duplicate(name, line, self.ranges[prefix].1));
        }
        self.names.insert(name.to_string(), line);
        Ok(())
    }

    fn range(&mut self, text: &str, prefix: &str, count: u32, line: u32) -> Result<(), SimError> {
        if let Some(&(_, first)) = self.ranges.get(prefix) {
            return Err(Self::duplicate(text, line, first));
        }
        self.ranges.insert(prefix.to_string(), (count, line));
        if let Some((name, &first)) = self.names.iter().find(|(n, _)| self.range_of(n).is_some()) {
            return Err(Self::duplicate(name, line.max(first), line.min(first)));
        }
        Ok(())
    }
}

/// `%r<6>` → (`%r`, 6).
fn as_range(name: &str) -> Option<(&str, u32)> {
    let (prefix, count) = name.strip_suffix('>')?.split_once('<')?;
    Some((prefix, count.trim().parse().ok()?))
}

fn mangle(name: &str, block: u32) -> String {
    format!("{name}__b{block}_")
}

/// The name as its declaration wrote it: `name` without the block mark [`mangle`] gave it
/// (`P1__b3_` → `P1`, a range's `%r__b3_2` → `%r2`).
pub fn as_declared(name: &str) -> Cow<'_, str> {
    let Some((declared, mark)) = name.rsplit_once("__b") else {
        return Cow::Borrowed(name);
    };
    let Some((block, number)) = mark.split_once('_') else {
        return Cow::Borrowed(name);
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if block.is_empty() || !digits(block) || !digits(number) {
        return Cow::Borrowed(name);
    }
    Cow::Owned(format!("{declared}{number}"))
}

/// The blocks of one body: block 0 is the body itself; `parent[b]` encloses block `b`.
pub(super) struct Blocks {
    parent: Vec<u32>,
}

impl Default for Blocks {
    fn default() -> Blocks {
        Blocks { parent: vec![0] }
    }
}

impl Blocks {
    /// A block opens inside `parent`: its number.
    pub(super) fn open(&mut self, parent: u32) -> u32 {
        self.parent.push(parent);
        (self.parent.len() - 1) as u32
    }

    /// Refuses duplicate declarations in a block and renames what nested blocks declare, in
    /// `body` whose statement `i` is in block `at[i].0` at PTX line `at[i].1`.
    pub(super) fn resolve(&self, body: &mut [Stmt], at: &[(u32, u32)]) -> Result<(), SimError> {
        let mut decls: Vec<Decls> = (0..self.parent.len()).map(|_| Decls::default()).collect();
        for (s, &(b, line)) in body.iter().zip(at) {
            let d = &mut decls[b as usize];
            match s {
                Stmt::Label(l) => d.name(l, line)?,
                Stmt::Param(p) => d.name(&p.name, line)?,
                Stmt::Regs(names, _) => {
                    for n in names {
                        match as_range(n) {
                            Some((prefix, count)) => d.range(n, prefix, count, line)?,
                            None => d.name(n, line)?,
                        }
                    }
                }
                _ => {}
            }
        }
        let nested = decls[1..]
            .iter()
            .any(|d| !d.names.is_empty() || !d.ranges.is_empty());
        if !nested {
            return Ok(());
        }
        // The name a use of `token` in block `b` refers to.
        let lookup = |token: &str, mut b: u32| -> Option<String> {
            while b != 0 {
                let d = &decls[b as usize];
                if d.names.contains_key(token) {
                    return Some(mangle(token, b));
                }
                if let Some((prefix, number)) = d.range_of(token) {
                    return Some(mangle(prefix, b) + number);
                }
                b = self.parent[b as usize];
            }
            None
        };
        for (s, &(b, _)) in body.iter_mut().zip(at) {
            if b == 0 {
                continue;
            }
            match s {
                Stmt::Label(l) => *l = mangle(l, b),
                Stmt::Param(p) => p.name = mangle(&p.name, b),
                Stmt::Regs(names, _) => {
                    for n in names {
                        *n = match as_range(n) {
                            Some((prefix, count)) => format!("{}<{count}>", mangle(prefix, b)),
                            None => mangle(n, b),
                        };
                    }
                }
                Stmt::Instr(i) => {
                    if let Some((_, g)) = &mut i.guard {
                        *g = rename_tokens(g, |t| lookup(t, b));
                    }
                    for o in &mut i.operands {
                        *o = rename_tokens(o, |t| lookup(t, b));
                    }
                }
                Stmt::Local(_) => {}
            }
        }
        Ok(())
    }
}

/// `s` with each name in it (a run of letters, digits, `_`, `$`, `%` and `.`) that `rename`
/// maps replaced.
fn rename_tokens(s: &str, rename: impl Fn(&str) -> Option<String>) -> String {
    let is_name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '.');
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while !rest.is_empty() {
        let end = rest.find(|c: char| !is_name(c)).unwrap_or(rest.len());
        if end == 0 {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let token = &rest[..end];
        match rename(token) {
            Some(r) => out.push_str(&r),
            None => out.push_str(token),
        }
        rest = &rest[end..];
    }
    out
}
