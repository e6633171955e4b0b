"""The main job: autotune the kernels of a .mlir file for a matrix with the
shipped cost model, then measure the chosen schedules against the MLIR
sparsifier's default (and Eigen and autotuned librsb where they apply).

    /usr/bin/python3 -m sptune.tune_example --build build \
        --matrix gen:rmat:rows=16384,nnz=262144,seed=7 examples/kernels.mlir

Steps, all with sptune's own tools:
  1. sptune-opt --sptune-extract-kernels --sptune-autotune=... (the remark
     shows the model's ranking), writing the annotated IR;
  2. sptune-opt --sptune-apply-schedule --sptune-lower-cpu on it (the tuned
     IR compiles to LLVM with OpenMP);
  3. sptune-measure for each chosen schedule and for the MLIR default.
"""

import argparse
import os
import sys
import tempfile

from sptune import autotune, kernel_ir, run
from sptune import measure as measure_tool


def measure(build, matrix, kernel, free, schedule=None, baseline=None):
    return measure_tool.measure(matrix, kernel, free, 0.3, schedule=schedule, baseline=baseline,
                                tool=run.executable("sptune-measure", bin_dir(build)))


def bin_dir(build):
    """--build DIR: the tools of DIR/bin; none: where sptune.tools finds them."""
    return os.path.join(build, "bin") if build else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mlir", nargs="+")
    ap.add_argument("--build", help="build directory (default: where sptune.tools finds "
                                     "the tools: SPTUNE_BIN, the build tree, the PATH)")
    ap.add_argument("--matrix", required=True)
    ap.add_argument("--mode", default="release")
    ap.add_argument("--measure-top-k", type=int, default=3)
    args = ap.parse_args(argv)
    try:
        tune(args)
    except run.ToolError as e:
        sys.exit(f"tune_example: {e}")


def tune(args):
    opt = run.executable("sptune-opt", bin_dir(args.build))
    for path in args.mlir:
        print(f"== {path} on {args.matrix}")
        with tempfile.TemporaryDirectory() as tmp:
            tuned = os.path.join(tmp, "tuned.mlir")
            opts = autotune.options(args.matrix, mode=args.mode, top_k=3,
                                    measure_top_k=args.measure_top_k)
            text, rankings = autotune.autotune_file(path, opts, opt=opt, out=tuned)
            for r in rankings:
                print("  " + r.text[:400] + " ...")
            run.run([opt, tuned, "--sptune-apply-schedule", "--sptune-lower-cpu", "-o",
                     os.path.join(tmp, "lowered.mlir")], what="sptune-opt --sptune-lower-cpu")
        print(f"  tuned IR lowers to LLVM + OpenMP: ok")
        for (kind, sizes), schedule in zip(kernel_ir.kernels(text), kernel_ir.schedules(text)):
            free = kernel_ir.free_size(kind, sizes)
            tuned_m = measure(args.build, args.matrix, kind, free, schedule=schedule)
            mlir_m = measure(args.build, args.matrix, kind, free, baseline="mlir-default")
            eigen_m = measure(args.build, args.matrix, kind, free, baseline="eigen") \
                if kind != "sddmm" else None
            rsb_m = measure(args.build, args.matrix, kind, free, baseline="rsb") \
                if kind != "sddmm" else None
            def ms(m):
                return m["time_s"]["median"] * 1e3 if m and m.get("status") == "ok" else None
            t, b, e, r = ms(tuned_m), ms(mlir_m), ms(eigen_m), ms(rsb_m)
            print(f"  {kind}: chose [{schedule}]")
            line = f"    tuned {t:.3f} ms" if t else f"    tuned failed: {tuned_m.get('reason')}"
            if t and b:
                line += f" | MLIR default {b:.3f} ms | speedup {b / t:.2f}x"
            if t and e:
                line += f" | Eigen {e:.3f} ms | vs Eigen {e / t:.2f}x"
            if t and r:
                line += f" | librsb {r:.3f} ms | vs librsb {r / t:.2f}x"
            print(line)


if __name__ == "__main__":
    main()
