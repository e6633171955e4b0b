#!/usr/bin/python3
"""An attention layer with its scale fused into the SDDMM, next to the same
layer with the scale in an op of its own, in one run per matrix.

The layer (f32, K = 64 features for the scores, N = 64 for the aggregation):

    E = S ⊙ (A B)         SDDMM into a fresh sparse tensor (S's pattern)
    E' = E * scale        an elementwise op (an attention layer's 1/sqrt(d))
    Y = E' H              SpMM

compiled twice by sptune-opt, both with the heuristic's schedules
(`--sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule
--sptune-lower-cpu`), once after `--sptune-fuse-scales` (the scale folded
into the SDDMM's product: no second pass over E, no second sparse tensor).
Each program reads the matrix (TENSOR0), runs the layer --reps times in one
JIT run (mlir-runner) and reports its fastest call and a checksum of Y; the
two checksums must agree. Matrices: the graph matrices named in GRAPHS from
../shared/matrices when present, else generated ones (sptune-matrix gen).

    /usr/bin/python3 bench/gat-layer.py --build build --json gat.json

Output: one JSON object ("bench": "gat-layer") with the machine, per
matrix ("rows") the fastest unfused and fused times and their ratio
(speedup of the fusion), and a summary with their geometric mean; `sptune
report` shows it.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from sptune import run  # noqa: E402

GRAPHS = ["SNAP_ego-Twitter_undirected.mtx", "vanHeukelum_cage11.mtx",
          "SNAP_email-Enron.mtx", "DIMACS10_ct2010.mtx",
          "DIMACS10_rgg_n_2_15_s0.mtx", "Newman_astro-ph.mtx"]
GENERATED = ["gen:rmat:rows=65536,nnz=1000000,seed=7",
             "gen:uniform:rows=32768,nnz=500000,seed=8",
             "gen:banded:rows=65536,nnz=800000,seed=9"]

PROGRAM = """
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
module {
  func.func private @getTensorFilename(index) -> (!llvm.ptr)
  func.func private @rtclock() -> f64
  func.func @attention(%s: tensor<?x?xf32, #CSR>, %a: tensor<?x64xf32>, %b: tensor<64x?xf32>,
                       %h: tensor<?x64xf32>, %scale: f32) -> tensor<?x64xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tensor.dim %s, %c0 : tensor<?x?xf32, #CSR>
    %n = tensor.dim %s, %c1 : tensor<?x?xf32, #CSR>
    %e = tensor.empty(%m, %n) : tensor<?x?xf32, #CSR>
    %scores = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>,
                                               affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
                              iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s, %a, %b : tensor<?x?xf32, #CSR>, tensor<?x64xf32>, tensor<64x?xf32>) outs(%e : tensor<?x?xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %x: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %y = arith.addf %x, %q : f32
      linalg.yield %y : f32
    } -> tensor<?x?xf32, #CSR>
    %e2 = tensor.empty(%m, %n) : tensor<?x?xf32, #CSR>
    %scaled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                              iterator_types = ["parallel", "parallel"]}
      ins(%scores : tensor<?x?xf32, #CSR>) outs(%e2 : tensor<?x?xf32, #CSR>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.mulf %x, %scale : f32
      linalg.yield %y : f32
    } -> tensor<?x?xf32, #CSR>
    %zero = arith.constant 0.0 : f32
    %ez = tensor.empty(%m) : tensor<?x64xf32>
    %z = linalg.fill ins(%zero : f32) outs(%ez : tensor<?x64xf32>) -> tensor<?x64xf32>
    %r = linalg.matmul ins(%scaled, %h : tensor<?x?xf32, #CSR>, tensor<?x64xf32>) outs(%z : tensor<?x64xf32>) -> tensor<?x64xf32>
    bufferization.dealloc_tensor %scaled : tensor<?x?xf32, #CSR>
    return %r : tensor<?x64xf32>
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %reps = arith.constant REPS : index
    %scale = arith.constant 0.125 : f32
    %f = call @getTensorFilename(%c0) : (index) -> (!llvm.ptr)
    %s = sparse_tensor.new %f : !llvm.ptr to tensor<?x?xf32, #CSR>
    %m = tensor.dim %s, %c0 : tensor<?x?xf32, #CSR>
    %n = tensor.dim %s, %c1 : tensor<?x?xf32, #CSR>
GENERATED_INPUTS
    %inf = arith.constant 1.0e30 : f64
    %fz = arith.constant 0.0 : f32
    %best, %sum = scf.for %it = %c0 to %reps step %c1 iter_args(%bt = %inf, %acc = %fz) -> (f64, f32) {
      %t0 = func.call @rtclock() : () -> f64
      %y = func.call @attention(%s, %a32, %b32, %h32, %scale)
        : (tensor<?x?xf32, #CSR>, tensor<?x64xf32>, tensor<64x?xf32>, tensor<?x64xf32>, f32) -> tensor<?x64xf32>
      %t1 = func.call @rtclock() : () -> f64
      %dt = arith.subf %t1, %t0 : f64
      %nb = arith.minimumf %bt, %dt : f64
      %red = tensor.empty() : tensor<f32>
      %init = linalg.fill ins(%fz : f32) outs(%red : tensor<f32>) -> tensor<f32>
      %tot = linalg.reduce ins(%y : tensor<?x64xf32>) outs(%init : tensor<f32>) dimensions = [0, 1]
        (%in: f32, %o: f32) {
          %ad = arith.addf %in, %o : f32
          linalg.yield %ad : f32
        }
      %v = tensor.extract %tot[] : tensor<f32>
      bufferization.dealloc_tensor %y : tensor<?x64xf32>
      scf.yield %nb, %v : f64, f32
    }
    vector.print %best : f64
    vector.print %sum : f32
    bufferization.dealloc_tensor %s : tensor<?x?xf32, #CSR>
    return
  }
}
"""


def dense_input(name, size, shape, combine, modulus):
    """MLIR for a deterministic dense input: (x `combine` y) mod `modulus`,
    as f32, of type tensor<`shape`> with its dynamic size `size`."""
    return f"""    %{name} = tensor.generate %{size} {{
    ^bb0(%x: index, %y: index):
      %v = arith.{combine} %x, %y : index
      %md = arith.constant {modulus} : index
      %w = arith.remui %v, %md : index
      %wi = arith.index_cast %w : index to i64
      %wf = arith.uitofp %wi : i64 to f32
      tensor.yield %wf : f32
    }} : tensor<{shape}>"""


def lowered(opt, reps, fused, tmp):
    src = os.path.join(tmp, "gat.mlir")
    inputs = "\n".join([dense_input("a32", "m", "?x64xf32", "addi", 7),
                         dense_input("b32", "n", "64x?xf32", "muli", 5),
                         dense_input("h32", "n", "?x64xf32", "addi", 3)])
    text = PROGRAM.replace("REPS", str(reps)).replace("GENERATED_INPUTS", inputs)
    with open(src, "w") as fh:
        fh.write(text)
    out = os.path.join(tmp, "gat-%s.ll.mlir" % ("fused" if fused else "unfused"))
    passes = (["--sptune-fuse-scales"] if fused else []) + [
        "--sptune-extract-kernels", "--sptune-default-schedule",
        "--sptune-apply-schedule", "--sptune-lower-cpu"]
    run.run([opt, src] + passes + ["-o", out], what="sptune-opt")
    return out


def time_layer(module, matrix, timeout):
    libs = ",".join("/usr/lib/llvm-22/lib/" + l for l in (
        "libmlir_c_runner_utils.so", "libmlir_runner_utils.so", "libomp.so"))
    p = subprocess.run(["/usr/lib/llvm-22/bin/mlir-runner", "-e", "main",
                        "-entry-point-result=void", "-shared-libs=" + libs, module],
                       env=dict(os.environ, TENSOR0=matrix), capture_output=True,
                       text=True, timeout=timeout)
    if p.returncode != 0:
        sys.exit("gat-layer: mlir-runner failed on %s:\n%s" % (matrix, p.stderr[-2000:]))
    best, checksum = p.stdout.split()[:2]
    return float(best), float(checksum)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--matrices", default=os.path.join(HERE, "..", "..", "shared", "matrices"))
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--plot", help="write a bar chart of the speedups here (.png)")
    ap.add_argument("mtx", nargs="*", help="matrices (default: GRAPHS or GENERATED)")
    args = ap.parse_args(argv)
    bindir = os.path.join(args.build, "bin")
    opt = run.executable("sptune-opt", bindir)
    with tempfile.TemporaryDirectory() as tmp:
        matrices = list(args.mtx)
        if not matrices:
            shared = [os.path.join(args.matrices, g) for g in GRAPHS]
            if all(os.path.exists(p) for p in shared):
                matrices = shared
            else:
                gen = run.executable("sptune-matrix", bindir)
                for n, spec in enumerate(GENERATED):
                    path = os.path.join(tmp, "gen%d.mtx" % n)
                    run.run([gen, "gen", spec, "-o", path], what="sptune-matrix")
                    matrices.append(path)
        unfused = lowered(opt, args.reps, False, tmp)
        fused = lowered(opt, args.reps, True, tmp)
        rows = []
        for n, matrix in enumerate(matrices):
            # Both programs in one run per matrix, alternating.
            t_u, sum_u = time_layer(unfused, matrix, args.timeout)
            t_f, sum_f = time_layer(fused, matrix, args.timeout)
            agree = abs(sum_u - sum_f) <= 1e-4 * max(1.0, abs(sum_u))
            rows.append({"matrix": os.path.basename(matrix), "unfused_s": t_u,
                         "fused_s": t_f, "speedup": t_u / t_f,
                         "checksums_agree": agree})
            print("gat-layer: %d/%d %-40s unfused %.4f s  fused %.4f s  %.3fx%s"
                  % (n + 1, len(matrices), os.path.basename(matrix), t_u, t_f,
                     t_u / t_f, "" if agree else "  CHECKSUMS DIFFER"),
                  file=sys.stderr, flush=True)
    geo = math.exp(sum(math.log(r["speedup"]) for r in rows) / len(rows))
    out = {"bench": "gat-layer", "machine": run_machine(), "reps": args.reps,
           "rows": rows,
           "summary": {"geomean_speedup": geo,
                       "all_checksums_agree": all(r["checksums_agree"] for r in rows)}}
    text = json.dumps(out, indent=2)
    if args.json:
        with open(args.json, "w") as fh:
            fh.write(text + "\n")
    if args.plot:
        plot(out, args.plot)
    print(text)
    return 0 if out["summary"]["all_checksums_agree"] else 1


def plot(out, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = out["rows"]
    fig, ax = plt.subplots(figsize=(7, 3.2))
    names = [r["matrix"].replace(".mtx", "") for r in rows]
    ax.bar(range(len(rows)), [r["speedup"] for r in rows], color="#4c72b0")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("unfused time / fused time")
    ax.set_title("Attention layer, scale folded into the SDDMM (%s, geomean %.2fx)"
                 % (out["machine"]["cpu"], out["summary"]["geomean_speedup"]), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def run_machine():
    try:
        with open("/proc/cpuinfo") as fh:
            model = next((l.split(":", 1)[1].strip() for l in fh
                          if l.startswith("model name")), "unknown")
    except OSError:
        model = "unknown"
    return {"cpu": model, "cores": os.cpu_count()}


if __name__ == "__main__":
    sys.exit(main())
