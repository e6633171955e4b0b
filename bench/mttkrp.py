#!/usr/bin/env python3
"""MTTKRP: sptune's lowering against a hand SPLATT-style CSF kernel.

Issue 33's MTTKRP bar compares sptune with a hand OpenMP CSF kernel on
generated 3-D tensors: A(i, j) = sum over k, l of B(i, k, l) C(k, j) D(l, j)
(mode 1, f64, B in CSF: every level compressed, or with `--format coo`
in ordered COO; rank R = 32). For each tensor, in interleaved rounds:

- sptune: the program below, through `sptune-opt --sptune-extract-kernels
  --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu` as
  users run it, compiled as sptune's ahead-of-time path compiles kernels
  (clang -O3 -march=native; `--no-native`: mlir-runner's JIT). MTTKRP is
  the kernel type `mttkrp`, given the heuristic's schedule (the program
  names no tensor to measure on), and sptune-lower-cpu computes it with
  its MTTKRP kernel (targets/cpu/FactoredMttkrp.h: slices in parallel,
  each summed factored or entry-wise by the kernel's run-time rule, A's
  row in vector registers);
- sptune, the sparsifier's loop nest: the program not scheduled, through
  `--sptune-lower-cpu=factored-mttkrp=false`, the CPU target's rule for
  kernels without a schedule (targets/cpu/UnscheduledKernels.h: here the
  slice loop parallel, the rank loop in 8 lanes);
- sptune, upstream's defaults: the program not scheduled, through
  `--sptune-lower-cpu=parallelize-unscheduled=false` (one thread, scalar:
  what sptune did before the rule);
- hand: `sptune-mttkrp-baselines` (bench/mttkrp-baselines.cpp, -O3
  -march=native -fopenmp): slices in dynamic chunks of 16, each fiber's sum of
  B(i, k, :) D(:, j) formed once and multiplied by C(k, j), A's row and the
  fiber's sum in vector registers, the factors on cache lines.

sptune's program allocates A in each call (a fresh tensor, as a program on
tensors does); the hand kernel writes into A allocated once.

Each program reports the fastest of --reps calls after a warm-up and a
checksum of A (sum of A(i, j) ((i + j) mod 3 + 1)); the fastest over the
rounds is kept, and every round's checksums must agree (1e-9 relative).

    bench/mttkrp.py [--build build] [--rounds 3] [--reps 5] [--rank 32] [--no-native]
        [--format csf|coo] [--schedules] [--model FILE] [--factor-rows M[,M...]]
        [--json OUT] [--plot OUT.png] [TENSOR ...]

A TENSOR is an extended FROSTT file (`3 NNZ`, the sizes, one-based
`i k l value` lines) or a generator spec that `sptune-matrix gen` writes
into one: `gen3:uniform:dims=IxKxL,nnz=N,seed=S` (coordinates uniform) or
`gen3:powerlaw:dims=IxKxL,nnz=N,seed=S` (each coordinate floor(n u^3),
relabelled: heavy slices and fibers, as in FROSTT's tensors;
`sptune-matrix --help`). Default: three generated tensors. Output: one JSON object ("bench": "mttkrp"); `sptune
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
from sptune.runner_bench import agree, geomean  # noqa: E402

DEFAULT_TENSORS = ["gen3:uniform:dims=2000x2000x2000,nnz=2000000,seed=1",
                   "gen3:powerlaw:dims=5000x5000x5000,nnz=2000000,seed=2",
                   "gen3:powerlaw:dims=200x20000x20000,nnz=3000000,seed=3"]
#: sptune-opt's arguments per program.
VARIANTS = {"sptune": ["--sptune-extract-kernels", "--sptune-default-schedule",
                       "--sptune-apply-schedule", "--sptune-lower-cpu"],
            # Not scheduled (a scheduled MTTKRP is the kernel's: turning the
            # kernel off would be an error): upstream's defaults, and the
            # CPU target's rule for unscheduled kernels over the
            # sparsifier's loop nest.
            "sptune_upstream": ["--sptune-lower-cpu=parallelize-unscheduled=false"],
            "sptune_loop_nest": ["--sptune-lower-cpu=factored-mttkrp=false"]}

PROGRAM = """
#B = #sparse_tensor.encoding<{ map = (i, k, l) -> ENCODING }>
func.func @mttkrp(%b: tensor<?x?x?xf64, #B>, %c: tensor<?xRANKxf64>, %d: tensor<?xRANKxf64>) -> tensor<?xRANKxf64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %ni = tensor.dim %b, %c0 : tensor<?x?x?xf64, #B>
  %ae = tensor.empty(%ni) : tensor<?xRANKxf64>
  %a = linalg.fill ins(%zero : f64) outs(%ae : tensor<?xRANKxf64>) -> tensor<?xRANKxf64>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k, l) -> (i, k, l)>, affine_map<(i, j, k, l) -> (k, j)>, affine_map<(i, j, k, l) -> (l, j)>, affine_map<(i, j, k, l) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %c, %d : tensor<?x?x?xf64, #B>, tensor<?xRANKxf64>, tensor<?xRANKxf64>) outs(%a : tensor<?xRANKxf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<?xRANKxf64>
  return %r : tensor<?xRANKxf64>
}
// F(x, j) = ((MUL x + STEP j) mod MOD + 1) / 8, the baseline's factors.
func.func @factor(%n: index, %mul: i64, %step: i64, %mod: i64) -> tensor<?xRANKxf64> {
  %e = tensor.empty(%n) : tensor<?xRANKxf64>
  %f = linalg.generic {indexing_maps = [affine_map<(x, j) -> (x, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?xRANKxf64>) {
  ^bb0(%o: f64):
    %x = linalg.index 0 : index
    %j = linalg.index 1 : index
    %xi = arith.index_cast %x : index to i64
    %ji = arith.index_cast %j : index to i64
    %a = arith.muli %xi, %mul : i64
    %b = arith.muli %ji, %step : i64
    %s = arith.addi %a, %b : i64
    %m = arith.remsi %s, %mod : i64
    %one = arith.constant 1 : i64
    %m1 = arith.addi %m, %one : i64
    %v = arith.sitofp %m1 : i64 to f64
    %eighth = arith.constant 0.125 : f64
    %w = arith.mulf %v, %eighth : f64
    linalg.yield %w : f64
  } -> tensor<?xRANKxf64>
  return %f : tensor<?xRANKxf64>
}
""" + runner_bench.MAIN_START + """  %c2 = arith.constant 2 : index
  %calls = arith.constant CALLS : index
  %fn = call @getTensorFilename(%c0) : (index) -> (!llvm.ptr)
  %b = sparse_tensor.new %fn : !llvm.ptr to tensor<?x?x?xf64, #B>
  %nk = tensor.dim %b, %c1 : tensor<?x?x?xf64, #B>
  %nl = tensor.dim %b, %c2 : tensor<?x?x?xf64, #B>
  %i1 = arith.constant 1 : i64
  %i2 = arith.constant 2 : i64
  %i3 = arith.constant 3 : i64
  %i5 = arith.constant 5 : i64
  %i7 = arith.constant 7 : i64
  %c = call @factor(%nk, %i1, %i2, %i7) : (index, i64, i64, i64) -> tensor<?xRANKxf64>
  %d = call @factor(%nl, %i3, %i1, %i5) : (index, i64, i64, i64) -> tensor<?xRANKxf64>
""" + runner_bench.timed_calls(
    '%a = func.call @mttkrp(%b, %c, %d) : (tensor<?x?x?xf64, #B>, tensor<?xRANKxf64>, tensor<?xRANKxf64>) -> tensor<?xRANKxf64>',
    """      %ni = tensor.dim %a, %c0 : tensor<?xRANKxf64>
      %rank = arith.constant RANK : index
      %z = arith.constant 0.0 : f64
      %three = arith.constant 3 : index
      %s = scf.for %i = %c0 to %ni step %c1 iter_args(%acc = %z) -> f64 {
        %row = scf.for %j = %c0 to %rank step %c1 iter_args(%racc = %acc) -> f64 {
          %x = tensor.extract %a[%i, %j] : tensor<?xRANKxf64>
          %ij = arith.addi %i, %j : index
          %m = arith.remui %ij, %three : index
          %w1 = arith.addi %m, %c1 : index
          %wi = arith.index_cast %w1 : index to i64
          %w = arith.sitofp %wi : i64 to f64
          %xw = arith.mulf %x, %w : f64
          %y = arith.addf %racc, %xw : f64
          scf.yield %y : f64
        }
        scf.yield %row : f64
      }""",
    'bufferization.dealloc_tensor %a : tensor<?xRANKxf64>') + """  bufferization.dealloc_tensor %b : tensor<?x?x?xf64, #B>
  return
}
"""

#: With --schedules: sptune's program under each schedule of the CPU's
#: MTTKRP space (the kernel's knobs: one thread or all, each form), beside
#: the heuristic's ("sptune"): how much a tuner choosing among them could
#: gain over the heuristic on each tensor.
SCHEDULES = {"schedule_serial_factored": "cpu mttkrp, parallel = none, form = factored",
             "schedule_serial_entry_wise": "cpu mttkrp, parallel = none, form = entry_wise",
             "schedule_parallel_factored": "cpu mttkrp, parallel = outer, form = factored",
             "schedule_parallel_entry_wise":
                 "cpu mttkrp, parallel = outer, form = entry_wise"}

#: B's storage by --format: CSF (every level compressed) or COO (ordered,
#: its coordinates an array of structures), as the tensor is read.
ENCODINGS = {"csf": "(i : compressed, k : compressed, l : compressed)",
             "coo": "(i : compressed(nonunique), k : singleton(nonunique), l : singleton)"}

def generate(matrix_tool, spec, path, timeout):
    """Writes the tensor of a gen3: spec as an extended FROSTT file, generated
    by sptune's own generator (`sptune-matrix gen`: the same tensor for the
    same spec in every tool)."""
    try:
        result = subprocess.run([matrix_tool, "gen", spec, "-o", path], capture_output=True,
                                text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        sys.exit("mttkrp: generating '%s' took over %g s" % (spec, timeout))
    if result.returncode != 0:
        sys.exit("mttkrp: bad tensor spec '%s': %s" % (spec, result.stderr.strip()))


def lower(opt, arguments, reps, rank, path, native, storage="csf"):
    """The program lowered by sptune-opt with `arguments`, B stored as
    `storage` (ENCODINGS); with `native`, compiled to an executable
    (runner_bench.compile_native), else the lowered module for
    mlir-runner."""
    src = path + ".src.mlir"
    with open(src, "w") as fh:
        fh.write(PROGRAM.replace("CALLS", str(reps + 1)).replace("RANK", str(rank))
                 .replace("ENCODING", ENCODINGS[storage]))
    lowered = path + ".ll.mlir"
    run.run([opt, src] + arguments + ["-o", lowered], what="sptune-opt")
    return runner_bench.compile_native(lowered, path) if native else lowered


def lower_scheduled(opt, schedule, reps, rank, path, native, storage="csf"):
    """The program given `schedule` in place of the heuristic's, applied and
    lowered as `lower` does."""
    src = path + ".src.mlir"
    with open(src, "w") as fh:
        fh.write(PROGRAM.replace("CALLS", str(reps + 1)).replace("RANK", str(rank))
                 .replace("ENCODING", ENCODINGS[storage]))
    marked = path + ".marked.mlir"
    run.run([opt, src, "--sptune-extract-kernels", "--sptune-default-schedule",
             "-o", marked], what="sptune-opt")
    with open(marked) as fh:
        text, replaced = re.subn(r"#sptune\.schedule<cpu mttkrp,[^>]*>",
                                 "#sptune.schedule<%s>" % schedule, fh.read())
    if replaced != 1:
        sys.exit("mttkrp: expected one MTTKRP schedule in the program, found %d"
                 % replaced)
    with open(marked, "w") as fh:
        fh.write(text)
    lowered = path + ".ll.mlir"
    run.run([opt, marked, "--sptune-apply-schedule", "--sptune-lower-cpu", "-o", lowered],
            what="sptune-opt")
    return runner_bench.compile_native(lowered, path) if native else lowered


def model_schedule(opt, model, tensor, rank, path, timeout, storage="csf"):
    """The schedule `sptune-autotune model=MODEL` chooses for the program on
    `tensor` (its cost model's pick, nothing measured; the heuristic's over
    COO, which the model's data did not measure), and its remark."""
    src = path + ".src.mlir"
    with open(src, "w") as fh:
        fh.write(PROGRAM.replace("CALLS", "2").replace("RANK", str(rank))
                 .replace("ENCODING", ENCODINGS[storage]))
    try:
        p = subprocess.run([opt, src, "--sptune-extract-kernels",
                            "--sptune-autotune=model=%s matrix=%s" % (model, tensor)],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        sys.exit("mttkrp: sptune-autotune with model %s took over %g s on %s" % (
            model, timeout, tensor))
    if p.returncode != 0:
        sys.exit("mttkrp: sptune-autotune with model %s failed on %s:\n%s" % (
            model, tensor, p.stderr[-2000:]))
    found = re.findall(r"#sptune\.schedule<(cpu mttkrp,[^>]*)>", p.stdout)
    remark = [line for line in p.stderr.splitlines() if "sptune-autotune:" in line]
    if len(found) != 1 or not remark:
        sys.exit("mttkrp: expected sptune-autotune to schedule one MTTKRP on %s, "
                 "got:\n%s" % (tensor, p.stderr[-2000:]))
    return found[0], remark[0]


def time_program(lowered, tensor, timeout):
    """(fastest seconds, checksum) of one run of a lowered program."""
    bits, seconds = runner_bench.run_program(lowered, tensor, os.environ, timeout,
                                             "mttkrp")
    return float(seconds), runner_bench.f64_of_bits(bits)


def time_hand(tool, tensor, rank, reps, timeout, factor_rows=None):
    """The hand kernel's JSON; with `factor_rows`, its locality ceiling
    (bench/mttkrp-baselines.cpp's --factor-rows: k and l modulo that)."""
    try:
        p = subprocess.run([tool, tensor, "--rank", str(rank), "--reps", str(reps)]
                           + (["--factor-rows", str(factor_rows)] if factor_rows else []),
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        sys.exit("mttkrp: sptune-mttkrp-baselines took over %g s on %s" % (timeout, tensor))
    if p.returncode != 0:
        sys.exit("mttkrp: sptune-mttkrp-baselines failed on %s:\n%s" % (
            tensor, p.stderr[-2000:]))
    return json.loads(p.stdout)


def factor_rows_list(text):
    """--factor-rows: a comma-separated list of positive row counts."""
    try:
        rows = [int(x) for x in text.split(",")]
    except ValueError:
        rows = []
    if not rows or any(r < 1 for r in rows):
        raise argparse.ArgumentTypeError("expected positive row counts separated by "
                                         "commas, got '%s'" % text)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rank", type=int, default=32)
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--native", action=argparse.BooleanOptionalAction, default=True,
                    help="compile sptune's programs with clang -O3 -march=native, as "
                    "sptune's ahead-of-time path and the hand kernel are built (default: "
                    "on; --no-native: mlir-runner's JIT)")
    ap.add_argument("--format", choices=sorted(ENCODINGS), default="csf",
                    help="how sptune's programs store B: csf (every level compressed, "
                    "the default) or coo (ordered, an array of structures); the hand "
                    "kernel builds its CSF from the file either way")
    ap.add_argument("--schedules", action="store_true",
                    help="also time sptune's program under each schedule of the "
                    "MTTKRP space (one thread or all, factored or entry-wise) and "
                    "report the best against the heuristic's")
    ap.add_argument("--model", help="also time sptune's program under the schedule "
                    "this cost model (a file with an MTTKRP feature: sptune-learn "
                    "--kernel mttkrp) picks for each tensor, nothing measured")
    ap.add_argument("--factor-rows", type=factor_rows_list, default=[], metavar="M[,M...]",
                    help="also time the hand kernel's locality ceiling for each M: its "
                    "loops over the tensor's slices, fibers and entries reading only M "
                    "rows of C and D (k and l modulo M; not the tensor's MTTKRP, so no "
                    "checksum is compared): how much faster it could be if no factor "
                    "read missed the cache those rows fit in")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--plot", help="write a bar chart of the speedups here (.png)")
    ap.add_argument("tensors", nargs="*", help="extended FROSTT files or gen3: specs "
                    "(default: %s)" % ", ".join(DEFAULT_TENSORS))
    args = ap.parse_args(argv)
    if not 1 <= args.rounds <= 100 or not 1 <= args.reps <= 1000:
        ap.error("--rounds must be in [1, 100] and --reps in [1, 1000]")
    if not 1 <= args.rank <= 1024:
        ap.error("--rank must be in [1, 1024]")
    bindir = os.path.join(args.build, "bin")
    opt = run.executable("sptune-opt", bindir)
    tool = run.executable("sptune-mttkrp-baselines", bindir)
    matrix_tool = run.executable("sptune-matrix", bindir)
    tensors = args.tensors or DEFAULT_TENSORS
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        programs = {name: lower(opt, arguments, args.reps, args.rank,
                                os.path.join(tmp, name), args.native, args.format)
                    for name, arguments in VARIANTS.items()}
        if args.schedules:
            programs.update({name: lower_scheduled(opt, schedule, args.reps, args.rank,
                                                   os.path.join(tmp, name), args.native,
                                                   args.format)
                             for name, schedule in SCHEDULES.items()})
        for n, spec in enumerate(tensors):
            path = spec
            if spec.startswith("gen3:"):
                path = os.path.join(tmp, "tensor-%d.tns" % n)
                generate(matrix_tool, spec, path, args.timeout)
            elif not os.path.isfile(spec):
                sys.exit("mttkrp: no tensor file '%s'" % spec)
            tensor_programs = dict(programs)
            picked = None
            if args.model:
                picked, why = model_schedule(opt, args.model, path, args.rank,
                                             os.path.join(tmp, "model-%d" % n), args.timeout,
                                             args.format)
                tensor_programs["sptune_model"] = lower_scheduled(
                    opt, picked, args.reps, args.rank, os.path.join(tmp, "model-%d" % n),
                    args.native, args.format)
            best, checksums, info = {}, {}, None
            for _ in range(args.rounds):
                hand = time_hand(tool, path, args.rank, args.reps, args.timeout)
                info = info or hand
                best["hand"] = min(best.get("hand", math.inf), hand["seconds"]["hand"])
                checksums.setdefault("hand", []).append(hand["checksum"]["hand"])
                for name, program in tensor_programs.items():
                    t, checksum = time_program(program, path, args.timeout)
                    best[name] = min(best.get(name, math.inf), t)
                    checksums.setdefault(name, []).append(checksum)
                for m in args.factor_rows:
                    ceiling = time_hand(tool, path, args.rank, args.reps, args.timeout, m)
                    key = "hand_factor_rows_%d" % m
                    best[key] = min(best.get(key, math.inf), ceiling["seconds"]["hand"])
            # Every round's checksum of every program against the hand
            # kernel's first (each program checks its warm-up call's A).
            agreeing = {k: all(agree(c, checksums["hand"][0]) for c in v)
                        for k, v in checksums.items()}
            row = {"tensor": spec, "dims": info["dims"], "nnz": info["nnz"],
                   "slices": info["slices"], "fibers": info["fibers"],
                   "seconds": best, "agree": agreeing,
                   "speedup_vs_hand": {k: best["hand"] / best[k] for k in VARIANTS}}
            if picked:
                row["model_schedule"] = picked
                row["model_remark"] = why.split("sptune-autotune: ", 1)[-1]
                row["speedup_vs_hand"]["sptune_model"] = best["hand"] / best["sptune_model"]
                row["model_over_heuristic"] = best["sptune"] / best["sptune_model"]
                print("mttkrp:   the model's pick (%s) %.4f s: %.2fx the hand kernel, "
                      "%.2fx the heuristic's" % (picked, best["sptune_model"],
                                                 row["speedup_vs_hand"]["sptune_model"],
                                                 row["model_over_heuristic"]),
                      file=sys.stderr, flush=True)
            if args.factor_rows:
                row["ceiling_over_hand"] = {str(m): best["hand"] / best["hand_factor_rows_%d" % m]
                                            for m in args.factor_rows}
                print("mttkrp:   the hand kernel's locality ceiling: %s" % ", ".join(
                    "%d factor rows %.4f s (%.2fx)" % (m, best["hand_factor_rows_%d" % m],
                                                       row["ceiling_over_hand"][str(m)])
                    for m in args.factor_rows), file=sys.stderr, flush=True)
            if args.schedules:
                fastest = min(SCHEDULES, key=lambda k: best[k])
                row["best_schedule"] = SCHEDULES[fastest]
                row["oracle_over_heuristic"] = best["sptune"] / best[fastest]
            rows.append(row)
            print("mttkrp: %d/%d %s: hand %.4f s, sptune %.4f s (%.2fx), the sparsifier's "
                  "loop nest %.4f s (%.2fx), with upstream's defaults %.4f s (%.2fx)%s" % (
                      n + 1, len(tensors), spec, best["hand"], best["sptune"],
                      row["speedup_vs_hand"]["sptune"], best["sptune_loop_nest"],
                      row["speedup_vs_hand"]["sptune_loop_nest"], best["sptune_upstream"],
                      row["speedup_vs_hand"]["sptune_upstream"],
                      "" if all(agreeing.values()) else "  RESULTS DIFFER %s" % agreeing),
                  file=sys.stderr, flush=True)
            if args.schedules:
                print("mttkrp:   schedules: %s; the best (%s) %.2fx the heuristic's" % (
                    ", ".join("%s %.4f s" % (k.replace("schedule_", ""), best[k])
                              for k in SCHEDULES),
                    row["best_schedule"], row["oracle_over_heuristic"]),
                      file=sys.stderr, flush=True)
    summary = {"geomean_speedup_vs_hand": {k: geomean(r["speedup_vs_hand"][k] for r in rows)
                                           for k in VARIANTS},
               "all_agree": all(all(r["agree"].values()) for r in rows)}
    if args.model:
        summary["geomean_speedup_vs_hand"]["sptune_model"] = geomean(
            r["speedup_vs_hand"]["sptune_model"] for r in rows)
        summary["geomean_model_over_heuristic"] = geomean(
            r["model_over_heuristic"] for r in rows)
    if args.factor_rows:
        summary["geomean_ceiling_over_hand"] = {
            str(m): geomean(r["ceiling_over_hand"][str(m)] for r in rows)
            for m in args.factor_rows}
    if args.schedules:
        summary["geomean_oracle_over_heuristic"] = geomean(
            r["oracle_over_heuristic"] for r in rows)
    out = {"bench": "mttkrp", "machine": run.machine(), "rounds": args.rounds,
           "reps": args.reps, "rank": args.rank, "native": args.native,
           "format": args.format,
           "threads": info["threads"] if rows else None,
           "variants": {k: " ".join(v) for k, v in VARIANTS.items()},
           "schedules": SCHEDULES if args.schedules else {},
           "model": args.model, "factor_rows": args.factor_rows,
           "rows": rows, "summary": summary}
    bench_output.emit(out, args.json, args.plot, plot)
    return 0 if summary["all_agree"] else 1


def plot(out, path):
    """The report's chart of the speedups over the hand kernel, per tensor."""
    from sptune import report_plots
    rows = out["rows"]
    labels = {"sptune": "sptune as users run it (the heuristic's schedule)",
              "sptune_loop_nest": "sptune, the sparsifier's loop nest (rule for unscheduled kernels)",
              "sptune_upstream": "sptune with upstream's defaults"}
    # With --schedules, each schedule of the space beside the heuristic's.
    for key, schedule in out.get("schedules", {}).items():
        labels[key] = "schedule: " + schedule.replace("cpu mttkrp, ", "")
    if out.get("model"):
        labels["sptune_model"] = "sptune, the cost model's pick (model only)"
    # With --factor-rows, the hand kernel's locality ceilings.
    for m in out.get("factor_rows", []):
        labels["hand_factor_rows_%d" % m] = ("the hand kernel's ceiling: %d rows of C and D "
                                             "(not an MTTKRP of the tensor)" % m)
    fig = report_plots.grouped_bars(
        [r["tensor"].replace("gen3:", "").split(",seed")[0]
         .replace(":dims=", "\n").replace(",", "\n")
         for r in rows],
        [(label, [r["seconds"]["hand"] / r["seconds"][key] for r in rows])
         for key, label in labels.items()],
        title="MTTKRP, f64, rank %d, %s (%s)" % (out["rank"],
                                                 out.get("format", "csf").upper(),
                                                 out["machine"]["cpu"]),
        ylabel="speedup over the hand CSF kernel")
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
