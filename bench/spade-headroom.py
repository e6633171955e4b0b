#!/usr/bin/env python3
"""SPADE headroom before and after the simulator's calibration (issue 17).

Headroom of a problem (matrix, kernel) = cycles of SPADE's default schedule /
cycles of the best schedule of the space; also the median schedule of the
space / default (is the default strong or weak?). "After" is read from a
collected dataset that holds the whole space per problem (sptune-collect
--target spade --samples 252); "before" sweeps the same matrices on the
pre-calibration machine (4 MiB LLC, 256 KiB private caches) with
`spade-sim --sweep`, one JSON per problem under --work (rerunning resumes).
Writes a JSON summary and a CDF plot (per kernel, before vs after).

  PYTHONPATH=python /usr/bin/python3 bench/spade-headroom.py \
      --dataset eval.jsonl --spade-sim build/bin/spade-sim --work runs/headroom \
      --jobs 2 --json docs/img/issue17-headroom.json --plot docs/img/issue17-headroom.png
"""

import argparse
import collections
import concurrent.futures
import json
import math
import os
import statistics
import subprocess
import sys
import time

BEFORE = ["--machine=llc_bytes=4194304", "--machine=private_bytes=262144"]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def after_from_dataset(path):
    """problem -> {default, best, median, source} from full-space records."""
    groups = collections.defaultdict(dict)
    sources = {}
    for line in open(path):
        if not line.strip():
            continue
        r = json.loads(line)
        if r.get("target") != "spade" or r.get("status") != "ok":
            continue
        key = (r["matrix"]["id"], r["kernel"])
        sources[key] = (r["matrix"]["source"], r["matrix"]["nnz"])
        groups[key][r["schedule"]] = r["cycles"]
        if r["role"] == "baseline:heuristic":
            groups[key]["__default__"] = r["cycles"]
    out = {}
    for key, g in groups.items():
        if "__default__" not in g:
            continue
        default = g.pop("__default__")
        cycles = list(g.values())
        out[key] = {"default": default, "best": min(cycles + [default]),
                    "median": statistics.median(cycles), "schedules": len(cycles),
                    "source": sources[key][0], "nnz": sources[key][1]}
    return out


def sweep_before(args, key, source):
    name = "%s.%s.json" % (key[0].replace("/", "_").replace(":", "_"), key[1])
    path = os.path.join(args.work, name)
    if os.path.exists(path):
        return json.load(open(path))
    cmd = [args.spade_sim, source, "--sweep", "--json", "--kernel=" + key[1],
           "--free=64"] + BEFORE
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), p.stderr.strip()[-400:]))
    d = json.loads(p.stdout)
    cycles = [r["cycles"] for r in d["results"]]
    res = {"default": d["default"]["cycles"], "best": d["best"]["cycles"],
           "median": statistics.median(cycles), "schedules": len(cycles)}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(res, f)
    os.replace(tmp, path)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--spade-sim", default="build/bin/spade-sim")
    ap.add_argument("--work", required=True)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--max-nnz", type=int, default=0,
                    help="sweep 'before' only for matrices up to this many entries")
    ap.add_argument("--json")
    ap.add_argument("--plot")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    after = after_from_dataset(args.dataset)
    if not after:
        sys.exit("spade-headroom: no full-space SPADE problem in " + args.dataset)
    keys = sorted(k for k in after
                  if not args.max_nnz or after[k]["nnz"] <= args.max_nnz)
    if len(keys) < len(after):
        print("spade-headroom: %d of %d problems (at most %d entries)" %
              (len(keys), len(after), args.max_nnz), file=sys.stderr)
    before = {}
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futs = {pool.submit(sweep_before, args, k, after[k]["source"]): k for k in keys}
        for n, f in enumerate(concurrent.futures.as_completed(futs), 1):
            before[futs[f]] = f.result()
            el = time.time() - start
            print("\r[%d/%d] %.1f problems/min, ETA %.0f s   " %
                  (n, len(keys), n / el * 60, el / n * (len(keys) - n)),
                  end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    rows = []
    for k in keys:
        a, b = after[k], before[k]
        rows.append({"matrix": k[0], "kernel": k[1], "nnz": after[k]["nnz"],
                     "after_best_over_default": a["default"] / a["best"],
                     "after_default_over_median": a["median"] / a["default"],
                     "before_best_over_default": b["default"] / b["best"],
                     "before_default_over_median": b["median"] / b["default"]})
    summary = {}
    for kernel in ("spmm", "sddmm"):
        rs = [r for r in rows if r["kernel"] == kernel]
        if not rs:
            continue
        summary[kernel] = {f: geomean([r[f] for r in rs]) for f in rows[0] if f.endswith(("default", "median")) and f != "nnz"}
        summary[kernel]["problems"] = len(rs)
        summary[kernel]["after_max"] = max(r["after_best_over_default"] for r in rs)
        summary[kernel]["before_max"] = max(r["before_best_over_default"] for r in rs)
        print("%-5s %d matrices: best/default before %.2fx (max %.2fx), after %.2fx "
              "(max %.2fx); default/median before %.2fx, after %.2fx" %
              (kernel, len(rs), summary[kernel]["before_best_over_default"],
               summary[kernel]["before_max"], summary[kernel]["after_best_over_default"],
               summary[kernel]["after_max"], summary[kernel]["before_default_over_median"],
               summary[kernel]["after_default_over_median"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"summary": summary, "problems": rows}, f, indent=1)
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
        fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
        for ax, kernel in zip(axes, ("spmm", "sddmm")):
            rs = [r for r in rows if r["kernel"] == kernel]
            for field, label, style in (("before_best_over_default", "before calibration", "--"),
                                        ("after_best_over_default", "calibrated", "-")):
                xs = sorted(r[field] for r in rs)
                ys = [(i + 1) / len(xs) for i in range(len(xs))]
                ax.step(xs, ys, style, where="post", label=label)
            ax.set_xscale("log")
            ticks = [1, 1.25, 1.5, 2, 3]
            ax.set_xticks(ticks)
            ax.set_xticklabels(["%gx" % t for t in ticks])
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            ax.set_xlabel("best schedule / SPADE default (speedup)")
            ax.set_title("%s, %d held-out matrices" % (kernel.upper(), len(rs)))
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("fraction of matrices")
        axes[0].legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)


if __name__ == "__main__":
    main()
