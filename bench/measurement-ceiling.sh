#!/usr/bin/env bash
# The measurement ceiling: on the shared SuiteSparse matrices with at least
# 50,000 nonzeros, measure the baselines (MLIR default, sptune's heuristic,
# Eigen, autotuned librsb) and SAMPLES random schedules per matrix for SpMM and SDDMM, then
# report the best sampled schedule's speedups, compile time per schedule and
# measurements per minute (JSON + table + plot).
#
# BASELINES replaces the list of baselines, e.g. to add the hand-written
# kernels and PyTorch's sparse CSR ops:
# BASELINES=mlir-default,heuristic,eigen,rsb,reference,torch. The report's
# table does not show them (their records are in ceiling.jsonl, roles
# baseline:reference and baseline:torch), but they count in its statuses and
# measurements per minute: torch's SDDMM takes seconds a call where it runs
# and is an error where its dense product does not fit (docs/targets.md).
#
#   bash bench/measurement-ceiling.sh [OUT_DIR]      (SAMPLES=40 by default)
#
# Resumable: run it again after an interruption.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/build/bench/ceiling}"
matrices="${SPTUNE_MATRICES:-$root/../shared/matrices}"
mkdir -p "$out"
"$root/build/bin/sptune-collect" "$matrices" --min-nnz 50000 \
  --kernel spmm,sddmm --free 64 \
  --baselines "${BASELINES:-mlir-default,heuristic,eigen,rsb}" \
  --samples "${SAMPLES:-40}" \
  --min-seconds "${MIN_SECONDS:-0.2}" --out "$out/ceiling.jsonl"
PYTHONPATH="$root/python" /usr/bin/python3 -m sptune.ceiling_report \
  "$out/ceiling.jsonl" --min-nnz 50000 --json "$out/ceiling.json" \
  --plot "$out/ceiling.png"
