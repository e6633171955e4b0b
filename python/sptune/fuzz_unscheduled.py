"""The `unscheduled` family of the program fuzzer (sptune.program_fuzz):
random sparse kernels lowered by `sptune-lower-cpu` alone, so that none has
a schedule and every one gets the CPU target's rule for kernels without a
schedule (targets/cpu/UnscheduledKernels.h: a parallel outer loop where no
iteration can write another's output element, vectors over a dense
parallel loop), under a random OMP_NUM_THREADS.

Each kernel is a `linalg.generic` over 2 or 3 loops: out(...) += the
product of its inputs, where

- the output is dense and indexed by a random non-empty subset of the
  loops, in a random order (those loops are parallel, the others
  reductions);
- one sparse input of rank 2 or 3 over random loops, its levels a random
  permutation of its dimensions, each level dense or compressed (or COO);
- sometimes a second sparse input of rank 2, whose level order may
  conflict with the first's (upstream then reorders one operand);
- sometimes a dense input over one or two random loops.

Half of the kernels that have a reduction get one of 200 to 1,200
iterations (a quarter of all kernels). Inputs are rarely empty (1 in 20
kernels). The printed result must match a Python reference to the printed
precision (the sums themselves are exact: multiples of 1/8 far below 2^21),
and so must upstream's (`--sparsifier`).

What this checks is that the rule's code computes the right values on odd
kernels (permuted and COO levels, conflicting level orders, broadcasts,
size-1 loops), not that it is race-free: a race needs threads that
overlap, and each thread's share of these kernels takes microseconds, less
than a thread takes to wake. Forcing upstream's
`parallelization=any-storage-outer-loop` on every kernel, reductions
included, passed all 150 cases of seed 1. Race freedom rests on the
argument of targets/cpu/UnscheduledKernels.h and its tests.
"""

import random
import shlex

from sptune.fuzz_beyond import BeyondCase, halves
from sptune.fuzz_common import UPSTREAM_PIPELINE

LOOPS = "ijk"


class UnscheduledCase(BeyondCase):
    """One random kernel without a schedule."""

    family = "unscheduled"
    exact_upstream = False

    def __init__(self, seed, n):
        rng = random.Random("unscheduled-fuzz:%d:%d" % (seed, n))
        self.n = n
        self.elt = rng.choice(["f32", "f64"])
        nloops = rng.choice([2, 3])
        self.sizes = [1 if rng.random() < 0.15 else rng.randint(2, 6) for _ in range(nloops)]
        loops = list(range(nloops))
        out_loops = rng.sample(loops, rng.randint(1, nloops))
        self.out_dims = out_loops  # the output's dimensions, in order
        self.parallel = set(out_loops)
        # A long reduction half of the time: hundreds of updates of each
        # output element (their sums stay exact).
        reductions = [d for d in loops if d not in self.parallel]
        if reductions and rng.random() < 0.5:
            self.sizes[rng.choice(reductions)] = rng.randint(200, 1200)
        # Empty inputs rarely: a kernel of zeros checks little.
        density = 0.0 if rng.random() < 0.05 else rng.choice([0.1, 0.3, 0.6, 1.0])
        # The sparse inputs: (loops of each dimension, levels' dimension
        # order, level types, entries).
        self.sparse_inputs = [self._random_sparse(rng, loops, density)]
        if nloops >= 2 and rng.random() < 0.3:
            self.sparse_inputs.append(self._random_sparse(rng, loops, density, rank=2))
        self.dense = None
        if rng.random() < 0.7:
            dims = rng.sample(loops, rng.randint(1, min(2, nloops)))
            values = {}
            self._fill(values, [self.sizes[d] for d in dims], lambda: halves(rng))
            self.dense = (dims, values)
        # A loop no operand indexes has no size (linalg refuses the maps):
        # the output broadcasts over it.
        indexed = set(self.out_dims).union(*(dims for dims, _, _, _ in self.sparse_inputs))
        if self.dense:
            indexed |= set(self.dense[0])
        for d in loops:
            if d not in indexed:
                self.out_dims.append(d)
                self.parallel.add(d)
        self.threads = rng.choice([None, None, 1, 2, 3])
        self.omp_threads = rng.choice([1, 2, 3, 4])

    def _random_sparse(self, rng, loops, density, rank=None):
        rank = rank or (rng.choice([2, 3]) if len(loops) == 3 else 2)
        rank = min(rank, len(loops))
        dims = rng.sample(loops, rank)
        order = list(range(rank))
        if rng.random() < 0.5:
            rng.shuffle(order)
        if rng.random() < 0.15:
            types = ["compressed(nonunique)"] + ["singleton(nonunique)"] * (rank - 2) + ["singleton"]
            order = list(range(rank))
        else:
            types = [rng.choice(["dense", "compressed"]) for _ in range(rank)]
        entries = {}
        self._fill(entries, [self.sizes[d] for d in dims],
                   lambda: halves(rng) if rng.random() < density else None)
        stored = {c: v for c, v in entries.items() if v is not None}
        if density > 0 and not stored:
            stored[rng.choice(sorted(entries))] = halves(rng)
        return dims, order, types, stored

    @staticmethod
    def _fill(out, shape, value):
        def walk(prefix, rest):
            if not rest:
                out[prefix] = value()
                return
            for x in range(rest[0]):
                walk(prefix + (x,), rest[1:])
        walk((), list(shape))

    # -- what the driver asks of a case -------------------------------------

    def sptune_args(self, workdir):
        return ["--sptune-lower-cpu" + ("=threads=%d" % self.threads if self.threads else "")]

    def schedule_args(self, workdir):
        """No schedule to read back."""
        return None

    def upstream_args(self):
        return [UPSTREAM_PIPELINE]

    def why_kernels_unused(self, lowered, scheduled):
        """Nothing is scheduled here: the rule is what is under test."""
        return ""

    def describe(self):
        sparse = "; ".join("S(%s) levels %s %s nnz=%d" % (
            ",".join(LOOPS[d] for d in dims), order, "/".join(types), len(entries))
            for dims, order, types, entries in self.sparse_inputs)
        return ("%s loops %s out(%s)%s; %s, %s, OMP_NUM_THREADS=%d" % (
            self.elt, "x".join(map(str, self.sizes)),
            ",".join(LOOPS[d] for d in self.out_dims),
            "" if not self.dense else " dense(%s)" % ",".join(LOOPS[d] for d in self.dense[0]),
            sparse, " ".join(shlex.quote(a) for a in self.sptune_args("DIR")),
            self.omp_threads))

    # -- the reference -------------------------------------------------------

    def reference(self, magnitude):
        f = abs if magnitude else (lambda x: x)
        out = {}
        points = {}
        self._fill(points, self.sizes, lambda: None)
        for point in points:
            term = 1.0
            for dims, _, _, entries in self.sparse_inputs:
                term *= f(entries.get(tuple(point[d] for d in dims), 0.0))
            if self.dense:
                dims, values = self.dense
                term *= f(values[tuple(point[d] for d in dims)])
            key = tuple(point[d] for d in self.out_dims)
            out[key] = out.get(key, 0.0) + term
        cells = {}
        self._fill(cells, [self.sizes[d] for d in self.out_dims], lambda: None)
        return [out.get(c, 0.0) for c in sorted(cells)]

    # -- the program ---------------------------------------------------------

    def program(self):
        T = self.elt
        names = ["d%d" % d for d in range(len(self.sizes))]
        lines, inputs, types, maps, sparse_main = [], [], [], [], []
        for n, (dims, order, levels, entries) in enumerate(self.sparse_inputs):
            enc = "SP%d" % n
            lvl = ", ".join("%s : %s" % ("e%d" % order[l], levels[l]) for l in range(len(dims)))
            lines.append("#%s = #sparse_tensor.encoding<{ map = (%s) -> (%s) }>" % (
                enc, ", ".join("e%d" % x for x in range(len(dims))), lvl))
            shape = [self.sizes[d] for d in dims]
            ts = "tensor<%sx%s, #%s>" % ("x".join(map(str, shape)), T, enc)
            inputs.append("%%s%d" % n)
            types.append(ts)
            maps.append(", ".join(names[d] for d in dims))
            sparse_main.append(("s%d" % n, tuple(shape), entries, ts))
        operands = []
        if self.dense:
            dims, values = self.dense
            shape = tuple(self.sizes[d] for d in dims)
            inputs.append("%b")
            types.append(self.tensor(shape))
            maps.append(", ".join(names[d] for d in dims))
            operands.append(("b", shape, lambda c, v=values: v[c]))
        out_shape = tuple(self.sizes[d] for d in self.out_dims)
        to = self.tensor(out_shape)
        domain = "(%s)" % ", ".join(names)
        affine = ", ".join("affine_map<%s -> (%s)>" % (domain, m) for m in
                           maps + [", ".join(names[d] for d in self.out_dims)])
        iterators = ", ".join('"parallel"' if d in self.parallel else '"reduction"'
                              for d in range(len(self.sizes)))
        args = ["%s: %s" % (i, t) for i, t in zip(inputs, types)]
        block = ", ".join("%%x%d: %s" % (n, T) for n in range(len(inputs)))
        lines += ["", "func.func @kernel(%s) -> %s {" % (", ".join(args), to),
                  "  %%zero = arith.constant 0.0 : %s" % T,
                  "  %%e = tensor.empty() : %s" % to,
                  "  %%f = linalg.fill ins(%%zero : %s) outs(%%e : %s) -> %s" % (T, to, to),
                  "  %%r = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}"
                  % (affine, iterators),
                  "      ins(%s : %s) outs(%%f : %s) {" % (", ".join(inputs), ", ".join(types), to),
                  "  ^bb0(%s, %%o: %s):" % (block, T)]
        product = "%x0"
        for n in range(1, len(inputs)):
            lines.append("    %%p%d = arith.mulf %s, %%x%d : %s" % (n, product, n, T))
            product = "%%p%d" % n
        lines += ["    %%sum = arith.addf %%o, %s : %s" % (product, T),
                  "    linalg.yield %%sum : %s" % T,
                  "  } -> %s" % to,
                  "  return %%r : %s" % to, "}", ""]
        return "\n".join(lines + self.main_function(sparse_main, operands, out_shape))
