//! The error that refuses a module or a launch (every layer reports bad input with it).

use std::fmt;

/// Why a module or a launch was refused.
///
/// ```
/// use ptx_sim::{SimError, Simulator};
/// let e = Simulator::new("hello").err().unwrap();
/// assert!(matches!(e, SimError::BadInput(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimError {
    /// Unreadable PTX, an unknown kernel, wrong arguments.
    BadInput(String),
    /// An instruction the simulator does not execute (named, with its PTX line).
    Unsupported(String),
}

impl SimError {
    pub(crate) fn parse(line: u32, what: impl fmt::Display) -> SimError {
        SimError::BadInput(format!("PTX line {line}: {what}"))
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::BadInput(s) | SimError::Unsupported(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for SimError {}
