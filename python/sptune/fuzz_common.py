"""What the program fuzzer's families share (sptune.program_fuzz)."""

import collections
import re

#: Upstream's reference pipeline: MLIR's own sparsifier with code
#: generation (its runtime library takes only some combinations of widths).
UPSTREAM_PIPELINE = "--sparsifier=enable-runtime-library=false"


#: Relative tolerances of float types, of the terms' magnitudes: f32 and
#: f64 are printed with about six significant digits (2e-5). f16 and bf16
#: must be exact: the families give them only values whose every partial
#: sum they hold exactly (halves, at most 8 terms: multiples of 1/4 up to
#: 32), and widened to f32 they print exactly.
RELATIVE_TOLERANCE = {"f16": 0.0, "bf16": 0.0}


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


#: A kernel's schedule in the scheduled IR, by kind.
_SCHEDULE_KIND = re.compile(r"#sptune\.schedule<cpu (\w+)")


def why_schedules_differ(scheduled, want):
    """"" when the ops of the scheduled IR carry CPU schedules of exactly
    the kinds `want` (a Counter), else what they carry. Ops only: a function
    whose kernels moved into it carries its kernel's schedule too."""
    got = collections.Counter(
        kind for line in scheduled.splitlines() if "linalg." in line
        for kind in _SCHEDULE_KIND.findall(line))
    if got != want:
        return "scheduled %s, expected %s" % (dict(got), dict(want))
    return ""


def why_values_differ(stdout, want, magnitude, elt, name=lambda q: "value %d" % q):
    """"" when `stdout` prints the values `want`, one a line, each to the
    element type's precision of its `magnitude` (close_enough), else the
    first difference (`name` names a value by its position)."""
    got = []
    for line in stdout.split("\n"):
        if line.strip():
            try:
                got.append(float(line))
            except ValueError:
                return "unexpected output line %r" % line[:80]
    if len(got) != len(want):
        return "printed %d values, expected %d" % (len(got), len(want))
    for q, (x, y, s) in enumerate(zip(got, want, magnitude)):
        if not close_enough(x, y, s, elt):
            return "%s is %r, expected %r" % (name(q), x, y)
    return ""
