#!/usr/bin/env bash
# tools/install.sh — install every external tool this project needs.
#
# Assumes only: Linux x86_64, rustup + a stable Rust, python3 with pip.
# Network used: rustup's dist server (toolchain/components), crates.io (the
# Miri sysroot build), PyPI (NVIDIA wheels).  Nothing is pip-*installed*: the
# wheels are downloaded to tools/cache/ and unzipped into tools/cuda-*/.
#
# What it installs:
#   1. Rust toolchain "$NIGHTLY_TOOLCHAIN" (default: tools/nightly-toolchain), profile minimal,
#      with components rust-src, llvm-tools, miri; then `cargo miri setup`.
#   2. tools/cuda-12.9/  ptxas 12.9 (nvidia-cuda-nvcc-cu12), sm_70..sm_90, PTX <= 8.8
#      tools/cuda-13.5/  ptxas/nvcc/cuobjdump/nvdisasm 13.5 + headers + libcu++
#                        (CCCL) for side-by-side comparison with CUDA C++.
#   3. tools/paths.env   KEY=VALUE lines, paths RELATIVE TO THE REPO ROOT, e.g.
#                          PTXAS_12=tools/cuda-12.9/nvidia/cuda_nvcc/bin/ptxas
#                        Only keys of tools that installed and run are written.
#                        Use from a shell:  cd "$REPO" && set -a && . tools/paths.env && set +a
#                        From Rust/tests: join each value onto the repo root
#                        (e.g. env!("CARGO_MANIFEST_DIR")/../..).
#
# Idempotent; when everything is present it only runs a few version checks
# (well under a second).  Safe to run concurrently (flock on tools/cache/.lock).
#
# Usage: tools/install.sh [--check] [--force] [--verbose]
#   --check    install nothing; only verify and (re)write tools/paths.env
#   --force    re-extract the CUDA folders (wheels in tools/cache/ are reused)
#   --verbose  show the output of the underlying commands
#
# Output: one summary line per tool on success; details on failure.
# Exit status: 0 only if everything is installed and runs.  Otherwise the OR of
#   1  Rust nightly toolchain / components / Miri sysroot
#   2  tools/cuda-12.9 (ptxas 12.9)
#   4  tools/cuda-13.5 (ptxas/nvcc/cuobjdump 13.5 + headers)
#   8  missing prerequisite (rustup / python3 -m pip) or bad usage
# With CI=true the first failure aborts immediately (same codes).
set -euo pipefail

# ---------------------------------------------------------------- pinned versions
# The nightly is pinned (tools/nightly-toolchain) so that the PTX snapshots and Miri runs do not
# drift with whatever nightly a fresh machine would get.
NIGHTLY="${NIGHTLY_TOOLCHAIN:-$(tr -d '[:space:]' < "$(dirname "${BASH_SOURCE[0]}")/nightly-toolchain")}"
RUST_COMPONENTS=(rust-src llvm-tools miri)
# Installed when the nightly's manifest offers it; its absence is only a note
# (it is what links an nvptx64 `cdylib` into one .ptx; not shipped by every
# nightly, e.g. missing from nightly-2026-05-20).
RUST_OPTIONAL_COMPONENTS=(llvm-bitcode-linker)

CUDA12_DIR="cuda-12.9"
CUDA12_WHEELS=(
  nvidia-cuda-nvcc-cu12==12.9.86
)
CUDA13_DIR="cuda-13.5"
CUDA13_WHEELS=(
  nvidia-cuda-nvcc==13.5.37       # nvcc, ptxas, nvlink, fatbinary, cudafe++
  nvidia-nvvm==13.5.37            # cicc, libnvvm, libdevice (needed by nvcc)
  nvidia-cuda-runtime==13.5.37    # include/cuda*.h, cudart
  nvidia-cuda-crt==13.5.37        # include/crt/*.h
  nvidia-cuda-cuobjdump==13.5.37  # cuobjdump
  nvidia-cuda-nvdisasm==13.5.37   # nvdisasm (cuobjdump -sass needs it)
  nvidia-cuda-cccl==13.3.5.0.6    # libcu++/CUB/Thrust; newest on PyPI, no 13.5 build exists
)

# ---------------------------------------------------------------- setup
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/tools"
CACHE="$TOOLS/cache"
PATHS_ENV="$TOOLS/paths.env"
PY="${PYTHON:-python3}"

CHECK_ONLY=0 FORCE=0 VERBOSE=0
for arg in "$@"; do
  case "$arg" in
    --check) CHECK_ONLY=1 ;;
    --force) FORCE=1 ;;
    --verbose|-v) VERBOSE=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument: $arg (try --help)" >&2; exit 8 ;;
  esac
done

STATUS=0
declare -A PATHS=()   # key -> path relative to $ROOT

summary() { printf '%-5s %-11s %s\n' "$1" "$2" "$3"; }

# fail CODE WHAT MESSAGE...
fail() {
  local code="$1" what="$2"; shift 2
  summary "FAIL" "$what" "$*" >&2
  STATUS=$((STATUS | code))
  if [[ "${CI:-}" == "true" ]]; then
    echo "install.sh: CI=true, aborting on first failure (exit $STATUS)" >&2
    exit "$STATUS"
  fi
}

LOG="$(mktemp "${TMPDIR:-/tmp}/install-sh.XXXXXX")"
TMP_EXTRACT=""
# shellcheck disable=SC2317  # invoked via trap
cleanup() { rm -f "$LOG"; [[ -n "$TMP_EXTRACT" ]] && rm -rf "$TMP_EXTRACT"; return 0; }
trap cleanup EXIT

# run CMD...: run quietly; on failure dump its output to stderr and return its status.
run() {
  if ((VERBOSE)); then "$@"; return; fi
  local rc=0
  "$@" >"$LOG" 2>&1 || rc=$?
  if ((rc != 0)); then
    echo "install.sh: command failed (exit $rc): $*" >&2
    tail -n 40 "$LOG" | sed 's/^/    /' >&2
  fi
  return "$rc"
}

rel() { local p="$1"; echo "${p#"$ROOT"/}"; }

# ---------------------------------------------------------------- 1. Rust nightly
install_rust() {
  if ! command -v rustup >/dev/null 2>&1; then
    fail 8 "rustup" "rustup not found on PATH"; fail 1 "nightly" "cannot install without rustup"; return
  fi
  if ! rustup run "$NIGHTLY" rustc -V >/dev/null 2>&1; then
    if ((CHECK_ONLY)); then fail 1 "nightly" "toolchain '$NIGHTLY' not installed"; return; fi
    run rustup toolchain install "$NIGHTLY" --profile minimal \
      || { fail 1 "nightly" "rustup toolchain install $NIGHTLY failed"; return; }
  fi
  local host installed missing=() c
  host="$(rustup run "$NIGHTLY" rustc -vV | sed -n 's/^host: //p')"
  installed="$(rustup component list --installed --toolchain "$NIGHTLY" 2>/dev/null || true)"
  for c in "${RUST_COMPONENTS[@]}"; do
    grep -qxE "${c}(-preview)?(-${host})?" <<<"$installed" || missing+=("$c")
  done
  if ((${#missing[@]})); then
    if ((CHECK_ONLY)); then fail 1 "nightly" "missing components: ${missing[*]}"; return; fi
    run rustup component add "${missing[@]}" --toolchain "$NIGHTLY" \
      || { fail 1 "nightly" "rustup component add ${missing[*]} failed"; return; }
  fi
  local available extra=""
  for c in "${RUST_OPTIONAL_COMPONENTS[@]}"; do
    if grep -qxE "${c}(-${host})?" <<<"$installed"; then extra+=" $c"; continue; fi
    # Remember a failure per toolchain build so later runs stay fast and offline.
    local marker
    marker="$CACHE/.unavailable.${c}.$(rustup run "$NIGHTLY" rustc -V | cksum | cut -d' ' -f1)"
    if ((!CHECK_ONLY)) && [[ ! -f "$marker" ]]; then
      available="$(rustup component list --toolchain "$NIGHTLY" 2>/dev/null || true)"
      if grep -qxE "${c}(-${host})?" <<<"$available" \
        && rustup component add "$c" --toolchain "$NIGHTLY" >"$LOG" 2>&1; then
        extra+=" $c"; continue
      fi
      : >"$marker"
    fi
    extra+=" (no $c: nvptx cdylib cannot link, use rlib + --emit=asm)"
  done
  # Miri sysroot (built once from rust-src, ~30 s; a no-op afterwards).
  if ((CHECK_ONLY)); then
    [[ -d "$(cargo +"$NIGHTLY" miri setup --print-sysroot 2>/dev/null || echo /nonexistent)" ]] \
      || { fail 1 "miri" "Miri sysroot not built (run without --check)"; return; }
  else
    run cargo +"$NIGHTLY" miri setup || { fail 1 "miri" "cargo miri setup failed"; return; }
  fi
  summary "ok" "nightly" "$(rustup run "$NIGHTLY" rustc -V) + ${RUST_COMPONENTS[*]}${extra}"
}

# ---------------------------------------------------------------- 2. CUDA wheels
have_pip() { "$PY" -m pip --version >/dev/null 2>&1; }

# cached_wheel SPEC -> path of the wheel in $CACHE, or nothing
cached_wheel() {
  local name="${1%%==*}" ver="${1##*==}" f
  for f in "$CACHE/${name//-/_}-${ver}-"*.whl; do [[ -f "$f" ]] && { echo "$f"; return; }; done
  return 0
}

fetch_wheel() {   # SPEC -> prints wheel path
  local spec="$1" w
  w="$(cached_wheel "$spec")"
  if [[ -z "$w" ]]; then
    run "$PY" -m pip download --quiet --no-deps --only-binary=:all: --dest "$CACHE" "$spec" >&2 || return 1
    w="$(cached_wheel "$spec")"
  fi
  [[ -n "$w" ]] && echo "$w"
}

extract_wheel() { # WHEEL DEST
  if command -v unzip >/dev/null 2>&1; then
    unzip -q -o "$1" -d "$2"
  else
    "$PY" -m zipfile -e "$1" "$2"
  fi
}

# find_bin DIR NAME -> path relative to ROOT of DIR/**/bin/NAME, or nothing
find_bin() {
  local f
  f="$(find "$1" -path "*/bin/$2" -type f 2>/dev/null | sort | head -n 1)"
  [[ -n "$f" ]] && rel "$f"
  return 0
}

# install_cuda CODE LABEL DIR SPEC...
install_cuda() {
  local code="$1" label="$2" dir="$TOOLS/$3"; shift 3
  local specs=("$@") stamp="$dir/.installed" want
  want="$(printf '%s\n' "${specs[@]}")"

  if ((FORCE)) || [[ ! -f "$stamp" ]] || [[ "$(cat "$stamp")" != "$want" ]]; then
    if ((CHECK_ONLY)); then fail "$code" "$label" "$(rel "$dir") missing or stale (run without --check)"; return; fi
    have_pip || { fail 8 "pip" "'$PY -m pip' not available"; fail "$code" "$label" "cannot download wheels without pip"; return; }
    mkdir -p "$CACHE"
    if [[ -n "$TMP_EXTRACT" ]]; then rm -rf "$TMP_EXTRACT"; fi  # left by an earlier failure
    TMP_EXTRACT="$(mktemp -d "$TOOLS/.$(basename "$dir").tmp.XXXXXX")"
    local spec w
    for spec in "${specs[@]}"; do
      w="$(fetch_wheel "$spec")" || { fail "$code" "$label" "pip download $spec failed"; return; }
      if ! extract_wheel "$w" "$TMP_EXTRACT" >"$LOG" 2>&1; then
        # corrupt/partial download: fetch once more
        rm -f "$w"
        if ! { w="$(fetch_wheel "$spec")" && extract_wheel "$w" "$TMP_EXTRACT"; }; then
          fail "$code" "$label" "cannot unzip wheel for $spec"; return
        fi
      fi
    done
    rm -rf "$TMP_EXTRACT"/*.dist-info
    # Wheels do not reliably carry the exec bit.
    find "$TMP_EXTRACT" -path '*/bin/*' -type f ! -name '*.profile' ! -name '*.stub' -exec chmod a+x {} +
    rm -rf "$dir"
    mv "$TMP_EXTRACT" "$dir"
    TMP_EXTRACT=""
    printf '%s\n' "$want" >"$stamp"
  fi
}

verify_cuda12() {
  local ptxas ver
  ptxas="$(find_bin "$TOOLS/$CUDA12_DIR" ptxas)"
  [[ -n "$ptxas" ]] || { fail 2 "ptxas 12.9" "no bin/ptxas under tools/$CUDA12_DIR"; return; }
  ver="$("$ROOT/$ptxas" --version 2>&1 | grep -o 'V[0-9][0-9.]*' | head -n 1)" \
    || { fail 2 "ptxas 12.9" "$ptxas --version failed"; return; }
  PATHS[PTXAS_12]="$ptxas"
  summary "ok" "ptxas 12.9" "$ptxas ($ver)"
}

verify_cuda13() {
  local d="$TOOLS/$CUDA13_DIR" ptxas nvcc cuobjdump nvdisasm ver inc missing=()
  ptxas="$(find_bin "$d" ptxas)"; nvcc="$(find_bin "$d" nvcc)"
  cuobjdump="$(find_bin "$d" cuobjdump)"; nvdisasm="$(find_bin "$d" nvdisasm)"
  if [[ -n "$ptxas" ]] && ver="$("$ROOT/$ptxas" --version 2>&1 | grep -o 'V[0-9][0-9.]*' | head -n 1)"; then
    PATHS[PTXAS_13]="$ptxas"
  else
    missing+=(ptxas)
  fi
  if [[ -n "$nvcc" ]] && "$ROOT/$nvcc" --version >/dev/null 2>&1; then PATHS[NVCC_13]="$nvcc"; else missing+=(nvcc); fi
  if [[ -n "$cuobjdump" ]] && "$ROOT/$cuobjdump" --version >/dev/null 2>&1; then PATHS[CUOBJDUMP_13]="$cuobjdump"; else missing+=(cuobjdump); fi
  if [[ -n "$nvdisasm" ]] && "$ROOT/$nvdisasm" --version >/dev/null 2>&1; then PATHS[NVDISASM_13]="$nvdisasm"; else missing+=(nvdisasm); fi
  inc="$(find "$d" -path '*/include/cuda_runtime.h' -type f 2>/dev/null | head -n 1)"
  if [[ -n "$inc" ]]; then
    inc="$(dirname "$inc")"
    PATHS[CUDA_ROOT_13]="$(rel "$(dirname "$inc")")"
    PATHS[CUDA_INCLUDE_13]="$(rel "$inc")"
    if [[ -f "$inc/cccl/cuda/atomic" ]]; then PATHS[CCCL_INCLUDE_13]="$(rel "$inc/cccl")"; else missing+=(libcu++); fi
  else
    missing+=(headers)
  fi
  if ((${#missing[@]})); then
    fail 4 "cuda 13.5" "missing or not runnable under tools/$CUDA13_DIR: ${missing[*]}"
    return
  fi
  summary "ok" "cuda 13.5" "$(dirname "$ptxas")/{ptxas,nvcc,cuobjdump,nvdisasm} ($ver) + include/cccl"
}

write_paths_env() {
  local new k
  new="$(
    echo "# Generated by tools/install.sh; do not edit. Paths are relative to the repo root."
    for k in PTXAS_12 PTXAS_13 NVCC_13 CUOBJDUMP_13 NVDISASM_13 CUDA_ROOT_13 CUDA_INCLUDE_13 CCCL_INCLUDE_13; do
      if [[ -n "${PATHS[$k]:-}" ]]; then echo "$k=${PATHS[$k]}"; fi
    done
  )"
  # Rewrite only on change so build scripts watching it do not rerun needlessly.
  if [[ ! -f "$PATHS_ENV" ]] || [[ "$(cat "$PATHS_ENV")" != "$new" ]]; then
    printf '%s\n' "$new" >"$PATHS_ENV"
  fi
}

# ---------------------------------------------------------------- main
mkdir -p "$CACHE"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE/.lock"
  flock 9
fi
# Leftovers of an interrupted run (safe: we hold the lock).
rm -rf "$TOOLS"/.cuda-*.tmp.*

install_rust

install_cuda 2 "ptxas 12.9" "$CUDA12_DIR" "${CUDA12_WHEELS[@]}"
((STATUS & 2)) || verify_cuda12

install_cuda 4 "cuda 13.5" "$CUDA13_DIR" "${CUDA13_WHEELS[@]}"
((STATUS & 4)) || verify_cuda13

write_paths_env

if ((STATUS != 0)); then
  echo "install.sh: NOT everything is installed (exit $STATUS; 1=rust nightly, 2=ptxas 12.9, 4=cuda 13.5, 8=prerequisite)." >&2
  if ((STATUS & 6)); then
    echo "install.sh: WARNING: ptxas is missing; PTX can be generated but not assembled/validated." >&2
  fi
fi
exit "$STATUS"
