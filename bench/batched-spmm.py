#!/usr/bin/env python3
"""Batched SpMM: sptune's lowering against a loop over the SpMM baselines.

C(b, i, j) = sum over k of A(b, i, k) B(b, k, j) (`linalg.batch_matmul`,
f32, A a 3-D sparse tensor: dense batches of CSR rows, or with `--format
coo` ordered COO, B and C dense,
j = 0 .. N - 1). Issue 33 asks for batched SpMM's baselines as users build
them: a loop over the SpMM baselines, one matrix of the batch after the
other. For each batch, in interleaved rounds:

- sptune: the program below through `sptune-opt --sptune-extract-kernels
  --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu` as
  users run it, compiled as sptune's ahead-of-time path compiles kernels
  (clang -O3 -march=native; `--no-native`: mlir-runner's JIT; so is the
  real loop below). The batched product is the kernel type `batched_spmm`:
  its schedule (the heuristic's: all rows in parallel) is applied on A's
  own storage, and sptune-lower-cpu computes it with its kernel over the
  batches' rows (targets/cpu/BatchedRowsSpmm.h: each row's sums in
  registers; "kernel_applied" in the JSON; not for rows of C above 512
  bytes, N > 128, which pass through unscheduled);
- sptune, the sparsifier's loop nest: the program without a schedule
  through `--sptune-lower-cpu=batched-rows-spmm=false`, the CPU target's
  rule for kernels without a schedule (targets/cpu/UnscheduledKernels.h:
  the batch loop in parallel, j in 8 lanes; "rule_applied" in the JSON);
- sptune, upstream's defaults: the program without a schedule through
  `--sptune-lower-cpu=parallelize-unscheduled=false` (one thread, scalar);
- loops over the SpMM baselines: `sptune-measure --baseline eigen | rsb |
  heuristic` (Eigen and librsb as their users build them, and sptune's own
  2-D SpMM with its heuristic schedule) on each matrix of the batch, the
  batch's time their sum. Each matrix is timed alone, hot in cache, as
  sptune-measure times (the fastest of many repetitions): a lower bound of
  a real loop's time, so the comparison favours the loops. A library this
  build lacks (SPTUNE_ENABLE_EIGEN / SPTUNE_ENABLE_RSB off, or not
  installed) is left out and named;
- a real loop: one program (same harness as sptune's) that calls sptune's
  2-D SpMM, lowered as users run it, on each matrix of the batch in turn,
  each read from a CSR file, the whole loop timed ("sptune_2d_loop").

Every time is the fastest of its calls (of --reps calls after a warm-up for
the programs; of sptune-measure's repetitions for the baselines), the
fastest over the rounds kept. The lowered programs must show sptune's
kernel and the rule's parallel loop and vectors. The programs
allocate C in each call (a fresh tensor) and run with glibc keeping freed
memory (--steady-malloc, on by default; so does sptune-measure). Every
round's checksum of the programs (sum of C(b, i, j) ((i + j) mod 3 + 1)) is
compared with numpy's (1e-4 relative: f32 sums); sptune-measure checks each
baseline against its reference.

    bench/batched-spmm.py [--build build] [--rounds 3] [--reps 5] [--free 64]
        [--format batched-csr|coo] [--no-native] [--json OUT] [--plot OUT.png] [BATCH ...]

A BATCH is `COUNT*MATRIX`: COUNT matrices, for a `gen:` spec with seeds
seed, seed + 1, ... (graphs of one size, as a minibatch of GNN graphs
padded to one size), for a .mtx file that matrix COUNT times (the heads of
a multi-head layer on one graph; each its own B). Default: two generated
batches. Output: one JSON object ("bench": "batched-spmm"); `sptune
report` shows it.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from sptune import bench_output, run, runner_bench  # noqa: E402
from sptune.errors import SptuneError  # noqa: E402
from sptune.runner_bench import geomean  # noqa: E402

DEFAULT_BATCHES = ["8*gen:uniform:rows=8192,nnz=131072,seed=1",
                   "8*gen:rmat:rows=8192,nnz=131072,seed=11"]
#: The loops over the SpMM baselines, by sptune-measure's --baseline
#: (each matrix timed alone, hot in cache, the times summed).
BASELINES = ["eigen", "rsb", "heuristic"]
#: The real loop: one program calling sptune's 2-D SpMM, as users run it,
#: on each matrix of the batch in turn (loop_program).
REAL_LOOP = "sptune_2d_loop"
#: The least time a program may report (rtclock can give 0 for a tiny
#: batch; ratios divide by times).
MIN_SECONDS = 1e-9
#: sptune-opt's arguments per program.
VARIANTS = {"sptune": ["--sptune-extract-kernels", "--sptune-default-schedule",
                       "--sptune-apply-schedule", "--sptune-lower-cpu"],
            # Without a schedule: a scheduled batched SpMM is always the
            # kernel's (turning the kernel off is an error for it).
            "sptune_upstream": ["--sptune-lower-cpu=parallelize-unscheduled=false"],
            "sptune_loop_nest": ["--sptune-lower-cpu=batched-rows-spmm=false"]}

#: B(b, k, j) = ((3 (b K + k) + j) mod 7 + 1) / 8 from %b, %k, %j and %nk
#: (K): the body of both programs' factor functions.
FACTOR_VALUE = """    %bk = arith.muli %b, %nk : index
    %row = arith.addi %bk, %k : index
    %c3 = arith.constant 3 : index
    %r3 = arith.muli %row, %c3 : index
    %s = arith.addi %r3, %j : index
    %c7 = arith.constant 7 : index
    %m = arith.remui %s, %c7 : index
    %c1 = arith.constant 1 : index
    %m1 = arith.addi %m, %c1 : index
    %mi = arith.index_cast %m1 : index to i64
    %v = arith.sitofp %mi : i64 to f32
    %eighth = arith.constant 0.125 : f32
    %w = arith.mulf %v, %eighth : f32
    linalg.yield %w : f32
"""

PROGRAM = """
#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> ENCODING }>
func.func @batched(%a: tensor<?x?x?xf32, #BCSR>, %b: tensor<?x?xFREExf32>) -> tensor<?x?xFREExf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %nb = tensor.dim %a, %c0 : tensor<?x?x?xf32, #BCSR>
  %m = tensor.dim %a, %c1 : tensor<?x?x?xf32, #BCSR>
  %ce = tensor.empty(%nb, %m) : tensor<?x?xFREExf32>
  %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<?x?xFREExf32>) -> tensor<?x?xFREExf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x?x?xf32, #BCSR>, tensor<?x?xFREExf32>)
                           outs(%c : tensor<?x?xFREExf32>) -> tensor<?x?xFREExf32>
  return %r : tensor<?x?xFREExf32>
}
// B(b, k, j) = ((3 (b K + k) + j) mod 7 + 1) / 8.
func.func @factor(%nb: index, %nk: index) -> tensor<?x?xFREExf32> {
  %e = tensor.empty(%nb, %nk) : tensor<?x?xFREExf32>
  %f = linalg.generic {indexing_maps = [affine_map<(b, k, j) -> (b, k, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<?x?xFREExf32>) {
  ^bb0(%o: f32):
    %b = linalg.index 0 : index
    %k = linalg.index 1 : index
    %j = linalg.index 2 : index
""" + FACTOR_VALUE + """  } -> tensor<?x?xFREExf32>
  return %f : tensor<?x?xFREExf32>
}
""" + runner_bench.MAIN_START + """  %c2 = arith.constant 2 : index
  %calls = arith.constant CALLS : index
  %fn = call @getTensorFilename(%c0) : (index) -> (!llvm.ptr)
  %a = sparse_tensor.new %fn : !llvm.ptr to tensor<?x?x?xf32, #BCSR>
  %nb = tensor.dim %a, %c0 : tensor<?x?x?xf32, #BCSR>
  %nk = tensor.dim %a, %c2 : tensor<?x?x?xf32, #BCSR>
  %b = call @factor(%nb, %nk) : (index, index) -> tensor<?x?xFREExf32>
""" + runner_bench.timed_calls(
    '%out = func.call @batched(%a, %b) : (tensor<?x?x?xf32, #BCSR>, tensor<?x?xFREExf32>) -> tensor<?x?xFREExf32>',
    """      %m = tensor.dim %out, %c1 : tensor<?x?xFREExf32>
      %free = arith.constant FREE : index
      %z = arith.constant 0.0 : f64
      %three = arith.constant 3 : index
      %s = scf.for %bi = %c0 to %nb step %c1 iter_args(%acc = %z) -> f64 {
        %sb = scf.for %i = %c0 to %m step %c1 iter_args(%bacc = %acc) -> f64 {
          %row = scf.for %j = %c0 to %free step %c1 iter_args(%racc = %bacc) -> f64 {
            %x = tensor.extract %out[%bi, %i, %j] : tensor<?x?xFREExf32>
            %xd = arith.extf %x : f32 to f64
            %ij = arith.addi %i, %j : index
            %mod = arith.remui %ij, %three : index
            %w1 = arith.addi %mod, %c1 : index
            %wi = arith.index_cast %w1 : index to i64
            %w = arith.sitofp %wi : i64 to f64
            %xw = arith.mulf %xd, %w : f64
            %y = arith.addf %racc, %xw : f64
            scf.yield %y : f64
          }
          scf.yield %row : f64
        }
        scf.yield %sb : f64
      }""",
    'bufferization.dealloc_tensor %out : tensor<?x?xFREExf32>') + """  bufferization.dealloc_tensor %a : tensor<?x?x?xf32, #BCSR>
  return
}
"""

#: A real loop over sptune's 2-D SpMM: the batch's matrices read as CSR
#: (TENSOR0, TENSOR1, ...), each product a kernel call, timed together.
LOOP_PROGRAM_HEAD = """
#CSR = #sparse_tensor.encoding<{ map = (i, k) -> (i : dense, k : compressed) }>
func.func @spmm(%a: tensor<?x?xf32, #CSR>, %b: tensor<?xFREExf32>) -> tensor<?xFREExf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32, #CSR>
  %ce = tensor.empty(%m) : tensor<?xFREExf32>
  %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<?xFREExf32>) -> tensor<?xFREExf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?xFREExf32>)
                     outs(%c : tensor<?xFREExf32>) -> tensor<?xFREExf32>
  return %r : tensor<?xFREExf32>
}
// B(k, j) of the batch's matrix b, as @factor of the batched program.
func.func @factor2(%b: index, %nk: index) -> tensor<?xFREExf32> {
  %e = tensor.empty(%nk) : tensor<?xFREExf32>
  %f = linalg.generic {indexing_maps = [affine_map<(k, j) -> (k, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?xFREExf32>) {
  ^bb0(%o: f32):
    %k = linalg.index 0 : index
    %j = linalg.index 1 : index
""" + FACTOR_VALUE + """  } -> tensor<?xFREExf32>
  return %f : tensor<?xFREExf32>
}
""" + runner_bench.MAIN_START + """  %calls = arith.constant CALLS : index
  %free = arith.constant FREE : index
  %z = arith.constant 0.0 : f64
  %three = arith.constant 3 : index
"""


def loop_program(count, free, reps):
    """The MLIR program of a real loop over `count` 2-D SpMMs."""
    setup, calls, sums, frees = [], [], [], []
    for n in range(count):
        setup += ["  %%n%d = arith.constant %d : index" % (n, n),
                  "  %%fn%d = call @getTensorFilename(%%n%d) : (index) -> (!llvm.ptr)" % (n, n),
                  "  %%a%d = sparse_tensor.new %%fn%d : !llvm.ptr to tensor<?x?xf32, #CSR>" % (n, n),
                  "  %%nk%d = tensor.dim %%a%d, %%c1 : tensor<?x?xf32, #CSR>" % (n, n),
                  "  %%b%d = call @factor2(%%n%d, %%nk%d) : (index, index) -> tensor<?xFREExf32>"
                  % (n, n, n)]
        calls.append("    %%out%d = func.call @spmm(%%a%d, %%b%d) : (tensor<?x?xf32, #CSR>, "
                     "tensor<?xFREExf32>) -> tensor<?xFREExf32>" % (n, n, n))
        previous = "%z" if n == 0 else "%%s%d" % (n - 1)
        sums += [
            "      %%m%d = tensor.dim %%out%d, %%c0 : tensor<?xFREExf32>" % (n, n),
            "      %%s%d = scf.for %%i%d = %%c0 to %%m%d step %%c1 iter_args(%%acc%d = %s) -> f64 {"
            % (n, n, n, n, previous),
            "        %%row%d = scf.for %%j%d = %%c0 to %%free step %%c1 iter_args(%%racc%d = %%acc%d) -> f64 {"
            % (n, n, n, n),
            "          %%x%d = tensor.extract %%out%d[%%i%d, %%j%d] : tensor<?xFREExf32>" % (n, n, n, n),
            "          %%xd%d = arith.extf %%x%d : f32 to f64" % (n, n),
            "          %%ij%d = arith.addi %%i%d, %%j%d : index" % (n, n, n),
            "          %%mod%d = arith.remui %%ij%d, %%three : index" % (n, n),
            "          %%w1%d = arith.addi %%mod%d, %%c1 : index" % (n, n),
            "          %%wi%d = arith.index_cast %%w1%d : index to i64" % (n, n),
            "          %%w%d = arith.sitofp %%wi%d : i64 to f64" % (n, n),
            "          %%xw%d = arith.mulf %%xd%d, %%w%d : f64" % (n, n, n),
            "          %%y%d = arith.addf %%racc%d, %%xw%d : f64" % (n, n, n),
            "          scf.yield %%y%d : f64" % n,
            "        }",
            "        scf.yield %%row%d : f64" % n,
            "      }"]
        frees.append("    bufferization.dealloc_tensor %%out%d : tensor<?xFREExf32>" % n)
    sums.append("      %%s = arith.addf %%s%d, %%z : f64" % (count - 1))
    text = (LOOP_PROGRAM_HEAD + "\n".join(setup) + "\n" +
            runner_bench.timed_calls("\n".join(calls), "\n".join(sums), "\n".join(frees)) +
            "".join("  bufferization.dealloc_tensor %%a%d : tensor<?x?xf32, #CSR>\n" % n
                    for n in range(count)) +
            "  return\n}\n")
    return text.replace("CALLS", str(reps + 1)).replace("FREE", str(free))


BATCH = re.compile(r"^(\d+)\*(.+)$")


def members(spec):
    """(count, [the batch's matrix specs or paths]) of a COUNT*MATRIX spec."""
    m = BATCH.match(spec)
    if not m or not 1 <= int(m.group(1)) <= 1024:
        sys.exit("batched-spmm: bad batch '%s' (expected COUNT*MATRIX, COUNT in "
                 "[1, 1024])" % spec)
    count, matrix = int(m.group(1)), m.group(2)
    if matrix.startswith("gen:"):
        kind, _, params = matrix[4:].partition(":")
        keys = [p for p in params.split(",") if p and not p.startswith("seed=")]
        seeds = [p[5:] for p in params.split(",") if p.startswith("seed=")]
        if seeds and not seeds[-1].isdigit():
            sys.exit("batched-spmm: bad seed in '%s'" % matrix)
        base = int(seeds[-1]) if seeds else 1
        return count, ["gen:%s:%s" % (kind, ",".join(keys + ["seed=%d" % (base + n)]))
                       for n in range(count)]
    if not os.path.isfile(matrix):
        sys.exit("batched-spmm: no matrix file '%s'" % matrix)
    return count, [matrix] * count


def load(opt_bindir, source, tmp):
    """A batch member as a scipy CSR matrix (gen: specs through sptune-matrix)."""
    import scipy.io
    import scipy.sparse
    path = source
    if source.startswith("gen:"):
        path = os.path.join(tmp, "member.mtx")
        run.run([run.executable("sptune-matrix", opt_bindir), "gen", source, "-o", path],
                what="sptune-matrix")
    return scipy.sparse.csr_matrix(scipy.io.mmread(path), dtype="float64")


def write_batch(matrices, path):
    """The batch as an extended FROSTT file (b, i, k one-based); the
    program's reader rounds the values to f32, as the reference does."""
    rows, cols = matrices[0].shape
    nnz = sum(m.nnz for m in matrices)
    with open(path, "w") as fh:
        fh.write("3 %d\n%d %d %d\n" % (nnz, len(matrices), rows, cols))
        for b, m in enumerate(matrices):
            coo = m.tocoo()
            for i, k, v in sorted(zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist())):
                fh.write("%d %d %d %r\n" % (b + 1, i + 1, k + 1, float(v)))


def reference_checksum(matrices, free):
    """numpy's sum of C(b, i, j) ((i + j) mod 3 + 1), B as the program makes it."""
    import numpy as np
    rows, cols = matrices[0].shape
    j = np.arange(free)
    weights = (np.add.outer(np.arange(rows), j) % 3 + 1).astype(np.float64)
    total = 0.0
    for b, m in enumerate(matrices):
        k = np.arange(cols)
        factor = ((3 * (b * cols + k)[:, None] + j[None, :]) % 7 + 1) / 8.0
        # The program's A and B are f32: round A's values as it reads them.
        a = m.astype(np.float32).astype(np.float64)
        total += float(((a @ factor) * weights).sum())
    return total


def time_baseline(measure, baseline, source, free, env, timeout):
    """The fastest of sptune-measure's repetitions of `baseline`'s SpMM on
    one matrix (f32, N = free), or None for a library this build lacks."""
    cmd = [measure, "--baseline", baseline, "--kernel", "spmm", "--free", str(free),
           "--bits", "32", "--matrix", source, "--timeout", str(timeout)]
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True,
                           timeout=timeout + 60)
        record = json.loads(p.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError) as e:
        sys.exit("batched-spmm: sptune-measure --baseline %s on %s failed: %s\n%s" % (
            baseline, source, e, locals().get("p") and p.stderr[-2000:] or ""))
    if record.get("status") == "ok":
        return max(record["time_s"]["min"], MIN_SECONDS)
    if "not built" in record.get("reason", ""):
        return None
    sys.exit("batched-spmm: %s on %s: %s %s" % (baseline, source, record.get("status"),
                                                record.get("reason", "")))


#: A's storage in sptune's programs, by --format: dense batches of CSR rows,
#: or ordered COO (its coordinates an array of structures), as read.
ENCODINGS = {"batched-csr": "(b : dense, i : dense, k : compressed)",
             "coo": "(b : compressed(nonunique), i : singleton(nonunique), k : singleton)"}


def lower(opt, arguments, reps, free, path, native, storage="batched-csr"):
    return lower_text(opt, PROGRAM.replace("CALLS", str(reps + 1)).replace("FREE", str(free))
                      .replace("ENCODING", ENCODINGS[storage]),
                      arguments, path, native)


def lower_text(opt, text, arguments, path, native):
    """`text` lowered by sptune-opt with `arguments` into `path`.ll.mlir;
    with `native`, compiled to the executable `path`
    (runner_bench.compile_native). Returns (program, lowered module)."""
    src = path + ".src.mlir"
    with open(src, "w") as fh:
        fh.write(text)
    lowered = path + ".ll.mlir"
    run.run([opt, src] + arguments + ["-o", lowered], what="sptune-opt")
    return (runner_bench.compile_native(lowered, path) if native else lowered), lowered


def write_general(matrix, path):
    """`matrix` as a general real Matrix Market file."""
    import scipy.io
    scipy.io.mmwrite(path, matrix, field="real", symmetry="general")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--free", type=int, default=64, help="N, the columns of B and C")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--steady-malloc", action=argparse.BooleanOptionalAction, default=True,
                    help="glibc keeps the memory the programs free, so that page faults "
                    "of C, allocated in each call, do not decide the comparison "
                    "(default: on)")
    ap.add_argument("--native", action=argparse.BooleanOptionalAction, default=True,
                    help="compile the programs with clang -O3 -march=native, as sptune's "
                    "ahead-of-time path and the baselines are built (default: on; "
                    "--no-native: mlir-runner's JIT)")
    ap.add_argument("--format", choices=sorted(ENCODINGS), default="batched-csr",
                    help="how sptune's batched programs store A: batched-csr (dense "
                    "batches of CSR rows, the default) or coo (ordered); the loops "
                    "over the SpMM baselines read each matrix as CSR either way")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--plot", help="write a bar chart of the speedups here (.png)")
    ap.add_argument("batches", nargs="*", help="COUNT*MATRIX (gen: spec or .mtx file)")
    args = ap.parse_args(argv)
    if not 1 <= args.rounds <= 100 or not 1 <= args.reps <= 1000:
        ap.error("--rounds must be in [1, 100] and --reps in [1, 1000]")
    if not 1 <= args.free <= 4096:
        ap.error("--free must be in [1, 4096]")
    try:
        return measure_batches(args)
    except (SptuneError, ValueError, OSError) as e:
        sys.exit("batched-spmm: %s" % e)


def measure_batches(args):
    bindir = os.path.join(args.build, "bin")
    opt = run.executable("sptune-opt", bindir)
    measure = run.executable("sptune-measure", bindir)
    env = dict(os.environ)
    if args.steady_malloc:
        env["GLIBC_TUNABLES"] = run.STEADY_MALLOC
    batches = [(spec,) + members(spec) for spec in args.batches or DEFAULT_BATCHES]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        programs, modules = {}, {}
        for name, arguments in VARIANTS.items():
            programs[name], modules[name] = lower(opt, arguments, args.reps, args.free,
                                                  os.path.join(tmp, name), args.native,
                                                  args.format)
        with open(modules["sptune"]) as fh:
            # sptune's kernel over the batches' rows (cpu/BatchedRowsSpmm.h).
            kernel_applied = "sptune_batched_spmm" in fh.read()
        with open(modules["sptune_loop_nest"]) as fh:
            lowered = fh.read()
        # Without it, the rule for kernels without a schedule parallelizes
        # and vectorizes the loop nest (targets/cpu/UnscheduledKernels.h).
        rule_applied = ("sptune_batched_spmm" not in lowered and "omp.wsloop" in lowered
                        and "vector<8xf32>" in lowered)
        for n, (spec, count, sources) in enumerate(batches):
            matrices = [load(bindir, s, tmp) for s in sources]
            tensor = os.path.join(tmp, "batch-%d.tns" % n)
            write_batch(matrices, tensor)
            # The real loop: each matrix a general Matrix Market file (the
            # runtime's reader takes those as scipy writes them).
            member_files = []
            for b, matrix in enumerate(matrices):
                member_files.append(os.path.join(tmp, "batch-%d-%d.mtx" % (n, b)))
                write_general(matrix, member_files[-1])
            loop, _ = lower_text(opt, loop_program(count, args.free, args.reps),
                                 VARIANTS["sptune"], os.path.join(tmp, "loop-%d" % n),
                                 args.native)
            expected = reference_checksum(matrices, args.free)
            distinct = sorted(set(sources))
            best, agreeing, missing = {}, {}, set()
            for _ in range(args.rounds):
                for name, program in programs.items():
                    bits, seconds = runner_bench.run_program(program, tensor, env,
                                                             args.timeout, "batched-spmm")
                    best[name] = min(best.get(name, math.inf), max(float(seconds), MIN_SECONDS))
                    # Every round's warm-up result is checked.
                    agreeing[name] = agreeing.get(name, True) and runner_bench.agree(
                        runner_bench.f64_of_bits(bits), expected, rel=1e-4)
                bits, seconds = runner_bench.run_program(loop, member_files, env,
                                                         args.timeout, "batched-spmm")
                best[REAL_LOOP] = min(best.get(REAL_LOOP, math.inf), max(float(seconds), MIN_SECONDS))
                agreeing[REAL_LOOP] = agreeing.get(REAL_LOOP, True) and runner_bench.agree(
                    runner_bench.f64_of_bits(bits), expected, rel=1e-4)
                for baseline in BASELINES:
                    times = [time_baseline(measure, baseline, s, args.free, env, args.timeout)
                             for s in distinct]
                    if None in times:
                        missing.add(baseline)
                        continue
                    t = sum(t * sources.count(s) for t, s in zip(times, distinct))
                    best[baseline] = min(best.get(baseline, math.inf), t)
            loops = [b for b in BASELINES + [REAL_LOOP] if b in best]
            fastest = min(loops, key=best.get)
            row = {"batch": spec, "count": count, "rows": matrices[0].shape[0],
                   "cols": matrices[0].shape[1],
                   "nnz": sum(m.nnz for m in matrices), "seconds": best,
                   "agree": agreeing, "best_loop": fastest,
                   "not_built": sorted(missing),
                   "speedup_vs_best_loop": {k: best[fastest] / best[k] for k in VARIANTS},
                   "speedup_vs": {b: best[b] / best["sptune"] for b in loops}}
            rows.append(row)
            print("batched-spmm: %d/%d %s: sptune %.4f s, best loop (%s) %.4f s, %.2fx; "
                  "the sparsifier's loop nest %.2fx, upstream's defaults %.2fx%s%s" % (
                      n + 1, len(batches), spec, best["sptune"], fastest, best[fastest],
                      row["speedup_vs_best_loop"]["sptune"],
                      row["speedup_vs_best_loop"]["sptune_loop_nest"],
                      row["speedup_vs_best_loop"]["sptune_upstream"],
                      "; not built: " + ", ".join(sorted(missing)) if missing else "",
                      "" if all(agreeing.values()) else "  RESULTS DIFFER %s" % agreeing),
                  file=sys.stderr, flush=True)
    summary = {"geomean_speedup_vs_best_loop": {
                   k: geomean(r["speedup_vs_best_loop"][k] for r in rows) for k in VARIANTS},
               "geomean_speedup_vs": {b: geomean(r["speedup_vs"][b] for r in rows
                                                 if b in r["speedup_vs"])
                                      for b in BASELINES + [REAL_LOOP]},
               "kernel_applied": kernel_applied, "rule_applied": rule_applied,
               "all_agree": all(all(r["agree"].values()) for r in rows)}
    out = {"bench": "batched-spmm", "machine": run.machine(), "rounds": args.rounds, "native": args.native,
           "format": args.format,
           "reps": args.reps, "free": args.free, "steady_malloc": args.steady_malloc,
           "threads": int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count()),
           "variants": {k: " ".join(v) for k, v in VARIANTS.items()},
           "rows": rows, "summary": summary}
    bench_output.emit(out, args.json, args.plot, plot)
    return 0 if summary["all_agree"] else 1


def plot(out, path):
    """The report's chart of the speedups over the best loop of baselines."""
    from sptune import report_sections
    report_sections.batched_spmm_figure(out).savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
