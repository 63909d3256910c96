//! The Markdown report: summary, per-configuration tables, reasons and listings.

use benches::device_cost::{self as dc, Compared, ConfigResult, DISCLAIMER, Kind, Tally};
use scoped_atomics_host::ptx::Target;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::reasons::Reason;

fn by_op_type_table(results: &[ConfigResult]) -> String {
    let mut keys: Vec<(String, String)> = Vec::new();
    for r in results.iter().take(1) {
        for c in &r.rows {
            let k = (c.case.op().to_string(), c.case.ty().to_string());
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let mut s = String::from("| op | type |");
    for r in results {
        let _ = write!(s, " {} (fewer/equal/more) |", r.config.name);
    }
    s += "\n|---|---|";
    for _ in results {
        s += "---|";
    }
    s.push('\n');
    for (op, ty) in keys {
        let _ = write!(s, "| {op} | {ty} |");
        for r in results {
            let t = Tally::of(
                r.rows
                    .iter()
                    .filter(|c| c.case.op() == op && c.case.ty() == ty),
                Compared::verdict,
            );
            let _ = write!(s, " {}/{}/{} |", t.fewer, t.equal, t.more);
        }
        s.push('\n');
    }
    s
}

/// `` `text` ``, or `(none)` for an empty text.
fn none_if_empty(text: String) -> String {
    if text.is_empty() {
        "(none)".into()
    } else {
        format!("`{text}`")
    }
}

/// The report; `full` adds the per-case tables of every configuration.
pub(crate) fn report(
    results: &[ConfigResult],
    header: &str,
    unsupported: &BTreeMap<&'static str, String>,
    full: bool,
) -> String {
    let mut s =
        String::from("# Device cost model: scoped-atomics vs libcu++ (static, not a timing)\n\n");
    let _ = writeln!(s, "{DISCLAIMER}\n\n{header}\n");
    s += "## Summary\n\nOurs vs libcu++, per case: *fewer* means ours has fewer instructions.\n\n";
    s += &dc::summary_table(results);
    s += "\n## Against the targets\n\n";
    let more: Vec<String> = results
        .iter()
        .map(|r| {
            let t = Tally::of(&r.rows, Compared::verdict);
            format!(
                "{}: {} of {} cases more",
                r.config.name,
                t.more,
                r.rows.len()
            )
        })
        .collect();
    let never_more = results
        .iter()
        .all(|r| r.rows.iter().all(|c| !c.verdict().is_gt()));
    let _ = writeln!(
        s,
        "* **Never more than libcu++: {}.** {} (reasons under *Where ours has more*).",
        if never_more { "met" } else { "not met" },
        more.join("; ")
    );
    for r in results {
        let per_op: Vec<String> = dc::OPS
            .iter()
            .map(|op| {
                let t = Tally::of(
                    r.rows
                        .iter()
                        .filter(|c| c.case.op() == *op && matches!(c.case.ty(), "i16" | "u16")),
                    Compared::verdict,
                );
                format!("{op} {}/{}/{}", t.fewer, t.equal, t.more)
            })
            .collect();
        let _ = writeln!(
            s,
            "* **Fewer on the 16-bit cases** ({}; fewer/equal/more): {}.",
            r.config.name,
            per_op.join(", ")
        );
    }
    for r in results.iter().filter(|r| r.config.lib == Target::Sm90) {
        let fences = r.rows.iter().filter(|c| {
            c.case.kind == Kind::Fence && matches!(c.case.order, "acquire" | "release")
        });
        let equal: Vec<&str> = fences
            .clone()
            .filter(|c| c.verdict().is_eq())
            .map(|c| c.case.name.as_str())
            .collect();
        let _ = writeln!(
            s,
            "* **Fewer on acquire/release fences at sm_90** ({}): {}{}.",
            r.config.name,
            Tally::of(fences, Compared::verdict),
            if equal.is_empty() {
                String::new()
            } else {
                format!(" (equal: {})", equal.join(", "))
            }
        );
    }

    s += "\n## Verdicts by operation and type\n\n";
    s += &by_op_type_table(results);

    s += "\n## Fences\n\n";
    for r in results {
        let fences: Vec<&Compared> = r
            .rows
            .iter()
            .filter(|c| c.case.kind == Kind::Fence)
            .collect();
        let _ = writeln!(
            s,
            "### {}\n\n{}\nSASS memory instructions and barriers:\n",
            r.config.about,
            dc::case_table(fences.iter().copied())
        );
        for c in &fences {
            let _ = writeln!(
                s,
                "* `{}`: ours {}; libcu++ {}",
                c.case.name,
                none_if_empty(c.ours.sass.memory_listing().join("; ")),
                none_if_empty(c.lib.sass.memory_listing().join("; "))
            );
        }
        s.push('\n');
    }
    s += "## 16-bit cases (i16, u16)\n\n";
    for r in results {
        let sixteen = || {
            r.rows
                .iter()
                .filter(|c| matches!(c.case.ty(), "i16" | "u16"))
        };
        let _ = writeln!(
            s,
            "* {}: verdict {}; PTX mm {}; SASS total {}",
            r.config.name,
            Tally::of(sixteen(), Compared::verdict),
            Tally::of(sixteen(), |c| c.orderings()[0]),
            Tally::of(sixteen(), |c| c.orderings()[2]),
        );
    }

    s += "\n## libcu++ and 1- and 2-byte types\n\n";
    if unsupported.is_empty() {
        s += "Every case compiled: this CCCL's `cuda::atomic_ref<T>` accepts `sizeof(T)` 1 and 2 \
              (it only requires `sizeof(T) <= 16`). How it maps them, from the sm_80 PTX of \
              `… __relaxed__device` (libcu++'s memory-model instructions):\n\n";
        if let Some(r) = results.first() {
            for name in [
                "load__u8__relaxed__device",
                "store__u8__relaxed__device",
                "fetch_add__u8__relaxed__device",
                "load__u16__relaxed__device",
                "store__u16__relaxed__device",
                "fetch_add__u16__relaxed__device",
                "compare_exchange__u16__relaxed_relaxed__device",
                "swap__u16__relaxed__device",
            ] {
                if let Some(c) = r.rows.iter().find(|c| c.case.name == name) {
                    let lib: Vec<&str> = c.lib.ptx.mm_sequence.iter().map(String::as_str).collect();
                    let ours: Vec<&str> =
                        c.ours.ptx.mm_sequence.iter().map(String::as_str).collect();
                    let _ = writeln!(
                        s,
                        "* `{name}`: libcu++ `{}` — ours `{}`",
                        lib.join("; "),
                        ours.join("; ")
                    );
                }
            }
        }
        let mm = |name: &str| {
            results.first().and_then(|r| {
                r.rows
                    .iter()
                    .find(|c| c.case.name == name)
                    .map(|c| c.lib.ptx.mm_sequence.join(" "))
            })
        };
        let load = mm("load__u8__relaxed__device").unwrap_or_default();
        let rmw = mm("fetch_add__u8__relaxed__device").unwrap_or_default();
        if load.contains(".b16") && rmw.contains(".b32") {
            s += "\nNote: libcu++ accesses a 1-byte atomic at two sizes — a 16-bit load of the \
                  aligned half-word for `load`, 32-bit CAS loops on the aligned word for stores \
                  and read-modify-writes — and the PTX memory model gives mixed-size accesses no \
                  guarantees. Ours accesses the aligned 32-bit word for every operation.\n";
        }
    } else {
        for (ty, e) in unsupported {
            let _ = writeln!(
                s,
                "* `{ty}`: not supported by this libcu++ (left out): `{e}`"
            );
        }
    }

    s += "\n## Where ours has more\n\n";
    let mut by_reason: BTreeMap<Reason, Vec<usize>> = BTreeMap::new();
    let mut examples: BTreeMap<(&str, &str), (&str, &Compared)> = BTreeMap::new();
    for (i, r) in results.iter().enumerate() {
        for c in r.rows.iter().filter(|c| c.verdict().is_gt()) {
            let counts = by_reason
                .entry(Reason::of(c))
                .or_insert_with(|| vec![0; results.len()]);
            counts[i] += 1;
            examples
                .entry((c.case.op(), c.case.ty()))
                .or_insert((r.config.name, c));
        }
    }
    if by_reason.is_empty() {
        s += "Nowhere: in every configuration, no case has more instructions than libcu++.\n";
    } else {
        s += "Cases with more instructions (verdict), by reason:\n\n| reason |";
        for r in results {
            let _ = write!(s, " {} |", r.config.name);
        }
        s += "\n|---|";
        for _ in results {
            s += "--:|";
        }
        s.push('\n');
        for (reason, counts) in &by_reason {
            let _ = write!(s, "| {} |", reason.title());
            for n in counts {
                let _ = write!(s, " {n} |");
            }
            s.push('\n');
        }
        s.push('\n');
        for reason in by_reason.keys() {
            let _ = writeln!(s, "* **{}.** {}", reason.title(), reason.explanation());
        }
        s +=
            "\nOne listing per operation and type (the first configuration where it has more):\n\n";
        for ((op, ty), (config, c)) in &examples {
            let _ = writeln!(
                s,
                "{op} {ty} ({config}; reason: {}):\n",
                Reason::of(c).title()
            );
            s += &dc::listing(c);
            s.push('\n');
        }
    }

    if full {
        s += "\n## All cases\n\n";
        for r in results {
            let _ = writeln!(s, "### {}\n\n{}", r.config.about, dc::case_table(&r.rows));
        }
    }
    s
}
