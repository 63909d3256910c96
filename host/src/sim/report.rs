//! Findings of a simulation: `race:`, `divergence:`, `hang:` and `fault:`, each naming threads
//! by (block, thread) index and instructions by PTX line (and source line where the PTX carries
//! `.loc`).

use super::decode::Program;
use std::fmt;

/// What kind of defect a finding reports.
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: FindingKind,
    pub text: String,
}

impl Finding {
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

/// An instruction's name: `` `ld.acquire.gpu.b32` at PTX line 120`` (and the source line).
pub fn inst_name(prog: &Program, inst: u32) -> String {
    let i = &prog.insts[inst as usize];
    let mut s = format!("`{}` at PTX line {}", prog.opcodes[inst as usize], i.line);
    if i.src_line != 0 {
        s += &format!(" (source line {})", i.src_line);
    }
    s
}
