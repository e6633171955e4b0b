#!/usr/bin/env python3
"""SpGEMM, C = A A: sptune's parallel Gustavson kernel against the libraries.

Issue 33's SpGEMM bar compares sptune with the best of Eigen, librsb and a
hand OpenMP Gustavson kernel on the large shared matrices (A A, CSR x CSR ->
CSR, f64). For each matrix, in interleaved rounds:

- sptune: the program below (`linalg.matmul` on CSR tensors) lowered by
  `sptune-opt --sptune-lower-cpu` (the kernel of cpu/GustavsonSpgemm.h) and
  compiled as sptune's ahead-of-time path compiles kernels (clang -O3
  -march=native; `--no-native`: run by mlir-runner's JIT);
- MLIR's default: the same lowered with `gustavson-spgemm=false`
  (upstream's sparsifier: one thread, insertion through an expanded access
  pattern);
- the libraries: `sptune-spgemm-baselines` (bench/spgemm-baselines.cpp,
  -O3 -march=native -fopenmp).

Each program reports the fastest of --reps calls after a warm-up, C's stored
entries and a checksum (sum of value * (column + 1)); the fastest over the
rounds is kept, and the results must agree (entries equal, checksums within
1e-9 relative). The programs run with glibc keeping freed memory
(--steady-malloc, on by default; sptune.run.STEADY_MALLOC), so that page
faults of re-allocated outputs do not decide the comparison.

    bench/spgemm.py [--build build] [--rounds 3] [--reps 5] [--json OUT]
        [--plot OUT.png] [--variant NAME=OPTIONS ...] [--no-mlir-default]
        [--no-native]
        [MATRIX ...]

`--variant hash=gustavson-accumulator=hash` times sptune's kernel lowered
with other `--sptune-lower-cpu` options too, in the same rounds: each row
then has `seconds[NAME]` and `variant_speedup[NAME]` (the default lowering's
time over the variant's), and the summary their geomeans.

Default matrices: the shared ones with >= 50,000 stored entries (square),
else three generated ones. Output: one JSON object ("bench": "spgemm");
`sptune report` shows it.
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
from sptune import bench_output, run, runner_bench  # noqa: E402
from sptune.runner_bench import geomean  # noqa: E402

GENERATED = ["gen:rmat:rows=16384,nnz=160000,seed=7",
             "gen:uniform:rows=32768,nnz=300000,seed=8",
             "gen:banded:rows=65536,nnz=600000,bw=16,seed=9"]
LIBRARIES = ("hand", "eigen", "rsb")

PROGRAM = """
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
func.func @spgemm(%a: tensor<?x?xf64, #CSR>, %b: tensor<?x?xf64, #CSR>) -> tensor<?x?xf64, #CSR> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf64, #CSR>
  %n = tensor.dim %b, %c1 : tensor<?x?xf64, #CSR>
  %e = tensor.empty(%m, %n) : tensor<?x?xf64, #CSR>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf64, #CSR>, tensor<?x?xf64, #CSR>)
                     outs(%e : tensor<?x?xf64, #CSR>) -> tensor<?x?xf64, #CSR>
  return %r : tensor<?x?xf64, #CSR>
}
""" + runner_bench.MAIN_START + """  %calls = arith.constant CALLS : index
  %f = call @getTensorFilename(%c0) : (index) -> (!llvm.ptr)
  %a = sparse_tensor.new %f : !llvm.ptr to tensor<?x?xf64, #CSR>
  %inf = arith.constant 1.0e30 : f64
  // Call 0 is the warm-up (its result checked), the others are timed.
  %best = scf.for %r = %c0 to %calls step %c1 iter_args(%bt = %inf) -> f64 {
    %t0 = func.call @rtclock() : () -> f64
    %c = func.call @spgemm(%a, %a) : (tensor<?x?xf64, #CSR>, tensor<?x?xf64, #CSR>) -> tensor<?x?xf64, #CSR>
    %t1 = func.call @rtclock() : () -> f64
    %d = arith.subf %t1, %t0 : f64
    %warm = arith.cmpi eq, %r, %c0 : index
    %mn = arith.minimumf %bt, %d : f64
    %next = arith.select %warm, %bt, %mn : f64
    scf.if %warm {
      %nnz = sparse_tensor.number_of_entries %c : tensor<?x?xf64, #CSR>
      vector.print %nnz : index
      %v = sparse_tensor.values %c : tensor<?x?xf64, #CSR> to memref<?xf64>
      %crd = sparse_tensor.coordinates %c {level = 1 : index} : tensor<?x?xf64, #CSR> to memref<?xindex>
      %z = arith.constant 0.0 : f64
      %one = arith.constant 1.0 : f64
      %s = scf.for %p = %c0 to %nnz step %c1 iter_args(%acc = %z) -> f64 {
        %x = memref.load %v[%p] : memref<?xf64>
        %j = memref.load %crd[%p] : memref<?xindex>
        %ji = arith.index_cast %j : index to i64
        %jf = arith.sitofp %ji : i64 to f64
        %j1 = arith.addf %jf, %one : f64
        %w = arith.mulf %x, %j1 : f64
        %y = arith.addf %acc, %w : f64
        scf.yield %y : f64
      }
      // The checksum's bits: vector.print shows 6 digits of an f64.
      %bits = arith.bitcast %s : f64 to i64
      vector.print %bits : i64
    }
    bufferization.dealloc_tensor %c : tensor<?x?xf64, #CSR>
    scf.yield %next : f64
  }
  vector.print %best : f64
  bufferization.dealloc_tensor %a : tensor<?x?xf64, #CSR>
  return
}
"""


def lower(opt, reps, options, path, native):
    """The program lowered by sptune-lower-cpu with `options`; with `native`,
    compiled to an executable (runner_bench.compile_native), else the
    lowered module for mlir-runner."""
    src = path + ".src.mlir"
    with open(src, "w") as fh:
        fh.write(PROGRAM.replace("CALLS", str(reps + 1)))
    lowered = path + ".ll.mlir"
    run.run([opt, src, "--sptune-lower-cpu" + ("=" + options if options else ""),
             "-o", lowered], what="sptune-opt")
    return runner_bench.compile_native(lowered, path) if native else lowered


def time_program(lowered, matrix, env, timeout):
    """(fastest seconds, entries, checksum) of one run of a lowered program."""
    entries, bits, seconds = runner_bench.run_program(lowered, matrix, env, timeout,
                                                      "spgemm", last=3)
    return float(seconds), int(entries), runner_bench.f64_of_bits(bits)


def time_libraries(tool, source, reps, env, timeout, general=None):
    cmd = [tool, source, "--reps", str(reps)]
    if general:
        cmd += ["--write-general", general]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        sys.exit("spgemm: sptune-spgemm-baselines failed on %s:\n%s" % (source, p.stderr[-2000:]))
    return json.loads(p.stdout)


def default_matrices(shared_dir):
    manifest = os.path.join(shared_dir, "MANIFEST.tsv")
    if not os.path.exists(manifest):
        return list(GENERATED)
    out = []
    with open(manifest) as fh:
        head = fh.readline().rstrip("\n").split("\t")
        for line in fh:
            row = dict(zip(head, line.rstrip("\n").split("\t")))
            try:
                square = row["rows"] == row["cols"]
                big = int(row.get("nnz_full") or row["nnz"]) >= 50000
            except (KeyError, ValueError):
                continue
            path = os.path.join(shared_dir, row["file"])
            if square and big and os.path.exists(path):
                out.append(path)
    return out or list(GENERATED)


def agree(a, b):
    return a[0] == b[0] and runner_bench.agree(a[1], b[1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--matrices", default=os.path.join(HERE, "..", "..", "shared", "matrices"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--plot", help="write a bar chart of the speedups here (.png)")
    ap.add_argument("--steady-malloc", action=argparse.BooleanOptionalAction, default=True,
                    help="glibc keeps freed memory (default: on)")
    ap.add_argument("--native", action=argparse.BooleanOptionalAction, default=True,
                    help="compile sptune's programs with clang -O3 -march=native, as "
                    "sptune's ahead-of-time path and the libraries are built (default: "
                    "on; --no-native: mlir-runner's JIT)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=OPTIONS",
                    help="also time sptune lowered with these --sptune-lower-cpu options")
    ap.add_argument("--mlir-default", action=argparse.BooleanOptionalAction, default=True,
                    help="time MLIR's default lowering (one thread; default: on)")
    ap.add_argument("mtx", nargs="*", help="matrix files or gen: specs (default: the "
                    "shared matrices with >= 50,000 entries, else generated ones)")
    args = ap.parse_args(argv)
    if not 1 <= args.rounds <= 100 or not 1 <= args.reps <= 1000:
        ap.error("--rounds must be in [1, 100] and --reps in [1, 1000]")
    variants = []
    for v in args.variant:
        name, sep, options = v.partition("=")
        if not sep or not name.isidentifier() or name in ("sptune", "mlir_default") + LIBRARIES \
                or name in dict(variants):
            ap.error("--variant takes NAME=OPTIONS with a new identifier NAME (got %r)" % v)
        variants.append((name, options))
    bindir = os.path.join(args.build, "bin")
    opt = run.executable("sptune-opt", bindir)
    tool = run.executable("sptune-spgemm-baselines", bindir)
    env = dict(os.environ)
    if args.steady_malloc:
        env["GLIBC_TUNABLES"] = run.STEADY_MALLOC
    matrices = args.mtx or default_matrices(args.matrices)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        sptune = lower(opt, args.reps, "", os.path.join(tmp, "sptune"), args.native)
        programs = [("sptune", sptune)]
        if args.mlir_default:
            programs.append(("mlir_default", lower(opt, args.reps, "gustavson-spgemm=false",
                                                   os.path.join(tmp, "default"), args.native)))
        for name, options in variants:
            programs.append((name, lower(opt, args.reps, options,
                                         os.path.join(tmp, "variant-" + name), args.native)))
        for n, source in enumerate(matrices):
            general = os.path.join(tmp, "general.mtx")
            best = {}
            results = {}
            info = None
            for r in range(args.rounds):
                libs = time_libraries(tool, source, args.reps, env, args.timeout,
                                      general if r == 0 else None)
                info = info or libs
                for lib in LIBRARIES:
                    if lib in libs["seconds"]:
                        best[lib] = min(best.get(lib, math.inf), libs["seconds"][lib])
                        results[lib] = (libs["entries"][lib], libs["checksum"][lib])
                for name, program in programs:
                    t, entries, checksum = time_program(program, general, env, args.timeout)
                    best[name] = min(best.get(name, math.inf), t)
                    results[name] = (entries, checksum)
            reference = results["hand"]
            agreeing = {k: agree(v, reference) for k, v in results.items()}
            libraries = {k: best[k] for k in LIBRARIES if k in best}
            fastest_lib = min(libraries, key=libraries.get)
            row = {"matrix": info["matrix"], "rows": info["rows"], "nnz": info["nnz"],
                   "entries_c": reference[0], "seconds": best, "agree": agreeing,
                   "best_library": fastest_lib,
                   "speedup_vs_best_library": libraries[fastest_lib] / best["sptune"],
                   "speedup_vs": {k: v / best["sptune"] for k, v in libraries.items()}}
            if args.mlir_default:
                row["speedup_vs_mlir_default"] = best["mlir_default"] / best["sptune"]
            if variants:
                row["variant_speedup"] = {name: best["sptune"] / best[name]
                                          for name, _ in variants}
            if "errors" in info:
                row["errors"] = info["errors"]
            rows.append(row)
            print("spgemm: %d/%d %-32s sptune %.4f s  best library (%s) %.4f s  %.2fx%s%s%s" % (
                      n + 1, len(matrices), info["matrix"], best["sptune"], fastest_lib,
                      libraries[fastest_lib], row["speedup_vs_best_library"],
                      "  MLIR default %.2fx" % row["speedup_vs_mlir_default"]
                      if args.mlir_default else "",
                      "".join("  %s %.2fx" % kv for kv in row.get("variant_speedup", {}).items()),
                      "" if all(agreeing.values()) else "  RESULTS DIFFER %s" % agreeing),
                  file=sys.stderr, flush=True)

    summary = {
        "geomean_speedup_vs_best_library": geomean(r["speedup_vs_best_library"] for r in rows),
        "geomean_speedup_vs_mlir_default": geomean(r["speedup_vs_mlir_default"] for r in rows)
        if args.mlir_default else None,
        "geomean_speedup_vs": {lib: geomean(r["speedup_vs"][lib] for r in rows
                                            if lib in r["speedup_vs"]) for lib in LIBRARIES},
        "all_agree": all(all(r["agree"].values()) for r in rows),
    }
    if variants:
        summary["geomean_variant_speedup"] = {
            name: geomean(r["variant_speedup"][name] for r in rows) for name, _ in variants}
    out = {"bench": "spgemm", "machine": run.machine(), "rounds": args.rounds,
           "reps": args.reps, "steady_malloc": args.steady_malloc, "native": args.native,
           "variants": dict(variants),
           "threads": info["threads"] if rows else None,
           "rows": rows, "summary": summary}
    bench_output.emit(out, args.json, args.plot, plot)
    return 0 if summary["all_agree"] else 1


def short_name(matrix):
    """A plot label: a generator spec as its kind, rows and seed."""
    if not matrix.startswith("gen:"):
        return matrix
    kind, _, keys = matrix[4:].partition(":")
    fields = dict(kv.split("=", 1) for kv in keys.split(",") if "=" in kv)
    return "%s %s rows seed %s" % (kind, fields.get("rows", "?"), fields.get("seed", "?"))


def plot(out, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = out["rows"]
    # (legend, the value of a row): sptune over MLIR's default and each
    # library, then each variant over sptune's default lowering.
    series = ([("sptune over MLIR default", lambda r: r["speedup_vs_mlir_default"])]
              if rows and "speedup_vs_mlir_default" in rows[0] else []) + [
        ("sptune over " + lib, lambda r, lib=lib: r["speedup_vs"].get(lib, float("nan")))
        for lib in LIBRARIES] + [
        ("%s over sptune" % name, lambda r, name=name: r["variant_speedup"][name])
        for name in out.get("variants") or {}]
    fig, ax = plt.subplots(figsize=(8, 3.8))
    width = 0.8 / len(series)
    for s, (label, value) in enumerate(series):
        ax.bar([x + (s - (len(series) - 1) / 2) * width for x in range(len(rows))],
               [value(r) for r in rows], width, label=label)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([short_name(r["matrix"]) for r in rows], rotation=35, ha="right",
                       fontsize=7)
    ax.set_ylabel("speedup")
    ax.set_title("SpGEMM A A, f64, CSR (%s): %.2fx the best library (geomean)" % (
        out["machine"]["cpu"], out["summary"]["geomean_speedup_vs_best_library"]), fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
