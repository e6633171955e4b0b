#!/usr/bin/env python3
"""Sweep the SPADE schedule space over a folder of Matrix Market files.

Runs `spade-sim --sweep --json` on every matrix of a folder's MANIFEST.tsv
with at least --min-nnz stored entries (after symmetric expansion) and prints,
per matrix, the cycles of the default schedule, of the best and of the worst
schedule of the space, and the best schedule. Deterministic (the simulator
is), so one run per matrix is the measurement.

  sweep-matrices.py --spade-sim build/bin/spade-sim \
      --matrices ../shared/matrices --kernel spmm --free 64 [--jobs 2] \
      [--json out.json]
"""

import argparse
import concurrent.futures
import csv
import json
import os
import subprocess
import sys


def matrices(folder, min_nnz):
    manifest = os.path.join(folder, "MANIFEST.tsv")
    with open(manifest, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            nnz = int(row["nnz_full"])
            if nnz >= min_nnz:
                yield row["file"], nnz


def sweep(args, name):
    cmd = [args.spade_sim, os.path.join(args.matrices, name), "--sweep",
           "--json", "--kernel=" + args.kernel, "--free=%d" % args.free]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), out.stderr.strip()))
    return json.loads(out.stdout)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--spade-sim", required=True)
    p.add_argument("--matrices", required=True)
    p.add_argument("--kernel", default="spmm", choices=["spmm", "sddmm"])
    p.add_argument("--free", type=int, default=64)
    p.add_argument("--min-nnz", type=int, default=50000)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--json", help="write all sweep results to this file")
    args = p.parse_args()

    todo = sorted(matrices(args.matrices, args.min_nnz), key=lambda m: m[1])
    if not todo:
        sys.exit("no matrix with at least %d entries in %s" %
                 (args.min_nnz, args.matrices))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda m: sweep(args, m[0]), todo))

    print("%-34s %9s %12s %12s %12s %8s %8s  %s" %
          ("matrix", "nnz", "default", "best", "worst", "def/best",
           "worst/best", "best schedule"))
    speedups = []
    for (name, nnz), r in zip(todo, results):
        d, b, w = (r["default"]["cycles"], r["best"]["cycles"],
                   r["worst"]["cycles"])
        speedups.append(d / b)
        sched = r["best"]["schedule"].split(", ", 1)[1]
        print("%-34s %9d %12d %12d %12d %7.2fx %7.2fx  %s" %
              (name[:-4], nnz, d, b, w, d / b, w / b, sched))
    geo = 1.0
    for s in speedups:
        geo *= s
    geo **= 1.0 / len(speedups)
    print("best vs default: geometric mean %.2fx, range %.2fx - %.2fx "
          "over %d matrices (%s, free = %d, %d schedules each)" %
          (geo, min(speedups), max(speedups), len(speedups), args.kernel,
           args.free, results[0]["schedules"]))
    total = sum(r["wall_seconds"] for r in results)
    print("simulation wall time: %.1f s" % total)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f)


if __name__ == "__main__":
    main()
