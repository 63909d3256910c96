//! The short default output of `ptx` and `demo`: one line per target, every column explained
//! once below the table.

use scoped_atomics_host::conformance::TargetReport;

/// One row per target and the legend.
pub fn short_table(reports: &[&TargetReport]) -> String {
    let header = [
        "target",
        "PTX",
        "probes matched",
        "CAS loops",
        "mem/probe",
        "regs",
        "build s",
        "ptxas s",
    ];
    let rows: Vec<Vec<String>> = reports
        .iter()
        .map(|r| {
            let c = &r.checked;
            let regs = match &r.ptxas {
                Ok(p) => {
                    let probes: Vec<u32> = c
                        .results
                        .iter()
                        .filter_map(|x| p.registers.get(&x.probe.name).copied())
                        .collect();
                    match (probes.iter().min(), probes.iter().max()) {
                        (Some(lo), Some(hi)) => format!("{lo}-{hi}"),
                        _ => "-".into(),
                    }
                }
                Err(_) => "ptxas failed".into(),
            };
            vec![
                c.target.name().into(),
                format!("{} {}", c.version, c.arch),
                format!("{}/{}", c.matched(), c.results.len()),
                c.loops().values().sum::<usize>().to_string(),
                format!(
                    "{:.2}",
                    c.memory_instructions as f64 / c.kernels.max(1) as f64
                ),
                regs,
                format!("{:.1}", r.timings.build.as_secs_f64()),
                match &r.ptxas {
                    Ok(p) if p.cached => "cached".into(),
                    _ => format!("{:.1}", r.timings.assemble.as_secs_f64()),
                },
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<String>| {
        cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, w))| {
                if i == 0 {
                    format!("{c:<w$}")
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    let mut out = line(header.iter().map(|h| h.to_string()).collect()) + "\n";
    for row in rows {
        out += &line(row);
        out.push('\n');
    }
    out += "
  target          build configuration (-C target-cpu=<sm>; sm_90_ptx86 adds PTX ISA 8.6)
  PTX             the .version and .target of the built PTX
  probes matched  probe kernels (operation x type x ordering x scope, and fences) whose
                  memory-model instructions are the Atomics ABI table's recommended sequence
  CAS loops       probes that are compare-and-swap loops by design (no PTX instruction for
                  them); --verbose lists them by reason
  mem/probe       memory-model instructions per probe kernel, on average
  regs            fewest-most registers of a probe kernel (ptxas -v)
  build s/ptxas s wall time of the build and of ptxas (cached: the same PTX was assembled before)
";
    out
}
