#!/usr/bin/python3
"""Benchmark of the PyTorch entry: sptune.torch.spmm / sddmm / spmv against
PyTorch's own sparse CSR ops, side by side in one run.

    /usr/bin/python3 bench/torch-entry.py [--matrices DIR] [--n 64]
        [--json docs/img/torch-entry.json] [--plot docs/img/torch-entry.png]

For each matrix (a spread of sizes from DIR/MANIFEST.tsv, by default
../shared/matrices; without it, synthetic matrices written by
build/bin/sptune-matrix), float32, N = 64:

  - the one-time cost of sptune (tune + compile, per kernel, in a fresh
    cache directory), reported apart;
  - per call, the median of repeats, alternating sptune and torch.sparse
    call by call: sptune.torch.spmm vs torch.sparse.mm(A, B);
    sptune.torch.spmv vs torch.sparse.mm(A, x[:, None]) (A @ x on CSR needs an MKL build, this
    one has none); sptune.torch.sddmm vs torch.sparse.sampled_addmm(S, A, B,
    beta=0) (sptune also scales by S's values, torch is not asked to). The
    torch SDDMM goes through a dense M x K product on the CPU: it is skipped
    where that product would exceed --sddmm-max-dense entries and repeated
    at most --sddmm-max-reps times, once only when one call takes more than
    --slow seconds;
  - dense torch (D @ B, D @ x, D * (A @ B)) where M x K <= --dense-max,
    timed after the rotation (a dense product in it slows the next call);
  - one sptune call after the values changed in place (rehash, and the
    conversion into the schedule's storage where it is not CSR);
  - whether the results match (max |sptune - torch| / max |torch|);
  - SDDMM again with B the transposed view of a row-major H (B = H.t(), as
    in GNN attention), which sptune reads as stored ("sddmm_bt").

Threads: OMP_NUM_THREADS (sptune's libomp) and torch.set_num_threads are both
set to --threads (default: all CPUs), so both sides use the same cores.
Benchmarks are not tests: this prints a table and writes JSON (+ a plot of
torch time / sptune time per matrix).
"""

import argparse
import csv
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# A spread of the shared SuiteSparse matrices: tiny to 2.7M stored entries,
# square and not, meshes, graphs (power law), structural, LP.
DEFAULT_MATRICES = [
    "HB_bcsstk02.mtx", "LPnetlib_lp_e226.mtx", "Bai_olm1000.mtx",
    "HB_gr_30_30.mtx", "MathWorks_tomography.mtx", "Bai_cryg2500.mtx",
    "AG-Monien_airfoil1.mtx", "SNAP_p2p-Gnutella08.mtx", "HB_bcsstk13.mtx",
    "SNAP_wiki-Vote.mtx", "DIMACS10_rgg_n_2_15_s0.mtx", "SNAP_email-Enron.mtx",
    "vanHeukelum_cage11.mtx", "SNAP_ego-Twitter_undirected.mtx",
]

# Without the shared folder: synthetic matrices of the same kinds and sizes.
SYNTHETIC = [
    ("uniform-1k", "gen:uniform:rows=1000,cols=1000,nnz=8000,seed=1"),
    ("uniform-rect", "gen:uniform:rows=2000,cols=5000,nnz=40000,seed=2"),
    ("banded-16k", "gen:banded:rows=16384,nnz=160000,bw=8,seed=3"),
    ("block-8k", "gen:block:rows=8192,nnz=160000,bs=4,seed=4"),
    ("clustered-16k", "gen:clustered:rows=16384,nnz=200000,group=8,seed=5"),
    ("rmat-32k", "gen:rmat:rows=32768,nnz=400000,seed=6"),
    ("rmat-64k", "gen:rmat:rows=65536,nnz=1000000,seed=7"),
    ("uniform-64k", "gen:uniform:rows=65536,nnz=1000000,seed=8"),
]


def load_matrix(path, torch, np):
    import scipy.io
    m = scipy.io.mmread(path).tocsr()
    m.sum_duplicates()
    m.sort_indices()
    data = m.data.astype(np.float32)
    if m.dtype.kind == "b" or not data.size or (data == 1).all():
        # Pattern matrices: values that make a wrong result visible.
        data = np.random.default_rng(0).uniform(0.5, 1.5, data.size).astype(np.float32)
    return torch.sparse_csr_tensor(
        torch.from_numpy(m.indptr.astype(np.int64)),
        torch.from_numpy(m.indices.astype(np.int64)),
        torch.from_numpy(data), size=m.shape)


def matrices(args):
    """(name, path) pairs."""
    if args.matrices and os.path.isdir(args.matrices) and not args.synthetic:
        names = args.names.split(",") if args.names else DEFAULT_MATRICES
        out = []
        for n in names:
            p = os.path.join(args.matrices, n)
            if os.path.isfile(p):
                out.append((n[:-4] if n.endswith(".mtx") else n, p))
            else:
                print(f"note: {n} is not in {args.matrices}", file=sys.stderr)
        return out, "shared"
    tool = os.path.join(ROOT, "build", "bin", "sptune-matrix")
    if not os.path.exists(tool):
        tool = shutil.which("sptune-matrix") or tool
    d = os.path.join(args.workdir, "synthetic")
    os.makedirs(d, exist_ok=True)
    out = []
    for name, spec in SYNTHETIC:
        p = os.path.join(d, name + ".mtx")
        if not os.path.exists(p):
            subprocess.run([tool, "gen", spec, "-o", p], check=True)
        out.append((name, p))
    return out, "synthetic"


def cpu_ticks():
    """(busy, total) jiffies of the machine from /proc/stat, or None."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    return sum(v) - idle, sum(v)


def timed(fn):
    t0 = time.perf_counter()
    r = fn()
    return time.perf_counter() - t0, r


def compare(fns, min_reps, max_reps, budget):
    """Median seconds of each function, calls alternating round by round.
    fns: name -> (fn, max repeats or None). Stops after max_reps rounds or
    when the rounds took `budget` seconds (at least min_reps rounds)."""
    times = {k: [] for k in fns}
    start = time.perf_counter()
    for r in range(max_reps):
        for k, (fn, cap) in fns.items():
            if cap is not None and len(times[k]) >= cap:
                continue
            times[k].append(timed(fn)[0])
        if r + 1 >= min_reps and time.perf_counter() - start > budget:
            break
    return {k: statistics.median(v) for k, v in times.items() if v}, \
        {k: len(v) for k, v in times.items()}


def rel_err(x, ref):
    import torch
    scale = ref.abs().max().item() or 1.0
    return (x.double() - ref.double()).abs().max().item() / scale


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matrices", default=os.path.join(ROOT, "..", "shared", "matrices"))
    ap.add_argument("--names", help="comma-separated .mtx names (default: a built-in spread)")
    ap.add_argument("--synthetic", action="store_true",
                    help="use the synthetic matrices even where the shared ones exist")
    ap.add_argument("--max-nnz", type=int, help="skip matrices with more stored entries")
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--min-reps", type=int, default=5)
    ap.add_argument("--max-reps", type=int, default=50)
    ap.add_argument("--budget", type=float, default=1.5, help="seconds of timed rounds per kernel and matrix")
    ap.add_argument("--sddmm-max-reps", type=int, default=3)
    ap.add_argument("--sddmm-max-dense", type=float, default=1.5e8,
                    help="skip torch's SDDMM where M*K exceeds this (its dense product)")
    ap.add_argument("--slow", type=float, default=3.0, help="a torch call slower than this runs once")
    ap.add_argument("--dense-max", type=float, default=4.0e6, help="dense torch where M*K <= this")
    ap.add_argument("--json", default=os.path.join(ROOT, "docs", "img", "torch-entry.json"))
    ap.add_argument("--plot", default=os.path.join(ROOT, "docs", "img", "torch-entry.png"))
    ap.add_argument("--cache", help="sptune cache directory (default: a fresh temporary one)")
    ap.add_argument("--workdir", default=os.path.join(ROOT, "build", "bench", "torch-entry"))
    ap.add_argument("--replot", metavar="JSON", help="only draw the plot of an earlier run's JSON")
    args = ap.parse_args()
    if args.replot:
        with open(args.replot) as f:
            plot(json.load(f), args.plot)
        print(f"wrote {args.plot}")
        return

    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    os.makedirs(args.workdir, exist_ok=True)
    cache = args.cache or tempfile.mkdtemp(prefix="sptune-cache.", dir=args.workdir)
    os.environ["SPTUNE_CACHE"] = cache
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import numpy as np
    import torch
    import sptune.torch as st
    warnings.filterwarnings("ignore", message=".*Sparse CSR tensor support.*")
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    mats, source = matrices(args)
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    ticks0, self0 = cpu_ticks(), os.times()
    result = {"n": args.n, "dtype": "float32", "threads": args.threads,
              "torch_threads": torch.get_num_threads(), "torch": torch.__version__,
              "source": source, "cache": cache, "machine": platform.processor() or platform.machine(),
              "cpus": os.cpu_count(), "loadavg_start": load, "matrices": []}
    n = args.n
    hdr = (f"{'matrix':34} {'rows':>7} {'cols':>7} {'nnz':>8}  "
           f"{'kernel':8} {'sptune ms':>10} {'torch ms':>10} {'x torch':>8} {'dense ms':>9} {'compile s':>9}  err")
    print(hdr)
    for name, path in mats:
        a = load_matrix(path, torch, np)
        rows, cols = a.shape
        nnz = a.values().numel()
        if args.max_nnz and nnz > args.max_nnz:
            continue
        rec = {"name": name, "rows": rows, "cols": cols, "nnz": nnz, "kernels": {}}
        b = torch.randn(cols, n)
        x = torch.randn(cols)
        pa = torch.randn(rows, n)
        pb = torch.randn(n, cols)
        pbt = pb.t().contiguous().t()  # B as the transposed view of H (cols x n)
        small = rows * cols <= args.dense_max
        d = a.to_dense() if small else None
        cases = {
            "spmm": (lambda: st.spmm(a, b), lambda: torch.sparse.mm(a, b),
                     (lambda: d @ b) if small else None, None),
            "spmv": (lambda: st.spmv(a, x), lambda: torch.sparse.mm(a, x[:, None])[:, 0],
                     (lambda: d @ x) if small else None, None),
            "sddmm": (lambda: st.sddmm(a, pa, pb),
                      (lambda: torch.sparse.sampled_addmm(a, pa, pb, beta=0.0, alpha=1.0))
                      if rows * cols <= args.sddmm_max_dense else None,
                      (lambda: d * (pa @ pb)) if small else None, args.sddmm_max_reps),
            # GNN attention's B = H.t(): sptune reads B^T as stored; torch
            # gets the same view.
            "sddmm_bt": (lambda: st.sddmm(a, pa, pbt),
                         (lambda: torch.sparse.sampled_addmm(a, pa, pbt, beta=0.0, alpha=1.0))
                         if rows * cols <= args.sddmm_max_dense else None,
                         None, args.sddmm_max_reps),
        }
        for kernel, (mine, theirs, dense, cap) in cases.items():
            k = {}
            # One-time: tune + compile (fresh cache), then the first call.
            t_first, out = timed(mine)
            info = st.kernel_info(kernel, a, n)
            k["first_call_s"] = t_first
            k["compile"] = info["times"]
            k["schedule"] = info["schedule"]
            fns = {"sptune": (mine, None)}
            if theirs is not None:
                t1, ref = timed(theirs)
                k["torch_first_s"] = t1
                if kernel.startswith("sddmm"):
                    ok = rel_err(out.values(), ref.values() * a.values())
                else:
                    ok = rel_err(out, ref)
                k["max_rel_err"] = ok
                fns["torch"] = (theirs, 1 if t1 > args.slow else cap)
            else:
                k["torch_skipped"] = (f"torch.sparse.sampled_addmm computes a dense "
                                      f"{rows} x {cols} product (> {args.sddmm_max_dense:g} entries)")
            med, reps = compare(fns, args.min_reps, args.max_reps, args.budget)
            if dense is not None:
                # Timed apart: a dense product in the rotation slows the
                # sparse call after it (0.05 -> 0.6 ms on olm1000's SpMM:
                # 4 MB of dense matrix through the caches, OpenMP threads
                # still spinning).
                dmed, dreps = compare({"dense": (dense, cap)}, args.min_reps,
                                      args.max_reps, args.budget / 2)
                med.update(dmed)
                reps.update(dreps)
            if "torch" in fns and fns["torch"][1] == 1 and "torch" not in med:
                med["torch"] = k["torch_first_s"]
            # New values in place (same pattern): rehash, convert again
            # where the storage is not CSR, then the call.
            a.values().mul_(1.0)
            k["new_values_call_s"] = timed(mine)[0]
            k["storage"] = info["storage"]
            k["converted_once"] = info["prepare"]
            k["median_s"] = med
            k["reps"] = reps
            if "torch" in med:
                k["speedup_vs_torch"] = med["torch"] / med["sptune"]
            if "dense" in med:
                k["speedup_vs_dense"] = med["dense"] / med["sptune"]
            rec["kernels"][kernel] = k
            comp = sum(info["times"].values())
            tm = f"{med['torch'] * 1e3:10.3f}" if "torch" in med else f"{'skipped':>10}"
            sp = f"{k['speedup_vs_torch']:7.2f}x" if "speedup_vs_torch" in k else f"{'-':>8}"
            dn = f"{med['dense'] * 1e3:9.3f}" if "dense" in med else f"{'-':>9}"
            er = f"{k['max_rel_err']:.1e}" if "max_rel_err" in k else "-"
            print(f"{name[:34]:34} {rows:7d} {cols:7d} {nnz:8d}  {kernel:8} "
                  f"{med['sptune'] * 1e3:10.3f} {tm} {sp} {dn} {comp:9.2f}  {er}", flush=True)
        result["matrices"].append(rec)

    # Geometric means of the speedups.
    summary = {}
    for kernel in ("spmm", "spmv", "sddmm", "sddmm_bt"):
        s = [m["kernels"][kernel]["speedup_vs_torch"] for m in result["matrices"]
             if "speedup_vs_torch" in m["kernels"][kernel]]
        c = [sum(m["kernels"][kernel]["compile"].values()) for m in result["matrices"]]
        if s:
            summary[kernel] = {
                "geomean_speedup_vs_torch": float(np.exp(np.mean(np.log(s)))),
                "min": min(s), "max": max(s), "matrices": len(s),
                "compile_s_median": statistics.median(c), "compile_s_max": max(c)}
    result["summary"] = summary
    try:
        result["loadavg_end"] = os.getloadavg()
    except OSError:
        pass
    ticks1, self1 = cpu_ticks(), os.times()
    if ticks0 and ticks1:
        # The share of the machine's CPU time that other processes used
        # while this benchmark ran (a quiet machine: near 0).
        hz = os.sysconf("SC_CLK_TCK")
        busy = (ticks1[0] - ticks0[0]) / hz
        total = (ticks1[1] - ticks0[1]) / hz
        mine = (self1.user + self1.system + self1.children_user + self1.children_system
                - self0.user - self0.system - self0.children_user - self0.children_system)
        result["other_processes_cpu_share"] = max(0.0, busy - mine) / total if total else None
        print(f"other processes used {100 * result['other_processes_cpu_share']:.0f}% "
              f"of the CPU time during the run")
    print()
    for kernel, s in summary.items():
        print(f"{kernel}: geomean {s['geomean_speedup_vs_torch']:.2f}x torch "
              f"({s['min']:.2f}-{s['max']:.2f}x over {s['matrices']} matrices); "
              f"tune+compile median {s['compile_s_median']:.1f} s, max {s['compile_s_max']:.1f} s")
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1)
    print(f"wrote {args.json}")
    if args.plot:
        plot(result, args.plot)
        print(f"wrote {args.plot}")
    if not args.cache:
        shutil.rmtree(cache, ignore_errors=True)


def plot(result, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    mats = sorted(result["matrices"], key=lambda m: m["nnz"])
    kernels = ["spmm", "spmv", "sddmm", "sddmm_bt"]
    labels = {"sddmm_bt": "sddmm, B = H.t() view"}
    fig, ax = plt.subplots(figsize=(max(8, 0.9 * len(mats) + 2), 4.8))
    w = 0.2
    xs = np.arange(len(mats))
    for i, kernel in enumerate(kernels):
        vals = [m["kernels"][kernel].get("speedup_vs_torch", np.nan) for m in mats]
        off = (i - 1.5) * w
        ax.bar(xs + off, vals, w, label=labels.get(kernel, kernel))
        for x, v in zip(xs + off, vals):
            if np.isnan(v):
                ax.text(x, 1.0, "skip", rotation=90, ha="center", va="bottom", fontsize=7)
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_yscale("log")
    ax.set_xticks(xs)
    ax.set_xticklabels([f"{m['name']}\n{m['nnz']:,} nnz" for m in mats], rotation=60,
                       ha="right", fontsize=7)
    ax.set_ylabel("torch time / sptune time (log)")
    ax.set_title(f"sptune.torch vs torch.sparse (CSR, float32, N = {result['n']}, "
                 f"{result['threads']} threads each)")
    top = max((v for m in mats for k in kernels
               for v in [m["kernels"][k].get("speedup_vs_torch")] if v), default=10)
    ax.set_ylim(top=top * 30)  # room for the legend above the bars
    ax.legend(loc="upper center", ncol=4, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
