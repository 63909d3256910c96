//! The demo's table of example kernels: a row per kernel and target, its columns as wide as
//! their longest cell, so that long kernel names keep the numbers aligned.

/// One row of [`kernel_table`]: an example kernel built for one target.
///
/// ```text
/// KernelRow { target: "sm_80".into(), kernel: "histogram".into(), registers: Some(12),
///             instructions: 40, memory_model: 2, mnemonics: "atom.add".into() }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct KernelRow {
    /// The build configuration (`sm_80`).
    pub target: String,
    /// The kernel's name in the PTX.
    pub kernel: String,
    /// Registers reported by `ptxas -v`, if it ran.
    pub registers: Option<u32>,
    /// PTX instructions of the kernel.
    pub instructions: usize,
    /// Memory-model instructions among them.
    pub memory_model: usize,
    /// The distinct memory-model mnemonics (shown with `--verbose`).
    pub mnemonics: String,
}

/// The table: a header and a row per kernel, each line indented by four spaces; the target and
/// kernel columns are left-aligned, the numbers right-aligned, every column as wide as its
/// longest cell. With `verbose`, a last column lists each kernel's memory-model instructions.
///
/// ```text
///     target  kernel     regs  instrs  mm
///     sm_80   histogram    12      40   2
/// ```
pub fn kernel_table(rows: &[KernelRow], verbose: bool) -> String {
    let header = ["target", "kernel", "regs", "instrs", "mm"];
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            [
                r.target.clone(),
                r.kernel.clone(),
                r.registers.map_or("?".into(), |n| n.to_string()),
                r.instructions.to_string(),
                r.memory_model.to_string(),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            cells
                .iter()
                .map(|c| c[i].chars().count())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: [&str; 5], extra: &str| {
        let [t, k, r, i, m] = cells;
        let (wt, wk, wr, wi, wm) = (widths[0], widths[1], widths[2], widths[3], widths[4]);
        let text = format!("    {t:<wt$}  {k:<wk$}  {r:>wr$}  {i:>wi$}  {m:>wm$}");
        if verbose {
            format!("{text}  {extra}")
        } else {
            text
        }
    };
    let mut out = line(header, "memory-model instructions");
    for (c, r) in cells.iter().zip(rows) {
        out.push('\n');
        out += &line([&c[0], &c[1], &c[2], &c[3], &c[4]], r.mnemonics.as_str());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(target: &str, kernel: &str, registers: Option<u32>, instructions: usize) -> KernelRow {
        KernelRow {
            target: target.into(),
            kernel: kernel.into(),
            registers,
            instructions,
            memory_model: 3,
            mnemonics: "atom.add fence.sc".into(),
        }
    }

    #[test]
    fn a_long_kernel_name_widens_its_column_and_the_numbers_stay_aligned() {
        let long = "a_kernel_whose_name_is_much_longer_than_thirty_four_characters";
        let rows = [
            row("sm_70", "short", Some(8), 12),
            row("sm_90_ptx86", long, None, 1234),
        ];
        let table = kernel_table(&rows, false);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 3, "{table}");
        // Every line ends at the same column: the right-aligned numbers share their edges.
        let width = lines[0].chars().count();
        assert!(lines.iter().all(|l| l.chars().count() == width), "{table}");
        assert!(
            lines[2].starts_with(&format!("    sm_90_ptx86  {long}  ")),
            "{table}"
        );
        assert_eq!(
            table,
            format!(
                "    target       kernel{}  regs  instrs  mm\n    sm_70        short{}     8      12   3\n    sm_90_ptx86  {long}     ?    1234   3",
                " ".repeat(long.len() - 6),
                " ".repeat(long.len() - 5)
            )
        );
    }

    #[test]
    fn verbose_adds_the_instructions_column() {
        let table = kernel_table(&[row("sm_80", "k", Some(10), 5)], true);
        assert_eq!(
            table,
            "    target  kernel  regs  instrs  mm  memory-model instructions\n    sm_80   k         10       5   3  atom.add fence.sc"
        );
    }
}
