//! `device-cost`: the static PTX/SASS cost model of scoped-atomics against libcu++ (see
//! `benches::device_cost`). Not a timing: no GPU is involved.
//!
//! ```sh
//! cargo run -p benches --release --bin device-cost [-- --config sm_80|sm_90|sm_90_ptx86|all] [--summary-only]
//! ```
//!
//! Builds the probe kernels with `scoped_atomics_host::ptx::build_ptx`, generates and compiles the libcu++
//! kernels with nvcc 13.5, assembles both with ptxas 13.5, disassembles with `cuobjdump -sass`,
//! prints the per-case comparison and the summary, and writes `target/device-cost/report.md`.
//! Exit status 2 on bad usage or missing tools (`bash tools/install.sh` installs them), 1 if a
//! tool fails.

use benches::device_cost::{
    self as dc, CONFIGS, Case, Compared, Config, ConfigResult, DISCLAIMER, Kind, Tally,
};
use scoped_atomics_host::ptx::{self, Error, Target, Toolchain};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

const USAGE: &str = "usage: device-cost [--config sm_80|sm_90|sm_90_ptx86|all] [--summary-only]";

/// The CUDA tools of `tools/paths.env` that `scoped_atomics_host::ptx::Toolchain` does not hold.
struct CudaTools {
    nvcc: PathBuf,
    cuobjdump: PathBuf,
    /// The directory of `nvdisasm`, which cuobjdump runs from `PATH`.
    nvdisasm_dir: PathBuf,
    cccl_include: PathBuf,
    cuda_include: PathBuf,
}

impl CudaTools {
    fn discover(root: &Path) -> Result<CudaTools, Error> {
        let env_file = root.join("tools/paths.env");
        let text = fs::read_to_string(&env_file)
            .map_err(|e| Error::Missing(format!("{} ({e})", env_file.display())))?;
        let paths = ptx::parse_paths_env(&text);
        let get = |key: &str, dir: bool| -> Result<PathBuf, Error> {
            let rel = paths
                .get(key)
                .ok_or_else(|| Error::Missing(format!("no {key} in {}", env_file.display())))?;
            let p = root.join(rel);
            if (dir && p.is_dir()) || (!dir && p.is_file()) {
                Ok(p)
            } else {
                Err(Error::Missing(format!(
                    "{key}={rel} in tools/paths.env, but {} does not exist",
                    p.display()
                )))
            }
        };
        let nvdisasm = get("NVDISASM_13", false)?;
        Ok(CudaTools {
            nvcc: get("NVCC_13", false)?,
            cuobjdump: get("CUOBJDUMP_13", false)?,
            nvdisasm_dir: nvdisasm.parent().unwrap().to_path_buf(),
            cccl_include: get("CCCL_INCLUDE_13", true)?,
            cuda_include: get("CUDA_INCLUDE_13", true)?,
        })
    }

    /// `CCCL x.y.z` from `cuda/std/__cccl/version.h`.
    fn cccl_version(&self) -> String {
        let header = self.cccl_include.join("cuda/std/__cccl/version.h");
        fs::read_to_string(header)
            .ok()
            .and_then(|t| {
                t.lines().find_map(|l| {
                    let v = l
                        .strip_prefix("#define CCCL_VERSION")?
                        .trim()
                        .parse::<u64>()
                        .ok()?;
                    Some(format!(
                        "{}.{}.{}",
                        v / 1_000_000,
                        v / 1000 % 1000,
                        v % 1000
                    ))
                })
            })
            .unwrap_or_else(|| "unknown".into())
    }
}

fn tool_version(program: &Path) -> String {
    Command::new(program)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            let text = String::from_utf8_lossy(&o.stdout).into_owned();
            // `Cuda compilation tools, release 13.5, V13.5.37`
            let line = text.lines().find(|l| l.contains("release"))?;
            Some(line.trim().to_string())
        })
        .unwrap_or_else(|| "unknown version".into())
}

fn failed(what: &str, cmd: &Command, out: &std::process::Output) -> Error {
    Error::Failed(format!(
        "{what} failed ({}):\n$ {cmd:?}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

/// `nvcc -ptx -arch=<arch>` of `source`; the PTX text, or nvcc's error.
fn nvcc_ptx(cuda: &CudaTools, source: &Path, arch: &str, out: &Path) -> Result<String, Error> {
    let mut cmd = Command::new(&cuda.nvcc);
    cmd.args(["-ptx", "-std=c++17", "-O3"])
        .arg(format!("-arch={arch}"))
        .arg("-I")
        .arg(&cuda.cccl_include)
        .arg("-I")
        .arg(&cuda.cuda_include)
        .arg(source)
        .arg("-o")
        .arg(out);
    let output = cmd
        .output()
        .map_err(|e| Error::Failed(format!("cannot run {}: {e}", cuda.nvcc.display())))?;
    if !output.status.success() {
        return Err(failed("nvcc", &cmd, &output));
    }
    fs::read_to_string(out).map_err(|e| Error::Failed(format!("{}: {e}", out.display())))
}

/// `cuobjdump -sass <cubin>`, with nvdisasm on `PATH`.
fn sass(cuda: &CudaTools, cubin: &Path) -> Result<BTreeMap<String, Vec<dc::SassInstr>>, Error> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![cuda.nvdisasm_dir.clone()];
    dirs.extend(std::env::split_paths(&path));
    let mut cmd = Command::new(&cuda.cuobjdump);
    cmd.env("PATH", std::env::join_paths(dirs).unwrap())
        .arg("-sass")
        .arg(cubin);
    let output = cmd
        .output()
        .map_err(|e| Error::Failed(format!("cannot run {}: {e}", cuda.cuobjdump.display())))?;
    if !output.status.success() {
        return Err(failed("cuobjdump -sass", &cmd, &output));
    }
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let _ = fs::write(cubin.with_extension("sass"), &text);
    Ok(dc::parse_sass(&text))
}

/// One side, assembled: PTX costs and SASS of every kernel, and the `.version` of the PTX.
struct Side {
    ptx: BTreeMap<String, dc::PtxCost>,
    sass: BTreeMap<String, Vec<dc::SassInstr>>,
    version: String,
}

fn assemble_side(
    tc: &Toolchain,
    cuda: &CudaTools,
    ptx_path: &Path,
    text: &str,
    target: Target,
) -> Result<Side, Error> {
    let report = ptx::assemble(tc, ptx_path, target)?;
    Ok(Side {
        ptx: dc::ptx_costs(text),
        sass: sass(cuda, &report.cubin)?,
        version: ptx::ptx_header(text).0.unwrap_or_else(|| "?".into()),
    })
}

/// The libcu++ side for one arch. If nvcc rejects the whole file, each type is compiled alone to
/// find the unsupported ones, which are then left out (and reported).
fn libcudacxx_side(
    tc: &Toolchain,
    cuda: &CudaTools,
    dir: &Path,
    cases: &[Case],
    target: Target,
    unsupported: &mut BTreeMap<&'static str, String>,
) -> Result<Side, Error> {
    let arch = target.arch();
    let dir = dir.join(format!("libcudacxx-{arch}"));
    fs::create_dir_all(&dir).map_err(|e| Error::Failed(format!("{}: {e}", dir.display())))?;
    let write = |name: &str, text: &str| -> Result<PathBuf, Error> {
        let p = dir.join(name);
        fs::write(&p, text).map_err(|e| Error::Failed(format!("{}: {e}", p.display())))?;
        Ok(p)
    };
    let source = write("libcudacxx.cu", &dc::cuda_source(cases))?;
    let ptx_path = dir.join("libcudacxx.ptx");
    let text = match nvcc_ptx(cuda, &source, arch, &ptx_path) {
        Ok(text) => text,
        Err(whole) => {
            for ty in dc::TYPES {
                let of_type: Vec<Case> = cases
                    .iter()
                    .filter(|c| matches!(c.kind, Kind::Op { ty: t, .. } if t == ty))
                    .cloned()
                    .collect();
                let src = write(&format!("probe-{}.cu", ty.name), &dc::cuda_source(&of_type))?;
                if let Err(Error::Failed(e)) = nvcc_ptx(
                    cuda,
                    &src,
                    arch,
                    &dir.join(format!("probe-{}.ptx", ty.name)),
                ) {
                    let first = e
                        .lines()
                        .find(|l| l.contains("error"))
                        .unwrap_or("nvcc failed")
                        .to_string();
                    unsupported.insert(ty.name, first);
                }
            }
            if unsupported.is_empty() {
                return Err(whole);
            }
            let kept: Vec<Case> = cases
                .iter()
                .filter(|c| !unsupported.contains_key(c.ty()))
                .cloned()
                .collect();
            let source = write("libcudacxx.cu", &dc::cuda_source(&kept))?;
            nvcc_ptx(cuda, &source, arch, &ptx_path)?
        }
    };
    assemble_side(tc, cuda, &ptx_path, &text, target)
}

/// Our side for one configuration: the probes of `cases`, extracted from the full PTX build.
fn our_side(
    tc: &Toolchain,
    cuda: &CudaTools,
    dir: &Path,
    config: &Config,
    names: &BTreeSet<&str>,
) -> Result<Side, Error> {
    let full = ptx::build_ptx(tc, config.ours)?;
    let text =
        fs::read_to_string(&full).map_err(|e| Error::Failed(format!("{}: {e}", full.display())))?;
    let subset = dc::extract_entries(&text, names)
        .map_err(|e| Error::Failed(format!("{}: {e}", full.display())))?;
    let dir = dir.join(format!("ours-{}", config.name));
    fs::create_dir_all(&dir).map_err(|e| Error::Failed(format!("{}: {e}", dir.display())))?;
    let path = dir.join("probes.ptx");
    fs::write(&path, &subset).map_err(|e| Error::Failed(format!("{}: {e}", path.display())))?;
    assemble_side(tc, cuda, &path, &subset, config.ours)
}

/// Why a case has more instructions on our side, recognised from the code of both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Reason {
    /// A 16-bit read-modify-write: our `atom.cas.b16` loop, which ptxas expands into a loop nest.
    NestedCas16,
    /// An 8-bit compare-exchange: libcu++ fails from its relaxed pre-load, we only from `atom.cas`.
    CasFailureOrdering,
    /// The `u8` kernel parameter: `ld.param.b8` into a 32-bit register, masked by ptxas.
    ByteParameter,
    /// Not recognised: see the listing.
    Unknown,
}

impl Reason {
    fn of(r: &Compared) -> Reason {
        let ours_ptx = r.ours.ptx.mm_sequence.join("\n");
        if ours_ptx.contains(".cas.b16") && r.case.op() != "compare_exchange" {
            return Reason::NestedCas16;
        }
        if r.case.op() == "compare_exchange" && fails_before_cas(&r.lib.ptx.mm_sequence) {
            return Reason::CasFailureOrdering;
        }
        let masks_byte = r
            .ours
            .sass
            .listing
            .iter()
            .any(|i| i.starts_with("ULOP3.LUT") && i.contains(", 0xff,"));
        let loads_byte = r.lib.sass.listing.iter().any(|i| i.starts_with("ULDC.U8"));
        if r.case.ty() == "u8" && masks_byte && loads_byte && r.ours.ptx.mm == r.lib.ptx.mm {
            return Reason::ByteParameter;
        }
        Reason::Unknown
    }

    fn title(self) -> &'static str {
        match self {
            Reason::NestedCas16 => {
                "16-bit read-modify-writes: ptxas expands `atom.cas.b16` into a loop"
            }
            Reason::CasFailureOrdering => {
                "8-bit compare_exchange: failure only from an ordered `atom.cas`"
            }
            Reason::ByteParameter => "the `u8` kernel parameter (an artifact of the probe)",
            Reason::Unknown => "not recognised",
        }
    }

    fn explanation(self) -> &'static str {
        match self {
            Reason::NestedCas16 => {
                "PTX has no 16-bit `atom.add`/`exch`/`min`, so ours is an `atom.cas.b16` loop over the \
                 16-bit location (9 PTX instructions against libcu++'s 23, the same number of \
                 memory-model instructions). But sm_80 and sm_90 have no 16-bit CAS in hardware \
                 either: ptxas expands each `atom.cas.b16` into its own 32-bit CAS loop on the \
                 containing word (with a plain `LD.E` of the word), so our loop becomes a loop nest \
                 in SASS: about 12 instructions and 1 load per call more than libcu++, which writes \
                 the 32-bit-word CAS loop itself in PTX. The remedy is in `atomics/` (PTX backend): \
                 do the 16-bit read-modify-writes other than `compare_exchange` as a 32-bit CAS \
                 loop on the containing word, as the 8-bit ones are; the price is accessing one \
                 location at two sizes in PTX (16-bit `ld`/`st`, 32-bit `atom`), which the crate \
                 avoids on purpose (the PTX memory model gives mixed-size accesses no guarantees) \
                 — though ptxas's own expansion already does so in SASS."
            }
            Reason::CasFailureOrdering => {
                "libcu++'s 8- and 16-bit `compare_exchange` (a 32-bit CAS loop) returns failure as \
                 soon as its initial *relaxed* load shows a different byte, without executing the \
                 `atom.cas`: a failed compare-exchange with failure order `acquire`/`seq_cst` then \
                 has no acquire semantics. Ours reports failure only from an `atom.cas` whose `.sem` \
                 covers the failure order (a rule of our PTX backend), so the byte comparison comes \
                 after the CAS: 1 PTX and 2 SASS instructions more, the same memory-model \
                 instructions."
            }
            Reason::ByteParameter => {
                "Not the atomic: rustc/LLVM loads the `u8` kernel parameter with `ld.param.b8` \
                 into a 32-bit register, which ptxas does as a 32-bit constant load plus a mask \
                 (`ULOP3.LUT …, 0xff`), where nvcc's `ld.param.u8` becomes a zero-extending \
                 `ULDC.U8`. Same memory-model instructions and loop; one SASS instruction more."
            }
            Reason::Unknown => "Not recognised by the generator; see the listing.",
        }
    }
}

/// Whether a CAS-loop sequence can leave before its first `atom` (a branch between the loop
/// label and the `atom`): failure reported from the preceding load.
fn fails_before_cas(sequence: &[String]) -> bool {
    let mut in_loop = false;
    for l in sequence {
        if l.ends_with(':') {
            in_loop = true;
        } else if l.starts_with("atom") {
            return false;
        } else if in_loop && l.contains("bra ") {
            return true;
        }
    }
    false
}

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
fn report(
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

fn main() -> ExitCode {
    let clock = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut configs: Vec<Config> = CONFIGS.to_vec();
    let mut summary_only = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--summary-only" => summary_only = true,
            "--config" => match it.next().map(String::as_str) {
                Some("all") => configs = CONFIGS.to_vec(),
                Some(name) if CONFIGS.iter().any(|c| c.name == name) => {
                    configs = CONFIGS.iter().filter(|c| c.name == name).copied().collect()
                }
                _ => {
                    eprintln!("{USAGE}");
                    return ExitCode::from(2);
                }
            },
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    match run(&configs, summary_only, clock) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Error::Missing(e)) => {
            eprintln!("device-cost: missing: {e} (run `bash tools/install.sh`)");
            ExitCode::from(2)
        }
        Err(Error::Failed(e)) => {
            eprintln!("device-cost: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(configs: &[Config], summary_only: bool, clock: Instant) -> Result<(), Error> {
    let tc = Toolchain::discover()?;
    let cuda = CudaTools::discover(&tc.root)?;
    let out_dir = tc.root.join("target/device-cost");
    fs::create_dir_all(&out_dir)
        .map_err(|e| Error::Failed(format!("{}: {e}", out_dir.display())))?;
    let cases = dc::cases();

    let mut unsupported = BTreeMap::new();
    let mut lib_sides: BTreeMap<&'static str, Side> = BTreeMap::new();
    for config in configs {
        let arch = config.lib.arch();
        if !lib_sides.contains_key(arch) {
            eprintln!("device-cost: libcu++ kernels for {arch} (nvcc, ptxas, cuobjdump)...");
            let side = libcudacxx_side(&tc, &cuda, &out_dir, &cases, config.lib, &mut unsupported)?;
            lib_sides.insert(arch, side);
        }
    }
    let cases: Vec<Case> = cases
        .into_iter()
        .filter(|c| !unsupported.contains_key(c.ty()))
        .collect();
    let names: BTreeSet<&str> = cases.iter().map(|c| c.name.as_str()).collect();

    let mut results = Vec::new();
    let mut warnings = Vec::new();
    for config in configs {
        eprintln!(
            "device-cost: our probes for {} (build_ptx, ptxas, cuobjdump)...",
            config.name
        );
        let ours = our_side(&tc, &cuda, &out_dir, config, &names)?;
        let lib = &lib_sides[config.lib.arch()];
        let rows = dc::compare(&cases, &ours.ptx, &ours.sass, &lib.ptx, &lib.sass)
            .map_err(Error::Failed)?;
        for r in &rows {
            if r.ours.ptx.params != r.lib.ptx.params {
                warnings.push(format!(
                    "{} {}: ours has {} parameters, libcu++ {} (the probe signature changed?)",
                    config.name, r.case.name, r.ours.ptx.params, r.lib.ptx.params
                ));
            }
        }
        results.push(ConfigResult {
            config: *config,
            ptx_versions: (ours.version, lib.version.clone()),
            rows,
        });
    }

    let versions: Vec<String> = results
        .iter()
        .map(|r| {
            format!(
                "{}: ours PTX ISA {}, libcu++ PTX ISA {}",
                r.config.name, r.ptx_versions.0, r.ptx_versions.1
            )
        })
        .collect();
    let header = format!(
        "Generated by `cargo run -p benches --release --bin device-cost` on {} in {:.0} s.\n\n\
         * ours: the `gpu-kernels` probe kernels built by `scoped_atomics_host::ptx::build_ptx` with {}; \
         libcu++: CCCL {} (the headers of CUDA 13.5), `{}`, `nvcc -ptx -std=c++17 -O3 -arch=…`; \
         both assembled by ptxas ({}) and disassembled by `cuobjdump -sass`.\n\
         * {}.\n\
         * Cases: load/store/fetch_add/compare_exchange (strong; C++'s derived failure order)/\
         swap (`exchange`)/fetch_min × u32/u64/f32/i16/u16/u8 × every valid order × block/device/\
         system scope, and `atomic_thread_fence` × acquire/release/acq_rel/seq_cst × the three \
         scopes: {} per configuration. Kernels take `(p, v, w, n)` and discard the result.\n\
         * Files: `target/device-cost/` (generated `.cu`, both PTX, cubins, `.sass` listings).",
        benches::summary::format_utc(std::time::SystemTime::now()),
        clock.elapsed().as_secs_f64(),
        tc.nightly,
        cuda.cccl_version(),
        tool_version(&cuda.nvcc),
        tool_version(tc.ptxas(Target::Sm90)),
        versions.join("; "),
        cases.len(),
    );

    let full_report = report(&results, &header, &unsupported, true);
    let path = out_dir.join("report.md");
    fs::write(&path, &full_report)
        .map_err(|e| Error::Failed(format!("{}: {e}", path.display())))?;
    if summary_only {
        println!("{}", report(&results, &header, &unsupported, false));
    } else {
        println!("{full_report}");
        // The summary again at the end, where a terminal shows it.
        println!(
            "## Summary (again)\n\n{DISCLAIMER}\n\n{}",
            dc::summary_table(&results)
        );
    }
    for w in &warnings {
        println!("warning: {w}");
    }
    println!(
        "report written to {} ({:.0} s)",
        path.display(),
        clock.elapsed().as_secs_f64()
    );
    Ok(())
}
