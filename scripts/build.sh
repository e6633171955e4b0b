#!/usr/bin/env bash
# Configures (once) and builds sptune into build/. Extra arguments go to ninja.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SPTUNE_BUILD_DIR:-$root/build}"
export CCACHE_DIR="${CCACHE_DIR:-$root/.cache/ccache}"

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
ninja -C "$build" "$@"
