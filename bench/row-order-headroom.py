#!/usr/bin/python3
"""What visiting a matrix's rows in another order could win, measured with
the matrix stored in that order (issue 31's row reordering).

`reorder = rcm` (docs/schedules.md) visits the rows of the caller's storage
in reverse Cuthill-McKee order. This bench measures the other way to get an
order: the matrix itself stored in it, as a user who permutes the graph once
and keeps it (reuse) would. Per matrix and problem, the heuristic schedule
of the original matrix is timed, in --rounds interleaved rounds after a
warm-up round in one sptune-measure worker, on

- `rcm`: the rows in reverse Cuthill-McKee order of A + A^T (scipy's),
  columns as they are (the results' rows permuted with them);
- `mean-column`: the rows sorted by the mean of their column indices, so that
  rows reading nearby dense rows of B come one after another;
- `rcm-symmetric`: rows and columns in that RCM order (P A P^T), as a graph
  relabelled once: the dense operands are read in the new order too;

and the original. A variant's speedup is the median over rounds of
t(original) / t(variant) in the same round; its oracle is max(1, speedup)
(an order is a choice: the original is always one). Square matrices only.
The permuted files go to WORK/matrices (made once, kept), the rows to
WORK/rows.jsonl (a rerun resumes; rows measured with other settings, and
failed ones, are measured again; the summary covers this run's matrices and
problems). The orders are scipy's (`reverse_cuthill_mckee`);
`sptune-matrix reorder` computes sptune's own RCM, which may break ties
differently.

    PYTHONPATH=python /usr/bin/python3 bench/row-order-headroom.py --build build \\
        --matrices-from ../shared/matrices --min-nnz 50000 \\
        --problems spmm:64,sddmm:16 --work runs/row-order \\
        --json docs/img/issue31-row-order.json --plot docs/img/issue31-row-order.png

Needs scipy (Debian python3-scipy). Measure on a quiet machine.
"""

import argparse
import hashlib
import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from sptune.errors import SptuneError  # noqa: E402
from sptune.manifest import large_matrices  # noqa: E402
from sptune.paired_compare import Worker  # noqa: E402
from sptune.run import machine  # noqa: E402

ORDERS = ("rcm", "mean-column", "rcm-symmetric")


def parse_problems(text):
    out = []
    for part in text.split(","):
        kernel, sep, free = part.strip().partition(":")
        if kernel == "spmv" and not sep:
            out.append(("spmv", 64))
            continue
        if kernel not in ("spmm", "sddmm") or not free.isdigit() or int(free) < 1:
            raise SystemExit(f"row-order-headroom: '{part}' is not spmm:N, sddmm:K or spmv")
        out.append((kernel, int(free)))
    return out


def permuted_files(source, work):
    """{order: path} of `source` stored in each order (made once)."""
    import numpy as np
    import scipy.io
    from scipy.sparse.csgraph import reverse_cuthill_mckee
    # Named by the source's path and modification time too: two files of one
    # name, or a source changed since, get files of their own.
    stat = os.stat(source)
    key = hashlib.sha1(f"{os.path.realpath(source)}|{stat.st_mtime_ns}|{stat.st_size}"
                       .encode()).hexdigest()[:10]
    stem = os.path.basename(source).removesuffix(".mtx")
    paths = {o: os.path.join(work, "matrices", f"{stem}-{key}.{o}.mtx") for o in ORDERS}
    if all(os.path.exists(p) for p in paths.values()):
        return paths
    os.makedirs(os.path.join(work, "matrices"), exist_ok=True)
    a = scipy.io.mmread(source).tocsr()
    a.sum_duplicates()
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"{source} is not square")
    pattern = (abs(a) + abs(a.T)).tocsr()
    rcm = reverse_cuthill_mckee(pattern, symmetric_mode=True)
    lengths = np.diff(a.indptr)
    sums = np.bincount(np.repeat(np.arange(a.shape[0]), lengths),
                       weights=a.indices.astype(np.float64), minlength=a.shape[0])
    mean = np.where(lengths > 0, sums / np.maximum(lengths, 1), -1.0)
    by_mean = np.argsort(mean, kind="stable")
    for order, m in (("rcm", a[rcm, :]), ("mean-column", a[by_mean, :]),
                     ("rcm-symmetric", a[rcm, :][:, rcm])):
        tmp = paths[order] + ".tmp"
        scipy.io.mmwrite(tmp, m.tocoo())
        # mmwrite may append .mtx to a name without it.
        os.replace(tmp if os.path.exists(tmp) else tmp + ".mtx", paths[order])
    return paths


def measure(worker, base, source, paths, rounds):
    """The row of one problem: per order, the paired ratios and their median."""
    r = worker.measure(dict(base, matrix=source, baseline="heuristic"))
    if r.get("status") != "ok":
        return {"status": f"the heuristic failed: {r.get('reason', r.get('status'))}"[:300]}
    schedule = r["schedule"]
    sides = [("original", source)] + [(o, paths[o]) for o in ORDERS]
    times = {s: [] for s, _ in sides}
    for n in range(rounds + 1):
        k = n % len(sides)
        for side, path in sides[k:] + sides[:k]:
            r = worker.measure(dict(base, matrix=path, schedule=schedule))
            if r.get("status") != "ok":
                return {"status": f"{side}: {r.get('status')}: {r.get('reason', '')}"[:300],
                        "schedule": schedule}
            if n:  # the first round warms up
                times[side].append(r["time_s"]["median"])
    speedup = {o: statistics.median(a / b for a, b in zip(times["original"], times[o]))
               for o in ORDERS}
    return {"status": "ok", "schedule": schedule, "seconds": times, "speedup": speedup}


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def summarize(rows, problems):
    out = {}
    for kernel, free in problems:
        label = f"{kernel}:{free}" if kernel != "spmv" else "spmv"
        ok = [r for r in rows if r["kernel"] == kernel and r["free"] == free
              and r["status"] == "ok"]
        out[label] = {"matrices": len(ok)}
        for o in ORDERS:
            xs = [r["speedup"][o] for r in ok]
            out[label][o] = {"geomean": geomean(xs), "oracle": geomean([max(1.0, x) for x in xs]),
                             "best": max(xs, default=None), "worst": min(xs, default=None)}
    return out


def plot(doc, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = list(doc["summary"])
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(ORDERS)
    for n, o in enumerate(ORDERS):
        ys = [doc["summary"][p][o]["geomean"] or 0 for p in labels]
        ax.bar([i + n * width for i in range(len(labels))], ys, width, label=o)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks([i + width for i in range(len(labels))], labels)
    ax.set_ylabel("geomean speedup over storage order")
    ax.set_title("The heuristic's kernel on the matrix stored in another row order")
    ax.legend(loc="lower right", framealpha=0.9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("matrices", nargs="*", help=".mtx files (square)")
    ap.add_argument("--matrices-from", help="a directory with MANIFEST.tsv")
    ap.add_argument("--min-nnz", type=int, default=50000)
    ap.add_argument("--problems", default="spmm:64,sddmm:16")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--min-seconds", type=float, default=0.2)
    ap.add_argument("--timeout", type=float, default=200)
    ap.add_argument("--build", default="build")
    ap.add_argument("--work", required=True)
    ap.add_argument("--json")
    ap.add_argument("--plot")
    args = ap.parse_args()
    if args.rounds < 1 or not (args.min_seconds > 0) or not (args.timeout > 0):
        raise SystemExit("row-order-headroom: --rounds >= 1, --min-seconds and --timeout > 0")
    problems = parse_problems(args.problems)
    matrices = [os.path.realpath(m) for m in args.matrices]
    if args.matrices_from:
        try:
            matrices += [os.path.realpath(m)
                         for m in large_matrices(args.matrices_from, args.min_nnz)]
        except SptuneError as e:
            raise SystemExit(f"row-order-headroom: {e}")
    if not matrices:
        raise SystemExit("row-order-headroom: no matrices (give .mtx files or --matrices-from)")
    for m in matrices:
        if not os.path.exists(m):
            raise SystemExit(f"row-order-headroom: no such matrix file: {m}")
    tool = os.path.join(args.build, "bin", "sptune-measure")
    if not os.access(tool, os.X_OK):
        raise SystemExit(f"row-order-headroom: no {tool} (build first, or give --build)")
    settings = {"rounds": args.rounds, "min_seconds": args.min_seconds}
    os.makedirs(args.work, exist_ok=True)
    rows_path = os.path.join(args.work, "rows.jsonl")
    rows = []
    if os.path.exists(rows_path):
        with open(rows_path) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a torn last line
                # Rows measured with other settings, and failures other than
                # a matrix that has no such order, are measured again.
                if r.get("settings") == settings and (
                        r.get("status") == "ok" or "not square" in str(r.get("status"))):
                    rows.append(r)
    matrices = list(dict.fromkeys(matrices))
    wanted = {(m, k, f) for k, f in problems for m in matrices}
    # This run's problems only, each once (the last row of a problem wins).
    rows = list({(r["source"], r["kernel"], r["free"]): r for r in rows
                 if (r["source"], r["kernel"], r["free"]) in wanted}.values())
    done = {(r["source"], r["kernel"], r["free"]) for r in rows}
    jobs = [(m, k, f) for k, f in problems for m in matrices if (m, k, f) not in done]
    worker = Worker(tool, args.timeout + 60)
    start = time.time()
    try:
        for n, (source, kernel, free) in enumerate(jobs, 1):
            row = {"matrix": os.path.basename(source).removesuffix(".mtx"), "source": source,
                   "kernel": kernel, "free": free, "settings": settings}
            try:
                paths = permuted_files(source, args.work)
            except ValueError as e:
                row.update(status=str(e))
            else:
                base = {"target": "cpu", "kernel": kernel, "free": free, "bits": 32,
                        "options": {"min_seconds": args.min_seconds,
                                    "timeout_s": args.timeout}}
                row.update(measure(worker, base, source, paths, args.rounds))
            rows.append(row)
            with open(rows_path, "a") as f:
                f.write(json.dumps(row) + "\n")
            rate = n / (time.time() - start)
            what = (" ".join(f"{o} {row['speedup'][o]:.2f}x" for o in ORDERS)
                    if row["status"] == "ok" else row["status"])
            print(f"[{n}/{len(jobs)}] {row['matrix']} {kernel}:{free}: {what}  "
                  f"(ETA {(len(jobs) - n) / rate:.0f} s)", flush=True)
    finally:
        worker.close()
    doc = {"bench": "row-order-headroom", "machine": machine(), "settings": settings,
           "orders": list(ORDERS), "summary": summarize(rows, problems), "rows": rows}
    for label, s in doc["summary"].items():
        print(f"{label}: " + ", ".join(
            f"{o} {s[o]['geomean']:.3f}x (oracle {s[o]['oracle']:.3f}x)"
            for o in ORDERS if s[o]["geomean"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
    if args.plot:
        plot(doc, args.plot)


if __name__ == "__main__":
    main()
