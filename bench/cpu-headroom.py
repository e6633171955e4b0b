#!/usr/bin/env python3
"""Headroom over the CPU heuristic, before and after issue 31's knobs.

How much faster than sptune's heuristic schedule can a kernel run at all?
That bounds what any cost model can win over it. Per matrix, kernel and free
size (N of SpMM, K of SDDMM):

1. `sptune-collect` measures the heuristic, a broad sample of the tuner's
   space (--samples) and the heuristic's nearest knob settings
   (--neighbours, the tuner's knob neighbourhood): the space as it was
   before issue 31. Resumable (the collector's own resume).
2. One `sptune-measure` worker per problem times, in interleaved rounds
   after a warm-up round, the heuristic, the --confirm best candidates of
   step 1 by their single timing, and the heuristic with each knob value
   issue 31 added that the tuner's space does not draw: rows balanced by
   stored entries, dynamic chunks wider than 256 rows, vectorized column
   panels. A candidate's speedup is the median over rounds of
   t(heuristic) / t(candidate) in the same round, so that a slow period of
   the host does not pick the oracle (a single timing does: its best of
   ~25 is biased upwards, which the `single-run oracle` column shows).
   Resumable per problem (WORK/rounds.jsonl).

The oracle before = max(1, the best confirmed speedup of step 1's
candidates), after = the same over step 1's and the new knobs' candidates
(the heuristic is always a candidate, hence the 1).

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

from sptune.paired_compare import Worker, derive_schedule  # noqa: E402

#: The knob values issue 31 added that the tuner's space does not draw, as
#: fields of the heuristic's printed schedule; (label, fields, smallest free
#: size it applies to).
NEW_KNOBS = [
    ("balanced rows", [("omp", "balanced"), ("chunk", "0")], 1),
    ("dynamic chunks of 1024", [("omp", "dynamic"), ("chunk", "1024")], 1),
    ("dynamic chunks of 4096", [("omp", "dynamic"), ("chunk", "4096")], 1),
    ("panels of 32", [("tile", "32")], 64),
    ("panels of 64", [("tile", "64")], 128),
]


def parse_problems(text):
    """[(kernel, free)] of 'spmm:64,sddmm:16,spmv' (SpMV has no free size)."""
    out = []
    for part in text.split(","):
        kernel, _, free = part.strip().partition(":")
        if kernel not in ("spmm", "sddmm", "spmv"):
            raise SystemExit(f"cpu-headroom: unknown kernel '{kernel}' in --problems")
        if kernel == "spmv":
            out.append(("spmv", 1))
            continue
        try:
            n = int(free)
        except ValueError:
            raise SystemExit(f"cpu-headroom: '{part}' needs a free size, e.g. {kernel}:64")
        if n < 1:
            raise SystemExit(f"cpu-headroom: free size {n} of '{part}' is not positive")
        out.append((kernel, n))
    return out


def manifest_matrices(directory, min_nnz):
    path = os.path.join(directory, "MANIFEST.tsv")
    try:
        with open(path) as f:
            header = f.readline().rstrip("\n").split("\t")
            rows = [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f if line.strip()]
    except OSError as e:
        raise SystemExit(f"cpu-headroom: cannot read {path}: {e}")
    out = []
    for r in rows:
        try:
            nnz = int(r.get("nnz_full") or r["nnz"])
        except (KeyError, ValueError):
            raise SystemExit(f"cpu-headroom: {path}: row without a stored-entry count: {r}")
        if nnz >= min_nnz:
            out.append(os.path.join(directory, r["file"]))
    return sorted(out)


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
    name = "collect-spmv.jsonl" if kernel == "spmv" else f"collect-{kernel}-{free}.jsonl"
    out = os.path.join(args.work, name)
    cmd = [os.path.join(args.build, "bin", "sptune-collect"), "--kernel", kernel,
           "--free", str(free if kernel != "spmv" else 64), "--samples", str(args.samples),
           "--neighbours", str(args.neighbours), "--baselines", "heuristic",
           "--min-seconds", str(args.min_seconds), "--timeout", str(args.timeout),
           "--seed", str(args.seed), "--by-name", "--out", out] + matrices
    print(f"cpu-headroom: step 1, {kernel}" + (f" at {free}" if kernel != "spmv" else "")
          + f": {' '.join(cmd[:3])} ...", flush=True)
    if subprocess.run(cmd).returncode != 0:
        raise SystemExit(f"cpu-headroom: sptune-collect failed for {kernel} {free}")
    return out


def _gen_fields(spec):
    kind, _, rest = spec[len("gen:"):].partition(":")
    return kind, {tuple(kv.split("=", 1)) for kv in rest.split(",") if "=" in kv}


def same_matrix(given, record):
    """Whether `record` measured the matrix given as `given` (a path, or a
    gen: spec, which the collector records in its canonical form: defaults
    spelled out)."""
    recorded = (record.get("matrix") or {}).get("source") or ""
    if not given.startswith("gen:"):
        return recorded == given
    if not recorded.startswith("gen:"):
        return False
    (gk, gf), (rk, rf) = _gen_fields(given), _gen_fields(recorded)
    return gk == rk and gf <= rf


def step1_candidates(records, source, confirm):
    """(heuristic record, [the `confirm` best other schedules of `source` by
    their single timing, as (role, schedule, single-run speedup)], the
    single-run oracle) or None when the heuristic was not measured."""
    mine = [r for r in records if same_matrix(source, r) and r.get("status") == "ok"]
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
    (heuristic schedule or None, per schedule a dict: speedup (median of the
    per-round ratios), ratios, schedule as measured, status, reason)."""
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
        return None, result[1:]
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
    return result[0].get("schedule"), result[1:]


def measure_problem(args, kernel, free, source, records):
    found = step1_candidates(records, source, args.confirm)
    if found is None:
        return {"matrix": os.path.basename(source).removesuffix(".mtx"), "source": source,
                "kernel": kernel, "free": free, "status": "no heuristic measured"}
    heur, step1, single = found
    cands = [{"from": role, "schedule": s, "single_run_speedup": x} for role, s, x in step1]
    for label, fields, min_free in NEW_KNOBS:
        if kernel != "spmv" and free < min_free or kernel == "spmv" and min_free > 1:
            continue
        try:
            s = derive_schedule(heur["schedule"], fields)
        except ValueError:
            continue
        if s != heur["schedule"] and all(c["schedule"] != s for c in cands):
            cands.append({"from": "new knob: " + label, "schedule": s})
    base = {"target": "cpu", "matrix": source, "kernel": kernel,
            "free": free if kernel != "spmv" else 64, "bits": 32,
            "options": {"min_seconds": args.min_seconds, "timeout_s": args.timeout}}
    heur_measured, results = interleaved(os.path.join(args.build, "bin", "sptune-measure"),
                                         base, [c["schedule"] for c in cands], args.rounds,
                                         args.timeout)
    for c, r in zip(cands, results):
        c.update(r)
        if c.get("schedule") == heur["schedule"]:
            c["status"] = "same as the heuristic"  # canonicalized to it
    ok = [c for c in cands if c.get("status") == "ok"]
    before = [c for c in ok if not c["from"].startswith("new knob")]

    def oracle(cs):
        best = max(cs, key=lambda c: c["speedup"], default=None)
        if best is None or best["speedup"] <= 1.0:
            return 1.0, heur["schedule"], "heuristic"
        return best["speedup"], best["schedule"], best["from"]

    b, bs, bf = oracle(before)
    a, as_, af = oracle(ok)
    return {"matrix": heur["matrix"].get("id"), "source": source, "kernel": kernel,
            "free": free, "status": "ok" if heur_measured else "heuristic failed",
            "heuristic": heur["schedule"], "heuristic_s": heur["time_s"]["median"],
            "single_run_oracle": single, "before": b, "before_schedule": bs,
            "before_from": bf, "after": a, "after_schedule": as_, "after_from": af,
            "candidates": cands, "machine": heur.get("machine")}


def geomean(xs):
    xs = [x for x in xs if isinstance(x, (int, float)) and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def problem_label(kernel, free):
    return "spmv" if kernel == "spmv" else f"{kernel} {'N' if kernel == 'spmm' else 'K'}={free}"


def summarize(rows, problems):
    out = {}
    for kernel, free in problems:
        rs = [r for r in rows if r["kernel"] == kernel and r["free"] == free
              and r.get("status") == "ok"]
        if not rs:
            continue
        wins = {}
        for r in rs:
            if r["after"] > r["before"]:
                wins[r["after_from"]] = wins.get(r["after_from"], 0) + 1
        before, after = geomean([r["before"] for r in rs]), geomean([r["after"] for r in rs])
        out[problem_label(kernel, free)] = {
            "kernel": kernel, "free": free, "problems": len(rs),
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("matrices", nargs="*", help=".mtx files or gen: specs")
    ap.add_argument("--matrices-from", help="a directory with MANIFEST.tsv")
    ap.add_argument("--min-nnz", type=int, default=50000,
                    help="with --matrices-from: at least this many stored entries")
    ap.add_argument("--build", default="build", help="sptune's build directory")
    ap.add_argument("--problems", default="spmm:64,sddmm:64,spmv",
                    help="kernel:free,... (spmm, sddmm, spmv)")
    ap.add_argument("--samples", type=int, default=8, help="sampled schedules per problem")
    ap.add_argument("--neighbours", type=int, default=16,
                    help="the heuristic and its nearest knob settings per problem")
    ap.add_argument("--confirm", type=int, default=3,
                    help="step 1's best candidates timed again against the heuristic")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds after a warm-up")
    ap.add_argument("--min-seconds", type=float, default=0.1)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", required=True, help="directory of the datasets and rounds")
    ap.add_argument("--json")
    ap.add_argument("--plot")
    args = ap.parse_args(argv)
    for name in ("samples", "neighbours", "confirm", "rounds"):
        if getattr(args, name) < (1 if name == "rounds" else 0):
            raise SystemExit(f"cpu-headroom: --{name} {getattr(args, name)} is out of range")
    if not (args.min_seconds > 0 and args.timeout > 0):
        raise SystemExit("cpu-headroom: --min-seconds and --timeout must be positive")
    problems = parse_problems(args.problems)
    matrices = list(args.matrices)
    if args.matrices_from:
        matrices += manifest_matrices(args.matrices_from, args.min_nnz)
    if not matrices:
        raise SystemExit("cpu-headroom: no matrices (give files, gen: specs or --matrices-from)")
    for m in matrices:
        if not m.startswith("gen:") and not os.path.isfile(m):
            raise SystemExit(f"cpu-headroom: no matrix file {m}")
    os.makedirs(args.work, exist_ok=True)
    done_path = os.path.join(args.work, "rounds.jsonl")
    done = {(r["source"], r["kernel"], r["free"]): r for r in read_jsonl(done_path)}
    total = len(problems) * len(matrices)
    todo = total - sum(1 for k, f in problems for m in matrices
                       if (os.path.abspath(m) if not m.startswith("gen:") else m, k, f) in done)
    print(f"cpu-headroom: {total} problems, {total - todo} already in {done_path}", flush=True)
    started, measured = time.time(), 0
    for kernel, free in problems:
        records = None
        for m in matrices:
            source = m if m.startswith("gen:") else os.path.abspath(m)
            if (source, kernel, free) in done:
                continue
            if records is None:
                records = read_jsonl(collect(args, kernel, free,
                                             [os.path.abspath(x) if not x.startswith("gen:")
                                              else x for x in matrices]))
            row = measure_problem(args, kernel, free, source, records)
            with open(done_path, "a") as f:
                f.write(json.dumps(row) + "\n")
                f.flush()
                os.fsync(f.fileno())
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
    rows = [done[(m if m.startswith("gen:") else os.path.abspath(m), k, f)]
            for k, f in problems for m in matrices]
    summary = summarize(rows, problems)
    machine = next((r.get("machine") for r in rows if r.get("machine")), None)
    for label, s in summary.items():
        print(f"{label}: {s['problems']} problems, oracle / heuristic before "
              f"{s['before']:.3f}x, after {s['after']:.3f}x (single-run oracle "
              f"{s['single_run_oracle']:.3f}x)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"bench": "cpu-headroom", "machine": machine,
                       "settings": {k: getattr(args, k) for k in
                                    ("samples", "neighbours", "confirm", "rounds",
                                     "min_seconds", "seed")},
                       "new_knobs": [label for label, _, _ in NEW_KNOBS],
                       "summary": summary, "rows": rows}, f, indent=1)
            f.write("\n")
    if args.plot and summary:
        plot(summary, rows, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
