#!/usr/bin/env bash
# README command 1: install dependencies, build, and run sptune's main job on
# the bundled examples: extract the sparse kernels of examples/*.mlir (JSON
# report), autotune them with the shipped cost model for a generated
# power-law matrix, lower the tuned IR, and measure the chosen schedules
# against the MLIR sparsifier's default, Eigen and autotuned librsb.
#
# SPTUNE_SKIP_SETUP=1 skips the set-up (packages and build) and runs the job
# on the tools already built in $SPTUNE_BUILD_DIR (default build/); the
# docs' command test (test/Docs/doc-commands.test) runs it that way.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SPTUNE_BUILD_DIR:-$root/build}"
matrix="${SPTUNE_EXAMPLE_MATRIX:-gen:rmat:rows=16384,cols=16384,nnz=262144,a=0.57,b=0.19,c=0.19,seed=7}"
start=$(date +%s)
if [ "${SPTUNE_SKIP_SETUP:-0}" = 1 ]; then
  for tool in sptune-opt sptune-measure sptune-matrix; do
    if [ ! -x "$build/bin/$tool" ]; then
      echo "run-example.sh: SPTUNE_SKIP_SETUP=1 but $build/bin/$tool is not built" >&2
      exit 1
    fi
  done
else
  bash "$root/scripts/install-deps.sh"
  bash "$root/scripts/build.sh" sptune-opt sptune-measure sptune-matrix
fi
echo "== matrix"
"$build/bin/sptune-matrix" stats "$matrix"
for f in "$root"/examples/*.mlir; do
  echo "== kernels of $(basename "$f")"
  "$build/bin/sptune-opt" "$f" --sptune-extract-kernels="report=-" -o /dev/null
done
PYTHONPATH="$root/python" /usr/bin/python3 -m sptune.tune_example \
  --build "$build" --matrix "$matrix" "$root"/examples/*.mlir
echo "run-example.sh: done in $(( $(date +%s) - start )) s"
