//! The CUDA tools of the libcu++ side (nvcc, cuobjdump, the CCCL headers) and running them.

use benches::device_cost as dc;
use scoped_atomics_host::ptx::{self, Error};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The CUDA tools of `tools/paths.env` that `scoped_atomics_host::ptx::Toolchain` does not hold.
pub(crate) struct CudaTools {
    pub(crate) nvcc: PathBuf,
    cuobjdump: PathBuf,
    /// The directory of `nvdisasm`, which cuobjdump runs from `PATH`.
    nvdisasm_dir: PathBuf,
    cccl_include: PathBuf,
    cuda_include: PathBuf,
}

impl CudaTools {
    pub(crate) fn discover(root: &Path) -> Result<CudaTools, Error> {
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
    pub(crate) fn cccl_version(&self) -> String {
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

pub(crate) fn tool_version(program: &Path) -> String {
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
pub(crate) fn nvcc_ptx(
    cuda: &CudaTools,
    source: &Path,
    arch: &str,
    out: &Path,
) -> Result<String, Error> {
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
pub(crate) fn sass(
    cuda: &CudaTools,
    cubin: &Path,
) -> Result<BTreeMap<String, Vec<dc::SassInstr>>, Error> {
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
