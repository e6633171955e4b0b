#!/usr/bin/python3
"""Headroom over the CPU heuristic, before and after issue 31's knobs.

How much faster than sptune's heuristic schedule can a kernel run at all?
That bounds what any cost model can win over it. Per matrix, kernel and free
size (N of SpMM, K of SDDMM; SpMV and SpGEMM have none, and SpGEMM, measured
as A A on square matrices, varies its kernel's knobs only: step 2's new knobs
are not its):

1. `sptune-collect` measures the heuristic, a broad sample of the tuner's
   space (--samples) and the heuristic's nearest knob settings
   (--neighbours, the tuner's knob neighbourhood): the space as it was
   before issue 31. Resumable (the collector's own resume).
2. One `sptune-measure` worker per problem times, in interleaved rounds
   after a warm-up round, the heuristic, the --confirm best candidates of
   step 1 by their single timing, and the heuristic with each knob value
   issue 31 added that the tuner's space does not draw: rows balanced by
   stored entries, dynamic chunks wider than 256 rows, vectorized column
   panels. A candidate's screening speedup is the median over rounds of
   t(heuristic) / t(candidate) in the same round, so that a slow period of
   the host does not pick the winner (a single timing does: its best of
   ~25 is biased upwards, which the `single-run oracle` column shows).
3. The screening's best candidate of step 1 (`before`) and its best of all
   (`after`), where faster than the heuristic, are timed again against the
   heuristic, alternated in one worker for --pairs pairs after a warm-up
   pair (sptune.paired_compare): the oracle is that hold-out median, so
   the choice among many noisy candidates does not inflate it.
   Resumable per problem (WORK/rounds.jsonl, with the settings: a row
   measured with others is measured again).

The oracle before = max(1, the hold-out speedup of step 1's best), after =
the same for the best with the new knobs (the heuristic is always a
candidate, hence the 1). A new knob counts as a win only where its hold-out
95% interval lies above 1 and above the `before` oracle.

    PYTHONPATH=python /usr/bin/python3 bench/cpu-headroom.py --build build \\
        --matrices-from ../shared/matrices --min-nnz 50000 \\
        --problems spmm:16,spmm:64,spmm:256,sddmm:16,sddmm:64,sddmm:256,spmv \\
        --work runs/headroom --json docs/img/issue31-headroom.json \\
        --plot docs/img/issue31-headroom.png

Matrices are .mtx files or `gen:` specs given as arguments, and/or those of
a directory's MANIFEST.tsv with at least --min-nnz stored entries
(--matrices-from). Measure on a quiet machine.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from sptune.dataset import append_record  # noqa: E402
from sptune.errors import SptuneError  # noqa: E402
from sptune.manifest import large_matrices  # noqa: E402
from sptune.paired_compare import Worker, compare, derive_schedule  # noqa: E402

#: The knob values issue 31 added that the tuner's space does not draw, as
#: fields of the heuristic's printed schedule; (label, fields, smallest free
#: size it applies to).
NEW_KNOBS = [
    ("balanced rows", [("omp", "balanced"), ("chunk", "0")], 1),
    ("dynamic chunks of 1024", [("omp", "dynamic"), ("chunk", "1024")], 1),
    ("dynamic chunks of 4096", [("omp", "dynamic"), ("chunk", "4096")], 1),
    ("panels of 32", [("tile", "32")], 64),
    ("panels of 64", [("tile", "64")], 128),
    ("rows in RCM order", [("reorder", "rcm")], 1),
    # Where the heuristic balances rows by stored entries (in storage order,
    # which reorder = rcm does not combine with): OpenMP's dynamic chunks.
    ("rows in RCM order, dynamic chunks of 256",
     [("omp", "dynamic"), ("chunk", "256"), ("reorder", "rcm")], 1),
]


#: Kernels without a free size: SpMV, and SpGEMM (measured as A A, the
#: matrix square; its schedules vary the Gustavson kernel's knobs only).
NO_FREE_SIZE = ("spmv", "spgemm")


def parse_problems(text):
    """[(kernel, free)] of 'spmm:64,sddmm:16,spmv,spgemm' (SpMV and SpGEMM
    have no free size)."""
    out = []
    for part in text.split(","):
        kernel, sep, free = part.strip().partition(":")
        if kernel not in ("spmm", "sddmm", "spmv", "spgemm"):
            raise SystemExit(f"cpu-headroom: unknown kernel '{kernel}' in --problems")
        if kernel in NO_FREE_SIZE:
            if sep:
                name = {"spmv": "SpMV", "spgemm": "SpGEMM"}[kernel]
                raise SystemExit(f"cpu-headroom: '{part}': {name} has no free size, "
                                 f"write {kernel}")
            if (kernel, 1) not in out:
                out.append((kernel, 1))
            continue
        try:
            n = int(free)
        except ValueError:
            raise SystemExit(f"cpu-headroom: '{part}' needs a free size, e.g. {kernel}:64")
        if n < 1:
            raise SystemExit(f"cpu-headroom: free size {n} of '{part}' is not positive")
        if (kernel, n) not in out:
            out.append((kernel, n))
    return out


def read_jsonl(path):
    """The records of a JSON-lines file; a torn last line (a killed run) is
    skipped."""
    if not os.path.exists(path):
        return []
    out = []
    with open(path) as f:
        for line in f:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out


def collect(args, kernel, free, matrices):
    """Step 1 for one kernel and free size; the dataset's path."""
    name = (f"collect-{kernel}.jsonl" if kernel in NO_FREE_SIZE
            else f"collect-{kernel}-{free}.jsonl")
    out = os.path.join(args.work, name)
    cmd = [os.path.join(args.build, "bin", "sptune-collect"), "--kernel", kernel,
           "--free", str(free if kernel not in NO_FREE_SIZE else 64),
           "--samples", str(args.samples),
           "--neighbours", str(args.neighbours), "--baselines", "heuristic",
           "--min-seconds", str(args.min_seconds), "--timeout", str(args.timeout),
           "--seed", str(args.seed), "--by-name", "--out", out] + matrices
    # A schedule that timed out or failed is a result of the sample (too
    # slow, or refused), not a fault to measure again on resume.
    cmd.insert(-len(matrices), "--no-retry")
    print(f"cpu-headroom: step 1, {kernel}" + (f" at {free}" if kernel not in NO_FREE_SIZE else "")
          + f": {' '.join(cmd[:3])} ...", flush=True)
    if subprocess.run(cmd).returncode != 0:
        raise SystemExit(f"cpu-headroom: sptune-collect failed for {kernel} {free}")
    return out


def canonical_source(build, matrix):
    """The source under which the collector records `matrix`: a file's
    absolute path, or a gen: spec's canonical form (`sptune-matrix spec`:
    the defaults spelled out), so that a spec given short is found."""
    if not matrix.startswith("gen:"):
        return os.path.abspath(matrix)
    r = subprocess.run([os.path.join(build, "bin", "sptune-matrix"), "spec", matrix],
                       capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        raise SystemExit(f"cpu-headroom: {matrix}: " + (r.stderr.strip() or "not a generator spec"))
    return r.stdout.strip()


def step1_candidates(records, source, confirm):
    """(heuristic record, [the `confirm` best other schedules of `source` by
    their single timing, as (role, schedule, single-run speedup)], the
    single-run oracle) or None when the heuristic was not measured."""
    mine = [r for r in records if r.get("status") == "ok"
            and (r.get("matrix") or {}).get("source") == source]
    heur = next((r for r in mine if r.get("role") == "baseline:heuristic"), None)
    if heur is None:
        return None
    th = heur["time_s"]["median"]
    best = {}
    for r in mine:
        if r.get("role") not in ("sample", "neighbour") or r.get("schedule") == heur["schedule"]:
            continue
        ratio = th / r["time_s"]["median"]
        if r["schedule"] not in best or ratio > best[r["schedule"]][2]:
            best[r["schedule"]] = (r["role"], r["schedule"], ratio)
    ranked = sorted(best.values(), key=lambda c: -c[2])
    single = max([1.0] + [c[2] for c in ranked])
    return heur, ranked[:confirm], single


def interleaved(tool, base, schedules, rounds, timeout):
    """Times the heuristic and each of `schedules` in one worker: a warm-up
    round, then `rounds` rounds, each starting one candidate later. Returns
    (the heuristic's result: status, reason, schedule as measured; per
    schedule a dict: speedup (median of the per-round ratios), ratios,
    schedule as measured, status, reason). After a failed heuristic the
    candidates are 'not measured'."""
    worker = Worker(tool, timeout + 60)
    reqs = [dict(base, baseline="heuristic")] + [
        dict(base, schedule=s, target=s.split(None, 1)[0]) for s in schedules]
    times = [[] for _ in reqs]
    result = [{"status": "ok"} for _ in reqs]
    try:
        for n in range(rounds + 1):
            order = list(range(len(reqs)))
            shift = n % len(reqs)
            order = order[shift:] + order[:shift]
            for i in order:
                if result[i]["status"] != "ok":
                    continue
                r = worker.measure(reqs[i])
                if r.get("status") != "ok":
                    result[i] = {"status": str(r.get("status", "error")),
                                 "reason": str(r.get("reason") or "")[:300]}
                    if r.get("status") in ("crash", "timeout"):
                        worker.close()
                        worker = Worker(tool, timeout + 60)
                    continue
                if isinstance(r.get("schedule"), str):
                    result[i]["schedule"] = r["schedule"]
                times[i].append(r["time_s"]["median"] if n > 0 else None)
            if result[0]["status"] != "ok":
                break
    finally:
        worker.close()
    if result[0]["status"] != "ok":
        return result[0], [{"status": "not measured", "reason": "the heuristic failed"}
                           for _ in schedules]
    th = times[0]
    for i in range(1, len(reqs)):
        if result[i]["status"] != "ok":
            continue
        ratios = [h / t for h, t in zip(th, times[i]) if h is not None and t is not None]
        if not ratios:
            result[i] = {"status": "error", "reason": "no round measured both"}
            continue
        result[i]["ratios"] = ratios
        result[i]["speedup"] = statistics.median(ratios)
    return result[0], result[1:]


def holdout(args, source, kernel, free, schedule):
    """`schedule` against the heuristic, alternated in one worker
    (paired_compare's protocol): its stats, or its failure."""
    return compare(os.path.join(args.build, "bin", "sptune-measure"), source, kernel,
                   free if kernel not in NO_FREE_SIZE else 64, ("schedule", schedule),
                   ("baseline", "heuristic"), args.pairs, args.min_seconds, args.timeout)


def measure_problem(args, kernel, free, source, records):
    row = {"matrix": os.path.basename(source).removesuffix(".mtx"), "source": source,
           "kernel": kernel, "free": free, "settings": settings_of(args)}
    found = step1_candidates(records, source, args.confirm)
    if found is None:
        return dict(row, status="no heuristic measured")
    heur, step1, single = found
    row.update(matrix=heur["matrix"].get("id", row["matrix"]), heuristic=heur["schedule"],
               heuristic_s=heur["time_s"]["median"], single_run_oracle=single,
               machine=heur.get("machine"))
    cands = [{"from": role, "schedule": s, "single_run_speedup": x} for role, s, x in step1]
    # (SpGEMM takes none of them: its schedules vary its kernel's knobs only.)
    for label, fields, min_free in NEW_KNOBS if kernel != "spgemm" else []:
        if (kernel != "spmv" and free < min_free) or (kernel == "spmv" and min_free > 1):
            continue
        try:
            s = derive_schedule(heur["schedule"], fields)
        except ValueError as e:
            cands.append({"from": "new knob: " + label, "status": "not applicable",
                          "reason": str(e)})
            continue
        if s != heur["schedule"] and all(c.get("schedule") != s for c in cands):
            cands.append({"from": "new knob: " + label, "schedule": s})
    screened = [c for c in cands if "status" not in c]
    base = {"target": "cpu", "matrix": source, "kernel": kernel,
            "free": free if kernel not in NO_FREE_SIZE else 64, "bits": 32,
            "options": {"min_seconds": args.min_seconds, "timeout_s": args.timeout}}
    h, results = interleaved(os.path.join(args.build, "bin", "sptune-measure"), base,
                             [c["schedule"] for c in screened], args.rounds, args.timeout)
    row["candidates"] = cands
    if h["status"] != "ok":
        return dict(row, status=f"the heuristic failed ({h['status']}): "
                               f"{h.get('reason', '')}"[:300])
    seen = {h.get("schedule", heur["schedule"])}
    for c, r in zip(screened, results):
        c.update(r)
        # Canonicalized to the heuristic or to an earlier candidate: one
        # schedule is one draw of the maximum.
        if c["status"] == "ok":
            if c.get("schedule") in seen:
                c["status"] = "same schedule as the heuristic or an earlier candidate"
            seen.add(c.get("schedule"))
    ok = [c for c in cands if c.get("status") == "ok"]
    best_before = max((c for c in ok if not c["from"].startswith("new knob")),
                      key=lambda c: c["speedup"], default=None)
    best_after = max(ok, key=lambda c: c["speedup"], default=None)

    def confirmed(c):
        """(oracle, schedule, where from, hold-out stats) for screening's best."""
        if c is None or c["speedup"] <= 1.0:
            return 1.0, row["heuristic"], "heuristic", None
        if "holdout" not in c:
            c["holdout"] = holdout(args, source, kernel, free, c["schedule"])
        ho = c["holdout"]
        if ho.get("status") != "ok" or ho["median_ratio"] <= 1.0:
            return 1.0, row["heuristic"], "heuristic", ho
        return ho["median_ratio"], c["schedule"], c["from"], ho

    b, bs, bf, bh = confirmed(best_before)
    a, as_, af, ah = confirmed(best_after)
    if a < b:  # the hold-out reversed the screening's order: the best stays
        a, as_, af, ah = b, bs, bf, bh
    return dict(row, status="ok", before=b, before_schedule=bs, before_from=bf,
                before_ci95=(bh or {}).get("ci95"), after=a, after_schedule=as_,
                after_from=af, after_ci95=(ah or {}).get("ci95"))


def geomean(xs):
    xs = [x for x in xs if isinstance(x, (int, float)) and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def problem_label(kernel, free):
    return kernel if kernel in NO_FREE_SIZE else \
        f"{kernel} {'N' if kernel == 'spmm' else 'K'}={free}"


def summarize(rows, problems):
    out = {}
    for kernel, free in problems:
        mine = [r for r in rows if r["kernel"] == kernel and r["free"] == free]
        rs = [r for r in mine if r.get("status") == "ok"]
        if not rs:
            continue
        wins = {}
        for r in rs:
            ci = r.get("after_ci95")
            if (r["after_from"].startswith("new knob") and r["after"] > r["before"] and
                    ci and ci[0] > max(1.0, r["before"])):
                wins[r["after_from"]] = wins.get(r["after_from"], 0) + 1
        before, after = geomean([r["before"] for r in rs]), geomean([r["after"] for r in rs])
        out[problem_label(kernel, free)] = {
            "kernel": kernel, "free": free, "problems": len(rs),
            "not_measured": len(mine) - len(rs),
            "single_run_oracle": geomean([r["single_run_oracle"] for r in rs]),
            "before": before, "after": after,
            "max_after": max(r["after"] for r in rs),
            "share_of_log_headroom_from_new_knobs":
                (math.log(after) - math.log(before)) / math.log(after) if after > 1 else 0.0,
            "new_knob_wins": wins}
    return out


def plot(summary, rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = list(summary)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 4.5))
    x = range(len(labels))
    ax.bar([i - 0.2 for i in x], [summary[k]["before"] for k in labels], 0.4,
           label="before issue 31's knobs")
    ax.bar([i + 0.2 for i in x], [summary[k]["after"] for k in labels], 0.4,
           label="with them")
    ax.axhline(1.25, color="grey", linestyle="--", linewidth=1, label="issue 31's bar (1.25x)")
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=30, ha="right")
    ax.set_ylabel("oracle / heuristic (geomean)")
    ax.set_ylim(0.9, max(1.35, max(summary[k]["after"] for k in labels) * 1.05))
    ax.legend(fontsize=8)
    ax.set_title("Headroom over the heuristic")
    for k in labels:
        xs = sorted(r["after"] for r in rows if problem_label(r["kernel"], r["free"]) == k
                    and r.get("status") == "ok")
        if xs:
            bx.step([xs[0]] + xs, [0.0] + [(i + 1) / len(xs) for i in range(len(xs))],
                    where="post", label=k)
    bx.set_xscale("log")
    bx.set_xlabel("oracle with the new knobs / heuristic, per matrix (log)")
    bx.set_ylabel("share of matrices")
    bx.legend(fontsize=7)
    bx.set_title("Per matrix")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


#: What a row's numbers depend on: a row measured with other values is
#: measured again on resume.
SETTINGS = ("samples", "neighbours", "confirm", "rounds", "pairs", "min_seconds", "timeout",
            "seed")


def settings_of(args):
    return dict({k: getattr(args, k) for k in SETTINGS},
                new_knobs=[label for label, _, _ in NEW_KNOBS])


def check_writable(path, what):
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory) or not os.access(directory, os.W_OK):
        raise SystemExit(f"cpu-headroom: cannot write {what} {path} (no writable directory "
                         f"{directory})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("matrices", nargs="*", help=".mtx files or gen: specs")
    ap.add_argument("--matrices-from", help="a directory with MANIFEST.tsv")
    ap.add_argument("--min-nnz", type=int, default=50000,
                    help="with --matrices-from: at least this many stored entries")
    ap.add_argument("--build", default="build", help="sptune's build directory")
    ap.add_argument("--problems", default="spmm:64,sddmm:64,spmv",
                    help="kernel:free,... (spmm, sddmm; spmv and spgemm without a free "
                         "size)")
    ap.add_argument("--samples", type=int, default=8, help="sampled schedules per problem")
    ap.add_argument("--neighbours", type=int, default=16,
                    help="the heuristic and its nearest knob settings per problem")
    ap.add_argument("--confirm", type=int, default=3,
                    help="step 1's best candidates screened again against the heuristic")
    ap.add_argument("--rounds", type=int, default=3,
                    help="interleaved screening rounds after a warm-up round")
    ap.add_argument("--pairs", type=int, default=6,
                    help="hold-out pairs (after a warm-up pair) of the best candidates")
    ap.add_argument("--min-seconds", type=float, default=0.1)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", required=True, help="directory of the datasets and rounds")
    ap.add_argument("--json")
    ap.add_argument("--plot")
    args = ap.parse_args(argv)
    for name in ("samples", "neighbours", "confirm", "rounds", "pairs"):
        if getattr(args, name) < (1 if name in ("rounds", "pairs") else 0):
            raise SystemExit(f"cpu-headroom: --{name} {getattr(args, name)} is out of range")
    if not (args.min_seconds > 0 and args.timeout > 0):
        raise SystemExit("cpu-headroom: --min-seconds and --timeout must be positive")
    problems = parse_problems(args.problems)
    for tool in ("sptune-collect", "sptune-measure", "sptune-matrix"):
        path = os.path.join(args.build, "bin", tool)
        if not os.access(path, os.X_OK):
            raise SystemExit(f"cpu-headroom: no {tool} under --build {args.build} ({path})")
    matrices = list(args.matrices)
    if args.matrices_from:
        try:
            matrices += large_matrices(args.matrices_from, args.min_nnz)
        except SptuneError as e:
            raise SystemExit(f"cpu-headroom: {e}")
    if not matrices:
        raise SystemExit("cpu-headroom: no matrices (give files, gen: specs or --matrices-from)")
    for m in matrices:
        if not m.startswith("gen:") and not os.path.isfile(m):
            raise SystemExit(f"cpu-headroom: no matrix file {m}")
    sources = []
    for m in matrices:
        source = canonical_source(args.build, m)
        if source not in sources:
            sources.append(source)
    if args.json:
        check_writable(args.json, "--json")
    if args.plot:
        check_writable(args.plot, "--plot")
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise SystemExit("cpu-headroom: --plot needs matplotlib (python3-matplotlib)")
    try:
        os.makedirs(args.work, exist_ok=True)
    except OSError as e:
        raise SystemExit(f"cpu-headroom: cannot create --work {args.work}: {e}")
    done_path = os.path.join(args.work, "rounds.jsonl")
    settings = settings_of(args)
    done = {}
    for r in read_jsonl(done_path):
        if (isinstance(r, dict) and r.get("settings") == settings and r.get("status") == "ok"
                and all(k in r for k in ("source", "kernel", "free"))):
            done[(r["source"], r["kernel"], r["free"])] = r
    total = len(problems) * len(sources)
    todo = total - sum(1 for k, f in problems for m in sources if (m, k, f) in done)
    print(f"cpu-headroom: {total} problems, {total - todo} already in {done_path}", flush=True)
    started, measured = time.time(), 0
    for kernel, free in problems:
        records = None
        for source in sources:
            if (source, kernel, free) in done:
                continue
            if records is None:
                records = read_jsonl(collect(args, kernel, free, sources))
            row = measure_problem(args, kernel, free, source, records)
            append_record(done_path, row)
            done[(source, kernel, free)] = row
            measured += 1
            rate = measured / max(time.time() - started, 1e-9) * 60
            eta = (todo - measured) / rate * 60 if rate > 0 else 0
            if row.get("status") == "ok":
                what = (f"before {row['before']:.2f}x, after {row['after']:.2f}x "
                        f"({row['after_from']})")
            else:
                what = row.get("status")
            print(f"[{measured}/{todo}] {row['matrix']} {problem_label(kernel, free)}: {what}; "
                  f"{rate:.1f} problems/min, ETA {eta:.0f} s", flush=True)
    rows = [done[(m, k, f)] for k, f in problems for m in sources]
    summary = summarize(rows, problems)
    machine = next((r.get("machine") for r in rows if r.get("machine")), None)
    for label, s in summary.items():
        print(f"{label}: {s['problems']} problems, oracle / heuristic before "
              f"{s['before']:.3f}x, after {s['after']:.3f}x (single-run oracle "
              f"{s['single_run_oracle']:.3f}x)")
    failed = [r for r in rows if r.get("status") != "ok"]
    if failed:
        print(f"cpu-headroom: {len(failed)} of {len(rows)} problems not measured; "
              f"a rerun measures them again", file=sys.stderr)
    if args.json:
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"bench": "cpu-headroom", "machine": machine, "settings": settings,
                       "summary": summary, "rows": rows}, f, indent=1)
            f.write("\n")
        os.replace(tmp, args.json)
    if args.plot and summary:
        plot(summary, rows, args.plot)
    return 0 if summary else 1


if __name__ == "__main__":
    sys.exit(main())
