#!/usr/bin/env bash
# `sptune-learn adapt` measured (issue 31, item 3): adapt the shipped CPU
# model to this machine within a measurement budget, then measure what it
# picks on the 14 large shared matrices next to the shipped model (with and
# without its guard) and the heuristic, side by side in one run:
#
#   1. the bandit's problems: this machine's measurements of the generated
#      training matrices (cost-model/data/cpu-epyc-2026-12-03.jsonl.gz, a
#      2-core AMD EPYC VM), split by matrix into validation problems
#      (reported) and reward problems (reward the bandit);
#   2. `sptune-learn adapt` over the small shared matrices (< 50,000
#      stored entries; never in the evaluation), SpMM, SDDMM and SpMV at
#      N = K = 64, with BUDGET seconds of measurement (300), into a cache
#      of its own (WORK_DIR/cache);
#   3. autotune_eval: release (the shipped model with its guard), the
#      shipped model without its guard, and the adapted one, 3 rounds.
#
#   bash cost-model/adapt-experiment.sh [WORK_DIR] [BUDGET]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${1:-$root/build/adapt-runs}"
budget="${2:-300}"
build="${SPTUNE_BUILD:-$root/build}"
bin="$build/bin"
matrices="${SPTUNE_MATRICES:-$root/../shared/matrices}"
export PYTHONPATH="$root/python"
mkdir -p "$work"
work="$(cd "$work" && pwd)"

"$bin/sptune-guard" --remove --model "$root/cost-model/models/cpu-default.pt" \
  --out "$work/unguarded.pt"

# 1. Validation and reward problems, by matrix (every other matrix id).
/usr/bin/python3 - "$root/cost-model/data/cpu-epyc-2026-12-03.jsonl.gz" \
  "$work/validation.jsonl" "$work/reward.jsonl" <<'PY'
import gzip, json, sys
ids = []
rows = [json.loads(l) for l in gzip.open(sys.argv[1], "rt") if l.strip()]
for r in rows:
    if r["matrix"]["id"] not in ids:
        ids.append(r["matrix"]["id"])
half = set(ids[0::2])
with open(sys.argv[2], "w") as val, open(sys.argv[3], "w") as rew:
    for r in rows:
        (val if r["matrix"]["id"] in half else rew).write(json.dumps(r) + "\n")
PY

# 2. Adapt.
small=$(awk -F'\t' -v d="$matrices" 'NR > 1 && $10 < 50000 {print d "/" $1}' \
  "$matrices/MANIFEST.tsv")
XDG_CACHE_HOME="$work/cache" "$bin/sptune-learn" adapt $small \
  --validation "$work/validation.jsonl" --reward-validation "$work/reward.jsonl" \
  --budget-seconds "$budget" --free 64 --quiet 2>&1 | tee "$work/adapt.log"
adapted=$(ls "$work"/cache/sptune/models/cpu-*.pt)

# 3. What each model picks on the large matrices.
large=$(awk -F'\t' -v d="$matrices" 'NR > 1 && $10 >= 50000 {print d "/" $1}' \
  "$matrices/MANIFEST.tsv")
/usr/bin/python3 -m sptune.autotune_eval --build "$build" --mode release \
  --kernel spmm,sddmm,spmv --free 64 --rounds 3 --no-libraries --no-torch \
  --compare unguarded="$work/unguarded.pt" --compare adapted="$adapted" \
  --json "$work/eval.json" $large
