"""Differential program fuzzer: random sparse programs, executed by sptune
and by upstream MLIR, checked against a Python reference.

`sptune-fuzz` checks the schedules of the tuner's space, one kernel at a
time, through the measurement worker; `sptune.ir_fuzz` checks that broken
input gets a diagnostic. This fuzzer checks what neither reaches: whole
programs the way users write them, with the kernels that are outside the
tuner's space or that sptune rewrites across ops. Each family makes random
programs (docs/reliability.md, "The program fuzzer"):

- spgemm (sptune.fuzz_spgemm): CSR x CSR -> CSR products computed by
  sptune's Gustavson kernel; its printed output must be upstream's exactly;
- layers (sptune.fuzz_layers): GNN / attention layers in one function
  (SDDMM with its scale fused or not, SpMM with an epilogue, SpMV over
  narrow storage, sparse ⊙ dense), through extract-kernels, a tuner mode
  and sptune-lower-cpu; every kernel must get a schedule;
- beyond (sptune.fuzz_beyond): MTTKRP and batched SpMM on 3-D sparse
  tensors (an MTTKRP over CSF or ordered COO must get the kernel type
  `mttkrp`'s schedule, a batched SpMM over dense batches of CSR rows or
  ordered COO `batched_spmm`'s, the others none) and SpMM in f16 / bf16
  (tuned);
- unscheduled (sptune.fuzz_unscheduled): random linalg.generic kernels
  lowered by sptune-lower-cpu alone, each with the CPU target's rule for
  kernels without a schedule.

Each program is lowered by sptune's pipeline and by upstream's
(`--sparsifier=enable-runtime-library=false`), both run by mlir-runner; the
printed result of sptune's must match the reference (and upstream's text,
where the family says so).

    python3 -m sptune.program_fuzz [--family spgemm,layers,beyond,unscheduled] [--cases 100]
        [--seed 1] [--opt sptune-opt] [--runner mlir-runner]
        [--shared-libs A.so,B.so,...] [--timeout 60] [--out DIR]
        [--only N,M | --only spgemm:N] [--list]

Outcome classes (stdout, one count per line, then per family; findings
after them): ok; wrong-result (sptune's output differs from the reference,
or from upstream's text in an exact family); wrong-kernel (a kernel
computed by other code than due: one sptune's SpGEMM kernel takes left to
upstream's code, a kernel sptune tunes left without a schedule, or one it
does not tune given one); compile-error and run-error
(sptune's lowering or program fails where upstream's does not); crash;
hang; and upstream-fails, counted but not a finding of sptune's (upstream's
pipeline or program fails, or its result is not the reference's; sptune's
is still checked). Progress, with rate and ETA, goes to stderr. The exit
status is 0 whatever the findings (the lit slice judges them), 2 on a usage
error.
"""

import argparse
import collections
import os
import shlex
import shutil
import sys
import tempfile
import time

from sptune import run
from sptune.fuzz_beyond import BeyondCase
from sptune.fuzz_layers import LayerCase
from sptune.fuzz_spgemm import SpgemmCase
from sptune.fuzz_unscheduled import UnscheduledCase
from sptune.ir_fuzz import CRASH_MARKERS, run_process

FAMILIES = {"spgemm": SpgemmCase, "layers": LayerCase, "beyond": BeyondCase,
            "unscheduled": UnscheduledCase}
CLASSES = ["ok", "wrong-result", "wrong-kernel", "compile-error", "run-error",
           "crash", "hang", "upstream-fails"]
FINDINGS = set(CLASSES) - {"ok", "upstream-fails"}

LLVM_DIR = "/usr/lib/llvm-22"
DEFAULT_LIBS = ["libmlir_c_runner_utils.so", "libmlir_runner_utils.so",
                "libomp.so"]


def crashed(rc, stderr):
    return rc is not None and (rc < 0 or any(m in stderr for m in CRASH_MARKERS))


def run_case(case, opt, runner, libs, workdir, timeout, mem_mb):
    """(class, note, {what: text}) of one case."""
    src = os.path.join(workdir, "case.mlir")
    with open(src, "w") as f:
        f.write(case.program())
    case.prepare(workdir)
    env = dict(os.environ, OMP_NUM_THREADS=str(case.omp_threads))
    runner_cmd = [runner, "-e", "main", "-entry-point-result=void",
                  "-shared-libs=" + ",".join(libs)]
    outputs = {}

    def lower_and_run(tag, pipeline):
        lowered = os.path.join(workdir, tag + ".mlir")
        rc, _, err, _ = run_process([opt, src] + pipeline + ["-o", lowered],
                                    workdir, timeout, mem_mb)
        outputs[tag + " stderr"] = err
        if rc != 0:
            return ("hang" if rc is None else "crash" if crashed(rc, err)
                    else "compile-error"), err, None
        with open(lowered) as f:
            outputs[tag + " lowered"] = f.read()
        rc, out, err, _ = run_process(runner_cmd + [lowered], workdir, timeout,
                                      mem_mb, env=env, keep_stdout=True)
        outputs[tag + " output"] = out
        if rc != 0:
            return ("hang" if rc is None else "crash" if crashed(rc, err)
                    else "run-error"), err, None
        return "ok", "", out

    ours_cls, ours_err, ours = lower_and_run("sptune", case.sptune_args(workdir))
    if ours_cls != "ok":
        up_cls, _, _ = lower_and_run("upstream", case.upstream_args())
        if up_cls != "ok" and ours_cls in ("compile-error", "run-error"):
            return ("upstream-fails", "both fail: " + run.diagnostics(ours_err, 2),
                    outputs)
        return ours_cls, run.diagnostics(ours_err, 3), outputs
    scheduled = ""
    prefix = case.schedule_args(workdir)
    if prefix is not None:
        rc, scheduled, err, _ = run_process([opt, src] + prefix, workdir,
                                            timeout, mem_mb, keep_stdout=True)
        outputs["sptune scheduled"] = scheduled
        if rc != 0:
            return ("hang" if rc is None else "crash" if crashed(rc, err)
                    else "compile-error"), run.diagnostics(err, 3), outputs
    unused = case.why_kernels_unused(outputs["sptune lowered"], scheduled)
    if unused:
        return "wrong-kernel", unused, outputs
    wrong = case.check(ours)
    if wrong:
        return "wrong-result", "against the reference: " + wrong, outputs
    up_cls, up_err, up = lower_and_run("upstream", case.upstream_args())
    if up_cls != "ok":
        return "upstream-fails", "upstream %s: %s" % (
            up_cls, run.diagnostics(up_err, 2)), outputs
    up_wrong = case.check(up)
    if up_wrong:
        return "upstream-fails", "upstream's result: " + up_wrong, outputs
    if case.exact_upstream and up != ours:
        return "wrong-result", "printed output differs from upstream's", outputs
    return "ok", "", outputs


def write_repro(out, case, cls, note, outputs, opt, runner, libs):
    base = os.path.abspath(os.path.join(out, "%s-%d" % (case.family, case.n)))
    os.makedirs(base, exist_ok=True)
    with open(os.path.join(base, "case.mlir"), "w") as f:
        f.write(case.program())
    case.prepare(base)
    for what, text in outputs.items():
        with open(os.path.join(base, what.replace(" ", "-") + ".txt"), "w") as f:
            f.write(text)
    run_line = " ".join([shlex.quote(runner), "-e main -entry-point-result=void",
                         "-shared-libs=" + shlex.quote(",".join(libs))])
    with open(os.path.join(base, "README"), "w") as f:
        f.write("class: %s\n%s\ncase: %s\n\n" % (cls, note, case.describe()))
        f.write("%s case.mlir %s | OMP_NUM_THREADS=%d %s\n" % (
            shlex.quote(opt),
            " ".join(shlex.quote(a) for a in case.sptune_args(base)),
            case.omp_threads, run_line))
        f.write("%s case.mlir %s | %s\n" % (
            shlex.quote(opt), " ".join(shlex.quote(a) for a in case.upstream_args()),
            run_line))


def parse_only(text, families):
    """[(family, number)] of --only: "N" (in every family) or "family:N"."""
    out = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        fam, _, num = item.rpartition(":")
        if fam and fam not in families:
            raise ValueError("family '%s' is not among --family" % fam)
        n = int(num)
        if n < 0:
            raise ValueError("case numbers are >= 0")
        out += [(f, n) for f in ([fam] if fam else families)]
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m sptune.program_fuzz",
        description="Differential fuzzer of whole sparse programs: sptune "
                    "against upstream MLIR and a reference "
                    "(docs/reliability.md).")
    ap.add_argument("--family", default=",".join(FAMILIES),
                    help="comma-separated families (default: %(default)s)")
    ap.add_argument("--opt", help="sptune-opt to run (default: the build's)")
    ap.add_argument("--runner", default=os.path.join(LLVM_DIR, "bin", "mlir-runner"),
                    help="mlir-runner (default: %(default)s)")
    ap.add_argument("--shared-libs",
                    default=",".join(os.path.join(LLVM_DIR, "lib", l)
                                     for l in DEFAULT_LIBS),
                    help="mlir-runner's -shared-libs (default: LLVM 22's "
                         "runner utilities and libomp)")
    ap.add_argument("--cases", type=int, default=100, help="cases per family")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds per lowering or run (default 60)")
    ap.add_argument("--mem-limit-mb", type=int, default=4096,
                    help="address-space limit of each run (0 = none)")
    ap.add_argument("--out", help="write every finding's program, outputs and "
                                  "commands here")
    ap.add_argument("--only", help="case numbers to run: N (in every family) "
                                   "or family:N, comma-separated")
    ap.add_argument("--list", action="store_true",
                    help="print every case with its class")
    args = ap.parse_args(argv)

    families = [f.strip() for f in args.family.split(",") if f.strip()]
    unknown = [f for f in families if f not in FAMILIES]
    if unknown or not families:
        ap.error("--family takes %s (got '%s')" % (", ".join(FAMILIES), args.family))
    if args.cases < 0:
        ap.error("--cases must be >= 0")
    if not args.timeout > 0:
        ap.error("--timeout must be > 0")
    try:
        work = (parse_only(args.only, families) if args.only
                else [(f, n) for f in families for n in range(args.cases)])
    except ValueError as e:
        ap.error("--only takes N or family:N, comma-separated (%s)" % e)
    try:
        opt = (os.path.abspath(shutil.which(args.opt) or args.opt) if args.opt
               else run.executable("sptune-opt"))
    except run.ToolError as e:
        print("program_fuzz: %s" % e, file=sys.stderr)
        return 2
    runner = shutil.which(args.runner) or args.runner
    libs = [l for l in args.shared_libs.split(",") if l]
    for path, what in [(opt, "sptune-opt"), (runner, "mlir-runner")] + \
            [(l, "shared library") for l in libs]:
        if not os.path.isfile(path):
            print("program_fuzz: no %s at %s" % (what, path), file=sys.stderr)
            return 2

    counts = collections.Counter()
    per_family = collections.defaultdict(collections.Counter)
    findings = []
    workdir = tempfile.mkdtemp(prefix="sptune-program-fuzz-")
    t0 = last = time.time()
    try:
        for done, (family, n) in enumerate(work, 1):
            case = FAMILIES[family](args.seed, n)
            cls, note, outputs = run_case(case, opt, runner, libs, workdir,
                                          args.timeout, args.mem_limit_mb)
            counts[cls] += 1
            per_family[family][cls] += 1
            if args.list:
                print("%s:%d: %s %s%s" % (family, n, cls, case.describe(),
                                          "; " + note if note else ""))
            if cls in FINDINGS:
                findings.append((family, n, cls, note, case.describe()))
                if args.out:
                    write_repro(args.out, case, cls, note, outputs, opt,
                                runner, libs)
            now = time.time()
            if done % 10 == 0 or done == len(work) or now - last > 30:
                last = now
                rate = done / max(now - t0, 1e-9)
                print("program_fuzz: %d/%d cases, %.2f cases/s, ETA %.0f s, %s"
                      % (done, len(work), rate, (len(work) - done) / max(rate, 1e-9),
                         " ".join("%s=%d" % (k, counts[k]) for k in CLASSES
                                  if counts[k])), file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    print("cases: %d" % len(work))
    for k in CLASSES:
        print("%s: %d" % (k, counts[k]))
    for family in families:
        c = per_family[family]
        print("family %s: cases=%d %s" % (family, sum(c.values()),
                                          " ".join("%s=%d" % (k, c[k]) for k in CLASSES)))
    for family, n, cls, note, desc in findings:
        print("finding %s:%d: %s: %s [%s]" % (family, n, cls, note, desc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
