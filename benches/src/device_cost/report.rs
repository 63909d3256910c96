//! The Markdown report: the disclaimer, the summary and case tables, and the per-case listing.

use super::{Compared, ConfigResult, Tally};
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt::Write as _;

fn sign(o: Ordering) -> &'static str {
    match o {
        Ordering::Less => "fewer",
        Ordering::Equal => "equal",
        Ordering::Greater => "**more**",
    }
}

/// The headline of the report: what the model is and is not.
pub const DISCLAIMER: &str = "This is a **static cost model**, not a timing: it counts the \
    instructions in the PTX and in the SASS (ptxas 13.5, disassembled by cuobjdump) of one kernel \
    per case. No GPU ran anything. Fewer instructions is not necessarily faster: the cost of a \
    memory-model instruction (a fence, an acquire load) dominates that of ALU instructions, \
    which is why the memory-model columns are shown separately; a compare-and-swap loop counts \
    once, whatever the number of trips.";

/// The summary table (configuration × metric → fewer / equal / more) and the verdict tally.
pub fn summary_table(results: &[ConfigResult]) -> String {
    let mut s = String::from(
        "| config | cases | verdict (SASS total, then PTX mm, then PTX total) | PTX mm | PTX total | SASS total | SASS mm |\n\
         |---|--:|---|---|---|---|---|\n",
    );
    for r in results {
        let per_metric: Vec<String> = (0..4)
            .map(|m| Tally::of(&r.rows, |c| c.orderings()[m]).to_string())
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            r.config.name,
            r.rows.len(),
            Tally::of(&r.rows, Compared::verdict),
            per_metric.join(" | ")
        );
    }
    s
}

/// A table of some rows of one configuration.
pub fn case_table<'a>(rows: impl IntoIterator<Item = &'a Compared>) -> String {
    let mut s = String::from(
        "| case | op | type | order | scope | PTX mm ours/lib | PTX total ours/lib | SASS total ours/lib | SASS mm ours/lib | verdict |\n\
         |---|---|---|---|---|--:|--:|--:|--:|---|\n",
    );
    for r in rows {
        let (o, l) = (r.ours.metrics(), r.lib.metrics());
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} | {} / {} | {} / {} | {} / {} | {} / {} | {} |",
            r.case.name,
            r.case.op(),
            r.case.ty(),
            r.case.order_label(),
            r.case.scope,
            o[0],
            l[0],
            o[1],
            l[1],
            o[2],
            l[2],
            o[3],
            l[3],
            sign(r.verdict())
        );
    }
    s
}

/// Grouped tallies of one configuration: by `key` (e.g. op × type), the verdicts.
pub fn grouped_tally(
    rows: &[Compared],
    key: impl Fn(&Compared) -> String,
) -> BTreeMap<String, Tally> {
    let mut map: BTreeMap<String, Tally> = BTreeMap::new();
    for r in rows {
        map.entry(key(r)).or_default().add(r.verdict());
    }
    map
}

/// The side-by-side listing of one case: the PTX memory-model sequences and the SASS.
pub fn listing(r: &Compared) -> String {
    let mut s = format!("#### `{}`\n\n", r.case.name);
    let _ = writeln!(
        s,
        "PTX mm / total / SASS: ours {} / {} / {}, libcu++ {} / {} / {}\n",
        r.ours.ptx.mm,
        r.ours.ptx.total,
        r.ours.sass.total,
        r.lib.ptx.mm,
        r.lib.ptx.total,
        r.lib.sass.total
    );
    let _ = writeln!(
        s,
        "```text\n-- ours: PTX (memory-model instructions, labels, branches)"
    );
    for l in &r.ours.ptx.mm_sequence {
        let _ = writeln!(s, "   {l}");
    }
    let _ = writeln!(s, "-- libcu++: PTX");
    for l in &r.lib.ptx.mm_sequence {
        let _ = writeln!(s, "   {l}");
    }
    let _ = writeln!(s, "-- ours: SASS");
    for l in &r.ours.sass.listing {
        let _ = writeln!(s, "   {l}");
    }
    let _ = writeln!(s, "-- libcu++: SASS");
    for l in &r.lib.sass.listing {
        let _ = writeln!(s, "   {l}");
    }
    s += "```\n";
    s
}
