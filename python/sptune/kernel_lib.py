"""Tuned sparse kernels as shared libraries: MLIR generation and compilation.

This module knows nothing about PyTorch (sptune.torch is its user). For one
kernel (spmm, sddmm, sddmm_bt, spmv), one matrix shape, one dense size and
one element type it writes the kernel as a user of an MLIR sparse compiler
would (linalg on #sparse_tensor, the forms of lib/Target/BenchModule.cpp),
adds C-interface entries on caller buffers, and compiles them with sptune's
own pipeline:

  1. tune:   the kernel on CSR through sptune-opt --sptune-extract-kernels
             --sptune-autotune="matrix=M ..." --sptune-apply-schedule: the
             chosen #sptune.schedule and the storage it gives the matrix
             (the cost model ranks schedules for this matrix; a tuning
             database is used when sptune-opt has one);
  2. lower:  the kernel written again on that storage (so the kernel
             converts nothing), the schedule placed on the op, then
             sptune-opt --sptune-extract-kernels --sptune-apply-schedule
             --sptune-lower-cpu=threads=0 (OpenMP threads: runtime default);
             when the storage is not CSR, a second module converts a CSR
             input into it (lowered sequential and not vectorized);
  3. mlir-translate --mlir-to-llvmir, then clang -O3 -march=native -shared
     -fPIC per module (<key>.so, <key>.prepare.so), linking
     libmlir_c_runner_utils and libomp where needed.

Entries (C interface: pointers to memref descriptors). "storage..." is the
position / coordinate buffers of the storage (storage_buffers(), in
sparse_tensor.assemble's order) and its values:

  @sptune_call  spmm      storage..., B (K x N), C (M x N, accumulated
                          into: pass zeros)
                spmv      storage..., x (K), y (M, accumulated into)
                sddmm     storage..., A (M x N), B (N x K), out (the values
                          of X = S .* (A B) in storage order), count (1:
                          how many were written)
                sddmm_bt  the same with B^T (K x N) instead of B
  (prepare)     @sptune_sizes(csr..., lens): the length of each storage
                buffer and of the values; @sptune_convert(csr...,
                storage...): the storage, into caller buffers of those
                lengths; @sptune_coords(storage..., i, j): the coordinates
                of each stored value.

csr... is (positions, coordinates, values) of CSR with the schedule's
index widths (i32 or index, the `widths` field of the metadata).
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
GENERATOR_VERSION = 5

#: sddmm_bt: the SDDMM with B supplied as B^T (cols x n, row-major; a torch
#: B that is the transposed view of a row-major tensor), transposed by a
#: linalg.transpose in the kernel, which sptune-apply-schedule elides when
#: the schedule reads B^T (layout b : k).
KERNELS = ("spmm", "sddmm", "spmv", "sddmm_bt")

_SCHEDULE = re.compile(r"sptune\.schedule = #sptune\.schedule<([^>]*)>")
_WIDTHS = re.compile(r"widths = \[(\d+), (\d+)\]")


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


def _top_split(text):
    """Splits at commas outside parentheses / brackets / braces."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def encoding_levels(encoding):
    """The level types of a #sparse_tensor.encoding text, outermost first
    ("dense", "compressed", "compressed(nonunique)", "singleton")."""
    m = re.search(r"->\s*\(", encoding)
    if not m:
        raise ValueError(f"cannot read the levels of {encoding}")
    depth, i = 1, m.end()
    while depth and i < len(encoding):
        depth += {"(": 1, ")": -1}.get(encoding[i], 0)
        i += 1
    levels = []
    for part in _top_split(encoding[m.end():i - 1]):
        levels.append(part.rsplit(":", 1)[1].strip())
    return levels


def encoding_widths(encoding):
    pw = re.search(r"posWidth = (\d+)", encoding)
    cw = re.search(r"crdWidth = (\d+)", encoding)
    return (int(pw.group(1)) if pw else 64, int(cw.group(1)) if cw else 64)


def storage_buffers(encoding):
    """The position / coordinate buffers of a sparse storage, in the order
    sparse_tensor.assemble takes them: dicts with kind ("pos", "crd", or
    "coo": the array-of-structs coordinates of a trailing COO region, an
    entries x levels 2-D buffer), level, bits (32 / 64) and rank."""
    levels = encoding_levels(encoding)
    pw, cw = encoding_widths(encoding)
    out = []
    lvl = 0
    while lvl < len(levels):
        t = levels[lvl]
        if t == "dense":
            lvl += 1
            continue
        if t.startswith("compressed"):
            out.append({"kind": "pos", "level": lvl, "bits": pw, "rank": 1})
            end = lvl + 1
            while end < len(levels) and levels[end].startswith("singleton"):
                end += 1
            if "nonunique" in t and end == len(levels) and end > lvl + 1:
                out.append({"kind": "coo", "level": lvl, "bits": cw,
                            "rank": 2, "width": end - lvl})
                lvl = end
                continue
            out.append({"kind": "crd", "level": lvl, "bits": cw, "rank": 1})
            lvl += 1
            continue
        raise ValueError(f"sptune: unsupported level type '{t}' in {encoding}")
    return out


def _buf_type(b, memref=True):
    kind = "memref" if memref else "tensor"
    t = _itype(b["bits"])
    if b["rank"] == 2:
        return f"{kind}<?x{b['width']}x{t}>"
    return f"{kind}<?x{t}>"


# The kernels, written on !S (the storage the schedule chose; CSR when the
# schedule stores CSR) with their dense operands. $SCHED: the schedule
# attribute (empty while tuning).
_KERNELS = {
    "spmm": """
  func.func @kernel(%a: !S, %b: tensor<$Kx$Nx$ET>, %c: tensor<$Mx$Nx$ET>) -> tensor<$Mx$Nx$ET> {
    %0 = linalg.matmul ins(%a, %b : !S, tensor<$Kx$Nx$ET>) outs(%c : tensor<$Mx$Nx$ET>)$SCHED -> tensor<$Mx$Nx$ET>
    return %0 : tensor<$Mx$Nx$ET>
  }
""",
    "spmv": """
  func.func @kernel(%a: !S, %x: tensor<$Kx$ET>, %y: tensor<$Mx$ET>) -> tensor<$Mx$ET> {
    %0 = linalg.matvec ins(%a, %x : !S, tensor<$Kx$ET>) outs(%y : tensor<$Mx$ET>)$SCHED -> tensor<$Mx$ET>
    return %0 : tensor<$Mx$ET>
  }
""",
    # X = S .* (A B) into a fresh sparse X with S's pattern (the sparse
    # output form sptune-extract-kernels recognizes as SDDMM).
    "sddmm": """
  func.func @kernel(%s: !S, %a: tensor<$Mx$Nx$ET>, %b: tensor<$Nx$Kx$ET>) -> !S {
    %e = tensor.empty() : !S
    %0 = linalg.generic {
        indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>,
                         affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
        iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%s, %a, %b : !S, tensor<$Mx$Nx$ET>, tensor<$Nx$Kx$ET>) outs(%e : !S)$GSCHED {
    ^bb0(%sv: $ET, %av: $ET, %bv: $ET, %xv: $ET):
      %p = arith.mulf %av, %bv : $ET
      %q = arith.mulf %sv, %p : $ET
      %r = arith.addf %xv, %q : $ET
      linalg.yield %r : $ET
    } -> !S
    return %0 : !S
  }
""",
}

_KERNELS["sddmm_bt"] = _KERNELS["sddmm"].replace(
    "%b: tensor<$Nx$Kx$ET>) -> !S {\n    %e = tensor.empty() : !S\n",
    "%bt: tensor<$Kx$Nx$ET>) -> !S {\n    %e = tensor.empty() : !S\n"
    "    %be = tensor.empty() : tensor<$Nx$Kx$ET>\n"
    "    %b = linalg.transpose ins(%bt : tensor<$Kx$Nx$ET>) outs(%be : tensor<$Nx$Kx$ET>) "
    "permutation = [1, 0]\n")

# The dense operands of @sptune_call after the storage, and the body after
# the assembly of %s.
_CALLS = {
    "spmm": ("%b: memref<$Kx$Nx$ET>, %c: memref<$Mx$Nx$ET>", """
    %tb = bufferization.to_tensor %b restrict : memref<$Kx$Nx$ET> to tensor<$Kx$Nx$ET>
    %tc = bufferization.to_tensor %c restrict writable : memref<$Mx$Nx$ET> to tensor<$Mx$Nx$ET>
    %y = func.call @kernel(%s, %tb, %tc) : (!S, tensor<$Kx$Nx$ET>, tensor<$Mx$Nx$ET>) -> tensor<$Mx$Nx$ET>
    bufferization.materialize_in_destination %y in restrict writable %c : (tensor<$Mx$Nx$ET>, memref<$Mx$Nx$ET>) -> ()
"""),
    "spmv": ("%x: memref<$Kx$ET>, %y: memref<$Mx$ET>", """
    %tx = bufferization.to_tensor %x restrict : memref<$Kx$ET> to tensor<$Kx$ET>
    %ty = bufferization.to_tensor %y restrict writable : memref<$Mx$ET> to tensor<$Mx$ET>
    %z = func.call @kernel(%s, %tx, %ty) : (!S, tensor<$Kx$ET>, tensor<$Mx$ET>) -> tensor<$Mx$ET>
    bufferization.materialize_in_destination %z in restrict writable %y : (tensor<$Mx$ET>, memref<$Mx$ET>) -> ()
"""),
    # X's values (in S's storage order: X has S's storage) are copied out
    # with sparse_tensor.disassemble into %out, their count into %count;
    # X is freed.
    "sddmm": ("%a: memref<$Mx$Nx$ET>, %b: memref<$Nx$Kx$ET>, %out: memref<?x$ET>, "
              "%count: memref<1xindex>", """
    %ta = bufferization.to_tensor %a restrict : memref<$Mx$Nx$ET> to tensor<$Mx$Nx$ET>
    %tb = bufferization.to_tensor %b restrict : memref<$Nx$Kx$ET> to tensor<$Nx$Kx$ET>
    %x = func.call @kernel(%s, %ta, %tb) : (!S, tensor<$Mx$Nx$ET>, tensor<$Nx$Kx$ET>) -> !S
$SCRATCH    %ov = bufferization.to_tensor %out restrict writable : memref<?x$ET> to tensor<?x$ET>
    $DISASSEMBLE
    bufferization.materialize_in_destination %rv in restrict writable %out : (tensor<?x$ET>, memref<?x$ET>) -> ()
    memref.store %lv, %count[%c0] : memref<1xindex>
    bufferization.dealloc_tensor %x : !S
"""),
}


_CALLS["sddmm_bt"] = tuple(
    t.replace("$Nx$Kx$ET>, %out", "$Kx$Nx$ET>, %out")
     .replace("%b restrict : memref<$Nx$Kx$ET> to tensor<$Nx$Kx$ET>",
              "%b restrict : memref<$Kx$Nx$ET> to tensor<$Kx$Nx$ET>")
     .replace("(!S, tensor<$Mx$Nx$ET>, tensor<$Nx$Kx$ET>) -> !S",
              "(!S, tensor<$Mx$Nx$ET>, tensor<$Kx$Nx$ET>) -> !S")
    for t in _CALLS["sddmm"])


def _assemble(bufs, prefix, result, type_name):
    """IR that assembles tensor `result` of type `type_name` from memrefs
    %<prefix><i> (storage buffers) and %<prefix>v (values)."""
    lines = []
    names = []
    for i, b in enumerate(bufs):
        lines.append(f"    %{prefix}t{i} = bufferization.to_tensor %{prefix}{i} restrict : "
                     f"{_buf_type(b)} to {_buf_type(b, False)}")
        names.append(f"%{prefix}t{i}")
    lines.append(f"    %{prefix}tv = bufferization.to_tensor %{prefix}v restrict : "
                 f"memref<?x$ET> to tensor<?x$ET>")
    types = ", ".join(_buf_type(b, False) for b in bufs)
    if not bufs:
        # All levels dense: no level buffers, and the custom syntax cannot
        # print an empty level list (`: (), ...` parses as a function
        # type), so the op is written in the generic form.
        lines.append(f'    %{result} = "sparse_tensor.assemble"(%{prefix}tv) : '
                     f"(tensor<?x$ET>) -> {type_name}")
        return "\n".join(lines) + "\n"
    lines.append(f"    %{result} = sparse_tensor.assemble ({', '.join(names)}), "
                 f"%{prefix}tv : ({types}), tensor<?x$ET> to {type_name}")
    return "\n".join(lines) + "\n"


def _params(bufs, prefix):
    ps = [f"%{prefix}{i}: {_buf_type(b)}" for i, b in enumerate(bufs)]
    ps.append(f"%{prefix}v: memref<?x$ET>")
    return ", ".join(ps)


def _disassemble(bufs, src, type_name, outs, out_vals, res, res_vals):
    """`res..., res_vals, lens..., %lv = sparse_tensor.disassemble src` into
    the tensors `outs` / `out_vals`."""
    if not bufs:  # all levels dense: the generic form, as in _assemble
        return (f'%{res_vals}, %lv = "sparse_tensor.disassemble"(%{src}, {out_vals}) : '
                f"({type_name}, tensor<?x$ET>) -> (tensor<?x$ET>, index)")
    types = ", ".join(_buf_type(b, False) for b in bufs)
    lens = ", ".join(_itype(b["bits"]) for b in bufs)
    rl = "".join(f"%{res}{i}, " for i in range(len(bufs)))
    ll = "".join(f"%{res}l{i}, " for i in range(len(bufs)))
    return (f"{rl}%{res_vals}, {ll}%lv = sparse_tensor.disassemble %{src} : {type_name}\n"
            f"        out_lvls({', '.join(outs)} : {types}) out_vals({out_vals} : tensor<?x$ET>)\n"
            f"        -> ({types}), tensor<?x$ET>, ({lens}), index")


def _empty_like(bufs, src_prefix, dst_prefix):
    """tensor.empty scratch buffers shaped like memrefs %<src_prefix><i>."""
    lines = []
    for i, b in enumerate(bufs):
        lines.append(f"    %{dst_prefix}n{i} = memref.dim %{src_prefix}{i}, %c0 : {_buf_type(b)}")
        lines.append(f"    %{dst_prefix}{i} = tensor.empty(%{dst_prefix}n{i}) : {_buf_type(b, False)}")
    return "\n".join(lines) + "\n"


def _prepare_funcs(csr_bufs, bufs):
    """@sptune_sizes, @sptune_convert and @sptune_coords: convert the CSR
    input to the scheduled storage once, so calls skip the conversion.

    sptune_sizes(csr..., lens: memref<?xindex>): the length of each storage
        buffer (a COO buffer: entries x levels elements) and of the values;
    sptune_convert(csr..., storage..., values): the storage, written into
        caller buffers of those lengths;
    sptune_coords(storage..., values, i, j): the row and column of every
        stored value, in storage order (to map an SDDMM's values to CSR)."""
    sizes = ["    %sc = sparse_tensor.convert %csr : !CSR to !S"]
    for i, b in enumerate(bufs):
        if b["kind"] == "pos":
            op = f"sparse_tensor.positions %sc {{level = {b['level']} : index}}"
        elif b["kind"] == "crd":
            op = f"sparse_tensor.coordinates %sc {{level = {b['level']} : index}}"
        else:
            op = "sparse_tensor.coordinates_buffer %sc"
        t = f"memref<?x{_itype(b['bits'])}>"
        sizes += [f"    %m{i} = {op} : !S to {t}",
                  f"    %n{i} = memref.dim %m{i}, %c0 : {t}",
                  f"    %k{i} = arith.constant {i} : index",
                  f"    memref.store %n{i}, %lens[%k{i}] : memref<?xindex>"]
    sizes += ["    %mv = sparse_tensor.values %sc : !S to memref<?x$ET>",
              "    %nv = memref.dim %mv, %c0 : memref<?x$ET>",
              f"    %kv = arith.constant {len(bufs)} : index",
              "    memref.store %nv, %lens[%kv] : memref<?xindex>",
              "    bufferization.dealloc_tensor %sc : !S"]
    conv = ["    %sc = sparse_tensor.convert %csr : !CSR to !S"]
    outs = []
    for i, b in enumerate(bufs):
        conv.append(f"    %ot{i} = bufferization.to_tensor %o{i} restrict writable : "
                    f"{_buf_type(b)} to {_buf_type(b, False)}")
        outs.append(f"%ot{i}")
    conv.append("    %otv = bufferization.to_tensor %ov restrict writable : "
                "memref<?x$ET> to tensor<?x$ET>")
    conv.append("    " + _disassemble(bufs, "sc", "!S", outs, "%otv", "r", "rv"))
    for i, b in enumerate(bufs):
        conv.append(f"    bufferization.materialize_in_destination %r{i} in restrict writable "
                    f"%o{i} : ({_buf_type(b, False)}, {_buf_type(b)}) -> ()")
    conv.append("    bufferization.materialize_in_destination %rv in restrict writable "
                "%ov : (tensor<?x$ET>, memref<?x$ET>) -> ()")
    conv.append("    bufferization.dealloc_tensor %sc : !S")
    head = "    %c0 = arith.constant 0 : index\n"
    csr_params = _params(csr_bufs, "p")
    text = f"""
  func.func @sptune_sizes({csr_params}, %lens: memref<?xindex>)
      attributes {{llvm.emit_c_interface}} {{
{head}{_assemble(csr_bufs, "p", "csr", "!CSR")}{chr(10).join(sizes)}
    return
  }}
  func.func @sptune_convert({csr_params}, {_params(bufs, "o")})
      attributes {{llvm.emit_c_interface}} {{
{head}{_assemble(csr_bufs, "p", "csr", "!CSR")}{chr(10).join(conv)}
    return
  }}
  func.func @sptune_coords({_params(bufs, "b")}, %ci: memref<?xindex>, %cj: memref<?xindex>)
      attributes {{llvm.emit_c_interface}} {{
{head}    %c1 = arith.constant 1 : index
{_assemble(bufs, "b", "s", "!S")}    %cnt = sparse_tensor.foreach in %s init(%c0) : !S, index -> index do {{
      ^bb0(%i: index, %j: index, %v: $ET, %k: index):
        memref.store %i, %ci[%k] : memref<?xindex>
        memref.store %j, %cj[%k] : memref<?xindex>
        %k1 = arith.addi %k, %c1 : index
        sparse_tensor.yield %k1 : index
    }}
    return
  }}
"""
    return text


def kernel_module(kernel, rows, cols, n, dtype, pos_width=64, crd_width=64,
                  schedule=None, storage=None, part="kernel"):
    """The MLIR module of `kernel` on a rows x cols sparse matrix of element
    type dtype ("f32" / "f64"); n = the dense size (SpMM: columns of B and
    C; SDDMM: the inner size of A (rows x n) and B (n x cols); SpMV:
    ignored). The kernel is written on `storage` (a #sparse_tensor.encoding
    text; default: CSR with the given widths) and @sptune_call assembles it
    from caller buffers. With `schedule` (the text inside
    #sptune.schedule<...>) the op carries it, so sptune-autotune leaves it
    alone and sptune-apply-schedule uses it.

    part="prepare" gives instead the module of @sptune_sizes /
    @sptune_convert / @sptune_coords, which convert a CSR input into the
    storage once (compiled apart, sequential and without the schedule's
    vectorization: with vl > 0, the sparsifier of MLIR 22 drops the stores
    in a sparse_tensor.foreach over COO storage).
    """
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel '{kernel}' (expected one of {KERNELS})")
    if dtype not in ("f32", "f64", "f16", "bf16"):
        raise ValueError(f"unsupported element type '{dtype}' "
                         f"(f32, f64, f16 or bf16)")
    csr = csr_encoding(pos_width, crd_width)
    storage = storage or csr
    csr_bufs = storage_buffers(csr)
    bufs = storage_buffers(storage)
    dense_params, call_body = _CALLS[kernel]
    if part == "prepare":
        body = _prepare_funcs(csr_bufs, bufs)
    elif kernel.startswith("sddmm"):
        outs = [f"%x{i}" for i in range(len(bufs))]
        call_body = call_body.replace("$SCRATCH", _empty_like(bufs, "b", "x")).replace(
            "$DISASSEMBLE", _disassemble(bufs, "x", "!S", outs, "%ov", "rx", "rv"))
    if part != "prepare":
        body = _KERNELS[kernel] + f"""
  func.func @sptune_call({_params(bufs, "b")}, {dense_params})
      attributes {{llvm.emit_c_interface}} {{
    %c0 = arith.constant 0 : index
{_assemble(bufs, "b", "s", "!S")}{call_body}    return
  }}
"""
    sched = (f" {{sptune.schedule = #sptune.schedule<{schedule}>}}"
             if schedule else "")
    # A linalg.generic takes its extra attributes after `attrs =`.
    for key, value in (("$GSCHED", " attrs =" + sched if sched else ""),
                       ("$SCHED", sched), ("$ET", dtype),
                       ("$M", str(rows)), ("$K", str(cols)), ("$N", str(n))):
        body = body.replace(key, value)
    header = (f"!CSR = tensor<{rows}x{cols}x{dtype}, {csr}>\n"
              f"!S = tensor<{rows}x{cols}x{dtype}, {storage}>\nmodule {{")
    return header + body + "}\n"


def parse_schedule(text):
    """The first #sptune.schedule<...> body in IR text, or None."""
    m = _SCHEDULE.search(text)
    return m.group(1) if m else None


def parse_schedules(text):
    """Every #sptune.schedule<...> body in IR text, in order."""
    return _SCHEDULE.findall(text)


def schedule_widths(schedule):
    """(position width, coordinate width) of a printed schedule (64 if the
    schedule does not say)."""
    m = _WIDTHS.search(schedule or "")
    return (int(m.group(1)), int(m.group(2))) if m else (64, 64)


_ALIAS = re.compile(r"^(#\w+) = (#sparse_tensor\.encoding<\{.*\}>)\s*$", re.M)
_CONVERT = re.compile(r"sparse_tensor\.convert %arg0 : tensor<[^,]*, (#\w+)> to "
                      r"tensor<[^,]*, (#\w+)>")


def scheduled_storage(applied_ir):
    """The encoding sptune-apply-schedule gave the kernel's sparse operand
    (the target of the conversion of @kernel's first argument), or None
    when it kept the input's."""
    m = _CONVERT.search(applied_ir)
    if not m:
        return None
    aliases = dict(_ALIAS.findall(applied_ir))
    return aliases.get(m.group(2))


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


_BUILTINS_FLAGS = None


def _builtins_flags():
    """tools.clang_builtins_flags(), asked of clang once per process."""
    global _BUILTINS_FLAGS
    if _BUILTINS_FLAGS is None:
        _BUILTINS_FLAGS = tools.clang_builtins_flags()
    return _BUILTINS_FLAGS


def cache_key(kernel, rows, cols, n, dtype, fingerprint, autotune_extra=""):
    """A file-name-safe key of one compiled kernel."""
    # Whether clang's builtins are linked is part of what is built: a bf16
    # library built without them does not load on some CPUs.
    desc = json.dumps([GENERATOR_VERSION, kernel, rows, cols, n, dtype,
                       fingerprint, autotune_extra, _builtins_flags()])
    digest = hashlib.blake2b(desc.encode(), digest_size=10).hexdigest()
    nn = f"_n{n}" if kernel != "spmv" else ""
    return f"{kernel}_{dtype}_{rows}x{cols}{nn}_{digest}"


def compile_kernel(kernel, rows, cols, n, dtype, matrix_path, out_dir, key,
                   autotune_extra="", database=None, schedule=None,
                   timeout=600, multiversion=0):
    """Tune and compile one kernel into out_dir/<key>.so and its metadata
    out_dir/<key>.json (returned as a dict). With `schedule` (a printed
    #sptune.schedule body) that schedule is used instead of tuning. Raises
    CompileError.

    The metadata says how to call the library: `widths` of the CSR input,
    `storage` (the scheduled encoding) and its `buffers` (storage_buffers),
    and `prepare`: whether the CSR input must first be converted into that
    storage with @sptune_sizes / @sptune_convert (else @sptune_call takes
    the CSR buffers themselves).

    With `multiversion` = K > 0 (and no `schedule`; `matrix_path` is then
    unused) the kernel is compiled without a matrix: up to K variants on the
    CSR input and a dispatcher that picks one per call from the matrix it
    is given (sptune-autotune multiversion=K, docs/multiversion.md); the
    metadata's `schedule` is then "multiversion: RULE" and `variants` lists
    the variants' schedules. One library serves every pattern of the shape
    (MLIR's sparse_tensor.assemble needs a static shape)."""
    opt = tools.tool("sptune-opt")
    os.makedirs(out_dir, exist_ok=True)
    times = {}
    remark = ""
    with tempfile.TemporaryDirectory(prefix=key + ".", dir=out_dir) as tmp:
        # 1. Tune: the kernel on index-width CSR, ranked for the matrix;
        # applying the schedule shows the storage it chose.
        t0 = time.perf_counter()
        src = os.path.join(tmp, "kernel.mlir")
        with open(src, "w") as f:
            f.write(kernel_module(kernel, rows, cols, n, dtype,
                                  schedule=schedule))
        if multiversion and not schedule:
            lowered, fields = _lower_multiversioned(kernel, src, tmp, autotune_extra,
                                                    multiversion, timeout, times)
            meta = {"key": key, "kernel": kernel, "rows": rows, "cols": cols, "n": n,
                    "dtype": dtype, **fields, "generator": GENERATOR_VERSION,
                    "times": times}
            return _build_libraries(meta, [(src, lowered)], out_dir, tmp, timeout)
        if schedule:
            tune = []
        else:
            # N is static in the module (kernel_module), so the pass reads
            # it from the op: `free=` (the size assumed for a dynamic N,
            # at most 65536) would refuse N = 100000 (issue 35).
            opts = [f"matrix={matrix_path}"]
            if database and autotune_has_option(opt, "database"):
                opts.append(f"database={database}")
            if autotune_extra:
                opts.append(autotune_extra)
            tune = ["--sptune-autotune=" + " ".join(opts)]
        applied = os.path.join(tmp, "applied.mlir")
        p = _run([opt, src, "--sptune-extract-kernels", *tune,
                  "--sptune-apply-schedule", "-o", applied],
                 "sptune-opt (tune)", timeout)
        with open(applied) as f:
            applied_ir = f.read()
        schedule = schedule or parse_schedule(applied_ir)
        if not schedule:
            raise CompileError(f"sptune: the autotuner attached no schedule "
                               f"to the {kernel} kernel\n{_tail(p.stderr)}")
        remark = next((l for l in p.stderr.splitlines()
                       if "sptune-autotune" in l), "")
        times["tune_s"] = time.perf_counter() - t0

        # 2. Lower: the kernel written on the scheduled storage (no
        # conversion inside it), its input CSR on the schedule's widths,
        # the schedule placed on the op.
        t0 = time.perf_counter()
        pw, cw = schedule_widths(schedule)
        storage = scheduled_storage(applied_ir)
        csr = csr_encoding(pw, cw)
        if storage is None or (_is_identity_csr(storage) and
                               encoding_widths(storage) == (pw, cw)):
            storage = csr
        scheduled = os.path.join(tmp, "scheduled.mlir")
        with open(scheduled, "w") as f:
            f.write(kernel_module(kernel, rows, cols, n, dtype, pw, cw,
                                  schedule, storage))
        lowered = os.path.join(tmp, "lowered.mlir")
        _run([opt, scheduled, "--sptune-extract-kernels",
              "--sptune-apply-schedule", "--sptune-lower-cpu=threads=0",
              "-o", lowered], "sptune-opt (lower)", timeout)
        sources = [(scheduled, lowered)]
        prepare = storage != csr
        if prepare:
            # The one-time conversion, sequential and not vectorized.
            psrc = os.path.join(tmp, "prepare.mlir")
            with open(psrc, "w") as f:
                f.write(kernel_module(kernel, rows, cols, n, dtype, pw, cw,
                                      None, storage, part="prepare"))
            plow = os.path.join(tmp, "prepare-lowered.mlir")
            _run([opt, psrc, "--sptune-lower-cpu=threads=0 vl=0 "
                  "parallelization=none simd32=false", "-o", plow],
                 "sptune-opt (lower the conversion)", timeout)
            sources.append((psrc, plow))
        times["lower_s"] = time.perf_counter() - t0

        meta = {"key": key, "kernel": kernel, "rows": rows, "cols": cols,
                "n": n, "dtype": dtype, "schedule": schedule,
                "widths": [pw, cw], "storage": storage,
                "buffers": storage_buffers(storage),
                "prepare": prepare,
                "remark": remark, "generator": GENERATOR_VERSION,
                "times": times}
        return _build_libraries(meta, sources, out_dir, tmp, timeout)


def _lower_multiversioned(kernel, src, tmp, autotune_extra, variants, timeout, times):
    """compile_kernel's multi-versioned kernel: `src` tuned without a matrix
    into variants and a dispatcher, all on the CSR input (the variants keep
    the operand's storage), then lowered as it is. Returns the lowered
    module's path and the metadata fields that describe it."""
    opt = tools.tool("sptune-opt")
    t0 = time.perf_counter()
    opts = [f"multiversion={variants}"] + ([autotune_extra] if autotune_extra else [])
    applied = os.path.join(tmp, "applied.mlir")
    p = _run([opt, src, "--sptune-extract-kernels", "--sptune-autotune=" + " ".join(opts),
              "--sptune-apply-schedule", "-o", applied], "sptune-opt (multiversion)", timeout)
    remark = next((l for l in p.stderr.splitlines() if "no matrix for this kernel: " in l), "")
    with open(applied) as f:
        applied_ir = f.read()
    rule = re.search(r'sptune\.dispatch = "([^"]*)"', applied_ir)
    if not rule:
        raise CompileError(f"sptune: the {kernel} kernel was not multi-versioned\n"
                           f"{_tail(p.stderr)}")
    times["tune_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    lowered = os.path.join(tmp, "lowered.mlir")
    _run([opt, applied, "--sptune-lower-cpu=threads=0", "-o", lowered],
         "sptune-opt (lower)", timeout)
    times["lower_s"] = time.perf_counter() - t0
    storage = csr_encoding()
    return lowered, {"schedule": "multiversion: " + rule.group(1),
                     "variants": parse_schedules(applied_ir),
                     "widths": list(encoding_widths(storage)), "storage": storage,
                     "buffers": storage_buffers(storage), "prepare": False, "remark": remark}


def _build_libraries(meta, sources, out_dir, tmp, timeout):
    """LLVM IR, then shared libraries: <key>.so, and the conversion in
    <key>.prepare.so when `sources` has a second module (the sparsifier's
    helper functions are external symbols: two modules do not link into one
    library); then the sources and the metadata into the cache."""
    translate = tools.llvm_tool("mlir-translate")
    clang = tools.llvm_tool("clang")
    libdir = tools.llvm_lib_dir()
    key = meta["key"]
    times = meta["times"]
    prepare = meta["prepare"]
    t0 = time.perf_counter()
    libs = []
    for i, (_, low) in enumerate(sources):
        ll = os.path.join(tmp, f"part{i}.ll")
        _run([translate, "--mlir-to-llvmir", low, "-o", ll],
             "mlir-translate", timeout)
        so = os.path.join(tmp, f"part{i}.so")
        _run([clang, "-O3", "-march=native", "-shared", "-fPIC",
              "-Wno-override-module", ll, "-o", so, f"-L{libdir}",
              "-Wl,--as-needed", "-lmlir_c_runner_utils", "-lomp",
              f"-Wl,-rpath,{libdir}"] + _builtins_flags(),
             "clang", timeout)
        libs.append(so)
    times["llvm_s"] = time.perf_counter() - t0

    # Keep the sources next to the library (what was compiled).
    with open(os.path.join(tmp, "sources.mlir"), "w") as f:
        for src_path, _ in sources:
            with open(src_path) as g:
                f.write(g.read())
    os.replace(os.path.join(tmp, "sources.mlir"),
               os.path.join(out_dir, key + ".mlir"))
    # The libraries first, the metadata last: a reader needs all. The
    # metadata carries the libraries' digests and its own, checked
    # before a library is loaded (load_metadata).
    meta["libraries"] = {".so": _file_digest(libs[0])}
    if prepare:
        meta["libraries"][".prepare.so"] = _file_digest(libs[1])
    meta["digest"] = _meta_digest(meta)
    for suffix in meta["libraries"]:
        _check_replaceable(os.path.join(out_dir, key + suffix))
    if prepare:
        os.replace(libs[1], os.path.join(out_dir, key + ".prepare.so"))
    os.replace(libs[0], os.path.join(out_dir, key + ".so"))
    meta_tmp = os.path.join(tmp, "meta.json")
    with open(meta_tmp, "w") as f:
        json.dump(meta, f, indent=1)
    os.replace(meta_tmp, os.path.join(out_dir, key + ".json"))
    return meta


def _is_identity_csr(encoding):
    """Whether an encoding is CSR: (d0, d1) -> (d0 : dense, d1 : compressed)."""
    return re.search(r"\(d0, d1\) -> \(d0 : dense, d1 : compressed\)",
                     encoding) is not None


def _file_digest(path):
    """SHA-256 of a file's bytes (hex)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _meta_digest(meta):
    """SHA-256 of the metadata without its own digest, canonically."""
    body = {k: v for k, v in meta.items() if k != "digest"}
    return hashlib.sha256(
        json.dumps(body, sort_keys=True).encode()).hexdigest()


def _check_replaceable(path):
    """A cache file about to be written must be a regular file or absent:
    a directory or a device in its place is the user's to remove."""
    if os.path.lexists(path) and not os.path.isfile(path):
        raise CompileError(f"sptune: cannot write the cache entry '{path}': "
                           f"something that is not a regular file is in "
                           f"its place; remove it")


def load_metadata(out_dir, key):
    """The metadata of a compiled kernel in out_dir, or None when there is no
    usable entry, which is then rebuilt: no metadata or library, another
    generator version, or an entry whose metadata was edited or whose
    library differs from what was compiled (truncated, replaced by another
    kernel's or by garbage: loading it crashed the process with SIGBUS or
    SIGSEGV, or ran with edited index widths and gave wrong results)."""
    meta_path = os.path.join(out_dir, key + ".json")
    if not os.path.isfile(os.path.join(out_dir, key + ".so")):
        return None
    try:
        with open(meta_path) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("generator") != GENERATOR_VERSION:
        return None
    if meta.get("digest") != _meta_digest(meta):
        return None
    libraries = meta.get("libraries")
    expected = {".so"} | ({".prepare.so"} if meta.get("prepare") else set())
    if not isinstance(libraries, dict) or set(libraries) != expected:
        return None
    for suffix, digest in libraries.items():
        path = os.path.join(out_dir, key + suffix)
        try:
            if not os.path.isfile(path) or _file_digest(path) != digest:
                return None
        except OSError:
            return None
    return meta
