"""Recomputes each problem's top-1 and top-5 speedup over the default and its
oracle from `sptune-train --evaluate --scores` lines, and compares them with
the same run's --metrics (per_group): the scores file must be what the
metrics were computed from. Prints one line per problem and "consistent"."""
import json
import math
import sys

scores_path, metrics_path = sys.argv[1], sys.argv[2]
per_group = {g["key"]: g for g in json.load(open(metrics_path))["per_group"]}
lines = [json.loads(l) for l in open(scores_path)]
if len(lines) != len(per_group):
    sys.exit(f"{len(lines)} score lines for {len(per_group)} evaluated problems")
for line in lines:
    g = per_group[line["key"]]
    scores, times, default = line["scores"], line["times"], line["default_time"]
    if len(line["schedules"]) != len(times):
        sys.exit(f"{line['key']}: {len(line['schedules'])} schedules, {len(times)} times")
    if len(scores) != len(times) or len(times) != g["samples"]:
        sys.exit(f"{line['key']}: {len(scores)} scores, {len(times)} times, "
                 f"{g['samples']} samples")
    order = sorted(range(len(scores)), key=lambda n: -scores[n])
    top1 = default / times[order[0]]
    top5 = default / min(times[n] for n in order[:5])
    oracle = default / min(times)
    for name, mine in (("top1_speedup", top1), ("top5_speedup", top5),
                       ("oracle_speedup", oracle)):
        if not math.isclose(mine, g[name], rel_tol=1e-9):
            sys.exit(f"{line['key']}: {name} {mine} from the scores, {g[name]} in the metrics")
    print(f"{line['key']}: top-1 {top1:.3f}x oracle {oracle:.3f}x")
print("consistent")
