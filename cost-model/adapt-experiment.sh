#!/usr/bin/env bash
# Adapting the shipped CPU model to this machine by hand (issue 31, item 3,
# before `sptune-learn adapt` exists): measure the generated training
# matrices here (never the 14 large shared matrices the evaluation uses),
# fine-tune the shipped model on them, and measure what each model picks on
# the 14 large shared matrices side by side in one run:
#
#   1. collect (about 10 minutes on 2 cores): for SpMM, SDDMM and SpMV at
#      N = K = 64, the MLIR default, the heuristic, a few sampled schedules
#      and the shipped model's top 3 on bench/matrices/synthetic-train.txt
#      (4 samples) and synthetic-train-large.txt (2 samples);
#   2. fine-tune the shipped model's main network on them (COGNATE's
#      recipe, CPU -> this CPU: encoders frozen, 40 epochs);
#   3. autotune_eval: release (the shipped model with its guard), the
#      shipped model without its guard, and the adapted one.
#
#   bash cost-model/adapt-experiment.sh [WORK_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${1:-$root/build/adapt-runs}"
bin="$root/build/bin"
matrices="${SPTUNE_MATRICES:-$root/../shared/matrices}"
export PYTHONPATH="$root/python"
mkdir -p "$work"

# The shipped model without its guard (the same main network).
"$bin/sptune-guard" --remove --model "$root/cost-model/models/cpu-default.pt" \
  --out "$work/unguarded.pt"

for list in synthetic-train:4 synthetic-train-large:2; do
  "$bin/sptune-collect" @"$root/bench/matrices/${list%%:*}.txt" \
    --kernel spmm,sddmm,spmv --free 64 --samples "${list##*:}" \
    --model "$work/unguarded.pt" --model-top-k 3 \
    --baselines mlir-default,heuristic --min-seconds 0.05 --min-reps 3 \
    --timeout 60 --out "$work/here.jsonl"
done
"$bin/sptune-train" --finetune-from "$work/unguarded.pt" --data "$work/here.jsonl" \
  --out "$work/adapted.pt" --epochs 40 --holdout 0 --seed 1 --quiet

large=$(awk -F'\t' -v d="$matrices" 'NR > 1 && $10 >= 50000 {print d "/" $1}' \
  "$matrices/MANIFEST.tsv")
/usr/bin/python3 -m sptune.autotune_eval --build "$root/build" --mode release \
  --kernel spmm,sddmm,spmv --free 64 --rounds 3 --no-libraries --no-torch \
  --compare unguarded="$work/unguarded.pt" --compare adapted="$work/adapted.pt" \
  --json "$work/eval.json" $large
