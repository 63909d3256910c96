//! Source positions for findings: `.file` and `.loc` directives (with nvcc's `inlined_at`
//! chains), and the `//@inlined_at` call-site comments `scoped_atomics_build` writes (rustc's
//! line directives name only the innermost inlined line, often inside a library), so that a
//! finding can name the kernel author's `file:line`.

use std::collections::{HashMap, HashSet};

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
    /// The body position (statements read so far) when `caller` was last set from a line of the
    /// user's crate: an inlined range that begins after it overrides it (`attribute_inlined_code`).
    pub(crate) caller_from: usize,
    /// The file of the function's first `.loc` (its own definition's file).
    home: Option<u32>,
    /// The `.file` numbers of the user's crate: every file not of a library (`is_library_path`).
    user_files: HashSet<u32>,
    /// nvcc's inlining chains: the position (file, line, column) of a `.loc` of inlined code
    /// and the `inlined_at` position it names, one level each.
    called_from: HashMap<(u32, u32, u32), (u32, u32, u32)>,
}

impl LocState {
    /// The state for a body of a module with these `.file` directives.
    pub(crate) fn new(files: &HashMap<u32, String>) -> LocState {
        LocState {
            user_files: files
                .iter()
                .filter(|(_, path)| !is_library_path(path))
                .map(|(&number, _)| number)
                .collect(),
            ..LocState::default()
        }
    }

    /// Whether `file` is of the user's crate: the function's own file, or any file of the
    /// module not under a library's path.
    fn is_user(&self, file: u32) -> bool {
        self.home == Some(file) || self.user_files.contains(&file)
    }

    /// Takes in `.loc file line column[, function_name …][, inlined_at file line column]`.
    pub(crate) fn read(&mut self, loc: &str, body_len: usize) {
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
        self.home.get_or_insert(here.0);
        if let Some((_, at)) = loc.split_once("inlined_at") {
            // Follow the chain outwards (nvcc and LLVM name only the next level) to the
            // innermost position in the user's crate, in whatever file: a kernel whose body
            // lives in a module file names that file's line, not the entry's call of it.
            let at = position(at);
            self.called_from.insert(here, at);
            let mut chain = vec![here, at];
            while let Some(&up) = self.called_from.get(chain.last().expect("non-empty"))
                && chain.len() < 64
            {
                chain.push(up);
            }
            let innermost_user = chain.iter().find(|p| self.is_user(p.0));
            let at = innermost_user.or(chain.last()).expect("non-empty");
            self.caller = SrcPos {
                file: at.0,
                line: at.1,
            };
            if innermost_user.is_some() {
                self.caller_from = body_len;
            }
        } else if self.is_user(here.0) {
            self.caller = self.current;
            self.caller_from = body_len;
        }
    }
}

/// Whether a source path is of a library rather than the user's crate: Rust's `core`/`alloc`/
/// `std` (a `rustlib` or `/library/` path of the toolchain), a registry or git dependency, the
/// scoped-atomics library itself (`atomics/src`), or a CUDA toolkit header.
pub(crate) fn is_library_path(path: &str) -> bool {
    let path = path.replace('\\', "/");
    let rust_library = ["/library/core/", "/library/alloc/", "/library/std/"];
    let dependency = [
        "/rustlib/",
        "/.cargo/registry/",
        "/.cargo/git/",
        "/atomics/src/",
    ];
    let cuda_header = path.contains("/include/") && path.to_ascii_lowercase().contains("cuda");
    rust_library
        .iter()
        .chain(&dependency)
        .any(|p| path.contains(p))
        || path.starts_with("atomics/src/")
        || cuda_header
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
        loc.read("1 12 0", 0);
        loc.read("2 144 34", 0);
        assert_eq!(loc.current, SrcPos { file: 2, line: 144 });
        assert_eq!(loc.caller, SrcPos { file: 1, line: 12 });
        loc.read(
            "3 7 1, function_name $L__info_string0, inlined_at 1 20 3",
            0,
        );
        assert_eq!(loc.caller, SrcPos { file: 1, line: 20 });
        // nvcc's chains: a header function inlined into another, inlined into the kernel.
        loc.read(
            "4 261 5, function_name $L__info_string1, inlined_at 1 30 5",
            0,
        );
        loc.read(
            "5 92 9, function_name $L__info_string2, inlined_at 4 261 5",
            0,
        );
        assert_eq!(loc.caller, SrcPos { file: 1, line: 30 });
        loc.read("1 21 5", 0);
        assert_eq!(loc.caller, SrcPos { file: 1, line: 21 });
    }
}
