#!/usr/bin/env bash
# README command 2: install dependencies, build, run the whole test suite
# (lit + GoogleTest). Exit status is the suite's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
start=$(date +%s)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
# A local one-node Slurm for test/Collect/slurm.test (skipped, not failed,
# where it cannot start); stopped afterwards when this script started it.
slurm_started=0
if ! bash "$root/scripts/local-slurm.sh" status >/dev/null 2>&1; then
  if bash "$root/scripts/local-slurm.sh" start; then slurm_started=1
  else echo "test.sh: no local Slurm; the Slurm backend test is unsupported"; fi
fi
rc=0
bash "$root/scripts/build.sh" check-sptune || rc=$?
[ "$slurm_started" = 1 ] && bash "$root/scripts/local-slurm.sh" stop
[ "$rc" = 0 ] || exit "$rc"
echo "test.sh: done in $(( $(date +%s) - start )) s"
