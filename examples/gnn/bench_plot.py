#!/usr/bin/python3
"""One figure for several runs of gcn.py: the median epoch time of
sptune.torch.spmm and torch.sparse.mm per graph (epoch 1 excluded) with the
ratio, and sptune's first epoch (tuning and compiling) next to it.

    /usr/bin/python3 examples/gnn/bench_plot.py OUT.png RUN1.json RUN2.json ...
"""

import json
import os
import sys


def main(argv):
    if len(argv) < 2:
        raise SystemExit("usage: bench_plot.py OUT.png RUN.json...")
    out, paths = argv[0], argv[1:]
    runs = []
    for p in paths:
        with open(p) as f:
            runs.append(json.load(f))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [f"{r['graph']}\n{r['nodes']} nodes, nnz {r['nnz']}" for r in runs]
    xs = range(len(runs))
    w = 0.38
    fig, (ax_m, ax_f) = plt.subplots(1, 2, figsize=(12, 4.5))
    med_s = [(r["median_sptune_s"] or 0) * 1e3 for r in runs]
    med_t = [(r["median_torch_s"] or 0) * 1e3 for r in runs]
    ax_m.bar([x - w / 2 for x in xs], med_s, w, label="sptune.torch.spmm")
    ax_m.bar([x + w / 2 for x in xs], med_t, w, label="torch.sparse.mm")
    for x, r, top in zip(xs, runs, map(max, med_s, med_t)):
        if r["ratio_torch_over_sptune"]:
            ax_m.text(x, top * 1.02, f"x{r['ratio_torch_over_sptune']:.2f}",
                      ha="center", va="bottom")
    ax_m.set_ylim(0, max(map(max, med_s, med_t)) * 1.15)
    ax_m.set_xticks(list(xs))
    ax_m.set_xticklabels(names, fontsize=8)
    ax_m.set_ylabel("median epoch time (ms), epoch 1 excluded")
    ax_m.set_title("forward + backward + Adam step "
                   "(label: torch.sparse / sptune)")
    ax_m.legend()
    first = [r["first_epoch_sptune_s"] for r in runs]
    ax_f.bar([x - w / 2 for x in xs], first, w,
             label="sptune epoch 1 (tune + compile)")
    ax_f.bar([x + w / 2 for x in xs], [r["first_epoch_torch_s"] for r in runs],
             w, label="torch.sparse epoch 1")
    ax_f.set_yscale("log")
    ax_f.set_xticks(list(xs))
    ax_f.set_xticklabels(names, fontsize=8)
    ax_f.set_ylabel("seconds (log)")
    ax_f.set_title("first epoch")
    ax_f.legend(loc="upper right")
    ax_f.set_ylim(top=max(first) * 4)
    m = runs[0]["machine"]
    loads = ", ".join(f"{r['machine']['loadavg_start'][0]:.1f}" for r in runs)
    blas = ", ".join(n for n in map(os.path.basename, m.get("blas", []))
                     if n.startswith("lib")) or "unknown"
    preload = (m.get("allocator") or {}).get("LD_PRELOAD")
    fig.suptitle(f"2-layer GCN, {m['cpu_model']} ({m['cpus']} CPUs), torch "
                 f"{m['torch_version']}, OMP_NUM_THREADS="
                 f"{m['OMP_NUM_THREADS'] or 'unset'}; load at start: {loads}"
                 f"\nBLAS {blas}"
                 + (f"; LD_PRELOAD {os.path.basename(preload)}"
                    if preload else ""))
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main(sys.argv[1:])
