#!/usr/bin/env python3
"""Compile time with and without the tuning database (issue 15's bar: a
second compile of the same kernels and matrix with the database is >= 100x
faster than the first and makes the same choice).

For each matrix: compile examples/kernels.mlir (SpMM, SDDMM, SpMV) with
`--sptune-extract-kernels --sptune-autotune=matrix=M database=DB` into a
fresh database (cold), then again (warm), for two efforts: the model alone
(ranking 1,000 candidates) and `measure-top-k=K` (the top K and the heuristic
measured in workers). Reports, side by side, the wall time of the whole
sptune-opt process and of the Autotune pass alone (--mlir-timing), their
ratios, and whether the warm compile chose the same schedules.

    /usr/bin/python3 bench/tuning-database.py --build build --out results.json \\
        [--matrices M...] [--measure-top-k 5]

Without --matrices: three shared matrices when ../shared/matrices exists,
else generated ones. Run it on a quiet machine.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
from sptune import run  # noqa: E402
SCHEDULE = re.compile(r"sptune\.schedule = #sptune\.schedule<[^>]*>")
AUTOTUNE_TIME = re.compile(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+Autotune\s*$", re.M)


def default_matrices():
    shared = os.path.normpath(os.path.join(ROOT, "..", "shared", "matrices"))
    picks = ["Newman_power.mtx", "HB_bcsstk13.mtx", "SNAP_wiki-Vote.mtx"]
    found = [os.path.join(shared, name) for name in picks
             if os.path.isfile(os.path.join(shared, name))]
    if found:
        return found
    return ["gen:rmat:rows=16384,nnz=262144,seed=7",
            "gen:banded:rows=20000,nnz=200000,bw=16,seed=3"]


def compile_once(opt, matrix, database, measure_top_k):
    options = f"matrix={matrix} database={database}"
    if measure_top_k:
        options += f" measure-top-k={measure_top_k}"
    cmd = [opt, os.path.join(ROOT, "examples", "kernels.mlir"),
           "--sptune-extract-kernels", f"--sptune-autotune={options}",
           "--mlir-timing", "--mlir-timing-display=list",
           "--mlir-print-op-on-diagnostic=false"]
    start = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"tuning-database: sptune-opt failed on {matrix}:\n{p.stderr[-2000:]}")
    m = AUTOTUNE_TIME.search(p.stderr)
    return {"process_s": wall,
            "autotune_s": float(m.group(1)) if m else None,
            "from_database": p.stderr.count("from the tuning database"),
            "schedules": SCHEDULE.findall(p.stdout)}


def start_up_seconds(command, runs=7):
    """The median wall time of `command --version`: a process's start-up,
    the floor under any warm compile."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([command, "--version"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - t)
    return sorted(times)[len(times) // 2]


def machine():
    """The CPU model and count, for the results' provenance."""
    m = run.machine()
    return {"cpu_model": m["cpu"], "cpus": m["cores"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--matrices", nargs="*")
    ap.add_argument("--measure-top-k", type=int, default=5)
    ap.add_argument("--out", required=True, help="JSON results")
    args = ap.parse_args()
    opt = os.path.join(args.build, "bin", "sptune-opt")
    if not os.access(opt, os.X_OK):
        sys.exit(f"tuning-database: no sptune-opt at {opt} (build first)")
    matrices = args.matrices or default_matrices()
    rows = []
    print(f"{'matrix':<28} {'effort':<12} {'cold s':>8} {'warm s':>8} {'ratio':>7} "
          f"{'pass cold':>10} {'pass warm':>10} {'ratio':>9}  same")
    with tempfile.TemporaryDirectory() as tmp:
        for n, matrix in enumerate(matrices):
            for k in (0, args.measure_top_k):
                db = os.path.join(tmp, f"db-{n}-{k}.jsonl")
                cold = compile_once(opt, matrix, db, k)
                warm = compile_once(opt, matrix, db, k)
                same = cold["schedules"] == warm["schedules"] and len(cold["schedules"]) == 3
                row = {"matrix": os.path.basename(matrix), "measure_top_k": k,
                       "cold": cold, "warm": warm, "same_choice": same,
                       "process_ratio": cold["process_s"] / warm["process_s"],
                       "autotune_ratio": (cold["autotune_s"] / warm["autotune_s"]
                                          if cold["autotune_s"] and warm["autotune_s"]
                                          else None)}
                rows.append(row)
                effort = f"top-{k} meas." if k else "model only"
                ar = row["autotune_ratio"]
                print(f"{row['matrix'][:28]:<28} {effort:<12} {cold['process_s']:8.3f} "
                      f"{warm['process_s']:8.3f} {row['process_ratio']:7.1f} "
                      f"{cold['autotune_s'] * 1e3:8.2f}ms {warm['autotune_s'] * 1e3:8.3f}ms "
                      f"{ar:9.0f}  {'yes' if same else 'NO'}", flush=True)
    mlir_opt = "/usr/lib/llvm-22/bin/mlir-opt"
    start_up = {"sptune_opt_version_s": start_up_seconds(opt)}
    if os.access(mlir_opt, os.X_OK):
        start_up["mlir_opt_version_s"] = start_up_seconds(mlir_opt)
    print("start-up (median of 7 `--version` runs): "
          + ", ".join(f"{k[:-10].replace('_', '-')} {v:.3f} s"
                      for k, v in start_up.items()))
    with open(args.out, "w") as f:
        json.dump({"bench": "tuning-database", "kernels": "examples/kernels.mlir",
                   "machine": machine(), "start_up": start_up,
                   "rows": rows}, f, indent=1)
    print(f"wrote {args.out}")
    return 0 if all(r["same_choice"] and r["warm"]["from_database"] == 3 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
