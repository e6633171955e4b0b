"""sptune-autotune from Python: run the pass (`sptune-opt
--sptune-extract-kernels --sptune-autotune=...`) exactly as users do, and
read back the chosen schedules and the ranking of its remark.

The remark reads

    sptune-autotune (MODE, N candidates ranked in T ms[, top K [and the
    heuristic] measured]): chose SCHEDULE; ranking: #1 score S [measured
    X ms] [SCHEDULE] #2 ... [+ heuristic #R score ...][; NOTE]...
"""

import functools
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field

from sptune import kernel_ir
from sptune.run import ToolError, executable, run

_HEADER = re.compile(
    r"sptune-autotune \((?P<mode>\w+), (?P<n>\d+) candidates ranked in "
    r"(?P<ms>[0-9.]+) ms(?P<measured>, top \d+[^)]* measured)?\): chose ")
_ENTRY = re.compile(
    r"\s*(?P<guard>\+ heuristic )?#(?P<rank>\d+) score (?P<score>-?[0-9.]+|nan|inf|-inf)"
    r"(?: measured (?P<ms>[0-9.]+) ms)?(?: \((?P<status>[^)]*)\))? \[")


@dataclass
class Candidate:
    rank: int
    score: float
    schedule: str
    measured_ms: float = None
    status: str = None      # why a measured candidate has no time
    heuristic: bool = False  # the heuristic schedule, measured as a guard


@dataclass
class Ranking:
    """One kernel's sptune-autotune remark."""
    mode: str
    candidates: int
    rank_ms: float
    chosen: str
    measured: bool
    top: list = field(default_factory=list)
    notes: list = field(default_factory=list)  # e.g. "ranked by the heuristic: ..."
    text: str = ""  # the remark as printed

    def to_json(self):
        return {"mode": self.mode, "candidates": self.candidates, "rank_ms": self.rank_ms,
                "chosen": self.chosen, "measured": self.measured, "notes": self.notes,
                "remark": self.text,
                "ranking": [c.__dict__ for c in self.top]}


def _bracketed(text, start):
    """The end (exclusive) of the bracketed text whose '[' is at start - 1."""
    depth = 1
    i = start
    while i < len(text) and depth:
        depth += {"[": 1, "]": -1}.get(text[i], 0)
        i += 1
    return i


#: The remark sptune-autotune makes once per run, not per kernel, when the
#: cost model was trained on another CPU (ModelGuard.h's otherMachineNote).
MACHINE_NOTE = "remark: sptune-autotune: the cost model was trained on measurements from "


def parse_remark(line):
    """The Ranking of an sptune-autotune remark line; None for another line
    (also for the once-per-run note about the machine, MACHINE_NOTE). A
    remark of another form (e.g. a decision from a tuning database) gives a
    Ranking with only its `text`."""
    m = _HEADER.search(line)
    if not m:
        at = line.find("remark: sptune-autotune")
        if at < 0 or MACHINE_NOTE in line:
            return None
        return Ranking(mode=None, candidates=None, rank_ms=None, chosen=None, measured=False,
                       text=line[at + len("remark: "):])
    rest = line[m.end():]
    chosen, sep, rest = rest.partition("; ranking:")
    r = Ranking(mode=m["mode"], candidates=int(m["n"]), rank_ms=float(m["ms"]),
                chosen=chosen.strip(), measured=bool(m["measured"]), text=line[m.start():])
    pos = 0
    while True:
        e = _ENTRY.match(rest, pos)
        if not e:
            break
        end = _bracketed(rest, e.end())
        r.top.append(Candidate(
            rank=int(e["rank"]), score=float(e["score"]), schedule=rest[e.end():end - 1],
            measured_ms=float(e["ms"]) if e["ms"] else None, status=e["status"],
            heuristic=bool(e["guard"])))
        pos = end
    r.notes = [n.strip() for n in rest[pos:].split(";") if n.strip()]
    return r


def options(matrix, free=None, target=None, mode=None, model=None, top_k=None,
            measure_top_k=0, measure_heuristic=False, database=None, seed=None):
    """The option string of --sptune-autotune (only what is given)."""
    opts = [f"matrix={matrix}"]
    for key, value in (("target", target), ("mode", mode), ("model", model), ("free", free),
                       ("top-k", top_k), ("measure-top-k", measure_top_k),
                       ("database", database), ("seed", seed)):
        if value not in (None, "", 0):
            opts.append(f"{key}={value}")
    if measure_heuristic:
        opts.append("measure-heuristic=true")
    return " ".join(opts)


@functools.lru_cache(maxsize=None)
def _help(opt):
    p = subprocess.run([opt, "--help"], capture_output=True, text=True)
    return p.stdout


def pass_options(pass_name="sptune-autotune", opt=None):
    """The option names of pass `pass_name`, as this sptune-opt lists them
    in --help (e.g. {'matrix', 'free', ...})."""
    opt = opt or executable("sptune-opt")
    names, indent = set(), None
    for line in _help(opt).splitlines():
        stripped = line.lstrip()
        depth = len(line) - len(stripped)
        if indent is None:
            if stripped.startswith(f"--{pass_name} ") or stripped == f"--{pass_name}":
                indent = depth
            continue
        if depth <= indent and stripped.startswith("--"):
            break
        if depth > indent and stripped.startswith("--"):
            names.add(re.split(r"[=\s]", stripped[2:], 1)[0])
    return names


def autotune_file(path, opts, opt=None, out=None, timeout=None):
    """Runs sptune-opt PATH --sptune-extract-kernels --sptune-autotune=OPTS;
    returns (the annotated IR's text, [Ranking per remark]). Raises
    ToolError with sptune-opt's diagnostics when it fails."""
    opt = opt or executable("sptune-opt")
    cmd = [opt, path, "--sptune-extract-kernels", f"--sptune-autotune={opts}",
           "--mlir-print-op-on-diagnostic=false"]
    if out:
        cmd += ["-o", out]
    p = run(cmd, what="sptune-opt --sptune-autotune", timeout=timeout)
    text = open(out).read() if out else p.stdout
    rankings = [r for r in map(parse_remark, p.stderr.splitlines()) if r]
    return text, rankings


def pick(kernel, matrix, free, opt=None, save_ir=None, **kw):
    """Autotunes kernel `kernel` (written by kernel_ir) for `matrix`;
    returns (the chosen schedule's text, its Ranking or None). `kw` are
    options() keywords; `save_ir` a file for the tuned IR."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"{kernel}.mlir")
        with open(path, "w") as f:
            f.write(kernel_ir.kernel_mlir(kernel))
        text, rankings = autotune_file(path, options(matrix, free=free, **kw), opt=opt,
                                       out=save_ir)
    chosen = kernel_ir.schedules(text)
    if not chosen:
        raise ToolError(f"sptune-opt --sptune-autotune attached no schedule to the {kernel} kernel")
    return chosen[0], rankings[0] if rankings else None
