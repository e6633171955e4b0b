"""Timing lowered MLIR programs, for the benches that compare a whole
sptune program with hand or library kernels (bench/spgemm.py,
bench/mttkrp.py, bench/batched-spmm.py, bench/gat-layer.py).

Such a program times its own calls (`rtclock`), prints what it measured
with `vector.print` as its last lines, and reads its sparse operand from
the file named by TENSOR0. It runs compiled to an executable as sptune's
ahead-of-time path compiles kernels (`compile_native`: mlir-translate,
clang -O3 -march=native, as the hand and library baselines are built), or
under mlir-runner's JIT (a lowered module passed as it is), whose code was
1.5-2x slower for the sparsifier's kernels on the Intel Xeon VM of issue
33's GAT figures.
"""

import math
import os
import re
import struct
import subprocess
import sys

from sptune import run, tools
from sptune.errors import SptuneError

RUNNER = "/usr/lib/llvm-22/bin/mlir-runner"
RUNNER_LIBS = ",".join("/usr/lib/llvm-22/lib/" + lib for lib in (
    "libmlir_c_runner_utils.so", "libmlir_runner_utils.so", "libomp.so"))


#: The C entry point of a native program: @main returns nothing (as
#: mlir-runner's -entry-point-result=void wants it), so the process's exit
#: status would be whatever the last call left in the return register.
_NATIVE_MAIN = """void sptune_bench_main(void);
int main(void) {
  sptune_bench_main();
  return 0;
}
"""


def compile_native(lowered, exe):
    """`lowered` (a module lowered to the LLVM dialect, with a @main that
    takes and returns nothing) compiled to the executable `exe` as sptune's
    ahead-of-time path compiles kernels: mlir-translate, then clang -O3
    -march=native, linked with MLIR's runner utilities and libomp; @main is
    called from a C main that exits with 0. Returns `exe`."""
    ll = exe + ".ll"
    run.run([tools.llvm_tool("mlir-translate"), "--mlir-to-llvmir", lowered, "-o", ll],
            what="mlir-translate")
    with open(ll) as fh:
        text = fh.read()
    text, renamed = re.subn(r"^(define\b[^@\n]*\bvoid )@main\(\)", r"\1@sptune_bench_main()",
                            text, flags=re.M)
    if renamed != 1 or re.search(r"@main\b", text):
        raise SptuneError("%s: not one 'define void @main()', referred to nowhere else, to "
                          "call from a native main" % lowered)
    with open(ll, "w") as fh:
        fh.write(text)
    stub = exe + ".main.c"
    with open(stub, "w") as fh:
        fh.write(_NATIVE_MAIN)
    libdir = tools.llvm_lib_dir()
    run.run([tools.llvm_tool("clang"), "-O3", "-march=native", "-Wno-override-module",
             ll, stub, "-o", exe, "-L" + libdir, "-lmlir_c_runner_utils",
             "-lmlir_runner_utils", "-lomp", "-Wl,-rpath," + libdir] +
            tools.clang_builtins_flags(), what="clang")
    return exe


def program_command(program):
    """The command that runs `program`: an executable from compile_native
    as it is, a lowered module (.mlir) under mlir-runner."""
    if not program.endswith(".mlir"):
        return [program]
    return [RUNNER, "-O3", "-e", "main", "-entry-point-result=void",
            "-shared-libs=" + RUNNER_LIBS, program]


def run_program(program, tensor, env, timeout, what, last=2):
    """The last `last` whitespace-separated words `program` prints (an
    executable from compile_native, or a lowered module run by mlir-runner),
    run on `tensor` (TENSOR0; a list: TENSOR0, TENSOR1, ...); exits with
    `what` and the program's stderr on failure."""
    tensors = [tensor] if isinstance(tensor, str) else list(tensor)
    files = {"TENSOR%d" % n: t for n, t in enumerate(tensors)}
    tensor = tensors[0]
    command = program_command(program)
    try:
        p = subprocess.run(command, env=dict(env, **files), capture_output=True,
                           text=True, timeout=timeout)
    except OSError as e:
        sys.exit("%s: cannot run %s: %s" % (what, command[0], e))
    except subprocess.TimeoutExpired:
        sys.exit("%s: the program ran past %s s on %s" % (what, timeout, tensor))
    if p.returncode != 0:
        sys.exit("%s: %s failed on %s:\n%s" % (what, os.path.basename(command[0]), tensor,
                                                p.stderr[-2000:]))
    words = p.stdout.split()
    if len(words) < last:
        sys.exit("%s: the program printed %d values on %s, expected %d" % (
            what, len(words), tensor, last))
    return words[-last:]


def f64_of_bits(bits):
    """The f64 whose bits a program printed as an i64 (vector.print shows
    only 6 digits of an f64)."""
    return struct.unpack("<d", struct.pack("<q", int(bits)))[0]


def agree(a, b, rel=1e-9):
    """Whether two checksums agree to `rel` (relative, at least absolute)."""
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def geomean(values):
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


#: The declarations a timed program calls and the start of its @main, up to
#: %c0 and %c1 (the timing loop's bounds, see timed_calls).
MAIN_START = """func.func private @rtclock() -> f64
func.func private @getTensorFilename(index) -> (!llvm.ptr)
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
"""


#: The timing loop of a program's @main: %calls calls (the first a warm-up,
#: whose result's checksum %s is printed as its bits), the fastest of the
#: others printed last. CALL assigns the result, CHECKSUM computes %s from
#: it, DEALLOC frees it; %c0, %c1 and %calls are defined before.
_TIMED_CALLS = """  %inf = arith.constant 1.0e30 : f64
  // Call 0 is the warm-up (its result checked), the others are timed.
  %best = scf.for %r = %c0 to %calls step %c1 iter_args(%bt = %inf) -> f64 {
    %t0 = func.call @rtclock() : () -> f64
    CALL
    %t1 = func.call @rtclock() : () -> f64
    %dt = arith.subf %t1, %t0 : f64
    %warm = arith.cmpi eq, %r, %c0 : index
    %mn = arith.minimumf %bt, %dt : f64
    %next = arith.select %warm, %bt, %mn : f64
    scf.if %warm {
CHECKSUM
      // The checksum's bits: vector.print shows 6 digits of an f64.
      %bits = arith.bitcast %s : f64 to i64
      vector.print %bits : i64
    }
    DEALLOC
    scf.yield %next : f64
  }
  vector.print %best : f64
"""


def timed_calls(call, checksum, dealloc):
    """The MLIR text of a program's timing loop (see _TIMED_CALLS)."""
    return (_TIMED_CALLS.replace("CALL\n", call.strip() + "\n")
            .replace("CHECKSUM\n", checksum.rstrip("\n") + "\n")
            .replace("DEALLOC\n", dealloc.strip() + "\n"))
