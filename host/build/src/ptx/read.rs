//! Reading PTX text: its header, its kernels and functions, and their labels and instructions.

use std::fmt;

/// A kernel (`.entry`) or function (`.func`) of a PTX text with a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    pub name: String,
    /// `.entry` (a kernel) rather than `.func`.
    pub entry: bool,
    /// The lines between the body's outer braces, as written.
    pub body: Vec<String>,
}

/// The header of the PTX text: `.version` and `.target`.
pub fn ptx_header(ptx: &str) -> (Option<String>, Option<String>) {
    let directive = |d: &str| {
        ptx.lines()
            .map(|l| strip_comment(l).trim())
            .find_map(|l| l.strip_prefix(d))
            .map(|rest| rest.trim().to_string())
    };
    (directive(".version "), directive(".target "))
}

pub(super) fn strip_comment(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

/// The name declared by a `.entry`/`.func` header line, and whether it is an entry.
fn function_header(line: &str) -> Option<(String, bool)> {
    let mut rest = line.trim();
    loop {
        let word = rest.split_whitespace().next()?;
        match word {
            ".visible" | ".weak" | ".extern" | ".common" => rest = rest[word.len()..].trim_start(),
            _ => break,
        }
    }
    let (entry, mut rest) = if let Some(r) = rest.strip_prefix(".entry") {
        (true, r)
    } else if let Some(r) = rest.strip_prefix(".func") {
        (false, r)
    } else {
        return None;
    };
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    rest = rest.trim_start();
    if rest.starts_with('(') {
        // `.func (.param .b32 retval) name(`
        rest = rest[rest.find(')')? + 1..].trim_start();
    }
    let end = rest
        .find(|c: char| c == '(' || c == ';' || c.is_whitespace())
        .unwrap_or(rest.len());
    let name = &rest[..end];
    (!name.is_empty()).then(|| (name.to_string(), entry))
}

/// The functions with a body in `ptx`, in order of appearance.
pub fn parse_kernels(ptx: &str) -> Vec<Kernel> {
    let lines: Vec<&str> = ptx.lines().collect();
    let mut kernels = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some((name, entry)) = function_header(strip_comment(lines[i])) else {
            i += 1;
            continue;
        };
        // Parameters, `.noreturn`, `.maxntid`…, until the body's `{` or a declaration's `;`.
        let mut j = i;
        let mut open = None;
        while j < lines.len() {
            let l = strip_comment(lines[j]).trim();
            if l.starts_with('{') {
                open = Some(j);
                break;
            }
            if l.ends_with(';') {
                break;
            }
            j += 1;
        }
        let Some(open) = open else {
            i = j + 1;
            continue;
        };
        let mut depth = 0i32;
        let mut body = Vec::new();
        let mut k = open;
        while k < lines.len() {
            let code = strip_comment(lines[k]);
            let before = depth;
            depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
            if k > open && !(depth == 0 && code.trim() == "}") {
                body.push(lines[k].to_string());
            } else if k == open && before == 0 && code.trim() != "{" {
                // `{` followed by code on the same line.
                body.push(code.trim().trim_start_matches('{').to_string());
            }
            if depth <= 0 {
                break;
            }
            k += 1;
        }
        kernels.push(Kernel { name, entry, body });
        i = k + 1;
    }
    kernels
}

/// One executable line of a body: a label or an instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// `name:` (the name without the colon).
    Label(String),
    Instr(Instr),
}

/// An instruction: `[@guard] mnemonic operands`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instr {
    /// `@%p1` / `@!%p1`, if predicated.
    pub guard: Option<String>,
    /// `atom.acq_rel.gpu.cas.b32`.
    pub mnemonic: String,
    /// The operands, whitespace normalised (`%r1, [%rd2], %r3`).
    pub operands: String,
}

impl Instr {
    /// `bra`, `bra.uni`, `brx.idx`: a branch.
    pub fn is_branch(&self) -> bool {
        let m = self.mnemonic.as_str();
        m == "bra" || m.starts_with("bra.") || m.starts_with("brx.")
    }

    /// The label a direct branch jumps to.
    pub fn branch_target(&self) -> Option<&str> {
        if self.mnemonic == "bra" || self.mnemonic.starts_with("bra.") {
            self.operands
                .split([',', ' '])
                .next()
                .filter(|s| !s.is_empty())
        } else {
            None
        }
    }

    /// A memory-model instruction: `ld.` (but not `ld.param.`), `st.`, `atom.`, `red.`, `fence`,
    /// `membar`, `cp.`, `mbarrier`.
    pub fn is_memory_model(&self) -> bool {
        let m = self.mnemonic.as_str();
        (m.starts_with("ld.") && !m.starts_with("ld.param."))
            || ["st.", "atom.", "red.", "fence", "membar", "cp.", "mbarrier"]
                .iter()
                .any(|p| m.starts_with(p))
    }
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(g) = &self.guard {
            write!(f, "{g} ")?;
        }
        f.write_str(&self.mnemonic)?;
        if !self.operands.is_empty() {
            write!(f, " {}", self.operands)?;
        }
        Ok(())
    }
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Item::Label(l) => write!(f, "{l}:"),
            Item::Instr(i) => i.fmt(f),
        }
    }
}

pub(super) fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The labels and instructions of a body, in order; directives (`.reg`…), comments and scoping
/// braces skipped; several `;`-separated statements on a line split.
pub fn instructions(kernel: &Kernel) -> Vec<Item> {
    let mut items = Vec::new();
    for line in &kernel.body {
        let code = strip_comment(line).trim();
        if code.is_empty() || code.starts_with('.') {
            continue;
        }
        for stmt in code.split(';') {
            let mut stmt = stmt
                .trim()
                .trim_start_matches('{')
                .trim_end_matches('}')
                .trim();
            // Labels, possibly followed by a statement.
            while let Some(word) = stmt.split_whitespace().next() {
                match word.strip_suffix(':') {
                    Some(label) if !label.is_empty() && !label.contains(',') => {
                        items.push(Item::Label(label.to_string()));
                        stmt = stmt[word.len()..].trim_start();
                    }
                    _ => break,
                }
            }
            if stmt.is_empty() || stmt.starts_with('.') {
                continue;
            }
            let mut words = stmt.splitn(2, char::is_whitespace);
            let mut first = words.next().unwrap_or_default();
            let mut rest = words.next().unwrap_or_default().trim_start();
            let mut guard = None;
            if first.starts_with('@') {
                guard = Some(first.to_string());
                let mut w = rest.splitn(2, char::is_whitespace);
                first = w.next().unwrap_or_default();
                rest = w.next().unwrap_or_default();
            }
            items.push(Item::Instr(Instr {
                guard,
                mnemonic: first.to_string(),
                operands: squash(rest),
            }));
        }
    }
    items
}

/// The memory-model instructions of a kernel (see [`Instr::is_memory_model`]) with its labels
/// and branches, which show the loop structure.
pub fn memory_model_sequence(kernel: &Kernel) -> Vec<Item> {
    instructions(kernel)
        .into_iter()
        .filter(|item| match item {
            Item::Label(_) => true,
            Item::Instr(i) => i.is_memory_model() || i.is_branch(),
        })
        .collect()
}
