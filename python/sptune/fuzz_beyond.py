"""The `beyond` family of the program fuzzer (sptune.program_fuzz): kernels
beyond SpMM, SDDMM and SpMV in f32 / f64 (issue 33).

- mttkrp: A(i, j) = sum over k, l of B(i, k, l) C(k, j) D(l, j), B a 3-D
  sparse tensor (CSF with every level compressed, dense then compressed,
  COO with its coordinates as an array of structures or, 32-bit, one
  buffer per level, or only its last level compressed);
- batched: C(b, i, j) = sum over k of A(b, i, k) B(b, k, j), A 3-D sparse
  (dense batches of CSR, or of DCSR, or COO as for mttkrp), as
  linalg.batch_matmul;
- half: SpMM over CSR in f16 or bf16.

sptune tunes the f16 / bf16 SpMM, an MTTKRP over CSF or ordered COO (the
kernel type `mttkrp`: the heuristic's schedule, its kernel's knobs) and a
batched SpMM over dense batches of CSR rows or ordered COO (the kernel
type `batched_spmm`, likewise); they must get a schedule. Those in other
storage pass through untuned with a remark (they must get none). Every 3-D kernel
must get a parallel loop from the CPU target's rule or sptune's own
kernels. The
program runs through extract-kernels, default-schedule or autotune
(heuristic), apply-schedule and sptune-lower-cpu with a random `threads=`
(and, for MTTKRP, a random `mttkrp-form=`);
its printed result (f16 / bf16 widened to f32 to print) must match a Python
reference to the element type's precision, and so must upstream's.
"""

import collections
import random
import shlex

from sptune.fuzz_common import (UPSTREAM_PIPELINE, why_schedules_differ,
                                why_values_differ)

KINDS = ["mttkrp", "batched", "half"]
ENCODINGS_3D = {
    "csf": "(i : compressed, j : compressed, k : compressed)",
    "dense-csr": "(i : dense, j : compressed, k : compressed)",
    "coo": "(i : compressed(nonunique), j : singleton(nonunique), k : singleton)",
    # One coordinates buffer per level, 32-bit positions and coordinates.
    "coo-soa32": "(i : compressed(nonunique), j : singleton(nonunique, soa), "
                 "k : singleton(soa)), posWidth = 32, crdWidth = 32",
    "dense-dense-compressed": "(i : dense, j : dense, k : compressed)",
}


def halves(rng):
    return rng.choice([-1, 1]) * rng.randint(1, 4) / 2.0


class BeyondCase:
    """One random program of a kernel beyond the three."""

    family = "beyond"
    exact_upstream = False

    def __init__(self, seed, n):
        rng = random.Random("beyond-fuzz:%d:%d" % (seed, n))
        self.n = n
        self.kind = rng.choice(KINDS)
        side = lambda hi: 1 if rng.random() < 0.25 else rng.randint(2, hi)
        density = rng.choice([0.0, 0.1, 0.3, 0.7, 1.0])
        if self.kind == "half":
            self.elt = rng.choice(["f16", "bf16"])
            self.encoding = "csr"
            self.shape = (side(12), side(8))  # A: m x k
            self.free = side(10)
        else:
            self.elt = rng.choice(["f32", "f64"])
            self.encoding = rng.choice(sorted(ENCODINGS_3D))
            self.shape = (side(6), side(7), side(7))
            self.free = side(5)
        self.sparse = self._random_tensor(rng, self.shape, density)
        if self.kind == "mttkrp":
            _, k, l = self.shape
            self.c = [[halves(rng) for _ in range(self.free)] for _ in range(k)]
            self.d = [[halves(rng) for _ in range(self.free)] for _ in range(l)]
        elif self.kind == "batched":
            nb, _, k = self.shape
            self.b = [[[halves(rng) for _ in range(self.free)] for _ in range(k)]
                      for _ in range(nb)]
        else:
            self.b = [[halves(rng) for _ in range(self.free)]
                      for _ in range(self.shape[1])]
        self.tuner = rng.choice(["default-schedule", "heuristic"])
        self.threads = rng.choice([None, None, 1, 2, 3])
        self.omp_threads = rng.choice([1, 2, 3, 4])
        # What the 3-D kernels' output starts from (sptune's own kernels
        # write it into the rows without entries themselves; a zero would
        # hide a row they leave unwritten in freshly mapped memory).
        self.fill = 0.0 if self.kind == "half" else rng.choice([0.0, 0.5, -1.5])
        # How sptune's MTTKRP kernel sums a slice (None: `auto`).
        self.mttkrp_form = (rng.choice([None, "factored", "entry-wise"])
                            if self.kind == "mttkrp" else None)

    @staticmethod
    def _random_tensor(rng, shape, density):
        """{coordinates: value} of the sparse operand's non-zeros."""
        entries = {}

        def walk(prefix, dims):
            if not dims:
                if rng.random() < density:
                    entries[prefix] = halves(rng)
                return
            for x in range(dims[0]):
                walk(prefix + (x,), dims[1:])
        walk((), list(shape))
        return entries

    # -- what the driver asks of a case (sptune.program_fuzz) ---------------

    def prepare(self, workdir):
        """Nothing to write: the program holds its operands."""

    def sptune_args(self, workdir):
        tuner = ("--sptune-default-schedule" if self.tuner == "default-schedule"
                 else "--sptune-autotune=mode=heuristic")
        options = (["threads=%d" % self.threads] if self.threads else []) + (
            ["mttkrp-form=" + self.mttkrp_form] if self.mttkrp_form else [])
        return ["--sptune-extract-kernels", tuner, "--sptune-apply-schedule",
                "--sptune-lower-cpu" + ("=" + " ".join(options) if options else "")]

    def schedule_args(self, workdir):
        return self.sptune_args(workdir)[:-1]

    def upstream_args(self):
        return [UPSTREAM_PIPELINE]

    def expected_schedules(self):
        """The f16 / bf16 SpMM is tuned, and an MTTKRP or batched SpMM that
        sptune's kernel computes (include/sptune/Analysis/MttkrpForm.h: CSF
        or ordered COO, not dense-dense-compressed; BatchedSpmmForm.h: dense
        batches of CSR rows or ordered COO); the others pass through."""
        if self.kind == "half":
            return collections.Counter(["spmm"])
        if self.kind == "mttkrp" and self.encoding != "dense-dense-compressed":
            return collections.Counter(["mttkrp"])
        if self.kind == "batched" and self.encoding in (
                "dense-dense-compressed", "coo", "coo-soa32"):
            return collections.Counter(["batched_spmm"])
        return collections.Counter()

    def expects_parallel_loop(self):
        """Whether the CPU target's rule for kernels without a schedule
        (targets/cpu/UnscheduledKernels.h) must leave a parallel loop: the
        3-D kernels' outer loop (i, or the batch) indexes the output and
        comes first (under COO, sptune's own kernels walk the entries in
        blocks: cpu/CooEntries.h), except where a dense outer level of one
        position is folded away, and where sptune's own kernels cut their
        rows, slices or entries into threads=1 block (one iteration of
        their loop over blocks, folded away): the batched kernel
        (cpu/BatchedRowsSpmm.h) over dense batches of CSR rows, the MTTKRP
        kernel (cpu/FactoredMttkrp.h) over CSF, either over COO."""
        if self.kind == "half":
            return False
        if self.encoding.startswith("coo"):
            return self.threads != 1
        own_kernel = ((self.kind == "batched" and self.encoding == "dense-dense-compressed")
                      or (self.kind == "mttkrp" and self.encoding in ("csf", "dense-csr")))
        if own_kernel and self.threads == 1:
            return False
        outer_dense = ENCODINGS_3D[self.encoding].startswith("(i : dense")
        return not (outer_dense and self.shape[0] == 1)

    def why_kernels_unused(self, lowered, scheduled):
        why = why_schedules_differ(scheduled, self.expected_schedules())
        if not why and self.expects_parallel_loop() and "omp.wsloop" not in lowered:
            why = ("the %s kernel runs in parallel (sptune's own kernel, or "
                   "the CPU target's rule for kernels without a schedule), but "
                   "the lowered program has no parallel loop (no omp.wsloop)"
                   % self.kind)
        return why

    def check(self, stdout):
        return why_values_differ(stdout, self.reference(False),
                                 self.reference(True), self.elt)

    def describe(self):
        return ("%s %s %s %s free=%d nnz=%d, %s, OMP_NUM_THREADS=%d" % (
            self.kind, self.elt, self.encoding,
            "x".join(map(str, self.shape)), self.free, len(self.sparse),
            " ".join(shlex.quote(a) for a in self.sptune_args("DIR")),
            self.omp_threads))

    # -- the reference -------------------------------------------------------

    def reference(self, magnitude):
        """The printed values in order; with `magnitude`, the sums of the
        terms' absolute values."""
        f = abs if magnitude else (lambda x: x)
        fill = f(self.fill)
        if self.kind == "mttkrp":
            out = [[fill] * self.free for _ in range(self.shape[0])]
            for (i, k, l), v in self.sparse.items():
                for j in range(self.free):
                    out[i][j] += f(v) * f(self.c[k][j]) * f(self.d[l][j])
            return [x for row in out for x in row]
        if self.kind == "batched":
            nb, m, _ = self.shape
            out = [[[fill] * self.free for _ in range(m)] for _ in range(nb)]
            for (b, i, k), v in self.sparse.items():
                for j in range(self.free):
                    out[b][i][j] += f(v) * f(self.b[b][k][j])
            return [x for mat in out for row in mat for x in row]
        out = [[0.0] * self.free for _ in range(self.shape[0])]
        for (i, k), v in self.sparse.items():
            for j in range(self.free):
                out[i][j] += f(v) * f(self.b[k][j])
        return [x for row in out for x in row]

    # -- the program ---------------------------------------------------------

    def dense_literal(self, shape, value):
        if len(shape) == 1:
            return "[" + ", ".join(repr(float(value((x,)))) for x in range(shape[0])) + "]"
        return "[" + ", ".join(self.dense_literal(shape[1:], lambda c, x=x: value((x,) + c))
                               for x in range(shape[0])) + "]"

    def tensor(self, shape, enc=""):
        return "tensor<%sx%s%s>" % ("x".join(map(str, shape)), self.elt,
                                    ", #SP" if enc else "")

    def constant(self, name, shape, value):
        return "  %%%s = arith.constant dense<%s> : %s" % (
            name, self.dense_literal(shape, value), self.tensor(shape))

    def product_function(self, op, ts, b_shape, out_shape):
        """@kernel(a, b) = op(a, b) into a result filled with self.fill."""
        T, tb, to = self.elt, self.tensor(b_shape), self.tensor(out_shape)
        return ["func.func @kernel(%%a: %s, %%b: %s) -> %s {" % (ts, tb, to),
                "  %%zero = arith.constant %s : %s" % (repr(float(self.fill)), T),
                "  %%e = tensor.empty() : %s" % to,
                "  %%f = linalg.fill ins(%%zero : %s) outs(%%e : %s) -> %s" % (T, to, to),
                "  %%r = %s ins(%%a, %%b : %s, %s) outs(%%f : %s) -> %s"
                % (op, ts, tb, to, to),
                "  return %%r : %s" % to, "}", ""]

    def program(self):
        T = self.elt
        if self.kind == "half":
            enc = "(i, j) -> (i : dense, j : compressed)"
        else:
            enc = "(i, j, k) -> " + ENCODINGS_3D[self.encoding]
        lines = ["#SP = #sparse_tensor.encoding<{ map = %s }>" % enc, ""]
        ts = self.tensor(self.shape, "SP")
        zero = "  %%zero = arith.constant %s : %s" % (repr(float(self.fill)), T)
        if self.kind == "mttkrp":
            i, k, l = self.shape
            tc, td = self.tensor((k, self.free)), self.tensor((l, self.free))
            to = self.tensor((i, self.free))
            lines += [
                "func.func @kernel(%%b: %s, %%c: %s, %%d: %s) -> %s {" % (ts, tc, td, to),
                zero,
                "  %%e = tensor.empty() : %s" % to,
                "  %%a = linalg.fill ins(%%zero : %s) outs(%%e : %s) -> %s" % (T, to, to),
                "  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k, l) -> (i, k, l)>, "
                "affine_map<(i, j, k, l) -> (k, j)>, affine_map<(i, j, k, l) -> (l, j)>, "
                "affine_map<(i, j, k, l) -> (i, j)>], iterator_types = "
                "[\"parallel\", \"parallel\", \"reduction\", \"reduction\"]}",
                "      ins(%%b, %%c, %%d : %s, %s, %s) outs(%%a : %s) {" % (ts, tc, td, to),
                "  ^bb0(%%x: %s, %%y: %s, %%z: %s, %%o: %s):" % (T, T, T, T),
                "    %%p = arith.mulf %%x, %%y : %s" % T,
                "    %%q = arith.mulf %%p, %%z : %s" % T,
                "    %%s = arith.addf %%o, %%q : %s" % T,
                "    linalg.yield %%s : %s" % T,
                "  } -> %s" % to,
                "  return %%r : %s" % to, "}", ""]
            operands = [("c", (k, self.free), lambda c: self.c[c[0]][c[1]]),
                        ("d", (l, self.free), lambda c: self.d[c[0]][c[1]])]
            out_shape = (i, self.free)
        elif self.kind == "batched":
            nb, m, k = self.shape
            lines += self.product_function("linalg.batch_matmul", ts,
                                           (nb, k, self.free), (nb, m, self.free))
            operands = [("b", (nb, k, self.free), lambda c: self.b[c[0]][c[1]][c[2]])]
            out_shape = (nb, m, self.free)
        else:
            m, k = self.shape
            lines += self.product_function("linalg.matmul", ts, (k, self.free),
                                           (m, self.free))
            operands = [("b", (k, self.free), lambda c: self.b[c[0]][c[1]])]
            out_shape = (m, self.free)
        return "\n".join(lines + self.main_function(
            [("s", self.shape, self.sparse, ts)], operands, out_shape))

    def main_function(self, sparse_inputs, operands, out_shape):
        """@main: each sparse input (name, shape, {coordinates: value}, its
        tensor type) converted from a dense constant, the dense operands
        (name, shape, value of coordinates) as constants, @kernel called on
        them in that order, and every value of its result printed."""
        T = self.elt
        lines = ["func.func @main() {"]
        for name, shape, entries, ts in sparse_inputs:
            lines += [self.constant("d" + name, shape, lambda c, e=entries: e.get(c, 0.0)),
                      "  %%%s = sparse_tensor.convert %%d%s : %s to %s" % (
                          name, name, self.tensor(shape), ts)]
        for name, shape, value in operands:
            lines.append(self.constant(name, shape, value))
        args = (["%" + name for name, _, _, _ in sparse_inputs] +
                ["%" + name for name, _, _ in operands])
        types = ([ts for _, _, _, ts in sparse_inputs] +
                 [self.tensor(shape) for _, shape, _ in operands])
        to = self.tensor(out_shape)
        lines.append("  %%r = call @kernel(%s) : (%s) -> %s" % (
            ", ".join(args), ", ".join(types), to))
        lines.append("  %c0 = arith.constant 0 : index")
        lines.append("  %c1 = arith.constant 1 : index")
        ivs = []
        for d, extent in enumerate(out_shape):
            lines.append("  %s%%n%d = arith.constant %d : index" % ("  " * d, d, extent))
            lines.append("  %sscf.for %%i%d = %%c0 to %%n%d step %%c1 {" % ("  " * d, d, d))
            ivs.append("%%i%d" % d)
        pad = "  " * len(out_shape)
        lines.append("  %s%%x = tensor.extract %%r[%s] : %s" % (pad, ", ".join(ivs), to))
        if T in ("f16", "bf16"):
            lines.append("  %s%%w = arith.extf %%x : %s to f32" % (pad, T))
            lines.append("  %svector.print %%w : f32" % pad)
        else:
            lines.append("  %svector.print %%x : %s" % (pad, T))
        for d in reversed(range(len(out_shape))):
            lines.append("  %s}" % ("  " * d))
        lines += ["  bufferization.dealloc_tensor %%%s : %s" % (name, ts)
                  for name, _, _, ts in sparse_inputs]
        lines += ["  return", "}", ""]
        return lines
