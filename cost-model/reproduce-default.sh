#!/usr/bin/env bash
# Reproduces cost-model/models/cpu-default.pt (the model sptune ships) and its
# honest evaluation, with sptune's own tools, on this kind of machine
# (2 cores; about 95 minutes of measurement, a minute of training):
#
#   1. collect: the MLIR default and the heuristic + 20 sampled schedules per
#      matrix for SpMM, SDDMM and SpMV (N = K = 64, f32) on ../shared/matrices
#      and the synthetic matrices of bench/matrices/synthetic-train.txt (10
#      sampled schedules on the larger ones of synthetic-train-large.txt),
#      then the heuristic's neighbourhood (12 for SDDMM and SpMV, 6 for SpMM);
#   2. evaluate honestly: train on everything except the shared matrices with
#      >= 50,000 nonzeros, report held-out metrics on them, and measure what
#      sptune-autotune picks with that model on them (autotune_eval);
#   3. ship: train on all the data.
#
#   bash cost-model/reproduce-default.sh [WORK_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${1:-$root/build/cost-model-runs}"
bin="$root/build/bin"
matrices="${SPTUNE_MATRICES:-$root/../shared/matrices}"
mkdir -p "$work"
export PYTHONPATH="$root/python"

"$bin/sptune-collect" "$matrices" @"$root/bench/matrices/synthetic-train.txt" \
  --kernel spmm,sddmm,spmv --free 64 --samples 20 --min-seconds 0.05 --min-reps 3 \
  --baselines mlir-default,heuristic --timeout 60 --out "$work/cpu-train.jsonl"
# Larger generated matrices (131,072 to 1,048,576 entries, the sizes of the
# held-out graphs), 10 sampled schedules each.
"$bin/sptune-collect" @"$root/bench/matrices/synthetic-train-large.txt" \
  --kernel spmm,sddmm,spmv --free 64 --samples 10 --min-seconds 0.05 --min-reps 3 \
  --baselines mlir-default,heuristic --timeout 60 --out "$work/cpu-train.jsonl"
# The heuristic's neighbourhood (the heuristic and its nearest knob settings:
# lanes, threads, chunking, layouts, widths), which neither the uniform sample
# nor the model's favourites are sure to hold.
all=("$matrices" @"$root/bench/matrices/synthetic-train.txt"
     @"$root/bench/matrices/synthetic-train-large.txt")
"$bin/sptune-collect" "${all[@]}" \
  --kernel sddmm,spmv --free 64 --samples 0 --no-baselines --neighbours 12 \
  --min-seconds 0.05 --min-reps 3 --timeout 60 --out "$work/cpu-train.jsonl"
"$bin/sptune-collect" "${all[@]}" \
  --kernel spmm --free 64 --samples 0 --no-baselines --neighbours 6 \
  --min-seconds 0.05 --min-reps 3 --timeout 60 --out "$work/cpu-train.jsonl"

# Held-out evaluation: the large shared matrices never seen in training.
/usr/bin/python3 -m sptune.filter_dataset "$work/cpu-train.jsonl" \
  "$work/train-small.jsonl" --drop-min-nnz 50000 --only-files
/usr/bin/python3 -m sptune.filter_dataset "$work/cpu-train.jsonl" \
  "$work/test-large.jsonl" --keep-min-nnz 50000 --only-files
"$bin/sptune-train" --data "$work/train-small.jsonl" --out "$work/heldout.pt" \
  --epochs 60 --holdout 0 --seed 1 --quiet
"$bin/sptune-train" --data "$work/test-large.jsonl" --evaluate "$work/heldout.pt" \
  --metrics "$work/heldout-metrics.json" --quiet
large=$(/usr/bin/python3 -c "import json,sys; print(' '.join(sorted({json.loads(l)['matrix']['source'] for l in open(sys.argv[1])})))" "$work/test-large.jsonl")
/usr/bin/python3 -m sptune.autotune_eval --build "$root/build" --mode development \
  --kernel spmm,sddmm,spmv \
  --model "$work/heldout.pt" --dataset "$work/cpu-train.jsonl" \
  --json "$work/autotune-heldout.json" --plot "$work/autotune-heldout.png" $large

# The shipped model: all the data.
"$bin/sptune-train" --data "$work/cpu-train.jsonl" \
  --out "$root/cost-model/models/cpu-default.pt" --epochs 60 --holdout 0.15 --seed 1
