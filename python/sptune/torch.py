"""PyTorch entry: SpMM, SDDMM and SpMV on torch CSR tensors, tuned by sptune.

    import torch, sptune.torch
    A = some_matrix.to_sparse_csr()            # torch.sparse_csr, f32 or f64
    C = sptune.torch.spmm(A, B)                # dense A @ B
    y = sptune.torch.spmv(A, x)                # dense A @ x
    X = sptune.torch.sddmm(S, P, Q)            # CSR: S .* (P @ Q) on S's pattern

Semantics
  spmm(A, B)   A: M x K CSR, B: K x N dense      -> M x N dense, A @ B
  spmv(A, x)   A: M x K CSR, x: K dense          -> M dense, A @ x
  sddmm(S, A, B)  S: M x K CSR, A: M x N, B: N x K dense
               -> M x K CSR with S's pattern (same crow / col tensors) and
                  values X_ij = S_ij * sum_n A_in B_nj, i.e.
                  torch.sparse.sampled_addmm(S, A, B, beta=0, alpha=1)
                  multiplied elementwise by S's values (sptune's SDDMM
                  kernel X = S .* (A B)); an entry stored in S with value 0
                  stays stored, with value 0.
  The sparse and dense operands must be CPU tensors of the same dtype
  (float32, float64, float16 or bfloat16; 16-bit kernels accumulate in
  their type); crow / col indices int64 or int32.

Autograd (docs/torch.md)
  The three are differentiable in their dense operands and in the sparse
  operand's values (a CSR tensor with requires_grad, or a CSR result of
  sddmm); the gradients are sptune kernels too (G: the result's gradient):
    spmm   dB = A^T @ G (SpMM on A^T), dA = (G @ B^T) on A's pattern (SDDMM)
    spmv   dx = A^T @ g (SpMV on A^T), dA_ik = g_i x_k on A's pattern
    sddmm  with W = S .* G on S's pattern: dA = W @ B^T (SpMM on W),
           dB = (W^T @ A)^T (SpMM on W^T), dS = G .* (A @ B) (SDDMM)
  A sparse operand's gradient is a CSR tensor with its pattern (sharing its
  crow / col tensors), as torch.sparse.mm gives; only the gradients autograd
  asks for are computed. A^T is built once per pattern (indices, its own
  fingerprint, and the permutation that carries A's current values into
  it). Without an input that requires grad, or under torch.no_grad(), no
  autograd.Function is involved. PyTorch 1.13 without MKL cannot add two
  CSR tensors, so a CSR gradient cannot accumulate: a sparse operand used
  twice in one graph, or a second backward() into the same CSR leaf without
  resetting .grad, fails in PyTorch ("Calling add on a sparse CPU tensor
  requires compiling PyTorch with MKL"). The entries are also the operators
  torch.ops.sptune.spmm / spmv / sddmm (torch.library): torch.jit.trace
  records them, torch.jit.script compiles calls of these functions into
  them (load saved programs after `import sptune.torch`).

Tuning and caching (docs/torch.md)
  The first call for a (kernel, dtype, shape, dense size, pattern) writes
  the pattern as a Matrix Market file into the cache directory
  ($SPTUNE_CACHE, default ~/.cache/sptune), generates the kernel in MLIR
  (linalg on #sparse_tensor, with a C entry @sptune_call on the storage
  buffers; sptune.kernel_lib) and compiles it with sptune's own pipeline:
  sptune-opt --sptune-extract-kernels --sptune-autotune (the learned cost
  model picks storage format, loop order, dense layouts, parallelism, vector
  length and index widths for this matrix; sptune-opt's tuning database
  <cache>/tuning.jsonl is used when the tool has one),
  --sptune-apply-schedule, --sptune-lower-cpu, then mlir-translate and
  clang -O3 -march=native into <cache>/<key>.so (a few seconds). Later
  calls and later processes reuse the library (loaded once per process).
  The pattern fingerprint is a BLAKE2b hash of the shape, crow and col
  indices, computed once per tensor object and again only when the
  tensor's version counter moves (any in-place change, values included:
  torch shares one counter between a CSR tensor's indices and values).
  Writes that bypass the version counter (.data, numpy views) are not
  seen. SPTUNE_AUTOTUNE adds options to --sptune-autotune (e.g.
  "mode=heuristic" or "measure-top-k=3"); they are part of the key.
  SPTUNE_TORCH_MULTIVERSION=K compiles instead one kernel per (kernel,
  dtype, shape, dense size) without a pattern: up to K variants on the CSR
  input and a dispatcher that picks one per call from the matrix
  (docs/multiversion.md), so a new pattern of a known shape compiles
  nothing.
  stats() counts compiles, cache hits and conversions; clear_memory_cache()
  forgets loaded libraries and fingerprints (the disk cache stays);
  kernel_info() tells what was chosen.

Memory
  No copies where the layout allows: the kernel reads the tensors' own
  buffers (memref descriptors built with ctypes over data_ptr()) and writes
  a torch-allocated output. The schedule fixes the index width of the CSR
  buffers (32 or 64 bit): crow / col of another dtype are converted once
  per tensor version (int32 <-> int64; the copy is kept while the tensor
  lives). When the schedule stores the matrix in another format (BSR,
  DCSR, CSC, COO, ...), the library converts it into that storage once per
  tensor version, and calls run on the converted buffers (an SDDMM's values
  are gathered back into CSR order: one index_select per call). Dense
  operands are used in place when row-major contiguous, else made
  contiguous (one copy), except SDDMM's B, which may also be the transposed
  view of a row-major tensor (B = H.t()) and is then read as stored.

Threads
  Parallel schedules run with OpenMP (LLVM's libomp) at its runtime default
  thread count: set OMP_NUM_THREADS before the first call to change it.
  PyTorch's own thread pool (torch.set_num_threads) is separate.
"""

import ctypes
import hashlib
import os
import threading
import weakref

import numpy as np
import torch
from torch.autograd.function import once_differentiable

from sptune import kernel_lib

__all__ = ["spmm", "sddmm", "spmv", "stats", "clear_memory_cache",
           "cache_dir", "kernel_info"]

_DTYPES = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
           torch.bfloat16: "bf16"}
_INDEX_DTYPES = (torch.int32, torch.int64)

_lock = threading.RLock()
_stats = {"compiles": 0, "disk_hits": 0, "memory_hits": 0, "hashes": 0,
          "index_conversions": 0, "conversions": 0}
_libs = {}       # cache key, or (kernel, fingerprint, sizes...) -> _Kernel
_matrices = {}   # id(csr tensor) -> _MatrixInfo
#: Testing hook: kernel name -> a printed #sptune.schedule body to compile
#: instead of tuning (part of the cache key).
_force_schedule = {}


def cache_dir():
    """The cache directory: $SPTUNE_CACHE, else ~/.cache/sptune."""
    return os.environ.get("SPTUNE_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "sptune")


def _usable_cache_dir():
    """cache_dir(), created if needed; a RuntimeError that names it when it
    is not a writable directory (a plain file, /dev/null, no permission)."""
    out = cache_dir()
    if os.path.exists(out) and not os.path.isdir(out):
        raise RuntimeError(f"sptune.torch: the cache directory '{out}' "
                           f"($SPTUNE_CACHE) is not a directory")
    try:
        os.makedirs(os.path.join(out, "matrices"), exist_ok=True)
    except OSError as e:
        raise RuntimeError(f"sptune.torch: cannot create the cache directory "
                           f"'{out}' ($SPTUNE_CACHE): {e.strerror}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise RuntimeError(f"sptune.torch: the cache directory '{out}' "
                           f"($SPTUNE_CACHE) is not writable")
    return out


def stats():
    """Counters: compiles (tune + compile runs), disk_hits (libraries loaded
    from the cache directory), memory_hits (calls served by an already
    loaded library), hashes (fingerprints computed), index_conversions
    (crow / col copied to another width) and conversions (matrices
    converted into a schedule's non-CSR storage)."""
    with _lock:
        return dict(_stats)


def clear_memory_cache():
    """Forget loaded libraries, per-tensor fingerprints and the backward
    passes' per-pattern data (transposes; not the disk)."""
    with _lock:
        _libs.clear()
        _matrices.clear()
        _patterns.clear()


# ---------------------------------------------------------------- memrefs

def _memref_type(rank):
    class MemRef(ctypes.Structure):
        _fields_ = [("allocated", ctypes.c_void_p),
                    ("aligned", ctypes.c_void_p),
                    ("offset", ctypes.c_int64),
                    ("sizes", ctypes.c_int64 * rank),
                    ("strides", ctypes.c_int64 * rank)]
    MemRef.__name__ = f"MemRef{rank}D"
    return MemRef


_MEMREF = {1: _memref_type(1), 2: _memref_type(2)}


def _memref(t):
    """A descriptor over a contiguous tensor's buffer (row-major strides)."""
    ptr = t.data_ptr()
    if t.dim() == 1:
        return _MEMREF[1](ptr, ptr, 0, (t.shape[0],), (1,))
    rows, cols = t.shape
    return _MEMREF[2](ptr, ptr, 0, (rows, cols), (cols, 1))


# ---------------------------------------------------------------- checks

def _check_csr(a, name):
    if not isinstance(a, torch.Tensor):
        raise TypeError(f"sptune.torch: {name} must be a torch.Tensor in the "
                        f"sparse CSR layout, got {type(a).__name__}")
    if a.layout != torch.sparse_csr:
        raise TypeError(f"sptune.torch: {name} must be a sparse CSR tensor "
                        f"(torch.sparse_csr), got layout {a.layout}; use "
                        f".to_sparse_csr()")
    if a.device.type != "cpu":
        raise ValueError(f"sptune.torch: {name} is on {a.device}; sptune's "
                         f"kernels run on the CPU (use .cpu())")
    if a.dim() != 2:
        raise ValueError(f"sptune.torch: {name} must be 2-D (no batch "
                         f"dimensions), got shape {tuple(a.shape)}")
    if a.dtype not in _DTYPES:
        raise TypeError(f"sptune.torch: {name} has dtype {a.dtype}; "
                        f"supported: torch.float32, torch.float64, "
                        f"torch.float16, torch.bfloat16")
    if a.crow_indices().dtype not in _INDEX_DTYPES or \
            a.col_indices().dtype not in _INDEX_DTYPES:
        raise TypeError(f"sptune.torch: {name}'s indices must be int32 or "
                        f"int64, got {a.crow_indices().dtype}")


def _check_rank(t, op, name, rank, dims):
    """A dense operand's kind and rank: TypeError for what is not a tensor
    (a NumPy array, a list), ValueError for a tensor of another rank."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"sptune.torch.{op}: {name} must be a torch.Tensor, "
                        f"got {type(t).__name__}")
    if t.dim() != rank:
        raise ValueError(f"sptune.torch.{op}: {name} must be a {rank}-D dense "
                         f"tensor ({dims}), got shape {tuple(t.shape)}")


def _check_dense(t, name, dtype, shape, make_contiguous=True):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"sptune.torch: {name} must be a torch.Tensor, got "
                        f"{type(t).__name__}")
    if t.layout != torch.strided:
        raise TypeError(f"sptune.torch: {name} must be dense (strided), got "
                        f"layout {t.layout}")
    if t.device.type != "cpu":
        raise ValueError(f"sptune.torch: {name} is on {t.device}; sptune's "
                         f"kernels run on the CPU (use .cpu())")
    if t.dtype != dtype:
        raise TypeError(f"sptune.torch: {name} has dtype {t.dtype} but the "
                        f"sparse operand has {dtype}; they must match")
    if tuple(t.shape) != tuple(shape):
        want = " x ".join(str(s) for s in shape)
        raise ValueError(f"sptune.torch: {name} has shape {tuple(t.shape)}, "
                         f"expected {want}")
    return t.contiguous() if make_contiguous else t


# ---------------------------------------------------------------- matrices

class _MatrixInfo:
    """Per CSR tensor (and version): its fingerprint and index buffers."""

    def __init__(self, ref, stamp, fingerprint, crow, col):
        self.ref = ref
        self.stamp = stamp
        self.fingerprint = fingerprint
        self.index = {}    # (pos width, crd width) -> (crow, col) tensors
        self.storage = {}  # (encoding, widths) -> _Storage
        self.crow = crow
        self.col = col

    def sibling(self):
        """The info of another tensor with this pattern (new values, e.g.
        a gradient's): the same fingerprint and index buffers (shared, so
        converted once), its own storage (the values differ). Not
        memoized per tensor."""
        other = _MatrixInfo(None, None, self.fingerprint, self.crow, self.col)
        other.index = self.index
        return other

    def buffers(self, widths):
        """crow / col as the kernel's widths want them (32 / 64 bit)."""
        want = tuple(torch.int32 if w == 32 else torch.int64 for w in widths)
        got = self.index.get(want)
        if got is None:
            crow = self.crow if self.crow.dtype == want[0] else None
            col = self.col if self.col.dtype == want[1] else None
            if crow is None or col is None:
                limit = torch.iinfo(torch.int32).max
                if (crow is None and want[0] == torch.int32
                        and self.col.numel() > limit):
                    raise ValueError("sptune.torch: the schedule's 32-bit "
                                     "positions cannot address this matrix")
                with _lock:
                    _stats["index_conversions"] += 1
            if crow is None:
                crow = self.crow.to(want[0]).contiguous()
            if col is None:
                col = self.col.to(want[1]).contiguous()
            got = (crow, col)
            self.index[want] = got
        return got


def _stamp(a):
    crow, col = a.crow_indices(), a.col_indices()
    return (crow.data_ptr(), col.data_ptr(), a.values().data_ptr(),
            crow.dtype, a._version, tuple(a.shape))


def _validate_and_hash(shape, crow, col):
    rows, cols = shape
    c = crow.numpy().astype(np.int64, copy=False)
    k = col.numpy().astype(np.int64, copy=False)
    nnz = k.shape[0]
    if c.shape[0] != rows + 1 or c[0] != 0 or c[-1] != nnz:
        raise ValueError("sptune.torch: malformed CSR tensor (crow_indices "
                         "must have rows + 1 entries from 0 to nnz)")
    counts = np.diff(c)
    if (counts < 0).any():
        raise ValueError("sptune.torch: malformed CSR tensor (crow_indices "
                         "decrease)")
    if nnz:
        if k.min() < 0 or k.max() >= cols:
            raise ValueError("sptune.torch: malformed CSR tensor (a column "
                             "index is out of range)")
        # Column indices sorted and distinct within each row (MLIR's CSR is
        # ordered and unique).
        step = np.diff(k)
        row_start = np.zeros(nnz, dtype=bool)
        row_start[c[:-1][counts > 0]] = True
        if ((step <= 0) & ~row_start[1:]).any():
            raise ValueError("sptune.torch: the CSR tensor's column indices "
                             "must be sorted and distinct within each row")
    h = hashlib.blake2b(digest_size=16)
    h.update(np.asarray([rows, cols, nnz], dtype=np.int64).tobytes())
    h.update(np.ascontiguousarray(c).tobytes())
    h.update(np.ascontiguousarray(k).tobytes())
    return h.hexdigest()


def _matrix_info(a):
    """The memoized fingerprint and index buffers of CSR tensor `a`."""
    if a.is_inference():
        # A tensor made under torch.inference_mode has no version counter:
        # not memoized, hashed again at each call.
        crow = a.crow_indices().detach().contiguous()
        col = a.col_indices().detach().contiguous()
        fp = _validate_and_hash(a.shape, crow, col)
        with _lock:
            _stats["hashes"] += 1
        return _MatrixInfo(None, None, fp, crow, col)
    stamp = _stamp(a)
    with _lock:
        info = _matrices.get(id(a))
        if info is not None and info.ref() is a and info.stamp == stamp:
            return info
    # detach(): the indices of a CSR tensor that requires grad say they do.
    crow = a.crow_indices().detach().contiguous()
    col = a.col_indices().detach().contiguous()
    fp = _validate_and_hash(a.shape, crow, col)
    key = id(a)

    def forget(_, key=key):
        with _lock:
            entry = _matrices.get(key)
            if entry is not None and entry.ref() is None:
                del _matrices[key]

    info = _MatrixInfo(weakref.ref(a, forget), stamp, fp, crow, col)
    with _lock:
        _stats["hashes"] += 1
        _matrices[key] = info
    return info


def _write_mtx(path, info, shape):
    """A Matrix Market pattern file of the matrix (what the tuner reads)."""
    if os.path.isfile(path):
        return
    rows, cols = shape
    crow = info.crow.numpy().astype(np.int64, copy=False)
    col = info.col.numpy().astype(np.int64, copy=False)
    r = np.repeat(np.arange(1, rows + 1, dtype=np.int64), np.diff(crow))
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    with open(tmp, "w") as f:
        f.write("%%MatrixMarket matrix coordinate pattern general\n")
        f.write(f"{rows} {cols} {col.shape[0]}\n")
        # In chunks: about 1 s per million entries.
        step = 1 << 20
        for lo in range(0, col.shape[0], step):
            rr = r[lo:lo + step].tolist()
            cc = (col[lo:lo + step] + 1).tolist()
            f.write("\n".join(f"{i} {j}" for i, j in zip(rr, cc)))
            f.write("\n")
    os.replace(tmp, path)


# ---------------------------------------------------------------- kernels

class _Kernel:
    """A loaded library: @sptune_call, and for a schedule whose storage is
    not CSR the functions that convert a CSR input into it once."""

    def __init__(self, meta, path):
        self.meta = meta
        self.widths = tuple(meta["widths"])
        self.prepare = bool(meta["prepare"])
        self.buffers = meta["buffers"]
        self.storage_key = (meta["storage"], self.widths)
        self.lib = self._load(path + ".so")
        self.fn = self._fn(self.lib, "sptune_call")
        if self.prepare:
            self.prepare_lib = self._load(path + ".prepare.so")
            self.sizes = self._fn(self.prepare_lib, "sptune_sizes")
            self.convert = self._fn(self.prepare_lib, "sptune_convert")
            self.coords = self._fn(self.prepare_lib, "sptune_coords")

    @staticmethod
    def _load(path):
        """The kernel library at `path`; a symbol of clang's runtime
        builtins missing (a bf16 kernel on a CPU without AVX512-BF16) says
        what to install."""
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            if "__truncsfbf2" in str(e) or "__extendbfsf2" in str(e):
                raise OSError(f"{e}: the bf16 kernel needs clang's runtime "
                              "builtins on this CPU; install the Debian "
                              "package libclang-rt-22-dev") from None
            raise

    @staticmethod
    def _fn(lib, name):
        fn = getattr(lib, "_mlir_ciface_" + name)
        fn.restype = None
        return fn


class _Storage:
    """A matrix in a kernel's storage: the buffers @sptune_call assembles
    (kept alive here) and their descriptors; for an SDDMM on storage whose
    value order is not CSR's, where each CSR entry's value is."""

    def __init__(self, tensors):
        self.tensors = tensors
        self.descs = [ctypes.byref(_memref(t)) for t in tensors]
        self.values = tensors[-1].numel()
        self.to_csr = None  # (csr positions, storage positions, complete)


def _storage(k, info, a):
    """The matrix in kernel k's storage: the CSR buffers themselves (index
    widths converted if needed) or, once per tensor version, converted by
    the library into its storage."""
    st = info.storage.get(k.storage_key)
    if st is not None:
        return st
    crow, col = info.buffers(k.widths)
    vals = a.values()
    if not vals.is_contiguous():
        vals = vals.contiguous()
    if not k.prepare:
        st = _Storage([crow, col, vals])
    else:
        csr = [_memref(t) for t in (crow, col, vals)]
        lens = torch.zeros(len(k.buffers) + 1, dtype=torch.int64)
        k.sizes(*[ctypes.byref(d) for d in csr], ctypes.byref(_memref(lens)))
        lens = lens.tolist()
        tensors = []
        for b, length in zip(k.buffers, lens):
            dt = torch.int32 if b["bits"] == 32 else torch.int64
            if b["rank"] == 2:
                tensors.append(torch.empty(length // b["width"], b["width"],
                                           dtype=dt))
            else:
                tensors.append(torch.empty(length, dtype=dt))
        tensors.append(torch.empty(lens[-1], dtype=a.dtype))
        k.convert(*[ctypes.byref(d) for d in csr],
                  *[ctypes.byref(_memref(t)) for t in tensors])
        st = _Storage(tensors)
        with _lock:
            _stats["conversions"] += 1
    info.storage[k.storage_key] = st
    return st


def _csr_positions(k, st, info, shape):
    """For each value of storage st, the CSR entry it is (an SDDMM's values
    come back in storage order)."""
    if st.to_csr is None:
        rows, cols = shape
        ci = torch.empty(st.values, dtype=torch.int64)
        cj = torch.empty(st.values, dtype=torch.int64)
        k.coords(*st.descs, ctypes.byref(_memref(ci)), ctypes.byref(_memref(cj)))
        crow = info.crow.to(torch.int64)
        nnz = info.col.numel()
        row = torch.repeat_interleave(torch.arange(rows, dtype=torch.int64),
                                      crow[1:] - crow[:-1])
        csr_key = row * cols + info.col.to(torch.int64)  # sorted: CSR order
        s_key = ci * cols + cj
        pos = torch.searchsorted(csr_key, s_key).clamp_(max=max(nnz - 1, 0))
        hit = csr_key[pos] == s_key
        csr_pos = pos[hit]
        s_pos = torch.nonzero(hit).flatten()
        complete = csr_pos.numel() == nnz
        if complete:  # a permutation: one gather per call
            inv = torch.empty(nnz, dtype=torch.int64)
            inv[csr_pos] = s_pos
            st.to_csr = (None, inv, True)
        else:  # entries the storage dropped have value 0
            st.to_csr = (csr_pos, s_pos, False)
    return st.to_csr


def _multiversion():
    """$SPTUNE_TORCH_MULTIVERSION: 0 (unset) tunes and compiles per pattern;
    K in 1..16 compiles one multi-versioned kernel per (kernel, dtype,
    shape, dense size) for every pattern."""
    text = os.environ.get("SPTUNE_TORCH_MULTIVERSION", "").strip()
    if not text:
        return 0
    if not text.isdigit() or not 0 <= int(text) <= 16:
        raise RuntimeError(f"sptune.torch: SPTUNE_TORCH_MULTIVERSION must be a number of "
                           f"variants from 0 to 16, got '{text}'")
    return int(text)


def _kernel(kernel, a, info, n):
    """The loaded library of `kernel` for matrix `a` (tuned and compiled on
    first use) and dense size n."""
    rows, cols = a.shape
    dtype = _DTYPES[a.dtype]
    extra = os.environ.get("SPTUNE_AUTOTUNE", "").strip()
    forced = _force_schedule.get(kernel) or (
        _force_schedule.get("sddmm") if kernel == "sddmm_bt" else None)
    if forced:
        extra = f"{extra}|schedule={forced}"
    variants = 0 if forced else _multiversion()
    # A multi-versioned library serves every pattern of the shape.
    pattern = f"multiversion={variants}" if variants else info.fingerprint
    fast = (kernel, pattern, rows, cols, n, dtype, extra)
    with _lock:
        k = _libs.get(fast)
        if k is not None:
            _stats["memory_hits"] += 1
            return k
    key = kernel_lib.cache_key(kernel, rows, cols, n, dtype, pattern, extra)
    with _lock:
        k = _libs.get(key)
        if k is not None:
            _stats["memory_hits"] += 1
            _libs[fast] = k
            return k
        out = _usable_cache_dir()
        meta = kernel_lib.load_metadata(out, key)
        if meta is None:
            mtx = os.path.join(out, "matrices", info.fingerprint + ".mtx")
            try:
                if not variants:
                    _write_mtx(mtx, info, (rows, cols))
                meta = kernel_lib.compile_kernel(
                    kernel, rows, cols, n, dtype, mtx, out, key,
                    autotune_extra="" if forced else extra,
                    database=os.path.join(out, "tuning.jsonl"),
                    schedule=forced, multiversion=variants)
            except kernel_lib.CompileError as e:
                raise RuntimeError(str(e)) from None
            except OSError as e:
                raise RuntimeError(
                    f"sptune.torch: cannot write the cache directory "
                    f"'{out}' ($SPTUNE_CACHE): {e}") from None
            _stats["compiles"] += 1
        else:
            _stats["disk_hits"] += 1
        k = _Kernel(meta, os.path.join(out, key))
        _libs[key] = k
        _libs[fast] = k
        return k


def kernel_info(kernel, a, n=None):
    """What sptune compiled for `kernel` ("spmm", "sddmm", "spmv", or
    "sddmm_bt": the SDDMM whose B is the transposed view of a row-major
    tensor) on CSR tensor `a` with dense size n (ignored for spmv), tuning
    and compiling it if needed: a dict with the chosen `schedule` (the
    #sptune.schedule text), the index `widths` of the CSR input, the
    `storage` the kernel runs on and whether the matrix is converted into
    it once (`prepare`), the autotuner's `remark` (its ranking), the
    compile `times` in seconds and the cache `key`."""
    _check_csr(a, "A")
    if kernel not in kernel_lib.KERNELS:
        raise ValueError(f"sptune.torch: unknown kernel '{kernel}'")
    n = 0 if kernel == "spmv" else int(n)
    return dict(_kernel(kernel, a, _matrix_info(a), n).meta)


def _call(k, st, *rest):
    dense = [_memref(t) for t in rest]
    # `rest` and `dense` stay alive (locals) until the call returns; `st`
    # keeps the storage alive.
    k.fn(*st.descs, *[ctypes.byref(d) for d in dense])


def _trivial(a, nnz):
    rows, cols = a.shape
    return nnz == 0 or rows == 0 or cols == 0


# ---------------------------------------------------------------- runs
# The kernels on checked operands, without autograd: what the entries run
# when no input needs a gradient, and what the backward passes run.

_unsafe_csr = getattr(torch, "_sparse_csr_tensor_unsafe", None)


def _csr(crow, col, values, shape):
    if _unsafe_csr is not None:
        return _unsafe_csr(crow, col, values, tuple(shape), dtype=values.dtype)
    return torch.sparse_csr_tensor(crow, col, values, size=tuple(shape),
                                   dtype=values.dtype)


def _csr_like(S, values):
    """A CSR tensor with S's shape and pattern (S's own crow / col tensors)."""
    return _csr(S.crow_indices(), S.col_indices(), values, S.shape)


def _spmm(A, info, B):
    """A @ B: A checked CSR, B a contiguous K x N tensor of A's dtype; info
    is A's _MatrixInfo, or None for _matrix_info(A) (when there is work)."""
    rows, cols = A.shape
    n = B.shape[1]
    C = torch.zeros(rows, n, dtype=A.dtype)
    if _trivial(A, A.col_indices().numel()) or n == 0:
        return C
    if info is None:
        info = _matrix_info(A)
    k = _kernel("spmm", A, info, n)
    _call(k, _storage(k, info, A), B, C)
    return C


def _spmv(A, info, x):
    """A @ x: as _spmm, x a contiguous vector of K entries."""
    y = torch.zeros(A.shape[0], dtype=A.dtype)
    if _trivial(A, A.col_indices().numel()):
        return y
    if info is None:
        info = _matrix_info(A)
    k = _kernel("spmv", A, info, 0)
    _call(k, _storage(k, info, A), x, y)
    return y


def _sddmm_values(S, info, A, B):
    """The values (in S's CSR order) of S .* (A @ B): A a contiguous M x N
    tensor; B N x K, contiguous or the transposed view of a contiguous
    K x N tensor (read as stored, by the kernel variant sddmm_bt)."""
    # B as the transposed view of a row-major K x N tensor (B = H.t()):
    # passed as it is stored, to the kernel variant that reads B^T.
    variant = "sddmm"
    if not B.is_contiguous():
        variant, B = "sddmm_bt", B.t()
    nnz = S.col_indices().numel()
    if _trivial(S, nnz) or A.shape[1] == 0:
        return torch.zeros(nnz, dtype=S.dtype)
    if info is None:
        info = _matrix_info(S)
    k = _kernel(variant, S, info, A.shape[1])
    st = _storage(k, info, S)
    out = torch.empty(st.values, dtype=S.dtype)
    count = torch.zeros(1, dtype=torch.int64)
    _call(k, st, A, B, out, count)
    if count.item() != st.values:
        raise RuntimeError(f"sptune.torch: the SDDMM kernel returned "
                           f"{count.item()} values for {st.values} stored "
                           f"entries (schedule {k.meta['schedule']})")
    if k.prepare:
        csr_pos, s_pos, complete = _csr_positions(k, st, info, S.shape)
        if complete:
            out = out.index_select(0, s_pos)
        else:
            vals = torch.zeros(nnz, dtype=S.dtype)
            vals[csr_pos] = out[s_pos]
            out = vals
    return out


# ---------------------------------------------------------------- patterns
# What the backward passes reuse per pattern: the transpose's indices and
# the permutation of values into it, each entry's row, a CSR of ones.

_patterns = {}   # fingerprint -> _Pattern


class _Pattern:
    """Per CSR pattern (fingerprint): each entry's row and column, the
    transpose A^T as CSR indices plus `perm` (A^T's value j is A's value
    perm[j]; values are never cached, A^T follows A's current values) with
    its own fingerprint, so sptune tunes and compiles A^T's kernels as for
    any matrix, and a CSR tensor of ones per dtype (the sampled products of
    the gradients)."""

    def __init__(self, info, shape):
        rows, cols = shape
        # int64 copies: the entry outlives the tensor it was made from.
        crow = info.crow.to(torch.int64, copy=True)
        col = info.col.to(torch.int64, copy=True)
        self.shape = (rows, cols)
        self.info = _MatrixInfo(None, None, info.fingerprint, crow, col)
        self.row = torch.repeat_interleave(
            torch.arange(rows, dtype=torch.int64), crow[1:] - crow[:-1])
        self.col = col
        # Stable by column: within a column of A (a row of A^T) the rows
        # stay ascending, so A^T's column indices are sorted.
        self.perm = torch.sort(col, stable=True).indices
        t_crow = torch.zeros(cols + 1, dtype=torch.int64)
        torch.cumsum(torch.bincount(col, minlength=cols), 0, out=t_crow[1:])
        t_col = self.row.index_select(0, self.perm)
        self.t_shape = (cols, rows)
        t_fp = _validate_and_hash(self.t_shape, t_crow, t_col)
        self.t_info = _MatrixInfo(None, None, t_fp, t_crow, t_col)
        self._ones = {}

    def transpose(self, values):
        """A^T with these values (A's, in A's CSR order) and its info."""
        t = self.t_info
        return (_csr(t.crow, t.col, values.index_select(0, self.perm),
                     self.t_shape), t.sibling())

    def ones(self, dtype):
        """The pattern with every value 1, and its info (kept: a non-CSR
        storage of it is converted once)."""
        got = self._ones.get(dtype)
        if got is None:
            i = self.info
            got = (_csr(i.crow, i.col, torch.ones(i.col.numel(), dtype=dtype),
                        self.shape), i.sibling())
            with _lock:
                got = self._ones.setdefault(dtype, got)
        return got

    def sample(self, G):
        """The values of gradient G on this pattern, in CSR order: G dense,
        or sparse (CSR or COO) with entries elsewhere ignored and entries
        missing taken as 0."""
        cols = self.shape[1]
        if G.layout == torch.strided:
            return G[self.row, self.col]
        if G.layout == torch.sparse_csr:
            G = G.to_sparse()
        if G.layout != torch.sparse_coo:
            raise TypeError(f"sptune.torch: a gradient of layout {G.layout} "
                            f"for a CSR result is not supported")
        G = G.coalesce()
        keys = G.indices()[0] * cols + G.indices()[1]  # sorted (coalesced)
        out = torch.zeros(self.col.numel(), dtype=G.dtype)
        if keys.numel() == 0 or out.numel() == 0:
            return out
        want = self.row * cols + self.col
        pos = torch.searchsorted(keys, want).clamp_(max=keys.numel() - 1)
        hit = keys[pos] == want
        out[hit] = G.values()[pos[hit]]
        return out


def _pattern(a):
    """The _Pattern of CSR tensor a (built on first use, O(nnz log nnz))."""
    info = _matrix_info(a)
    with _lock:
        pat = _patterns.get(info.fingerprint)
    if pat is None:
        pat = _Pattern(info, a.shape)
        with _lock:
            _stats["hashes"] += 1  # the transpose's fingerprint
            pat = _patterns.setdefault(info.fingerprint, pat)
    return pat


def _same_pattern(G, S):
    """Whether CSR tensor G stores exactly S's entries."""
    if tuple(G.shape) != tuple(S.shape):
        return False
    pairs = ((G.crow_indices(), S.crow_indices()),
             (G.col_indices(), S.col_indices()))
    if all(g.data_ptr() == s.data_ptr() and g.dtype == s.dtype
           and g.numel() == s.numel() for g, s in pairs):
        return True  # the same buffers (our results share S's indices)
    return all(g.numel() == s.numel() and torch.equal(g.long(), s.long())
               for g, s in pairs)


def _grad_values(G, S):
    """The incoming gradient of a CSR result with S's pattern, as values in
    S's CSR order (a CSR gradient of that pattern as it is)."""
    if G.layout == torch.sparse_csr and _same_pattern(G, S):
        return G.values().contiguous()
    return _pattern(S).sample(G).contiguous()


def _dense_grad(G):
    if G.layout != torch.strided:
        G = G.to_dense()
    return G.contiguous()


# ---------------------------------------------------------------- autograd
# Gradients as sptune kernels: for a CSR input, a CSR gradient with its
# pattern (sharing its crow / col tensors), as torch.sparse.mm's backward
# gives; for a dense input, a dense one. Only the gradients autograd asks
# for are computed (ctx.needs_input_grad). The backward passes are not
# differentiable themselves (no double backward).

class _SpMMFunction(torch.autograd.Function):
    """C = A @ B. dB = A^T @ G: sptune's SpMM on A^T (CSR, per-pattern
    cached indices, A's current values permuted into it); dA = (G @ B^T)
    sampled on A's pattern: sptune's SDDMM of A's pattern with ones, G and
    B^T (B's transposed view, the sddmm_bt variant)."""

    @staticmethod
    def forward(ctx, A, B):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(A, B)
        return _spmm(A, None, B)

    @staticmethod
    @once_differentiable
    def backward(ctx, G):
        need_a, need_b = ctx.needs_input_grad
        if G is None:
            return None, None
        A, B = ctx.saved_tensors
        cols, n = B.shape
        nnz = A.col_indices().numel()
        if _trivial(A, nnz) or n == 0:
            return (_csr_like(A, torch.zeros(nnz, dtype=A.dtype))
                    if need_a else None,
                    torch.zeros(cols, n, dtype=A.dtype) if need_b else None)
        G = _dense_grad(G)
        pat = _pattern(A)
        grad_a = grad_b = None
        if need_b:
            grad_b = _spmm(*pat.transpose(A.values()), G)
        if need_a:
            ones, info = pat.ones(A.dtype)
            grad_a = _csr_like(A, _sddmm_values(ones, info, G, B.t()))
        return grad_a, grad_b


class _SpMVFunction(torch.autograd.Function):
    """y = A @ x. dx = A^T @ g: sptune's SpMV on A^T (as for SpMM);
    dA_ik = g_i x_k on A's pattern (a gather and a product, O(nnz))."""

    @staticmethod
    def forward(ctx, A, x):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(A, x)
        return _spmv(A, None, x)

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        need_a, need_x = ctx.needs_input_grad
        if g is None:
            return None, None
        A, x = ctx.saved_tensors
        nnz = A.col_indices().numel()
        if _trivial(A, nnz):
            return (_csr_like(A, torch.zeros(nnz, dtype=A.dtype))
                    if need_a else None,
                    torch.zeros_like(x) if need_x else None)
        g = _dense_grad(g)
        pat = _pattern(A)
        grad_a = grad_x = None
        if need_x:
            grad_x = _spmv(*pat.transpose(A.values()), g)
        if need_a:
            grad_a = _csr_like(A, g.index_select(0, pat.row)
                               * x.index_select(0, pat.col))
        return grad_a, grad_x


class _SDDMMFunction(torch.autograd.Function):
    """X = S .* (A @ B) on S's pattern. With G the gradient's values on S's
    pattern and W = S .* G (CSR, S's pattern): dA = W @ B^T (sptune's SpMM
    on W; B^T is read in place when B = H.t()), dB = A^T @ W = (W^T @ A)^T
    (SpMM on W^T: the cached transpose of S's pattern, W's values permuted),
    dS = G .* (A @ B) on S's pattern (the same SDDMM kernel as the forward,
    with G as the sampling values)."""

    @staticmethod
    def forward(ctx, S, A, B):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(S, A, B)
        return _csr_like(S, _sddmm_values(S, None, A, B))

    @staticmethod
    @once_differentiable
    def backward(ctx, G):
        need_s, need_a, need_b = ctx.needs_input_grad
        if G is None:
            return None, None, None
        S, A, B = ctx.saved_tensors
        n, cols = B.shape
        nnz = S.col_indices().numel()
        if _trivial(S, nnz) or n == 0:
            return (_csr_like(S, torch.zeros(nnz, dtype=S.dtype))
                    if need_s else None,
                    torch.zeros_like(A) if need_a else None,
                    torch.zeros(n, cols, dtype=S.dtype) if need_b else None)
        g = _grad_values(G, S)
        info = _matrix_info(S)
        grad_s = grad_a = grad_b = None
        if need_a or need_b:
            w = S.values() * g
            if need_a:
                grad_a = _spmm(_csr_like(S, w), info.sibling(),
                               B.t().contiguous())
            if need_b:
                grad_b = _spmm(*_pattern(S).transpose(w), A).t()
        if need_s:
            grad_s = _csr_like(S, _sddmm_values(_csr_like(S, g),
                                                info.sibling(), A, B))
        return grad_s, grad_a, grad_b


# ---------------------------------------------------------------- entries

def _spmm_args(A, B):
    _check_csr(A, "A")
    _check_rank(B, "spmm", "B", 2, "K x N")
    return A, _check_dense(B, "B", A.dtype, (A.shape[1], B.shape[1]))


def _spmv_args(A, x):
    _check_csr(A, "A")
    _check_rank(x, "spmv", "x", 1, "K")
    return A, _check_dense(x, "x", A.dtype, (A.shape[1],))


def _sddmm_args(S, A, B):
    _check_csr(S, "S")
    rows, cols = S.shape
    _check_rank(A, "sddmm", "A", 2, "M x N")
    n = A.shape[1]
    A = _check_dense(A, "A", S.dtype, (rows, n))
    _check_rank(B, "sddmm", "B", 2, "N x K")
    B = _check_dense(B, "B", S.dtype, (n, cols), make_contiguous=False)
    # B stays as it is when it is the transposed view of a row-major K x N
    # tensor (B = H.t()), read as stored by the kernel variant sddmm_bt.
    if not B.is_contiguous() and not B.t().is_contiguous():
        B = B.contiguous()
    return S, A, B


def _sddmm_run(S, A, B):
    return _csr_like(S, _sddmm_values(S, None, A, B))


_tracing_state = torch._C._get_tracing_state


def _traced(name, *args):
    """Under torch.jit.trace: the registered operator torch.ops.sptune.<name>,
    which the trace records as a call (its kernel checks the operands and
    applies the autograd.Function, untraced)."""
    if _library is None:
        why = f" ({_library_error})" if _library_error else ""
        raise RuntimeError(f"sptune.torch: cannot trace {name}: the "
                           f"torch.ops.sptune operators are not "
                           f"registered{why}")
    return getattr(torch.ops.sptune, name)(*args)


def spmm(A, B):
    """Dense A @ B for a CSR matrix A (M x K) and a dense B (K x N).

    A: torch.sparse_csr_tensor, float32/float64 values, int32/int64 indices.
    B: dense, same dtype, row-major (made contiguous if it is not).
    Returns a new dense M x N tensor. The first call for A's pattern, dtype
    and N tunes and compiles a kernel (seconds); later calls reuse it.
    Differentiable in B and in A's values (autograd: B's gradient is
    A^T @ G by sptune's SpMM on A^T, A's is a CSR tensor with A's pattern,
    G @ B^T sampled there by sptune's SDDMM).
    """
    if _tracing_state() is not None:
        return _traced("spmm", A, B)
    A, B = _spmm_args(A, B)
    if torch.is_grad_enabled() and (A.requires_grad or B.requires_grad):
        return _SpMMFunction.apply(A, B)
    return _spmm(A, None, B)


def spmv(A, x):
    """Dense A @ x for a CSR matrix A (M x K) and a dense vector x (K).

    Same requirements as spmm; returns a new dense vector of M entries.
    Differentiable in x (A^T @ g, sptune's SpMV on A^T) and in A's values
    (a CSR gradient with A's pattern, g_i x_k).
    """
    if _tracing_state() is not None:
        return _traced("spmv", A, x)
    A, x = _spmv_args(A, x)
    if torch.is_grad_enabled() and (A.requires_grad or x.requires_grad):
        return _SpMVFunction.apply(A, x)
    return _spmv(A, None, x)


def sddmm(S, A, B):
    """Sampled dense-dense product X = S .* (A @ B) on S's pattern.

    S: CSR, M x K; A: dense M x N; B: dense N x K; all the same dtype
    (float32/float64). Returns a CSR tensor with S's shape and pattern
    (sharing S's crow / col index tensors) whose values are
    X_ij = S_ij * sum_n A_in * B_nj for every entry (i, j) stored in S:
    torch.sparse.sampled_addmm(S, A, B, beta=0, alpha=1) multiplied
    elementwise by S's values. (Pass S with all values 1 for plain
    sampled_addmm.) A and B are read in place when row-major contiguous;
    B may also be the transposed view of a row-major N-column tensor
    (B = H.t(), as in GNN attention), which is read as it is stored (a
    kernel variant that reads B^T, tuned and compiled apart).
    Differentiable in A, B and S's values: with W = S .* G on S's pattern,
    dA = W @ B^T and dB = (W^T @ A)^T (sptune's SpMM on W and on W^T), dS =
    G .* (A @ B) on S's pattern (sptune's SDDMM), a CSR tensor.
    """
    if _tracing_state() is not None:
        return _traced("sddmm", S, A, B)
    S, A, B = _sddmm_args(S, A, B)
    if torch.is_grad_enabled() and (S.requires_grad or A.requires_grad
                                    or B.requires_grad):
        return _SDDMMFunction.apply(S, A, B)
    return _sddmm_run(S, A, B)


# ---------------------------------------------------------------- operators
# torch.ops.sptune.spmm / spmv / sddmm: the entries as dispatcher operators
# (Python kernels, torch.library), so that torch.jit.trace records them as
# calls rather than as constants, and torch.jit.script compiles calls of
# sptune.torch.spmm & co (registered as builtins) or of torch.ops.sptune.*
# into them. The Autograd kernel applies the autograd.Function when an input
# needs a gradient; the CPU / SparseCsrCPU kernels run below autograd
# (torch.inference_mode). A saved TorchScript program needs
# `import sptune.torch` before torch.jit.load.

_OPS = {
    "spmm": ("spmm(Tensor A, Tensor B) -> Tensor", _spmm_args,
             _SpMMFunction, lambda A, B: _spmm(A, None, B)),
    "spmv": ("spmv(Tensor A, Tensor x) -> Tensor", _spmv_args,
             _SpMVFunction, lambda A, x: _spmv(A, None, x)),
    "sddmm": ("sddmm(Tensor S, Tensor A, Tensor B) -> Tensor", _sddmm_args,
              _SDDMMFunction, _sddmm_run),
}
_library = None
_library_error = None


def _op_kernels(args_of, function, run):
    def autograd_kernel(*args):
        args = args_of(*args)
        if torch.is_grad_enabled() and any(t.requires_grad for t in args):
            return function.apply(*args)
        return run(*args)

    def backend_kernel(*args):
        return run(*args_of(*args))

    return autograd_kernel, backend_kernel


def _register_ops():
    global _library, _library_error
    try:
        lib = torch.library.Library("sptune", "DEF")
        for name, (schema, args_of, function, run) in _OPS.items():
            lib.define(schema)
            autograd_kernel, backend_kernel = _op_kernels(args_of, function,
                                                          run)
            lib.impl(name, autograd_kernel, "Autograd")
            lib.impl(name, backend_kernel, "CPU")
            lib.impl(name, backend_kernel, "SparseCsrCPU")
    except (AttributeError, RuntimeError) as e:  # no torch.library, or the
        _library_error = str(e).splitlines()[0]  # namespace taken already
        return
    _library = lib
    # torch.jit.script: a call of sptune.torch.spmm & co compiles into the
    # operator (a private hook of torch.jit; without it, scripted code calls
    # torch.ops.sptune.* itself).
    register = getattr(getattr(torch.jit, "_builtins", None),
                       "_register_builtin", None)
    if register is not None:
        for name, fn in (("spmm", spmm), ("spmv", spmv), ("sddmm", sddmm)):
            register(fn, f"sptune::{name}")


_register_ops()
