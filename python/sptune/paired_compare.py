"""Paired timing: two kernels measured alternately in one sptune-measure worker.

A shared host has slow periods that last seconds: on the 2-core VM sptune is
developed on, a two-thread kernel then runs at about one core's speed (a
35-microsecond SpMV takes 55), while a one-thread kernel does not slow down
(docs/results.md, "Timing modes of the 2-core VM"). Two kernels timed in
separate processes each land in such a period or not, by chance, and the
ratio of their times says as much about the host as about the kernels.
Here A and B are timed alternately in the same worker process, a fraction of
a second apart, so that each pair sees the same host; the first pair is a
warm-up and dropped. Per pair the ratio t_B / t_A is A's speedup over B; the
median of those ratios, its bootstrap 95% interval and the fraction of pairs
A wins are reported.

    /usr/bin/python3 -m sptune.paired_compare --matrix M.mtx --kernel spmv \
        --a 'cpu spmv, levels = ...' --b baseline:mlir-default [--pairs 12]
    /usr/bin/python3 -m sptune.paired_compare --from-eval eval.json \
        [--matrix-dir DIR] [--kernel spmv] [--json out.json] [--plot out.png]

A side is a printed schedule, `baseline:NAME` (a baseline of the target), or
`heuristic with FIELD = VALUE[, ...]`: the target's heuristic schedule for
that matrix and free size with those fields of its printed form replaced
(e.g. `heuristic with tile = 64`, column panels of 64 on whatever the
heuristic picks per matrix); the schedule measured is in the row
(`a_schedule`, `b_schedule`).
--from-eval takes the rows of an `sptune.autotune_eval` JSON and compares,
for every row, its tuned schedule (A) with the MLIR default (B) — every row,
not only the close ones, so that the check is not run only where a ratio
came out low. Each row's `source` is its matrix; in files written before
autotune_eval recorded it, --matrix-dir resolves the ids to DIR/ID.mtx.
"""

import argparse
import json
import math
import os
import random
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time

from sptune import run
from sptune.errors import SptuneError
from sptune.run import diagnostics


DERIVED_PREFIX = "heuristic with "


def parse_fields(text):
    """[(field, value)] of 'f = v, g = w' (scalar fields of a printed schedule)."""
    fields = []
    for part in text.split(","):
        name, eq, value = part.partition("=")
        name, value = name.strip(), value.strip()
        if not eq or not re.fullmatch(r"[a-z][a-z0-9_]*", name) or \
                not re.fullmatch(r"[A-Za-z0-9_.-]+", value):
            raise ValueError(f"'{part.strip()}' is not 'FIELD = VALUE' (a scalar field of a "
                             f"printed schedule, e.g. 'tile = 64')")
        fields.append((name, value))
    return fields


#: Fields a printed schedule leaves out at their default value (the CPU's
#: `reorder`, printed only when the rows are visited in another order than
#: storage order; an SpGEMM's `accumulator` and `passes`, printed when not
#: auto): derive_schedule appends them.
OPTIONAL_FIELDS = ("reorder", "accumulator", "passes")


def derive_schedule(schedule, fields):
    """The printed `schedule` with each (field, value) of `fields` replaced
    (an OPTIONAL_FIELDS one it leaves out, appended); ValueError when it
    prints no such field."""
    for name, value in fields:
        pattern = re.compile(r"(,\s*)" + re.escape(name) + r" = [^,\]\[]+(?=,|$)")
        if not pattern.search(schedule):
            if name in OPTIONAL_FIELDS:
                schedule = f"{schedule}, {name} = {value}"
                continue
            raise ValueError(f"the schedule '{schedule}' has no field '{name}'")
        schedule = pattern.sub(lambda m: f"{m.group(1)}{name} = {value}", schedule, count=1)
    return schedule


def parse_side(text):
    """A side of the comparison: ('baseline', NAME), ('schedule', TEXT) or
    ('derived', FIELDS TEXT) for 'heuristic with FIELDS'."""
    text = text.strip()
    if text == DERIVED_PREFIX.strip() or text.startswith(DERIVED_PREFIX):
        parse_fields(text[len(DERIVED_PREFIX):])  # checked here, applied per matrix
        return ("derived", text)
    if text.startswith("baseline:"):
        name = text[len("baseline:"):].strip()
        if not name:
            raise ValueError("'baseline:' needs a baseline name, e.g. baseline:mlir-default")
        return ("baseline", name)
    if not text:
        raise ValueError("a side is a printed schedule or baseline:NAME, got an empty string")
    return ("schedule", text)


def paired_stats(a_times, b_times, resamples=2000, seed=1):
    """Statistics of pairs (a_times[i], b_times[i]): the median and geometric
    mean of t_B / t_A (A's speedup over B), the fraction of pairs where A is
    faster, a bootstrap 95% interval of the median ratio, and each side's
    median seconds."""
    if len(a_times) != len(b_times) or not a_times:
        raise ValueError("paired_stats needs as many A as B times, at least one")
    if any(not (t > 0) for t in list(a_times) + list(b_times)):
        raise ValueError("paired_stats needs positive times")
    ratios = [b / a for a, b in zip(a_times, b_times)]
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(ratios, k=len(ratios)))
                     for _ in range(resamples))
    lo = medians[int(0.025 * (resamples - 1))]
    hi = medians[int(math.ceil(0.975 * (resamples - 1)))]
    return {"pairs": len(ratios),
            "median_ratio": statistics.median(ratios),
            "geomean_ratio": math.exp(sum(math.log(r) for r in ratios) / len(ratios)),
            "ci95": [lo, hi],
            "a_wins": sum(r > 1 for r in ratios) / len(ratios),
            "a_median_s": statistics.median(a_times),
            "b_median_s": statistics.median(b_times)}


class Worker:
    """One `sptune-measure --worker` process; `measure` sends a request and
    waits for its answer at most `timeout` seconds (a hung worker is killed,
    and the measurement says so)."""

    def __init__(self, tool, timeout):
        self.timeout = timeout
        # stderr to a file: a pipe nobody reads fills up and blocks the worker.
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.next_id = 0
        self.error = None
        try:
            self.proc = subprocess.Popen([tool, "--worker"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        except OSError as e:
            self.proc = None
            self.error = f"cannot start {tool}: {e}"

    def measure(self, request):
        """The worker's answer to `request`: its JSON with status "ok" and
        time_s, or a status (timeout, crash, error) and the reason."""
        if self.proc is None:
            return {"status": "error", "reason": self.error}
        rid = self.next_id
        request = dict(request, id=rid)
        self.next_id += 1
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return self._died()
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        if not ready:
            self.proc.kill()
            self.proc.wait()
            return {"status": "timeout",
                    "reason": f"no answer from the worker in {self.timeout} s"}
        line = self.proc.stdout.readline()
        if not line:
            return self._died()
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            return {"status": "error", "reason": f"worker answered no JSON: {line[:200]}"}
        if not isinstance(r, dict) or r.get("id") != rid:
            return {"status": "error", "reason": f"worker answered another request: {line[:200]}"}
        if r.get("status") == "ok" and not ((r.get("time_s") or {}).get("median", 0) > 0):
            return {"status": "error", "reason": f"worker answered ok without a time: {line[:200]}"}
        return r

    def _died(self):
        self.proc.wait()
        self.stderr.seek(0)
        return {"status": "crash",
                "reason": diagnostics(self.stderr.read())
                or f"worker exit status {self.proc.returncode}"}

    def close(self):
        if self.proc is None:
            self.stderr.close()
            return
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.stderr):
            try:
                f.close()
            except OSError:
                pass


def compare(tool, matrix, kernel, free, a, b, pairs, min_seconds, timeout, target="cpu",
            bits=32):
    """Times sides `a` and `b` (parse_side) alternately in one worker, for
    `pairs` pairs after a warm-up pair (baselines of `target`), A first in
    even pairs and B first in odd ones, so that neither side always runs
    right after the other. Returns paired_stats plus `status`
    ("ok", or the first failed measurement's status and `reason`). Elements
    of `bits` (32: f32, 64: f64)."""
    base = {"target": target, "matrix": matrix, "kernel": kernel, "free": free, "bits": bits,
            "options": {"min_seconds": min_seconds, "timeout_s": timeout}}
    # The worker stops a measurement at `timeout`; the extra minute covers
    # its start and the matrix read.
    worker = Worker(tool, timeout + 60)
    requests = []
    heuristic = None
    for n, (kind, value) in enumerate((a, b)):
        req = dict(base)
        if kind == "derived":
            if heuristic is None:
                r = worker.measure(dict(base, baseline="heuristic"))
                if r.get("status") != "ok" or not isinstance(r.get("schedule"), str):
                    worker.close()
                    return {"status": str(r.get("status", "error")),
                            "reason": "the heuristic schedule: "
                                      + str(r.get("reason") or "no schedule")[:300],
                            "side": "ab"[n]}
                heuristic = r["schedule"]
            try:
                fields = parse_fields(value[len(DERIVED_PREFIX):])
                kind, value = "schedule", derive_schedule(heuristic, fields)
            except ValueError as e:
                worker.close()
                return {"status": "error", "reason": str(e)[:300], "side": "ab"[n]}
        req[kind] = value
        if kind == "schedule":  # a schedule names its target
            req["target"] = value.split(None, 1)[0]
        requests.append(req)
    schedules = {}
    times = ([], [])
    try:
        for n in range(pairs + 1):
            for side in ((0, 1) if n % 2 == 0 else (1, 0)):
                r = worker.measure(requests[side])
                if r.get("status") != "ok":
                    return {"status": str(r.get("status", "error")),
                            "reason": str(r.get("reason") or "")[:300],
                            "side": "ab"[side]}
                if n > 0:  # the first pair warms the worker up
                    times[side].append(r["time_s"]["median"])
                if isinstance(r.get("schedule"), str):
                    schedules["ab"[side] + "_schedule"] = r["schedule"]
    finally:
        worker.close()
    out = paired_stats(*times)
    out.update(schedules)
    out["status"] = "ok"
    return out


def matrix_path(matrix_id, matrix_dir):
    if matrix_id.startswith("gen:") or os.path.exists(matrix_id):
        return matrix_id
    if not matrix_dir:
        raise ValueError(f"matrix '{matrix_id}': give --matrix-dir to find its .mtx")
    path = os.path.join(matrix_dir, matrix_id + ".mtx")
    if not os.path.exists(path):
        raise ValueError(f"matrix '{matrix_id}': no {path}")
    return path


SETTINGS = ("pairs", "min_seconds", "free", "target")


def previous_rows(path, settings):
    """The rows of an earlier run's --json (a list; empty when there is no
    file). A file that is not paired_compare's, or was written with other
    `settings` (SETTINGS of this run), is an error: resuming into it would
    mix runs, and writing over it would lose it."""
    if not path or not os.path.exists(path):
        return []
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path} exists and cannot be read ({e}): remove it or "
                         f"choose another --json")
    if not isinstance(doc, dict) or doc.get("bench") != "paired-compare":
        raise ValueError(f"{path} exists and is not a paired_compare result: remove it or "
                         f"choose another --json")
    other = [k for k in SETTINGS if doc.get(k) != settings[k]]
    if other:
        raise ValueError(f"{path} was written with other settings ("
                         + ", ".join(f"{k} {doc.get(k)} here {settings[k]}" for k in other)
                         + "): remove it or choose another --json")
    return [r for r in doc.get("rows") or [] if isinstance(r, dict)]


def row_key(r):
    return (r.get("matrix"), r.get("kernel"), r.get("a"), r.get("b"))


def eval_jobs(path, keep, b, matrix_dir):
    """(matrix id, path, kernel, side a, side b) for every measured row of an
    autotune_eval JSON whose kernel is in `keep` (None: all)."""
    with open(path) as f:
        doc = json.load(f)
    rows = doc.get("rows") if isinstance(doc, dict) else None
    if not isinstance(rows, list):
        raise ValueError(f"{path}: not an autotune_eval result (no list of rows)")
    jobs = []
    for n, r in enumerate(rows):
        if not isinstance(r, dict) or not all(isinstance(r.get(k), str)
                                              for k in ("matrix", "kernel")):
            raise ValueError(f"{path}: row {n} has no matrix and kernel")
        if r.get("status") != "ok" or not isinstance(r.get("schedule"), str):
            continue
        if keep and r["kernel"] not in keep:
            continue
        # The row's own matrix source (autotune_eval writes it), else the id
        # under --matrix-dir (files written before it did).
        source = r.get("source") if isinstance(r.get("source"), str) else None
        jobs.append((r["matrix"], source or matrix_path(r["matrix"], matrix_dir),
                     r["kernel"], parse_side(r["schedule"]), b))
    return jobs


def write_json(path, settings, rows, summary):
    """The results so far (summary None until the end), written atomically."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(dict({"bench": "paired-compare"}, **settings, summary=summary, rows=rows),
                  f, indent=1)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matrix", action="append",
                    help="a .mtx file or gen: spec (with --a and --b; repeatable)")
    ap.add_argument("--kernel", help="spmm, sddmm or spmv, comma-separated (with --from-eval: "
                                     "keep only these)")
    ap.add_argument("--free", type=int, default=64,
                    help="N of SpMM, K of SDDMM (with --from-eval: the --free of that run)")
    ap.add_argument("--a", help="side A: a printed schedule, baseline:NAME or "
                                "'heuristic with FIELD = VALUE, ...'")
    ap.add_argument("--b", default="baseline:mlir-default",
                    help="side B (default: baseline:mlir-default)")
    ap.add_argument("--target", default="cpu", help="target of a baseline side")
    ap.add_argument("--from-eval", help="an sptune.autotune_eval JSON: every row's tuned "
                                        "schedule against the MLIR default")
    ap.add_argument("--matrix-dir", help="with --from-eval on a file whose rows have no "
                                         "'source': where ID.mtx lives")
    ap.add_argument("--pairs", type=int, default=12, help="timed pairs after the warm-up pair")
    ap.add_argument("--min-seconds", type=float, default=0.2,
                    help="minimum timed seconds of each measurement")
    ap.add_argument("--timeout", type=float, default=300,
                    help="seconds a measurement may take (compile + run)")
    ap.add_argument("--build", help="build directory whose bin/ holds sptune-measure")
    ap.add_argument("--json", help="write the results here, after every row; rows already "
                                   "there (same pairs and minimum seconds) are not measured "
                                   "again, so an interrupted run resumes")
    ap.add_argument("--plot", help="write a PNG: per kernel, the median ratio of each matrix "
                                   "with its 95%% interval")
    args = ap.parse_args(argv)
    if args.pairs < 1 or args.pairs > 1000:
        ap.error("--pairs must be in [1, 1000]")
    if not (args.min_seconds > 0) or not (args.timeout > 0):
        ap.error("--min-seconds and --timeout must be positive")
    if args.from_eval and (args.a or args.matrix):
        ap.error("--from-eval takes the sides and matrices from the JSON: no --a or --matrix")
    if not args.from_eval and not (args.matrix and args.kernel and args.a):
        ap.error("give --matrix, --kernel and --a (or --from-eval)")
    settings = {k: getattr(args, k) for k in SETTINGS}
    try:
        tool = run.executable("sptune-measure",
                              os.path.join(args.build, "bin") if args.build else None)
        b = parse_side(args.b)
        if args.from_eval:
            jobs = eval_jobs(args.from_eval, set(args.kernel.split(",")) if args.kernel else None,
                             b, args.matrix_dir)
        else:
            jobs = [(m, m, kernel, parse_side(args.a), b)
                    for m in args.matrix for kernel in
                    (k.strip() for k in args.kernel.split(",")) if kernel]
        previous = previous_rows(args.json, settings)
    except (SptuneError, ValueError, OSError, json.JSONDecodeError) as e:
        sys.exit(f"paired_compare: {e}")
    if not jobs:
        sys.exit("paired_compare: nothing to compare")

    keys = {(j[0], j[2], j[3][1], j[4][1]) for j in jobs}
    done = {row_key(r): r for r in previous if r.get("status") == "ok" and row_key(r) in keys}
    # Rows of the file that this run does not measure (other kernels, other
    # sides) are kept as they are.
    kept = [r for r in previous if row_key(r) not in keys]
    if done:
        print(f"paired_compare: {len(done)} row(s) already in {args.json}: not measured again",
              file=sys.stderr)
    results = []
    start, measured, to_measure = time.time(), 0, len(keys - done.keys())
    for n, (mid, path, kernel, a, bside) in enumerate(jobs, 1):
        key = (mid, kernel, a[1], bside[1])
        if key in done:
            results.append(done[key])
            continue
        r = compare(tool, path, kernel, args.free, a, bside, args.pairs, args.min_seconds,
                    args.timeout, args.target)
        r.update(matrix=mid, kernel=kernel, a=a[1], b=bside[1])
        results.append(r)
        if args.json:
            write_json(args.json, settings, kept + results, None)
        measured += 1
        elapsed = time.time() - start
        eta = elapsed / measured * (to_measure - measured)
        if r["status"] == "ok":
            what = (f"A/B {r['median_ratio']:.3f}x [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}], "
                    f"A wins {100 * r['a_wins']:.0f}% of {r['pairs']}")
        else:
            what = f"{r['status']} ({r['side']}): {r['reason']}"
        print(f"[{n}/{len(jobs)}] {mid} {kernel}: {what}  (ETA {eta:.0f} s)",
              file=sys.stderr, flush=True)
    ok = [r for r in results if r["status"] == "ok"]
    summary = {"compared": len(ok), "failed": len(results) - len(ok)}
    if ok:
        worst = min(ok, key=lambda r: r["median_ratio"])
        summary.update(worst={"matrix": worst["matrix"], "kernel": worst["kernel"],
                              "median_ratio": worst["median_ratio"], "ci95": worst["ci95"]},
                       below_0_95=sum(r["median_ratio"] < 0.95 for r in ok),
                       ci_below_0_95=sum(r["ci95"][1] < 0.95 for r in ok))
    print(json.dumps(summary))
    if args.json:
        write_json(args.json, settings, kept + results, summary)
    if args.plot and ok:
        plot(ok, args.plot, args.b)
    return 0 if not summary["failed"] else 1


def matrix_label(matrix):
    """A matrix's name for a plot: a file's name without .mtx, a gen: spec as is."""
    if matrix.startswith("gen:"):
        return matrix
    name = os.path.basename(matrix)
    return name[:-4] if name.endswith(".mtx") else name


def plot(rows, path, b_label):
    """Per kernel, each matrix's median A/B ratio and its 95% interval (log
    scale, sorted), with lines at 1 and 0.95."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    kernels = sorted({r["kernel"] for r in rows})
    fig, axes = plt.subplots(1, len(kernels), figsize=(5 * len(kernels), 5), squeeze=False)
    for ax, kernel in zip(axes[0], kernels):
        k = sorted((r for r in rows if r["kernel"] == kernel), key=lambda r: r["median_ratio"])
        ys = range(len(k))
        med = [r["median_ratio"] for r in k]
        err = [[m - r["ci95"][0] for m, r in zip(med, k)], [r["ci95"][1] - m for m, r in zip(med, k)]]
        ax.errorbar(med, list(ys), xerr=err, fmt="o", ms=4, capsize=2)
        ax.axvline(1.0, color="gray", lw=0.8)
        ax.axvline(0.95, color="red", lw=0.8, ls="--")
        ax.set_xscale("log")
        label = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}x")
        ax.xaxis.set_major_formatter(label)
        ax.xaxis.set_minor_formatter(label)
        ax.tick_params(axis="x", which="both", labelsize=7)
        ax.set_yticks(list(ys))
        ax.set_yticklabels([matrix_label(r["matrix"])[:22] for r in k], fontsize=7)
        ax.set_title(f"{kernel}: A / {b_label}, paired (median, 95% CI)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
