#!/usr/bin/env bash
# README command 1: install dependencies, build, and run sptune on the bundled
# examples (examples/*.mlir): extract the sparse kernels and print the report.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SPTUNE_BUILD_DIR:-$root/build}"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh" sptune-opt
for f in "$root"/examples/*.mlir; do
  echo "== $(basename "$f")"
  "$build/bin/sptune-opt" "$f" --sptune-extract-kernels="report=-" -o /dev/null
done
