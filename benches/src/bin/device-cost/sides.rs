//! Both sides of the comparison built and assembled: the libcu++ kernels and our probe kernels.

use benches::device_cost::{self as dc, Case, Config, Kind};
use scoped_atomics_host::ptx::{self, Error, Target, Toolchain};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use benches::cuda_tools::{CudaTools, nvcc_ptx, sass};

/// One side, assembled: PTX costs and SASS of every kernel, and the `.version` of the PTX.
pub(crate) struct Side {
    pub(crate) ptx: BTreeMap<String, dc::PtxCost>,
    pub(crate) sass: BTreeMap<String, Vec<dc::SassInstr>>,
    pub(crate) version: String,
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
pub(crate) fn libcudacxx_side(
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
pub(crate) fn our_side(
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
