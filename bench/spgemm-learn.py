#!/usr/bin/python3
"""SpGEMM's (or MTTKRP's, or the batched SpMM's) cost model learned from no data (issue 33), in replay and live.

Takes a dataset in which every schedule of the CPU's SpGEMM space and the
heuristic baseline were measured on each matrix (`sptune-collect --kernel
spgemm --samples 8 --baselines heuristic`), holds out a fixed share of its
matrices as validation problems and another as the bandit's reward
problems (a hash of the matrix id, the same split for replay and live), and runs `sptune-learn --kernel spgemm` without a
base model:

- replay: the remaining matrices' measurements are the oracle, one run
  per seed;
- live (`--live`): the remaining matrices are measured anew by the
  collector's workers, to the same cumulative budgets in seconds.

Each round's model is judged on the validation problems: the measured time
of its favourite schedule against the best measured one (the fraction of
the best, 1 = always the fastest; the geometric mean over the problems of
best / pick), next to the heuristic's fraction on the same problems.
`--kernel mttkrp` and `--kernel batched_spmm` do the same for MTTKRP and
the batched SpMM on a dataset of 3-D tensors (`sptune-collect --kernel
mttkrp --samples 8 --baselines heuristic` on gen3: specs or .tns files:
every schedule of its space).
Writes the figures (JSON) and the learning curves (PNG). Runs resume (the
state directories are sptune-learn's own).

    /usr/bin/python3 bench/spgemm-learn.py --build build \\
        --dataset runs/spgemm-learn/all.jsonl --work runs/spgemm-learn/runs \\
        --seeds 1-3 --rounds-at 30,60,120,300,600 --live \\
        --json docs/img/issue33-spgemm-learn.json \\
        --plot docs/img/issue33-spgemm-learn.png
"""

import argparse
import hashlib
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
from sptune import dataset  # noqa: E402


def parse_seeds(text):
    if "-" in text:
        a, b = text.split("-")
        return list(range(int(a), int(b) + 1))
    return [int(s) for s in text.split(",") if s]


def part_of(matrix_id, validation, reward):
    """A fixed, seed-free split by the matrix id's hash."""
    h = int(hashlib.sha1(matrix_id.encode()).hexdigest()[:8], 16) % 1000
    if h < validation * 1000:
        return "validation"
    return "reward" if h < (validation + reward) * 1000 else "train"


def split(records, validation, reward, work, kernel):
    """Writes train.jsonl, validation.jsonl (the reported problems) and
    reward.jsonl (the bandit's reward problems, so that it is not steered
    by the figures it is judged on); returns their paths and the training
    matrices' sources (for live measurement)."""
    names = ("train", "validation", "reward")
    paths = {name: os.path.join(work, name + ".jsonl") for name in names}
    files = {name: open(paths[name], "w") for name in names}
    sources = set()
    for r in records:
        if r.get("kernel") != kernel:
            continue
        part = part_of(r["matrix"]["id"], validation, reward)
        files[part].write(json.dumps(r) + "\n")
        if part == "train":
            sources.add(r["matrix"].get("source") or r["matrix"]["id"])
    for f in files.values():
        f.close()
    for name in names:
        if os.path.getsize(paths[name]) == 0:
            sys.exit("spgemm-learn: the split left no %s matrices (the dataset "
                     "needs more %s problems)" % (name, kernel))
    return paths, sorted(sources)


def heuristic_fraction(records):
    """Geometric mean over the problems of best / heuristic, the best over
    the sampled schedules and the heuristic (sptune-learn's validation
    problems hold the heuristic's schedule as a candidate too, so the
    model's and the heuristic's figures share the denominator); with the
    problem count."""
    ratios = []
    for _, group in dataset.problems(records).items():
        samples = [dataset.ok_time(r) for r in group if r["role"] == "sample"]
        heuristic = [dataset.ok_time(r) for r in group
                     if r["role"] == "baseline:heuristic"]
        samples = [t for t in samples if t]
        if not samples or not heuristic or not heuristic[0]:
            continue
        ratios.append(min(samples + [heuristic[0]]) / heuristic[0])
    return dataset.geomean(ratios), len(ratios)


def run(cmd, log):
    print("+", " ".join(cmd), flush=True)
    with open(log, "a") as f:
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
    if rc != 0:
        sys.exit("failed (%d): see %s" % (rc, log))


def rounds_of(state):
    path = os.path.join(state, "rounds.jsonl")
    out = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    v = r["validation"]
                    if not v.get("top1_speedup") or not v.get("oracle_speedup"):
                        sys.exit("%s: round %s has no validation speedups (a "
                                 "validation problem without a reference "
                                 "time?)" % (path, r.get("round")))
                    out.append({"round": r["round"],
                                "cost_s": r["cumulative_cost_s"],
                                "measured": r["total_measured"],
                                "arm": r.get("arm") or r.get("strategy"),
                                "top1": v["top1_speedup"],
                                "oracle": v["oracle_speedup"],
                                "fraction_of_best":
                                    v["top1_speedup"] / v["oracle_speedup"],
                                "tau": v.get("kendall_tau")})
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--kernel", choices=["spgemm", "mttkrp", "batched_spmm"],
                    default="spgemm")
    ap.add_argument("--work", required=True)
    ap.add_argument("--validation-fraction", type=float, default=0.3)
    ap.add_argument("--reward-fraction", type=float, default=0.15)
    ap.add_argument("--seeds", default="1-3")
    ap.add_argument("--rounds-at", default="30,60,120,300,600")
    ap.add_argument("--live", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--plot")
    a = ap.parse_args(argv)
    os.makedirs(a.work, exist_ok=True)
    learn = os.path.join(a.build, "bin", "sptune-learn")
    records, bad = dataset.load([a.dataset])
    paths, sources = split(records, a.validation_fraction,
                           a.reward_fraction, a.work, a.kernel)
    val_records, _ = dataset.load([paths["validation"]])
    heuristic, problems = heuristic_fraction(val_records)
    if not problems:
        sys.exit("spgemm-learn: no validation problem has the heuristic's "
                 "time and the samples' (collect with --baselines heuristic)")
    print("validation: %d problems; the heuristic's fraction of the best "
          "%.3f" % (problems, heuristic))
    # --kernel, --free, --bits: live, what is measured (the dataset's N or
    # rank and element width, which the validation problems were measured
    # at); in replay the split above already kept that kernel's records.
    # A model learns one element width (sptune-learn refuses two), in replay
    # too.
    kept = [r for r in records if r.get("kernel") == a.kernel]
    frees = {r.get("free") for r in kept}
    bits = {r.get("bits", 32) for r in kept}
    if len(bits) > 1 or (a.live and (len(frees) != 1 or None in frees)):
        sys.exit("spgemm-learn: the dataset's %s records have free sizes %s "
                 "and element widths %s; a run learns one element width (and a "
                 "live run one free size)"
                 % (a.kernel, sorted(map(str, frees)), sorted(map(str, bits))))
    common = ["--kernel", a.kernel, "--validation", paths["validation"],
              "--reward-validation", paths["reward"],
              "--rounds-at", a.rounds_at]
    live_shape = (["--free", str(next(iter(frees))), "--bits", str(next(iter(bits)))]
                  if a.live else [])
    runs = {}
    for seed in parse_seeds(a.seeds):
        state = os.path.join(a.work, "replay-%d" % seed)
        run([learn, "--replay", paths["train"], "--seed", str(seed),
             "--state", state, "--out", state + ".pt"] + common,
            state + ".log")
        runs["replay seed %d" % seed] = rounds_of(state)
    if a.live:
        state = os.path.join(a.work, "live")
        listing = os.path.join(a.work, "live-matrices.txt")
        with open(listing, "w") as f:
            f.write("\n".join(sources) + "\n")
        run([learn, "@" + listing, "--workers", "1", "--state", state,
             "--out", state + ".pt"] + common + live_shape, state + ".log")
        runs["live"] = rounds_of(state)
    for name, rounds in runs.items():
        print("%s: %s" % (name, ", ".join(
            "%.0f s %.3f" % (r["cost_s"], r["fraction_of_best"])
            for r in rounds)))
    machine = next((r.get("machine") for r in records if r.get("machine")), {})
    summary = {
        "bench": "spgemm-learn", "machine": machine,
        "what": "sptune-learn --kernel %s from no data: validation "
                "fraction of the best measured schedule per round" % a.kernel,
        "kernel": a.kernel,
        "dataset": a.dataset, "unparsed_lines": bad,
        "validation_matrices": problems,
        "heuristic_fraction_of_best": heuristic,
        "rounds_at": a.rounds_at, "runs": runs}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        for name, rounds in runs.items():
            ax.plot([r["cost_s"] for r in rounds],
                    [r["fraction_of_best"] for r in rounds], marker="o",
                    label=name, linestyle="--" if name == "live" else "-")
        ax.axhline(heuristic, color="grey", label="heuristic")
        if a.kernel == "spgemm":
            ax.axhline(0.9, color="red", linestyle=":", label="bar 0.9")
        ax.set_xscale("log")
        ax.set_xlabel("cumulative measurement cost (s)")
        ax.set_ylabel("validation: fraction of the best schedule")
        ax.set_title("%s model learned from no data (%d validation "
                     "problems)" % ({"spgemm": "SpGEMM", "mttkrp": "MTTKRP",
                                     "batched_spmm": "batched SpMM"}[a.kernel],
                                    problems))
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(a.plot, dpi=110)
    if not all(math.isfinite(r["fraction_of_best"])
               for rounds in runs.values() for r in rounds):
        sys.exit("a round has no validation figure")


if __name__ == "__main__":
    main()
