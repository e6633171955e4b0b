"""The SpGEMM family of the program fuzzer (sptune.program_fuzz).

`sptune-lower-cpu` computes CSR x CSR -> CSR products with sptune's own
parallel Gustavson kernel (targets/cpu/GustavsonSpgemm.h), whose result is
meant to be exactly upstream's. A case is a random program
(`linalg.matmul`, or the generic with the operands in the other order, or
two products chained, the first one's result the second one's input) on
random small matrices with awkward structure (empty rows, all-zero or full
matrices, rows wider than a 64-bit word of the kernel's bit set, at times
a B of a few entries a row scattered over 3,000-12,000 columns, whose
products' rows the kernel sorts instead of reading them off its bit set,
sums that cancel to zero), element types f32 / f64 / i32 / i64, positions and
coordinates of 8, 16, 32 or 64 bits, static or dynamic shapes; lowered by
`--sptune-lower-cpu` with random `threads=`, `gustavson-one-pass-bytes=`
(one pass or two) and `gustavson-accumulator=` (a row's sums in a dense
workspace or a hash table), run under a random OMP_NUM_THREADS.

Each product's printed result (`sparse_tensor.print`) must equal upstream's
text exactly, and match a Python reference of the product: the stored
pattern (an entry wherever a stored entry of A meets a stored row of B,
sums that cancel kept as entries, as upstream keeps them) and the values
(exact for integers, to the printed precision for floats). Every product
whose result has positions and coordinates of 32 bits or more must be
computed by sptune's kernel (a call to it in the lowered code).
"""

import random
import re
import shlex

from sptune.fuzz_common import UPSTREAM_PIPELINE, close_enough

#: Widths of positions and coordinates (0: the default, 64 bits).
WIDTHS = [0, 0, 64, 32, 32, 16, 8]
ELEMENT_TYPES = ["f64", "f32", "i32", "i64"]
#: A call of sptune's kernel in the lowered code.
KERNEL_CALL = re.compile(r"call @sptune_gustavson_spgemm(_\d+)?\(")

# ----------------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------------

class Sparse:
    """A matrix as its stored entries: rows[i] = [(j, value), ...] in column
    order; explicit zeros are stored entries too."""

    def __init__(self, nrows, ncols, rows):
        self.nrows, self.ncols, self.rows = nrows, ncols, rows

    def nnz(self):
        return sum(len(r) for r in self.rows)

    def dense(self, zero):
        out = [[zero] * self.ncols for _ in range(self.nrows)]
        for i, r in enumerate(self.rows):
            for j, v in r:
                out[i][j] = v
        return out


def product(a, b):
    """A B as upstream stores it, with each value's sum of |terms| (the
    scale of its rounding error)."""
    rows = []
    for ra in a.rows:
        acc, scale = {}, {}
        for k, x in ra:
            for j, y in b.rows[k]:
                acc[j] = acc.get(j, 0) + x * y
                scale[j] = scale.get(j, 0) + abs(x * y)
        rows.append([(j, acc[j], scale[j]) for j in sorted(acc)])
    return Sparse(a.nrows, b.ncols, [[(j, v) for j, v, _ in r] for r in rows]), \
        [[s for _, _, s in r] for r in rows]


def random_value(rng, elt, exact):
    if elt.startswith("i"):
        return rng.choice([-3, -2, -1, 1, 2, 3])
    if exact:
        # Halves: every product and sum of these is exact in f32 and f64.
        return rng.choice([-1, 1]) * rng.randint(1, 8) / 2.0
    return float("%.6g" % rng.uniform(-2.0, 2.0))


def random_matrix(rng, nrows, ncols, elt, exact):
    """A matrix with one of several structures; only non-zero values (a
    dense constant converted to sparse stores its non-zeros)."""
    style = rng.choice(["uniform", "uniform", "sparse", "empty-rows",
                        "dense-rows", "zero", "full"])
    density = {"uniform": rng.choice([0.08, 0.2, 0.4]), "sparse": 0.03,
               "empty-rows": 0.3, "dense-rows": 0.05, "zero": 0.0,
               "full": 1.0}[style]
    rows = []
    for _ in range(nrows):
        d = density
        if style == "empty-rows" and rng.random() < 0.6:
            d = 0.0
        if style == "dense-rows" and rng.random() < 0.2:
            d = 0.9
        rows.append([(j, random_value(rng, elt, exact)) for j in range(ncols)
                     if rng.random() < d])
    return Sparse(nrows, ncols, rows), style


def scattered_matrix(rng, nrows, ncols, elt, exact):
    """1 to 4 entries a row at random columns (rows empty at times)."""
    rows = []
    for _ in range(nrows):
        count = 0 if rng.random() < 0.1 else rng.randint(1, 4)
        columns = sorted(rng.sample(range(ncols), min(count, ncols)))
        rows.append([(j, random_value(rng, elt, exact)) for j in columns])
    return Sparse(nrows, ncols, rows)


def random_side(rng):
    r = rng.random()
    if r < 0.15:
        return 1
    if r < 0.6:
        return rng.randint(2, 12)
    if r < 0.9:
        return rng.randint(13, 48)
    return rng.randint(65, 200)  # more than a word of the kernel's bit set


def fits(width, m):
    """Positions and coordinates of `width` bits hold m's (MLIR 22.1's
    convert sign-extends narrow ones, so 8 and 16 bits are kept below
    their sign bit)."""
    if width == 0 or width >= 32:
        return True
    limit = 2 ** (width - 1) - 1
    return max(m.nrows, m.ncols, m.nnz()) <= limit


def random_widths(rng, m, for_result=False):
    """(posWidth, crdWidth) for a matrix like `m`; a result's are wide more
    often (the kernel takes results of 32 bits or more)."""
    choices = WIDTHS if not for_result else WIDTHS + [0, 32, 64]
    pos, crd = rng.choice(choices), rng.choice(choices)
    if rng.random() < 0.5:
        crd = pos
    return (pos if fits(pos, m) else 0, crd if fits(crd, m) else 0)


class SpgemmCase:
    """One random program: its operands, products and lowering options."""

    family = "spgemm"
    #: sptune's printed output must be upstream's, character for character.
    exact_upstream = True

    def __init__(self, seed, n):
        rng = random.Random("spgemm-fuzz:%d:%d" % (seed, n))
        self.n = n
        self.elt = rng.choice(ELEMENT_TYPES)
        self.exact = rng.random() < 0.7
        self.form = rng.choice(["matmul", "matmul", "ba", "chain"])
        self.dynamic = rng.random() < 0.3
        m, k, nn = random_side(rng), random_side(rng), random_side(rng)
        self.a, sa = random_matrix(rng, m, k, self.elt, self.exact)
        self.b, sb = random_matrix(rng, k, nn, self.elt, self.exact)
        self.styles = [sa, sb]
        self.operands = [("a", self.a), ("b", self.b)]
        c, _ = product(self.a, self.b)
        self.widths = {"a": random_widths(rng, self.a),
                       "b": random_widths(rng, self.b),
                       "c": random_widths(rng, c, for_result=True)}
        self.products = [("c", "a", "b")]
        if self.form == "chain":
            p = random_side(rng)
            self.d, sd = random_matrix(rng, nn, p, self.elt, self.exact)
            self.styles.append(sd)
            self.operands.append(("d", self.d))
            self.widths["d"] = random_widths(rng, self.d)
            e, _ = product(c, self.d)
            self.widths["e"] = random_widths(rng, e, for_result=True)
            self.products.append(("e", "c", "d"))
        self.threads = rng.choice([None, None, 1, 2, 3, 5, 16])
        self.one_pass_bytes = rng.choice([None, None, 0, 1, 48, 4096])
        self.omp_threads = rng.choice([1, 2, 3, 4])
        # Drawn last: the cases drawn before this knob are unchanged.
        self.accumulator = rng.choice([None, None, "dense", "hash", "hash"])
        # Drawn after it, for the same reason: sometimes B is made wide and
        # scattered (a few entries a row over 3,000-12,000 columns), so that a
        # row of C has a few columns too far apart for the kernel's bit set
        # to read off: sorted by rank up to 32 columns, else by upstream.
        # (B stays at most 48 rows: a B without entries is still written as
        # a dense constant.)
        if self.form != "chain" and self.b.nrows <= 48 and rng.random() < 0.15:
            wide = rng.randint(3000, 12000)
            self.b = scattered_matrix(rng, self.b.nrows, wide, self.elt, self.exact)
            self.styles[1] = "scattered"
            self.operands[1] = ("b", self.b)
            c, _ = product(self.a, self.b)
            self.widths["b"] = random_widths(rng, self.b)
            self.widths["c"] = random_widths(rng, c, for_result=True)

    def shapes(self):
        s = {name: (m.nrows, m.ncols) for name, m in self.operands}
        s["c"] = (self.a.nrows, self.b.ncols)
        if self.form == "chain":
            s["e"] = (self.a.nrows, self.d.ncols)
        return s

    def expected(self):
        """[(name, reference, scales)] of the products, in print order."""
        c, cs = product(self.a, self.b)
        out = [("c", c, cs)]
        if self.form == "chain":
            e, _ = product(c, self.d)
            # The second product's rounding scale: the magnitudes of the
            # first one's terms, not of its (possibly cancelled) values.
            c_mag = Sparse(c.nrows, c.ncols, [[(j, s) for (j, _), s in zip(r, rs)]
                                              for r, rs in zip(c.rows, cs)])
            d_mag = Sparse(self.d.nrows, self.d.ncols,
                           [[(j, abs(v)) for j, v in r] for r in self.d.rows])
            _, es = product(c_mag, d_mag)
            out.append(("e", e, es))
        return out

    def uses_kernel(self):
        """How many products sptune's kernel must compute: those whose
        result stores positions and coordinates of 32 bits or more."""
        return sum(1 for out, _, _ in self.products
                   if all(w == 0 or w >= 32 for w in self.widths[out]))

    # -- what the driver asks of a case (sptune.program_fuzz) ---------------

    def prepare(self, workdir):
        """Nothing to write: the program holds its operands."""

    def sptune_args(self, workdir):
        return [self.options()]

    def upstream_args(self):
        return [UPSTREAM_PIPELINE]

    def check(self, stdout):
        return check_against_reference(self, stdout)

    def schedule_args(self, workdir):
        """No schedule to check: the kernel is not in the tuner's space."""
        return None

    def why_kernels_unused(self, lowered, scheduled):
        """"" when sptune's kernel computes every product it takes."""
        calls = len(KERNEL_CALL.findall(lowered))
        if calls != self.uses_kernel():
            return "%d calls of the kernel for the %d products it takes" % (
                calls, self.uses_kernel())
        return ""

    def options(self):
        opts = []
        if self.threads is not None:
            opts.append("threads=%d" % self.threads)
        if self.one_pass_bytes is not None:
            opts.append("gustavson-one-pass-bytes=%d" % self.one_pass_bytes)
        if self.accumulator is not None:
            opts.append("gustavson-accumulator=%s" % self.accumulator)
        # One argument: the pass's options are separated by spaces.
        return "--sptune-lower-cpu" + ("=" + " ".join(opts) if opts else "")

    def describe(self):
        shapes = self.shapes()
        return ("%s %s%s %s A %dx%d (%s) B %dx%d (%s)%s widths %s, %s, "
                "OMP_NUM_THREADS=%d" % (
                    self.form, self.elt,
                    " halves" if self.exact and self.elt[0] == "f" else "",
                    "dynamic" if self.dynamic else "static",
                    *shapes["a"], self.styles[0], *shapes["b"], self.styles[1],
                    (" D %dx%d (%s)" % (*shapes["d"], self.styles[2])
                     if self.form == "chain" else ""),
                    " ".join("%s=%d/%d" % (k, *v)
                             for k, v in sorted(self.widths.items())),
                    shlex.quote(self.options()), self.omp_threads))

    # -- the program ---------------------------------------------------------

    def sparse_type(self, name):
        r, c = self.shapes()[name]
        dims = "?x?" if self.dynamic else "%dx%d" % (r, c)
        return "tensor<%sx%s, #%s>" % (dims, self.elt, name.upper())

    def literal(self, v):
        if self.elt.startswith("i"):
            return str(int(v))
        return repr(float(v))

    def program(self):
        lines = []
        for name in list(self.widths):
            pos, crd = self.widths[name]
            extra = "".join([", posWidth = %d" % pos if pos else "",
                             ", crdWidth = %d" % crd if crd else ""])
            lines.append("#%s = #sparse_tensor.encoding<{ map = (i, j) -> "
                         "(i : dense, j : compressed)%s }>" % (name.upper(), extra))
        lines.append("")
        mul, add = (("arith.muli", "arith.addi") if self.elt.startswith("i")
                    else ("arith.mulf", "arith.addf"))
        for idx, (out, x, y) in enumerate(self.products):
            tx, ty, to = (self.sparse_type(x), self.sparse_type(y),
                          self.sparse_type(out))
            lines.append("func.func @product%d(%%x: %s, %%y: %s) -> %s {"
                         % (idx, tx, ty, to))
            if self.dynamic:
                lines += ["  %c0 = arith.constant 0 : index",
                          "  %c1 = arith.constant 1 : index",
                          "  %%m = tensor.dim %%x, %%c0 : %s" % tx,
                          "  %%n = tensor.dim %%y, %%c1 : %s" % ty,
                          "  %%e = tensor.empty(%%m, %%n) : %s" % to]
            else:
                lines.append("  %%e = tensor.empty() : %s" % to)
            if self.form == "ba":
                # C(i, j) += Y(k, j) * X(i, k): the operands in the other order.
                lines += [
                    "  %r = linalg.generic {indexing_maps = ["
                    "affine_map<(i, j, k) -> (k, j)>, "
                    "affine_map<(i, j, k) -> (i, k)>, "
                    "affine_map<(i, j, k) -> (i, j)>], iterator_types = "
                    "[\"parallel\", \"parallel\", \"reduction\"]}",
                    "      ins(%%y, %%x : %s, %s) outs(%%e : %s) {" % (ty, tx, to),
                    "  ^bb0(%%u: %s, %%v: %s, %%o: %s):" % ((self.elt,) * 3),
                    "    %%p = %s %%u, %%v : %s" % (mul, self.elt),
                    "    %%s = %s %%o, %%p : %s" % (add, self.elt),
                    "    linalg.yield %%s : %s" % self.elt,
                    "  } -> %s" % to]
            else:
                lines.append("  %%r = linalg.matmul ins(%%x, %%y : %s, %s) "
                             "outs(%%e : %s) -> %s" % (tx, ty, to, to))
            lines += ["  return %%r : %s" % to, "}", ""]
        lines.append("func.func @main() {")
        zero = 0 if self.elt.startswith("i") else 0.0
        for name, m in self.operands:
            dense_type = "tensor<%dx%dx%s>" % (m.nrows, m.ncols, self.elt)
            entries = [(i, j, v) for i, row in enumerate(m.rows) for j, v in row]
            if m.ncols > 1000 and entries:
                # A wide scattered matrix as a sparse constant (its dense
                # text would take megabytes).
                lines.append("  %%d%s = arith.constant sparse<[%s], [%s]> : %s" % (
                    name, ", ".join("[%d, %d]" % (i, j) for i, j, _ in entries),
                    ", ".join(self.literal(v) for _, _, v in entries), dense_type))
            else:
                body = ", ".join("[" + ", ".join(self.literal(v) for v in row) + "]"
                                 for row in m.dense(zero))
                lines.append("  %%d%s = arith.constant dense<[%s]> : %s"
                             % (name, body, dense_type))
            lines.append("  %%%s = sparse_tensor.convert %%d%s : %s to %s"
                         % (name, name, dense_type, self.sparse_type(name)))
        for idx, (out, x, y) in enumerate(self.products):
            tx, ty, to = (self.sparse_type(x), self.sparse_type(y),
                          self.sparse_type(out))
            lines.append("  %%%s = call @product%d(%%%s, %%%s) : (%s, %s) -> %s"
                         % (out, idx, x, y, tx, ty, to))
            lines.append("  sparse_tensor.print %%%s : %s" % (out, to))
        for name in [n for n, _ in self.operands] + [o for o, _, _ in self.products]:
            lines.append("  bufferization.dealloc_tensor %%%s : %s"
                         % (name, self.sparse_type(name)))
        lines += ["  return", "}", ""]
        return "\n".join(lines)


# ----------------------------------------------------------------------------
# Checking
# ----------------------------------------------------------------------------

_FIELD = re.compile(r"^(nse|dim|lvl|pos\[1\]|crd\[1\]|values)\s*[:=]\s*(.*)$")


def parse_prints(text):
    """The blocks sparse_tensor.print wrote: [{field: [numbers]}]."""
    blocks, cur = [], None
    for line in text.splitlines():
        line = line.strip()
        if line == "---- Sparse Tensor ----":
            cur = {}
            blocks.append(cur)
            continue
        if cur is None:
            continue
        if line == "----":
            cur = None
            continue
        m = _FIELD.match(line)
        if m:
            items = m.group(2).strip().strip("()").split(",")
            cur[m.group(1)] = [float(x) for x in items if x.strip()]
    return blocks


def check_against_reference(case, stdout):
    """"" when the printed products are the reference's, else why not."""
    try:
        blocks = parse_prints(stdout)
    except ValueError as e:
        return "unreadable output (%s)" % e
    expected = case.expected()
    if len(blocks) != len(expected):
        return "printed %d results, expected %d" % (len(blocks), len(expected))
    for (name, ref, scales), got in zip(expected, blocks):
        pos = [0]
        for r in ref.rows:
            pos.append(pos[-1] + len(r))
        crd = [j for r in ref.rows for j, _ in r]
        vals = [v for r in ref.rows for _, v in r]
        scale = [s for r in scales for s in r]
        if got.get("dim") != [ref.nrows, ref.ncols]:
            return "%s: dim %s, expected (%d, %d)" % (name, got.get("dim"),
                                                       ref.nrows, ref.ncols)
        if got.get("pos[1]") != pos:
            return "%s: positions differ from the reference" % name
        if got.get("crd[1]", []) != crd:
            return "%s: coordinates differ from the reference" % name
        gv = got.get("values", [])
        if len(gv) != len(vals):
            return "%s: %d values, expected %d" % (name, len(gv), len(vals))
        for p, (x, y, s) in enumerate(zip(gv, vals, scale)):
            if not close_enough(x, y, s, case.elt):
                return "%s: value %d is %r, expected %r" % (name, p, x, y)
    return ""
