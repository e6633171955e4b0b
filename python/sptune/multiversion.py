"""Multi-versioned kernels from Python: run `sptune-autotune{multiversion=K}`
on a kernel without its matrix, read back the variants and the dispatch rule
of its remark, and route a matrix the way the emitted dispatcher does.

The remark reads

    sptune-autotune: no matrix for this kernel: K variants chosen for N
    training matrices (...), dispatched at run time by the rule: RULE;
    variant v0 (n training matrices) [SCHEDULE] variant v1 ...; ...

and RULE is `FEATURE <= THRESHOLD ? A : B` with A and B rules in
parentheses or variants `vN`. The features are those of
sptune/Tune/Multiversion.h (DispatchFeatures), computed here from
`sptune-matrix stats --json`, which uses the same definitions (population
standard deviation of the row lengths).
"""

import json
import os
import re
import tempfile
from dataclasses import dataclass, field

from sptune import autotune, kernel_ir
from sptune.run import ToolError, executable, run

_VARIANT = re.compile(r"variant v(\d+) \((\d+) training matrices\) \[")
_RULE = re.compile(r"dispatched at run time by the rule: ([^;]*);")
_TOKEN = re.compile(r"\s*(\(|\)|\?|:|<=|v\d+|[a-z_]+|[-+0-9.eE]+)")

FEATURES = ("rows", "cols", "nnz", "row_mean", "row_cv", "row_max")


@dataclass
class Plan:
    """What sptune-autotune{multiversion=K} chose for one kernel."""
    variants: list
    rule: str
    routed_counts: list = field(default_factory=list)
    remark: str = ""


def parse_rule(text):
    """The rule as a nested tuple: ('leaf', n) or ('split', feature,
    threshold, left, right). Raises ValueError on text of another form."""
    tokens, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError(f"cannot read the dispatch rule at '{text[pos:]}'")
        tokens.append(m.group(1))
        pos = m.end()
    at = [0]

    def take(expected=None):
        if at[0] >= len(tokens):
            raise ValueError(f"the dispatch rule '{text}' ends early")
        t = tokens[at[0]]
        if expected and t != expected:
            raise ValueError(f"the dispatch rule '{text}': expected '{expected}', got '{t}'")
        at[0] += 1
        return t

    def node():
        t = take()
        if t == "(":
            n = node()
            take(")")
            return n
        if t.startswith("v") and t[1:].isdigit():
            return ("leaf", int(t[1:]))
        if t not in FEATURES:
            raise ValueError(f"the dispatch rule '{text}': unknown feature '{t}'")
        take("<=")
        threshold = float(take())
        take("?")
        left = node()
        take(":")
        right = node()
        return ("split", t, threshold, left, right)

    tree = node()
    if at[0] != len(tokens):
        raise ValueError(f"the dispatch rule '{text}' has more after its end")
    return tree


def route(tree, features):
    """The variant the parsed rule `tree` picks for `features` (a dict)."""
    while tree[0] == "split":
        _, name, threshold, left, right = tree
        tree = left if features[name] <= threshold else right
    return tree[1]


def features_of(stats):
    """The dispatch features of a matrix from its `sptune-matrix stats
    --json` object."""
    mean = stats["row_mean"]
    return {"rows": float(stats["rows"]), "cols": float(stats["cols"]),
            "nnz": float(stats["nnz"]), "row_mean": float(mean),
            "row_cv": stats["row_std"] / mean if mean > 0 else 0.0,
            "row_max": float(stats["row_max"])}


def matrix_features(matrix, tool=None):
    """The dispatch features of `matrix` (.mtx path or gen: spec)."""
    tool = tool or executable("sptune-matrix")
    p = run([tool, "stats", "--json", matrix], what="sptune-matrix stats")
    return features_of(json.loads(p.stdout.splitlines()[0]))


def parse_remark(text):
    """The Plan of the multiversion remark in sptune-opt's diagnostics
    `text`; None when there is none."""
    for line in text.splitlines():
        if "remark: sptune-autotune: no matrix for this kernel: " not in line:
            continue
        rule = _RULE.search(line)
        if not rule:
            continue
        variants, counts = [], []
        for m in _VARIANT.finditer(line):
            end = autotune._bracketed(line, m.end())
            variants.append(line[m.end():end - 1])
            counts.append(int(m.group(2)))
        return Plan(variants=variants, rule=rule.group(1).strip(), routed_counts=counts,
                    remark=line[line.find("sptune-autotune"):])
    return None


def plan(kernel, free, variants, opt=None, mode=None, model=None, training=None):
    """Runs sptune-autotune{multiversion=variants} on kernel `kernel`
    (kernel_ir) without a matrix; returns its Plan."""
    opt = opt or executable("sptune-opt")
    opts = [f"multiversion={variants}", f"free={free}"]
    for key, value in (("mode", mode), ("model", model), ("training-matrices", training)):
        if value:
            opts.append(f"{key}={value}")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"{kernel}.mlir")
        with open(path, "w") as f:
            f.write(kernel_ir.kernel_mlir(kernel))
        p = run([opt, path, "--sptune-extract-kernels",
                 "--sptune-autotune=" + " ".join(opts), "--mlir-print-op-on-diagnostic=false",
                 "-o", os.devnull], what="sptune-opt --sptune-autotune multiversion")
    found = parse_remark(p.stderr)
    if not found:
        raise ToolError(f"sptune-opt did not multi-version the {kernel} kernel:\n{p.stderr}")
    return found
