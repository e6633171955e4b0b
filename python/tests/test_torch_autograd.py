"""Tests of sptune.torch's autograd: gradients of spmm, spmv and sddmm
(dense inputs and sparse values) pass torch.autograd.gradcheck in float64
and float32, equal PyTorch's own in float32, flow through chained layers, and the
operators survive torch.jit.trace / torch.jit.script.

    cd python && /usr/bin/python3 -m unittest -v tests.test_torch_autograd

Compiles take seconds each, so the tests share kernels: one 7 x 5 matrix
(an empty row, a row with one entry, an empty column) with N = 3 in f64 and
f32 (spmm, spmv, sddmm and sddmm_bt on it and on its transpose), and a
symmetric 12 x 12 graph for the GCN step, in a temporary cache directory.
"""

import io
import sys
import unittest
import warnings

from unittest import mock

from tests.torch_env import TemporaryCache

try:
    import torch
except ImportError:  # pragma: no cover - python3-torch missing
    torch = None

if torch is not None:
    import sptune.torch as st

_cache = TemporaryCache("sptune-torch-autograd-test.")
#: Largest relative error of each float32 gradient against PyTorch's
#: (max |ours - torch| / max |torch|), printed at the end.
F32_ERRORS = {}


def setUpModule():
    if torch is None:
        raise unittest.SkipTest("python3-torch is not installed")
    _cache.enter(st)


def tearDownModule():
    _cache.exit()
    for key in sorted(F32_ERRORS):
        print(f"f32 max relative error {key}: {F32_ERRORS[key]:.2e}",
              file=sys.stderr)


N = 3


def _matrix(dtype):
    """7 x 5: row 0 empty, row 1 one entry, column 2 empty (an empty row of
    the transpose), the rest random at about half density."""
    g = torch.Generator().manual_seed(7)
    d = torch.rand(7, 5, generator=g, dtype=torch.float64) + 0.5
    d[torch.rand(7, 5, generator=g) > 0.55] = 0
    d[0] = 0
    d[1] = 0
    d[1, 3] = 1.25
    d[:, 2] = 0
    d[4, 0] = 0.75  # a value on every row but 0
    return d.to(dtype)


def _dense(shape, seed, dtype, grad=False):
    g = torch.Generator().manual_seed(seed)
    t = torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)
    return t.requires_grad_(grad)


class _CSR(torch.autograd.Function if torch else object):
    """values -> a CSR tensor with a fixed pattern, differentiable in the
    values (PyTorch 1.13's sparse_csr_tensor does not track them): what
    gradcheck perturbs for the sparse values."""

    @staticmethod
    def forward(ctx, values, crow, col, shape):
        ctx.pattern = (crow, col, shape)
        return torch.sparse_csr_tensor(crow, col, values.clone(), size=shape)

    @staticmethod
    def backward(ctx, g):
        crow, col, shape = ctx.pattern
        assert g.layout == torch.sparse_csr, g.layout
        if g.values().numel() == 0:  # zeros_like: an undefined gradient
            return torch.zeros(col.numel(), dtype=g.dtype), None, None, None
        assert torch.equal(g.crow_indices().long(), crow.long())
        assert torch.equal(g.col_indices().long(), col.long())
        return g.values(), None, None, None


class _Values(torch.autograd.Function if torch else object):
    """A CSR tensor -> its values, differentiable (PyTorch 1.13's .values()
    has no CSR backward): gradcheck's output of sddmm."""

    @staticmethod
    def forward(ctx, x):
        ctx.pattern = (x.crow_indices(), x.col_indices(), x.shape)
        return x.values().clone()

    @staticmethod
    def backward(ctx, g):
        crow, col, shape = ctx.pattern
        return torch.sparse_csr_tensor(crow, col, g.contiguous(), size=shape)


def _csr_of(values, like):
    return _CSR.apply(values, like.crow_indices(), like.col_indices(),
                      tuple(like.shape))


def _rel(ours, ref):
    ours = ours.to_dense() if ours.layout != torch.strided else ours
    ref = ref.to_dense() if ref.layout != torch.strided else ref
    return ((ours.double() - ref.double()).abs().max()
            / ref.double().abs().max().clamp(min=1e-30)).item()


def _check_f32(test, key, ours, ref):
    err = _rel(ours, ref)
    F32_ERRORS[key] = max(err, F32_ERRORS.get(key, 0.0))
    test.assertLess(err, 1e-5, key)


class GradCheck(unittest.TestCase):
    """torch.autograd.gradcheck in float64, every differentiable input."""

    dtype = torch.float64 if torch else None
    #: gradcheck's defaults (eps 1e-6, atol 1e-5, rtol 1e-3), for float64.
    tolerances = {}

    def setUp(self):
        self.d = _matrix(self.dtype)
        self.a = self.d.to_sparse_csr()
        self.vals = self.a.values().clone()

    def gradcheck(self, fn, inputs):
        # Every subset of the inputs that require grad (a gradient is only
        # computed when asked for: ctx.needs_input_grad).
        n = len(inputs)
        for mask in range(1, 1 << n):
            args = [t.detach().clone().requires_grad_(bool(mask >> i & 1))
                    for i, t in enumerate(inputs)]
            with self.subTest(requires_grad=[a.requires_grad for a in args]):
                self.assertTrue(torch.autograd.gradcheck(
                    fn, args, **self.tolerances))

    def test_spmm_gradcheck(self):
        b = _dense((5, N), 1, self.dtype)
        self.gradcheck(lambda v, b: st.spmm(_csr_of(v, self.a), b),
                       [self.vals, b])

    def test_spmv_gradcheck(self):
        x = _dense((5,), 2, self.dtype)
        self.gradcheck(lambda v, x: st.spmv(_csr_of(v, self.a), x),
                       [self.vals, x])

    def test_sddmm_gradcheck(self):
        p = _dense((7, N), 3, self.dtype)
        q = _dense((N, 5), 4, self.dtype)
        self.gradcheck(
            lambda v, p, q: _Values.apply(st.sddmm(_csr_of(v, self.a), p, q)),
            [self.vals, p, q])

    def test_sddmm_bt_gradcheck(self):
        # B = H.t(): the transposed view of a row-major K x N tensor, read as
        # stored forward (sddmm_bt) and backward (dA = W @ H without a copy).
        p = _dense((7, N), 5, self.dtype)
        h = _dense((5, N), 6, self.dtype)

        def fn(v, p, h):
            self.assertFalse(h.t().is_contiguous())
            return _Values.apply(st.sddmm(_csr_of(v, self.a), p, h.t()))
        self.gradcheck(fn, [self.vals, p, h])


class GradCheckFloat32(GradCheck):
    """The same in float32. The ops are linear in each input, so a central
    difference is exact but for rounding: with eps = 1e-3 the float32
    rounding of the outputs (about 1e-7 relative) becomes an error of about
    1e-4 in the numerical gradient, within atol = rtol = 1e-3; a wrong
    gradient (a missing term, a transposition) is off by O(1)."""

    dtype = torch.float32 if torch else None
    tolerances = {"eps": 1e-3, "atol": 1e-3, "rtol": 1e-3}

    def setUp(self):
        super().setUp()
        warnings.filterwarnings(
            "ignore", message=".*not a double precision floating point.*")


class Float32(unittest.TestCase):
    """float32 gradients against PyTorch's own (torch.sparse.mm, dense)."""

    def setUp(self):
        self.d = _matrix(torch.float32)
        self.mask = (self.d != 0).float()

    def test_spmm_f32(self):
        for idx in (torch.int64, torch.int32):
            with self.subTest(indices=idx):
                a0 = self.d.to_sparse_csr()
                a = torch.sparse_csr_tensor(
                    a0.crow_indices().to(idx), a0.col_indices().to(idx),
                    a0.values(), size=a0.shape).requires_grad_()
                b = _dense((5, N), 10, torch.float32, grad=True)
                r = _dense((7, N), 11, torch.float32)
                (st.spmm(a, b) * r).sum().backward()
                self.assertEqual(a.grad.layout, torch.sparse_csr)
                self.assertTrue(torch.equal(a.grad.crow_indices(), a.crow_indices()))
                self.assertTrue(torch.equal(a.grad.col_indices(), a.col_indices()))
                # PyTorch's own: a CSR gradient for A, dense for B.
                a2 = self.d.to_sparse_csr().requires_grad_()
                b2 = b.detach().clone().requires_grad_()
                (torch.sparse.mm(a2, b2) * r).sum().backward()
                _check_f32(self, "spmm dB", b.grad, b2.grad)
                _check_f32(self, "spmm dA", a.grad, a2.grad)
                torch.testing.assert_close(a.grad.values(), a2.grad.values(),
                                           rtol=1e-5, atol=1e-5)
                # And the dense math.
                ad = self.d.clone().requires_grad_()
                bd = b.detach().clone().requires_grad_()
                ((ad @ bd) * r).sum().backward()
                _check_f32(self, "spmm dA", a.grad, ad.grad * self.mask)
                _check_f32(self, "spmm dB", b.grad, bd.grad)

    def test_spmv_f32(self):
        a = self.d.to_sparse_csr().requires_grad_()
        x = _dense((5,), 12, torch.float32, grad=True)
        r = _dense((7,), 13, torch.float32)
        (st.spmv(a, x) * r).sum().backward()
        self.assertEqual(a.grad.layout, torch.sparse_csr)
        # torch.mv on CSR needs MKL; sparse.mm on a column does not.
        a2 = self.d.to_sparse_csr().requires_grad_()
        x2 = x.detach().clone().requires_grad_()
        (torch.sparse.mm(a2, x2.unsqueeze(1)).squeeze(1) * r).sum().backward()
        _check_f32(self, "spmv dx", x.grad, x2.grad)
        _check_f32(self, "spmv dA", a.grad, a2.grad)
        ad = self.d.clone().requires_grad_()
        xd = x.detach().clone().requires_grad_()
        ((ad @ xd) * r).sum().backward()
        _check_f32(self, "spmv dA", a.grad, ad.grad * self.mask)
        _check_f32(self, "spmv dx", x.grad, xd.grad)

    def _sddmm_case(self, bt):
        s = self.d.to_sparse_csr().requires_grad_()
        p = _dense((7, N), 14, torch.float32, grad=True)
        h = _dense((5, N), 15, torch.float32, grad=True)  # B = h.t()
        q = _dense((N, 5), 16, torch.float32, grad=True)
        b = h.t() if bt else q
        r = _dense((s.values().numel(),), 17, torch.float32)
        x = st.sddmm(s, p, b)
        self.assertTrue(torch.equal(x.crow_indices(), s.crow_indices()))
        (_Values.apply(x) * r).sum().backward()
        self.assertEqual(s.grad.layout, torch.sparse_csr)
        # Dense math: X = S .* (P @ B), the same weights on S's entries.
        sd = self.d.clone().requires_grad_()
        pd = p.detach().clone().requires_grad_()
        hd = h.detach().clone().requires_grad_()
        qd = q.detach().clone().requires_grad_()
        bd = hd.t() if bt else qd
        rd = torch.zeros(7, 5)
        rd[self.d != 0] = r  # row-major order = CSR order
        (sd * (pd @ bd) * rd).sum().backward()
        name = "sddmm_bt" if bt else "sddmm"
        _check_f32(self, f"{name} dS", s.grad, sd.grad * self.mask)
        _check_f32(self, f"{name} dA", p.grad, pd.grad)
        if bt:
            _check_f32(self, f"{name} dB", h.grad, hd.grad)
            self.assertIsNone(q.grad)
        else:
            _check_f32(self, f"{name} dB", q.grad, qd.grad)
            self.assertIsNone(h.grad)

    def test_sddmm_f32(self):
        self._sddmm_case(bt=False)

    def test_sddmm_bt_f32(self):
        self._sddmm_case(bt=True)


class Behaviour(unittest.TestCase):
    """What runs when: no Function without grad, only the gradients asked
    for, the per-pattern transpose cache, empty matrices, errors."""

    def setUp(self):
        self.d = _matrix(torch.float32)
        self.b = _dense((5, N), 20, torch.float32)

    def test_old_error_is_gone(self):
        a = self.d.to_sparse_csr().requires_grad_()
        b = self.b.clone().requires_grad_()
        x = _dense((5,), 21, torch.float32, grad=True)
        p = _dense((7, N), 22, torch.float32, grad=True)
        q = _dense((N, 5), 23, torch.float32, grad=True)
        for name, call in (("spmm", lambda: st.spmm(a, b)),
                           ("spmv", lambda: st.spmv(a, x)),
                           ("sddmm", lambda: st.sddmm(a, p, q))):
            with self.subTest(op=name):
                try:
                    out = call()
                except ValueError as e:  # the old "no autograd support"
                    self.fail(f"{name} refused an input that requires grad: {e}")
                self.assertTrue(out.requires_grad)
                self.assertIsNotNone(out.grad_fn)

    def test_no_grad_path(self):
        a = self.d.to_sparse_csr().requires_grad_()
        b = self.b.clone().requires_grad_()
        with torch.no_grad():
            c = st.spmm(a, b)
        self.assertIsNone(c.grad_fn)
        self.assertFalse(c.requires_grad)
        c2 = st.spmm(self.d.to_sparse_csr(), self.b)  # nothing requires grad
        self.assertIsNone(c2.grad_fn)
        torch.testing.assert_close(c, c2)
        with mock.patch.object(st._SpMMFunction, "apply") as apply:
            st.spmm(self.d.to_sparse_csr(), self.b)
            with torch.no_grad():
                st.spmm(a, b)
        apply.assert_not_called()

    def test_only_needed_gradients(self):
        a = self.d.to_sparse_csr()
        ag = self.d.to_sparse_csr().requires_grad_()
        bg = self.b.clone().requires_grad_()
        st.spmm(ag, bg).sum().backward()  # compiled (or loaded) here
        with mock.patch.object(st, "_sddmm_values", wraps=st._sddmm_values) as sd, \
                mock.patch.object(st, "_spmm", wraps=st._spmm) as mm:
            st.spmm(a, bg).sum().backward()       # dB only: SpMM on A^T
            self.assertEqual(sd.call_count, 0)
            self.assertEqual(mm.call_count, 2)    # forward, A^T @ G
            self.assertEqual(mm.call_args[0][0].shape, (5, 7))
            sd.reset_mock()
            mm.reset_mock()
            ag.grad = None  # CSR gradients do not accumulate without MKL
            st.spmm(ag, self.b).sum().backward()  # dA only: SDDMM
            self.assertEqual(sd.call_count, 1)
            self.assertEqual(mm.call_count, 1)    # the forward

    def test_transpose_cache(self):
        a = self.d.to_sparse_csr().requires_grad_()
        b = self.b.clone().requires_grad_()
        st.spmm(a, b).sum().backward()
        before = st.stats()
        patterns = len(st._patterns)
        # New values in place: A^T follows them (permuted, not cached);
        # nothing is compiled, the transpose's indices are reused.
        with torch.no_grad():
            a.values().mul_(-3)
        b.grad = None
        a.grad = None
        g = _dense((7, N), 24, torch.float32)
        st.spmm(a, b).backward(g)
        after = st.stats()
        self.assertEqual(after["compiles"], before["compiles"])
        self.assertEqual(len(st._patterns), patterns)
        self.assertEqual(after["hashes"], before["hashes"] + 1)  # A rehashed
        torch.testing.assert_close(b.grad, (-3 * self.d).t() @ g,
                                   rtol=1e-5, atol=1e-5)
        at = st._patterns[st._matrix_info(a).fingerprint]
        self.assertEqual(at.t_info.crow.numel(), 6)

    def test_empty_matrix(self):
        before = st.stats()
        z = torch.zeros(4, 3).to_sparse_csr().requires_grad_()
        b = torch.ones(3, 2, requires_grad=True)
        x = torch.ones(3, requires_grad=True)
        p = torch.ones(4, 2, requires_grad=True)
        q = torch.ones(2, 3, requires_grad=True)
        st.spmm(z, b).sum().backward()
        self.assertTrue(torch.equal(b.grad, torch.zeros(3, 2)))
        self.assertEqual(z.grad.values().numel(), 0)
        z.grad = None  # CSR gradients do not accumulate without MKL
        st.spmv(z, x).sum().backward()
        z.grad = None
        self.assertTrue(torch.equal(x.grad, torch.zeros(3)))
        _Values.apply(st.sddmm(z, p, q)).sum().backward()
        self.assertTrue(torch.equal(p.grad, torch.zeros(4, 2)))
        self.assertTrue(torch.equal(q.grad, torch.zeros(2, 3)))
        self.assertEqual(st.stats()["compiles"], before["compiles"])

    def test_dense_gradients_accumulate(self):
        a = self.d.to_sparse_csr()
        b = self.b.clone().requires_grad_()
        st.spmm(a, b).sum().backward()
        st.spmm(a, b).sum().backward()
        torch.testing.assert_close(b.grad, 2 * self.d.t() @ torch.ones(7, N),
                                   rtol=1e-5, atol=1e-5)

    def test_errors_with_grad(self):
        a = self.d.to_sparse_csr().requires_grad_()
        with self.assertRaisesRegex(TypeError, "dtype"):
            st.spmm(a, self.b.double().requires_grad_())
        with self.assertRaisesRegex(ValueError, "shape"):
            st.spmv(a, torch.ones(4, requires_grad=True))
        with self.assertRaisesRegex(TypeError, "sparse CSR"):
            st.sddmm(self.d.requires_grad_(), torch.ones(7, 2), torch.ones(2, 5))

    def test_incoming_gradient_layouts(self):
        # sddmm's CSR result into PyTorch's own CSR @ dense (matmul): the
        # gradient that comes back is dense, sampled on S's pattern.
        s = self.d.to_sparse_csr().requires_grad_()
        p = _dense((7, N), 26, torch.float32, grad=True)
        q = _dense((N, 5), 27, torch.float32, grad=True)
        v = _dense((5, 2), 28, torch.float32)
        (st.sddmm(s, p, q) @ v).sum().backward()
        sd, pd, qd = [t.detach().clone().requires_grad_() for t in (self.d, p, q)]
        ((sd * (pd @ qd)) @ v).sum().backward()
        mask = (self.d != 0).float()
        for name, ours, ref in (("S", s.grad, sd.grad * mask), ("A", p.grad, pd.grad),
                                ("B", q.grad, qd.grad)):
            with self.subTest(grad=name):
                _check_f32(self, f"sddmm dense-G d{name}", ours, ref)
        # COO and CSR gradients of another pattern: entries off S's pattern
        # are ignored, entries of S missing from them are 0.
        pat = st._pattern(self.d.to_sparse_csr())
        g = _dense((7, 5), 29, torch.float32)
        g[3] = 0  # row 3 of S has entries: missing from the sparse forms
        want = (g * mask)[self.d != 0]
        for form in (g, g.to_sparse(), g.to_sparse_csr()):
            with self.subTest(layout=form.layout):
                torch.testing.assert_close(pat.sample(form), want)

    def test_forced_storage_backward(self):
        # Column-major storage (a conversion in the library): the backward's
        # SpMM on A^T and SDDMM of the ones pattern run on converted storage.
        st._force_schedule.update({
            "spmm": "cpu spmm, levels = [k : compressed, i : compressed], "
                    "split = [1, 1], order = [k, i, j], widths = [64, 64]",
            "sddmm": "cpu sddmm, levels = [j : dense, i : compressed], "
                     "split = [1, 1], order = [j, i, k], widths = [32, 32]"})
        try:
            a = self.d.to_sparse_csr().requires_grad_()
            b = self.b.clone().requires_grad_()
            self.assertTrue(st.kernel_info("spmm", a, N)["prepare"])
            r = _dense((7, N), 25, torch.float32)
            for rep in range(2):
                a.grad = b.grad = None
                (st.spmm(a, b) * r).sum().backward()
                with self.subTest(call=rep):
                    torch.testing.assert_close(b.grad, self.d.t() @ r,
                                               rtol=1e-5, atol=1e-5)
                    torch.testing.assert_close(a.grad.to_dense(),
                                               (r @ self.b.t()) * (self.d != 0),
                                               rtol=1e-5, atol=1e-5)
        finally:
            st._force_schedule.clear()


def _graph(n=12):
    """A symmetric 12-node graph with self loops, GCN-normalized."""
    adj = torch.eye(n)
    for i in range(n):
        adj[i, (i + 1) % n] = adj[(i + 1) % n, i] = 1
    adj[0, 5] = adj[5, 0] = adj[3, 9] = adj[9, 3] = 1
    deg = adj.sum(1)
    return adj / torch.sqrt(deg[:, None] * deg[None, :])


class Chained(unittest.TestCase):
    """Gradients through two chained layers, against dense torch."""

    def test_gcn_two_layers(self):
        adj = _graph()
        a = adj.to_sparse_csr()
        feats = _dense((12, 4), 30, torch.float32, grad=True)
        w1 = _dense((4, N), 31, torch.float32, grad=True)
        w2 = _dense((N, N), 32, torch.float32, grad=True)
        labels = torch.arange(12) % N

        def step(mm, x, w1, w2):
            h = torch.relu(mm(x @ w1))
            return torch.nn.functional.cross_entropy(mm(h @ w2), labels)
        loss = step(lambda m: st.spmm(a, m), feats, w1, w2)
        loss.backward()
        ref = [t.detach().clone().requires_grad_() for t in (feats, w1, w2)]
        ref_loss = step(lambda m: adj @ m, *ref)
        ref_loss.backward()
        torch.testing.assert_close(loss, ref_loss, rtol=1e-5, atol=1e-6)
        for name, ours, theirs in zip(("X", "W1", "W2"), (feats, w1, w2), ref):
            with self.subTest(grad=name):
                _check_f32(self, f"gcn d{name}", ours.grad, theirs.grad)

    def test_attention_chain(self):
        # X = S .* (Q @ K^T) (sddmm with B = K.t()), out = X @ V (spmm on
        # X): the CSR gradient of X flows from spmm's backward into sddmm's.
        d = _matrix(torch.float32)
        s = d.to_sparse_csr().requires_grad_()
        q = _dense((7, N), 33, torch.float32, grad=True)
        k = _dense((5, N), 34, torch.float32, grad=True)
        v = _dense((5, N), 35, torch.float32, grad=True)
        out = st.spmm(st.sddmm(s, q, k.t()), v)
        (out ** 2).sum().backward()
        ref = [t.detach().clone().requires_grad_() for t in (d, q, k, v)]
        sd, qd, kd, vd = ref
        ((sd * (qd @ kd.t())) @ vd).pow(2).sum().backward()
        _check_f32(self, "attention dS", s.grad, sd.grad * (d != 0))
        for name, ours, theirs in (("Q", q, qd), ("K", k, kd), ("V", v, vd)):
            with self.subTest(grad=name):
                _check_f32(self, f"attention d{name}", ours.grad, theirs.grad)


def _program(s, p, h, x):
    y = st.sddmm(s, p, h.t())          # 7 x 5 CSR
    c = st.spmm(y, h)                  # 7 x N
    return c.sum(1) + st.spmv(s, x)    # 7


class Jit(unittest.TestCase):
    """torch.ops.sptune.*: traced and scripted programs keep the calls."""

    def setUp(self):
        self.d = _matrix(torch.float64)
        self.s = self.d.to_sparse_csr()
        self.args = [_dense((7, N), 40, torch.float64),
                     _dense((5, N), 41, torch.float64),
                     _dense((5,), 42, torch.float64)]

    def check_program(self, prog):
        # Other inputs than the trace's: the operators run, not constants.
        p, h, x = [_dense(t.shape, 50 + i, torch.float64, grad=True)
                   for i, t in enumerate(self.args)]
        out = prog(self.s, p, h, x)
        out.sum().backward()
        ref = [t.detach().clone().requires_grad_() for t in (p, h, x)]
        ref_out = _program(self.s, *ref)
        ref_out.sum().backward()
        torch.testing.assert_close(out, ref_out, rtol=1e-12, atol=1e-12)
        for ours, theirs in zip((p, h, x), ref):
            torch.testing.assert_close(ours.grad, theirs.grad,
                                       rtol=1e-12, atol=1e-12)
        with torch.inference_mode():  # the kernels below autograd
            torch.testing.assert_close(prog(self.s, p, h, x), ref_out,
                                       rtol=1e-12, atol=1e-12)

    def saved_and_loaded(self, prog):
        buf = io.BytesIO()
        torch.jit.save(prog, buf)
        buf.seek(0)
        return torch.jit.load(buf)

    def test_jit_trace(self):
        traced = torch.jit.trace(_program, (self.s, *self.args),
                                 check_trace=False)
        graph = str(traced.graph)
        for op in ("sptune::sddmm", "sptune::spmm", "sptune::spmv"):
            self.assertIn(op, graph)
        self.check_program(traced)
        self.check_program(self.saved_and_loaded(traced))

    def test_jit_script(self):
        scripted = torch.jit.script(_program)
        graph = str(scripted.graph)
        for op in ("sptune::sddmm", "sptune::spmm", "sptune::spmv"):
            self.assertIn(op, graph)
        self.check_program(scripted)
        self.check_program(self.saved_and_loaded(scripted))

    def test_operator_errors(self):
        with self.assertRaisesRegex(TypeError, "sparse CSR"):
            torch.ops.sptune.spmm(self.d, self.args[1])
        with self.assertRaisesRegex(ValueError, "shape"):
            torch.ops.sptune.spmv(self.s, torch.ones(3, dtype=torch.float64))
        # Without the operators a trace would record the result as a
        # constant: refused instead.
        with mock.patch.object(st, "_library", None):
            with self.assertRaisesRegex(RuntimeError, "cannot trace spmv"):
                torch.jit.trace(lambda s, x: st.spmv(s, x),
                                (self.s, self.args[2]), check_trace=False)


if __name__ == "__main__":
    unittest.main()
