#!/usr/bin/env bash
# Reproduces the active-learning results of docs/results.md ("Active
# learning"), with sptune's own tools, on this kind of machine (2 cores):
#
#   1. replay, CPU (issue 32's protocol): the bandit as shipped in
#      docs/active-learning.md (UCB1 over exploitation and two mixes, c = 0.5,
#      discount 0.8, chosen on seeds 1-3 of split 1) and every single arm,
#      on seeds 201-210 x validation splits 3-5 that chose nothing, rounds up
#      to 10% of the shipped CPU data's measurement cost, and full-data
#      models; also Hedge (--policy hedge, docs/results.md), rewarded by
#      what each arm found and by what the model learns from it (about 90
#      minutes);
#   2. replay, SPADE: the same strategies on the shipped SPADE data, seeds
#      201-205 x splits 3-4, six rounds up to 10% (about 30 minutes);
#   3. live, CPU: from no model to 10% of the shipped CPU data's measurement
#      cost (323 s of measurement), then what sptune-autotune picks with that
#      model, with the shipped model and with the heuristic on the 14 large
#      shared matrices, side by side (about 20 minutes; run it alone).
#
#   bash cost-model/learn-experiments.sh [WORK_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${1:-$root/build/learn-runs}"
bin="$root/build/bin"
matrices="${SPTUNE_MATRICES:-$root/../shared/matrices}"
mkdir -p "$work"
export PYTHONPATH="$root/python"

zcat "$root/cost-model/data/cpu-2026-11-30.jsonl.gz" > "$work/cpu.jsonl"
zcat "$root/cost-model/data/spade-2026-11-30.jsonl.gz" > "$work/spade.jsonl"

# The chosen bandit (today's default, spelled out) and the former default,
# under the names of docs/img/issue32-cpu-replay.json.
arms="--strategies exploitation,exploitation+random@0.25,exploitation+uncertainty@0.25,exploration,random,diversity"
bandit="bandit-ucb1-mix=--strategy bandit --policy ucb1 --arms exploitation,exploitation+random@0.25,exploitation+uncertainty@0.25 --bandit-c 0.5 --discount 0.8"
former="bandit-ucb1=--strategy bandit --policy ucb1 --arms random,diversity,uncertainty,exploitation,exploration --bandit-c 1 --discount 1"
# Hedge, every arm a share of each round (chosen on seeds 1-6 x splits 1-2).
hedge="bandit-hedge=--strategy bandit --policy hedge --arms exploitation,exploration,random --hedge-rate 4 --hedge-min-share 0 --discount 1"
# Hedge rewarded by what the model learns from each arm (arms, rate and
# floor chosen on seeds 1-6 x splits 1-2).
hedgel="bandit-hedge-learned=--strategy bandit --policy hedge --hedge-reward learned --arms exploitation,exploitation+random@0.25,exploration --hedge-rate 4 --hedge-min-share 0 --discount 1"
# Hedge rewarded by a lookahead on the reward set's top-1 (same arms; rate
# and epochs chosen on seeds 1-6 x splits 1-2).
hedgea="bandit-hedge-lookahead=--strategy bandit --policy hedge --hedge-reward lookahead --lookahead-epochs 3 --arms exploitation,exploitation+random@0.25,exploration --hedge-rate 4 --hedge-min-share 0 --discount 1"
/usr/bin/python3 -m sptune.learn_experiment --build "$root/build" \
  --replay "$work/cpu.jsonl" --out "$work/cpu-replay" $arms --config "$bandit" --config "$former" --config "$hedge" --config "$hedgel" --config "$hedgea" \
  --seeds 201-210 --split-seeds 3,4,5 --full-seeds 201-203 --jobs 2 \
  --rounds-at 0.5%,1%,1.5%,2%,3%,4%,5%,6.5%,8%,10% \
  --json "$work/cpu-replay.json" --plot "$work/cpu-replay.png" \
  --title "CPU replay (shipped data), seeds 201-210 x splits 3-5"
/usr/bin/python3 -m sptune.learn_experiment --build "$root/build" --target spade \
  --replay "$work/spade.jsonl" --out "$work/spade-replay" $arms --config "$bandit" --config "$former" --config "$hedge" --config "$hedgel" --config "$hedgea" \
  --seeds 201-205 --split-seeds 3,4 --full-seeds 201,202 --jobs 2 \
  --rounds-at 1%,2%,3%,5%,7%,10% \
  --json "$work/spade-replay.json" --plot "$work/spade-replay.png" \
  --title "SPADE replay (shipped SPADE data, 5,312 simulations)"

# Live: validation = every fifth small shared matrix (by name), the bandit's
# reward set = another fifth, both measured in the shipped data; they leave
# the pool.
/usr/bin/python3 - "$matrices/MANIFEST.tsv" "$work/cpu.jsonl" "$work/live-validation.jsonl" "$work/live-reward.jsonl" <<'PY'
import json, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()[1:]]
small = sorted(r[0].removesuffix(".mtx") for r in rows if int(r[9]) < 50000)
for path, chosen in ((sys.argv[3], set(small[::5])), (sys.argv[4], set(small[2::5]))):
    with open(path, "w") as out:
        for line in open(sys.argv[2]):
            if json.loads(line)["matrix"]["id"] in chosen:
                out.write(line)
PY
"$bin/sptune-learn" "$matrices" @"$root/bench/matrices/synthetic-train.txt" --max-nnz 49999 \
  --kernel spmm,sddmm,spmv --validation "$work/live-validation.jsonl" \
  --reward-validation "$work/live-reward.jsonl" \
  --rounds-at 40,80,120,160,240,323 --strategy bandit --policy ucb1 --candidates 60 \
  --min-seconds 0.05 --min-reps 3 --timeout 60 \
  --state "$work/live" --out "$work/live/learned.pt"
large=$(awk -F'\t' 'NR>1 && $10>=50000 {print "'"$matrices"'/"$1}' "$matrices/MANIFEST.tsv")
/usr/bin/python3 -m sptune.autotune_eval --build "$root/build" --mode development \
  --model "$work/live/learned.pt" --compare shipped="$root/cost-model/models/cpu-default.pt" \
  --kernel spmm,sddmm,spmv --no-torch --no-libraries --no-sddmm-b-transposed \
  --min-seconds 0.1 --json "$work/live-eval.json" $large
