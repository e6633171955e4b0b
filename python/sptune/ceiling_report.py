"""The measurement ceiling report (issue: Measurement / benchmark).

For each (matrix, kernel) of a dataset: the best sampled schedule's speedup
over the MLIR default, Eigen and autotuned librsb, the heuristic's speedup
over the MLIR default, compile time per schedule and measurements per
minute; geometric means over matrices. Writes JSON and prints a table; optionally plots the
speedup distribution.

    /usr/bin/python3 -m sptune.ceiling_report data.jsonl --json out.json \
        [--plot speedups.png] [--min-nnz 50000]
"""

import argparse
import datetime
import json
import sys

from sptune import dataset


def parse_time(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")


def analyze(records, min_nnz=0):
    rows = []
    for (mid, kernel, free, target, bits), recs in sorted(dataset.problems(records).items()):
        nnz = recs[0]["matrix"]["nnz"]
        if nnz < min_nnz:
            continue
        by_role = {}
        samples = []
        for r in recs:
            if r["role"] == "sample":
                samples.append(r)
            else:
                by_role[r["role"]] = r
        mlir = dataset.ok_time(by_role.get("baseline:mlir-default", {}))
        eigen = dataset.ok_time(by_role.get("baseline:eigen", {}))
        rsb = dataset.ok_time(by_role.get("baseline:rsb", {}))
        heur = dataset.ok_time(by_role.get("baseline:heuristic", {}))
        ok = [(dataset.ok_time(s), s) for s in samples if dataset.ok_time(s)]
        best_t, best = min(ok, key=lambda x: x[0]) if ok else (None, None)
        compile_times = [r.get("compile_s", 0) for r in recs if r.get("compile_s")]
        rows.append({
            "matrix": mid, "kernel": kernel, "free": free, "bits": bits, "nnz": nnz,
            "samples": len(samples), "samples_ok": len(ok),
            "mlir_default_s": mlir, "eigen_s": eigen, "rsb_s": rsb, "heuristic_s": heur,
            "best_sample_s": best_t,
            "best_sample": best["schedule"] if best else None,
            "best_vs_mlir": mlir / best_t if mlir and best_t else None,
            "best_vs_eigen": eigen / best_t if eigen and best_t else None,
            "best_vs_rsb": rsb / best_t if rsb and best_t else None,
            "heuristic_vs_rsb": rsb / heur if rsb and heur else None,
            "heuristic_vs_mlir": mlir / heur if mlir and heur else None,
            "mean_compile_s": sum(compile_times) / len(compile_times) if compile_times else None,
        })
    return rows


def summarize(rows, records):
    out = {}
    for kernel in sorted({r["kernel"] for r in rows}):
        k = [r for r in rows if r["kernel"] == kernel]
        out[kernel] = {
            "matrices": len(k),
            "geomean_best_vs_mlir": dataset.geomean([r["best_vs_mlir"] for r in k]),
            "geomean_best_vs_eigen": dataset.geomean([r["best_vs_eigen"] for r in k]),
            "geomean_best_vs_rsb": dataset.geomean([r["best_vs_rsb"] for r in k]),
            "geomean_heuristic_vs_rsb": dataset.geomean([r["heuristic_vs_rsb"] for r in k]),
            "geomean_heuristic_vs_mlir": dataset.geomean([r["heuristic_vs_mlir"] for r in k]),
            "mean_compile_s": dataset.geomean([r["mean_compile_s"] for r in k]),
        }
    times = sorted(parse_time(r["time"]) for r in records if "time" in r)
    if len(times) > 1:
        minutes = (times[-1] - times[0]).total_seconds() / 60
        out["measurements_per_minute"] = len(times) / minutes if minutes > 0 else None
    statuses = {}
    for r in records:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    out["statuses"] = statuses
    return out


def fmt(x, spec=".2f"):
    # None: not measured; NaN: a geometric mean over nothing (no SDDMM in Eigen).
    return "-" if x is None or x != x else format(x, spec)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="+")
    ap.add_argument("--json", help="write the report here")
    ap.add_argument("--plot", help="write a speedup plot (PNG) here")
    ap.add_argument("--min-nnz", type=int, default=0)
    args = ap.parse_args(argv)
    records, bad = dataset.load(args.data)
    if not records:
        sys.exit("ceiling_report: no records in " + ", ".join(args.data))
    rows = analyze(records, args.min_nnz)
    summary = summarize(rows, records)
    print(f"{'matrix':32} {'kernel':6} {'nnz':>9} {'best/mlir':>9} {'best/eigen':>10} {'best/rsb':>8} {'heur/mlir':>9} {'compile_s':>9}")
    for r in rows:
        print(f"{r['matrix'][:32]:32} {r['kernel']:6} {r['nnz']:9d} {fmt(r['best_vs_mlir']):>9} "
              f"{fmt(r['best_vs_eigen']):>10} {fmt(r['best_vs_rsb']):>8} {fmt(r['heuristic_vs_mlir']):>9} {fmt(r['mean_compile_s'], '.3f'):>9}")
    for kernel, s in summary.items():
        if isinstance(s, dict) and "matrices" in s:
            print(f"{kernel}: {s['matrices']} matrices, geomean best/mlir {fmt(s['geomean_best_vs_mlir'])}, "
                  f"best/eigen {fmt(s['geomean_best_vs_eigen'])}, best/rsb {fmt(s['geomean_best_vs_rsb'])}, "
                  f"heuristic/rsb {fmt(s['geomean_heuristic_vs_rsb'])}, heuristic/mlir {fmt(s['geomean_heuristic_vs_mlir'])}, "
                  f"compile {fmt(s['mean_compile_s'], '.3f')} s")
    print("measurements per minute:", fmt(summary.get("measurements_per_minute"), ".1f"))
    print("statuses:", summary["statuses"], f"(unparseable lines: {bad})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"summary": summary, "rows": rows}, f, indent=1)
    if args.plot:
        plot(rows, args.plot)


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    kernels = sorted({r["kernel"] for r in rows})
    fig, axes = plt.subplots(1, len(kernels), figsize=(6 * len(kernels), 4), squeeze=False)
    for ax, kernel in zip(axes[0], kernels):
        k = sorted((r for r in rows if r["kernel"] == kernel and r["best_vs_mlir"]),
                   key=lambda r: r["best_vs_mlir"])
        xs = range(len(k))
        ax.bar(xs, [r["best_vs_mlir"] for r in k], label="best sampled / MLIR default")
        ax.plot(xs, [r["heuristic_vs_mlir"] or float("nan") for r in k], "k.", label="heuristic / MLIR default")
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_yscale("log")
        ax.set_title(f"{kernel}: speedup over the MLIR default")
        ax.set_xlabel("matrices (sorted)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
