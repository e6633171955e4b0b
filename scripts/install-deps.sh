#!/usr/bin/env bash
# Installs every Debian package sptune needs. Idempotent: when everything is
# already there it does nothing (no apt-get update). Run as root.
set -euo pipefail

PACKAGES=(
  # build
  cmake ninja-build ccache g++ pkg-config
  # LLVM / MLIR 22.1 and OpenMP
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools libomp-22-dev clang-22
  # clang's runtime builtins: kernel libraries on bf16 call __truncsfbf2 on
  # CPUs without AVX512-BF16, which libgcc before GCC 13 lacks
  libclang-rt-22-dev
  # cost model (zlib: the shipped datasets are gzipped JSONL)
  libtorch-dev zlib1g-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # library baselines
  libeigen3-dev librsb-dev
  # python side (reports, plots, dataset tools) through /usr/bin/python3
  python3-numpy python3-scipy python3-matplotlib python3-torch
  # an optimized BLAS behind Debian's libblas.so.3 (PyTorch's, NumPy's and
  # SciPy's dense products; without it they run the reference BLAS, a weak
  # baseline for examples/gnn and bench/torch-entry.py)
  libopenblas0-pthread
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
