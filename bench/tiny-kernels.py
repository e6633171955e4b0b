#!/usr/bin/python3
"""Tiny kernels in one thread: where the CPU heuristic's OpenMP loop stops
paying.

sptune's CPU heuristic runs a kernel in one thread when it does fewer
multiply-adds (stored entries times N of SpMM or K of SDDMM; stored entries
for SpMV) than its shape's threshold (targets/cpu/CpuHeuristic.cpp,
docs/targets.md). This bench measures what the thresholds rest on: per
matrix and problem, the heuristic's schedule with one thread
(`parallel = none`) against the same schedule with its OpenMP loop
(`parallel = outer`, one block of equal stored entries per thread, or of
equal rows over doubly compressed rows), timed
alternately in one sptune-measure worker (sptune.paired_compare: --pairs
pairs after a warm-up pair; f32, or f64 with --bits 64). A row's ratio is
the median over pairs of t(OpenMP loop) / t(one thread): above 1, one
thread is faster.

Matrices are those of a directory's MANIFEST.tsv (--matrices-from, every
size) and/or .mtx files and `gen:` specs given as arguments; without any,
the --held-out generated matrices alone (sizes around the thresholds, which
no threshold was chosen on). Each row records the multiply-adds and whether
the heuristic now runs the kernel in one thread, so the summary reads what
the rule wins and loses per problem. Rows go to WORK/rows.jsonl as they are
measured; a rerun with the same settings resumes.

    PYTHONPATH=python /usr/bin/python3 bench/tiny-kernels.py --build build \\
        --matrices-from ../shared/matrices --held-out \\
        --problems spmv,spmm:16,spmm:64,spmm:256,sddmm:16,sddmm:64,sddmm:256 \\
        --work runs/tiny --json docs/img/tiny-kernels.json --plot docs/img/tiny-kernels.png

Measure on a quiet machine: the ratios of microsecond kernels move with any
other load.
"""

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from sptune import dataset, run  # noqa: E402
from sptune.errors import SptuneError  # noqa: E402
from sptune.manifest import large_matrices  # noqa: E402
from sptune.paired_compare import compare, parse_side  # noqa: E402

ONE_THREAD = "heuristic with parallel = none, omp = static, chunk = 0"
OPENMP_LOOP = "heuristic with parallel = outer, omp = balanced, chunk = 0"
#: Where the heuristic stores rows doubly compressed (mostly empty rows),
#: which cannot be cut by stored entries: OpenMP's static blocks of rows, as
#: the heuristic takes there.
OPENMP_LOOP_STATIC = "heuristic with parallel = outer, omp = static, chunk = 0"

#: Fields of WORK/rows.jsonl the JSON leaves out: the settings (in its head)
#: and the two sides' schedules, which are the heuristic's (in the row) with
#: `parallel` set.
DROPPED = ("settings", "a_schedule", "b_schedule")

#: Generated matrices around the thresholds (300 to 24,000 stored entries),
#: of the generators' structures; none of the thresholds was chosen on them.
HELD_OUT = [f"gen:{kind}:rows={rows},nnz={nnz},seed=7"
            for kind in ("uniform", "rmat", "banded")
            for rows, nnz in ((64, 300), (256, 1200), (512, 3000), (1024, 6000),
                              (2048, 12000), (4096, 24000))]


def parse_problems(text):
    """[(label, kernel, free)] of 'spmv,spmm:64,...'."""
    out = []
    for part in text.split(","):
        kernel, sep, free = part.strip().partition(":")
        if kernel == "spmv" and not sep:
            out.append(("spmv", "spmv", 1))
        elif kernel in ("spmm", "sddmm") and free.isdigit() and int(free) > 0:
            out.append((f"{kernel}:{free}", kernel, int(free)))
        else:
            raise SptuneError(f"bad problem '{part}' (spmv, spmm:N or sddmm:K)")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("matrices", nargs="*", help=".mtx files or gen: specs")
    ap.add_argument("--matrices-from", help="a directory with MANIFEST.tsv (all its matrices)")
    ap.add_argument("--held-out", action="store_true",
                    help="also the generated matrices around the thresholds")
    ap.add_argument("--build", default="build", help="sptune's build directory")
    ap.add_argument("--problems", default="spmv,spmm:64,sddmm:64")
    ap.add_argument("--bits", type=int, choices=(32, 64), default=32,
                    help="element bits: 32 (f32) or 64 (f64)")
    ap.add_argument("--pairs", type=int, default=6)
    ap.add_argument("--min-seconds", type=float, default=0.05)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--work", required=True, help="directory of rows.jsonl (resume)")
    ap.add_argument("--json")
    ap.add_argument("--plot")
    args = ap.parse_args(argv)
    if not 1 <= args.pairs <= 1000 or not args.min_seconds > 0 or not args.timeout > 0:
        ap.error("--pairs must be in [1, 1000]; --min-seconds and --timeout positive")
    try:
        problems = parse_problems(args.problems)
        matrices = list(args.matrices)
        if args.matrices_from:
            matrices += large_matrices(args.matrices_from, 0)
        if args.held_out or not matrices:
            matrices += HELD_OUT
        tool = run.executable("sptune-measure", os.path.join(args.build, "bin"))
    except SptuneError as e:
        sys.exit(f"tiny-kernels: {e}")
    settings = {"pairs": args.pairs, "min_seconds": args.min_seconds}
    if args.bits != 32:  # (rows of f32 runs, written before --bits, have none)
        settings["bits"] = args.bits
    os.makedirs(args.work, exist_ok=True)
    rows_path = os.path.join(args.work, "rows.jsonl")
    # Rows of this run's settings measured before (a line cut by an
    # interruption is skipped, and its row measured again).
    previous = dataset.load([rows_path])[0] if os.path.exists(rows_path) else []
    done = {(r["matrix"], r["kernel"]): r for r in previous
            if r.get("settings") == settings and r.get("status") == "ok"}
    jobs = [(m, p) for p in problems for m in matrices]
    todo = sum((m, p[0]) not in done for m, p in jobs)
    start, measured, rows = time.time(), 0, []
    a, b = parse_side(ONE_THREAD), parse_side(OPENMP_LOOP)
    for n, (matrix, (label, kernel, free)) in enumerate(jobs, 1):
        if (matrix, label) in done:
            # What the heuristic picks is this build's, not the measuring one's.
            r = done[(matrix, label)]
            r.update(heuristic_info(tool, matrix, kernel, free, args.bits, args.timeout))
            rows.append(r)
            continue
        r = compare(tool, matrix, kernel, free, a, b, args.pairs, args.min_seconds,
                    args.timeout, bits=args.bits)
        loop = "OpenMP loop"
        if r["status"] == "illegal" and r.get("side") == "b":
            r = compare(tool, matrix, kernel, free, a, parse_side(OPENMP_LOOP_STATIC),
                        args.pairs, args.min_seconds, args.timeout, bits=args.bits)
            loop = "OpenMP loop, static rows"
        r.update(matrix=matrix, kernel=label, kernel_type=kernel, free=free,
                 a="one thread", b=loop, settings=settings)
        # Kept before anything else can fail (a resume adds what the
        # heuristic picks, as below).
        dataset.append_record(rows_path, r)
        if r["status"] == "ok":
            r.update(heuristic_info(tool, matrix, kernel, free, args.bits, args.timeout))
        rows.append(r)
        measured += 1
        eta = (time.time() - start) / measured * (todo - measured)
        what = (f"one thread {r['median_ratio']:.2f}x the OpenMP loop" if r["status"] == "ok"
                else f"{r['status']}: {r.get('reason', '')}")
        print(f"[{n}/{len(jobs)}] {matrix} {label}: {what}  (ETA {eta:.0f} s)",
              file=sys.stderr, flush=True)
    summary = summarize(rows, problems)
    print(json.dumps(summary, indent=1))
    doc = {"bench": "paired-compare", "pairs": args.pairs, "min_seconds": args.min_seconds,
           "bits": args.bits,
           "machine": run.machine(), "a": ONE_THREAD, "b": OPENMP_LOOP,
           "summary": summary,
           "rows": [{k: v for k, v in r.items() if k not in DROPPED} for r in rows]}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f)
    if args.plot:
        plot(rows, problems, args.plot)
    return 0 if all(r["status"] == "ok" for r in rows) else 1


def heuristic_info(tool, matrix, kernel, free, bits, timeout):
    """The heuristic's schedule as this build picks it (whether it runs in
    one thread) and the kernel's multiply-adds (stored entries x free).
    Exits with a message when sptune-measure cannot give them (the matrix
    was measured a moment before, so that is no bad input)."""
    try:
        p = run.run([tool, "--baseline", "heuristic", "--kernel", kernel, "--free", str(free),
                     "--bits", str(bits), "--matrix", matrix, "--min-seconds", "0.001",
                     "--min-reps", "1", "--no-check", "--timeout", str(timeout)],
                    timeout=timeout + 60)
        out = json.loads(p.stdout)
    except (SptuneError, json.JSONDecodeError) as e:
        sys.exit(f"tiny-kernels: the heuristic of {kernel} on {matrix}: {e}")
    schedule = out.get("schedule") or ""
    nnz = (out.get("matrix") or {}).get("nnz")
    return {"heuristic_schedule": schedule,
            "heuristic_one_thread": "parallel = none" in schedule,
            "nnz": nnz, "work": nnz * (1 if kernel == "spmv" else free) if nnz else None}


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def summarize(rows, problems):
    """Per problem: over every matrix, the heuristic now (one thread where it
    says so) against always the OpenMP loop, and where it runs one thread
    the gain and the worst row; held-out (generated) matrices apart."""
    out = {}
    for label, _, _ in problems:
        for part, keep in (("shared", lambda m: not m.startswith("gen:")),
                           ("held_out", lambda m: m.startswith("gen:"))):
            ok = [r for r in rows if r["kernel"] == label and r["status"] == "ok" and
                  keep(r["matrix"])]
            if not ok:
                continue
            one = [r["median_ratio"] for r in ok if r["heuristic_one_thread"]]
            out.setdefault(label, {})[part] = {
                "matrices": len(ok), "one_thread": len(one),
                "rule_over_openmp_loop": geomean(one + [1.0] * (len(ok) - len(one))),
                "one_thread_gain": geomean(one), "worst": min(one) if one else None,
                "left_parallel_where_one_thread_wins": sum(
                    1 for r in ok if not r["heuristic_one_thread"] and r["median_ratio"] > 1.05)}
    return out


def plot(rows, problems, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cols = min(4, len(problems))
    nrows = (len(problems) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(3.4 * cols, 3.2 * nrows), sharey=True,
                             squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat[len(problems):]:
        ax.axis("off")
    for ax, (label, _, _) in zip(flat, problems):
        for one, colour, name in ((True, "tab:blue", "heuristic: one thread"),
                                  (False, "tab:grey", "heuristic: OpenMP loop")):
            pts = [(r["work"], r["median_ratio"], r["matrix"].startswith("gen:")) for r in rows
                   if r["kernel"] == label and r["status"] == "ok" and r.get("work") and
                   r["heuristic_one_thread"] == one]
            for held, marker in ((False, "o"), (True, "^")):
                xs = [p[0] for p in pts if p[2] == held]
                ys = [p[1] for p in pts if p[2] == held]
                ax.scatter(xs, ys, s=12, c=colour, marker=marker,
                           label=f"{name}{' (generated)' if held else ''}")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(label)
        ax.set_xlabel("multiply-adds")
    for row in axes:
        row[0].set_ylabel("one thread over OpenMP loop")
    flat[len(problems) - 1].legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
