#!/usr/bin/env bash
# Issue 31, item 5: SPADE transfer with a row-order knob shared by the CPU
# source and SPADE (docs/results.md, "A row order shared by the CPU and
# SPADE"). On a quiet 2-core machine, after bash scripts/build.sh:
#
#   1. CPU data of the 160 generated matrices of SPADE's training pool
#      (SpMM and SDDMM, N = K = 64, f32): the heuristic and 2 sampled
#      schedules each (960 measurements, about 12 minutes), then every one
#      of those that can visit its rows in another order measured again
#      with `reorder = rcm` (cost-model/row-order-twins.py);
#   2. two CPU bases, the CPU recipe (60 epochs, 15% held out, seed 1):
#      `cpu92` on the 92 matrices of cpu-2026-11-30 (the base of the
#      curve in docs/results.md), `pool` on those plus step 1's first
#      records (the control for more data), and `rowfeat` on those plus
#      the twins, built with `--shared-knobs row-order` (the CPU's reorder =
#      rcm and SPADE's reorder set one common feature, rows_reordered);
#   3. COGNATE's curve from each base (sptune.transfer_curve: k = 0 and 5,
#      3 seeds, fine-tuned with everything training, against the all-data
#      model from scratch), on the stored SPADE data.
#
#   bash cost-model/reproduce-row-order-transfer.sh [WORK_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${1:-$root/build/row-order-transfer}"
bin="$root/build/bin"
data="$root/cost-model/data"
mkdir -p "$work"
export PYTHONPATH="$root/python"

"$bin/sptune-collect" @"$root/bench/matrices/spade-train.txt" \
  --kernel spmm,sddmm --free 64 --samples 2 --seed 23 --min-seconds 0.05 \
  --min-reps 3 --baselines heuristic --timeout 60 --out "$work/cpu-pool.jsonl"
/usr/bin/python3 "$root/cost-model/row-order-twins.py" "$work/cpu-pool.jsonl" \
  "$work/twins-requests.jsonl"
"$bin/sptune-collect" --run-requests "$work/twins-requests.jsonl" --task 0/1 \
  --out "$work/cpu-pool-rcm.jsonl"

zcat "$data/cpu-2026-11-30.jsonl.gz" > "$work/cpu92.jsonl"
[ -f "$work/cpu92.pt" ] || "$bin/sptune-train" --data "$work/cpu92.jsonl" \
  --out "$work/cpu92.pt" --epochs 60 --holdout 0.15 --seed 1 --quiet
# The control for more CPU data: the same records without twins or feature.
[ -f "$work/pool.pt" ] || "$bin/sptune-train" --data "$work/cpu92.jsonl" \
  --data "$work/cpu-pool.jsonl" --out "$work/pool.pt" --epochs 60 \
  --holdout 0.15 --seed 1 --quiet
[ -f "$work/rowfeat.pt" ] || "$bin/sptune-train" --data "$work/cpu92.jsonl" \
  --data "$work/cpu-pool.jsonl" --data "$work/cpu-pool-rcm.jsonl" \
  --shared-knobs row-order --out "$work/rowfeat.pt" --epochs 60 \
  --holdout 0.15 --seed 1 --quiet

zcat "$data/spade-2026-12-01-train.jsonl.gz" > "$work/spade-train.jsonl"
zcat "$data/spade-2026-12-01-heldout.jsonl.gz" > "$work/spade-eval.jsonl"
/usr/bin/python3 -m sptune.transfer_curve --build "$root/build" --target spade \
  --base cpu92="$work/cpu92.pt" --base rowfeat="$work/rowfeat.pt" --base pool="$work/pool.pt" \
  --train "$work/spade-train.jsonl" --eval "$work/spade-eval.jsonl" \
  --k 0,5 --seeds 3 --epochs 40 --min-steps 200 --jobs 2 \
  --variants finetune-none@cpu92,finetune-none@rowfeat,finetune-none@pool,finetune@cpu92,finetune@rowfeat,all \
  --gaps finetune-none@cpu92@5,finetune-none@rowfeat@5 \
  --out "$work/transfer" --json "$work/transfer.json" --table "$work/transfer.md" \
  --plot "$work/transfer.png"
