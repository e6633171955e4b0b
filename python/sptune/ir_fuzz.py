"""Seeded mutation fuzzer for sptune-opt's input IR and pass options.

Each case takes a kernel-bearing seed (examples/kernels.mlir and `// -----`
chunks of a few lit tests, comment lines stripped), applies a few random
text-level mutations (shapes, sparse encodings, element types, affine maps,
iterator types, arith ops, operand order, #sptune attribute integers and
keywords, deleted / duplicated lines, garbage tokens), picks one of the
realistic sptune-opt pipelines with randomly fuzzed pass options, runs it as
a subprocess with a timeout and classifies the outcome:

  ok              exit status 0
  error           non-zero exit with an `error:` diagnostic (or llvm::cl's
                  `<tool>: for the --x option: ...` about a bad option
                  value), no crash
  no-diagnostic   non-zero exit, no `error:` and no crash (a silent failure)
  crash-sptune    killed by a signal or a crash signature in stderr, and the
                  top frames of the stack dump name sptune code (or cannot be
                  attributed at all)
  crash-upstream  a crash whose top frames are all in libMLIR / libLLVM
  hang            ran past --timeout

Everything is derived from --seed (case n from an RNG seeded with
`ir-fuzz:<seed>:<n>`), so a case is reproduced by its number alone
(--only N). With --out, every crash, hang and silent failure is written as
case-<n>.mlir + case-<n>.cmd (+ case-<n>.stderr).
See docs/reliability.md.

    PYTHONPATH=python /usr/bin/python3 -m sptune.ir_fuzz --build build \\
        --cases 300 --seed 1 [--seeds FILE.mlir ...] [--out DIR] [--timeout 60]
"""

import argparse
import collections
import os
import random
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CLASSES = ["ok", "error", "no-diagnostic", "crash-sptune", "crash-upstream",
           "hang"]

SRC_ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))

DEFAULT_SEEDS = [
    "examples/kernels.mlir",
    "test/Transforms/apply-schedule.mlir",
    "test/Transforms/default-schedule.mlir",
    "test/Transforms/autotune.mlir",
    "test/Analysis/extract-spmm.mlir",
    "test/Analysis/extract-sddmm.mlir",
    "test/Analysis/extract-spmv.mlir",
    "test/Analysis/extract-near-misses.mlir",
    "test/Pipelines/lower-cpu.mlir",
    "test/Pipelines/cpu-sparsify.mlir",
    "test/Pipelines/cpu-sparsify-modules.mlir",
]


# ----------------------------------------------------------------------------
# Seeds
# ----------------------------------------------------------------------------

class Seed:
    def __init__(self, name, text):
        self.name = name
        self.text = text
        self.annotated = None  # text after extract + default-schedule, lazily


def load_seeds(paths, root):
    """Returns [(file, [Seed...])], one entry per file that has kernels."""
    files = []
    for p in paths:
        full = os.path.join(root, p) if root else p
        with open(full) as f:
            text = f.read()
        chunks = []
        for k, part in enumerate(re.split(r"^// -----\s*$", text, flags=re.M)):
            lines = [l.rstrip() for l in part.splitlines()
                     if not re.match(r"\s*//", l)]
            body = "\n".join(l for l in lines).strip("\n")
            body = re.sub(r"\n{3,}", "\n\n", body) + "\n"
            if "linalg." not in body:
                continue
            chunks.append(Seed("%s#%d" % (p, k), body))
        if chunks:
            files.append((p, chunks))
    return files


# ----------------------------------------------------------------------------
# Mutations: each takes (text, rng) and returns (text, description) or None
# when it does not apply to the text.
# ----------------------------------------------------------------------------

DIM_VALUES = ["0", "1", "3", str(2**31 - 1), str(2**40), "?"]
LEVELS = ["dense", "compressed", "singleton", "compressed(nonunique)",
          "loose_compressed"]
ELT_TYPES = ["f16", "bf16", "i8", "i16", "i32", "i64", "f64", "index",
             "complex<f32>"]
ARITH_OPS = ["mulf", "addf", "subf", "divf", "maximumf", "muli", "addi"]
WIDTHS = ["8", "16", "32", "64"]
SPTUNE_INTS = [-(2**63), -(2**31), -1, 0, 1, 2, 3, 5, 7, 16, 33, 255, 1024,
               2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**64, 10**30]
SPTUNE_WORDS = ["spmm", "sddmm", "spmv", "cpu", "nvvm", "spade", "dense",
                "compressed", "compressed_nu", "singleton", "none", "outer",
                "inner", "static", "dynamic", "guided", "true", "false", "i",
                "j", "k", "i0", "i1", "k0", "k1", "j0", "j1", "a", "b", "f16",
                "f32", "f64", "i32", "sparse", "out", "#sparse"]
GARBAGE = ["}", "{", ")", "(", "<", ">", "[", "]", "%", "#", "@", "\"", ":",
           ",", "x", "?", "-", "0x", "=", "->", "affine_map<", "^bb0",
           "#sparse_tensor.encoding<{", "#sptune.schedule<", "tensor<",
           "%undefined", "\u00e9", "9" * 40, "-1", "!", "*"]
TYPE_RE = r"(?:complex<f32>|complex<f64>|bf16|f16|f32|f64|i1|i8|i16|i32|i64|index)"


def _line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def _matching(text, open_pos, open_ch="<", close_ch=">"):
    """Index just past the bracket closing the one at open_pos, or -1."""
    depth = 0
    i = open_pos
    while i < len(text):
        c = text[i]
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            # `->` inside affine maps is not a closing bracket.
            if not (close_ch == ">" and i > 0 and text[i - 1] == "-"):
                depth -= 1
                if depth == 0:
                    return i + 1
        i += 1
    return -1


def _split_top(s):
    """Splits on commas not nested in (), <>, [] or {}."""
    parts, depth, cur = [], 0, ""
    for i, c in enumerate(s):
        if c in "(<[{":
            depth += 1
        elif c in ")]}" or (c == ">" and not (i > 0 and s[i - 1] == "-")):
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return parts


def _spans(text, opener):
    """(start, end) of each `opener...>` bracketed attribute."""
    out = []
    for m in re.finditer(re.escape(opener), text):
        end = _matching(text, m.end() - 1)
        if end > 0:
            out.append((m.start(), end))
    return out


def _replace(text, start, end, new):
    return text[:start] + new + text[end:]


def mut_dim(text, rng):
    dims = []
    for m in re.finditer(r"\b(?:tensor|memref)<", text):
        for d in re.finditer(r"(\d+|\?)x", text[m.end():m.end() + 200]):
            if d.start() != 0 and text[m.end() + d.start() - 1] != "x":
                break
            dims.append((m.end() + d.start(1), m.end() + d.end(1)))
    if not dims:
        return None
    s, e = rng.choice(dims)
    old = text[s:e]
    new = rng.choice([v for v in DIM_VALUES if v != old])
    if rng.random() < 0.5:
        # Every shape dimension equal to `old` at once (keeps shapes
        # consistent, so the case reaches past the verifier more often).
        spans = [(a, b) for a, b in dims if text[a:b] == old]
        for a, b in reversed(spans):
            text = _replace(text, a, b, new)
        return text, "dim-all %s -> %s (%d dims)" % (old, new, len(spans))
    return (_replace(text, s, e, new),
            "dim L%d: %s -> %s" % (_line_of(text, s), old, new))


LEVEL_RE = (r"(?<=:\s)(compressed\(nonunique\)|singleton\(nonunique\)|"
            r"loose_compressed\(nonunique\)|loose_compressed|compressed_nu|"
            r"compressed|singleton|dense)\b(?:\(nonunique\))?")


def mut_level(text, rng):
    ms = list(re.finditer(LEVEL_RE, text))
    if not ms:
        return None
    m = rng.choice(ms)
    new = rng.choice([l for l in LEVELS if l != m.group(0)])
    return (_replace(text, m.start(), m.end(), new),
            "level L%d: %s -> %s" % (_line_of(text, m.start()), m.group(0), new))


def _width(rng):
    if rng.random() < 0.1:
        return rng.choice(["0", "7", "128"])
    return rng.choice(WIDTHS)


def mut_widths(text, rng):
    spans = _spans(text, "#sparse_tensor.encoding<")
    if not spans:
        return None
    s, e = rng.choice(spans)
    enc = text[s:e]
    if "Width" in enc:
        ws = list(re.finditer(r"(posWidth|crdWidth)\s*=\s*(\d+)", enc))
        w = rng.choice(ws)
        val = _width(rng)
        new = enc[:w.start(2)] + val + enc[w.end(2):]
        desc = "width L%d: %s %s -> %s" % (_line_of(text, s), w.group(1),
                                          w.group(2), val)
    else:
        close = enc.rfind("}")
        if close < 0:
            return None
        which = rng.choice(["both", "pos", "crd"])
        add = []
        if which in ("both", "pos"):
            add.append("posWidth = %s" % _width(rng))
        if which in ("both", "crd"):
            add.append("crdWidth = %s" % _width(rng))
        new = enc[:close].rstrip() + ", " + ", ".join(add) + " " + enc[close:]
        desc = "width L%d: add %s" % (_line_of(text, s), ", ".join(add))
    return text[:s] + new + text[e:], desc


def mut_elt(text, rng):
    ms = list(re.finditer(r"(?<=[x<])" + TYPE_RE + r"(?=[,>])", text))
    if not ms:
        return None
    m = rng.choice(ms)
    old = m.group(0)
    new = rng.choice([t for t in ELT_TYPES if t != old])
    if rng.random() < 0.6:
        # Every occurrence of the type, in tensor types and scalar ones.
        # `64xf32`: the dimension separator `x` is no word boundary.
        pat = r"(?<![A-Za-wyz0-9_.%%])%s(?![\w])" % re.escape(old)
        text, n = re.subn(pat, new, text)
        return text, "elt-all %s -> %s (%d)" % (old, new, n)
    return (_replace(text, m.start(), m.end(), new),
            "elt L%d: %s -> %s" % (_line_of(text, m.start()), old, new))


def mut_affine(text, rng):
    cands = []
    for s, e in _spans(text, "affine_map<"):
        cands.append((s, e, "affine_map"))
    for m in re.finditer(r"map\s*=\s*\(", text):
        # An encoding's dim-to-level map, up to the closing `}`.
        end = text.find("}", m.end())
        if end > 0:
            cands.append((m.start(), end, "encoding map"))
    if not cands:
        return None
    s, e, kind = rng.choice(cands)
    body = text[s:e]
    arrow = body.find("->")
    if arrow < 0:
        return None
    lp = body.find("(", arrow)
    if lp < 0:
        return None
    rp = _matching(body, lp, "(", ")")
    if rp < 0:
        return None
    results = _split_top(body[lp + 1:rp - 1])
    if rng.random() < 0.3 or len(results) < 2:
        # Swap two dimension names in the results instead.
        dims = sorted(set(re.findall(r"\b[a-z]\w*\b", body[:arrow])) -
                      {"affine_map", "map"})
        if len(dims) < 2:
            return None
        a, b = rng.sample(dims, 2)
        res = re.sub(r"\b(%s|%s)\b" % (a, b),
                     lambda mm: b if mm.group(0) == a else a,
                     body[lp + 1:rp - 1])
        new = body[:lp + 1] + res + body[rp - 1:]
        desc = "%s L%d: swap %s <-> %s in results" % (
            kind, _line_of(text, s), a, b)
    else:
        perm = results[:]
        for _ in range(5):
            rng.shuffle(perm)
            if perm != results:
                break
        new = body[:lp + 1] + ",".join(perm) + body[rp - 1:]
        desc = "%s L%d: permute results (%s) -> (%s)" % (
            kind, _line_of(text, s), ",".join(r.strip() for r in results),
            ",".join(r.strip() for r in perm))
    return text[:s] + new + text[e:], desc


def mut_iter(text, rng):
    ms = list(re.finditer(r"(?<=[\"<])(parallel|reduction)(?=[\">])", text))
    if not ms:
        return None
    m = rng.choice(ms)
    new = "reduction" if m.group(0) == "parallel" else "parallel"
    return (_replace(text, m.start(), m.end(), new),
            "iterator L%d: %s -> %s" % (_line_of(text, m.start()), m.group(0), new))


def mut_arith(text, rng):
    ms = list(re.finditer(r"(?<=arith\.)(mulf|addf|subf|divf|maximumf|"
                          r"minimumf|muli|addi|subi)\b", text))
    if not ms:
        return None
    m = rng.choice(ms)
    new = rng.choice([o for o in ARITH_OPS if o != m.group(0)])
    return (_replace(text, m.start(), m.end(), new),
            "arith L%d: %s -> %s" % (_line_of(text, m.start()), m.group(0), new))


def _code_lines(text):
    lines = text.split("\n")
    return lines, [i for i, l in enumerate(lines) if l.strip()]


def mut_delete_line(text, rng):
    lines, idx = _code_lines(text)
    if len(idx) < 2:
        return None
    i = rng.choice(idx)
    desc = "delete L%d: %s" % (i + 1, lines[i].strip()[:60])
    del lines[i]
    return "\n".join(lines), desc


def mut_dup_line(text, rng):
    lines, idx = _code_lines(text)
    if not idx:
        return None
    i = rng.choice(idx)
    lines.insert(i, lines[i])
    return "\n".join(lines), "duplicate L%d: %s" % (i + 1, lines[i].strip()[:60])


def mut_swap_ins(text, rng):
    cands = []
    for m in re.finditer(r"\bins\(", text):
        end = _matching(text, m.end() - 1, "(", ")")
        if end < 0:
            continue
        inner = text[m.end():end - 1]
        colon = inner.find(":")
        if colon < 0:
            continue
        names = inner[:colon].split(",")
        if len(names) >= 2:
            cands.append((m.end(), end - 1, inner, colon))
    if not cands:
        return None
    s, e, inner, colon = rng.choice(cands)
    names = inner[:colon].split(",")
    types = _split_top(inner[colon + 1:])
    a, b = rng.sample(range(len(names)), 2)
    na, nb = names[a].strip(), names[b].strip()
    names[a] = names[a].replace(na, nb)
    names[b] = names[b].replace(nb, na)
    with_types = rng.random() < 0.5 and len(types) == len(names)
    if with_types:
        ta, tb = types[a], types[b]
        types[a], types[b] = tb, ta
    new = ",".join(names) + ":" + ",".join(types)
    return (text[:s] + new + text[e:],
            "swap-ins L%d: %s <-> %s%s" % (_line_of(text, s), na, nb,
                                           " (with types)" if with_types else ""))


def _sptune_spans(text):
    return (_spans(text, "#sptune.schedule<") + _spans(text, "#sptune.kernel<"))


def mut_sptune_int(text, rng):
    hits = []
    for s, e in _sptune_spans(text):
        for m in re.finditer(r"(?<![\w.?])-?\d+\b", text[s:e]):
            hits.append((s + m.start(), s + m.end()))
    if not hits:
        return None
    s, e = rng.choice(hits)
    old = text[s:e]
    if rng.random() < 0.3:
        new = str(rng.randint(-100, 5000))
    else:
        new = str(rng.choice([v for v in SPTUNE_INTS if str(v) != old]))
    return (_replace(text, s, e, new),
            "sptune-int L%d: %s -> %s" % (_line_of(text, s), old, new))


def mut_sptune_word(text, rng):
    hits = []
    for s, e in _sptune_spans(text):
        # Identifiers that are values, not keys (not followed by ` =`).
        for m in re.finditer(r"(?<![\w.#])[a-z_][a-z_0-9]*\b(?!\s*=)(?![<.])",
                             text[s:e]):
            hits.append((s + m.start(), s + m.end()))
    if not hits:
        return None
    s, e = rng.choice(hits)
    old = text[s:e]
    new = rng.choice([w for w in SPTUNE_WORDS if w != old])
    return (_replace(text, s, e, new),
            "sptune-word L%d: %s -> %s" % (_line_of(text, s), old, new))


def mut_garbage(text, rng):
    # At a token boundary (after a space or punctuation) most of the time.
    bounds = [m.end() for m in re.finditer(r"[\s,(<{\[]", text)]
    pos = rng.choice(bounds) if bounds and rng.random() < 0.8 else \
        rng.randrange(len(text) + 1)
    tok = rng.choice(GARBAGE)
    return (text[:pos] + tok + text[pos:],
            "garbage L%d: insert %r" % (_line_of(text, pos), tok))


MUTATORS = [
    ("dim", mut_dim, 3),
    ("level", mut_level, 3),
    ("widths", mut_widths, 2),
    ("elt", mut_elt, 2),
    ("affine", mut_affine, 2),
    ("iterator", mut_iter, 2),
    ("arith", mut_arith, 2),
    ("delete-line", mut_delete_line, 1),
    ("dup-line", mut_dup_line, 1),
    ("swap-ins", mut_swap_ins, 2),
    ("sptune-int", mut_sptune_int, 3),
    ("sptune-word", mut_sptune_word, 2),
    ("garbage", mut_garbage, 1),
]


def mutate(text, rng):
    """Applies 0-4 mutations; returns (text, [(kind, description)])."""
    n = rng.choices([0, 1, 2, 3, 4], weights=[1, 4, 3, 2, 1])[0]
    done = []
    tries = 0
    while len(done) < n and tries < 30:
        tries += 1
        name, fn, _ = rng.choices(MUTATORS, weights=[w for _, _, w in MUTATORS])[0]
        r = fn(text, rng)
        if r is None:
            continue
        text, desc = r
        done.append((name, desc))
    return text, done


# ----------------------------------------------------------------------------
# Pipelines and pass options
# ----------------------------------------------------------------------------

PIPELINES = [
    # (name, passes, weight)
    ("extract", ["extract-kernels"], 2),
    ("extract,default,apply",
     ["extract-kernels", "default-schedule", "apply-schedule"], 3),
    ("extract,default,apply,lower-cpu",
     ["extract-kernels", "default-schedule", "apply-schedule", "lower-cpu"], 4),
    ("extract,default,apply,cpu-sparsify",
     ["extract-kernels", "default-schedule", "apply-schedule", "cpu-sparsify"], 2),
    ("extract,autotune,apply,lower-cpu",
     ["extract-kernels", "autotune", "apply-schedule", "lower-cpu"], 4),
    ("extract,autotune,apply",
     ["extract-kernels", "autotune", "apply-schedule"], 1),
    ("apply,lower-cpu", ["apply-schedule", "lower-cpu"], 3),
    ("apply,cpu-sparsify", ["apply-schedule", "cpu-sparsify"], 1),
    ("extract,default=spade,emit-spade",
     ["extract-kernels", "default-schedule:spade", "emit-spade"], 1),
    ("fuse-scales,extract,default,apply,lower-cpu",
     ["fuse-scales", "extract-kernels", "default-schedule", "apply-schedule",
      "lower-cpu"], 2),
]

GOOD_GEN = ["uniform", "rmat", "banded", "block", "clustered"]
BAD_MATRICES = [
    "gen:uniform:rows=0,cols=64,nnz=0",
    "gen:uniform:rows=64,cols=64,nnz=5000",
    "gen:nope:rows=4",
    "gen:uniform:rows=-3,nnz=1",
    "gen:uniform",
    "gen:",
    "/nonexistent/matrix.mtx",
    "gen:block:rows=64,cols=64,nnz=256,bs=0",
    "gen:rmat:rows=64,cols=64,nnz=300,a=0.9,b=0.9,c=0.1",
    "gen:uniform:rows=64,cols=64,density=1.5",
    "gen:uniform:rows=64,cols=64,nnz=10,nnz=20",
    "gen:banded:rows=64,cols=64,nnz=100,bw=64",
    "gen:uniform:rows=99999999999999999999,cols=1,nnz=1",
]


def _sparse_shape(text):
    """Static (rows, cols) of the first 2-D sparse tensor type, if any."""
    m = re.search(r"tensor<(\d+)x(\d+)x[^,>]+,\s*#", text)
    if m and int(m.group(1)) <= 4096 and int(m.group(2)) <= 4096:
        return int(m.group(1)), int(m.group(2))
    return None


def _matrix_spec(rng, text):
    """(spec, small_and_valid)."""
    if rng.random() < 0.2:
        return rng.choice(BAD_MATRICES), False
    shape = _sparse_shape(text)
    if shape and rng.random() < 0.7:
        rows, cols = shape
    else:
        rows = rng.choice([1, 8, 16, 64, 100, 256])
        cols = rng.choice([1, 8, 16, 64, 100, 256])
    cap = rows * cols
    nnz = min(cap, rng.choice([0, 1, max(1, cap // 10), max(1, cap // 3), cap]))
    kind = rng.choice(GOOD_GEN)
    extra = ""
    if kind == "banded":
        extra = ",bw=%d" % rng.choice([0, 1, 4])
        nnz = min(nnz, rows)  # stay inside the band
    elif kind == "block":
        bs = rng.choice([1, 2, 4])
        if bs > min(rows, cols):
            bs = 1
        extra = ",bs=%d" % bs
    elif kind == "clustered":
        extra = ",group=%d" % max(1, min(rows, rng.choice([1, 4, 8])))
    spec = "gen:%s:rows=%d,cols=%d,nnz=%d%s,seed=%d" % (
        kind, rows, cols, nnz, extra, rng.randint(1, 9))
    return spec, rows <= 256 and cols <= 256


def _pick(rng, common, rare, p_rare=0.2):
    return rng.choice(rare) if rng.random() < p_rare else rng.choice(common)


def pass_options(name, rng, text, mutated_dims, fuzz):
    """Returns the option list of one pass (empty = defaults)."""
    if not fuzz:
        if name == "autotune":
            return ["mode=heuristic"]  # release needs a matching model file
        return []
    o = []
    r = rng.random
    if name == "extract-kernels":
        if r() < 0.3:
            o.append("report=-")
        if r() < 0.3:
            o.append("remarks=%s" % rng.choice(["true", "false"]))
    elif name == "default-schedule":
        if r() < 0.5:
            o.append("target=%s" % _pick(rng, ["cpu", "nvvm", "spade"],
                                         ["tpu", ""], 0.1))
    elif name == "apply-schedule":
        if r() < 0.5:
            o.append("retype-args=%s" % rng.choice(["true", "false"]))
    elif name == "autotune":
        mode = _pick(rng, ["heuristic"] * 4 + ["release"],
                     ["development", "oracle"], 0.1)
        o.append("mode=%s" % mode)
        if r() < 0.3:
            o.append("target=%s" % _pick(rng, ["cpu", "cpu", "nvvm", "spade"],
                                         ["tpu"], 0.1))
        good_matrix = False
        if r() < 0.7:
            spec, good_matrix = _matrix_spec(rng, text)
            o.append("matrix=%s" % spec)
        if r() < 0.4:
            o.append("candidates=%s" % _pick(
                rng, ["0", "1", "2", "10", "100", "1000"],
                ["-1", "4294967295", "99999999999", "abc"], 0.15))
        if r() < 0.3:
            o.append("top-k=%s" % rng.choice(["0", "1", "2", "5", "1000"]))
        if r() < 0.3:
            o.append("seed=%d" % rng.randint(0, 2**32 - 1))
        if r() < 0.4:
            o.append("free=%s" % rng.choice(
                ["-1", "0", "1", "3", "64", str(2**31), str(2**62)]))
        # Measuring runs kernels on this machine: rarely, never for long
        # (small valid matrix, no mutated shapes, no huge free size).
        if (good_matrix and not mutated_dims and mode in ("heuristic",)
                and r() < 0.08):
            o = [x for x in o if not x.startswith("free=")]
            o.append("free=%d" % rng.choice([1, 8, 16]))
            o.append("measure-top-k=%d" % rng.choice([1, 2]))
            if r() < 0.5:
                o.append("measure-heuristic=%s" % rng.choice(["true", "false"]))
    elif name in ("lower-cpu", "cpu-sparsify"):
        if r() < 0.4:
            o.append("vl=%s" % _pick(rng, ["-1", "0", "1", "4", "8", "16"],
                                     ["-5", "2", "3", "64", "1024",
                                      str(2**31 - 1), "x"], 0.3))
        if name == "lower-cpu" and r() < 0.4:
            o.append("threads=%s" % _pick(rng, ["-1", "0", "1", "2", "4"],
                                          ["-2", "1024", str(2**31 - 1)], 0.3))
        if r() < 0.4:
            o.append("parallelization=%s" % _pick(
                rng, ["auto", "none", "dense-outer-loop",
                      "any-storage-outer-loop"], ["outer", ""], 0.1))
        if r() < 0.3:
            o.append("simd32=%s" % _pick(rng, ["auto", "true", "false"],
                                         ["maybe"], 0.1))
        if r() < 0.2:
            o.append("enable-runtime-library=%s" % rng.choice(["true", "false"]))
    elif name == "fuse-scales":
        if r() < 0.3:
            o.append("remarks=%s" % rng.choice(["true", "false"]))
    elif name == "emit-spade":
        if r() < 0.5:
            o.append("pes=%s" % rng.choice(["-1", "0", "1", "4", "64",
                                            str(2**31 - 1)]))
    if r() < 0.03:
        o.append(rng.choice(["bogus=1", "=", "vl", "threads=="]))
    return o


def choose_pipeline(rng):
    name, passes, _ = rng.choices(PIPELINES,
                                  weights=[w for _, _, w in PIPELINES])[0]
    return name, passes


def pipeline_args(passes, rng, text, mutated_dims):
    fuzz = rng.random() < 0.6
    args = []
    for p in passes:
        if p == "default-schedule:spade":
            opts = ["target=spade"]
            p = "default-schedule"
        elif p == "emit-spade":
            opts = ["output-dir=spade-out"] + pass_options(p, rng, text,
                                                           mutated_dims, fuzz)
        else:
            opts = pass_options(p, rng, text, mutated_dims, fuzz)
        args.append("--sptune-%s" % p + ("=" + " ".join(opts) if opts else ""))
    return args


# ----------------------------------------------------------------------------
# Running and classifying
# ----------------------------------------------------------------------------

# sptune-opt recovers a crash on its main thread (exit status 1) but prints
# the frames and this line: still a crash, attributed by those frames.
CRASH_MARKERS = ("PLEASE submit a bug report", "Stack dump",
                 "sptune-opt: crashed (signal")
FRAME_RE = re.compile(r"^\s*#(\d+)\s+0x[0-9a-fA-F]+\s*(.*)$")
HANDLER_RE = re.compile(r"PrintStackTrace|RunSignalHandlers|SignalHandler|"
                        r"CrashRecoveryContext")
NEUTRAL_MOD_RE = re.compile(r"lib(c|m|gcc_s|stdc\+\+|pthread|gomp|omp)[.-]|"
                            r"ld-linux|linux-vdso|^\./|/csu/|/nptl/|sysdeps")
UPSTREAM_MOD_RE = re.compile(r"libMLIR|libLLVM|llvm-project|/llvm-\d+/|"
                             r"/usr/include/mlir|/usr/include/llvm")
TOP_FRAMES = 6
CL_DIAG_RE = re.compile(r"^[^\s:]+: (for the -+[\w-]+ option: |Unknown command "
                        r"line argument|Cannot find option named|.*may only "
                        r"occur zero or one times)", re.M)


def frame_owner(frame, src_root):
    """'sptune', 'upstream' or None (libc & co, or unknown) for one frame."""
    m = re.search(r"\(([^()]*?)\+0x[0-9a-fA-F]+\)\s*$", frame)
    module = m.group(1) if m else ""
    symbol = frame[:m.start()] if m else frame
    if "sptune" in symbol or "spade" in symbol.lower():
        return "sptune"
    base = os.path.basename(module)
    if base.startswith(("sptune-", "spade-")) or base.startswith("libsptune"):
        return "sptune"
    if module and UPSTREAM_MOD_RE.search(module):
        return "upstream"
    if not module:
        # Source-located frame: `symbol path/file.cpp:line:col`.
        if src_root and src_root in frame and "/build/_deps" not in frame:
            return "sptune"
        if UPSTREAM_MOD_RE.search(frame):
            return "upstream"
        if re.match(r"\s*(mlir|llvm)::", symbol):
            return "upstream"
    return None


def attribute_crash(stderr, src_root):
    """('crash-sptune' | 'crash-upstream', note, top frames)."""
    frames = [m.group(2).strip() for m in
              (FRAME_RE.match(l) for l in stderr.splitlines()) if m]
    # Drop the signal handler: everything up to its last named frame, then
    # libLLVM's unnamed handler frames and the frames of libc / libstdc++
    # (the trampoline, raise, abort, __cxa_throw ...).
    last = -1
    for i, f in enumerate(frames):
        if HANDLER_RE.search(f):
            last = i
    rest = frames[last + 1:]
    while rest and (frame_owner(rest[0], src_root) is None or
                    (rest[0].startswith("(") and "libLLVM" in rest[0])):
        rest = rest[1:]
    known = [(f, o) for f, o in ((f, frame_owner(f, src_root)) for f in rest)
             if o is not None][:TOP_FRAMES]
    passes = re.findall(r"^\d+\.\s+(Running pass .*)$", stderr, flags=re.M)
    pass_note = ("; innermost: " + passes[-1].strip()) if passes else ""
    top = [f for f, _ in known]
    if not known:
        return "crash-sptune", "unattributed (no stack frames)" + pass_note, top
    if any(o == "sptune" for _, o in known):
        depth = next(i for i, (_, o) in enumerate(known) if o == "sptune")
        return "crash-sptune", "sptune frame #%d of the top %d" % (
            depth, len(known)) + pass_note, top
    return ("crash-upstream",
            "top %d frames in libMLIR/libLLVM" % len(known) + pass_note, top)


def child_limits(mem_mb):
    """A preexec_fn for a child process: no core dumps, and at most `mem_mb`
    MiB of address space (0: no limit)."""
    def fn():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if mem_mb:
            b = mem_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (b, b))
    return fn


def run_process(cmd, cwd, timeout, mem_mb, env=None, keep_stdout=False):
    """(returncode or None on timeout, stdout ("" unless `keep_stdout`),
    stderr, seconds) of `cmd` run in its own session under child_limits; a
    run past `timeout` is killed with its whole process group."""
    t0 = time.time()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE if keep_stdout
                         else subprocess.DEVNULL,
                         stderr=subprocess.PIPE,
                         start_new_session=True, preexec_fn=child_limits(mem_mb))
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        rc = None
    return (rc, (out or b"").decode("utf-8", "replace"),
            err.decode("utf-8", "replace"), time.time() - t0)


def run_cmd(cmd, cwd, timeout, mem_mb):
    """(returncode or None on timeout, stderr, seconds)."""
    rc, _, err, secs = run_process(cmd, cwd, timeout, mem_mb)
    return rc, err, secs


def classify(rc, stderr, src_root):
    """(class, note, top frames)."""
    if rc is None:
        return "hang", "", []
    if (rc < 0 or any(m in stderr for m in CRASH_MARKERS)):
        cls, note, top = attribute_crash(stderr, src_root)
        sig = ("signal %s" % signal.Signals(-rc).name) if rc < 0 else "rc %d" % rc
        return cls, "%s; %s" % (sig, note), top
    if rc == 0:
        return "ok", "", []
    if "error:" in stderr:
        return "error", "", []
    if CL_DIAG_RE.search(stderr):
        # llvm::cl's diagnostics of bad option values carry no `error:`.
        return "error", "option diagnostic", []
    return "no-diagnostic", "rc %d" % rc, []


# ----------------------------------------------------------------------------
# Driver
# ----------------------------------------------------------------------------

def annotate(seed, opt, workdir, timeout, mem_mb):
    """The seed after extract-kernels + default-schedule (cached)."""
    if seed.annotated is not None:
        return seed.annotated
    seed.annotated = seed.text
    if "sptune.schedule" in seed.text:
        return seed.annotated
    inp = os.path.join(workdir, "annotate.mlir")
    outp = os.path.join(workdir, "annotate.out.mlir")
    with open(inp, "w") as f:
        f.write(seed.text)
    rc, _, _ = run_cmd([opt, inp, "--sptune-extract-kernels",
                        "--sptune-default-schedule", "-o", outp],
                       workdir, timeout, mem_mb)
    if rc == 0 and os.path.exists(outp):
        with open(outp) as f:
            out = f.read()
        if "sptune.schedule" in out:
            seed.annotated = out
    return seed.annotated


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m sptune.ir_fuzz",
        description="Seeded mutation fuzzer for sptune-opt's IR and pass "
                    "options (docs/reliability.md).")
    ap.add_argument("--build", default="build",
                    help="build directory (sptune-opt is BUILD/bin/sptune-opt)")
    ap.add_argument("--opt", help="sptune-opt to run (overrides --build)")
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", nargs="+", metavar="FILE.mlir",
                    help="seed files (split on `// -----`); default: "
                         "examples/kernels.mlir and kernel tests")
    ap.add_argument("--src", default=SRC_ROOT,
                    help="source root for the default seeds (default: %(default)s)")
    ap.add_argument("--out", help="write crash / hang reproducers here")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds per case (default 60)")
    ap.add_argument("--mem-limit-mb", type=int, default=4096,
                    help="address-space limit of each run (0 = none)")
    ap.add_argument("--only", type=str,
                    help="comma-separated case numbers to run (reproduce)")
    ap.add_argument("--list", action="store_true",
                    help="print every case's pipeline, mutations and class")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the cases without running them (seeds are "
                         "not annotated, so cases differ from a real run)")
    args = ap.parse_args(argv)

    opt = args.opt or os.path.join(args.build, "bin", "sptune-opt")
    opt_path = shutil.which(opt) or opt
    if not (os.path.isfile(opt_path) and os.access(opt_path, os.X_OK)):
        print("ir_fuzz: no sptune-opt at %s" % opt, file=sys.stderr)
        return 2
    opt_path = os.path.abspath(opt_path)
    # --seeds are paths as given; the default seeds live under --src.
    files = (load_seeds(args.seeds, None) if args.seeds
             else load_seeds(DEFAULT_SEEDS, args.src))
    if not files:
        print("ir_fuzz: no seed with a linalg op", file=sys.stderr)
        return 2
    src_root = os.path.realpath(args.src)

    numbers = (sorted({int(x) for x in args.only.split(",") if x.strip()})
               if args.only else list(range(args.cases)))
    counts = collections.Counter()
    per_pipe = collections.defaultdict(collections.Counter)
    per_mut = collections.defaultdict(collections.Counter)
    findings = []
    workdir = tempfile.mkdtemp(prefix="sptune-ir-fuzz-")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    last_report = t0
    try:
        for done, n in enumerate(numbers, 1):
            rng = random.Random("ir-fuzz:%d:%d" % (args.seed, n))
            _, chunks = rng.choice(files)
            seed = rng.choice(chunks)
            pname, passes = choose_pipeline(rng)
            # Pipelines without extract-kernels (and a fifth of the others)
            # start from the seed annotated by extract-kernels +
            # default-schedule: kernels and schedules attached, so the
            # mutations reach the #sptune attributes too. Annotating draws
            # nothing from the RNG, so a case is the same whether or not its
            # seed was annotated before.
            use_annotated = passes[0] != "extract-kernels" or rng.random() < 0.2
            text0 = seed.text
            if use_annotated and not args.dry_run:
                text0 = annotate(seed, opt_path, workdir, args.timeout,
                                 args.mem_limit_mb)
            text, muts = mutate(text0, rng)
            mutated_dims = any(k == "dim" for k, _ in muts)
            pargs = pipeline_args(passes, rng, text, mutated_dims)
            inp = os.path.join(workdir, "case-%d.mlir" % n)
            with open(inp, "w") as f:
                f.write(text)
            shutil.rmtree(os.path.join(workdir, "spade-out"), ignore_errors=True)
            cmd = [opt_path, "case-%d.mlir" % n] + pargs + ["-o", "/dev/null"]
            if args.dry_run:
                print("case %d: [%s] seed=%s muts=%s args=%s" % (
                    n, pname, seed.name, [d for _, d in muts], pargs))
                continue
            rc, err, secs = run_cmd(cmd, workdir, args.timeout, args.mem_limit_mb)
            cls, note, top = classify(rc, err, src_root)
            counts[cls] += 1
            per_pipe[pname][cls] += 1
            for k in sorted({k for k, _ in muts}) or ["none"]:
                per_mut[k][cls] += 1
            seed_desc = seed.name + (" (annotated)" if text0 != seed.text
                                     else "")
            if args.list:
                print("case %d: %s [%s] seed=%s muts=%s args=%s (%.1fs)" % (
                    n, cls, pname, seed_desc, [d for _, d in muts],
                    pargs, secs))
            if cls.startswith("crash") or cls == "hang" or cls == "no-diagnostic":
                findings.append((n, cls, pname, seed_desc, muts, pargs, note,
                                 top))
                if args.out:
                    write_repro(args.out, n, text, cmd, cls, pname, seed_desc,
                                muts, note, err, args.seed, top)
            if os.path.exists(inp):
                os.unlink(inp)
            now = time.time()
            if done % 10 == 0 or done == len(numbers) or now - last_report > 30:
                last_report = now
                print("ir_fuzz: %d/%d cases, %.2f cases/s, %s" % (
                    done, len(numbers), done / max(now - t0, 1e-9),
                    " ".join("%s=%d" % (k, counts[k]) for k in CLASSES
                             if counts[k])), file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    print("cases: %d" % len(numbers))
    for k in CLASSES:
        print("%s: %d" % (k, counts[k]))
    for p in sorted(per_pipe):
        c = per_pipe[p]
        print("pipeline %s: cases=%d %s" % (
            p, sum(c.values()), " ".join("%s=%d" % (k, c[k]) for k in CLASSES)))
    for m in sorted(per_mut):
        c = per_mut[m]
        print("mutation %s: cases=%d %s" % (
            m, sum(c.values()), " ".join("%s=%d" % (k, c[k]) for k in CLASSES)))
    for (n, cls, pname, seed_desc, muts, pargs, note, top) in findings:
        print("finding case-%d: %s [%s] seed=%s mutations=%s args=%s %s" % (
            n, cls, pname, seed_desc, [d for _, d in muts],
            " ".join(shlex.quote(a) for a in pargs), note))
    return 0


def write_repro(out, n, text, cmd, cls, pname, seed_desc, muts, note, err,
                seed, top):
    base = os.path.join(out, "case-%d" % n)
    with open(base + ".mlir", "w") as f:
        f.write(text)
    with open(base + ".stderr", "w") as f:
        f.write(err)
    stack = [l for l in err.splitlines() if FRAME_RE.match(l)][:12]
    with open(base + ".cmd", "w") as f:
        f.write("#!/bin/sh\n")
        f.write("# sptune ir_fuzz case %d (--seed %d): %s\n" % (n, seed, cls))
        f.write("# pipeline: %s\n# seed input: %s\n" % (pname, seed_desc))
        for _, d in muts:
            f.write("# mutation: %s\n" % d)
        if note:
            f.write("# %s\n" % note)
        if top:
            f.write("# frames used for the attribution (top, handler and libc "
                    "skipped):\n")
            for l in top:
                f.write("#   %s\n" % l)
        f.write("# stack dump (first %d frames):\n" % len(stack) if stack else "")
        for l in stack:
            f.write("#   %s\n" % l.strip())
        f.write("# (spade-out/ is the emit-spade output directory, if any)\n")
        f.write('cd "$(dirname "$0")" && ' +
                " ".join(shlex.quote(a) for a in cmd) + "\n")
    os.chmod(base + ".cmd", 0o755)


if __name__ == "__main__":
    sys.exit(main())
