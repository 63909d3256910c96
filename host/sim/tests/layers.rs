//! The crate's layers: the import graph of `src/` (every `crate::…` and `super::…` path of every
//! file, `use` trees included) has no cycle, and every import goes down the layer order that
//! `src/lib.rs` documents in its `// layer NAME: module module …` lines (lowest first; within a
//! line, left below right).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crate root's node in the graph (items of `lib.rs` itself).
const ROOT: &str = "lib";

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Punct(char),
}

/// The tokens of Rust source text that matter for paths: identifiers, `::` and punctuation,
/// with comments, string, byte-string and character literals and lifetimes skipped.
fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            loop {
                if at(i) == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if at(i) == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else if i >= chars.len() {
                    break;
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(&chars, i + 1);
        } else if (c == 'r' || (c == 'b' && at(i + 1) == 'r'))
            && matches!(at(i + usize::from(c == 'b') + 1), '"' | '#')
            && !is_ident_char(at(i.wrapping_sub(1)))
        {
            // A raw string: r"…", r#"…"#, br"…".
            let mut j = i + usize::from(c == 'b') + 1;
            let mut hashes = 0;
            while at(j) == '#' {
                hashes += 1;
                j += 1;
            }
            if at(j) != '"' {
                // `r#ident` (a raw identifier).
                out.push(Token::Ident(String::from('r')));
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (1..=hashes).all(|k| at(j + k) == '#') {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            i = j;
        } else if c == 'b' && at(i + 1) == '"' {
            i = skip_string(&chars, i + 2);
        } else if c == '\'' || (c == 'b' && at(i + 1) == '\'') {
            let q = if c == 'b' { i + 1 } else { i };
            if at(q + 1) == '\\' {
                // An escaped character literal.
                let mut j = q + 2;
                while j < chars.len() && chars[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
            } else if at(q + 2) == '\'' {
                i = q + 3;
            } else {
                // A lifetime or label: skip the quote, the name follows as an identifier.
                i = q + 1;
            }
        } else if is_ident_char(c) {
            let start = i;
            while i < chars.len() && is_ident_char(chars[i]) {
                i += 1;
            }
            out.push(Token::Ident(chars[start..i].iter().collect()));
        } else if c == ':' && at(i + 1) == ':' {
            out.push(Token::PathSep);
            i += 2;
        } else {
            out.push(Token::Punct(c));
            i += 1;
        }
    }
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The index after the closing quote of a string whose text starts at `i`.
fn skip_string(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// The top-level modules (or [`ROOT`]) that the paths of one file name, given the file's module
/// path (`[]` for `lib.rs`, `["decode", "arith"]` for `decode/arith.rs`) and the crate's
/// top-level modules. Inline modules (`mod tests { … }`) shift what `super` means.
fn imports(text: &str, file_module: &[String], modules: &BTreeSet<String>) -> BTreeSet<String> {
    let toks = tokens(text);
    let mut found = BTreeSet::new();
    // Inline modules open here, with the brace depth they were opened at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let ident = |k: usize| match toks.get(k) {
        Some(Token::Ident(s)) => Some(s.as_str()),
        _ => None,
    };
    let is = |k: usize, t: &Token| toks.get(k) == Some(t);
    let mut k = 0;
    while k < toks.len() {
        match &toks[k] {
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
            }
            Token::Ident(w) if w == "mod" => {
                if let Some(name) = ident(k + 1)
                    && is(k + 2, &Token::Punct('{'))
                {
                    inline.push((name.to_string(), depth));
                }
            }
            Token::Ident(w)
                if (w == "crate" || w == "super")
                    && is(k + 1, &Token::PathSep)
                    && !is(k.wrapping_sub(1), &Token::PathSep) =>
            {
                // Resolve the prefix (`crate::`, `super::super::`…) to a module path.
                let mut here: Vec<String> = file_module
                    .iter()
                    .cloned()
                    .chain(inline.iter().map(|(n, _)| n.clone()))
                    .collect();
                let mut j = k;
                loop {
                    match ident(j) {
                        Some("crate") => here.clear(),
                        Some("super") => {
                            here.pop();
                        }
                        _ => break,
                    }
                    if !is(j + 1, &Token::PathSep) {
                        break;
                    }
                    j += 2;
                }
                if let Some(top) = here.first() {
                    found.insert(top.clone());
                } else {
                    // At the crate root: the next segment names a module or a root item; a
                    // `use` group names several.
                    let first_segments: Vec<String> = if is(j, &Token::Punct('{')) {
                        group_heads(&toks, j)
                    } else {
                        vec![ident(j).unwrap_or("*").to_string()]
                    };
                    for head in first_segments {
                        if modules.contains(&head) {
                            found.insert(head);
                        } else {
                            found.insert(ROOT.to_string());
                        }
                    }
                }
                k = j;
            }
            Token::Ident(w) if file_module.is_empty() && inline.is_empty() => {
                // In lib.rs, modules are named without a prefix (`use decode::Op`).
                if modules.contains(w)
                    && is(k + 1, &Token::PathSep)
                    && !is(k.wrapping_sub(1), &Token::PathSep)
                {
                    found.insert(w.clone());
                }
            }
            _ => {}
        }
        k += 1;
    }
    found
}

/// The first segment of each element of the `use` group that opens at token `open`.
fn group_heads(toks: &[Token], open: usize) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut expect_head = true;
    for t in &toks[open..] {
        match t {
            Token::Punct('{') => {
                depth += 1;
                if depth > 1 {
                    expect_head = false;
                }
            }
            Token::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            Token::Punct(',') if depth == 1 => expect_head = true,
            Token::Ident(s) if depth == 1 && expect_head => {
                heads.push(s.clone());
                expect_head = false;
            }
            Token::Punct('*') if depth == 1 && expect_head => {
                heads.push("*".to_string());
                expect_head = false;
            }
            _ => {}
        }
    }
    heads
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

struct Crate {
    /// Import edges between top-level modules (and [`ROOT`]), self-imports left out.
    edges: BTreeMap<String, BTreeSet<String>>,
    /// The documented layers, lowest first: (name, modules, lowest first).
    layers: Vec<(String, Vec<String>)>,
}

fn read_crate() -> Crate {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let mut modules = BTreeSet::new();
    for t in tokens(&lib).windows(3) {
        if let [Token::Ident(m), Token::Ident(name), Token::Punct(';')] = t
            && m == "mod"
        {
            modules.insert(name.clone());
        }
    }
    assert!(
        modules.len() > 10,
        "lib.rs declares too few modules: {modules:?}"
    );
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let mut module: Vec<String> = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if module == ["main"] {
            // The binary: a crate of its own (it uses `ptx_sim::cli`).
            continue;
        }
        if module == ["lib"] {
            module.clear();
        }
        let node = module.first().cloned().unwrap_or_else(|| ROOT.to_string());
        assert!(
            node == ROOT || modules.contains(&node),
            "{} is not under a module lib.rs declares",
            rel.display()
        );
        let text = std::fs::read_to_string(&file).unwrap();
        let targets = edges.entry(node.clone()).or_default();
        for target in imports(&text, &module, &modules) {
            if target != node {
                targets.insert(target);
            }
        }
    }
    let layers = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("// layer "))
        .map(|l| {
            let (name, list) = l.split_once(':').expect("`// layer NAME: modules`");
            let mods = list
                .split_whitespace()
                .map(|m| m.trim_matches('`').to_string());
            (name.trim().to_string(), mods.collect())
        })
        .collect();
    Crate { edges, layers }
}

/// The strongly connected components of more than one node (Tarjan's algorithm).
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            let edges = self.edges;
            for w in edges.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on_stack.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.found
}

#[test]
fn the_module_import_graph_has_no_cycle() {
    let krate = read_crate();
    let found = cycles(&krate.edges);
    assert!(
        found.is_empty(),
        "import cycles among the modules of host/sim/src: {found:?}\nedges: {:#?}",
        krate.edges
    );
}

#[test]
fn every_import_goes_down_the_documented_layers() {
    let krate = read_crate();
    assert!(
        !krate.layers.is_empty(),
        "lib.rs documents no `// layer NAME: modules` lines"
    );
    let mut rank: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    for (layer, mods) in &krate.layers {
        for m in mods {
            let previous = rank.insert(m, (rank.len(), layer));
            assert!(previous.is_none(), "module `{m}` is in two layers");
        }
    }
    for module in krate.edges.keys() {
        assert!(
            rank.contains_key(module.as_str()),
            "module `{module}` is in no documented layer"
        );
    }
    let mut upward = Vec::new();
    for (from, targets) in &krate.edges {
        let (r_from, l_from) = rank[from.as_str()];
        for to in targets {
            let (r_to, l_to) = rank[to.as_str()];
            if r_to >= r_from {
                upward.push(format!("{from} ({l_from}) imports {to} ({l_to})"));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports up the layer order of lib.rs:\n{}",
        upward.join("\n")
    );
    for module in rank.keys() {
        assert!(
            krate.edges.contains_key(*module),
            "lib.rs documents a layer for `{module}`, which is no module of src/"
        );
    }
}

#[test]
fn the_path_reader_resolves_prefixes_groups_and_inline_modules() {
    let modules: BTreeSet<String> = ["decode", "isa", "memory"]
        .into_iter()
        .map(String::from)
        .collect();
    let text = r#"
        use super::decode::{Op, Space};
        use crate::{isa::Ty, Simulator};
        // use crate::memory::Loc; (a comment)
        const S: &str = "crate::memory::Loc";
        fn f<'a>(x: &'a u8) -> char { '{' }
        mod tests {
            use super::*;
            use super::super::memory;
        }
    "#;
    let top = vec!["race".to_string()];
    let found = imports(text, &top, &modules);
    let want: BTreeSet<String> = ["decode", "isa", "lib", "memory", "race"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(found, want);
    // In a child file, `super` is the parent module; `super::super` the crate root.
    let child = vec!["decode".to_string(), "arith".to_string()];
    let found = imports(
        "use super::operands::x; use super::super::memory::Loc;",
        &child,
        &modules,
    );
    let want: BTreeSet<String> = ["decode", "memory"].into_iter().map(String::from).collect();
    assert_eq!(found, want);
}
