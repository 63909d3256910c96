//! What the checker's test files share: the corpora in the crate's folders, each file's
//! expected verdict, and the `ptx-litmus` binary.

#![allow(dead_code)] // each test file uses its own part

use ptx_litmus::cli::check_file_in;
use ptx_litmus::program::Dialect;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The `.litmus` files of folder `dir` of the crate, sorted.
pub fn corpus(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(path(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    v.sort();
    v
}

/// The verdict a file expects: `(* expected: Ok|No|Deadlock … *)`.
pub fn expected(p: &Path) -> String {
    let text = std::fs::read_to_string(p).unwrap();
    let at = text
        .find("(* expected: ")
        .unwrap_or_else(|| panic!("{}: no expected verdict", p.display()));
    let v: String = text[at + 13..]
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    assert!(
        matches!(v.as_str(), "Ok" | "No" | "Deadlock"),
        "{}: bad expected verdict {v}",
        p.display()
    );
    v
}

/// Decides every file of folder `dir` (at least `min` of them) and compares each verdict with
/// the one the file expects.
pub fn check_dir(dir: &str, min: usize) {
    check_dir_in(dir, min, Dialect::Ptx)
}

/// [`check_dir`] with the files read in `dialect`.
pub fn check_dir_in(dir: &str, min: usize, dialect: Dialect) {
    let files = corpus(dir);
    assert!(files.len() >= min, "{dir}: {} files", files.len());
    let mut wrong = Vec::new();
    for f in &files {
        let (name, o) = check_file_in(f, dialect).unwrap_or_else(|e| panic!("{e}"));
        assert!(o.consistent <= o.candidates, "{name}");
        if o.verdict() != expected(f) {
            wrong.push(format!(
                "{name}: got {}, expected {}",
                o.verdict(),
                expected(f)
            ));
        }
    }
    assert!(wrong.is_empty(), "wrong verdicts:\n{}", wrong.join("\n"));
}

/// Runs the `ptx-litmus` binary: exit code, standard output, standard error.
pub fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Folder `dir` of the crate.
pub fn path(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)
}

/// Folder `dir` of the crate as text.
pub fn lit(dir: &str) -> String {
    path(dir).display().to_string()
}

/// File `name` of folder `dir` of the crate as text.
pub fn file(dir: &str, name: &str) -> String {
    path(dir).join(name).display().to_string()
}
