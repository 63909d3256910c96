//! `scoped-atomics-build`: building a user's kernel crate to PTX — [`PtxBuilder`], the counterpart of
//! Rust-CUDA's `cuda_builder`, for a `build.rs` (or the command line: `cargo host ptx --crate PATH`
//! of `scoped-atomics-host`). A light build-dependency: the builder, toolchain discovery, ptxas
//! verification and reading PTX ([`ptx`]), nothing else.
//!
//! # What a kernel crate needs
//!
//! A library crate (`rlib`, the default) that depends on `scoped-atomics` and starts with
//!
//! ```text
//! #![no_std]
//! #![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
//! ```
//!
//! — `abi_ptx` for its `extern "ptx-kernel"` entry points; add `asm_experimental_arch` if the
//! crate uses `scoped_atomics::block_shared!` (its array is declared with `global_asm!`, expanded
//! in the kernel crate) or writes `asm!` itself. Nothing else: no `panic_handler` (panics abort
//! in place), no `.cargo/config.toml`, no `build.rs`, no toolchain file. The kernel bodies are
//! ordinary functions over `scoped_atomics::kernel` (so the host crate can run them on the
//! executor's threads); `#[scoped_atomics::kernel]` on each writes its `extern "ptx-kernel"`
//! entry point for `nvptx64`. Depend on `scoped-atomics` with
//! `default-features = false` so that the crate stays `no_std` on the device; the host side gets
//! `std` through `scoped-atomics-host`.
//!
//! # What the builder does
//!
//! `cargo +<pinned nightly> rustc --lib -Zbuild-std=core --target nvptx64-nvidia-cuda` on the
//! crate, with `target.nvptx64-nvidia-cuda.rustflags` (so that they reach every dependency,
//! `scoped-atomics` included, and join those of the crate's own `.cargo/config.toml`):
//! `-C target-cpu=<sm>` ([`PtxBuilder::arch`]) and, for a PTX ISA version newer than the
//! architecture's own, `-C target-feature=+ptx<NN>` ([`PtxBuilder::ptx_isa`]), `-Cpanic=immediate-abort`, `-Zcross-crate-inline-threshold=always`
//! (an rlib's PTX holds only its own code, so everything it calls must be inlined into it), one
//! codegen unit (with [`runtime_unroll(false)`](PtxBuilder::runtime_unroll),
//! `-Cllvm-args=-unroll-runtime=false` too; with
//! [`loop_strength_reduction(false)`](PtxBuilder::loop_strength_reduction),
//! `-Cllvm-args=-disable-lsr`), and the flags of [`PtxBuilder::rustflag`]. The PTX
//! is written to
//! `<out_dir>/<crate>.<arch>.ptx`; `ptxas` assembles it when asked. Cargo's own fingerprints and
//! the assembler's log cache make an unchanged rebuild take well under a second. In a build
//! script it prints `cargo:rerun-if-changed` for every source file of the kernel crate and its
//! path dependencies (from the build's dep-info).
//!
//! [`ARCHS`] are every architecture of the pinned nightly from Volta (sm_70) on. PTX is forward
//! compatible: the driver compiles `sm_70` PTX for any later GPU, so a newer architecture or
//! PTX ISA version is only needed for what it adds (the library's compile-time errors say which
//! `.arch(…)`/`.ptx_isa(…)` an operation needs).
//!
//! ```no_run
//! // build.rs of the host crate
//! use scoped_atomics_build::PtxBuilder;
//!
//! fn main() {
//!     let ptx = PtxBuilder::new("../kernels")
//!         .arch("sm_80")
//!         .verify_with_ptxas(true)
//!         .build()
//!         .unwrap_or_else(|e| panic!("{e}"));
//!     println!("cargo:rustc-env=KERNELS_PTX={}", ptx.display());
//! }
//! ```

pub mod call_sites;
mod crate_info;
mod error;
mod gpu_target;
pub mod ptx;
mod tools;

use crate_info::{dep_info_sources, lib_name, package_name};
pub use error::{Error, ptxas_error};
pub use gpu_target::{ARCHS, GpuTarget, ISA_ENV, PTX_ISAS, parse_ptx_isa};
pub use tools::find_tools;

use ptx::Toolchain;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pinned nightly the PTX is built with (also in `tools/nightly-toolchain`); the environment
/// variable `SCOPED_ATOMICS_NIGHTLY` overrides it.
pub const PINNED_NIGHTLY: &str = "nightly-2026-05-20";

/// Builds a kernel crate to PTX (see the [module documentation](self)).
///
/// ```no_run
/// use scoped_atomics_build::PtxBuilder;
/// let ptx = PtxBuilder::new("kernels").arch("sm_90_ptx86").out_dir("target/ptx-out").build()?;
/// assert!(ptx.ends_with("kernels.sm_90_ptx86.ptx"));
/// # Ok::<(), scoped_atomics_build::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct PtxBuilder {
    crate_path: PathBuf,
    arch: String,
    ptx_isa: Option<(u8, u8)>,
    rustflags: Vec<String>,
    release: bool,
    line_tables: bool,
    verify: bool,
    runtime_unroll: bool,
    loop_strength_reduction: bool,
    out_dir: Option<PathBuf>,
    verbose: bool,
}

impl PtxBuilder {
    /// A builder for the crate at `path` (its directory or its `Cargo.toml`); by default for
    /// `sm_70`, release, not assembled, into `$OUT_DIR` in a build script and
    /// `<crate>/target/ptx` elsewhere.
    ///
    /// ```
    /// let b = scoped_atomics_build::PtxBuilder::new("kernels");
    /// # let _ = b;
    /// ```
    pub fn new(path: impl AsRef<Path>) -> Self {
        let path = path.as_ref();
        let dir = if path.file_name().is_some_and(|n| n == "Cargo.toml") {
            path.parent().unwrap_or(Path::new(".")).to_path_buf()
        } else {
            path.to_path_buf()
        };
        PtxBuilder {
            crate_path: dir,
            arch: "sm_70".into(),
            ptx_isa: None,
            rustflags: Vec::new(),
            release: true,
            line_tables: true,
            verify: false,
            runtime_unroll: true,
            loop_strength_reduction: true,
            out_dir: None,
            verbose: false,
        }
    }

    /// The target architecture, one of [`ARCHS`]: every `-C target-cpu` of the pinned
    /// nightly's nvptx backend from sm_70 on (`sm_75`, `sm_86`, `sm_89`, `sm_90a`, `sm_100`,
    /// `sm_120`, …), and `sm_90_ptx86`, short for `.arch("sm_90").ptx_isa(8, 6)`. Checked by
    /// [`build`](Self::build).
    ///
    /// ```
    /// let b = scoped_atomics_build::PtxBuilder::new("kernels").arch("sm_80");
    /// # let _ = b;
    /// ```
    pub fn arch(mut self, arch: impl Into<String>) -> Self {
        self.arch = arch.into();
        self
    }

    /// The PTX ISA version, one of [`PTX_ISAS`] and not older than the architecture's oldest
    /// (by default that oldest): e.g. `.arch("sm_70").ptx_isa(8, 3)` for 128-bit loads and
    /// stores on Volta. It reaches every crate of the build (`-C target-feature=+ptx83`), so
    /// the library's `cfg` gates see it. The PTX file is then `<crate>.sm_70_ptx83.ptx`. sm_80
    /// without a version asked for is written as PTX ISA 7.1 (the hardware block barrier's
    /// `.parity` waits; see [`GpuTarget::raised_version`]); `.ptx_isa(7, 0)` keeps LLVM's 7.0,
    /// where the library's block barriers use the generic algorithm.
    ///
    /// ```
    /// let b = scoped_atomics_build::PtxBuilder::new("kernels").arch("sm_70").ptx_isa(8, 3);
    /// # let _ = b;
    /// ```
    pub fn ptx_isa(mut self, major: u8, minor: u8) -> Self {
        self.ptx_isa = Some((major, minor));
        self
    }

    /// One more flag for `rustc`, for every crate of the device build (dependencies and `core`
    /// included), after the builder's own: e.g. `"-Cllvm-args=--nvptx-sched4reg"` or
    /// `"--cfg=my_kernels_feature"`. The kernel crate's `.cargo/config.toml`
    /// `[target.nvptx64-nvidia-cuda] rustflags` are added too; `RUSTFLAGS` of the outer build
    /// is not (it is the host's).
    ///
    /// ```
    /// let b = scoped_atomics_build::PtxBuilder::new("kernels").rustflag("--cfg=fast_path");
    /// # let _ = b;
    /// ```
    pub fn rustflag(mut self, flag: impl Into<String>) -> Self {
        self.rustflags.push(flag.into());
        self
    }

    /// Both [`arch`](Self::arch) and [`ptx_isa`](Self::ptx_isa) from a [`GpuTarget`] (e.g. one
    /// read by [`GpuTarget::parse`] from a command line).
    ///
    /// ```
    /// use scoped_atomics_build::{GpuTarget, PtxBuilder};
    /// let b = PtxBuilder::new("kernels").gpu_target(&GpuTarget::parse("sm_70_ptx83")?);
    /// assert_eq!(b.target()?.name(), "sm_70_ptx83");
    /// # Ok::<(), scoped_atomics_build::Error>(())
    /// ```
    pub fn gpu_target(mut self, target: &GpuTarget) -> Self {
        self.arch = target.arch().to_string();
        self.ptx_isa = target.requested_ptx_isa();
        self
    }

    /// The target this builder builds for: its architecture and PTX ISA version, checked.
    ///
    /// ```
    /// let b = scoped_atomics_build::PtxBuilder::new("kernels").arch("sm_100");
    /// assert_eq!(b.target()?.ptx_isa(), (8, 6));
    /// # Ok::<(), scoped_atomics_build::Error>(())
    /// ```
    pub fn target(&self) -> Result<GpuTarget, Error> {
        GpuTarget::new(&self.arch, self.ptx_isa)
    }

    /// Release (the default) or debug profile (`dev`: overflow checks and debug assertions,
    /// which abort the kernel); both with one codegen unit and no debug info beyond the line
    /// tables of [`line_tables`](Self::line_tables) (ptxas cannot read the DWARF sections LLVM
    /// writes into PTX).
    ///
    /// ```
    /// let b = scoped_atomics_build::PtxBuilder::new("kernels").release(false);
    /// # let _ = b;
    /// ```
    pub fn release(mut self, release: bool) -> Self {
        self.release = release;
        self
    }

    /// Whether the PTX carries line tables (the default): `.file` and `.loc` directives that name
    /// the Rust file and line of each instruction, for the simulator's findings and the GPU
    /// tools, and one `//@inlined_at` comment per inlined call in a kernel's own file (see
    /// [`call_sites`]: the `.loc` of an atomic names the library's `asm!` line, the comment the
    /// kernel author's). It compiles with `debug = "line-tables-only"` and drops the DWARF
    /// sections, which ptxas cannot parse. Nothing else changes: the PTX without its
    /// `.file`/`.loc` lines, comments and the labels that delimit their ranges is the PTX of
    /// `.line_tables(false)`, which is written to `<crate>.<arch>.nolines.ptx` (the repository's
    /// `device_builds` test checks both), and ptxas reads both.
    ///
    /// ```
    /// let b = scoped_atomics_build::PtxBuilder::new("kernels").line_tables(false);
    /// # let _ = b;
    /// ```
    pub fn line_tables(mut self, line_tables: bool) -> Self {
        self.line_tables = line_tables;
        self
    }

    /// Whether to assemble the PTX with `ptxas` (an error names ptxas's message and the PTX line).
    ///
    /// ```
    /// let b = scoped_atomics_build::PtxBuilder::new("kernels").verify_with_ptxas(true);
    /// # let _ = b;
    /// ```
    pub fn verify_with_ptxas(mut self, verify: bool) -> Self {
        self.verify = verify;
        self
    }

    /// Whether LLVM may unroll loops whose trip count is known only at run time (the default:
    /// it helps straight-line loops). `false` passes `-Cllvm-args=-unroll-runtime=false`.
    ///
    /// Turn it off for kernels whose loops hold a spin: LLVM unrolls the loop around the spin
    /// ×4 and each copy keeps its own wait loop. A ticket lock (`fetch_add` a ticket, spin on
    /// `load(Acquire)` until it is served, work, `store(Release)` the next) is 155 SASS
    /// instructions and 22 registers at sm_80 with runtime unrolling and 41 and 12 without —
    /// what libcu++'s `cuda::atomic_ref` version compiles to. `cargo host ptx --crate PATH
    /// --no-runtime-unroll` is the same on the command line.
    ///
    /// ```
    /// let b = scoped_atomics_build::PtxBuilder::new("kernels").runtime_unroll(false);
    /// # let _ = b;
    /// ```
    pub fn runtime_unroll(mut self, unroll: bool) -> Self {
        self.runtime_unroll = unroll;
        self
    }

    /// Whether LLVM's loop strength reduction runs (the default). `false` passes
    /// `-Cllvm-args=-disable-lsr`.
    ///
    /// The pass turns the address arithmetic of a loop into induction variables of their own.
    /// ptxas does that itself and can fold `base + i * 4` into one scaled shared-memory access
    /// when `i` is the loop's only variable; after LLVM's pass, a loop over `i` that indexes an
    /// array the compiler cannot see the address of (`block_shared!` makes its pointer inside
    /// an `asm!`) keeps two variables, `i` for the exit test and the address. The histogram of
    /// the kernel cost report (zero 256 shared bins, count, merge them into global memory, with
    /// loops over the bin number as CUDA C++ writes them) is 47 SASS instructions at sm_80 with
    /// the pass and 42 without — the classic intrinsics' count. Not the default: a polling loop
    /// grows without it. `cargo host ptx --crate PATH --no-loop-strength-reduction` is the same
    /// on the command line.
    ///
    /// ```
    /// let b = scoped_atomics_build::PtxBuilder::new("kernels").loop_strength_reduction(false);
    /// # let _ = b;
    /// ```
    pub fn loop_strength_reduction(mut self, reduce: bool) -> Self {
        self.loop_strength_reduction = reduce;
        self
    }

    /// Where the PTX (and the build's target directory, `<dir>/target`) goes.
    ///
    /// ```
    /// let b = scoped_atomics_build::PtxBuilder::new("kernels").out_dir("/tmp/ptx");
    /// # let _ = b;
    /// ```
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Whether a failed build's [`Error::Cargo`] shows the cargo command and its whole output
    /// (rustc's notes, cargo's progress) after rustc's errors. Off by default: a refusal of the
    /// library (an operation the target lacks) is then a few lines — what needs what, the target
    /// the crate was compiled for, and the builder call that fixes it. `cargo host ptx --crate
    /// PATH --verbose` is the same on the command line.
    ///
    /// ```
    /// let b = scoped_atomics_build::PtxBuilder::new("kernels").verbose(true);
    /// # let _ = b;
    /// ```
    pub fn verbose(mut self, verbose: bool) -> Self {
        self.verbose = verbose;
        self
    }

    /// The kernel crate's manifest, or [`Error::NotAKernelCrate`] where the path has none: the
    /// check [`build`](Self::build) makes first, for a tool that wants to refuse a wrong path
    /// before it announces a build.
    ///
    /// ```
    /// use scoped_atomics_build::{Error, PtxBuilder};
    /// let e = PtxBuilder::new("/no/such/crate").kernel_crate_manifest().unwrap_err();
    /// assert!(matches!(e, Error::NotAKernelCrate { .. }));
    /// assert!(e.to_string().contains("/no/such/crate/Cargo.toml"), "{e}");
    /// ```
    pub fn kernel_crate_manifest(&self) -> Result<PathBuf, Error> {
        let manifest = self.crate_path.join("Cargo.toml");
        if !manifest.is_file() {
            return Err(Error::NotAKernelCrate {
                path: self.crate_path.clone(),
                why: format!("no {}", manifest.display()),
            });
        }
        Ok(manifest)
    }

    /// Builds the PTX and returns its path, `<out_dir>/<crate>.<arch>.ptx`.
    pub fn build(&self) -> Result<PathBuf, Error> {
        let target = self.target()?;
        self.kernel_crate_manifest()?;
        let crate_dir = self
            .crate_path
            .canonicalize()
            .map_err(|e| Error::Io(format!("{}: {e}", self.crate_path.display())))?;
        let manifest = crate_dir.join("Cargo.toml");
        let tools = find_tools(self.verify.then_some(&target))?;
        let lib = lib_name(&tools, &manifest)?;
        let in_build_script = std::env::var_os("OUT_DIR").is_some()
            && std::env::var_os("CARGO_CFG_TARGET_ARCH").is_some();
        let out_dir = match (&self.out_dir, std::env::var_os("OUT_DIR")) {
            (Some(dir), _) => dir.clone(),
            (None, Some(dir)) if in_build_script => PathBuf::from(dir).join("ptx"),
            _ => crate_dir.join("target/ptx"),
        };
        fs::create_dir_all(&out_dir)
            .map_err(|e| Error::Io(format!("creating {}: {e}", out_dir.display())))?;
        let out_dir = out_dir.canonicalize().unwrap_or(out_dir);
        // A build without line tables has a name of its own: cargo finds either build fresh
        // after the other and would not write the PTX again.
        let lines = if self.line_tables { "" } else { ".nolines" };
        let out = out_dir.join(format!("{lib}.{}{lines}.ptx", target.name()));
        let target_dir = out_dir.join("target").join(target.name());
        self.cargo_build(&tools, &target, &manifest, &target_dir, &out)?;
        // The builder's edits of LLVM's PTX, in one read and at most one write: the raised
        // `.version` (sm_80) and the inlined call sites as comments (line tables).
        if target.raised_version().is_some() || self.line_tables {
            let io = |e: std::io::Error| Error::Io(format!("{}: {e}", out.display()));
            let original = fs::read_to_string(&out).map_err(io)?;
            let raised = target.raise_version(&original);
            let ptx = raised.as_deref().unwrap_or(&original);
            let marked = self.line_tables.then(|| call_sites::mark_call_sites(ptx));
            let edited = marked.as_deref().unwrap_or(ptx);
            if edited != original {
                fs::write(&out, edited).map_err(io)?;
            }
        }
        if in_build_script {
            for file in dep_info_sources(&target_dir, &lib, self.release) {
                println!("cargo:rerun-if-changed={}", file.display());
            }
            println!("cargo:rerun-if-changed={}", manifest.display());
            println!("cargo:rerun-if-env-changed=SCOPED_ATOMICS_NIGHTLY");
            println!("cargo:rerun-if-env-changed=PTXAS");
        }
        if self.verify {
            verify(&tools, &out, &target)?;
        }
        Ok(out)
    }

    fn cargo_build(
        &self,
        tools: &Toolchain,
        target: &GpuTarget,
        manifest: &Path,
        target_dir: &Path,
        out: &Path,
    ) -> Result<(), Error> {
        let profile = if self.release { "release" } else { "dev" };
        // Twice at most: cargo finds the build fresh but the PTX was deleted since, so forget the
        // crate's fingerprint and let rustc write it again.
        for attempt in 0..2 {
            let mut cmd = Command::new(&tools.cargo);
            ptx::clean_env(&mut cmd);
            if let Some((name, value)) = target.build_env() {
                cmd.env(name, value);
            }
            cmd.current_dir(manifest.parent().unwrap_or(Path::new(".")))
                .arg(format!("+{}", tools.nightly))
                .args(["rustc", "--lib", "--manifest-path"])
                .arg(manifest)
                .args(["-Zbuild-std=core", "--target", "nvptx64-nvidia-cuda"])
                .args(["--profile", profile, "--target-dir"])
                .arg(target_dir)
                .args(["--config", &format!("profile.{profile}.codegen-units=1")])
                // Line tables with DWARF, whose inlined call sites `call_sites` turns into
                // comments before dropping it (ptxas cannot parse LLVM's DWARF in PTX).
                .args([
                    "--config",
                    &if self.line_tables {
                        format!("profile.{profile}.debug=\"line-tables-only\"")
                    } else {
                        format!("profile.{profile}.debug=0")
                    },
                ])
                // Not `RUSTFLAGS`, which would replace the crate's own
                // `[target.nvptx64-nvidia-cuda] rustflags`: cargo joins the arrays.
                .args(["--config", &rustflags_config(&self.rustflags(target))])
                .arg("--")
                .arg(format!("--emit=asm={}", out.display()));
            let shown = format!("{cmd:?}");
            let output = cmd.output().map_err(|e| Error::Cargo {
                command: shown.clone(),
                stderr: e.to_string(),
                verbose: self.verbose,
            })?;
            if !output.status.success() {
                return Err(Error::Cargo {
                    command: shown,
                    stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
                    verbose: self.verbose,
                });
            }
            if out.is_file() {
                return Ok(());
            }
            if attempt == 0 {
                let dir = if self.release { "release" } else { "debug" };
                let profile_dir = target_dir.join("nvptx64-nvidia-cuda").join(dir);
                ptx::forget_fingerprint(&profile_dir, &package_name(manifest));
            }
        }
        Err(Error::Io(format!(
            "the build succeeded but wrote no {}",
            out.display()
        )))
    }
}

impl PtxBuilder {
    /// Every crate's flags: the target's, what makes one crate's PTX self-contained (see
    /// [`ptx::Target::rustflags`]), one codegen unit, and the user's.
    fn rustflags(&self, target: &GpuTarget) -> Vec<String> {
        let mut flags = target.rustflags();
        flags.extend(ptx::SELF_CONTAINED_FLAGS.map(String::from));
        flags.push("-Ccodegen-units=1".into());
        if !self.runtime_unroll {
            flags.push("-Cllvm-args=-unroll-runtime=false".into());
        }
        if !self.loop_strength_reduction {
            flags.push("-Cllvm-args=-disable-lsr".into());
        }
        flags.extend(self.rustflags.iter().cloned());
        flags
    }
}

/// `target.nvptx64-nvidia-cuda.rustflags=[…]` for `cargo --config`, each flag a TOML string.
fn rustflags_config(flags: &[String]) -> String {
    let quoted: Vec<String> = flags
        .iter()
        .map(|f| format!("\"{}\"", f.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    format!(
        "target.nvptx64-nvidia-cuda.rustflags=[{}]",
        quoted.join(", ")
    )
}

/// Assembles `ptx` with ptxas; a rejection names ptxas's message and the PTX line it points at.
fn verify(tools: &Toolchain, ptx: &Path, target: &GpuTarget) -> Result<(), Error> {
    let ptxas = if target.needs_ptxas_12() {
        &tools.ptxas_12
    } else {
        &tools.ptxas_13
    };
    match ptx::assemble_with(ptxas, ptx, target.cpu()) {
        Ok(_) => Ok(()),
        Err(e) => {
            let message = match e {
                ptx::Error::Missing(m) | ptx::Error::Failed(m) => m,
            };
            let text = fs::read_to_string(ptx).unwrap_or_default();
            Err(ptxas_error(&message, &text))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pinned_nightly_is_the_one_in_tools() {
        let pin = fs::read_to_string(Toolchain::repo_root().join("tools/nightly-toolchain"))
            .expect("tools/nightly-toolchain");
        assert_eq!(pin.trim(), PINNED_NIGHTLY);
    }

    #[test]
    fn the_loop_passes_are_on_by_default_and_off_on_request() {
        type Switch = fn(PtxBuilder, bool) -> PtxBuilder;
        let passes: [(&str, Switch); 2] = [
            (
                "-Cllvm-args=-unroll-runtime=false",
                PtxBuilder::runtime_unroll,
            ),
            (
                "-Cllvm-args=-disable-lsr",
                PtxBuilder::loop_strength_reduction,
            ),
        ];
        let target = GpuTarget::new("sm_80", None).unwrap();
        let flags = |switches: &[(Switch, bool)]| {
            switches
                .iter()
                .fold(PtxBuilder::new("k"), |b, (switch, on)| switch(b, *on))
                .rustflags(&target)
        };
        for (flag, switch) in passes {
            let flag = flag.to_string();
            assert!(!flags(&[]).contains(&flag));
            let off = flags(&[(switch, false)]);
            assert!(
                off.contains(&flag) && off.contains(&"-Ctarget-cpu=sm_80".to_string()),
                "{off:?}"
            );
            assert!(!flags(&[(switch, false), (switch, true)]).contains(&flag));
        }
        // Both off: both flags.
        let both = flags(&[(passes[0].1, false), (passes[1].1, false)]);
        assert!(
            passes.iter().all(|(f, _)| both.contains(&f.to_string())),
            "{both:?}"
        );
    }

    #[test]
    fn an_unknown_arch_names_the_accepted_ones() {
        let e = PtxBuilder::new(".").arch("sm_60").build().unwrap_err();
        assert_eq!(e, Error::UnknownArch("sm_60".into()));
        assert!(
            e.to_string()
                .contains("accepted are sm_70, sm_72, sm_75, sm_80, sm_86"),
            "{e}"
        );
        let e = PtxBuilder::new(".").arch("sm_100").ptx_isa(8, 3).build();
        assert!(matches!(e, Err(Error::UnknownPtxIsa(_))), "{e:?}");
    }

    #[test]
    fn the_rustflags_reach_cargo_as_one_toml_array_after_the_builders_own() {
        let b = PtxBuilder::new(".")
            .arch("sm_70")
            .ptx_isa(8, 3)
            .rustflag("--cfg=a\"b");
        let flags = b.rustflags(&b.target().unwrap());
        assert_eq!(
            flags[..2],
            ["-Ctarget-cpu=sm_70", "-Ctarget-feature=+ptx83"]
        );
        assert_eq!(flags.last().unwrap(), "--cfg=a\"b");
        let config = rustflags_config(&flags);
        assert!(
            config.starts_with("target.nvptx64-nvidia-cuda.rustflags=[\"-Ctarget-cpu=sm_70\", ")
        );
        assert!(config.ends_with(", \"--cfg=a\\\"b\"]"), "{config}");
    }

    #[test]
    fn a_directory_without_a_manifest_is_not_a_kernel_crate() {
        let e = PtxBuilder::new("/nonexistent/kernels").build().unwrap_err();
        assert!(matches!(e, Error::NotAKernelCrate { .. }), "{e:?}");
        assert!(e.to_string().contains("no /nonexistent/kernels/Cargo.toml"));
    }

    #[test]
    fn a_ptxas_rejection_names_the_message_and_the_ptx_line() {
        let ptx = ".version 7.0\n.target sm_70\n  bogus.instruction %r1;\n";
        let log = "ptxas /tmp/k.ptx, line 3; error   : Unknown instruction 'bogus'\n\
                   ptxas fatal   : Ptx assembly aborted due to errors\n";
        let e = ptxas_error(log, ptx);
        assert_eq!(
            e,
            Error::Ptxas {
                message: "ptxas /tmp/k.ptx, line 3; error   : Unknown instruction 'bogus'".into(),
                line: Some((3, "  bogus.instruction %r1;".into())),
            }
        );
        assert!(
            e.to_string()
                .ends_with("PTX line 3: bogus.instruction %r1;")
        );
        // What ptxas says about the DWARF sections of a debug build.
        let log = "ptxas k.ptx, line 2; fatal   : Parsing error near '$L__sec_end0': syntax error\n\
                   ptxas fatal   : Ptx assembly aborted due to errors\n";
        match ptxas_error(log, ptx) {
            Error::Ptxas { message, line } => {
                assert!(message.contains("Parsing error"), "{message}");
                assert_eq!(line, Some((2, ".target sm_70".into())));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn missing_tools_say_how_to_install_them_in_one_line() {
        for e in [
            Error::MissingToolchain("nightly-x".into()),
            Error::MissingRustSrc("nightly-x".into()),
            Error::MissingPtxas("none on PATH".into()),
        ] {
            let text = e.to_string();
            assert_eq!(text.lines().count(), 1, "{text}");
            assert!(text.contains("install"), "{text}");
        }
    }
}
