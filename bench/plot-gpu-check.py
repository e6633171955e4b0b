#!/usr/bin/python3
"""Plots bench/gpu-check.sh's results: per matrix and kernel, the device time
of cuSPARSE, of the best candidate (tuned), of the nvvm heuristic and
reference schedules (where the run measured them) and of the best kernel of
MLIR's GPU code generation, relative to cuSPARSE (log scale).

    /usr/bin/python3 bench/plot-gpu-check.py OUT.png gpu-check.json [more.jsonl ...]

Inputs: gpu-check.json files (their bench results) and JSON-lines files of
`sptune-gpu-bench` summary lines (`"summary":true`)."""
import json
import sys


def summaries(path):
    if path.endswith(".json"):
        with open(path) as f:
            return json.load(f)["bench"]["results"]
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                row = json.loads(line)
                if row.get("summary"):
                    rows.append(row)
    return rows


def short(row):
    """A matrix's name without its group, or a generator and its rows."""
    name = row["matrix"]
    if name.startswith("gen:"):
        return "%s, %s rows" % (name.split(":")[1], row.get("rows", "?"))
    return name.split("_", 1)[-1] if "_" in name else name


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for p in argv[2:] for r in summaries(p)]
    rows = [r for r in rows if r.get("cusparse_s") and r.get("tuned_s")]
    if not rows:
        sys.exit("plot-gpu-check: no summary rows with cuSPARSE and tuned times")
    labels = ["%s\n%s" % (short(r), r["kernel"]) for r in rows]

    def over_cusparse(key):
        return [r["cusparse_s"] / r[key] if r.get(key) else 0 for r in rows]

    # The untuned choices are in runs from 2026-12-04 on (heuristic_s,
    # reference_s); older files plot tuned and codegen only.
    series = [("tuned (best candidate)", over_cusparse("tuned_s")),
              ("heuristic (cuSPARSE on CSR)", over_cusparse("heuristic_s")),
              ("reference (MLIR code generation, 1024 threads)",
               over_cusparse("reference_s")),
              ("best MLIR GPU code generation", over_cusparse("codegen_s"))]
    series = [(name, values) for name, values in series if any(values)]
    x = range(len(rows))
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(rows)), 4.6))
    for k, (name, values) in enumerate(series):
        offset = (k - (len(series) - 1) / 2) * width
        ax.bar([i + offset for i in x], values, width, label=name)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("speedup over cuSPARSE (device time)")
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, fontsize=7, rotation=20)
    device = rows[0].get("device", "")
    ax.set_title("sptune on %s, f32, N = %s" % (device, rows[0].get("free", "?")))
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2)
    fig.tight_layout()
    fig.savefig(argv[1], dpi=120)
    print("plot-gpu-check: wrote %s (%d rows)" % (argv[1], len(rows)))


if __name__ == "__main__":
    main(sys.argv)
