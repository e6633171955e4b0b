"""`python3 -m sptune tune MATRIX --kernel KERNEL`: autotune one kernel for
one matrix and target, print the chosen schedule and the cost model's
ranking, then measure the schedule next to the baselines that apply.

The kernel is written as linalg on #sparse_tensor (sptune.kernel_ir) and
tuned by the pass users run, `sptune-opt --sptune-extract-kernels
--sptune-autotune=...`; the measurements are sptune-measure's: JIT-compiled
and timed on this CPU (cpu), simulated by spade-sim (spade), run on a GPU
(nvvm; on a machine without one the schedule is printed and not measured).
"""

import json
import os

from sptune import autotune, kernel_ir
from sptune import measure as measure_tool
from sptune.errors import SptuneError

TARGETS = ("cpu", "nvvm", "spade")


def register(subparsers):
    ap = subparsers.add_parser(
        "tune", help="autotune a kernel for a matrix, print and measure the schedule",
        description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("matrix", metavar="MATRIX",
                    help="a Matrix Market file (.mtx) or a generator spec "
                         "(gen:KIND:rows=N,nnz=M,...; see `sptune-matrix --help`)")
    ap.add_argument("--kernel", required=True, choices=kernel_ir.KINDS)
    ap.add_argument("--target", default="cpu", choices=TARGETS)
    ap.add_argument("--free", type=int, default=64, metavar="N",
                    help="free dense size: N of SpMM, K of SDDMM (default 64)")
    ap.add_argument("--mode", default="release", choices=("release", "development", "heuristic"),
                    help="cost model mode (default: release, the shipped model)")
    ap.add_argument("--model", help="model file (development mode; release: override)")
    ap.add_argument("--top-k", type=int, default=5, metavar="K",
                    help="candidates of the ranking to show (default 5)")
    ap.add_argument("--measure-top-k", type=int, default=0, metavar="K",
                    help="let sptune-autotune measure its best K candidates and keep the fastest")
    ap.add_argument("--measure-heuristic", action="store_true",
                    help="with --measure-top-k: measure the heuristic schedule too")
    ap.add_argument("--database", metavar="DB",
                    help="tuning database of sptune-autotune (record / replay decisions)")
    ap.add_argument("--baselines", metavar="LIST",
                    help="comma-separated baselines to measure (default per target: "
                         "cpu mlir-default,heuristic,eigen,reference; nvvm heuristic,cusparse; "
                         "spade heuristic); 'none' for none")
    ap.add_argument("--no-measure", dest="measure", action="store_false",
                    help="print the schedule only")
    ap.add_argument("--min-seconds", type=float, default=0.2, metavar="S",
                    help="minimum measured time of each variant (default 0.2)")
    ap.add_argument("--save-ir", metavar="FILE", help="write the tuned kernel's IR here")
    ap.add_argument("--json", metavar="OUT", help="write the result as JSON here")
    ap.set_defaults(func=main)
    return ap


def check_inputs(args):
    m = args.matrix
    if not m.startswith("gen:"):
        if not os.path.exists(m):
            raise SptuneError(f"matrix '{m}': no such file (give a .mtx file or a gen: spec, "
                              f"e.g. gen:uniform:rows=1000,nnz=10000)")
        if os.path.isdir(m):
            raise SptuneError(f"matrix '{m}' is a directory, not a .mtx file")
        args.matrix = os.path.abspath(m)
    for what, value in (("matrix", args.matrix), ("--database", args.database),
                        ("--model", args.model)):
        if value and any(c.isspace() for c in value):
            raise SptuneError(f"{what} '{value}': sptune-autotune's options cannot hold spaces")
    for what, value in (("--json", args.json), ("--save-ir", args.save_ir)):
        folder = os.path.dirname(os.path.abspath(value)) if value else None
        if folder and not os.path.isdir(folder):
            raise SptuneError(f"{what} '{value}': no such directory '{folder}'")
    if args.free < 1:
        raise SptuneError(f"--free must be positive, got {args.free}")
    if not 0 < args.min_seconds <= 3600:  # nan and inf fail too
        raise SptuneError(f"--min-seconds must be in (0, 3600], got {args.min_seconds}")
    if args.top_k < 0 or args.measure_top_k < 0:
        raise SptuneError("--top-k and --measure-top-k must not be negative")
    if args.database:
        if "database" not in autotune.pass_options():
            raise SptuneError(
                "--database: this sptune-opt's sptune-autotune has no 'database' option "
                "(it predates the tuning database; rebuild sptune-opt)")
        args.database = os.path.abspath(args.database)


def baselines(args):
    if args.baselines is None:
        return measure_tool.default_baselines(args.target, args.kernel)
    names = [b.strip() for b in args.baselines.split(",") if b.strip()]
    return [] if names == ["none"] else names


def print_ranking(ranking, schedule):
    if ranking is None:
        print("autotune: (no remark)")
    elif ranking.mode is None:  # e.g. a decision from the tuning database
        print("autotune: " + ranking.text.replace("sptune-autotune: ", "", 1))
    else:
        measured = ", candidates measured" if ranking.measured else ""
        print(f"autotune: {ranking.mode} cost model, {ranking.candidates} candidates ranked "
              f"in {ranking.rank_ms:.1f} ms{measured}; best of the ranking:")
        for c in ranking.top:
            tag = "+ heuristic " if c.heuristic else ""
            extra = f", measured {c.measured_ms:.3f} ms" if c.measured_ms is not None else ""
            extra += f" ({c.status})" if c.status else ""
            print(f"  {tag}#{c.rank} score {c.score:.3f}{extra}: {c.schedule}")
        for note in ranking.notes:
            print(f"  note: {note}")
    print(f"schedule: #sptune.schedule<{schedule}>")


def measurements(args, schedule):
    """[(variant, result)]: the tuned schedule, then the baselines (none when
    the tuned schedule cannot run here)."""
    kw = dict(min_seconds=args.min_seconds, timeout=max(120.0, 50 * args.min_seconds))
    tuned = measure_tool.measure(args.matrix, args.kernel, args.free, schedule=schedule, **kw)
    out = [("tuned", tuned)]
    if tuned.get("status") != "ok" and args.target == "nvvm":
        return out
    for b in baselines(args):
        out.append((b, measure_tool.measure(args.matrix, args.kernel, args.free, baseline=b,
                                            target=args.target, **kw)))
    return out


def print_table(args, results):
    tuned_s = measure_tool.seconds(results[0][1])
    simulated = args.target == "spade"
    info = next((r.get("matrix") for _, r in results if r.get("matrix", {}).get("rows")), None)
    if info:
        print(f"matrix: {info['rows']} x {info['cols']}, {info['nnz']} nonzeros")
    how = ("simulated by spade-sim (sptune-measure)" if simulated else
           f"sptune-measure, median time, at least {args.min_seconds:g} s of runs each")
    print(f"measured ({how}):")
    header = f"  {'variant':14} {'time (ms)':>12} {'tuned speedup':>14}"
    header += f" {'cycles':>12}" if simulated else f" {'runs':>6}"
    print(header)
    for name, r in results:
        t = measure_tool.seconds(r)
        if t is None:
            reason = r.get("reason") or r.get("status", "failed")
            print(f"  {name:14} {'n/a':>12}   ({r.get('status', 'error')}: {reason})")
            continue
        speedup = f"{t / tuned_s:.2f}x" if tuned_s else "-"
        ms = t * 1e3
        line = f"  {name:14} {ms:12.4g} {speedup:>14}" if ms < 1e4 else \
            f"  {name:14} {ms:12.0f} {speedup:>14}"
        if simulated:
            line += f" {r.get('cycles') or '-':>12}"
        else:
            line += f" {(r.get('time_s') or {}).get('reps', '-'):>6}"
        print(line)
    print("  (tuned speedup = the variant's time / the tuned schedule's time)")


def result_json(args, schedule, ranking, results):
    tuned_s = measure_tool.seconds(results[0][1]) if results else None
    rows = []
    for name, r in results:
        t = measure_tool.seconds(r)
        rows.append({"variant": name, "status": r.get("status"), "reason": r.get("reason") or None,
                     "schedule": r.get("schedule") or None, "time_s": t,
                     "reps": (r.get("time_s") or {}).get("reps"), "cycles": r.get("cycles"),
                     "tuned_speedup": t / tuned_s if t and tuned_s else None})
    info = next((r.get("matrix") for _, r in results if r.get("matrix", {}).get("rows")), None)
    return {"format": "sptune-tune", "version": 1, "matrix": args.matrix, "matrix_info": info,
            "kernel": args.kernel, "target": args.target, "free": args.free, "mode": args.mode,
            "schedule": schedule, "autotune": ranking.to_json() if ranking else None,
            "min_seconds": args.min_seconds, "measurements": rows}


def main(args):
    check_inputs(args)
    print(f"sptune tune: {args.kernel} on {args.matrix}, target {args.target}, "
          f"free size {args.free}", flush=True)
    schedule, ranking = autotune.pick(
        args.kernel, args.matrix, args.free, target=args.target, mode=args.mode,
        model=args.model, top_k=args.top_k, measure_top_k=args.measure_top_k,
        measure_heuristic=args.measure_heuristic, database=args.database,
        save_ir=args.save_ir)
    print_ranking(ranking, schedule)
    results = []
    if args.measure:
        print(flush=True)
        results = measurements(args, schedule)
        tuned = results[0][1]
        if tuned.get("status") != "ok" and args.target == "nvvm":
            print(f"not measured: nvvm code cannot run on this machine "
                  f"({tuned.get('reason') or tuned.get('status')})")
        else:
            print_table(args, results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result_json(args, schedule, ranking, results), f, indent=1)
        print(f"wrote {args.json}")
    if results and results[0][1].get("status") != "ok" and args.target != "nvvm":
        r = results[0][1]
        raise SptuneError(f"the tuned schedule failed to measure ({r.get('status')}: "
                          f"{r.get('reason')})")
    # A baseline that does not exist is a mistake in the command, not a
    # measurement that failed (it printed n/a and exited 0).
    for name, r in results[1:]:
        reason = (r.get("reason") or "").replace("sptune-measure: ", "", 1)
        if reason.startswith("unknown baseline"):
            raise SptuneError(f"--baselines: {reason}")
    return 0
