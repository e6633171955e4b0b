"""Autotuned speedups: what `sptune-autotune` picks, measured.

For each matrix and kernel: sptune-opt picks a schedule with the cost model
(the pass, exactly as users run it, on a kernel written in linalg), then
sptune-measure times it next to the MLIR sparsifier's default, sptune's
heuristic, Eigen, autotuned librsb, the hand-written OpenMP kernels
(`reference`, -O3 -march=native) and PyTorch's sparse CSR ops (`torch`,
LibTorch; --no-torch skips it), in one run. A baseline that fails or is not
built (e.g. torch's SDDMM over its dense-memory limit) leaves its column
empty (torch's reason is kept in `torch_status`). With --measure-top-k the
pass measures its top k (and the heuristic) before choosing, as users can.
With a dataset, the oracle (best sampled schedule measured there) is
reported next to it. Per kernel the summary gives geometric means against
each baseline, against the best of eigen, rsb and reference per matrix
(`tuned_vs_best_library`), and the worst matrix against the MLIR default.
SDDMM is also measured with B supplied as B^T — the input the `reference`
kernel gets for free — with the chosen schedule reading B^T directly
(`tuned_bt_vs_reference`; --no-sddmm-b-transposed skips it). `--compare
NAME=MODEL` (repeatable) also measures what other development-mode models
pick, in the same run (`NAME_vs_mlir`, `tuned_vs_NAME`); --no-libraries
skips eigen, rsb and reference. `--multiversion K` also compiles each
kernel once without a matrix (sptune-autotune multiversion=K) and times, per
matrix, the variant its dispatcher routes that matrix to
(`dispatched_vs_tuned`, `dispatched_vs_heuristic`, `dispatched_vs_mlir`;
the dispatch's own cost: bench/dispatch-overhead.py). Every kernel but torch
is timed --rounds times, interleaved, and keeps its fastest median; jobs
that compile the same kernel (the tuned pick, the heuristic's schedule, a
compared model's pick) are one kernel, timed once per round, so a pick that
is the heuristic reads 1.00x the heuristic, not the noise between two
processes.

    /usr/bin/python3 -m sptune.autotune_eval --build build MATRIX... \
        [--model m.pt] [--measure-top-k K] [--dataset d.jsonl] \
        [--no-torch] [--json out.json] [--plot out.png]
"""

import argparse
import json
import os
import re
import sys

from sptune import autotune, dataset, kernel_ir, multiversion, run
from sptune import measure as measure_tool

KERNELS = kernel_ir.KERNELS


def pick(build, kernel, matrix, free, mode, model, measure_top_k=0):
    try:
        return autotune.pick(kernel, matrix, free, opt=run.executable("sptune-opt", bin_dir(build)),
                             mode=mode, model=model, measure_top_k=measure_top_k)[0]
    except run.ToolError as e:
        sys.exit(f"autotune_eval: sptune-opt failed on {matrix}: {e}")


def bin_dir(build):
    """--build DIR: the tools of DIR/bin; none: where sptune.tools finds them."""
    return os.path.join(build, "bin") if build else None


def measure(build, matrix, kernel, free, min_seconds, schedule=None, baseline=None,
            transposed_b=False):
    """(median seconds or None, status, kernel): `kernel` is the schedule
    compiled where another job may compile the same one (a schedule given,
    or the heuristic's, which sptune-measure compiles like any other), else
    None (libraries, the MLIR default, B supplied transposed)."""
    r = measure_tool.measure(matrix, kernel, free, min_seconds, schedule=schedule,
                             baseline=baseline, transposed_b=transposed_b,
                             tool=run.executable("sptune-measure", bin_dir(build)))
    if r.get("status") != "ok":
        return None, r.get("status") + ": " + r.get("reason", "")[:200], None
    same = baseline in (None, "heuristic") and not transposed_b
    return r["time_s"]["median"], "ok", r.get("schedule") if same else None


def measure_rounds(measure_one, jobs, rounds, shared=None):
    """Times every job of `jobs` (name -> measure() keywords) `rounds` times,
    interleaved (all jobs, then all again), and keeps each job's fastest
    median: a kernel timed while the machine hiccuped, or just after another
    process left the caches cold, is not compared with one timed in a quiet
    moment. Jobs whose measure_one names the same kernel in the first round
    (its optional third value) are one kernel: the first of them is timed in
    every round and the others take its time (their first-round medians
    are dropped, so every kernel is the best of as many medians). On the
    2-core AMD EPYC VM one schedule timed by two jobs, best of 3 rounds
    each, read 0.50-1.55x apart (docs/results.md, "The guard against today's
    heuristic"): a model's pick equal to the heuristic would read anything
    in that range over it. Returns ({name: seconds or None}, {name: status
    of the last round or the first failure}); `shared`, a list, gets the
    names of each group of two or more such jobs, the timed one first."""
    times, statuses, kernels = {}, {}, {}
    copies = {}  # name -> the job whose time it takes
    for round_ in range(max(1, rounds)):
        for name, kw in jobs.items():
            if name in copies:
                continue
            t, status, *kernel = measure_one(**kw)
            if statuses.get(name, "ok") == "ok":
                statuses[name] = status
            if t is not None and (times.get(name) is None or t < times[name]):
                times[name] = t
            times.setdefault(name, None)
            if round_ == 0 and t is not None and kernel and kernel[0]:
                kernels[name] = kernel[0]
        if round_ == 0:
            groups = {}
            for name, kernel in kernels.items():
                groups.setdefault(kernel, []).append(name)
            for names in groups.values():
                for other in names[1:]:
                    copies[other] = names[0]
                if len(names) > 1 and shared is not None:
                    shared.append(names)
    for name, first in copies.items():
        times[name] = times[first]
    return times, statuses


LAYOUT = re.compile(r", layout = \[[^\]]*\]")


def with_b_transposed(schedule):
    """`schedule` reading SDDMM's B as B^T (layout b : k), A unchanged."""
    a = "i" if "a : i" in schedule else "k"
    base = LAYOUT.sub("", schedule)
    return base.replace(", tile =", f", layout = [a : {a}, b : k], tile =", 1)


def oracle(records, matrix_id, kernel):
    best = None
    for r in records:
        if r["matrix"]["id"] == matrix_id and r["kernel"] == kernel and r["role"] == "sample":
            t = dataset.ok_time(r)
            if t and (best is None or t < best):
                best = t
    return best


def speedup_bars(ax, rows, key, label, markers, title):
    """Per-matrix bars of `key` (log scale, sorted), with (key, style, label) markers."""
    k = sorted((r for r in rows if r.get(key)), key=lambda r: r[key])
    xs = range(len(k))
    ax.bar(xs, [r[key] for r in k], label=label)
    for mkey, style, mlabel in markers:
        ax.plot(xs, [r.get(mkey) or float("nan") for r in k], style, ms=10, label=mlabel)
    ax.axhline(1.0, color="gray", lw=0.8)
    ax.set_yscale("log")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([r["matrix"][:14] for r in k], rotation=70, fontsize=7)
    ax.set_title(title)
    ax.legend(fontsize=7)


def add_compare_ratios(row, names):
    """A compared model's ratios in `row`, from its `<name>_s` and the row's
    MLIR default, heuristic and tuned times."""
    mlir, heur, tuned = row["mlir_default_s"], row["heuristic_s"], row["tuned_s"]
    for name in names:
        t = row.get(f"{name}_s")
        row[f"{name}_vs_mlir"] = mlir / t if t and mlir else None
        row[f"{name}_vs_heuristic"] = heur / t if t and heur else None
        row[f"tuned_vs_{name}"] = t / tuned if t and tuned else None


def report(rows, kernels, compare, json_path, plot_path):
    """Prints the summary per kernel, writes the JSON and the plot."""
    summary = {}
    for kernel in kernels:
        k = [r for r in rows if r["kernel"] == kernel]
        summary[kernel] = {key: dataset.geomean([r.get(key) for r in k]) for key in
                           ("tuned_vs_mlir", "tuned_vs_eigen", "tuned_vs_rsb", "tuned_vs_reference",
                            "tuned_vs_torch", "tuned_vs_best_library", "tuned_vs_heuristic",
                            "tuned_bt_vs_reference",
                            "heuristic_vs_mlir", "oracle_vs_mlir",
                            "dispatched_vs_tuned", "dispatched_vs_heuristic",
                            "dispatched_vs_mlir")
                           + tuple(f"{n}_vs_mlir" for n in compare)
                           + tuple(f"{n}_vs_heuristic" for n in compare)
                           + tuple(f"tuned_vs_{n}" for n in compare)}
        for name in compare:
            v = [r[f"{name}_vs_mlir"] for r in k if r.get(f"{name}_vs_mlir")]
            summary[kernel][f"worst_{name}_vs_mlir"] = min(v) if v else None
        v = [r["dispatched_vs_mlir"] for r in k if r.get("dispatched_vs_mlir")]
        if v:
            summary[kernel]["worst_dispatched_vs_mlir"] = min(v)
        vs_mlir = [r["tuned_vs_mlir"] for r in k if r["tuned_vs_mlir"]]
        # The worst matrix against the MLIR default (below 0.95: more than 5% slower).
        summary[kernel]["worst_tuned_vs_mlir"] = min(vs_mlir) if vs_mlir else None
        summary[kernel]["matrices"] = len(k)
        print(kernel, {key: round(v, 3) if isinstance(v, float) else v for key, v in summary[kernel].items()})
    if json_path:
        with open(json_path, "w") as fh:
            json.dump({"summary": summary, "rows": rows}, fh, indent=1)
    if plot_path:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        # Rows of panels: over the MLIR default; over the libraries (when
        # measured); over the heuristic (with compared models).
        libs = any(r.get("tuned_vs_best_library") or r.get("tuned_vs_reference") for r in rows)
        dispatched = any(r.get("dispatched_vs_tuned") for r in rows)
        nrows = 1 + libs + bool(compare) + dispatched
        fig, axes = plt.subplots(nrows, len(kernels), figsize=(6 * len(kernels), 4 * nrows),
                                 squeeze=False)
        for ax, kernel in zip(axes[0], kernels):
            speedup_bars(ax, [r for r in rows if r["kernel"] == kernel], "tuned_vs_mlir",
                         "autotuned / MLIR default",
                         [("oracle_vs_mlir", "r_", "oracle in sample"),
                          ("heuristic_vs_mlir", "k.", "heuristic")],
                         f"{kernel}: speedup over the MLIR default")
        for ax, kernel in zip(axes[1] if libs else [], kernels):
            # Against the best library per matrix (SDDMM: the hand-written reference).
            sddmm = kernel == "sddmm"
            speedup_bars(ax, [r for r in rows if r["kernel"] == kernel],
                         "tuned_vs_reference" if sddmm else "tuned_vs_best_library",
                         ("autotuned, B as written (transposition timed) / reference "
                          "(B^T given, untimed)") if sddmm
                         else "autotuned / best of eigen, rsb, reference",
                         [("tuned_bt_vs_reference", "g^",
                           "autotuned, B^T given (transposition elided) / reference")]
                         if sddmm else [],
                         f"{kernel}: speedup over the best library kernel")
        if dispatched:
            # Compiled once without the matrix, against tuned for it.
            for ax, kernel in zip(axes[nrows - 1 - bool(compare)], kernels):
                speedup_bars(ax, [r for r in rows if r["kernel"] == kernel],
                             "dispatched_vs_tuned", "dispatched / tuned for the matrix",
                             [("dispatched_vs_heuristic", "r_", "dispatched / heuristic"),
                              ("dispatched_vs_mlir", "k.", "dispatched / MLIR default")],
                             f"{kernel}: multi-versioned, routed at run time")
        if compare:
            # Model only against the rule it replaces, per compared model.
            styles = ["r_", "g^", "bv", "mo"]
            for ax, kernel in zip(axes[nrows - 1], kernels):
                speedup_bars(ax, [r for r in rows if r["kernel"] == kernel],
                             "tuned_vs_heuristic", "autotuned / heuristic",
                             [(f"{n}_vs_heuristic", styles[i % len(styles)], f"{n} / heuristic")
                              for i, n in enumerate(compare)],
                             f"{kernel}: speedup over sptune's heuristic")
        fig.tight_layout()
        fig.savefig(plot_path, dpi=120)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("matrices", nargs="*")
    ap.add_argument("--from-json", metavar="JSON",
                    help="measure nothing: summarize and plot the rows of an earlier run's "
                         "JSON again (with this version's ratios)")
    ap.add_argument("--build", help="build directory (default: where sptune.tools finds "
                                     "the tools: SPTUNE_BIN, the build tree, the PATH)")
    ap.add_argument("--kernel", default="spmm,sddmm")
    ap.add_argument("--free", type=int, default=64)
    ap.add_argument("--mode", default="release")
    ap.add_argument("--model", default="")
    ap.add_argument("--measure-top-k", type=int, default=0)
    ap.add_argument("--dataset", action="append", default=[])
    ap.add_argument("--min-seconds", type=float, default=0.2)
    ap.add_argument("--rounds", type=int, default=3,
                    help="time every kernel this many times, interleaved, and keep each "
                         "one's fastest median (1: a single pass)")
    ap.add_argument("--torch", action=argparse.BooleanOptionalAction, default=True,
                    help="measure the torch baseline (PyTorch sparse CSR ops) too")
    ap.add_argument("--sddmm-b-transposed", action=argparse.BooleanOptionalAction, default=True,
                    help="SDDMM: also measure with B supplied as B^T (the reference's input), "
                         "the chosen schedule reading B^T directly")
    ap.add_argument("--compare", action="append", default=[], metavar="NAME=MODEL",
                    help="also measure what this development-mode model picks")
    ap.add_argument("--libraries", action=argparse.BooleanOptionalAction, default=True,
                    help="measure eigen, rsb and the reference kernels")
    ap.add_argument("--multiversion", type=int, default=0, metavar="K",
                    help="also time the variant a kernel compiled once without the matrix "
                         "(multiversion=K) routes each matrix to")
    ap.add_argument("--training-matrices", default="",
                    help="--multiversion: the training distribution (default: the built-in set)")
    ap.add_argument("--json")
    ap.add_argument("--plot")
    args = ap.parse_args(argv)
    if args.from_json:
        if args.matrices:
            ap.error("--from-json measures nothing: give no matrices")
        with open(args.from_json) as fh:
            rows = json.load(fh)["rows"]
        kernels = [k for k in args.kernel.split(",") if any(r["kernel"] == k for r in rows)]
        names = sorted({key[:-len("_schedule")] for r in rows for key in r
                        if key.endswith("_schedule")})
        for row in rows:
            add_compare_ratios(row, names)
        report(rows, kernels, names, args.json, args.plot)
        return
    if not args.matrices:
        ap.error("give matrices (or --from-json)")
    records = dataset.load(args.dataset)[0] if args.dataset else []
    compare = []
    for c in args.compare:
        name, sep, path = c.partition("=")
        if not sep or not name or not path:
            sys.exit(f"autotune_eval: --compare wants NAME=MODEL, got '{c}'")
        compare.append((name, path))
    plans = {}
    if args.multiversion:
        for kernel in args.kernel.split(","):
            try:
                plans[kernel] = multiversion.plan(
                    kernel, args.free, args.multiversion,
                    opt=run.executable("sptune-opt", bin_dir(args.build)), mode=args.mode,
                    model=args.model, training=args.training_matrices)
            except run.ToolError as e:
                sys.exit(f"autotune_eval: {e}")
            print(f"{kernel}: {len(plans[kernel].variants)} variants, rule: "
                  f"{plans[kernel].rule}", flush=True)
    rows = []
    for matrix in args.matrices:
        mid = os.path.splitext(os.path.basename(matrix))[0] if not matrix.startswith("gen:") else matrix
        features = multiversion.matrix_features(
            matrix, run.executable("sptune-matrix", bin_dir(args.build))) if plans else None
        for kernel in args.kernel.split(","):
            schedule = pick(args.build, kernel, matrix, args.free, args.mode, args.model,
                            args.measure_top_k)
            lib = args.libraries
            # What is timed, each as keyword arguments of measure().
            jobs = {"tuned": dict(schedule=schedule),
                    "mlir": dict(baseline="mlir-default"),
                    "heur": dict(baseline="heuristic")}
            if lib:
                if kernel != "sddmm":
                    jobs["eigen"] = dict(baseline="eigen")
                    jobs["rsb"] = dict(baseline="rsb")
                jobs["ref"] = dict(baseline="reference")
            others = {}
            for name, path in compare:
                others[name] = pick(args.build, kernel, matrix, args.free, "development", path)
                jobs["compare:" + name] = dict(schedule=others[name])
            if kernel == "sddmm" and args.sddmm_b_transposed:
                jobs["tuned_bt"] = dict(schedule=with_b_transposed(schedule), transposed_b=True)
            variant = dispatched_schedule = None
            if kernel in plans:
                variant = multiversion.route(multiversion.parse_rule(plans[kernel].rule),
                                             features)
                dispatched_schedule = plans[kernel].variants[variant]
                # The same kernel as the tuned one is timed once.
                if dispatched_schedule != schedule:
                    jobs["dispatched"] = dict(schedule=dispatched_schedule)
            shared = []
            times, statuses = measure_rounds(
                lambda **kw: measure(args.build, matrix, kernel, args.free, args.min_seconds, **kw),
                jobs, args.rounds, shared)
            tuned, status = times["tuned"], statuses["tuned"]
            mlir, heur = times["mlir"], times["heur"]
            eigen, rsb, ref = times.get("eigen"), times.get("rsb"), times.get("ref")
            tuned_bt = times.get("tuned_bt")
            others = {name: (other, times["compare:" + name]) for name, other in others.items()}
            # Torch is timed once: a framework baseline that is often seconds.
            torch_s, torch_status, _ = measure(
                args.build, matrix, kernel, args.free, args.min_seconds,
                baseline="torch") if args.torch else (None, "skipped", None)
            libs = [x for x in (eigen, rsb, ref) if x]
            best_lib = min(libs) if libs else None
            orc = oracle(records, mid, kernel)
            row = {"matrix": mid, "source": matrix, "kernel": kernel, "schedule": schedule,
                   "status": status,
                   "tuned_s": tuned, "mlir_default_s": mlir, "heuristic_s": heur,
                   "eigen_s": eigen, "rsb_s": rsb, "reference_s": ref, "torch_s": torch_s,
                   "torch_status": torch_status, "oracle_sample_s": orc,
                   "best_library_s": best_lib, "tuned_bt_s": tuned_bt,
                   "tuned_vs_best_library": best_lib / tuned if tuned and best_lib else None,
                   "tuned_vs_heuristic": heur / tuned if tuned and heur else None,
                   "tuned_bt_vs_reference": ref / tuned_bt if tuned_bt and ref else None,
                   "tuned_vs_mlir": mlir / tuned if tuned and mlir else None,
                   "tuned_vs_eigen": eigen / tuned if tuned and eigen else None,
                   "tuned_vs_rsb": rsb / tuned if tuned and rsb else None,
                   "tuned_vs_reference": ref / tuned if tuned and ref else None,
                   "tuned_vs_torch": torch_s / tuned if tuned and torch_s else None,
                   "heuristic_vs_mlir": mlir / heur if heur and mlir else None,
                   "oracle_vs_mlir": mlir / orc if orc and mlir else None,
                   # Jobs that compiled one kernel, timed as one.
                   "timed_as_one": shared}
            if dispatched_schedule:
                disp = times.get("dispatched", tuned)
                row.update({"dispatched_variant": variant,
                            "dispatched_schedule": dispatched_schedule, "dispatched_s": disp,
                            "dispatched_vs_tuned": tuned / disp if tuned and disp else None,
                            "dispatched_vs_heuristic": heur / disp if heur and disp else None,
                            "dispatched_vs_mlir": mlir / disp if mlir and disp else None})
            for name, (other, t) in others.items():
                row[f"{name}_schedule"] = other
                row[f"{name}_s"] = t
            add_compare_ratios(row, [n for n, _ in compare])
            rows.append(row)
            f = lambda x: "-" if x is None else f"{x:.2f}"
            print(f"{mid[:30]:30} {kernel:6} tuned/mlir {f(row['tuned_vs_mlir']):>6} "
                  f"tuned/eigen {f(row['tuned_vs_eigen']):>6} tuned/rsb {f(row['tuned_vs_rsb']):>6} "
                  f"tuned/ref {f(row['tuned_vs_reference']):>6} "
                  f"tuned/torch {f(row['tuned_vs_torch']):>6} "
                  f"heur/mlir {f(row['heuristic_vs_mlir']):>6} "
                  f"oracle/mlir {f(row['oracle_vs_mlir']):>6}  {status}", flush=True)
    report(rows, args.kernel.split(","), [n for n, _ in compare], args.json, args.plot)


if __name__ == "__main__":
    main()
