//! `scoped-atomics-host litmus FILE_OR_DIR... [--races] [--json]`: decides litmus tests and
//! prints, per test, `NAME Ok` or `NAME No` (as herd does) followed by the numbers of candidate
//! and consistent executions; with `--races` a `race:` line per racing pair. Exit status 0 when
//! every file was decided, 2 when any could not be parsed or is unsupported, or on bad usage.

use super::enumerate::{Outcome, decide};
use super::parse::parse;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: scoped-atomics-host litmus FILE_OR_DIR... [--races] [--json]";

/// Runs the subcommand on its arguments (those after `litmus`).
pub fn run(args: &[String]) -> ExitCode {
    let mut races = false;
    let mut json = false;
    let mut inputs = Vec::new();
    for a in args {
        match a.as_str() {
            "--races" => races = true,
            "--json" => json = true,
            s if s.starts_with("--") => {
                eprintln!("scoped-atomics-host litmus: unknown option `{s}`\n{USAGE}");
                return ExitCode::from(2);
            }
            s => inputs.push(PathBuf::from(s)),
        }
    }
    if inputs.is_empty() {
        eprintln!("scoped-atomics-host litmus: no litmus file or directory given\n{USAGE}");
        return ExitCode::from(2);
    }
    let mut failed = false;
    let mut files = Vec::new();
    for p in &inputs {
        if let Err(e) = collect(p, &mut files) {
            eprintln!("scoped-atomics-host litmus: {}: {e}", p.display());
            failed = true;
        }
    }
    let mut records = Vec::new();
    for f in &files {
        match check_file(f) {
            Ok((name, o)) => {
                if json {
                    records.push(json_record(f, &name, &o, races));
                } else {
                    print_outcome(&name, &o, races);
                }
            }
            Err(e) => {
                eprintln!("{e}");
                if json {
                    records
                        .push(serde_json::json!({ "file": f.display().to_string(), "error": e }));
                }
                failed = true;
            }
        }
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::Value::Array(records))
                .expect("JSON of plain values")
        );
    }
    ExitCode::from(if failed { 2 } else { 0 })
}

/// Parses and decides one file; the error names the file (and line and token for syntax errors).
pub fn check_file(f: &Path) -> Result<(String, Outcome), String> {
    let name = f.display().to_string();
    let text = std::fs::read_to_string(f).map_err(|e| format!("{name}: cannot read: {e}"))?;
    let t = parse(&name, &text).map_err(|e| e.to_string())?;
    let o = decide(&t).map_err(|e| format!("{name}: unsupported: {e}"))?;
    Ok((t.name, o))
}

/// A file as is; a directory: every `*.litmus` file under it, sorted.
fn collect(p: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()?;
        entries.sort();
        for e in entries {
            if e.is_dir() {
                collect(&e, out)?;
            } else if e.extension().is_some_and(|x| x == "litmus") {
                out.push(e);
            }
        }
        Ok(())
    } else if p.exists() {
        out.push(p.to_path_buf());
        Ok(())
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no such file or directory",
        ))
    }
}

fn print_outcome(name: &str, o: &Outcome, races: bool) {
    println!(
        "{name} {} (candidates: {}, consistent: {})",
        o.verdict(),
        o.candidates,
        o.consistent
    );
    for d in &o.deadlocks {
        println!(
            "deadlock: P{}:{} `{}` waits forever ({} of the consistent executions)",
            d.thread, d.line, d.text, o.deadlocked
        );
    }
    if races {
        for r in &o.races {
            println!("race: {r}");
        }
    }
}

fn json_record(f: &Path, name: &str, o: &Outcome, races: bool) -> serde_json::Value {
    let mut v = serde_json::json!({
        "file": f.display().to_string(),
        "name": name,
        "verdict": o.verdict(),
        "candidates": o.candidates,
        "consistent": o.consistent,
        "satisfying": o.satisfying,
        "deadlocked": o.deadlocked,
    });
    if !o.deadlocks.is_empty() {
        v["deadlocks"] = o
            .deadlocks
            .iter()
            .map(|s| serde_json::json!({ "thread": s.thread, "line": s.line, "instruction": s.text }))
            .collect();
    }
    if races {
        let site = |s: &super::races::Site| serde_json::json!({ "thread": s.thread, "line": s.line, "instruction": s.text });
        v["races"] = o
            .races
            .iter()
            .map(|r| serde_json::json!([site(&r.a), site(&r.b)]))
            .collect();
    }
    v
}
