//! Findings of a simulation: `race:`, `divergence:`, `hang:` and `fault:`, each naming threads
//! by (block, thread) index and instructions by PTX line (and source line where the PTX carries
//! `.loc`).

use super::decode::Program;
use std::fmt;

/// What kind of defect a finding reports.
///
/// ```
/// use ptx_sim::FindingKind;
/// assert_eq!(FindingKind::Divergence.prefix(), "divergence");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FindingKind {
    /// Two conflicting accesses neither ordered nor morally strong.
    Race,
    /// Threads at different barrier instructions, or a barrier some threads can no longer reach.
    Divergence,
    /// No thread can make progress.
    Hang,
    /// `trap`, a bad access, or an undefined use of an instruction.
    Fault,
}

impl FindingKind {
    /// The prefix of the finding's first line.
    ///
    /// ```
    /// # use ptx_sim::FindingKind;
    /// assert_eq!(FindingKind::Race.prefix(), "race");
    /// ```
    pub fn prefix(self) -> &'static str {
        match self {
            FindingKind::Race => "race",
            FindingKind::Divergence => "divergence",
            FindingKind::Hang => "hang",
            FindingKind::Fault => "fault",
        }
    }
}

/// A finding: its kind and its text (the first line starts with the kind's prefix and `:`).
///
/// ```
/// use ptx_sim::{Finding, FindingKind};
/// let f = Finding::new(FindingKind::Hang, "nobody moves");
/// assert_eq!(f.to_string(), "hang: nobody moves");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// What it reports.
    pub kind: FindingKind,
    /// Its text, starting with `race:`, `divergence:`, `hang:` or `fault:`.
    pub text: String,
}

impl Finding {
    /// A finding of `kind` whose text follows the kind's prefix.
    ///
    /// ```
    /// # use ptx_sim::{Finding, FindingKind};
    /// assert!(Finding::new(FindingKind::Fault, "trap").text.starts_with("fault: "));
    /// ```
    pub fn new(kind: FindingKind, text: impl Into<String>) -> Finding {
        Finding {
            kind,
            text: format!("{}: {}", kind.prefix(), text.into()),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A thread's name: `(block,thread)` with 1-D indices where the launch is 1-D, else the
/// (x,y,z) coordinates; `host thread N` for a host thread.
pub fn thread_name(block: [u32; 3], thread: [u32; 3], grid: [u32; 3], dims: [u32; 3]) -> String {
    let one_d = grid[1] == 1 && grid[2] == 1 && dims[1] == 1 && dims[2] == 1;
    if one_d {
        format!("({},{})", block[0], thread[0])
    } else {
        format!(
            "(({},{},{}),({},{},{}))",
            block[0], block[1], block[2], thread[0], thread[1], thread[2]
        )
    }
}

/// An instruction's name: `` `ld.acquire.gpu.b32` at PTX line 120`` and, where the PTX has line
/// directives, the source line: `(src/lib.rs:12)`, or the kernel author's line first and the
/// library's line it runs through, `(src/lib.rs:12, via …/atomics/src/imp/ptx/asm.rs:144)`;
/// `(source line 42)` where no `.file` names the file.
pub fn inst_name(prog: &Program, inst: u32) -> String {
    let i = &prog.insts[inst as usize];
    let mut s = format!("`{}` at PTX line {}", prog.opcodes[inst as usize], i.line);
    if i.src.line == 0 {
        return s;
    }
    let Some(file) = prog.files.get(&i.src.file) else {
        return s + &format!(" (source line {})", i.src.line);
    };
    let here = format!("{}:{}", shown_path(file), i.src.line);
    match prog.files.get(&i.caller.file) {
        Some(caller) if i.caller != i.src && i.caller.line != 0 => {
            s += &format!(" ({}:{}, via {here})", shown_path(caller), i.caller.line);
        }
        _ => s += &format!(" ({here})"),
    }
    s
}

/// A source path as a finding shows it: relative to the current folder where it lies inside.
fn shown_path(path: &str) -> String {
    let relative = std::env::current_dir().ok().and_then(|cwd| {
        std::path::Path::new(path)
            .strip_prefix(cwd)
            .ok()
            .map(|p| p.display().to_string())
    });
    relative.unwrap_or_else(|| path.to_string())
}
