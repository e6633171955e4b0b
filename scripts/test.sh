#!/usr/bin/env bash
# README command 2: install dependencies, build, run the whole test suite
# (lit + GoogleTest). Exit status is the suite's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
start=$(date +%s)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
bash "$root/scripts/build.sh" check-sptune
echo "test.sh: done in $(( $(date +%s) - start )) s"
