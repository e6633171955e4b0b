"""Tuned sparse kernels as shared libraries: MLIR generation and compilation.

This module knows nothing about PyTorch (sptune.torch is its user). For one
kernel (spmm, sddmm, spmv), one matrix shape, one dense size and one element
type it writes the kernel as a user of an MLIR sparse compiler would (linalg
on a CSR #sparse_tensor, the forms of lib/Target/BenchModule.cpp), adds a
C-interface entry `@sptune_call` that assembles a CSR tensor from caller
buffers, and compiles it with sptune's own pipeline:

  1. tune:   sptune-opt --sptune-extract-kernels --sptune-autotune="matrix=M ..."
             -> the chosen #sptune.schedule (the cost model ranks schedules
             for this matrix; a tuning database is used when sptune-opt has
             one);
  2. lower:  the entry regenerated with the CSR widths of the chosen schedule
             (a schedule storing CSR with 32-bit positions and coordinates
             then takes the caller's buffers as they are, with no conversion
             inside the kernel), the schedule placed on the op, then
             sptune-opt --sptune-extract-kernels --sptune-apply-schedule
             --sptune-lower-cpu=threads=0 (OpenMP threads: runtime default);
  3. mlir-translate --mlir-to-llvmir, then clang -O3 -march=native -shared
     -fPIC, linking libmlir_c_runner_utils and libomp where needed.

`@sptune_call`'s arguments (C interface: pointers to memref descriptors):

  spmm   pos, crd, vals, B (K x N), C (M x N, accumulated into: pass zeros)
  spmv   pos, crd, vals, x (K),     y (M, accumulated into: pass zeros)
  sddmm  pos, crd, vals, A (M x N), B (N x K), out (nnz values of
         X = S .* (A B), in S's CSR order)

pos / crd are i32 or index (i64) as the schedule's widths say (the `widths`
field of the returned metadata).
"""

import hashlib
import json
import os
import re
import subprocess
import tempfile
import time

from sptune import tools

#: Bumped whenever the generated IR or the pipeline changes: part of the key,
#: so stale cached libraries are not reused.
GENERATOR_VERSION = 1

KERNELS = ("spmm", "sddmm", "spmv")

_SCHEDULE = re.compile(r"sptune\.schedule = #sptune\.schedule<([^>]*)>")
_WIDTHS = re.compile(r"widths = \[(\d+), (\d+)\]")
_LEVELS = re.compile(r"levels = \[([^\]]*)\]")
_SPLIT = re.compile(r"split = \[([^\]]*)\]")


class CompileError(RuntimeError):
    """A step of the pipeline failed; the message ends with its stderr."""


def csr_encoding(pos_width=64, crd_width=64):
    """The CSR encoding with the given widths (64 = index, MLIR's default)."""
    extra = ""
    if pos_width != 64:
        extra += f", posWidth = {pos_width}"
    if crd_width != 64:
        extra += f", crdWidth = {crd_width}"
    return ("#sparse_tensor.encoding<{ map = (d0, d1) -> "
            f"(d0 : dense, d1 : compressed){extra} }}>")


def _itype(width):
    return "index" if width == 64 else f"i{width}"


_SPMM = """
  func.func @kernel(%a: !CSR, %b: tensor<$Kx$Nx$ET>, %c: tensor<$Mx$Nx$ET>) -> tensor<$Mx$Nx$ET> {
    %0 = linalg.matmul ins(%a, %b : !CSR, tensor<$Kx$Nx$ET>) outs(%c : tensor<$Mx$Nx$ET>)$SCHED -> tensor<$Mx$Nx$ET>
    return %0 : tensor<$Mx$Nx$ET>
  }
  func.func @sptune_call(%pos: memref<?x$PT>, %crd: memref<?x$CT>, %vals: memref<?x$ET>,
                         %b: memref<$Kx$Nx$ET>, %c: memref<$Mx$Nx$ET>)
      attributes {llvm.emit_c_interface} {$ASSEMBLE
    %tb = bufferization.to_tensor %b restrict : memref<$Kx$Nx$ET> to tensor<$Kx$Nx$ET>
    %tc = bufferization.to_tensor %c restrict writable : memref<$Mx$Nx$ET> to tensor<$Mx$Nx$ET>
    %y = func.call @kernel(%csr, %tb, %tc) : (!CSR, tensor<$Kx$Nx$ET>, tensor<$Mx$Nx$ET>) -> tensor<$Mx$Nx$ET>
    bufferization.materialize_in_destination %y in restrict writable %c : (tensor<$Mx$Nx$ET>, memref<$Mx$Nx$ET>) -> ()
    return
  }
"""

_SPMV = """
  func.func @kernel(%a: !CSR, %x: tensor<$Kx$ET>, %y: tensor<$Mx$ET>) -> tensor<$Mx$ET> {
    %0 = linalg.matvec ins(%a, %x : !CSR, tensor<$Kx$ET>) outs(%y : tensor<$Mx$ET>)$SCHED -> tensor<$Mx$ET>
    return %0 : tensor<$Mx$ET>
  }
  func.func @sptune_call(%pos: memref<?x$PT>, %crd: memref<?x$CT>, %vals: memref<?x$ET>,
                         %x: memref<$Kx$ET>, %y: memref<$Mx$ET>)
      attributes {llvm.emit_c_interface} {$ASSEMBLE
    %tx = bufferization.to_tensor %x restrict : memref<$Kx$ET> to tensor<$Kx$ET>
    %ty = bufferization.to_tensor %y restrict writable : memref<$Mx$ET> to tensor<$Mx$ET>
    %z = func.call @kernel(%csr, %tx, %ty) : (!CSR, tensor<$Kx$ET>, tensor<$Mx$ET>) -> tensor<$Mx$ET>
    bufferization.materialize_in_destination %z in restrict writable %y : (tensor<$Mx$ET>, memref<$Mx$ET>) -> ()
    return
  }
"""

# X = S .* (A B) into a fresh sparse X with S's pattern (kSddmmSparseOutput of
# BenchModule.cpp); its values are copied out with sparse_tensor.disassemble
# and X is freed.
_SDDMM = """
  func.func @kernel(%s: !CSR, %a: tensor<$Mx$Nx$ET>, %b: tensor<$Nx$Kx$ET>) -> !CSR {
    %e = tensor.empty() : !CSR
    %0 = linalg.generic {
        indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>,
                         affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
        iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%s, %a, %b : !CSR, tensor<$Mx$Nx$ET>, tensor<$Nx$Kx$ET>) outs(%e : !CSR)$GSCHED {
    ^bb0(%sv: $ET, %av: $ET, %bv: $ET, %xv: $ET):
      %p = arith.mulf %av, %bv : $ET
      %q = arith.mulf %sv, %p : $ET
      %r = arith.addf %xv, %q : $ET
      linalg.yield %r : $ET
    } -> !CSR
    return %0 : !CSR
  }
  func.func @sptune_call(%pos: memref<?x$PT>, %crd: memref<?x$CT>, %vals: memref<?x$ET>,
                         %a: memref<$Mx$Nx$ET>, %b: memref<$Nx$Kx$ET>, %out: memref<?x$ET>)
      attributes {llvm.emit_c_interface} {$ASSEMBLE
    %ta = bufferization.to_tensor %a restrict : memref<$Mx$Nx$ET> to tensor<$Mx$Nx$ET>
    %tb = bufferization.to_tensor %b restrict : memref<$Nx$Kx$ET> to tensor<$Nx$Kx$ET>
    %x = func.call @kernel(%csr, %ta, %tb) : (!CSR, tensor<$Mx$Nx$ET>, tensor<$Nx$Kx$ET>) -> !CSR
    %np = memref.dim %pos, %c0 : memref<?x$PT>
    %nc = memref.dim %crd, %c0 : memref<?x$CT>
    %op = tensor.empty(%np) : tensor<?x$PT>
    %oc = tensor.empty(%nc) : tensor<?x$CT>
    %ov = bufferization.to_tensor %out restrict writable : memref<?x$ET> to tensor<?x$ET>
    %rp, %rc, %rv, %lp, %lc, %lv = sparse_tensor.disassemble %x : !CSR
        out_lvls(%op, %oc : tensor<?x$PT>, tensor<?x$CT>) out_vals(%ov : tensor<?x$ET>)
        -> (tensor<?x$PT>, tensor<?x$CT>), tensor<?x$ET>, ($PT, $CT), index
    bufferization.materialize_in_destination %rv in restrict writable %out : (tensor<?x$ET>, memref<?x$ET>) -> ()
    bufferization.dealloc_tensor %x : !CSR
    return
  }
"""

_ASSEMBLE = """
    %c0 = arith.constant 0 : index
    %spos = bufferization.to_tensor %pos restrict : memref<?x$PT> to tensor<?x$PT>
    %scrd = bufferization.to_tensor %crd restrict : memref<?x$CT> to tensor<?x$CT>
    %svals = bufferization.to_tensor %vals restrict : memref<?x$ET> to tensor<?x$ET>
    %csr = sparse_tensor.assemble (%spos, %scrd), %svals : (tensor<?x$PT>, tensor<?x$CT>), tensor<?x$ET> to !CSR"""


def kernel_module(kernel, rows, cols, n, dtype, pos_width=64, crd_width=64,
                  schedule=None):
    """The MLIR module of `kernel` on a rows x cols CSR matrix of element type
    dtype ("f32" / "f64"); n = the dense size (SpMM: columns of B and C;
    SDDMM: the inner size of A (rows x n) and B (n x cols); SpMV: ignored).
    With `schedule` (the text inside #sptune.schedule<...>) the op carries
    it, so sptune-autotune leaves it alone and sptune-apply-schedule uses it.
    """
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel '{kernel}' (expected one of {KERNELS})")
    if dtype not in ("f32", "f64"):
        raise ValueError(f"unsupported element type '{dtype}' (f32 or f64)")
    body = {"spmm": _SPMM, "spmv": _SPMV, "sddmm": _SDDMM}[kernel]
    body = body.replace("$ASSEMBLE", _ASSEMBLE)
    sched = (f" {{sptune.schedule = #sptune.schedule<{schedule}>}}"
             if schedule else "")
    # Tokens that contain others ($SCHED has none of the short ones) first;
    # a linalg.generic takes its extra attributes after `attrs =`.
    for key, value in (("$GSCHED", " attrs =" + sched if sched else ""),
                       ("$SCHED", sched), ("$PT", _itype(pos_width)),
                       ("$CT", _itype(crd_width)), ("$ET", dtype),
                       ("$M", str(rows)), ("$K", str(cols)), ("$N", str(n))):
        body = body.replace(key, value)
    header = (f"!CSR = tensor<{rows}x{cols}x{dtype}, "
              f"{csr_encoding(pos_width, crd_width)}>\nmodule {{")
    return header + body + "}\n"


def parse_schedule(text):
    """The first #sptune.schedule<...> body in IR text, or None."""
    m = _SCHEDULE.search(text)
    return m.group(1) if m else None


def schedule_widths(schedule):
    """(position width, coordinate width) of a printed schedule (64 if the
    schedule does not say)."""
    m = _WIDTHS.search(schedule or "")
    return (int(m.group(1)), int(m.group(2))) if m else (64, 64)


def schedule_is_csr(schedule):
    """Whether a printed CPU schedule stores the matrix as unblocked CSR
    (rows dense, columns compressed, in that order)."""
    levels = _LEVELS.search(schedule or "")
    split = _SPLIT.search(schedule or "")
    if not levels:
        return True  # omitted levels = CSR
    parts = [p.strip() for p in levels.group(1).split(",")]
    unsplit = not split or all(
        p.strip() == "1" for p in split.group(1).split(","))
    return unsplit and parts in (["i : dense", "k : compressed"],
                                 ["i : dense", "j : compressed"])


def entry_widths(schedule):
    """The CSR widths of @sptune_call's buffers for a schedule: the
    schedule's own (so CSR storage needs no conversion in the kernel)."""
    return schedule_widths(schedule)


_HELP_CACHE = {}


def autotune_has_option(opt, option):
    """Whether sptune-opt's --sptune-autotune has `option` (e.g. database)."""
    key = (opt, option)
    if key not in _HELP_CACHE:
        try:
            out = subprocess.run([opt, "--help"], capture_output=True,
                                 text=True, timeout=60).stdout
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        section = out.split("--sptune-autotune", 1)
        found = False
        if len(section) == 2:
            # Options of the pass are indented deeper than the next pass.
            for line in section[1].splitlines()[1:]:
                if re.match(r"^\s{6}--", line):
                    break  # the next pass
                if re.match(rf"^\s+--{re.escape(option)}=", line):
                    found = True
                    break
        _HELP_CACHE[key] = found
    return _HELP_CACHE[key]


def _tail(text, n=2000):
    text = text.strip()
    return text if len(text) <= n else "..." + text[-n:]


def _run(cmd, what, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise CompileError(f"sptune: {what} timed out after {timeout} s: "
                           f"{' '.join(cmd)}") from e
    except OSError as e:
        raise CompileError(f"sptune: {what} could not run: {e}") from e
    if p.returncode != 0:
        raise CompileError(
            f"sptune: {what} failed (exit {p.returncode}): {' '.join(cmd)}\n"
            f"{_tail(p.stderr)}")
    return p


def cache_key(kernel, rows, cols, n, dtype, fingerprint, autotune_extra=""):
    """A file-name-safe key of one compiled kernel."""
    desc = json.dumps([GENERATOR_VERSION, kernel, rows, cols, n, dtype,
                       fingerprint, autotune_extra])
    digest = hashlib.blake2b(desc.encode(), digest_size=10).hexdigest()
    nn = f"_n{n}" if kernel != "spmv" else ""
    return f"{kernel}_{dtype}_{rows}x{cols}{nn}_{digest}"


def compile_kernel(kernel, rows, cols, n, dtype, matrix_path, out_dir, key,
                   autotune_extra="", database=None, timeout=600):
    """Tune and compile one kernel into out_dir/<key>.so and its metadata
    out_dir/<key>.json (returned as a dict). Raises CompileError."""
    opt = tools.tool("sptune-opt")
    translate = tools.llvm_tool("mlir-translate")
    clang = tools.llvm_tool("clang")
    libdir = tools.llvm_lib_dir()
    os.makedirs(out_dir, exist_ok=True)
    times = {}
    with tempfile.TemporaryDirectory(prefix=key + ".", dir=out_dir) as tmp:
        # 1. Tune: the kernel on index-width CSR, ranked for the matrix.
        t0 = time.perf_counter()
        src = os.path.join(tmp, "kernel.mlir")
        with open(src, "w") as f:
            f.write(kernel_module(kernel, rows, cols, n, dtype))
        opts = [f"matrix={matrix_path}"]
        if kernel != "spmv":
            opts.append(f"free={n}")
        if database and autotune_has_option(opt, "database"):
            opts.append(f"database={database}")
        if autotune_extra:
            opts.append(autotune_extra)
        tuned = os.path.join(tmp, "tuned.mlir")
        p = _run([opt, src, "--sptune-extract-kernels",
                  "--sptune-autotune=" + " ".join(opts), "-o", tuned],
                 "sptune-opt (tune)", timeout)
        with open(tuned) as f:
            schedule = parse_schedule(f.read())
        if not schedule:
            raise CompileError(f"sptune: the autotuner attached no schedule "
                               f"to the {kernel} kernel\n{_tail(p.stderr)}")
        remark = next((l for l in p.stderr.splitlines()
                       if "sptune-autotune" in l), "")
        times["tune_s"] = time.perf_counter() - t0

        # 2. Lower: the entry on the schedule's CSR widths, the schedule
        # placed on the op.
        t0 = time.perf_counter()
        pw, cw = entry_widths(schedule)
        scheduled = os.path.join(tmp, "scheduled.mlir")
        with open(scheduled, "w") as f:
            f.write(kernel_module(kernel, rows, cols, n, dtype, pw, cw,
                                  schedule))
        lowered = os.path.join(tmp, "lowered.mlir")
        _run([opt, scheduled, "--sptune-extract-kernels",
              "--sptune-apply-schedule", "--sptune-lower-cpu=threads=0",
              "-o", lowered], "sptune-opt (lower)", timeout)
        times["lower_s"] = time.perf_counter() - t0

        # 3. LLVM IR, then a shared library.
        t0 = time.perf_counter()
        ll = os.path.join(tmp, "kernel.ll")
        _run([translate, "--mlir-to-llvmir", lowered, "-o", ll],
             "mlir-translate", timeout)
        so_tmp = os.path.join(tmp, "kernel.so")
        _run([clang, "-O3", "-march=native", "-shared", "-fPIC",
              "-Wno-override-module", ll, "-o", so_tmp, f"-L{libdir}",
              "-Wl,--as-needed", "-lmlir_c_runner_utils", "-lomp",
              f"-Wl,-rpath,{libdir}"], "clang", timeout)
        times["llvm_s"] = time.perf_counter() - t0

        meta = {"key": key, "kernel": kernel, "rows": rows, "cols": cols,
                "n": n, "dtype": dtype, "schedule": schedule,
                "widths": [pw, cw], "csr_schedule": schedule_is_csr(schedule),
                "remark": remark, "generator": GENERATOR_VERSION,
                "times": times}
        # Keep the source next to the library (what was compiled).
        os.replace(scheduled, os.path.join(out_dir, key + ".mlir"))
        # The library first, its metadata last: a reader needs both.
        os.replace(so_tmp, os.path.join(out_dir, key + ".so"))
        meta_tmp = os.path.join(tmp, "meta.json")
        with open(meta_tmp, "w") as f:
            json.dump(meta, f, indent=1)
        os.replace(meta_tmp, os.path.join(out_dir, key + ".json"))
    return meta


def load_metadata(out_dir, key):
    """The metadata of a compiled kernel in out_dir, or None if it has none
    (or its library is missing, or it is from another generator version)."""
    meta_path = os.path.join(out_dir, key + ".json")
    if not os.path.isfile(os.path.join(out_dir, key + ".so")):
        return None
    try:
        with open(meta_path) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return None
    if meta.get("generator") != GENERATOR_VERSION:
        return None
    return meta
