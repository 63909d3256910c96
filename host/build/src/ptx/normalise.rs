//! Renaming registers and labels so that a memory-model sequence ignores unrelated code changes.

use super::Item;
use super::read::squash;
use std::collections::BTreeMap;

/// Renames registers (per class, by first appearance: `%r12` → `%r0`, `%rd3` → `%rd0`) and labels
/// (`$L__BB1170_1` → `L0`) and normalises whitespace, so that a sequence does not change when
/// unrelated code around it does.
#[derive(Debug, Default)]
pub struct Normaliser {
    registers: BTreeMap<String, BTreeMap<String, usize>>,
    labels: BTreeMap<String, usize>,
}

impl Normaliser {
    pub fn new() -> Normaliser {
        Normaliser::default()
    }

    fn label(&mut self, name: &str) -> String {
        let n = self.labels.len();
        format!("L{}", self.labels.entry(name.to_string()).or_insert(n))
    }

    /// `text` with its registers and labels renamed.
    pub fn text(&mut self, text: &str) -> String {
        let mut out = String::new();
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '%' || c == '$' {
                let start = i + 1;
                let mut j = start;
                while j < chars.len()
                    && (chars[j].is_ascii_alphanumeric() || chars[j] == '_' || chars[j] == '$')
                {
                    j += 1;
                }
                let word: String = chars[start..j].iter().collect();
                if c == '$' && !word.is_empty() {
                    out += &self.label(&format!("${word}"));
                    i = j;
                    continue;
                }
                let digits = word.trim_start_matches(|ch: char| ch.is_ascii_alphabetic());
                let class = &word[..word.len() - digits.len()];
                if !class.is_empty()
                    && !digits.is_empty()
                    && digits.chars().all(|d| d.is_ascii_digit())
                {
                    let regs = self.registers.entry(class.to_string()).or_default();
                    let n = regs.len();
                    let k = *regs.entry(digits.to_string()).or_insert(n);
                    out += &format!("%{class}{k}");
                    i = j;
                    continue;
                }
            }
            out.push(c);
            i += 1;
        }
        squash(&out)
    }

    /// One item, renamed: `L0:` or `atom.relaxed.gpu.cas.b32 %r0, [%rd0], %r1, %r2`.
    pub fn item(&mut self, item: &Item) -> String {
        match item {
            Item::Label(l) if l.starts_with('$') => format!("{}:", self.label(l)),
            Item::Label(l) => format!("{l}:"),
            Item::Instr(i) => self.text(&i.to_string()),
        }
    }
}

/// A sequence with registers and labels renamed (one [`Normaliser`] for the whole sequence).
pub fn normalise(items: &[Item]) -> Vec<String> {
    let mut n = Normaliser::new();
    items.iter().map(|i| n.item(i)).collect()
}
