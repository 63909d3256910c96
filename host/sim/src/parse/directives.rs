//! What the parser reads beside the statements: a kernel's cluster shape (`.reqnctapercluster`)
//! and the inlined call sites the builder marks (`//@inlined_at`), attributed to the
//! instructions they cover.

use super::Stmt;
use crate::source_lines::{InlinedAt, SrcPos};
use std::collections::HashMap;

/// The `.reqnctapercluster X, Y, Z` of an entry's header text (nvcc's `__cluster_dims__`).
pub(super) fn declared_shape(header: &str) -> Option<[u32; 3]> {
    let rest = header.split(".reqnctapercluster").nth(1)?;
    let mut dims = [1u32; 3];
    let numbers = rest
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map_while(|s| s.parse::<u32>().ok());
    for (d, n) in dims.iter_mut().zip(numbers) {
        *d = n;
    }
    Some(dims)
}

/// Gives each instruction of `body` inside a marked inlined range the innermost such call site
/// as its author's line, unless a `.loc` in the user's crate inside that range already gave one.
pub(super) fn attribute_inlined_code(body: &mut [Stmt], sites: &[InlinedAt]) {
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
        // The innermost range holding the instruction is the shortest.
        if let Some(&(begin, _, at)) = ranges
            .iter()
            .filter(|(b, e, _)| *b <= i && i < *e)
            .min_by_key(|(b, e, _)| e - b)
        {
            // A line of the user's crate read inside the range (see `LocState`), in the
            // function's own file or a module file it calls into, is already more inner.
            let user_line_inside = inst.src.line != 0 && inst.caller_from > begin;
            if !user_line_inside {
                inst.caller = at;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_declares_its_cluster_shape() {
        assert_eq!(
            declared_shape(".entry k() .explicitcluster .reqnctapercluster 2, 1, 1"),
            Some([2, 1, 1])
        );
        assert_eq!(declared_shape(".entry k()"), None);
    }
}
