#!/usr/bin/python3
"""The dispatch's own cost: what a multi-versioned kernel's route costs per
call, next to the kernel it routes to.

For each kernel, sptune-autotune{multiversion=K} compiles it once without a
matrix (as `autotune_eval --multiversion K` does); this script adds a main
that reads each matrix (sparse_tensor.new, the TENSOR0 file) and times, in
one JIT run of the compiled module (sptune-lower-cpu, mlir-runner):

  - the route with its cache emptied before every call (`miss_s`): the
    dispatch features, including the pass over the rows when the rule reads
    the row lengths, and the rule: what the first call with a matrix costs;
  - the route as a caller that keeps calling with one matrix sees it
    (`hit_s`): the cache's check.

With --eval-json (an `autotune_eval --multiversion K` run on the same
matrices) each is divided by the measured time of the variant the matrix is
routed to (`miss_vs_kernel`, `hit_vs_kernel`); the summary gives the worst
of each over the matrices of at least --min-entries entries.

    /usr/bin/python3 bench/dispatch-overhead.py --build build \\
        --eval-json eval.json --json out.json MATRIX.mtx...
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from sptune import kernel_ir, run  # noqa: E402

ROUTE = re.compile(r"func\.func @k__sptune_route\(%arg0: (.*)\) -> index")

MAIN = """
  func.func private @getTensorFilename(index) -> (!llvm.ptr)
  func.func private @rtclock() -> f64
  func.func @main() {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %misses = arith.constant {misses} : index
    %hits = arith.constant {hits} : index
    %empty = arith.constant -1 : i64
    %f = call @getTensorFilename(%c0) : (index) -> (!llvm.ptr)
    %a = sparse_tensor.new %f : !llvm.ptr to {type}
    %first = call @k__sptune_route(%a) : ({type}) -> index
    %t0 = call @rtclock() : () -> f64
    %s0 = scf.for %i = %c0 to %misses step %c1 iter_args(%acc = %c0) -> (index) {{
      {empty_cache}
      %r = func.call @k__sptune_route(%a) : ({type}) -> index
      %n = arith.addi %acc, %r : index
      scf.yield %n : index
    }}
    %t1 = call @rtclock() : () -> f64
    %s1 = scf.for %i = %c0 to %hits step %c1 iter_args(%acc = %c0) -> (index) {{
      %r = func.call @k__sptune_route(%a) : ({type}) -> index
      %n = arith.addi %acc, %r : index
      scf.yield %n : index
    }}
    %t2 = call @rtclock() : () -> f64
    %miss = arith.subf %t1, %t0 : f64
    %hit = arith.subf %t2, %t1 : f64
    vector.print %first : index
    vector.print %miss : f64
    vector.print %hit : f64
    vector.print %s0 : index
    vector.print %s1 : index
    bufferization.dealloc_tensor %a : {type}
    return
  }}
}}
"""

EMPTY_CACHE = """%g = memref.get_global @k__sptune_route_cache : memref<5xi64>
      memref.store %empty, %g[%c0] : memref<5xi64>"""


def compiled_module(build, kernel, free, variants, training, mode, misses, hits, tmp):
    """The lowered module of `kernel`, multi-versioned, with the timing main."""
    bindir = os.path.join(build, "bin") if build else None
    opt = run.executable("sptune-opt", bindir)
    src = os.path.join(tmp, f"{kernel}.mlir")
    with open(src, "w") as fh:
        fh.write(kernel_ir.kernel_mlir(kernel))
    opts = [f"multiversion={variants}", f"free={free}", f"mode={mode}"]
    if training:
        opts.append(f"training-matrices={training}")
    tuned = run.run([opt, src, "--sptune-extract-kernels", "--sptune-autotune=" + " ".join(opts)],
                    what="sptune-opt multiversion").stdout
    m = ROUTE.search(tuned)
    if not m:
        sys.exit(f"dispatch-overhead: no route function in the {kernel} module")
    rule = re.search(r'sptune\.dispatch = "([^"]*)"', tuned)
    cached = "@k__sptune_route_cache" in tuned
    body = tuned.rstrip()
    assert body.endswith("}")
    text = body[:-1] + MAIN.format(type=m.group(1), misses=misses, hits=hits,
                                   empty_cache=EMPTY_CACHE if cached else "")
    with_main = os.path.join(tmp, f"{kernel}-bench.mlir")
    with open(with_main, "w") as fh:
        fh.write(text)
    lowered = os.path.join(tmp, f"{kernel}-bench.ll.mlir")
    run.run([opt, with_main, "--sptune-apply-schedule", "--sptune-lower-cpu", "-o", lowered],
            what="sptune-opt lower")
    return lowered, rule.group(1) if rule else "", cached


def runner_libs():
    lib = "/usr/lib/llvm-22/lib"
    omp = sorted(f for f in os.listdir(lib) if f.startswith("libomp.so"))
    return ",".join([f"{lib}/libmlir_c_runner_utils.so", f"{lib}/libmlir_runner_utils.so"]
                    + ([f"{lib}/{omp[0]}"] if omp else []))


def time_route(lowered, matrix, misses, hits):
    env = dict(os.environ, TENSOR0=matrix)
    p = subprocess.run(["/usr/lib/llvm-22/bin/mlir-runner", "-e", "main",
                        "-entry-point-result=void", "-O3", f"-shared-libs={runner_libs()}",
                        lowered],
                       capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        sys.exit(f"dispatch-overhead: mlir-runner failed on {matrix}:\n{p.stderr[-2000:]}")
    first, miss, hit = p.stdout.split()[:3]
    return int(first), float(miss) / misses, float(hit) / hits


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("matrices", nargs="+", help=".mtx files")
    ap.add_argument("--build", default="build")
    ap.add_argument("--kernel", default="spmm,sddmm,spmv")
    ap.add_argument("--free", type=int, default=64)
    ap.add_argument("--multiversion", type=int, default=4)
    ap.add_argument("--training-matrices", default="")
    ap.add_argument("--mode", default="release")
    ap.add_argument("--misses", type=int, default=200)
    ap.add_argument("--hits", type=int, default=100000)
    ap.add_argument("--min-entries", type=int, default=10000)
    ap.add_argument("--eval-json", help="an autotune_eval --multiversion run on these matrices")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    kernel_times = {}
    if args.eval_json:
        with open(args.eval_json) as fh:
            for r in json.load(fh)["rows"]:
                kernel_times[(r["matrix"], r["kernel"])] = (r.get("dispatched_s"),
                                                            r.get("dispatched_variant"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kernel in args.kernel.split(","):
            lowered, rule, cached = compiled_module(args.build, kernel, args.free,
                                                    args.multiversion, args.training_matrices,
                                                    args.mode, args.misses, args.hits, tmp)
            print(f"{kernel}: rule {rule} ({'cached' if cached else 'no pass over the rows'})",
                  flush=True)
            for matrix in args.matrices:
                mid = os.path.splitext(os.path.basename(matrix))[0]
                with open(matrix) as fh:
                    nnz = next(int(l.split()[2]) for l in fh if not l.startswith("%"))
                variant, miss, hit = time_route(lowered, matrix, args.misses, args.hits)
                kernel_s, eval_variant = kernel_times.get((mid, kernel), (None, None))
                row = {"matrix": mid, "kernel": kernel, "entries_in_file": nnz, "rule": rule,
                       "variant": variant, "eval_variant": eval_variant,
                       "miss_s": miss, "hit_s": hit, "kernel_s": kernel_s,
                       "miss_vs_kernel": miss / kernel_s if kernel_s else None,
                       "hit_vs_kernel": hit / kernel_s if kernel_s else None}
                rows.append(row)
                f = lambda x: "-" if x is None else f"{x * 100:.3f}%"
                print(f"  {mid[:28]:28} v{variant} miss {miss * 1e6:8.2f} us  hit "
                      f"{hit * 1e9:6.1f} ns  vs kernel: miss {f(row['miss_vs_kernel'])} "
                      f"hit {f(row['hit_vs_kernel'])}", flush=True)
    summary = {}
    for kernel in args.kernel.split(","):
        k = [r for r in rows if r["kernel"] == kernel and r["entries_in_file"] >= args.min_entries]
        miss = [r["miss_vs_kernel"] for r in k if r["miss_vs_kernel"] is not None]
        hit = [r["hit_vs_kernel"] for r in k if r["hit_vs_kernel"] is not None]
        summary[kernel] = {"matrices": len(k), "worst_miss_vs_kernel": max(miss) if miss else None,
                           "worst_hit_vs_kernel": max(hit) if hit else None,
                           "routes_agree_with_eval": all(r["eval_variant"] in (None, r["variant"])
                                                         for r in k)}
        print(kernel, summary[kernel])
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"bench": "dispatch-overhead", "summary": summary, "rows": rows,
                       "machine": run.machine()["cpu"]}, fh, indent=1)


if __name__ == "__main__":
    main()
