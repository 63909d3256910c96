//! The CUDA tools of the CUDA C++ side of the static cost models (nvcc, cuobjdump, the CCCL
//! headers) and running them: `device-cost`, `primitive-cost` and `kernel-cost` share them.

use crate::device_cost as dc;
use scoped_atomics_host::ptx::{self, Error};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The CUDA tools of `tools/paths.env` that `scoped_atomics_host::ptx::Toolchain` does not hold.
pub struct CudaTools {
    pub nvcc: PathBuf,
    pub cuobjdump: PathBuf,
    /// The directory of `nvdisasm`, which cuobjdump runs from `PATH`.
    nvdisasm_dir: PathBuf,
    cccl_include: PathBuf,
    cuda_include: PathBuf,
}

impl CudaTools {
    pub fn discover(root: &Path) -> Result<CudaTools, Error> {
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
    pub fn cccl_version(&self) -> String {
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

pub fn tool_version(program: &Path) -> String {
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
pub fn nvcc_ptx(cuda: &CudaTools, source: &Path, arch: &str, out: &Path) -> Result<String, Error> {
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
pub fn sass(cuda: &CudaTools, cubin: &Path) -> Result<BTreeMap<String, Vec<dc::SassInstr>>, Error> {
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

/// What one kernel costs, statically: PTX instructions, `call`s, its SASS (padding included;
/// [`dc::sass_cost`] drops it), registers and stack frame bytes (`ptxas -v`).
#[derive(Debug, Default, Clone)]
pub struct Measured {
    pub ptx: usize,
    pub calls: usize,
    pub sass: Vec<dc::SassInstr>,
    pub registers: u32,
    pub stack: u32,
}

/// Assembles `ptx_path` with ptxas for `target` (`-v`), disassembles the cubin, and measures
/// every `.entry` of the PTX.
pub fn measure(
    tc: &ptx::Toolchain,
    cuda: &CudaTools,
    ptx_path: &Path,
    target: ptx::Target,
) -> Result<BTreeMap<String, Measured>, Error> {
    let text = fs::read_to_string(ptx_path).map_err(|e| Error::Failed(e.to_string()))?;
    let cubin = ptx_path.with_extension("cubin");
    let mut cmd = Command::new(tc.ptxas(target));
    cmd.args(["-v", &format!("-arch={}", target.arch())])
        .arg(ptx_path)
        .arg("-o")
        .arg(&cubin);
    let output = cmd
        .output()
        .map_err(|e| Error::Failed(format!("cannot run ptxas: {e}")))?;
    if !output.status.success() {
        return Err(failed("ptxas", &cmd, &output));
    }
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let report = ptx::parse_ptxas_log(&log);
    // `ptxas info : Function properties for NAME` / `N bytes stack frame, …`.
    let mut stack: BTreeMap<String, u32> = BTreeMap::new();
    let mut current = None;
    for line in log.lines() {
        if let Some(rest) = line.split("Function properties for ").nth(1) {
            current = Some(rest.trim().to_string());
        } else if let (Some(f), Some(n)) =
            (&current, line.trim().split(" bytes stack frame").next())
            && line.contains("bytes stack frame")
        {
            stack.insert(f.clone(), n.trim().parse().unwrap_or(0));
        }
    }
    let mut listing = sass(cuda, &cubin)?;
    let mut costs = BTreeMap::new();
    for kernel in ptx::parse_kernels(&text).into_iter().filter(|k| k.entry) {
        let items = ptx::instructions(&kernel);
        let instrs: Vec<&ptx::Instr> = items
            .iter()
            .filter_map(|i| match i {
                ptx::Item::Instr(i) => Some(i),
                ptx::Item::Label(_) => None,
            })
            .collect();
        costs.insert(
            kernel.name.clone(),
            Measured {
                ptx: instrs.len(),
                calls: instrs
                    .iter()
                    .filter(|i| i.mnemonic.starts_with("call"))
                    .count(),
                sass: listing.remove(&kernel.name).unwrap_or_default(),
                registers: report.registers.get(&kernel.name).copied().unwrap_or(0),
                stack: stack.get(&kernel.name).copied().unwrap_or(0),
            },
        );
    }
    Ok(costs)
}
