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

The folded program's SDDMM and SpMM run as one fused loop over the rows
(sptune-lower-cpu's fuse-sddmm-spmm, targets/cpu/SampledAggregation.h);
`--separate` (on by default) also times it with the fusion turned off
(`fuse-sddmm-spmm=false`: two kernels in one function), and issue 33's
baseline for the layer: the same two kernels tuned
in separate modules, each compiled alone by
the same pipeline and timed in a run of its own: the SDDMM with the scale
after it (folded by --sptune-fuse-scales too, the best a module of its own
can do), then the SpMM over a sparse matrix of E's pattern (S itself: the
SpMM's time depends on the pattern, not the values). Their times add up
to the layer's; the ratio separate / one function is what keeping the
kernels in one function buys.

Each program is compiled as sptune's ahead-of-time path compiles kernels
(mlir-translate, clang -O3 -march=native; `--no-native`: mlir-runner's JIT,
whose code ran 1.5-2x slower on the Intel Xeon VM, --mattr or not), reads
the matrix (TENSOR0), runs the
layer --reps times and reports its fastest call and a checksum of Y; the
checksums of the layer's programs must agree. With --rounds R every program
runs R times per matrix, in turn, and keeps its fastest call. Matrices: the graph matrices named in GRAPHS from
../shared/matrices when present, else generated ones (sptune-matrix gen).

    /usr/bin/python3 bench/gat-layer.py --build build --json gat.json

The programs run with glibc keeping the memory they free (--steady-malloc,
on by default; see STEADY_MALLOC): otherwise, on large graphs, the page
faults of buffers re-allocated on every call dominate the layer's time.

Output: one JSON object ("bench": "gat-layer") with the machine, per
matrix ("rows") the fastest unfused and fused times and their ratio
(speedup of folding the scale), the two kernels' time in one function
(two_kernels_s) and two_kernels_s / fused_s (fusion_speedup), the
separate modules' times (sddmm_module_s, spmm_module_s, their sum
separate_s) and separate_s / fused_s, the layer's schedules and whether
its SDDMM and SpMM were fused (fused_kernel), and a summary with the
geometric means; `sptune report` shows it.
"""

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from sptune import bench_output, run, runner_bench  # noqa: E402

GRAPHS = ["SNAP_ego-Twitter_undirected.mtx", "vanHeukelum_cage11.mtx",
          "SNAP_email-Enron.mtx", "DIMACS10_ct2010.mtx",
          "DIMACS10_rgg_n_2_15_s0.mtx", "Newman_astro-ph.mtx"]
GENERATED = ["gen:rmat:rows=65536,nnz=1000000,seed=7",
             "gen:uniform:rows=32768,nnz=500000,seed=8",
             "gen:banded:rows=65536,nnz=800000,seed=9"]

# A module that times one function: KERNEL_FUNC defines it, CALL calls it
# (defining %y, of type RESULT_TYPE) and CHECKSUM reduces %y into %v (f32).
TIMED_MODULE = """
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
module {
  func.func private @getTensorFilename(index) -> (!llvm.ptr)
  func.func private @rtclock() -> f64
KERNEL_FUNC
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
CALL
      %t1 = func.call @rtclock() : () -> f64
      %dt = arith.subf %t1, %t0 : f64
      %nb = arith.minimumf %bt, %dt : f64
CHECKSUM
      bufferization.dealloc_tensor %y : RESULT_TYPE
      scf.yield %nb, %v : f64, f32
    }
    vector.print %best : f64
    vector.print %sum : f32
    bufferization.dealloc_tensor %s : tensor<?x?xf32, #CSR>
    return
  }
}
"""

# The function's head: the sizes of S (%m, %n).
SIZES = """    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tensor.dim %s, %c0 : tensor<?x?xf32, #CSR>
    %n = tensor.dim %s, %c1 : tensor<?x?xf32, #CSR>"""

# E = S ⊙ (A B) into a fresh sparse tensor, then E' = E * %scale (%scaled).
SCORES = """    %e = tensor.empty(%m, %n) : tensor<?x?xf32, #CSR>
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
    } -> tensor<?x?xf32, #CSR>"""

# Y = E H into a zero-filled dense tensor (%r), E given as %scaled.
AGGREGATE = """    %zero = arith.constant 0.0 : f32
    %ez = tensor.empty(%m) : tensor<?x64xf32>
    %z = linalg.fill ins(%zero : f32) outs(%ez : tensor<?x64xf32>) -> tensor<?x64xf32>
    %r = linalg.matmul ins(%scaled, %h : tensor<?x?xf32, #CSR>, tensor<?x64xf32>) outs(%z : tensor<?x64xf32>) -> tensor<?x64xf32>"""

DENSE_CHECKSUM = """      %red = tensor.empty() : tensor<f32>
      %init = linalg.fill ins(%fz : f32) outs(%red : tensor<f32>) -> tensor<f32>
      %tot = linalg.reduce ins(%y : tensor<?x64xf32>) outs(%init : tensor<f32>) dimensions = [0, 1]
        (%in: f32, %o: f32) {
          %ad = arith.addf %in, %o : f32
          linalg.yield %ad : f32
        }
      %v = tensor.extract %tot[] : tensor<f32>"""

# The layer in one function.
LAYER_MODULE = {
    "KERNEL_FUNC": f"""  func.func @attention(%s: tensor<?x?xf32, #CSR>, %a: tensor<?x64xf32>, %b: tensor<64x?xf32>,
                       %h: tensor<?x64xf32>, %scale: f32) -> tensor<?x64xf32> {{
{SIZES}
{SCORES}
{AGGREGATE}
    bufferization.dealloc_tensor %scaled : tensor<?x?xf32, #CSR>
    return %r : tensor<?x64xf32>
  }}""",
    "CALL": """      %y = func.call @attention(%s, %a32, %b32, %h32, %scale)
        : (tensor<?x?xf32, #CSR>, tensor<?x64xf32>, tensor<64x?xf32>, tensor<?x64xf32>, f32) -> tensor<?x64xf32>""",
    "CHECKSUM": DENSE_CHECKSUM,
    "RESULT_TYPE": "tensor<?x64xf32>",
}

# The SDDMM and its scale in a module of their own.
SDDMM_MODULE = {
    "KERNEL_FUNC": f"""  func.func @scores(%s: tensor<?x?xf32, #CSR>, %a: tensor<?x64xf32>, %b: tensor<64x?xf32>,
                    %scale: f32) -> tensor<?x?xf32, #CSR> {{
{SIZES}
{SCORES}
    return %scaled : tensor<?x?xf32, #CSR>
  }}""",
    "CALL": """      %y = func.call @scores(%s, %a32, %b32, %scale)
        : (tensor<?x?xf32, #CSR>, tensor<?x64xf32>, tensor<64x?xf32>, f32) -> tensor<?x?xf32, #CSR>""",
    "CHECKSUM": """      %vals = sparse_tensor.values %y : tensor<?x?xf32, #CSR> to memref<?xf32>
      %nv = memref.dim %vals, %c0 : memref<?xf32>
      %v = scf.for %q = %c0 to %nv step %c1 iter_args(%t = %fz) -> (f32) {
        %x = memref.load %vals[%q] : memref<?xf32>
        %t2 = arith.addf %t, %x : f32
        scf.yield %t2 : f32
      }""",
    "RESULT_TYPE": "tensor<?x?xf32, #CSR>",
}

# The SpMM in a module of its own, over S itself (E's pattern).
SPMM_MODULE = {
    "KERNEL_FUNC": f"""  func.func @aggregate(%scaled: tensor<?x?xf32, #CSR>, %h: tensor<?x64xf32>) -> tensor<?x64xf32> {{
    %c0 = arith.constant 0 : index
    %m = tensor.dim %scaled, %c0 : tensor<?x?xf32, #CSR>
{AGGREGATE}
    return %r : tensor<?x64xf32>
  }}""",
    "CALL": """      %y = func.call @aggregate(%s, %h32)
        : (tensor<?x?xf32, #CSR>, tensor<?x64xf32>) -> tensor<?x64xf32>""",
    "CHECKSUM": DENSE_CHECKSUM,
    "RESULT_TYPE": "tensor<?x64xf32>",
}


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


def lowered(opt, reps, fused, tmp, name=None, module=LAYER_MODULE, native=True,
            lower="--sptune-lower-cpu", schedule="--sptune-default-schedule", info=None):
    """The lowered program: the layer in one function (LAYER_MODULE), or
    one kernel's module of its own (SDDMM_MODULE or SPMM_MODULE); with
    `native`, compiled to an executable as sptune's own ahead-of-time path
    compiles kernels (mlir-translate, clang -O3 -march=native), else the
    lowered module for mlir-runner's JIT (its code 1.5-2x slower on the
    Intel Xeon VM, with AVX-512 features given by --mattr or not). `lower`: the
    lowering pass with its options; `schedule`: the pass that schedules the
    kernels. `info` (a dict), when given, gets the kernels' schedules
    ("schedules", as printed) and whether the lowered program has the fused
    SDDMM-SpMM kernel ("fused_kernel")."""
    name = name or ("fused" if fused else "unfused")
    src = os.path.join(tmp, "gat-%s.mlir" % name)
    inputs = "\n".join([dense_input("a32", "m", "?x64xf32", "addi", 7),
                         dense_input("b32", "n", "64x?xf32", "muli", 5),
                         dense_input("h32", "n", "?x64xf32", "addi", 3)])
    text = TIMED_MODULE
    for key, value in module.items():
        text = text.replace(key, value)
    text = text.replace("REPS", str(reps)).replace("GENERATED_INPUTS", inputs)
    with open(src, "w") as fh:
        fh.write(text)
    out = os.path.join(tmp, "gat-%s.ll.mlir" % name)
    passes = (["--sptune-fuse-scales"] if fused else []) + [
        "--sptune-extract-kernels", schedule, "--sptune-apply-schedule", lower]
    run.run([opt, src] + passes + ["-o", out], what="sptune-opt")
    if info is not None:
        scheduled = os.path.join(tmp, "gat-%s.scheduled.mlir" % name)
        run.run([opt, src] + passes[:-2] + ["-o", scheduled], what="sptune-opt")
        with open(scheduled) as fh:
            info["schedules"] = sorted(set(re.findall(r"#sptune\.schedule<([^>]*)>", fh.read())))
        with open(out) as fh:
            info["fused_kernel"] = "sptune_sampled_aggregation" in fh.read()
    if not native:
        return out
    return runner_bench.compile_native(out, os.path.join(tmp, "gat-%s" % name))


# glibc returns freed memory to the OS (heap trimming, mmap for large
# blocks), so a program whose calls allocate and free large buffers in turn
# (the layer: E, then Y) may fault in fresh pages on every call while one
# kernel timed alone reuses its buffer: measured on a 2-core AMD EPYC VM,
# the layer in one function took 0.16 s per call on ego-Twitter (139,000
# page faults in 9 calls) against 0.047 s for its two kernels timed alone,
# and 0.048 s with these settings. Keeping freed memory makes the times
# compare the kernels, not the allocator (--no-steady-malloc: as glibc is).
STEADY_MALLOC = run.STEADY_MALLOC


def time_layer(module, matrix, timeout, steady_malloc=True):
    """The fastest call and the checksum of `module`, an executable
    (lowered(native=True)) or a lowered module run by mlir-runner."""
    env = dict(os.environ, TENSOR0=matrix)
    if steady_malloc:
        env["GLIBC_TUNABLES"] = STEADY_MALLOC
    p = subprocess.run(runner_bench.program_command(module), env=env, capture_output=True,
                       text=True, timeout=timeout)
    if p.returncode != 0:
        sys.exit("gat-layer: %s failed on %s:\n%s" % (module, matrix, p.stderr[-2000:]))
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
    ap.add_argument("--separate", action=argparse.BooleanOptionalAction, default=True,
                    help="also time the two kernels tuned in separate modules (default: on)")
    ap.add_argument("--steady-malloc", action=argparse.BooleanOptionalAction, default=True,
                    help="run the programs with glibc keeping freed memory (GLIBC_TUNABLES; "
                         "default: on), so that page faults of re-allocated buffers do not "
                         "dominate the times")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run every program this many times per matrix, in turn, and keep "
                         "each one's fastest call")
    ap.add_argument("--native", action=argparse.BooleanOptionalAction, default=True,
                    help="compile the programs with clang -O3 -march=native (default: on; "
                         "off: mlir-runner's JIT, whose code is slower)")
    ap.add_argument("--autotune", action="store_true",
                    help="schedule the kernels by sptune-autotune for each matrix (the model "
                         "in release mode, falling back to the heuristic) instead of the "
                         "heuristic without a matrix")
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
        native = args.native

        def build(matrix=None):
            """The programs, scheduled by the heuristic without a matrix, or
            (--autotune) by sptune-autotune for `matrix`."""
            schedule = ("--sptune-autotune=matrix=%s" % matrix if matrix
                        else "--sptune-default-schedule")
            layer.clear()
            programs = {"unfused": lowered(opt, args.reps, False, tmp, native=native,
                                           schedule=schedule),
                        "fused": lowered(opt, args.reps, True, tmp, native=native,
                                         schedule=schedule, info=layer)}
            if args.separate:
                programs["two_kernels"] = lowered(
                    opt, args.reps, True, tmp, "two-kernels", native=native,
                    lower="--sptune-lower-cpu=fuse-sddmm-spmm=false", schedule=schedule)
                programs["sddmm_module"] = lowered(opt, args.reps, True, tmp, "sddmm-module",
                                                   SDDMM_MODULE, native=native,
                                                   schedule=schedule)
                programs["spmm_module"] = lowered(opt, args.reps, False, tmp, "spmm-module",
                                                  SPMM_MODULE, native=native,
                                                  schedule=schedule)
            return programs
        # The layer's schedules and whether its pair was fused.
        layer = {}
        programs = None if args.autotune else build()
        rows = []
        for n, matrix in enumerate(matrices):
            # Every program in one run per matrix and round, one after the
            # other; each program's fastest call over the rounds.
            if args.autotune:
                # A path the pass option can hold (no spaces or commas).
                named = os.path.join(tmp, "matrix%d.mtx" % n)
                if os.path.lexists(named):
                    os.remove(named)
                os.symlink(os.path.abspath(matrix), named)
                programs = build(named)
            best, sums = {}, {}
            for _ in range(args.rounds):
                for key, program in programs.items():
                    t, checksum = time_layer(program, matrix, args.timeout, args.steady_malloc)
                    best[key] = min(best.get(key, t), t)
                    sums[key] = checksum
            t_u, t_f = best["unfused"], best["fused"]
            agree = all(abs(sums[k] - sums["unfused"]) <= 1e-4 * max(1.0, abs(sums["unfused"]))
                        for k in ("fused", "two_kernels") if k in sums)
            row = {"matrix": os.path.basename(matrix), "unfused_s": t_u,
                   "fused_s": t_f, "speedup": t_u / t_f, "checksums_agree": agree,
                   "fused_kernel": layer["fused_kernel"], "schedules": layer["schedules"]}
            line = ""
            if args.separate:
                t_sd, t_sp, t_two = best["sddmm_module"], best["spmm_module"], best["two_kernels"]
                row.update({"two_kernels_s": t_two, "fusion_speedup": t_two / t_f,
                            "sddmm_module_s": t_sd, "spmm_module_s": t_sp,
                            "separate_s": t_sd + t_sp,
                            "one_function_speedup": (t_sd + t_sp) / t_f})
                line = "  two kernels %.4f s  separate %.4f s  %.3fx" % (
                    t_two, t_sd + t_sp, (t_sd + t_sp) / t_f)
            rows.append(row)
            print("gat-layer: %d/%d %-40s unfused %.4f s  fused %.4f s  %.3fx%s%s"
                  % (n + 1, len(matrices), os.path.basename(matrix), t_u, t_f,
                     t_u / t_f, line, "" if agree else "  CHECKSUMS DIFFER"),
                  file=sys.stderr, flush=True)

    def geomean(key):
        return math.exp(sum(math.log(r[key]) for r in rows) / len(rows))
    summary = {"geomean_speedup": geomean("speedup"),
               "all_checksums_agree": all(r["checksums_agree"] for r in rows)}
    if args.separate:
        summary["geomean_one_function_speedup"] = geomean("one_function_speedup")
        summary["geomean_fusion_speedup"] = geomean("fusion_speedup")
    out = {"bench": "gat-layer", "machine": run.machine(), "reps": args.reps,
           "rounds": args.rounds, "native": args.native, "autotune": args.autotune,
           "steady_malloc": args.steady_malloc, "rows": rows, "summary": summary}
    bench_output.emit(out, args.json, args.plot, plot, indent=2)
    return 0 if out["summary"]["all_checksums_agree"] else 1


def plot(out, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = out["rows"]
    fig, ax = plt.subplots(figsize=(max(7, 0.6 * len(rows) + 2), 3.8))
    names = [r["matrix"].replace(".mtx", "") for r in rows]
    series = [("speedup", "#4c72b0", "scale in its own op / folded (one function)")]
    if all("fusion_speedup" in r for r in rows):
        series.append(("fusion_speedup", "#55a868",
                       "two kernels in one function / fused (fuse-sddmm-spmm)"))
    if all("one_function_speedup" in r for r in rows):
        series.append(("one_function_speedup", "#dd8452",
                       "two kernels in separate modules / one function"))
    width = 0.8 / len(series)
    for n, (key, color, label) in enumerate(series):
        ax.bar([x - 0.4 + width * (n + 0.5) for x in range(len(rows))],
               [r[key] for r in rows], width, color=color, label=label)
    ax.legend(fontsize=7)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("time ratio")
    summary = out["summary"]
    title = "Attention layer (%s): folded scale %.2fx" % (
        out["machine"]["cpu"], summary["geomean_speedup"])
    if "geomean_fusion_speedup" in summary:
        title += ", fused %.2fx" % summary["geomean_fusion_speedup"]
    if "geomean_one_function_speedup" in summary:
        title += ", vs separate modules %.2fx" % summary["geomean_one_function_speedup"]
    ax.set_title(title + " (geomeans)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
