//! The kernel author's lines of inlined code, kept in the PTX as comments.
//!
//! rustc's line directives (`.loc`) name only the innermost line of inlined code: an atomic in a
//! user's kernel is attributed to the library's `asm!` line, and the user's own line appears in
//! no `.loc` at all. The call sites are in LLVM's DWARF (`DW_TAG_inlined_subroutine` with
//! `DW_AT_call_file`/`DW_AT_call_line`, over a label range of the code), which ptxas cannot read
//! as LLVM writes it (its `.debug_aranges` is malformed), and which is eight times the size of
//! the code. So the builder compiles with line tables, keeps the `.file`/`.loc` directives, drops
//! the DWARF sections, and writes each call site *in the kernel's own file* as one comment:
//!
//! ```text
//! //@inlined_at $L__tmp1 $L__tmp2 1 14 5
//! ```
//!
//! (code between the two labels was inlined from a call at file 1, line 14, column 5). ptxas and
//! the driver ignore comments; `ptx-sim` reads them to name the kernel author's line in its
//! findings. Without them (any other PTX) it falls back to the `.loc` lines.

use std::collections::HashMap;

/// The prefix of a call-site comment.
pub const INLINED_AT: &str = "//@inlined_at";

/// `ptx` without its DWARF sections (and the `$L__sec_end` labels between them), with one
/// [`INLINED_AT`] comment per inlined call site in a kernel's (or function's) own file appended.
/// The `, debug` of `.target` goes with the DWARF. PTX without DWARF comes back unchanged.
///
/// ```
/// use scoped_atomics_build::call_sites::mark_call_sites;
/// let ptx = ".version 7.0\n.target sm_80, debug\n.address_size 64\n";
/// let once = mark_call_sites(ptx);
/// assert_eq!(once, ".version 7.0\n.target sm_80\n.address_size 64\n");
/// assert_eq!(mark_call_sites(&once), once);
/// ```
pub fn mark_call_sites(ptx: &str) -> String {
    // Cargo may find the build fresh and leave a PTX file this function has already seen:
    // without sections, it comes back as it is.
    let (code, sections) = split_sections(ptx);
    let sites = match (sections.get(".debug_abbrev"), sections.get(".debug_info")) {
        (Some(abbrev), Some(info)) => call_sites(abbrev, info).unwrap_or_default(),
        _ => Vec::new(),
    };
    let mut out = code;
    for s in sites {
        out += &format!(
            "{INLINED_AT} {} {} {} {} {}\n",
            s.begin, s.end, s.file, s.line, s.column
        );
    }
    out
}

/// One inlined call site: the code between two labels came from a call at `file:line:column`.
#[derive(Debug, PartialEq, Eq)]
struct CallSite {
    begin: String,
    end: String,
    file: u64,
    line: u64,
    column: u64,
}

/// The text outside `.section .debug_*` blocks, and each section's values (width in bytes, text).
fn split_sections(ptx: &str) -> (String, HashMap<String, Vec<(usize, String)>>) {
    let mut code = String::with_capacity(ptx.len());
    let mut sections = HashMap::new();
    let mut current: Option<(String, Vec<(usize, String)>)> = None;
    for line in ptx.lines() {
        let trimmed = line.trim();
        if let Some((name, values)) = &mut current {
            if trimmed == "}" {
                sections.insert(std::mem::take(name), std::mem::take(values));
                current = None;
            } else if trimmed != "{" {
                values.extend(section_values(trimmed));
            }
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix(".section") {
            let name = rest.split_whitespace().next().unwrap_or("").to_string();
            if name.starts_with(".debug") {
                // `{ }` on the same line (LLVM's empty `.debug_macinfo`) is a whole section.
                if !trimmed.ends_with('}') {
                    current = Some((name, Vec::new()));
                }
                continue;
            }
        }
        if trimmed.starts_with("$L__sec_end") && trimmed.ends_with(':') {
            continue;
        }
        // `.target sm_80, debug` promises DWARF, which ptxas then requires.
        if trimmed.starts_with(".target") && trimmed.ends_with(", debug") {
            code += line.trim_end().trim_end_matches(", debug");
            code.push('\n');
            continue;
        }
        code += line;
        code.push('\n');
    }
    (code, sections)
}

/// The values of one section line: `.b8 1`, `.b8 4,255`, `.b32 .debug_abbrev`, `.b64 $L__tmp1`.
fn section_values(line: &str) -> Vec<(usize, String)> {
    let Some(rest) = line.strip_prefix(".b") else {
        return Vec::new();
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    // LLVM writes `.b84,255` for `.b8 4,255` in `.debug_aranges`; the width is one of these.
    let (bits, values) = ["8", "16", "32", "64"]
        .iter()
        .rev()
        .find(|w| rest[..digits].starts_with(*w))
        .map(|w| (w.parse::<usize>().unwrap_or(8), &rest[w.len()..]))
        .unwrap_or((8, rest));
    values
        .split(',')
        .map(|v| (bits / 8, v.trim().to_string()))
        .filter(|(_, v)| !v.is_empty())
        .collect()
}

/// One cell of a section: a byte, or a value written whole (a label, a number wider than a byte).
#[derive(Clone, Debug)]
enum Cell {
    Byte(u8),
    Whole(usize, String),
}

/// Reads DWARF fields from a section's cells.
struct Reader {
    cells: Vec<Cell>,
    at: usize,
}

impl Reader {
    fn new(values: &[(usize, String)]) -> Reader {
        let cells = values
            .iter()
            .map(|(width, text)| match (width, text.parse::<u64>()) {
                (1, Ok(b)) => Cell::Byte(b as u8),
                _ => Cell::Whole(*width, text.clone()),
            })
            .collect();
        Reader { cells, at: 0 }
    }

    fn done(&self) -> bool {
        self.at >= self.cells.len()
    }

    fn byte(&mut self) -> Option<u8> {
        let cell = self.cells.get(self.at)?;
        self.at += 1;
        match cell {
            Cell::Byte(b) => Some(*b),
            Cell::Whole(..) => None,
        }
    }

    fn uleb(&mut self) -> Option<u64> {
        let (mut value, mut shift) = (0u64, 0);
        loop {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            shift += 7;
            if b < 0x80 {
                return Some(value);
            }
        }
    }

    /// A field of `width` bytes: a label or a number, whether written whole or byte by byte.
    fn field(&mut self, width: usize) -> Option<String> {
        if let Some(Cell::Whole(w, text)) = self.cells.get(self.at) {
            self.at += 1;
            return (*w == width).then(|| text.clone());
        }
        let mut value = 0u64;
        for i in 0..width {
            value |= u64::from(self.byte()?) << (8 * i);
        }
        Some(value.to_string())
    }

    fn number(&mut self, width: usize) -> Option<u64> {
        self.field(width)?.parse().ok()
    }

    fn skip_bytes(&mut self, n: u64) -> Option<()> {
        for _ in 0..n {
            self.byte()?;
        }
        Some(())
    }
}

/// An abbreviation: tag, whether it has children, and (attribute, form) pairs.
type Abbrev = (u64, bool, Vec<(u64, u64)>);

fn abbreviations(values: &[(usize, String)]) -> Option<HashMap<u64, Abbrev>> {
    let mut r = Reader::new(values);
    let mut table = HashMap::new();
    while !r.done() {
        let code = r.uleb()?;
        if code == 0 {
            break;
        }
        let tag = r.uleb()?;
        let children = r.byte()? != 0;
        let mut attributes = Vec::new();
        loop {
            let (attribute, form) = (r.uleb()?, r.uleb()?);
            if (attribute, form) == (0, 0) {
                break;
            }
            attributes.push((attribute, form));
        }
        table.insert(code, (tag, children, attributes));
    }
    Some(table)
}

const TAG_SUBPROGRAM: u64 = 0x2e;
const TAG_INLINED_SUBROUTINE: u64 = 0x1d;
const AT_LOW_PC: u64 = 0x11;
const AT_HIGH_PC: u64 = 0x12;
const AT_CALL_FILE: u64 = 0x58;
const AT_CALL_LINE: u64 = 0x59;
const AT_CALL_COLUMN: u64 = 0x57;

/// The value of one attribute of `form`: `Some(text)` for the fixed-size forms a call site uses,
/// `None` for the forms only skipped. `Err(())` for a form this reader does not know.
fn read_form(r: &mut Reader, form: u64, version: u16) -> Result<Option<String>, ()> {
    let skip = |r: &mut Reader, n: u64| r.skip_bytes(n).map(|()| None).ok_or(());
    match form {
        0x01 => Ok(r.field(8)), // addr (64-bit PTX)
        0x0b | 0x11 => Ok(r.field(1)),
        0x05 | 0x12 => Ok(r.field(2)),
        0x06 | 0x13 | 0x0e | 0x17 => Ok(r.field(4)),
        0x07 | 0x14 | 0x20 => Ok(r.field(8)),
        0x10 => Ok(r.field(if version <= 2 { 8 } else { 4 })), // ref_addr
        0x0c => Ok(r.field(1)),                                // flag
        0x19 => Ok(Some("1".into())),                          // flag_present
        0x0f | 0x15 => Ok(r.uleb().map(|v| v.to_string())),
        0x0d => {
            // sdata: skipped (no call-site field uses it)
            while r.byte().ok_or(())? >= 0x80 {}
            Ok(None)
        }
        0x08 => {
            while r.byte().ok_or(())? != 0 {}
            Ok(None)
        }
        0x09 | 0x18 => {
            let n = r.uleb().ok_or(())?;
            skip(r, n)
        }
        0x0a => {
            let n = u64::from(r.byte().ok_or(())?);
            skip(r, n)
        }
        0x03 => {
            let n = r.number(2).ok_or(())?;
            skip(r, n)
        }
        0x04 => {
            let n = r.number(4).ok_or(())?;
            skip(r, n)
        }
        _ => Err(()),
    }
}

/// The call sites in each subprogram's own file (the file its outermost inlined calls are in).
fn call_sites(abbrev: &[(usize, String)], info: &[(usize, String)]) -> Option<Vec<CallSite>> {
    let abbrevs = abbreviations(abbrev)?;
    let mut r = Reader::new(info);
    let mut sites = Vec::new();
    while !r.done() {
        // Unit header: length, version, abbreviation offset, address size.
        let _length = r.field(4)?;
        let version = r.number(2)? as u16;
        let _abbrev_offset = r.field(4)?;
        let _address_size = r.byte()?;
        // The open DIEs with children: (tag, the home file of the subprogram it is in).
        let mut stack: Vec<(u64, Option<u64>)> = Vec::new();
        loop {
            let code = r.uleb()?;
            if code == 0 {
                stack.pop();
                if stack.is_empty() {
                    break;
                }
                continue;
            }
            let (tag, children, attributes) = abbrevs.get(&code)?;
            let mut values = HashMap::new();
            for &(attribute, form) in attributes {
                if let Some(v) = read_form(&mut r, form, version).ok()? {
                    values.insert(attribute, v);
                }
            }
            let parent = stack.last().copied();
            let mut home = parent.and_then(|(_, h)| h);
            if *tag == TAG_SUBPROGRAM {
                home = None;
            }
            if *tag == TAG_INLINED_SUBROUTINE {
                let number = |a| values.get(&a).and_then(|v: &String| v.parse::<u64>().ok());
                let file = number(AT_CALL_FILE);
                // Called straight from a subprogram: the call is in the subprogram's own file.
                if parent.is_some_and(|(t, _)| t == TAG_SUBPROGRAM) {
                    home = file;
                }
                let labels = (values.get(&AT_LOW_PC), values.get(&AT_HIGH_PC));
                if let (Some(f), Some(line), (Some(begin), Some(end))) =
                    (file, number(AT_CALL_LINE), labels)
                    && Some(f) == home
                    && begin.starts_with('$')
                    && end.starts_with('$')
                {
                    sites.push(CallSite {
                        begin: begin.clone(),
                        end: end.clone(),
                        file: f,
                        line,
                        column: number(AT_CALL_COLUMN).unwrap_or(0),
                    });
                }
            }
            if *children {
                stack.push((*tag, home));
            }
            if stack.is_empty() {
                break;
            }
        }
    }
    Some(sites)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel (`k`, file 1) whose line 14 calls a library function (file 2) inlined at
    /// `$L__tmp1`..`$L__tmp2`, which calls another (file 2, line 50) inlined in it: DWARF as
    /// LLVM writes it for `debug = "line-tables-only"`.
    const PTX: &str = "\
.version 7.0
.target sm_80, debug
.address_size 64
.visible .entry k()
{
\t.loc\t1 12 0
$L__func_begin0:
$L__tmp1:
\t.loc\t2 144 34
\tmembar.gl;
$L__tmp2:
\tret;
$L__func_end0:
}
\t.section\t.debug_abbrev
\t{
.b8 1,17,1,37,8,19,5,0,0
.b8 2
.b8 46
.b8 1
.b8 17,1,18,1,3,8,0,0
.b8 3,29,1,17,1,18,1,88,11,89,11,87,11,0,0
.b8 4,29,0,17,1,18,1,88,11,89,5,87,11,0,0
.b8 0
\t}
\t.section\t.debug_info
\t{
.b32 60
.b8 2
.b8 0
.b32 .debug_abbrev
.b8 8
.b8 1
.b8 65,0
.b16 4
.b8 2
.b64 $L__func_begin0
.b64 $L__func_end0
.b8 107,0
.b8 3
.b64 $L__tmp1
.b64 $L__tmp2
.b8 1,14,5
.b8 4
.b64 $L__tmp1
.b64 $L__tmp2
.b8 2
.b16 50
.b8 9
.b8 0
.b8 0
.b8 0
\t}
$L__sec_end0:
\t.section\t.debug_aranges
\t{
.b84,255
.b64 $L__sec_end0-$L__func_begin0
\t}
\t.section\t.debug_macinfo\t{\t}
\t.file\t1 \"/u/src/lib.rs\"
";

    #[test]
    fn the_call_site_in_the_kernels_own_file_is_marked_and_the_dwarf_is_gone() {
        let out = mark_call_sites(PTX);
        assert!(
            !out.contains(".section") && !out.contains("$L__sec_end"),
            "{out}"
        );
        assert!(out.contains("\t.file\t1 \"/u/src/lib.rs\"\n"), "{out}");
        let marks: Vec<&str> = out.lines().filter(|l| l.starts_with(INLINED_AT)).collect();
        // The nested call (from file 2, the library) is not the kernel author's line.
        assert_eq!(marks, ["//@inlined_at $L__tmp1 $L__tmp2 1 14 5"], "{out}");
    }

    #[test]
    fn values_of_every_width_and_the_malformed_aranges_line_are_read() {
        assert_eq!(
            section_values(".b8 4,255"),
            [(1, "4".into()), (1, "255".into())]
        );
        assert_eq!(
            section_values(".b84,255"),
            [(1, "4".into()), (1, "255".into())]
        );
        assert_eq!(section_values(".b64 $L__tmp1"), [(8, "$L__tmp1".into())]);
        assert_eq!(
            section_values(".b32 .debug_abbrev"),
            [(4, ".debug_abbrev".into())]
        );
    }
}
