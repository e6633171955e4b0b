"""The sections of `sptune report`, one builder per results format: plots
with a table of their numbers under each, and summary tables.

Each builder takes a report_html.Section and the data report_formats
recognized, and adds blocks to the section."""

import math
import os
import tempfile
import textwrap

import numpy as np

from sptune import ceiling_report, learn_experiment
from sptune import report_plots as plots
from sptune.report_html import figure, heading, num, paragraph, png, speedup, table


WORDS = {"mlir": "MLIR default", "mlir_default": "MLIR default", "best_library": "best library",
         "bt": "B^T given", "tuned_bt": "tuned, B^T given", "best": "best sample",
         "oracle_sample": "oracle", "best_sample": "best sample", "top1": "top-1",
         "top5": "top-5"}


def label(key):
    """A column name for a results key: times in ms, speedups 'a vs b'."""
    if key.endswith("_s"):
        base = key[:-2]
        return WORDS.get(base, base.replace("_", " ")) + " (ms)"
    if "_vs_" in key:
        a, b = key.split("_vs_", 1)
        return f"{WORDS.get(a, a.replace('_', ' '))} vs {WORDS.get(b, b.replace('_', ' '))}"
    return WORDS.get(key, key.replace("_", " "))


def present(rows, keys):
    """`keys` that some row has a value for (not None, not NaN)."""
    return [k for k in keys if any(_value(r.get(k)) is not None for r in rows)]


def _value(x):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return None if math.isnan(x) else x


def distribution(values):
    """n, min, p10, p25, median, p75, p90, max, geomean and share >= 1 of
    positive `values`, formatted."""
    v = np.array([x for x in values if _value(x) and x > 0], dtype=float)
    if not len(v):
        return [0] + ["-"] * 9
    q = np.percentile(v, [0, 10, 25, 50, 75, 90, 100])
    return ([len(v)] + [speedup(x) for x in q] +
            [speedup(float(np.exp(np.log(v).mean()))), num(100 * float((v >= 1).mean()), ".0f", "%")])


DISTRIBUTION = ["n", "min", "p10", "p25", "median", "p75", "p90", "max", "geomean", ">= 1x"]


def summary_table(summary, caption):
    """A kernel x metric table of a {kernel: {metric: number}} summary (the
    metrics that are numbers somewhere), and a table of the other entries."""
    def is_kernel(k, v):
        return isinstance(v, dict) and (k in ("spmm", "sddmm", "spmv") or
                                        any(isinstance(x, float) for x in v.values()))
    kernels = [k for k, v in summary.items() if is_kernel(k, v)]
    keys = []
    for k in kernels:
        for key, value in summary[k].items():
            if key not in keys and _value(value) is not None:
                keys.append(key)
    blocks = [table(["kernel"] + [label(k) for k in keys],
                    [[k] + [num(summary[k].get(key), ".3g") for key in keys] for k in kernels],
                    caption=caption)] if kernels else []
    others = [[label(k), ", ".join(f"{a} {b}" for a, b in v.items()) if isinstance(v, dict)
               else num(v, ".4g")] for k, v in summary.items() if k not in kernels]
    if others:
        blocks.append(table(["", "value"], others))
    return blocks


class SpeedupRows:
    """How to show a {summary, rows} file of speedups per matrix and kernel."""

    def __init__(self, primary, markers, times, speedups, cdf):
        self.primary, self.markers = primary, markers
        self.times, self.speedups, self.cdf = times, speedups, cdf


def speedup_rows(sec, rows, summary, how):
    """Per kernel: a bar chart of the primary speedup per matrix (markers for
    the others) and its table; one figure of CDFs of the speedups over all
    kernels, with a table of their distribution; the summary table."""
    kernels = sorted({r["kernel"] for r in rows}, key=lambda k: ["spmm", "sddmm", "spmv"].index(k)
                     if k in ("spmm", "sddmm", "spmv") else 9)
    if summary:
        sec.add(*summary_table(summary, "Summary (geometric means over matrices)"))
    for kernel in kernels:
        k = [r for r in rows if r["kernel"] == kernel]
        k.sort(key=lambda r: (_value(r.get(how.primary)) is None, _value(r.get(how.primary)) or 0))
        sec.add(heading(f"{kernel}: {label(how.primary)}, per matrix"))
        shown = [r for r in k if _value(r.get(how.primary))]
        if shown:
            sec.add(figure(plots.speedup_bars(
                [str(r["matrix"]) for r in shown], [r[how.primary] for r in shown],
                [(label(m), [_value(r.get(m)) for r in shown]) for m in present(shown, how.markers)],
                title=f"{kernel}: {label(how.primary)} (log scale; above 1 = faster)",
                ylabel=label(how.primary)), f"{kernel} speedups per matrix"))
        times = present(k, how.times)
        speeds = present(k, how.speedups)
        sec.add(table(["matrix"] + [label(t) for t in times] + [label(s) for s in speeds],
                      [[r["matrix"]] + [num(r[t] * 1e3 if _value(r.get(t)) else None, ".4g")
                                        for t in times] +
                       [speedup(_value(r.get(s))) for s in speeds] for r in k],
                      caption=f"{kernel}: times (ms) and speedups per matrix ({len(k)} matrices)"))
    series = [(kernel, [(label(c), [r.get(c) for r in rows if r["kernel"] == kernel])
                        for c in present([r for r in rows if r["kernel"] == kernel], how.cdf)])
              for kernel in kernels]
    series = [(kernel, s) for kernel, s in series if s]
    if series:
        sec.add(heading("Distribution of the speedups over matrices (CDF)"))
        sec.add(figure(plots.cdfs(series), "CDFs of speedups"))
        sec.add(table(["kernel", "speedup"] + DISTRIBUTION,
                      [[kernel, name] + distribution(values)
                       for kernel, s in series for name, values in s],
                      caption="Distribution of the speedups"))


def autotune_eval(sec, doc):
    rows = doc["rows"]
    fixed = {"tuned", "heuristic", "oracle"}
    others = sorted({k[:-len("_vs_mlir")] for r in rows for k in r
                     if k.endswith("_vs_mlir") and k[:-len("_vs_mlir")] not in fixed})
    how = SpeedupRows(
        primary="tuned_vs_mlir",
        markers=["heuristic_vs_mlir", "oracle_vs_mlir"] + [f"{o}_vs_mlir" for o in others],
        times=["tuned_s", "mlir_default_s", "heuristic_s", "eigen_s", "rsb_s", "reference_s",
               "torch_s", "oracle_sample_s", "tuned_bt_s"] + [f"{o}_s" for o in others],
        speedups=["tuned_vs_mlir", "heuristic_vs_mlir", "oracle_vs_mlir"] +
                 [f"{o}_vs_mlir" for o in others] +
                 ["tuned_vs_heuristic", "tuned_vs_best_library", "tuned_vs_eigen", "tuned_vs_rsb",
                  "tuned_vs_reference", "tuned_vs_torch", "tuned_bt_vs_reference"] +
                 [f"tuned_vs_{o}" for o in others],
        cdf=["tuned_vs_mlir", "heuristic_vs_mlir"] + [f"{o}_vs_mlir" for o in others] +
            ["oracle_vs_mlir", "tuned_vs_best_library"])
    sec.add(paragraph("Speedups are the other's time over the first's (tuned_vs_mlir = "
                      "MLIR default time / autotuned time: above 1, the autotuned schedule is "
                      "faster)."))
    speedup_rows(sec, rows, doc.get("summary"), how)


CEILING = SpeedupRows(
    primary="best_vs_mlir", markers=["heuristic_vs_mlir"],
    times=["best_sample_s", "mlir_default_s", "heuristic_s", "eigen_s", "rsb_s"],
    speedups=["best_vs_mlir", "heuristic_vs_mlir", "best_vs_eigen", "best_vs_rsb",
              "heuristic_vs_rsb"],
    cdf=["best_vs_mlir", "heuristic_vs_mlir", "best_vs_eigen", "best_vs_rsb"])


def ceiling(sec, doc):
    sec.add(paragraph("The best sampled schedule per matrix against the baselines: the "
                      "ceiling a perfect ranking of these samples reaches."))
    speedup_rows(sec, doc["rows"], doc.get("summary"), CEILING)


def dataset(sec, records):
    rows = ceiling_report.analyze(records)
    if not rows:
        sec.add(paragraph("No problems in this dataset."))
        return
    sec.add(paragraph(f"{len(records)} records, {len(rows)} problems (matrix, kernel, free "
                      f"size, target), analyzed as sptune.ceiling_report does."))
    speedup_rows(sec, rows, ceiling_report.summarize(rows, records), CEILING)


def learn_curves(sec, doc):
    curves = doc["curves"]
    # Older documents: one split, a reference cost and a seed count; newer:
    # per split, and the seeds listed.
    ref = doc.get("reference_cost_s")
    ref_text = (", ".join(f"{num(v, '.1f')} (split {k})" for k, v in ref.items())
                if isinstance(ref, dict) else num(ref, ".1f"))
    seeds = doc.get("seeds")
    seeds_text = (f"{len(seeds)} ({seeds[0]}-{seeds[-1]})" if isinstance(seeds, list) and seeds
                  else num(seeds))
    splits = doc.get("split_seeds")
    sec.add(table(["reference cost (s)", "full-data top-1", "full-data tau", "seeds",
                   "validation splits", "rounds at"],
                  [[ref_text, speedup(doc.get("full_top1")),
                    num(doc.get("full_tau"), ".3f"), seeds_text,
                    ", ".join(str(x) for x in splits) if splits else "1",
                    doc.get("rounds_at", "-")]], caption="Replay"))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "curves.png")
        learn_experiment.plot(curves, doc["full_top1"], doc["full_tau"], path,
                              "active learning in replay")
        with open(path, "rb") as f:
            sec.add(heading("Learning curves"), png(f.read(), "learning curves"))
    first = next(iter(curves.values()), [])
    budgets = [f"{100 * p['budget_fraction']:.1f}%" for p in first]
    for key, name, fmt in (("top1_geomean", "validation top-1 speedup (geomean over runs)",
                            speedup),
                           ("tau_mean", "validation Kendall tau (mean over runs)",
                            lambda x: num(x, ".3f"))):
        sec.add(table(["strategy"] + budgets,
                      [[s] + [fmt(p.get(key)) for p in c] for s, c in curves.items()],
                      caption=f"{name}, per round (mean budget, % of the full dataset's cost)"))
    bar = doc.get("bar") or {}
    rows = []
    against_best = any("best_arm" in row for r in (bar.get("policies") or {}).values()
                       for row in r.get("rows", []))
    for policy, r in (bar.get("policies") or {}).items():
        at = r.get("reaches_95pct_at")
        for row in r.get("rows", []):
            cells = [policy, num(100 * row["budget_fraction"], ".1f", "%"),
                     speedup(row.get("bandit"))]
            if against_best:
                pv = row.get("paired_vs_best_arm") or {}
                cells += [f"{row.get('best_arm', '-')} {speedup(row.get('best_arm_top1'))}",
                          f"{pv.get('wins', '-')}/{pv.get('ties', '-')}/{pv.get('losses', '-')}",
                          "yes" if row.get("at_least_best_arm") else "no"]
            else:
                cells += [speedup(row.get("random")), speedup(row.get("rs2")),
                          "yes" if row.get("beats_random_and_rs2") else "no"]
            cells.append("never" if at is None else num(100 * at, ".1f", "%"))
            rows.append(cells)
    if rows:
        if against_best:
            sec.add(table(["policy", "budget", "bandit top-1", "best single arm",
                           "paired wins/ties/losses", "at least the best arm",
                           "reaches 95% of full at"], rows,
                          caption="The bar: the bandit against the best single arm at "
                                  "small budgets"))
        else:
            sec.add(table(["policy", "budget", "bandit top-1", "random", "rs2",
                           "beats random and rs2", "reaches 95% of full at"], rows,
                          caption="The bar: the bandit against random and RS2 at small "
                                  "budgets"))


def learn_rounds(sec, rounds):
    rounds = sorted(rounds, key=lambda r: r["round"])
    cost = [r.get("cumulative_cost_s") for r in rounds]
    v = [r["validation"] for r in rounds]
    oracle = [x.get("oracle_speedup") for x in v]
    sec.add(heading("Learning curve"))
    sec.add(figure(plots.curves(
        [("validation speedup over the default", "speedup",
          [("top-1", cost, [x.get("top1_speedup") for x in v], None, None),
           ("top-5", cost, [x.get("top5_speedup") for x in v], None, None)],
          [("oracle (best measured)", oracle[-1] if oracle else None)]),
         ("validation Kendall tau", "tau",
          [("tau", cost, [x.get("kendall_tau") for x in v], None, None)], [])],
        xlabel="cumulative measurement cost (s)"), "learning curve of the rounds"))
    sec.add(table(["round", "strategy", "arm", "measured", "total measured", "cost (s)",
                   "cumulative (s)", "top-1", "top-5", "oracle", "tau", "reward"],
                  [[r["round"], r.get("strategy", "-"), r.get("arm") or "-",
                    num(r.get("measured")), num(r.get("total_measured")),
                    num(r.get("cost_s"), ".1f"), num(r.get("cumulative_cost_s"), ".1f"),
                    speedup(x.get("top1_speedup")), speedup(x.get("top5_speedup")),
                    speedup(x.get("oracle_speedup")), num(x.get("kendall_tau"), ".3f"),
                    num(r.get("reward"), ".3f")] for r, x in zip(rounds, v)],
                  caption=f"{len(rounds)} rounds"))


def transfer(sec, rows):
    sizes = sorted({r["matrices"] for r in rows})
    stats = {}
    for how in ("finetune", "scratch"):
        for metric in ("tau", "top1"):
            for n in sizes:
                vals = [r[how][metric] for r in rows
                        if r["matrices"] == n and _value(r[how].get(metric)) is not None]
                stats[how, metric, n] = (sum(vals) / len(vals), min(vals), max(vals)) \
                    if vals else (None, None, None)
    names = {"finetune": "fine-tuned from CPU", "scratch": "from scratch"}
    panels = []
    for metric, title, ylabel in (("tau", "held-out Kendall tau", "Kendall tau"),
                                  ("top1", "held-out top-1 speedup over the default",
                                   "top-1 speedup")):
        lines = []
        for how in ("finetune", "scratch"):
            s = [stats[how, metric, n] for n in sizes]
            lo = [x[1] if x[1] is not None else float("nan") for x in s]
            hi = [x[2] if x[2] is not None else float("nan") for x in s]
            lines.append((names[how], sizes, [x[0] for x in s], lo, hi))
        panels.append((title + " (mean; band: min-max over seeds)", ylabel, lines, []))
    sec.add(heading("Transfer learning curve"))
    sec.add(figure(plots.curves(panels, xlabel="target training matrices"),
                   "transfer learning curve"))
    sec.add(table(["matrices", "seeds", "samples (mean)", "fine-tuned tau", "scratch tau",
                   "fine-tuned top-1", "scratch top-1"],
                  [[n, sum(1 for r in rows if r["matrices"] == n),
                    num(np.mean([r["samples"] for r in rows if r["matrices"] == n]), ".0f"),
                    num(stats["finetune", "tau", n][0], ".3f"),
                    num(stats["scratch", "tau", n][0], ".3f"),
                    speedup(stats["finetune", "top1", n][0]),
                    speedup(stats["scratch", "top1", n][0])] for n in sizes],
                  caption="Means over seeds"))


def _mean(entry, metric):
    m = entry.get(metric)
    return m.get("mean") if isinstance(m, dict) else None


def transfer_experiment(sec, doc):
    ks = doc["k"]
    pos = {str(k): i for i, k in enumerate(ks)}
    variants = [v for v in doc["variants"] if any(r["variant"] == v for r in doc["summary"])]
    by = {(r["variant"], str(r["k"])): r for r in doc["summary"]}
    panels = []
    for metric, title in (("top1", "held-out top-1 speedup over the default"),
                          ("tau", "held-out Kendall tau")):
        lines = []
        for v in variants:
            pts = [(pos[str(k)], by[v, str(k)]) for k in ks if (v, str(k)) in by]
            if v == "all" or len(pts) < 2:
                continue
            xs = [x for x, _ in pts]
            lo = [(r.get(metric) or {}).get("min", float("nan")) for _, r in pts]
            hi = [(r.get(metric) or {}).get("max", float("nan")) for _, r in pts]
            lines.append((v, xs, [_mean(r, metric) for _, r in pts], lo, hi))
        refs = [("all data", _mean(by["all", "all"], metric))] if ("all", "all") in by else []
        panels.append((title + " (mean; band: min-max over seeds)", metric, lines, refs))
    fig = plots.curves(panels, xlabel="target training matrices (k; position)")
    for ax in fig.axes:
        ax.set_xticks(range(len(ks)))
        ax.set_xticklabels([str(k) for k in ks])
    sec.add(figure(fig, "transfer learning curve per variant"))
    for metric, caption in (("top1", "top-1 speedup over the default"),
                            ("top5", "top-5 speedup over the default"),
                            ("over_median", "top-1 speedup over the median configuration"),
                            ("tau", "Kendall tau")):
        fmt = (lambda x: num(x, ".3f")) if metric == "tau" else speedup
        sec.add(table(["variant"] + [f"k={k}" for k in ks],
                      [[v] + [fmt(_mean(by[v, str(k)], metric)) if (v, str(k)) in by else "-"
                              for k in ks] for v in variants],
                      caption=f"{caption} (mean of seeds; held-out matrices)"))


def spade_headroom(sec, doc):
    rows = doc["problems"]
    kernels = sorted({r["kernel"] for r in rows})
    sec.add(figure(plots.cdfs(
        [(k.upper(), [("before calibration",
                       [r["before_best_over_default"] for r in rows if r["kernel"] == k]),
                      ("calibrated",
                       [r["after_best_over_default"] for r in rows if r["kernel"] == k])])
         for k in kernels], xlabel="best configuration / SPADE default (log scale)"),
        "headroom CDFs"))
    sec.add(table(["kernel", "problems", "best/default before", "after", "max before",
                   "max after", "median/default before", "after"],
                  [[k, num(s.get("problems")), speedup(s.get("before_best_over_default")),
                    speedup(s.get("after_best_over_default")), speedup(s.get("before_max")),
                    speedup(s.get("after_max")), speedup(s.get("before_default_over_median")),
                    speedup(s.get("after_default_over_median"))]
                   for k, s in sorted(doc["summary"].items())],
                  caption="Geometric means over the problems"))


KNOB_RESTRICTIONS = ["all knobs", "shared knobs only (bypass, barrier, reorder at default)",
                     "reorder at default", "bypass at default"]


def spade_knob_headroom(sec, doc):
    """bench/spade-knob-headroom.py: best / default per matrix family with
    every knob and with the SPADE-only knobs held at their defaults; how
    often the best configuration moves each knob; the CPU data's fastest
    schedules."""
    spade = doc["spade"]
    fams = spade.get("families") or {}
    names = list(fams) + ["all"]
    blocks = [fams[f] for f in fams] + [spade]
    sec.add(figure(plots.speedup_bars(
        [f"{n} ({b.get('problems', '?')})" for n, b in zip(names, blocks)],
        [b.get(KNOB_RESTRICTIONS[0]) for b in blocks],
        [("shared knobs only", [b.get(KNOB_RESTRICTIONS[1]) for b in blocks])],
        title="best / SPADE default per family, with and without the SPADE-only knobs",
        ylabel="best / default"), "headroom by family"))
    share = spade.get("share of the log headroom needing SPADE-only knobs")
    sec.add(table(["family", "problems", "every knob", "shared knobs only", "reorder held",
                   "bypass held"],
                  [[n, num(b.get("problems")), *[speedup(b.get(r)) for r in KNOB_RESTRICTIONS]]
                   for n, b in zip(names, blocks)],
                  caption="Best / default, geometric means"
                  + (f"; {share:.0%} of the log headroom needs the SPADE-only knobs"
                     if isinstance(share, (int, float)) else "")))
    moved = spade.get("best moves the knob (share of problems)") or {}
    if moved:
        sec.add(table(["knob", "best configuration moves it"],
                      [[k, f"{v:.0%}"] for k, v in moved.items()
                       if isinstance(v, (int, float))],
                      caption="How often the best configuration leaves each knob's default"))
    cpu = doc.get("cpu")
    if isinstance(cpu, dict):
        sec.add(table(["CPU problems", *[k for k in cpu if k != "problems"]],
                      [[num(cpu.get("problems")),
                        *[f"{v:.0%}" if isinstance(v, (int, float)) else "-"
                          for k, v in cpu.items() if k != "problems"]]],
                      caption="The CPU data's fastest schedule per problem"))


METRICS = ["samples", "groups", "kendall_tau", "pair_accuracy", "top1_speedup", "top5_speedup",
           "oracle_speedup", "mape", "median_ape"]


def model_metrics(sec, doc):
    parts = [p for p in ("train", "heldout") if isinstance(doc.get(p), dict)]
    sec.add(table(["", *[label(m) for m in METRICS]],
                  [[p] + [num(doc[p].get(m), ".4g") for m in METRICS] for p in parts],
                  caption=f"Ranking metrics of model {doc.get('model', '?')}"))
    prov = doc.get("provenance") or {}
    scalars = [(k, v) for k, v in prov.items() if not isinstance(v, (dict, list))]
    if scalars:
        sec.add(table(["", "value"], [[label(k), num(v, ".4g")] for k, v in scalars],
                      caption="Provenance"))
    groups = (doc.get("heldout") or {}).get("per_group") or []
    if not groups:
        return
    groups = sorted(groups, key=lambda g: g.get("top1_speedup") or 0)
    keys = [g.get("key", "?") for g in groups]
    sec.add(heading("Held-out problems: the model's top-1 pick against the default schedule"))
    sec.add(figure(plots.speedup_bars(
        keys, [g.get("top1_speedup") for g in groups],
        [("top-5", [g.get("top5_speedup") for g in groups]),
         ("oracle (best sample)", [g.get("oracle_speedup") for g in groups])],
        title="held-out top-1 speedup over the default schedule, per problem",
        ylabel="top-1 speedup"), "held-out speedups per problem"))
    sec.add(table(["problem", "samples", "top-1", "top-5", "oracle", "kendall tau",
                   "pair accuracy"],
                  [[g.get("key"), num(g.get("samples")), speedup(g.get("top1_speedup")),
                    speedup(g.get("top5_speedup")), speedup(g.get("oracle_speedup")),
                    num(g.get("kendall_tau"), ".3f"), num(g.get("pair_accuracy"), ".3f")]
                   for g in groups], caption=f"{len(groups)} held-out problems"))
    series = [(name, [g.get(key) for g in groups]) for name, key in
              (("top-1", "top1_speedup"), ("top-5", "top5_speedup"),
               ("oracle", "oracle_speedup"))]
    sec.add(heading("Distribution over held-out problems (CDF)"))
    sec.add(figure(plots.cdfs([("held-out speedups over the default", series)],
                              ylabel="fraction of problems at or below"),
                   "CDF of held-out speedups"))
    sec.add(table(["speedup"] + DISTRIBUTION, [[n] + distribution(v) for n, v in series],
                  caption="Distribution"))


def gpu_bench(sec, results):
    if not results:
        sec.add(paragraph("No measurements."))
        return
    labels = [f"{r.get('matrix')} {r.get('kernel')}" for r in results]
    codegen = [r["cusparse_s"] / r["codegen_s"] if _value(r.get("cusparse_s")) and
               _value(r.get("codegen_s")) else None for r in results]
    sec.add(heading("Tuned NVVM kernels against cuSPARSE"))
    if any(_value(r.get("speedup")) for r in results):
        sec.add(figure(plots.speedup_bars(
            labels, [_value(r.get("speedup")) for r in results],
            [("code generation only / cuSPARSE", codegen)],
            title="speedup over cuSPARSE per matrix (log scale)",
            ylabel="tuned / cuSPARSE"), "speedups over cuSPARSE"))
    sec.add(table(["matrix", "kernel", "device", "nnz", "cuSPARSE (ms)", "tuned (ms)",
                   "code generation (ms)", "tuned vs cuSPARSE", "code generation vs cuSPARSE",
                   "tuned schedule"],
                  [[r.get("matrix"), r.get("kernel"), r.get("device", "-"), num(r.get("nnz")),
                    num(r["cusparse_s"] * 1e3 if _value(r.get("cusparse_s")) else None, ".4g"),
                    num(r["tuned_s"] * 1e3 if _value(r.get("tuned_s")) else None, ".4g"),
                    num(r["codegen_s"] * 1e3 if _value(r.get("codegen_s")) else None, ".4g"),
                    speedup(_value(r.get("speedup"))), speedup(c), r.get("tuned_schedule", "-")]
                   for r, c in zip(results, codegen)], caption=f"{len(results)} measurements"))


def gpu_check(sec, doc):
    lit = doc.get("lit") or {}
    bench = doc["bench"]
    sec.add(table(["GPU", "lit passed", "lit failed", "lit unsupported", "bench status",
                   "geomean tuned vs cuSPARSE", "geomean heuristic vs cuSPARSE", "seconds"],
                  [[doc.get("gpu", "-"), num(lit.get("passed")), num(lit.get("failed")),
                    num(lit.get("unsupported")), num(bench.get("status")),
                    speedup(bench.get("geomean_speedup_tuned_over_cusparse")),
                    speedup(bench.get("geomean_speedup_heuristic_over_cusparse")),
                    ", ".join(f"{k} {v}" for k, v in (doc.get("seconds") or {}).items())]],
                  caption="GPU device check"))
    gpu_bench(sec, bench["results"])


def _matrix_name(m):
    return m if m.startswith("gen:") else os.path.splitext(os.path.basename(m))[0]


def tune(sec, docs):
    """Every `sptune tune --json` result: speedups of the tuned schedule
    over each baseline, per (matrix, kernel, target)."""
    baselines = []
    for d in docs:
        for m in d.get("measurements", [])[1:]:
            if m["variant"] not in baselines:
                baselines.append(m["variant"])
    labels, names, times = [], [], []
    for d in docs:
        m = _matrix_name(d["matrix"])
        names.append(f"{d['kernel']} on {m} ({d['target']})")
        wrapped = "\n".join(textwrap.wrap(m.replace(",", ", "), 30)[:3]).replace(", ", ",")
        labels.append(f"{d['kernel']} {d['target']}\n{wrapped}")
        times.append({m["variant"]: m for m in d.get("measurements", [])})
    series = [(f"tuned vs {b}", [(t.get(b) or {}).get("tuned_speedup") for t in times])
              for b in baselines]
    series = [(n, v) for n, v in series if any(_value(x) for x in v)]
    sec.add(heading("Speedup of the tuned schedule over the baselines"))
    if series:
        sec.add(figure(plots.grouped_bars(labels, series,
                                          title="tuned schedule: baseline time / tuned time "
                                                "(log scale; above 1 = tuned is faster)",
                                          ylabel="speedup"), "tuned speedups"))
    headers = ["matrix", "kernel", "target", "tuned (ms)"]
    for b in baselines:
        headers += [f"{b} (ms)", f"tuned vs {b}"]
    headers.append("tuned measurement")
    rows = []
    for d, t in zip(docs, times):
        tuned = t.get("tuned") or {}
        row = [_matrix_name(d["matrix"]), d["kernel"], d["target"],
               num(tuned["time_s"] * 1e3 if tuned.get("time_s") else None, ".4g")]
        for b in baselines:
            m = t.get(b) or {}
            row += [num(m["time_s"] * 1e3 if m.get("time_s") else None, ".4g"),
                    speedup(m.get("tuned_speedup"))]
        status = tuned.get("status") or "not measured"
        reason = tuned.get("reason") or ""
        row.append(status + (f": {reason[:160]}" if reason and status != "ok" else ""))
        rows.append(row)
    sec.add(table(headers, rows, caption="Times (ms; simulated for spade) and speedups"))
    for d, name in zip(docs, names):
        a = d.get("autotune") or {}
        ranking = a.get("ranking") or []
        notes = "; ".join(a.get("notes") or [])
        how = f"{a['mode']} cost model's ranking" if a.get("mode") else (a.get("remark") or "")
        sec.add(table(["rank", "score", "measured (ms)", "schedule"],
                      [[("heuristic #" if c.get("heuristic") else "#") + str(c["rank"]),
                        num(c.get("score"), ".3f"), num(c.get("measured_ms"), ".4g"),
                        c.get("schedule")] for c in ranking] or [["-", "-", "-", d["schedule"]]],
                      caption=f"{name}: {how}" + (f" ({notes})" if notes else "")))


TORCH_ENTRY = SpeedupRows(
    primary="sptune_vs_torch", markers=["sptune_vs_dense"],
    times=["sptune_s", "torch_s", "dense_s", "compile_s"],
    speedups=["sptune_vs_torch", "sptune_vs_dense"],
    cdf=["sptune_vs_torch", "sptune_vs_dense"])


def torch_entry(sec, doc):
    """bench/torch-entry.py: per matrix and kernel, the median call of
    sptune.torch against torch.sparse (and dense torch where it ran)."""
    rows = []
    for m in doc["matrices"]:
        for kernel, k in m["kernels"].items():
            if not isinstance(k, dict) or not isinstance(k.get("median_s"), dict):
                continue
            t = k["median_s"]
            compile_s = sum(v for v in (k.get("compile") or {}).values()
                            if _value(v) is not None) or None
            rows.append({"matrix": m.get("name", "?"), "kernel": kernel,
                         "sptune_s": t.get("sptune"), "torch_s": t.get("torch"),
                         "dense_s": t.get("dense"), "compile_s": compile_s,
                         "sptune_vs_torch": k.get("speedup_vs_torch"),
                         "sptune_vs_dense": k.get("speedup_vs_dense")})
    sec.add(paragraph("Median time of one call (after the one-time tune and compile, whose "
                      "seconds are the compile column) and the speedup of sptune.torch over "
                      "torch.sparse and dense torch (above 1: sptune is faster). "
                      f"{doc.get('n', '?')} dense columns, {doc.get('dtype', '?')}, "
                      f"{doc.get('threads', '?')} threads."))
    speedup_rows(sec, rows, doc.get("summary"), TORCH_ENTRY)


TUNING_DATABASE = SpeedupRows(
    primary="autotune_cold_vs_warm", markers=["process_cold_vs_warm"],
    times=["process_cold_s", "process_warm_s", "autotune_cold_s", "autotune_warm_s"],
    speedups=["autotune_cold_vs_warm", "process_cold_vs_warm"],
    cdf=["autotune_cold_vs_warm", "process_cold_vs_warm"])


def tuning_database(sec, doc):
    """bench/tuning-database.py: a compile into a fresh database (cold) and
    the same compile again (warm), per matrix and effort."""
    rows = []
    for r in doc["rows"]:
        cold, warm = r.get("cold") or {}, r.get("warm") or {}
        k = r.get("measure_top_k", 0)
        rows.append({"matrix": r.get("matrix", "?"),
                     "kernel": f"top-{k} measured" if k else "model only",
                     "process_cold_s": cold.get("process_s"),
                     "process_warm_s": warm.get("process_s"),
                     "autotune_cold_s": cold.get("autotune_s"),
                     "autotune_warm_s": warm.get("autotune_s"),
                     "autotune_cold_vs_warm": r.get("autotune_ratio"),
                     "process_cold_vs_warm": r.get("process_ratio")})
    same = sum(1 for r in doc["rows"] if r.get("same_choice"))
    sec.add(paragraph(f"The kernels of {doc.get('kernels', 'a module')} compiled twice per "
                      f"matrix and effort: cold (a fresh database) and warm (the decisions "
                      f"replayed). The warm compile chose the same schedules in {same} of "
                      f"{len(doc['rows'])} cases. 'autotune' is the pass alone "
                      f"(--mlir-timing), 'process' the whole sptune-opt run."))
    speedup_rows(sec, rows, None, TUNING_DATABASE)


PAIRED_COMPARE = SpeedupRows(
    primary="a_vs_b", markers=["ci95_low", "ci95_high"],
    times=["a_median_s", "b_median_s"],
    speedups=["a_vs_b", "ci95_low", "ci95_high", "geomean_a_vs_b"],
    cdf=["a_vs_b"])


def paired_compare(sec, doc):
    """python3 -m sptune.paired_compare: per matrix and kernel, the median of
    the per-pair ratios t_B / t_A with its bootstrap 95% interval."""
    rows, failed = [], []
    for r in doc["rows"]:
        if r.get("status") != "ok":
            failed.append(f"{r.get('matrix', '?')} {r.get('kernel', '?')}: {r.get('status')}")
            continue
        lo, hi = (r.get("ci95") or [None, None])[:2]
        rows.append({"matrix": r.get("matrix", "?"), "kernel": r.get("kernel", "?"),
                     "a_median_s": r.get("a_median_s"), "b_median_s": r.get("b_median_s"),
                     "a_vs_b": r.get("median_ratio"), "geomean_a_vs_b": r.get("geomean_ratio"),
                     "ci95_low": lo, "ci95_high": hi})
    b = {r.get("b") for r in doc["rows"] if r.get("status") == "ok"}
    sec.add(paragraph(f"A (the first side, e.g. the tuned schedule) against B "
                      f"({', '.join(sorted(str(x) for x in b))}), timed alternately in one "
                      f"sptune-measure worker, {doc.get('pairs', '?')} pairs per row after a "
                      f"warm-up pair; 'a vs b' is the median of t_B / t_A over the pairs, with "
                      f"its bootstrap 95% interval."
                      + (f" Failed: {'; '.join(failed)}." if failed else "")))
    speedup_rows(sec, rows, None, PAIRED_COMPARE)


def guard_calibration(sec, doc):
    """python3 -m sptune.guard_calibrate: the guarded choice's geomean speedup
    over the heuristic for each threshold z, and the z chosen."""
    machines = ", ".join(doc.get("machines") or []) or "unknown machines"
    sec.add(paragraph(f"{doc.get('problems', '?')} held-out problems measured on "
                      f"{machines}: the model's pick replaces the heuristic when its "
                      f"ensemble's mean predicted gain exceeds z spreads. Chosen z = "
                      f"{doc.get('z')}: {num(doc.get('guarded_over_heuristic'), '.3f')}x the "
                      f"heuristic guarded, {num(doc.get('unguarded_over_heuristic'), '.3f')}x "
                      f"unguarded."))
    # Calibrations since 2026-12-06 end with the row of z = "never".
    curve = [r for r in doc["curve"] if isinstance(r.get("z"), (int, float))]
    zs = [r["z"] for r in curve]
    lines = [("all kernels", zs, [r.get("geomean_over_heuristic") for r in curve], None, None)]
    sec.add(figure(plots.curves(
        [("guarded geomean speedup over the heuristic", "speedup", lines,
          [("heuristic", 1.0)])], xlabel="z (spreads)"), "guard calibration curve"))
    kernels = doc["per_kernel"]
    # Calibrations since 2026-12-05 also choose each kernel's own z.
    own = any("own_z" in v for v in kernels.values())
    sec.add(table(["kernel", "problems", "unguarded", "guarded", "trusted / differing"]
                  + (["own z", "guarded at its own z", "trusted at its own z"] if own else []),
                  [[k, num(v.get("problems")), speedup(v.get("unguarded_over_heuristic")),
                    speedup(v.get("guarded_over_heuristic")),
                    f"{v.get('trusted', '?')} / {v.get('differing', '?')}"]
                   + ([num(v.get("own_z")), speedup(v.get("guarded_over_heuristic_own_z")),
                       num(v.get("trusted_own_z"))] if own else [])
                   for k, v in sorted(kernels.items())],
                  caption=f"per kernel at z = {doc.get('z')}"
                  + (" and at each kernel's own z" if own else "") + ", over the heuristic"))


def dispatch_overhead(sec, doc):
    """bench/dispatch-overhead.py: the compiled route of a multi-versioned
    kernel per matrix, on a first call (cache emptied) and on later calls
    with the same matrix, against the routed variant's measured time."""
    sec.add(paragraph(f"Measured on {doc.get('machine', 'an unknown machine')}. 'miss' is a "
                      f"first call with a matrix (the dispatch features and the rule), 'hit' "
                      f"a later call with the same matrix (the route's cache); each is also "
                      f"given as a share of the kernel it routes to."))
    pct = lambda x: "-" if x is None else f"{100 * x:.3f}%"
    sec.add(table(["kernel", "matrices", "worst miss / kernel", "worst hit / kernel"],
                  [[k, num(v.get("matrices")), pct(v.get("worst_miss_vs_kernel")),
                    pct(v.get("worst_hit_vs_kernel"))]
                   for k, v in sorted(doc.get("summary", {}).items())],
                  caption="over the matrices of at least 10,000 entries"))
    sec.add(table(["matrix", "kernel", "variant", "miss (us)", "hit (ns)", "miss / kernel",
                   "hit / kernel"],
                  [[r.get("matrix", "?"), r.get("kernel", "?"), num(r.get("variant")),
                    num(r["miss_s"] * 1e6 if r.get("miss_s") is not None else None, ".2f"),
                    num(r["hit_s"] * 1e9 if r.get("hit_s") is not None else None, ".1f"),
                    pct(r.get("miss_vs_kernel")), pct(r.get("hit_vs_kernel"))]
                   for r in doc["rows"]],
                  caption="per matrix"))


def gat_layer(sec, doc):
    """bench/gat-layer.py: an attention layer (SDDMM, scale, SpMM in one
    function) with the scale in an op of its own and folded into the SDDMM
    by sptune-fuse-scales, fastest call of each per matrix."""
    summary = doc.get("summary", {})
    machine = doc.get("machine", {})
    rounds = doc.get("rounds", 1)
    scheduled = ("by sptune-autotune for each matrix" if doc.get("autotune")
                 else "by the heuristic without the matrix")
    sec.add(paragraph(f"Measured on {machine.get('cpu', 'an unknown machine')} "
                      f"({machine.get('cores', '?')} cores), fastest of {doc.get('reps', '?')} "
                      f"calls{f' in each of {rounds} rounds' if rounds != 1 else ''}, kernels "
                      f"scheduled {scheduled}. Geometric mean of the speedups: "
                      f"{speedup(summary.get('geomean_speedup'))}; checksums "
                      f"{'agree' if summary.get('all_checksums_agree') else 'DIFFER'}."))
    separate = all("separate_s" in r for r in doc["rows"])
    # Runs since the fused SDDMM-SpMM kernel also time the function with it
    # turned off (fuse-sddmm-spmm=false: two kernels in one function).
    two = all("two_kernels_s" in r for r in doc["rows"])
    if separate:
        sec.add(paragraph(f"Against the same two kernels tuned in separate modules "
                          f"(their times added): one function is "
                          f"{speedup(summary.get('geomean_one_function_speedup'))} "
                          f"(geometric mean)."))
    if two:
        sec.add(paragraph(f"Against the same function with its SDDMM and SpMM as two "
                          f"kernels (fuse-sddmm-spmm=false): "
                          f"{speedup(summary.get('geomean_fusion_speedup'))} "
                          f"(geometric mean). Programs compiled "
                          f"{'with clang -O3 -march=native' if doc.get('native') else 'by mlir-runner'}."))
    header = ["matrix", "scale in its own op (s)", "scale folded (s)", "speedup"]
    # Runs since the bench records it: whether the pair ran as one kernel.
    fused = all("fused_kernel" in r for r in doc["rows"])
    if fused:
        header += ["SDDMM and SpMM fused"]
    if two:
        header += ["two kernels (s)", "fusion's speedup"]
    if separate:
        header += ["separate modules (s)", "one function's speedup"]

    def cells(r):
        row = [r.get("matrix", "?"), num(r.get("unfused_s"), ".4f"),
               num(r.get("fused_s"), ".4f"), speedup(r.get("speedup"))]
        if fused:
            row += ["yes" if r.get("fused_kernel") else "no"]
        if two:
            row += [num(r.get("two_kernels_s"), ".4f"), speedup(r.get("fusion_speedup"))]
        if separate:
            row += [num(r.get("separate_s"), ".4f"), speedup(r.get("one_function_speedup"))]
        return row
    sec.add(table(header, [cells(r) for r in doc["rows"]], caption="per matrix"))


def spgemm(sec, doc):
    """bench/spgemm.py: C = A A in CSR by sptune's Gustavson kernel, MLIR's
    default and the libraries, fastest call of each per matrix."""
    summary = doc.get("summary", {})
    machine = doc.get("machine") or {}
    # Runs with --variant: sptune lowered with other options, timed alike.
    variants = doc.get("variants") or {}
    variant_means = summary.get("geomean_variant_speedup") or {}
    sec.add(paragraph(
        f"Measured on {machine.get('cpu', 'an unknown machine')} "
        f"({machine.get('cores', '?')} cores, {doc.get('threads', '?')} threads), "
        f"fastest of {doc.get('reps', '?')} calls in each of "
        f"{doc.get('rounds', '?')} interleaved rounds. Geometric means: "
        f"{speedup(summary.get('geomean_speedup_vs_best_library'))} the best library"
        + (f", {speedup(summary.get('geomean_speedup_vs_mlir_default'))} MLIR's default"
           if summary.get("geomean_speedup_vs_mlir_default") is not None else "")
        + "".join(f"; the variant {name} ({options}) "
                  f"{speedup(variant_means.get(name))} sptune's default lowering"
                  for name, options in variants.items())
        + f"; results {'agree' if summary.get('all_agree') else 'DIFFER'}."))
    libraries = ["hand", "eigen", "rsb"]
    rows = doc["rows"]
    labels = [r.get("matrix", "?") for r in rows]
    default = any("speedup_vs_mlir_default" in r for r in rows)
    sec.add(figure(plots.grouped_bars(
        labels, ([("over MLIR's default", [r.get("speedup_vs_mlir_default") for r in rows])]
                 if default else []) +
        [(f"over {lib}", [(r.get("speedup_vs") or {}).get(lib) for r in rows])
         for lib in libraries] +
        [(f"{name} over sptune", [(r.get("variant_speedup") or {}).get(name) for r in rows])
         for name in variants],
        title="sptune's SpGEMM kernel", ylabel="speedup"), "speedups per matrix"))

    def cells(r):
        sec_ = r.get("seconds") or {}
        return ([r.get("matrix", "?"), num(r.get("entries_c"), ",d"),
                 num(sec_.get("sptune"), ".4f")] +
                ([num(sec_.get("mlir_default"), ".4f")] if default else []) +
                [num(sec_.get(lib), ".4f") for lib in libraries] +
                [num(sec_.get(name), ".4f") for name in variants] +
                [speedup(r.get("speedup_vs_best_library")), r.get("best_library", "-")])
    sec.add(table(["matrix", "entries of C", "sptune (s)"] +
                  (["MLIR default (s)"] if default else []) +
                  ["hand (s)", "eigen (s)", "rsb (s)"] +
                  [f"{name} (s)" for name in variants] +
                  ["over the best library", "best library"],
                  [cells(r) for r in rows], caption="per matrix"))


#: bench/mttkrp.py's variants, by the key of their times (runs before the
#: rule for unscheduled kernels had "sptune_options" instead of
#: "sptune_upstream").
MTTKRP_VARIANTS = [("sptune", "as users run it"),
                   ("sptune_loop_nest", "the sparsifier's loop nest"),
                   ("sptune_upstream", "upstream's defaults"),
                   ("sptune_options", "options by hand")]


def mttkrp(sec, doc):
    """bench/mttkrp.py: MTTKRP by sptune (as users run it, and with
    upstream's defaults or sparsifier options set by hand) over a hand CSF
    kernel."""
    summary = doc.get("summary", {})
    machine = doc.get("machine") or {}
    geo = summary.get("geomean_speedup_vs_hand") or {}
    variants = [(k, label) for k, label in MTTKRP_VARIANTS if k in geo] or MTTKRP_VARIANTS[:1]
    means = ", ".join(f"{speedup(geo.get(k))} {label}" for k, label in variants)
    storage = {"csf": "CSF", "coo": "ordered COO"}.get(doc.get("format", "csf"), "?")
    sec.add(paragraph(f"Measured on {machine.get('cpu', 'an unknown machine')} "
                      f"({machine.get('cores', '?')} cores, {doc.get('threads', '?')} threads), "
                      f"B in {storage} in sptune's programs (the hand kernel's in CSF), "
                      f"rank {doc.get('rank', '?')}, fastest of {doc.get('reps', '?')} calls in "
                      f"each of {doc.get('rounds', '?')} interleaved rounds. Geometric means "
                      f"over the hand kernel: {means}; "
                      f"results {'agree' if summary.get('all_agree') else 'DIFFER'}."))
    rows = doc["rows"]
    sec.add(figure(plots.grouped_bars(
        [r.get("tensor", "?") for r in rows],
        [(label, [(r.get("speedup_vs_hand") or {}).get(key) for r in rows])
         for key, label in variants],
        title="sptune's MTTKRP over the hand CSF kernel", ylabel="speedup"),
        "speedups per tensor"))

    def cells(r):
        secs = r.get("seconds") or {}
        return ([r.get("tensor", "?"), "x".join(str(d) for d in r.get("dims") or []),
                 num(r.get("nnz"), ",d"), num(secs.get("hand"), ".4f")] +
                [f"{num(secs.get(key), '.4f')} ({speedup((r.get('speedup_vs_hand') or {}).get(key))})"
                 for key, _ in variants])
    sec.add(table(["tensor", "dims", "entries", "hand (s)"] +
                  [f"sptune, {label} (s)" for _, label in variants],
                  [cells(r) for r in rows], caption="per tensor (speedup over the hand kernel)"))


#: bench/batched-spmm.py's programs and loops of baselines, by the key of
#: their times.
BATCHED_PROGRAMS = [("sptune", "sptune as users run it"),
                    ("sptune_loop_nest", "sptune, the sparsifier's loop nest"),
                    ("sptune_upstream", "sptune, upstream's defaults")]
BATCHED_LOOPS = [("eigen", "Eigen's SpMM, hot, summed"),
                 ("rsb", "librsb's SpMM, hot, summed"),
                 ("heuristic", "sptune's SpMM (heuristic), hot, summed"),
                 ("sptune_2d_loop", "a real loop of sptune's SpMM")]


def batched_spmm_figure(doc):
    """Speedups of sptune's batched program, as users run it, over each loop
    of SpMM baselines, per batch."""
    def label(batch):
        count, _, matrix = batch.partition("*")
        if matrix.startswith("gen:"):
            return count + " x " + matrix[4:].split(",seed")[0].replace(",", "\n")
        return count + " x\n" + os.path.basename(matrix).replace(".mtx", "")
    rows = doc["rows"]
    return plots.grouped_bars(
        [label(r.get("batch", "?")) for r in rows],
        [("over " + label, [(r.get("speedup_vs") or {}).get(key) for r in rows])
         for key, label in BATCHED_LOOPS
         if any(key in (r.get("speedup_vs") or {}) for r in rows)],
        title="sptune's batched SpMM, f32, N = %s (%s)" % (
            doc.get("free", "?"), (doc.get("machine") or {}).get("cpu", "?")),
        ylabel="speedup over the loop")


def batched_spmm(sec, doc):
    """bench/batched-spmm.py: sptune's batched SpMM (as users run it, and
    with upstream's defaults) over loops of the SpMM baselines."""
    summary = doc.get("summary", {})
    machine = doc.get("machine") or {}
    geo = summary.get("geomean_speedup_vs_best_loop") or {}
    sec.add(paragraph(
        f"Measured on {machine.get('cpu', 'an unknown machine')} "
        f"({machine.get('cores', '?')} cores), N = {doc.get('free', '?')}, fastest of "
        f"{doc.get('reps', '?')} calls in each of {doc.get('rounds', '?')} interleaved "
        "rounds; a library loop's time is the sum of its SpMMs' fastest times, each "
        "matrix hot in cache (a lower bound), the real loop's one program's. Geometric "
        "means of sptune as users run it over each loop: " +
        ", ".join(f"{speedup((summary.get('geomean_speedup_vs') or {}).get(k))} {label}"
                  for k, label in BATCHED_LOOPS) +
        "; over the fastest loop: " +
        ", ".join(f"{speedup(geo.get(k))} {label}" for k, label in BATCHED_PROGRAMS) +
        f"; results {'agree' if summary.get('all_agree') else 'DIFFER'}" +
        ("" if summary.get("rule_applied", True) else
         "; the rule for kernels without a schedule was NOT applied") +
        ("" if summary.get("kernel_applied", True) else
         "; sptune's batched kernel was NOT applied") + "."))
    sec.add(figure(batched_spmm_figure(doc), "speedups per batch and loop"))

    def cells(r):
        secs = r.get("seconds") or {}
        return ([r.get("batch", "?"), num(r.get("count"), "d"), num(r.get("nnz"), ",d")] +
                [num(secs.get(k), ".4f") for k, _ in BATCHED_PROGRAMS + BATCHED_LOOPS] +
                [r.get("best_loop", "?")])
    sec.add(table(["batch", "matrices", "entries"] +
                  [f"{label} (s)" for _, label in BATCHED_PROGRAMS + BATCHED_LOOPS] +
                  ["fastest loop"],
                  [cells(r) for r in doc["rows"]], caption="per batch"))


def not_measured(sec, rows):
    """A paragraph naming the rows (matrix, kernel, free size) whose status
    is not "ok", with the status; nothing when there are none."""
    failed = [r for r in rows if r.get("status") != "ok"]
    if failed:
        sec.add(paragraph("Not measured: " + "; ".join(
            f"{r.get('matrix', '?')} {r.get('kernel', '?')} {r.get('free', '?')}: "
            f"{r.get('status')}" for r in failed)))


def row_order_headroom(sec, doc):
    """bench/row-order-headroom.py: the heuristic's kernel on the matrix
    stored in other row orders, over storage order."""
    summary = doc.get("summary", {})
    machine = doc.get("machine") or {}
    orders = doc.get("orders") or []
    settings = doc.get("settings") or {}
    sec.add(paragraph(f"Measured on {machine.get('cpu', 'an unknown machine')} "
                      f"({machine.get('cores', '?')} cores), {settings.get('rounds', '?')} "
                      f"interleaved rounds after a warm-up round; a speedup is the median "
                      f"over rounds of t(storage order) / t(order), the oracle max(1, it)."))
    labels = list(summary)
    if labels and orders:
        sec.add(figure(plots.grouped_bars(
            labels, [(o, [(summary[k].get(o) or {}).get("geomean") for k in labels])
                     for o in orders],
            title="speedup over storage order, geometric mean", ylabel="speedup"),
            "per problem and order"))
    sec.add(table(["problem", "matrices"] + [f"{o} (oracle)" for o in orders],
                  [[k, num(v.get("matrices"))] +
                   [f"{speedup((v.get(o) or {}).get('geomean'))} "
                    f"({speedup((v.get(o) or {}).get('oracle'))})" for o in orders]
                   for k, v in summary.items()],
                  caption="Geometric means over the matrices"))
    ok = [r for r in doc["rows"] if r.get("status") == "ok"]
    sec.add(table(["matrix", "kernel", "free"] + orders,
                  [[r.get("matrix", "?"), r.get("kernel", "?"), num(r.get("free"))] +
                   [speedup((r.get("speedup") or {}).get(o)) for o in orders] for r in ok],
                  caption="per matrix"))
    not_measured(sec, doc["rows"])


def cpu_headroom(sec, doc):
    """bench/cpu-headroom.py: the best confirmed schedule over the CPU
    heuristic per problem, with the space before issue 31's knobs and with
    them."""
    summary = doc.get("summary", {})
    machine = doc.get("machine") or {}
    sec.add(paragraph(f"Measured on {machine.get('cpu', 'an unknown machine')} "
                      f"({machine.get('cores', '?')} cores). The oracle is the best of the "
                      f"heuristic and the candidates timed against it in interleaved rounds "
                      f"(median ratio); 'single-run' is the best single timing of the "
                      f"broad sample and the neighbourhood, before that check."))
    labels = list(summary)
    if labels:
        sec.add(figure(plots.grouped_bars(
            labels, [("before the new knobs", [summary[k].get("before") for k in labels]),
                     ("with them", [summary[k].get("after") for k in labels])],
            title="oracle / heuristic, geometric mean", ylabel="oracle / heuristic"),
            "headroom per kernel and free size"))
    pct = lambda x: "-" if not isinstance(x, (int, float)) else f"{100 * x:.0f}%"
    sec.add(table(["problem", "matrices", "single-run oracle", "oracle before", "oracle after",
                   "max after", "log headroom from new knobs"],
                  [[k, num(v.get("problems")), speedup(v.get("single_run_oracle")),
                    speedup(v.get("before")), speedup(v.get("after")),
                    speedup(v.get("max_after")),
                    pct(v.get("share_of_log_headroom_from_new_knobs"))]
                   for k, v in summary.items()],
                  caption="Geometric means over the matrices"))
    ok = [r for r in doc["rows"] if r.get("status") == "ok"]
    sec.add(table(["matrix", "kernel", "free", "heuristic (ms)", "oracle before", "oracle after",
                   "best after"],
                  [[r.get("matrix", "?"), r.get("kernel", "?"), num(r.get("free")),
                    num(r["heuristic_s"] * 1e3 if r.get("heuristic_s") else None, ".3f"),
                    speedup(r.get("before")), speedup(r.get("after")),
                    r.get("after_from", "-")] for r in ok],
                  caption="per matrix"))
    not_measured(sec, doc["rows"])


def spgemm_learn(sec, doc):
    """bench/spgemm-learn.py: sptune-learn --kernel spgemm from no data, in
    replay and live; each round's validation fraction of the best measured
    schedule, against the heuristic's."""
    machine = doc.get("machine") or {}
    heuristic = doc.get("heuristic_fraction_of_best")
    runs = doc.get("runs") or {}
    sec.add(paragraph(f"Measured on {machine.get('cpu', 'an unknown machine')} "
                      f"({machine.get('cores', '?')} cores); "
                      f"{doc.get('validation_matrices', '?')} validation matrices; "
                      f"the heuristic's fraction of the best: {num(heuristic, '.3f')}."))
    lines = [(name, [r.get("cost_s") for r in rounds],
              [r.get("fraction_of_best") for r in rounds], None, None)
             for name, rounds in runs.items()]
    sec.add(figure(plots.curves(
        [("validation: fraction of the best schedule", "fraction of the best", lines,
          [("heuristic", heuristic), ("bar", 0.9)])],
        xlabel="cumulative measurement cost (s)", logx=True), "learning curves"))
    sec.add(table(["run", "round", "cumulative (s)", "measured", "arm", "fraction of best",
                   "tau"],
                  [[name, r.get("round"), num(r.get("cost_s"), ".1f"), num(r.get("measured")),
                    r.get("arm") or "-", num(r.get("fraction_of_best"), ".3f"),
                    num(r.get("tau"), ".3f")]
                   for name, rounds in runs.items() for r in rounds],
                  caption=f"{len(runs)} runs"))
