//! The Markdown summary of the host benchmarks: reads criterion's estimates
//! (`<criterion dir>/<group>/<function>/new/estimates.json`) of each pair *scoped-atomics vs the
//! standard library* and writes their ratios to `<criterion dir>/summary.md`.
//!
//! The host bench binary (`benches/benches/host.rs`) calls [`write()`] at the end of a
//! `cargo bench -p benches` run, so one command produces criterion's HTML report and the summary.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// One comparison: the criterion group, its two functions, and the target of the ratio.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The criterion group (one per comparison), e.g. `u32 fetch_add, 2 threads`.
    pub group: String,
    /// The function id of scoped-atomics' side, e.g. `scoped`.
    pub ours: String,
    /// The function id of the standard library's side, e.g. `std`.
    pub baseline: String,
    /// The largest acceptable ratio `ours / baseline`, if there is a target.
    pub target: Option<f64>,
    /// What one criterion iteration is (shown in the table).
    pub unit: String,
}

/// Criterion's point estimates of one benchmark, in nanoseconds per iteration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub mean_ns: f64,
    pub median_ns: f64,
    /// The 95 % confidence interval of the median (criterion's bootstrap).
    pub median_ci_ns: (f64, f64),
    /// When `estimates.json` was written.
    pub modified: Option<SystemTime>,
}

/// The directory criterion writes to: `$CARGO_TARGET_DIR/criterion` (a relative
/// `CARGO_TARGET_DIR` taken from the workspace root), else `<workspace>/target/criterion`.
/// The host bench passes it to `Criterion::output_directory`, so both agree.
pub fn criterion_dir() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("benches/ has a parent")
        .to_path_buf();
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if Path::new(&dir).is_absolute() => PathBuf::from(dir),
        Some(dir) => workspace.join(dir),
        None => workspace.join("target"),
    };
    target.join("criterion")
}

/// Criterion's directory name for a group or function id (its `make_filename_safe`, Unix).
pub fn filename_safe(id: &str) -> String {
    id.chars()
        .map(|c| match c {
            '?' | '"' | '/' | '\\' | '*' | '<' | '>' | ':' | '|' | '^' => '_',
            c => c,
        })
        .collect()
}

/// `<dir>/<group>/<function>/new/estimates.json`.
pub fn estimates_path(dir: &Path, group: &str, function: &str) -> PathBuf {
    dir.join(filename_safe(group))
        .join(filename_safe(function))
        .join("new/estimates.json")
}

/// The mean, the median and the median's confidence interval of an `estimates.json` text.
pub fn parse_estimates(json: &str) -> Result<(f64, f64, (f64, f64)), String> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    let number = |path: &[&str]| {
        path.iter()
            .try_fold(&v, |v, key| v.get(key))
            .and_then(serde_json::Value::as_f64)
            .ok_or_else(|| format!("no {}", path.join(".")))
    };
    Ok((
        number(&["mean", "point_estimate"])?,
        number(&["median", "point_estimate"])?,
        (
            number(&["median", "confidence_interval", "lower_bound"])?,
            number(&["median", "confidence_interval", "upper_bound"])?,
        ),
    ))
}

/// Reads the estimates of one benchmark.
pub fn read_estimate(dir: &Path, group: &str, function: &str) -> Result<Estimate, String> {
    let path = estimates_path(dir, group, function);
    if !path.is_file() {
        return Err(format!("`{group}/{function}` has no estimates (not run)"));
    }
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (mean_ns, median_ns, median_ci_ns) =
        parse_estimates(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Estimate {
        mean_ns,
        median_ns,
        median_ci_ns,
        modified: fs::metadata(&path).and_then(|m| m.modified()).ok(),
    })
}

/// A duration in nanoseconds, with a unit that keeps 3–4 significant digits.
pub fn format_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.3} µs", ns / 1e3)
    } else {
        format!("{ns:.3} ns")
    }
}

/// `YYYY-MM-DD HH:MM:SS UTC` of a time.
pub fn format_utc(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// One row of the summary: a comparison and what was measured.
#[derive(Debug, Clone)]
pub struct Row {
    pub comparison: Comparison,
    /// Both estimates, if both were written by this run.
    pub measured: Result<(Estimate, Estimate), String>,
}

impl Row {
    /// `ours / baseline` of the medians and of the means.
    pub fn ratios(&self) -> Option<(f64, f64)> {
        let (o, b) = self.measured.as_ref().ok()?;
        Some((o.median_ns / b.median_ns, o.mean_ns / b.mean_ns))
    }

    /// The interval of the median ratio that the medians' confidence intervals allow:
    /// `(ours.lo / std.hi, ours.hi / std.lo)`.
    pub fn ratio_interval(&self) -> Option<(f64, f64)> {
        let (o, b) = self.measured.as_ref().ok()?;
        Some((
            o.median_ci_ns.0 / b.median_ci_ns.1,
            o.median_ci_ns.1 / b.median_ci_ns.0,
        ))
    }

    /// The verdict on the target (`None`: no target, or not measured).
    pub fn verdict(&self) -> Option<Verdict> {
        let target = self.comparison.target?;
        let (median, _) = self.ratios()?;
        let (low, _) = self.ratio_interval()?;
        Some(if median <= target {
            Verdict::Meets
        } else if low <= target {
            Verdict::WithinNoise
        } else {
            Verdict::Misses
        })
    }
}

/// A ratio against its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The median ratio is at most the target.
    Meets,
    /// The median ratio is above the target, but the confidence intervals allow a ratio at or
    /// below it.
    WithinNoise,
    /// Even the lower end of the ratio interval is above the target.
    Misses,
}

/// Reads every comparison's estimates; an estimate older than `since` (not written by this run,
/// e.g. filtered out) counts as not measured.
pub fn collect(dir: &Path, comparisons: &[Comparison], since: SystemTime) -> Vec<Row> {
    comparisons
        .iter()
        .map(|c| {
            let read = |f: &str| {
                let e = read_estimate(dir, &c.group, f)?;
                match e.modified {
                    Some(m) if m < since => Err(format!("`{}/{f}` not run this time", c.group)),
                    _ => Ok(e),
                }
            };
            Row {
                comparison: c.clone(),
                measured: read(&c.ours).and_then(|o| Ok((o, read(&c.baseline)?))),
            }
        })
        .collect()
}

/// The Markdown summary of `rows`; `context` is printed under the title (machine, settings).
pub fn markdown(rows: &[Row], context: &str) -> String {
    let mut s = String::from("# Host benchmarks: scoped-atomics vs the standard library\n\n");
    s += context;
    s += "\n\nRatio = scoped-atomics / standard library (criterion point estimates; below 1 is \
          faster). The verdict uses the median ratio: *meets* if it is at most the target, \
          *above, within noise* if it is above but the medians' 95 % confidence intervals allow \
          a ratio at or below the target (the interval column: lowest and highest ratio they \
          allow), *misses* otherwise.\n\n";
    s += "| comparison | one iteration | scoped (median) | std (median) | ratio (median) | interval | ratio (mean) | target | verdict |\n";
    s += "|---|---|--:|--:|--:|--:|--:|--:|---|\n";
    let (mut met, mut noisy, mut missed, mut missing) = (0, 0, 0, 0);
    for row in rows {
        let c = &row.comparison;
        let target = c.target.map_or("—".to_string(), |t| format!("≤ {t:.2}×"));
        match (&row.measured, row.ratios()) {
            (Ok((o, b)), Some((median, mean))) => {
                let verdict = match row.verdict() {
                    Some(Verdict::Meets) => {
                        met += 1;
                        "meets target"
                    }
                    Some(Verdict::WithinNoise) => {
                        noisy += 1;
                        "above, within noise"
                    }
                    Some(Verdict::Misses) => {
                        missed += 1;
                        "**misses target**"
                    }
                    None => "(no target)",
                };
                let (low, high) = row.ratio_interval().unwrap_or((f64::NAN, f64::NAN));
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {median:.3}× | {low:.2}–{high:.2} | {mean:.3}× | {target} | {verdict} |",
                    c.group,
                    c.unit,
                    format_ns(o.median_ns),
                    format_ns(b.median_ns),
                );
            }
            (measured, _) => {
                missing += 1;
                let why = measured.as_ref().err().map_or("no ratio", String::as_str);
                let _ = writeln!(
                    s,
                    "| {} | {} | — | — | — | — | — | {target} | not measured: {} |",
                    c.group,
                    c.unit,
                    why.replace('|', "\\|")
                );
            }
        }
    }
    let _ = write!(
        s,
        "\n{met} comparison(s) meet their target, {noisy} are above it within noise, {missed} \
         miss it, {missing} not measured; {} without a target.\n",
        rows.iter()
            .filter(|r| r.comparison.target.is_none())
            .count()
    );
    s
}

/// Writes `markdown(collect(..))` to `<dir>/summary.md`, prints it, and returns the path.
pub fn write(
    dir: &Path,
    comparisons: &[Comparison],
    since: SystemTime,
    context: &str,
) -> std::io::Result<PathBuf> {
    let rows = collect(dir, comparisons, since);
    let text = markdown(&rows, context);
    fs::create_dir_all(dir)?;
    let path = dir.join("summary.md");
    fs::write(&path, &text)?;
    println!("\n{text}");
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_criterion_estimates() {
        let json = r#"{"mean":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0},"point_estimate":1.5,"standard_error":0.1},"median":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0},"point_estimate":1.25,"standard_error":0.1},"median_abs_dev":null,"slope":null,"std_dev":null}"#;
        assert_eq!(parse_estimates(json), Ok((1.5, 1.25, (1.0, 2.0))));
        assert!(parse_estimates("{}").is_err());
    }

    #[test]
    fn paths_and_formats() {
        let p = estimates_path(Path::new("/t/criterion"), "u32 load: 1 thread", "scoped");
        assert_eq!(
            p,
            Path::new("/t/criterion/u32 load_ 1 thread/scoped/new/estimates.json")
        );
        assert_eq!(format_ns(1.23456), "1.235 ns");
        assert_eq!(format_ns(12_345.0), "12.345 µs");
        assert_eq!(
            format_utc(UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000)),
            "2023-11-14 22:13:20 UTC"
        );
    }

    #[test]
    fn markdown_reports_ratios_and_verdicts() {
        let c = |group: &str, target| Comparison {
            group: group.into(),
            ours: "scoped".into(),
            baseline: "std".into(),
            target,
            unit: "1 op".into(),
        };
        let e = |ns: f64| Estimate {
            mean_ns: ns,
            median_ns: ns,
            median_ci_ns: (ns * 0.99, ns * 1.01),
            modified: None,
        };
        let rows = [
            Row {
                comparison: c("a", Some(1.02)),
                measured: Ok((e(1.01), e(1.0))),
            },
            Row {
                comparison: c("b", Some(0.5)),
                measured: Ok((e(2.0), e(1.0))),
            },
            Row {
                comparison: c("c", None),
                measured: Err("gone".into()),
            },
            Row {
                comparison: c("d", Some(1.02)),
                measured: Ok((e(1.03), e(1.0))),
            },
        ];
        let md = markdown(&rows, "ctx");
        assert!(
            md.contains(
                "| a | 1 op | 1.010 ns | 1.000 ns | 1.010× | 0.99–1.03 | 1.010× | ≤ 1.02× | meets target |"
            ),
            "{md}"
        );
        assert!(md.contains("**misses target**"));
        assert!(md.contains("not measured: gone"));
        assert!(md.contains("| d | 1 op | 1.030 ns | 1.000 ns | 1.030× | 1.01–1.05 | 1.030× | ≤ 1.02× | above, within noise |"), "{md}");
        assert!(md.contains(
            "1 comparison(s) meet their target, 1 are above it within noise, 1 miss it, 1 not measured"
        ));
    }
}
