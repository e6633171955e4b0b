"""What the program fuzzer's families share (sptune.program_fuzz)."""

#: Upstream's reference pipeline: MLIR's own sparsifier with code
#: generation (its runtime library takes only some combinations of widths).
UPSTREAM_PIPELINE = "--sparsifier=enable-runtime-library=false"


#: Relative tolerances of float types, of the terms' magnitudes: f32 and
#: f64 are printed with about six significant digits; f16 keeps 11 bits,
#: bf16 8, and each rounds at every step of a sum.
RELATIVE_TOLERANCE = {"f16": 4e-3, "bf16": 3e-2}


def close_enough(got, want, magnitude, elt):
    """Whether a printed value `got` is `want` to the element type's
    precision: exact for integers; for floats within a relative tolerance
    of the sum of the terms' magnitudes (`magnitude`) that made it (the
    kernels may sum in another order than the reference)."""
    if elt.startswith("i"):
        return got == want
    return abs(got - want) <= RELATIVE_TOLERANCE.get(elt, 2e-5) * max(magnitude, abs(want))


def matrix_market(nrows, ncols, entries):
    """A general real Matrix Market file of `entries` [(i, j, value)]."""
    lines = ["%%MatrixMarket matrix coordinate real general",
             "%d %d %d" % (nrows, ncols, len(entries))]
    lines += ["%d %d %r" % (i + 1, j + 1, float(v)) for i, j, v in entries]
    return "\n".join(lines) + "\n"
