//! Source positions for findings: `.file` and `.loc` directives (with nvcc's `inlined_at`
//! chains), and the `//@inlined_at` call-site comments `scoped_atomics_build` writes (rustc's
//! line directives name only the innermost inlined line, often inside a library), so that a
//! finding can name the kernel author's `file:line`.

use super::parse::Stmt;
use std::collections::HashMap;

/// A source position of a `.loc` directive: the `.file` number and the line (0 for none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SrcPos {
    pub file: u32,
    pub line: u32,
}

/// The `.loc` state while a function body is read.
#[derive(Default)]
pub(crate) struct LocState {
    pub(crate) current: SrcPos,
    pub(crate) caller: SrcPos,
    /// The file of the function's first `.loc` (its own definition's file).
    home: Option<u32>,
    /// nvcc's inlining chains: the position (file, line, column) of a `.loc` of inlined code
    /// and the `inlined_at` position it names, one level each.
    called_from: HashMap<(u32, u32, u32), (u32, u32, u32)>,
}

impl LocState {
    /// Takes in `.loc file line column[, function_name …][, inlined_at file line column]`.
    pub(crate) fn read(&mut self, loc: &str) {
        let position = |text: &str| {
            let mut words = text.split([' ', '\t', ',']).filter(|w| !w.is_empty());
            let mut number = || {
                words
                    .next()
                    .and_then(|w| w.parse::<u32>().ok())
                    .unwrap_or(0)
            };
            (number(), number(), number())
        };
        let here = position(loc);
        self.current = SrcPos {
            file: here.0,
            line: here.1,
        };
        let home = *self.home.get_or_insert(here.0);
        if let Some((_, at)) = loc.split_once("inlined_at") {
            // Follow the chain up to a call in the function's own file: the author's line
            // (nvcc names only the next level: a header's call of another header's function).
            let mut at = position(at);
            self.called_from.insert(here, at);
            let mut steps = 0;
            while at.0 != home
                && let Some(&up) = self.called_from.get(&at)
                && steps < 64
            {
                at = up;
                steps += 1;
            }
            self.caller = SrcPos {
                file: at.0,
                line: at.1,
            };
        } else if here.0 == home {
            self.caller = self.current;
        }
    }
}

/// The comment prefix of an inlined call site (see `scoped_atomics_build::call_sites`).
pub(crate) const INLINED_AT: &str = "//@inlined_at";

/// `//@inlined_at $L__begin $L__end file line column`: the code between the two labels was
/// inlined from a call at that position of a function's own file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlinedAt {
    pub begin: String,
    pub end: String,
    pub at: SrcPos,
}

impl InlinedAt {
    pub(crate) fn read(text: &str) -> Option<InlinedAt> {
        let w: Vec<&str> = text.split_whitespace().collect();
        let [begin, end, file, line, ..] = w.as_slice() else {
            return None;
        };
        Some(InlinedAt {
            begin: begin.to_string(),
            end: end.to_string(),
            at: SrcPos {
                file: file.parse().ok()?,
                line: line.parse().ok()?,
            },
        })
    }
}

/// Gives each instruction of `body` inside a marked inlined range the innermost such call site
/// as its author's line, unless its own `.loc` is already in the function's own file.
pub(crate) fn attribute_inlined_code(body: &mut [Stmt], sites: &[InlinedAt]) {
    if sites.is_empty() {
        return;
    }
    let labels: HashMap<&str, usize> = body
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Stmt::Label(l) => Some((l.as_str(), i)),
            _ => None,
        })
        .collect();
    let ranges: Vec<(usize, usize, SrcPos)> = sites
        .iter()
        .filter_map(|s| {
            Some((
                *labels.get(s.begin.as_str())?,
                *labels.get(s.end.as_str())?,
                s.at,
            ))
        })
        .collect();
    if ranges.is_empty() {
        return;
    }
    for (i, stmt) in body.iter_mut().enumerate() {
        let Stmt::Instr(inst) = stmt else { continue };
        // Its own `.loc` in the function's own file (see `LocState`): already the author's.
        if inst.src.line != 0 && inst.caller == inst.src {
            continue;
        }
        // The innermost range holding the instruction is the shortest.
        if let Some(&(_, _, at)) = ranges
            .iter()
            .filter(|(b, e, _)| *b <= i && i < *e)
            .min_by_key(|(b, e, _)| e - b)
        {
            inst.caller = at;
        }
    }
}

/// `.file N "path"` (or `N "directory" "name"`, with an optional timestamp and size): the
/// number and the path.
pub(crate) fn file_directive(rest: &str) -> Option<(u32, String)> {
    let rest = rest.trim_start();
    let end = rest.find(|c: char| !c.is_ascii_digit())?;
    let number = rest[..end].parse().ok()?;
    let quoted: Vec<&str> = rest[end..].split('"').skip(1).step_by(2).collect();
    let path = match quoted.as_slice() {
        [path] => path.to_string(),
        [dir, name, ..] if name.starts_with('/') || dir.is_empty() => name.to_string(),
        [dir, name, ..] => format!("{}/{name}", dir.trim_end_matches('/')),
        [] => return None,
    };
    Some((number, path))
}

#[cfg(test)]
mod loc_tests {
    use super::*;

    #[test]
    fn file_directives_give_the_path_in_either_form() {
        assert_eq!(
            file_directive(" 1 \"/a/src/lib.rs\""),
            Some((1, "/a/src/lib.rs".into()))
        );
        assert_eq!(
            file_directive(" 2 \"/a\" \"src/k.cu\", 1700000000, 120"),
            Some((2, "/a/src/k.cu".into()))
        );
        assert_eq!(file_directive(" x \"/a\""), None);
    }

    #[test]
    fn the_caller_is_inlined_at_or_the_last_line_in_the_functions_own_file() {
        let mut loc = LocState::default();
        loc.read("1 12 0");
        loc.read("2 144 34");
        assert_eq!(loc.current, SrcPos { file: 2, line: 144 });
        assert_eq!(loc.caller, SrcPos { file: 1, line: 12 });
        loc.read("3 7 1, function_name $L__info_string0, inlined_at 1 20 3");
        assert_eq!(loc.caller, SrcPos { file: 1, line: 20 });
        // nvcc's chains: a header function inlined into another, inlined into the kernel.
        loc.read("4 261 5, function_name $L__info_string1, inlined_at 1 30 5");
        loc.read("5 92 9, function_name $L__info_string2, inlined_at 4 261 5");
        assert_eq!(loc.caller, SrcPos { file: 1, line: 30 });
        loc.read("1 21 5");
        assert_eq!(loc.caller, SrcPos { file: 1, line: 21 });
    }
}
