#!/usr/bin/python3
"""sptune.torch on new patterns of one shape: one compile per pattern (the
default) against one multi-versioned kernel per shape
(SPTUNE_TORCH_MULTIVERSION=K), side by side.

Each mode runs in a fresh process with an empty cache: for P random
patterns of an n x n matrix (density rising from --density), the first
SpMM call of each pattern (the compile, when there is one) and its steady
time per call; each result is checked against torch's. JSON out.

    /usr/bin/python3 bench/torch-multiversion.py --json out.json
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def one_mode(variants, n, patterns, density, free, reps):
    """Runs in the child: the figures of one mode, as a dict."""
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    import torch
    import sptune.torch as st
    torch.manual_seed(0)
    b = torch.randn(n, free)
    rows = []
    for p in range(patterns):
        d = (torch.rand(n, n) < density * (p + 1)).float() * torch.rand(n, n)
        a = d.to_sparse_csr()
        t0 = time.perf_counter()
        c = st.spmm(a, b)
        first = time.perf_counter() - t0
        st.spmm(a, b)
        t0 = time.perf_counter()
        for _ in range(reps):
            st.spmm(a, b)
        steady = (time.perf_counter() - t0) / reps
        ok = torch.allclose(c, d @ b, rtol=1e-4, atol=1e-4)
        rows.append({"pattern": p, "nnz": int(a.values().numel()), "first_call_s": first,
                     "steady_s": steady, "correct": bool(ok)})
    return {"variants": variants, "compiles": st.stats()["compiles"], "rows": rows}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--patterns", type=int, default=5)
    ap.add_argument("--density", type=float, default=0.002)
    ap.add_argument("--free", type=int, default=64)
    ap.add_argument("--variants", type=int, default=4)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--json")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child is not None:
        print(json.dumps(one_mode(args.child, args.n, args.patterns, args.density, args.free,
                                  args.reps)))
        return
    modes = []
    for variants in (0, args.variants):
        env = dict(os.environ, SPTUNE_CACHE=tempfile.mkdtemp(prefix="sptune-mv-bench."))
        env.pop("SPTUNE_TORCH_MULTIVERSION", None)
        if variants:
            env["SPTUNE_TORCH_MULTIVERSION"] = str(variants)
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", str(variants),
                            "--n", str(args.n), "--patterns", str(args.patterns),
                            "--density", str(args.density), "--free", str(args.free),
                            "--reps", str(args.reps)],
                           capture_output=True, text=True, env=env, timeout=3600)
        if p.returncode != 0:
            sys.exit(f"torch-multiversion: the {variants}-variant run failed:\n{p.stderr[-2000:]}")
        mode = json.loads(p.stdout.strip().splitlines()[-1])
        modes.append(mode)
        name = f"multiversion={variants}" if variants else "per pattern"
        print(f"{name:16} {mode['compiles']} compiles; first calls (s) "
              f"{[round(r['first_call_s'], 2) for r in mode['rows']]}; steady (ms) "
              f"{[round(r['steady_s'] * 1e3, 3) for r in mode['rows']]}; all correct: "
              f"{all(r['correct'] for r in mode['rows'])}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"bench": "torch-multiversion", "n": args.n, "free": args.free,
                       "modes": modes}, fh, indent=1)


if __name__ == "__main__":
    main()
