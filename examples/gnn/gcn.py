#!/usr/bin/python3
"""A 2-layer GCN (Kipf & Welling) trained twice from the same seed: once with
sptune.torch.spmm for the products with the normalized adjacency, once with
torch.sparse.mm on the same CSR tensor. Prints (and writes as JSON) the loss
of each implementation per epoch, their largest difference, and the
per-epoch wall time of each (forward + backward + optimizer step).

    H1  = relu(Â (X W1))
    out = Â (H1 W2)
    Â   = D^-1/2 (A + I) D^-1/2   (A symmetrized, unweighted; fixed)

X: random features (the graphs carry none), W1 and W2 learnable, random
labels, cross-entropy, Adam. Run with Debian's /usr/bin/python3:

    /usr/bin/python3 examples/gnn/gcn.py --graph PATH.mtx [--epochs 20]
        [--hidden 64] [--json OUT.json] [--plot OUT.png]
    /usr/bin/python3 examples/gnn/gcn.py --graph gen:rmat:rows=4096,nnz=40000
    /usr/bin/python3 examples/gnn/gcn.py --synthetic 2000

See examples/gnn/README.md.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

# The package from this repository's python/ directory (no PYTHONPATH
# needed), as build/bin/sptune does.
_REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                      "..", ".."))
sys.path.insert(0, os.path.join(_REPO, "python"))

TOLERANCE = 1e-5


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description="2-layer GCN with sptune.torch.spmm vs torch.sparse.mm")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--graph", metavar="PATH.mtx|gen:SPEC",
                     help="a Matrix Market file (any field; every stored "
                          "entry is an edge) or an sptune-matrix generator "
                          "spec (gen:KIND:rows=N,nnz=M,...)")
    src.add_argument("--synthetic", type=int, metavar="N",
                     help="a random undirected graph of N nodes "
                          "(--degree random neighbours each), built here")
    p.add_argument("--degree", type=int, default=8,
                   help="--synthetic: random neighbours per node (8)")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--features", type=int, default=64,
                   help="width of the random input features X (64)")
    p.add_argument("--hidden", type=int, default=64, help="width of H1 (64)")
    p.add_argument("--classes", type=int, default=16,
                   help="number of (random) classes, the width of out (16)")
    p.add_argument("--lr", type=float, default=0.01, help="Adam's (0.01)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, metavar="T",
                   help="OMP_NUM_THREADS for sptune's kernels (LLVM libomp) "
                        "and torch.set_num_threads for PyTorch (default: "
                        "each runtime's default, or OMP_NUM_THREADS)")
    p.add_argument("--json", metavar="OUT.json")
    p.add_argument("--plot", metavar="OUT.png")
    args = p.parse_args(argv)
    if args.epochs < 1:
        p.error("--epochs must be at least 1")
    if args.synthetic is not None and args.synthetic < 2:
        p.error("--synthetic needs at least 2 nodes")
    return args


# ---------------------------------------------------------------- graphs

def read_mtx(path):
    """The (rows, cols) coordinates and shape of a Matrix Market file
    (coordinate or array, any field and symmetry; values are ignored)."""
    import scipy.io
    m = scipy.io.mmread(path)
    if not hasattr(m, "tocoo"):  # an array file: its nonzero entries
        import scipy.sparse
        m = scipy.sparse.coo_matrix(m)
    m = m.tocoo()  # mmread expands symmetric files to both triangles
    return m.row, m.col, m.shape


def generated_mtx(spec, directory):
    """sptune-matrix's matrix for a gen: spec, as a pattern file."""
    from sptune import tools
    out = os.path.join(directory, "graph.mtx")
    subprocess.run([tools.tool("sptune-matrix"), "gen", spec, "--pattern",
                    "-o", out], check=True)
    return out


def synthetic_edges(n, degree, seed):
    """Each node linked to `degree` uniformly random others (then
    symmetrized): a sparse random graph with no file and no tool."""
    import numpy as np
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n), degree)
    cols = rng.integers(0, n, size=n * degree)
    return rows, cols, (n, n)


def normalized_adjacency(rows, cols, shape):
    """Â = D^-1/2 (A + I) D^-1/2 as a float32 torch CSR tensor (int64
    indices, columns sorted within rows), with A the symmetrized,
    unweighted graph without self-loops. Also the nnz of A."""
    import numpy as np
    import scipy.sparse as sp
    import torch
    if shape[0] != shape[1]:
        raise SystemExit(f"gcn: the adjacency must be square, got "
                         f"{shape[0]} x {shape[1]}")
    n = shape[0]
    rows, cols = np.asarray(rows), np.asarray(cols)
    off = rows != cols  # self-loops: Â has exactly one per node, from I
    rows, cols = rows[off], cols[off]
    a = sp.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=shape).tocsr()
    a = (a + a.T).tocsr()
    a.data[:] = 1.0
    edges = a.nnz
    a = (a + sp.identity(n, format="csr")).tocsr()
    deg = np.asarray(a.sum(axis=1)).ravel()
    dinv = sp.diags(1.0 / np.sqrt(deg))
    a = (dinv @ a @ dinv).tocsr()
    a.sort_indices()
    a.sum_duplicates()
    adj = torch.sparse_csr_tensor(
        torch.from_numpy(a.indptr.astype(np.int64)),
        torch.from_numpy(a.indices.astype(np.int64)),
        torch.from_numpy(a.data.astype(np.float32)), size=(n, n))
    return adj, edges


def load_graph(args):
    """(name, Â, nnz of A, source description)."""
    if args.synthetic is not None:
        name = f"synthetic-n{args.synthetic}-d{args.degree}-s{args.seed}"
        adj, edges = normalized_adjacency(
            *synthetic_edges(args.synthetic, args.degree, args.seed))
        return name, adj, edges, "synthetic (random neighbours)"
    if args.graph.startswith("gen:"):
        with tempfile.TemporaryDirectory(prefix="gcn-graph-") as d:
            adj, edges = normalized_adjacency(
                *read_mtx(generated_mtx(args.graph, d)))
        return args.graph, adj, edges, "sptune-matrix gen (symmetrized)"
    if not os.path.isfile(args.graph):
        raise SystemExit(f"gcn: {args.graph}: no such file (give a .mtx "
                         f"file, a gen: spec or --synthetic N)")
    name = os.path.splitext(os.path.basename(args.graph))[0]
    adj, edges = normalized_adjacency(*read_mtx(args.graph))
    return name, adj, edges, os.path.abspath(args.graph)


# ---------------------------------------------------------------- model

def glorot(rows, cols, gen):
    import torch
    bound = (6.0 / (rows + cols)) ** 0.5
    w = (torch.rand(rows, cols, generator=gen) * 2 - 1) * bound
    return w.requires_grad_()


def train(mm, adj, x, labels, args):
    """Train from args.seed's weights, one epoch per step of the generator.

    Yields (loss, seconds) per epoch, then, after the last epoch, a final
    ("done", (w1, w2), training accuracy). A generator, so that main() can
    interleave the epochs of the two implementations: a slow spell of the
    machine then hits both alike instead of whichever ran during it."""
    import torch
    import torch.nn.functional as F
    gen = torch.Generator().manual_seed(args.seed + 1)
    w1 = glorot(args.features, args.hidden, gen)
    w2 = glorot(args.hidden, args.classes, gen)
    opt = torch.optim.Adam([w1, w2], lr=args.lr)
    for _ in range(args.epochs):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        h1 = torch.relu(mm(adj, x @ w1))
        out = mm(adj, h1 @ w2)
        loss = F.cross_entropy(out, labels)
        loss.backward()
        opt.step()
        seconds = time.perf_counter() - t0
        yield loss.item(), seconds
    with torch.no_grad():
        pred = mm(adj, torch.relu(mm(adj, x @ w1)) @ w2).argmax(dim=1)
        accuracy = (pred == labels).float().mean().item()
    yield "done", (w1.detach(), w2.detach()), accuracy


def train_interleaved(st, adj, x, labels, args):
    """Both trainings, epoch by epoch in turn (sptune first on odd epochs,
    torch.sparse first on even ones). Returns per implementation the losses,
    the epoch times, the final weights and the accuracy, and sptune's cache
    statistics over its first epoch (tuning and compiling happen there)."""
    import torch
    runs = {"sptune": train(st.spmm, adj, x, labels, args),
            "torch": train(torch.sparse.mm, adj, x, labels, args)}
    losses = {k: [] for k in runs}
    times = {k: [] for k in runs}
    first_stats = None
    for epoch in range(args.epochs):
        order = ["sptune", "torch"] if epoch % 2 == 0 else ["torch", "sptune"]
        for k in order:
            before = st.stats() if (k == "sptune" and epoch == 0) else None
            loss, seconds = next(runs[k])
            if before is not None:
                after = st.stats()
                first_stats = {key: after[key] - before.get(key, 0)
                               for key in after}
            losses[k].append(loss)
            times[k].append(seconds)
    final = {}
    for k, run in runs.items():
        _, weights, accuracy = next(run)
        final[k] = (weights, accuracy)
    return losses, times, final, first_stats


# ---------------------------------------------------------------- report

def machine_facts():
    import torch
    model = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cpu_model": model or platform.processor() or "unknown",
        "cpus": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)),
        "torch_version": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
        "python": platform.python_version(),
        "loadavg_start": list(os.getloadavg()),
        "blas": loaded_libraries(("blas", "mkl", "blis")),
        "allocator": {"LD_PRELOAD": os.environ.get("LD_PRELOAD"),
                      "GLIBC_TUNABLES": os.environ.get("GLIBC_TUNABLES")},
    }


def loaded_libraries(words):
    """The files mapped into this process whose names contain one of words:
    which BLAS torch's dense products really run on (Debian's python3-torch
    calls whatever libblas.so.3 the alternatives system points to)."""
    found = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if line.count("/") else ""
                base = os.path.basename(path).lower()
                # Python extension modules (SciPy's BLAS wrappers) are not
                # the library that does the work.
                if base.startswith("lib") and any(w in base for w in words):
                    found.add(os.path.realpath(path))
    except OSError:
        return []
    return sorted(found)


def plot(path, result):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
    epochs = list(range(1, len(result["loss_sptune"]) + 1))
    fig, (ax_t, ax_l) = plt.subplots(1, 2, figsize=(11, 4))
    ax_t.plot(epochs, [t * 1e3 for t in result["time_sptune_s"]], "o-",
              label="sptune.torch.spmm")
    ax_t.plot(epochs, [t * 1e3 for t in result["time_torch_s"]], "s-",
              label="torch.sparse.mm")
    ax_t.set_yscale("log")
    ax_t.set_xlabel("epoch")
    ax_t.set_ylabel("forward + backward + step (ms, log)")
    first = ("tuning + compiling"
             if result["sptune_stats_first_run"].get("compiles")
             else "loading cached kernels")
    ax_t.set_title(f"epoch time (epoch 1 of sptune: {first})")
    ax_t.legend()
    ax_t.grid(True, which="both", alpha=0.3)
    ax_l.plot(epochs, result["loss_sptune"], "o-", label="sptune.torch.spmm")
    ax_l.plot(epochs, result["loss_torch"], "x--", label="torch.sparse.mm")
    ax_l.set_xlabel("epoch")
    ax_l.set_ylabel("cross-entropy loss")
    ax_l.set_title(f"loss (max |difference| {result['max_loss_diff']:.1e})")
    ax_l.legend()
    ax_l.grid(True, alpha=0.3)
    for ax in (ax_t, ax_l):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    m = result["machine"]
    fig.suptitle(f"GCN on {result['graph']}: {result['nodes']} nodes, "
                 f"nnz(Â) {result['nnz']}; {m['cpu_model']}, "
                 f"load {m['loadavg_start'][0]:.2f}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    args = parse_args(argv)
    if args.threads is not None:
        # Before torch and sptune's libomp start their thread pools.
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
        # OpenBLAS (torch's dense products when it is the libblas.so.3 of
        # the alternatives system) reads its own variable when loaded.
        os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    warnings.filterwarnings("ignore", message=".*Sparse CSR tensor support.*")
    try:
        import torch
    except ImportError:
        raise SystemExit("gcn: PyTorch is not installed (Debian: "
                         "python3-torch); run with /usr/bin/python3")
    import sptune.torch as st
    if args.threads is not None:
        torch.set_num_threads(args.threads)

    name, adj, edges, source = load_graph(args)
    n = adj.shape[0]
    nnz = adj.col_indices().numel()
    gen = torch.Generator().manual_seed(args.seed)
    x = torch.randn(n, args.features, generator=gen)
    labels = torch.randint(0, args.classes, (n,), generator=gen)
    facts = machine_facts()

    print(f"graph: {name} ({n} nodes, {edges} adjacency entries, "
          f"nnz(Â) {nnz} with self-loops)")
    print(f"model: features {args.features}, hidden {args.hidden}, classes "
          f"{args.classes}; Adam lr {args.lr}; {args.epochs} epochs; "
          f"seed {args.seed}")
    print(f"BLAS: {', '.join(facts['blas']) or '(none mapped)'}; "
          f"LD_PRELOAD={facts['allocator']['LD_PRELOAD'] or '(unset)'}")
    print(f"threads: torch {facts['torch_threads']}, OMP_NUM_THREADS="
          f"{facts['OMP_NUM_THREADS'] or '(unset)'}; sptune cache "
          f"{st.cache_dir()}")
    sys.stdout.flush()

    losses, times, final, first_stats = train_interleaved(st, adj, x,
                                                          labels, args)
    loss_s, loss_t = losses["sptune"], losses["torch"]
    time_s, time_t = times["sptune"], times["torch"]
    (w_s, acc_s), (w_t, acc_t) = final["sptune"], final["torch"]
    facts["loadavg_end"] = list(os.getloadavg())

    diffs = [abs(a - b) for a, b in zip(loss_s, loss_t)]
    max_diff = max(diffs)
    w_diff = max((a - b).abs().max().item() for a, b in zip(w_s, w_t))
    ok = max_diff <= TOLERANCE
    rest_s, rest_t = time_s[1:], time_t[1:]
    med_s = statistics.median(rest_s) if rest_s else None
    med_t = statistics.median(rest_t) if rest_t else None
    ratio = med_t / med_s if rest_s else None
    min_s = min(rest_s) if rest_s else None
    min_t = min(rest_t) if rest_t else None
    schedules = {}
    for width in sorted({args.hidden, args.classes}):
        info = st.kernel_info("spmm", adj, width)
        schedules[f"spmm N={width}"] = info.get("schedule")

    print(f"{'epoch':>5} {'loss sptune':>12} {'loss torch':>12} "
          f"{'|diff|':>9} {'sptune ms':>10} {'torch ms':>10}")
    for i, (ls, lt, d, ts, tt) in enumerate(zip(loss_s, loss_t, diffs,
                                                time_s, time_t)):
        print(f"{i + 1:>5} {ls:>12.7f} {lt:>12.7f} {d:>9.1e} "
              f"{ts * 1e3:>10.2f} {tt * 1e3:>10.2f}")
    print(f"max loss difference: {max_diff:.1e}")
    print(f"losses match: {'yes' if ok else 'NO'} (tolerance {TOLERANCE:g})")
    print(f"max final weight difference: {w_diff:.1e}")
    print(f"train accuracy on the random labels: sptune {acc_s:.3f}, "
          f"torch.sparse {acc_t:.3f}")
    print(f"first epoch: sptune {time_s[0] * 1e3:.1f} ms (compiles "
          f"{first_stats['compiles']}, disk hits "
          f"{first_stats['disk_hits']}), torch.sparse "
          f"{time_t[0] * 1e3:.1f} ms")
    if rest_s:
        print(f"median epoch time (epochs 2-{args.epochs}; epoch 1 excluded "
              f"for both, it includes sptune's tuning and compiling): sptune "
              f"{med_s * 1e3:.2f} ms, torch.sparse {med_t * 1e3:.2f} ms, "
              f"ratio torch.sparse/sptune {ratio:.2f}")
        print(f"fastest epoch (epochs 2-{args.epochs}): sptune "
              f"{min_s * 1e3:.2f} ms, torch.sparse {min_t * 1e3:.2f} ms")
    else:
        print("median epoch time: needs 2 epochs or more (epoch 1 excluded)")
    for k, v in schedules.items():
        print(f"schedule {k}: {v}")
    print(f"load average: start {facts['loadavg_start'][0]:.2f}, end "
          f"{facts['loadavg_end'][0]:.2f}")

    result = {
        "graph": name,
        "source": source,
        "nodes": n,
        "nnz": nnz,
        "adjacency_nnz": edges,
        "features": args.features,
        "hidden": args.hidden,
        "classes": args.classes,
        "epochs": args.epochs,
        "lr": args.lr,
        "seed": args.seed,
        "loss_sptune": loss_s,
        "loss_torch": loss_t,
        "loss_diff": diffs,
        "max_loss_diff": max_diff,
        "tolerance": TOLERANCE,
        "losses_match": ok,
        "max_final_weight_diff": w_diff,
        "train_accuracy_sptune": acc_s,
        "train_accuracy_torch": acc_t,
        "time_sptune_s": time_s,
        "time_torch_s": time_t,
        "first_epoch_sptune_s": time_s[0],
        "first_epoch_torch_s": time_t[0],
        "median_note": "medians over epochs 2..E; epoch 1 (sptune: tuning "
                       "and compiling, or loading cached kernels) excluded "
                       "for both",
        "median_sptune_s": med_s,
        "median_torch_s": med_t,
        "ratio_torch_over_sptune": ratio,
        "min_sptune_s": min_s,
        "min_torch_s": min_t,
        "sptune_stats_first_run": first_stats,
        "sptune_cache": st.cache_dir(),
        "schedules": schedules,
        "machine": facts,
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if args.plot:
        plot(args.plot, result)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
