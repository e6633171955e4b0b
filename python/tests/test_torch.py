"""Tests of sptune.torch: results equal PyTorch's, kernels are compiled once
per (pattern, kernel, dense size, dtype), bad inputs get clear errors.

    cd python && /usr/bin/python3 -m unittest -v tests.test_torch

Compiles take seconds each, so the tests share kernels: every kernel is
compiled for two matrices (a non-square one with an empty row, a square
one) in f32 and f64 (the square one in f32 only), in a temporary cache
directory.
"""

import json
import os
import unittest

from tests.torch_env import TemporaryCache

try:
    import torch
except ImportError:  # pragma: no cover - python3-torch missing
    torch = None

if torch is not None:
    import sptune.torch as st

_cache = TemporaryCache("sptune-torch-test.")


def setUpModule():
    if torch is None:
        raise unittest.SkipTest("python3-torch is not installed")
    _cache.enter(st)


def tearDownModule():
    _cache.exit()


def _matrix(rows, cols, density, seed, empty_rows=(), dtype=None):
    g = torch.Generator().manual_seed(seed)
    d = torch.rand(rows, cols, generator=g, dtype=torch.float64)
    d[torch.rand(rows, cols, generator=g) > density] = 0
    for r in empty_rows:
        d[r] = 0
    d = d.to(dtype or torch.float64)
    return d


def _dense(shape, seed, dtype):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)


# Non-square with empty rows (first, middle, last), and square.
SHAPES = {"rect": (23, 17, 0.3, 1, (0, 7, 22)), "square": (32, 32, 0.15, 2, (5,))}
N = 8


def _tol(dtype):
    return dict(rtol=1e-5, atol=1e-5) if dtype == torch.float32 else \
        dict(rtol=1e-12, atol=1e-12)


class Correctness(unittest.TestCase):
    """spmm / spmv / sddmm against torch, f32 and f64."""

    def cases(self):
        for name, (m, k, dens, seed, empty) in SHAPES.items():
            for dtype in (torch.float32, torch.float64):
                if name == "square" and dtype == torch.float64:
                    continue
                d = _matrix(m, k, dens, seed, empty, dtype)
                yield name, dtype, d, d.to_sparse_csr()

    def test_spmm(self):
        for name, dtype, d, a in self.cases():
            with self.subTest(matrix=name, dtype=dtype):
                b = _dense((d.shape[1], N), 10, dtype)
                c = st.spmm(a, b)
                self.assertEqual(c.dtype, dtype)
                self.assertEqual(tuple(c.shape), (d.shape[0], N))
                torch.testing.assert_close(c, torch.sparse.mm(a, b), **_tol(dtype))
                torch.testing.assert_close(c, d @ b, **_tol(dtype))

    def test_spmv(self):
        for name, dtype, d, a in self.cases():
            with self.subTest(matrix=name, dtype=dtype):
                x = _dense((d.shape[1],), 11, dtype)
                y = st.spmv(a, x)
                self.assertEqual(tuple(y.shape), (d.shape[0],))
                # torch.mv on CSR needs MKL; sparse.mm on a column does not.
                ref = torch.sparse.mm(a, x.unsqueeze(1)).squeeze(1)
                torch.testing.assert_close(y, ref, **_tol(dtype))
                torch.testing.assert_close(y, d @ x, **_tol(dtype))

    def test_sddmm(self):
        for name, dtype, d, s in self.cases():
            with self.subTest(matrix=name, dtype=dtype):
                a = _dense((d.shape[0], N), 12, dtype)
                b = _dense((N, d.shape[1]), 13, dtype)
                x = st.sddmm(s, a, b)
                self.assertEqual(x.layout, torch.sparse_csr)
                self.assertTrue(torch.equal(x.crow_indices(), s.crow_indices()))
                self.assertTrue(torch.equal(x.col_indices(), s.col_indices()))
                sampled = torch.sparse.sampled_addmm(s, a, b, beta=0.0, alpha=1.0)
                torch.testing.assert_close(x.values(), sampled.values() * s.values(),
                                           **_tol(dtype))
                torch.testing.assert_close(x.to_dense(), d * (a @ b), **_tol(dtype))
                if dtype == torch.float32:
                    # B as the transposed view of a row-major K x N tensor:
                    # the variant that reads B^T as stored.
                    bt_view = b.t().contiguous().t()
                    self.assertFalse(bt_view.is_contiguous())
                    xt = st.sddmm(s, a, bt_view)
                    torch.testing.assert_close(xt.to_dense(), d * (a @ b), **_tol(dtype))

    def test_dense_size_beyond_the_autotune_option_limit(self):
        # N = 70000 > 65536, the limit of sptune-autotune's `free=` (the
        # size it assumes for a dynamic N): the kernel's N is static, so
        # the tuner takes it from the op. It was refused with "free must be
        # in [1, 65536]" (issue 35).
        d = _matrix(6, 5, 0.5, 3, (), torch.float32)
        a = d.to_sparse_csr()
        b = _dense((5, 70000), 14, torch.float32)
        torch.testing.assert_close(st.spmm(a, b), d @ b, **_tol(torch.float32))


class HalfPrecision(unittest.TestCase):
    """spmm / spmv / sddmm and a backward pass in float16 and bfloat16.
    The kernels accumulate in the element type, as the linalg op they
    compile says: small integers are exact; random values within a few
    units in the last place of the row sums (against an f32 reference)."""

    DTYPES = (torch.float16, torch.bfloat16)

    def test_small_integers_are_exact(self):
        m, k = SHAPES["rect"][:2]
        g = torch.Generator().manual_seed(3)
        d = torch.randint(-3, 4, (m, k), generator=g).float()
        d[torch.rand(m, k, generator=g) > 0.3] = 0
        b = torch.randint(-2, 3, (k, N), generator=g).float()
        x = torch.randint(-2, 3, (k,), generator=g).float()
        for dtype in self.DTYPES:
            with self.subTest(dtype=dtype):
                a = d.to(dtype).to_sparse_csr()
                c = st.spmm(a, b.to(dtype))
                self.assertEqual(c.dtype, dtype)
                self.assertTrue(torch.equal(c.float(), d @ b))
                self.assertTrue(torch.equal(st.spmv(a, x.to(dtype)).float(),
                                            d @ x))

    def test_random_values(self):
        for dtype, eps in ((torch.float16, 2.0 ** -10),
                           (torch.bfloat16, 2.0 ** -7)):
            for name, (m, k, dens, seed, empty) in SHAPES.items():
                with self.subTest(matrix=name, dtype=dtype):
                    d = _matrix(m, k, dens, seed, empty, dtype)
                    a = d.to_sparse_csr()
                    df = d.float()
                    # A sum of up to k rounded terms: k ulps of its scale.
                    def close(got, ref):
                        scale = ref.abs().max().item() or 1.0
                        err = (got.float() - ref).abs().max().item()
                        self.assertLessEqual(err, k * eps * scale)
                    b = _dense((k, N), 10, dtype)
                    close(st.spmm(a, b), df @ b.float())
                    x = _dense((k,), 11, dtype)
                    close(st.spmv(a, x), df @ x.float())
                    p = _dense((m, N), 12, dtype)
                    q = _dense((N, k), 13, dtype)
                    s = st.sddmm(a, p, q)
                    self.assertEqual(s.dtype, dtype)
                    close(s.to_dense(), df * (p.float() @ q.float()))
                    bg = b.clone().requires_grad_()
                    st.spmm(a, bg).sum().backward()
                    close(bg.grad, df.t() @ torch.ones(m, N))


class Caching(unittest.TestCase):
    """Compile once per (pattern, kernel, N, dtype); memoized fingerprints."""

    def setUp(self):
        m, k, dens, seed, empty = SHAPES["rect"]
        self.d = _matrix(m, k, dens, seed, empty, torch.float32)
        self.a = self.d.to_sparse_csr()
        self.b = _dense((k, N), 20, torch.float32)
        st.spmm(self.a, self.b)  # compiled here or by Correctness

    def test_second_call_reuses(self):
        before = st.stats()
        c = st.spmm(self.a, self.b)
        after = st.stats()
        self.assertEqual(after["compiles"], before["compiles"])
        self.assertEqual(after["hashes"], before["hashes"])
        self.assertEqual(after["memory_hits"], before["memory_hits"] + 1)
        torch.testing.assert_close(c, self.d @ self.b, **_tol(torch.float32))

    def test_same_pattern_new_values(self):
        before = st.stats()
        d2 = self.d * 3 - 1
        d2[self.d == 0] = 0
        a2 = d2.to_sparse_csr()  # a new tensor object: hashed, not compiled
        torch.testing.assert_close(st.spmm(a2, self.b), d2 @ self.b,
                                   **_tol(torch.float32))
        after = st.stats()
        self.assertEqual(after["compiles"], before["compiles"])
        self.assertEqual(after["hashes"], before["hashes"] + 1)

    def test_in_place_change(self):
        a = self.d.to_sparse_csr()
        st.spmm(a, self.b)
        before = st.stats()
        a.values().mul_(2)  # bumps the version counter: rehashed, same kernel
        torch.testing.assert_close(st.spmm(a, self.b), (2 * self.d) @ self.b,
                                   **_tol(torch.float32))
        after = st.stats()
        self.assertEqual(after["compiles"], before["compiles"])
        self.assertEqual(after["hashes"], before["hashes"] + 1)

    def test_int32_indices(self):
        a32 = torch.sparse_csr_tensor(self.a.crow_indices().int(),
                                      self.a.col_indices().int(),
                                      self.a.values(), size=self.a.shape)
        before = st.stats()
        torch.testing.assert_close(st.spmm(a32, self.b), self.d @ self.b,
                                   **_tol(torch.float32))
        self.assertEqual(st.stats()["compiles"], before["compiles"])
        # Every kernel of both matrices with int32 indices: the schedules'
        # widths differ (32 and 64 bit), so both conversions run.
        for name, (m, k, dens, seed, empty) in SHAPES.items():
            d = _matrix(m, k, dens, seed, empty, torch.float32)
            a = d.to_sparse_csr()
            a = torch.sparse_csr_tensor(a.crow_indices().int(),
                                        a.col_indices().int(), a.values(),
                                        size=a.shape)
            with self.subTest(matrix=name):
                x = _dense((k,), 21, torch.float32)
                torch.testing.assert_close(st.spmv(a, x), d @ x,
                                           **_tol(torch.float32))
                p = _dense((m, N), 22, torch.float32)
                q = _dense((N, k), 23, torch.float32)
                torch.testing.assert_close(st.sddmm(a, p, q).to_dense(),
                                           d * (p @ q), **_tol(torch.float32))

    def test_disk_cache(self):
        st.clear_memory_cache()
        before = st.stats()
        torch.testing.assert_close(st.spmm(self.a, self.b), self.d @ self.b,
                                   **_tol(torch.float32))
        after = st.stats()
        self.assertEqual(after["compiles"], before["compiles"])
        self.assertEqual(after["disk_hits"], before["disk_hits"] + 1)

    def test_non_contiguous_dense(self):
        bt = self.b.t().contiguous().t()  # column-major K x N
        self.assertFalse(bt.is_contiguous())
        torch.testing.assert_close(st.spmm(self.a, bt), self.d @ self.b,
                                   **_tol(torch.float32))

    def test_kernel_info(self):
        info = st.kernel_info("spmm", self.a, N)
        self.assertTrue(info["schedule"].startswith("cpu spmm"), info)
        self.assertIn(tuple(info["widths"]), [(32, 32), (64, 64), (32, 64), (64, 32)])


# Schedules whose storage is not CSR: the matrix is converted once per tensor
# version by the library, calls run on the converted storage, and an SDDMM's
# values come back in CSR order.
FORCED = {
    "bsr": ("square", {
        "spmm": "cpu spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : dense], "
                "split = [2, 2], order = [i1, k1, i0, k0, j], widths = [32, 32]",
        "spmv": "cpu spmv, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : dense], "
                "split = [2, 2], order = [i1, k1, i0, k0], widths = [32, 32], vl = 4",
        "sddmm": "cpu sddmm, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], "
                 "split = [2, 2], order = [i1, j1, i0, j0, k], widths = [32, 32]"}),
    "coo": ("rect", {
        "spmv": "cpu spmv, levels = [i : compressed_nu, k : singleton], split = [1, 1], "
                "order = [i, k], widths = [64, 64]",
        "sddmm": "cpu sddmm, levels = [i : compressed_nu, j : singleton], split = [1, 1], "
                 "order = [i, j, k], widths = [32, 32], vl = 16, simd32 = true"}),
    "column-major": ("rect", {
        "spmm": "cpu spmm, levels = [k : compressed, i : compressed], split = [1, 1], "
                "order = [k, i, j], widths = [64, 64]",
        "sddmm": "cpu sddmm, levels = [j : dense, i : compressed], split = [1, 1], "
                 "order = [j, i, k], widths = [32, 32]"}),
    # Every level dense: no position or coordinate buffers (assemble and
    # disassemble in the generic form; the model picks this on tiny matrices).
    "all-dense": ("rect", {
        "spmm": "cpu spmm, levels = [i : dense, k : dense], split = [1, 1], "
                "order = [i, k, j], widths = [64, 64]",
        "spmv": "cpu spmv, levels = [i : dense, k : dense], split = [1, 1], "
                "order = [i, k], widths = [64, 64]",
        "sddmm": "cpu sddmm, levels = [i : dense, j : dense], split = [1, 1], "
                 "order = [i, j, k], widths = [32, 32]"}),
}


class Multiversion(unittest.TestCase):
    """SPTUNE_TORCH_MULTIVERSION=K: one multi-versioned kernel per (kernel,
    dtype, shape, N), reused for new patterns without a compile."""

    def setUp(self):
        os.environ["SPTUNE_TORCH_MULTIVERSION"] = "3"

    def tearDown(self):
        os.environ.pop("SPTUNE_TORCH_MULTIVERSION", None)

    def test_new_patterns_compile_nothing(self):
        m, k = 40, 30
        b = _dense((k, N), 31, torch.float32)
        x = _dense((k,), 32, torch.float32)
        # Even rows, one long row with the rest empty, and a denser one.
        patterns = [_matrix(m, k, 0.1, 40, (), torch.float32),
                    _matrix(m, k, 0.9, 41, tuple(range(1, m)), torch.float32),
                    _matrix(m, k, 0.5, 42, (), torch.float32)]
        first = patterns[0].to_sparse_csr()
        st.spmm(first, b)
        st.spmv(first, x)
        info = st.kernel_info("spmm", first, N)
        self.assertTrue(info["schedule"].startswith("multiversion: "), info["schedule"])
        self.assertGreaterEqual(len(info["variants"]), 1)
        self.assertIn("dispatched at run time by the rule", info["remark"])
        before = st.stats()
        for d in patterns:
            a = d.to_sparse_csr()
            torch.testing.assert_close(st.spmm(a, b), d @ b, **_tol(torch.float32))
            torch.testing.assert_close(st.spmv(a, x), d @ x, **_tol(torch.float32))
        after = st.stats()
        self.assertEqual(after["compiles"], before["compiles"])
        # Per pattern (not per multi-versioned kernel) it would have been
        # two compiles for each new pattern.
        self.assertEqual(after["memory_hits"], before["memory_hits"] + 2 * len(patterns))

    def test_bad_setting(self):
        os.environ["SPTUNE_TORCH_MULTIVERSION"] = "lots"
        a = _matrix(5, 5, 0.5, 3, (), torch.float32).to_sparse_csr()
        with self.assertRaisesRegex(RuntimeError, "SPTUNE_TORCH_MULTIVERSION must be"):
            st.spmv(a, torch.ones(5))


class Storages(unittest.TestCase):
    """Kernels on BSR, COO and column-major storage (schedules forced)."""

    def tearDown(self):
        st._force_schedule.clear()

    def test_forced_storages(self):
        for fmt, (shape, scheds) in FORCED.items():
            m, k, dens, seed, empty = SHAPES[shape]
            d = _matrix(m, k, dens, seed, empty, torch.float32)
            a = d.to_sparse_csr()
            st._force_schedule.clear()
            st._force_schedule.update(scheds)
            b = _dense((k, N), 30, torch.float32)
            x = _dense((k,), 31, torch.float32)
            p = _dense((m, N), 32, torch.float32)
            q = _dense((N, k), 33, torch.float32)
            tol = _tol(torch.float32)
            for rep in range(2):  # the second call reuses the storage
                for kernel in scheds:
                    with self.subTest(format=fmt, kernel=kernel, call=rep):
                        info = st.kernel_info(kernel, a, N)
                        self.assertTrue(info["prepare"], info["storage"])
                        if kernel == "spmm":
                            torch.testing.assert_close(st.spmm(a, b), d @ b, **tol)
                        elif kernel == "spmv":
                            torch.testing.assert_close(st.spmv(a, x), d @ x, **tol)
                        else:
                            torch.testing.assert_close(st.sddmm(a, p, q).to_dense(),
                                                       d * (p @ q), **tol)
                            if fmt == "bsr":  # B^T read as stored, on BSR
                                qt = q.t().contiguous().t()
                                torch.testing.assert_close(
                                    st.sddmm(a, p, qt).to_dense(), d * (p @ q), **tol)
            # New values in place: converted again, the new numbers used.
            before = st.stats()["conversions"]
            a.values().mul_(-2)
            kernel = next(iter(scheds))
            with self.subTest(format=fmt, kernel=kernel, call="new values"):
                if kernel == "spmm":
                    torch.testing.assert_close(st.spmm(a, b), (-2 * d) @ b, **tol)
                else:
                    torch.testing.assert_close(st.spmv(a, x), (-2 * d) @ x, **tol)
                self.assertEqual(st.stats()["conversions"], before + 1)


class CacheEntries(unittest.TestCase):
    """A damaged cache entry is rebuilt, never loaded: a truncated library
    killed the process with SIGBUS, another kernel's with SIGSEGV, edited
    index widths gave wrong results (issue 35). An unusable cache directory
    is a clear RuntimeError, not an OSError traceback."""

    def setUp(self):
        self.d = _matrix(19, 13, 0.3, 11, (4,), torch.float32)
        self.a = self.d.to_sparse_csr()
        self.b = _dense((13, N), 21, torch.float32)
        self.key = st.kernel_info("spmm", self.a, N)["key"]
        self.base = os.path.join(st.cache_dir(), self.key)

    def _recompiled(self, damage):
        st.clear_memory_cache()
        damage()
        before = st.stats()
        torch.testing.assert_close(st.spmm(self.a, self.b), self.d @ self.b,
                                   **_tol(torch.float32))
        self.assertEqual(st.stats()["compiles"], before["compiles"] + 1)

    def _replace(self, path, data):
        # A new file renamed over the entry: the library this process has
        # loaded keeps its pages (truncating it in place would SIGBUS here).
        with open(path + ".tmp", "wb") as f:
            f.write(data)
        os.replace(path + ".tmp", path)

    def test_damaged_libraries_are_rebuilt(self):
        so = self.base + ".so"
        with open(so, "rb") as f:
            whole = f.read()
        self._recompiled(lambda: self._replace(so, whole[:len(whole) // 2]))
        self._recompiled(lambda: self._replace(so, b""))
        self._recompiled(
            lambda: self._replace(so, b"\x7fELF not a library" * 100))
        other = _matrix(7, 13, 0.5, 12, (), torch.float32).to_sparse_csr()
        other_key = st.kernel_info("spmm", other, N)["key"]
        with open(os.path.join(st.cache_dir(), other_key + ".so"), "rb") as f:
            other_so = f.read()
        self._recompiled(lambda: self._replace(so, other_so))

    def test_edited_metadata_is_rebuilt(self):
        def edit_widths():
            with open(self.base + ".json") as f:
                meta = json.load(f)
            meta["widths"] = [64 if w == 32 else 32 for w in meta["widths"]]
            self._replace(self.base + ".json", json.dumps(meta).encode())
        self._recompiled(edit_widths)

    def test_directory_in_place_of_a_library(self):
        st.clear_memory_cache()
        os.remove(self.base + ".so")
        os.mkdir(self.base + ".so")
        try:
            with self.assertRaisesRegex(RuntimeError, "not a regular file"):
                st.spmm(self.a, self.b)
        finally:
            os.rmdir(self.base + ".so")
        st.spmm(self.a, self.b)

    def test_unusable_cache_directory(self):
        plain = os.path.join(_cache.path, "plain-file")
        open(plain, "w").close()
        for bad in (plain, "/dev/null"):
            os.environ["SPTUNE_CACHE"] = bad
            st.clear_memory_cache()
            try:
                with self.assertRaisesRegex(RuntimeError,
                                            "is not a directory"):
                    st.spmm(self.a, self.b)
            finally:
                os.environ["SPTUNE_CACHE"] = _cache.path
        st.clear_memory_cache()


class Errors(unittest.TestCase):

    def setUp(self):
        self.d = _matrix(6, 5, 0.5, 3, (), torch.float32)
        self.a = self.d.to_sparse_csr()
        self.b = torch.ones(5, 4)

    def test_not_csr(self):
        with self.assertRaisesRegex(TypeError, "sparse CSR"):
            st.spmm(self.d, self.b)
        with self.assertRaisesRegex(TypeError, "sparse CSR"):
            st.spmm(self.d.to_sparse(), self.b)
        with self.assertRaisesRegex(TypeError, "torch.Tensor"):
            st.spmv([[1.0]], torch.ones(1))
        # A dense operand that is not a tensor (a NumPy array, a list) is a
        # TypeError too, as docs/torch.md says (it was a ValueError).
        import numpy
        with self.assertRaisesRegex(TypeError, "B must be a torch.Tensor, got ndarray"):
            st.spmm(self.a, numpy.ones((5, 4), dtype=numpy.float32))
        with self.assertRaisesRegex(TypeError, "x must be a torch.Tensor, got list"):
            st.spmv(self.a, [1.0] * 5)
        with self.assertRaisesRegex(TypeError, "A must be a torch.Tensor"):
            st.sddmm(self.a, numpy.ones((6, 3)), torch.ones(3, 5))

    def test_dtype(self):
        with self.assertRaisesRegex(TypeError, "dtype"):
            st.spmm(self.a, self.b.double())
        with self.assertRaisesRegex(TypeError, "torch.float32, torch.float64, "
                                               "torch.float16, torch.bfloat16"):
            st.spmv(self.d.to(torch.int32).to_sparse_csr(),
                    torch.ones(5, dtype=torch.int32))

    def test_shape(self):
        with self.assertRaisesRegex(ValueError, "shape"):
            st.spmm(self.a, torch.ones(4, 4))
        with self.assertRaisesRegex(ValueError, "1-D"):
            st.spmv(self.a, torch.ones(5, 1))
        with self.assertRaisesRegex(ValueError, "shape"):
            st.sddmm(self.a, torch.ones(6, 3), torch.ones(4, 5))

    def test_device(self):
        # No GPU here: a tensor on the meta device stands for a CUDA one.
        with self.assertRaisesRegex(ValueError, "CPU"):
            st.spmm(self.a, torch.empty(5, 4, device="meta"))

    def test_grad(self):
        # An input that requires grad is no longer refused ("no autograd
        # support"): the gradients are tests.test_torch_autograd's. On a
        # matrix without entries nothing is compiled.
        z = torch.zeros(6, 5).to_sparse_csr()
        b = self.b.clone().requires_grad_()
        c = st.spmm(z, b)
        self.assertTrue(c.requires_grad)
        c.sum().backward()
        self.assertTrue(torch.equal(b.grad, torch.zeros(5, 4)))

    def test_malformed(self):
        unsafe = getattr(torch, "_sparse_csr_tensor_unsafe", None)
        if unsafe is None:
            self.skipTest("no unchecked CSR constructor")
        bad = unsafe(torch.tensor([0, 2, 2]), torch.tensor([3, 1]),
                     torch.ones(2), (2, 5))
        with self.assertRaisesRegex(ValueError, "sorted"):
            st.spmv(bad, torch.ones(5))

    def test_compile_failure(self):
        os.environ["SPTUNE_AUTOTUNE"] = "no-such-option=1"
        try:
            with self.assertRaisesRegex(RuntimeError, "sptune-opt"):
                st.spmv(self.a, torch.ones(5))
        finally:
            os.environ.pop("SPTUNE_AUTOTUNE", None)

    def test_empty(self):
        before = st.stats()
        z = torch.zeros(4, 3).to_sparse_csr()
        self.assertTrue(torch.equal(st.spmm(z, torch.ones(3, 2)), torch.zeros(4, 2)))
        self.assertTrue(torch.equal(st.spmv(z, torch.ones(3)), torch.zeros(4)))
        x = st.sddmm(z, torch.ones(4, 2), torch.ones(2, 3))
        self.assertEqual(x.values().numel(), 0)
        self.assertEqual(st.stats()["compiles"], before["compiles"])


if __name__ == "__main__":
    unittest.main()
