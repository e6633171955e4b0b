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
import json
import os
import re
import subprocess
import sys
import tempfile

SCHEDULE = re.compile(r"sptune\.schedule = #sptune\.schedule<([^>]*)>")
KERNEL = re.compile(r"sptune\.kernel = #sptune\.kernel<(spmm|sddmm|spmv), loops = \[([^\]]*)\]")


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        sys.exit(f"tune_example: command failed ({p.returncode}): {' '.join(cmd)}")
    return p


def measure(build, matrix, kernel, free, schedule=None, baseline=None):
    cmd = [os.path.join(build, "bin", "sptune-measure"), "--matrix", matrix,
           "--kernel", kernel, "--free", str(free), "--min-seconds", "0.3"]
    cmd += ["--schedule", schedule] if schedule else ["--baseline", baseline]
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return {"status": "error", "reason": p.stderr.strip()[-300:]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mlir", nargs="+")
    ap.add_argument("--build", default="build")
    ap.add_argument("--matrix", required=True)
    ap.add_argument("--mode", default="release")
    ap.add_argument("--measure-top-k", type=int, default=3)
    args = ap.parse_args(argv)
    opt = os.path.join(args.build, "bin", "sptune-opt")
    for path in args.mlir:
        print(f"== {path} on {args.matrix}")
        with tempfile.TemporaryDirectory() as tmp:
            tuned = os.path.join(tmp, "tuned.mlir")
            autotune = (f"--sptune-autotune=mode={args.mode} matrix={args.matrix} "
                        f"measure-top-k={args.measure_top_k} top-k=3")
            p = run([opt, path, "--sptune-extract-kernels", autotune,
                     "--mlir-print-op-on-diagnostic=false", "-o", tuned])
            for line in p.stderr.splitlines():
                if "sptune-autotune" in line:
                    print("  " + line.split("remark: ", 1)[-1][:400] + " ...")
            run([opt, tuned, "--sptune-apply-schedule", "--sptune-lower-cpu", "-o",
                 os.path.join(tmp, "lowered.mlir")])
            text = open(tuned).read()
        print(f"  tuned IR lowers to LLVM + OpenMP: ok")
        kernels = KERNEL.findall(text)
        schedules = SCHEDULE.findall(text)
        for (kind, loops), schedule in zip(kernels, schedules):
            sizes = dict(l.strip().split(" : ") for l in loops.split(","))
            free = sizes.get("j" if kind == "spmm" else "k", "64")
            free = 64 if free == "?" else int(free)
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
