"""`python3 -m sptune report RESULTS... -o report.html`: sptune's results
files as one self-contained HTML page (plots as embedded PNG, the numbers
of each plot in a table under it), readable offline.

Known formats (recognized by their shape, whatever the file is called):
autotune_eval's and ceiling_report's JSON (speedups per matrix and their
CDFs), learn_experiment's JSON and sptune-learn's rounds.jsonl (learning
curves), transfer_curve's JSON, sptune-train's metrics JSON, bench/
gpu-check.sh's JSON and sptune-gpu-bench's summary lines, sptune-collect
datasets, and `python3 -m sptune tune --json` results (merged into one
section).
"""

import argparse
import os

from sptune import report_formats, report_html
from sptune.errors import SptuneError

# Section title and builder (a function of sptune.report_sections, which
# imports numpy and matplotlib: only when a report is built).
BUILDERS = {
    "autotune-eval": ("Autotuned speedups", "autotune_eval"),
    "ceiling-report": ("Measurement ceiling", "ceiling"),
    "dataset": ("Dataset: the best sampled schedules", "dataset"),
    "learn-experiment": ("Active learning in replay", "learn_curves"),
    "learn-rounds": ("Active-learning rounds", "learn_rounds"),
    "transfer-curve": ("Transfer to a target", "transfer"),
    "transfer-experiment": ("Transfer to a target: the learning curve per variant",
                            "transfer_experiment"),
    "spade-headroom": ("SPADE headroom before and after calibration", "spade_headroom"),
    "spade-knob-headroom": ("SPADE headroom by knob, and what the CPU data show of it",
                            "spade_knob_headroom"),
    "model-metrics": ("Cost model metrics", "model_metrics"),
    "gpu-check": ("GPU device check", "gpu_check"),
    "gpu-bench": ("NVVM against cuSPARSE", "gpu_bench"),
    "tune": ("sptune tune results", "tune"),
    "torch-entry": ("sptune.torch against torch.sparse", "torch_entry"),
    "tuning-database": ("Compile time with the tuning database", "tuning_database"),
    "paired-compare": ("Paired timing: A and B alternated in one worker", "paired_compare"),
    "guard-calibration": ("The model's guard: its threshold against the heuristic",
                          "guard_calibration"),
    "dispatch-overhead": ("A multi-versioned kernel's dispatch, against the kernel",
                          "dispatch_overhead"),
    "gat-layer": ("An attention layer with its scale folded into the SDDMM", "gat_layer"),
    "cpu-headroom": ("Headroom over the CPU heuristic", "cpu_headroom"),
    "spgemm": ("SpGEMM: sptune's kernel against the libraries", "spgemm"),
    "row-order-headroom": ("Rows stored in another order", "row_order_headroom"),
    "mttkrp": ("MTTKRP: sptune against a hand CSF kernel", "mttkrp"),
    "batched-spmm": ("Batched SpMM: sptune against loops over the SpMM baselines",
                     "batched_spmm"),
    "spgemm-learn": ("An SpGEMM model learned from no data", "spgemm_learn"),
}
# The kernel of a spgemm-learn results file, as its section's title names it
# (SpGEMM's when the file names none of them).
LEARNED_KERNELS = {"spgemm": "n SpGEMM", "mttkrp": "n MTTKRP",
                   "batched_spmm": " batched SpMM"}


def learned_kernel_title(kernel):
    """The title of a spgemm-learn section for a file's `kernel` field (of
    any type)."""
    words = LEARNED_KERNELS.get(kernel) if isinstance(kernel, str) else None
    return "A%s model learned from no data" % (words or LEARNED_KERNELS["spgemm"])


WRITERS = dict(report_formats.FORMATS)


def register(subparsers):
    ap = subparsers.add_parser(
        "report", help="turn results JSON into one self-contained HTML page",
        description=__doc__.split("\n\n")[0].replace("\n", " "),
        epilog="Formats it knows:\n" + report_formats.known(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", metavar="RESULTS", help="results files (JSON, JSON lines)")
    ap.add_argument("-o", "--output", default="report.html", metavar="HTML",
                    help="the page to write (default report.html)")
    ap.add_argument("--title", default="sptune report")
    ap.set_defaults(func=main)
    return ap


def build(paths, title="sptune report"):
    """The HTML text of the report of results files `paths`."""
    loaded = [(p, *report_formats.load(p)) for p in paths]
    from sptune import report_sections
    sections = []
    tunes = [(p, d) for p, f, d in loaded if f == "tune"]
    for path, fmt, data in loaded:
        name, builder = BUILDERS[fmt]
        builder = getattr(report_sections, builder)
        if fmt == "spgemm-learn" and isinstance(data, dict):
            # One bench learns SpGEMM's, MTTKRP's or the batched SpMM's model
            # (a kernel field of another type names none of them).
            name = learned_kernel_title(data.get("kernel", "spgemm"))
        # A file of a known shape can still hold fields of the wrong type:
        # say which file, not a traceback from deep in a plot.
        try:
            if fmt == "tune":
                if path != tunes[0][0]:
                    continue  # every tune result goes in the first one's section
                sec = report_html.Section(name, [p for p, _ in tunes], WRITERS[fmt])
                builder(sec, [d for _, d in tunes])
            else:
                sec = report_html.Section(f"{name}: {os.path.basename(path)}", [path],
                                          WRITERS[fmt])
                builder(sec, data)
        except (TypeError, KeyError, ValueError, AttributeError, IndexError) as e:
            where = path if fmt != "tune" else ", ".join(p for p, _ in tunes)
            raise SptuneError(f"{where}: malformed {fmt} results "
                              f"({type(e).__name__}: {e})") from None
        sections.append(sec)
    inputs = [(p, f, WRITERS[f]) for p, f, _ in loaded]
    return report_html.page(title, sections, inputs)


def main(args):
    text = build(args.results, args.title)
    with open(args.output, "w") as f:
        f.write(text)
    print(f"sptune report: wrote {args.output} ({len(text) // 1024} KiB, "
          f"{text.count('<img ')} plots, {text.count('<table>')} tables)")
    return 0
