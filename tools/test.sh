#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs the tools it needs (tools/install.sh),
# then formatting, the stable test suite (host tests, doctests, the PTX conformance test), Miri over
# the core crate, and the loom model checks. Under CI=true a missing tool is a failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
NIGHTLY="$(tr -d '[:space:]' < tools/nightly-toolchain)"

step() { printf '\n==> %s\n' "$*"; }
elapsed() { printf '    (%ss)\n' "$((SECONDS - $1))"; }

step "tools (tools/install.sh)"
if ! bash tools/install.sh; then
  if [ "${CI:-}" = "true" ]; then
    echo "tools/install.sh failed and CI=true: a missing tool is a failure" >&2
    exit 1
  fi
  echo "WARNING: some tools are missing; the tests that need them say SKIPPED" >&2
fi
have_nightly=false
if rustup run "$NIGHTLY" rustc -V >/dev/null 2>&1; then have_nightly=true; fi

step "formatting (cargo fmt --check)"
cargo fmt --all --check
cargo fmt --manifest-path examples/Cargo.toml --all --check

step "stable: cargo test --workspace (unit, integration, doc and PTX conformance tests)"
t=$SECONDS
cargo test --workspace --no-fail-fast
elapsed $t

step "Miri: cargo +$NIGHTLY miri test -p scoped-atomics"
if $have_nightly; then
  t=$SECONDS
  MIRIFLAGS="${MIRIFLAGS:--Zmiri-strict-provenance}" cargo "+$NIGHTLY" miri test -p scoped-atomics
  elapsed $t
else
  echo "SKIPPED Miri: toolchain $NIGHTLY is not installed (run bash tools/install.sh)" >&2
  [ "${CI:-}" = "true" ] && exit 1
fi

step "loom: RUSTFLAGS=\"--cfg loom\" cargo test -p loom-tests --release"
t=$SECONDS
RUSTFLAGS="--cfg loom" cargo test -p loom-tests --release --target-dir target/loom
elapsed $t

# The user's view: examples/ is a project outside this workspace (its own workspace and lock
# file, path dependencies on atomics/ and host/): build.rs builds its kernel crate to PTX with
# PtxBuilder, its tests run the kernels on host threads and under loom, its binary launches them
# on a GPU (a clean skip without a driver). Then the README quickstart, in a directory outside
# the repository. They share the workspace's target directories (target/, and target/loom for
# --cfg loom), so the dependencies built above are reused.
step "examples/: cargo test, the loom tests, cargo run (GPU or skip)"
t=$SECONDS
examples_target="$PWD/target"
CARGO_TARGET_DIR="$examples_target" cargo test --manifest-path examples/Cargo.toml
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR="$examples_target/loom" \
  cargo test --manifest-path examples/Cargo.toml --release --test loom
CARGO_TARGET_DIR="$examples_target" cargo run --manifest-path examples/Cargo.toml
elapsed $t

step "quickstart (README): cargo host new <dir outside the repository>; cd <dir>; cargo test"
t=$SECONDS
quickstart="$(mktemp -d)/quickstart"
cargo host new "$quickstart"
(cd "$quickstart" && CARGO_TARGET_DIR="$examples_target" cargo test)
rm -rf "$(dirname "$quickstart")"
elapsed $t

step "packaging: cargo package of the published crates (scoped-atomics-macros, scoped-atomics, gpu-kernels, scoped-atomics-build, ptx-sim, ptx-litmus, scoped-atomics-host)"
t=$SECONDS
# `cargo package` of several crates verifies each against the others through a temporary local
# registry, and treats those crates as registry crates: cargo unpacks them once per version under
# $CARGO_HOME/registry/src/-<hash>/ and does not rebuild a registry crate whose version it has
# built before. So an earlier run's sources of the same version 0.1.0 would be verified instead
# of today's. Both are cleared: the unpacked copies (only in the `-<hash>` directories, which are
# local registries) and the verification build, kept in its own target directory for that.
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/{scoped-atomics-macros,scoped-atomics,gpu-kernels,scoped-atomics-build,ptx-sim,ptx-litmus,scoped-atomics-host}-[0-9]* target/package-check
CARGO_TARGET_DIR=target/package-check \
cargo package -p scoped-atomics-macros -p scoped-atomics -p gpu-kernels -p scoped-atomics-build -p ptx-sim -p ptx-litmus \
  -p scoped-atomics-host --allow-dirty
elapsed $t
