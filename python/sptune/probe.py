"""The closing reliability probe of issue 13: every tool, every bad input.

    PYTHONPATH=python /usr/bin/python3 -m sptune.probe --build build \\
        --out DIR [--seed S] [--quick] [--jobs 2] [--timeout 60]

It generates cases in ten areas, runs each as a subprocess (its own
process group, a timeout, an address-space limit, no core dumps) and
classifies the outcome:

  ok              exit 0, and every check of the output passed
  error           a clean error: non-zero exit with a message on stderr (or,
                  for sptune-measure, a JSON result with its reason), no
                  crash signature
  crash-sptune    a signal, "Stack dump" / "PLEASE submit a bug report" on
                  stderr, or an uncaught Python exception of sptune's Python
                  code, where the top frames are sptune's (or cannot be
                  attributed); the attribution is sptune.ir_fuzz's
  crash-upstream  a crash whose top frames are all in libMLIR / libLLVM
  hang            past the timeout (the whole process group is killed)
  silent-wrong    exit 0 where an error was due (a malformed input or an
                  out-of-range option accepted), output that contradicts the
                  input (sizes, a schedule not applied, non-finite numbers,
                  an "ok" measurement of zero time), a non-zero exit with no
                  message at all, or a valid input refused
  data            records lost or duplicated (collector kills and resumes,
                  concurrent collectors or tuning-database appends, Slurm
                  batches)

Areas (docs/reliability.md, "The closing probe (issue 13)"):

  matrix   malformed and edge-case Matrix Market files through sptune-matrix
           stats, sptune-measure, sptune-collect and sptune-opt autotune
  opt      sptune-opt: the IR fuzzer's mutated inputs and options
           (sptune.ir_fuzz), random schedules through apply + lowering,
           every pass option with bad values
  measure  sptune-measure options, and worker-protocol request lines
  collect  sptune-collect options and faults: kill -9 and resume, two
           collectors on one file, bad workers, a poisoned dataset file
  train    sptune-train options and malformed datasets
  spade    spade-sim options, machine parameters and mutated programs
  db       tuning databases: malformed files through sptune-db and
           sptune-autotune database=, concurrent appends
  learn    sptune-learn options, outputs and state (issue 35), kill -9 and
           resume to an uninterrupted run's rounds, and requests too big for
           the memory budget
  python   python3 -m sptune tune / report, sptune.torch bad inputs
  slurm    sptune-collect and sptune-learn --backend slurm on a fake Slurm
           (FAKE_SLURM: sbatch, squeue and scancel on PATH, array tasks as
           local processes): options refused before anything is submitted,
           sbatch / squeue missing, failing, printing garbage or hanging,
           array tasks failing, preempted or cancelled, drivers killed and
           run again, an orphan job; complete runs end with a local run's
           keys, each once

Every step of a case has --timeout seconds (60), worker sessions and
collector faults 120 s, sptune.torch cases 180 s (a first compile), steps of
a Slurm case whose array tasks measure 90 s. Cases are generated from --seed; the valid inputs they start from (a small
dataset, tuning database, model, SPADE program) are built once per run.
--quick runs a fixed slice of 85 cases (about 50 s on 2 cores), the full
probe about 1,660 (about 20 minutes with --jobs 2). The exit status is 0
whatever the findings (2 without a build); the stdout summary ends
with stable `total <class>: N` lines for lit. With --out, DIR gets
summary.json, counts.md (the per-area table) and failures/<case>/ with the
inputs, the command (cmd.sh), stdout and stderr of every case that is not ok
or a clean error.
"""

import argparse
import collections
import concurrent.futures
import glob
import json
import math
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from sptune import ir_fuzz, tools

AREAS = ["matrix", "opt", "measure", "collect", "train", "spade", "db",
         "learn", "python", "slurm"]
CLASSES = ["ok", "error", "crash-sptune", "crash-upstream", "hang",
           "silent-wrong", "data"]
FAILING = {"crash-sptune", "hang", "silent-wrong", "data"}
SRC_ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT_LIMIT = 4 << 20  # bytes of stdout / stderr read back per step

# A small matrix every tool accepts quickly.
SMALL = "gen:uniform:rows=32,cols=32,nnz=120,seed=3"


# ----------------------------------------------------------------------------
# Cases and results
# ----------------------------------------------------------------------------

class Case:
    """One probe case: a command (or a custom runner) and what is due."""

    def __init__(self, area, name, cmd=None, files=None, stdin=None,
                 expect="any", check=None, runner=None, timeout=None,
                 env=None, quick=False, python=False, mem_mb=None):
        self.area = area
        self.name = name
        self.cmd = cmd            # list of strings; paths relative to the case dir
        self.files = files or {}  # name -> str | bytes | callable(ctx) -> str|bytes
        self.stdin = stdin
        self.expect = expect      # "ok" | "error" | "any"
        self.check = check        # fn(res, d, ctx) -> None | (class, note)
        self.runner = runner      # fn(case, d, ctx) -> Outcome (multi-step cases)
        self.timeout = timeout
        self.env = env or {}
        self.quick = quick
        self.python = python      # a Python command: a traceback is a crash
        self.mem_mb = mem_mb
        self.id = None


class Res:
    def __init__(self, rc, out, err, secs, cmd):
        self.rc, self.out, self.err, self.secs, self.cmd = rc, out, err, secs, cmd


class Outcome:
    def __init__(self, cls, note="", err="", out="", cmds=None, secs=0.0):
        self.cls, self.note, self.err, self.out = cls, note, err, out
        self.cmds = cmds or []
        self.secs = secs


def _loads(text):
    """json.loads that treats NaN / Infinity (not JSON) and nesting Python's
    parser cannot follow as malformed (ValueError)."""
    def no_constant(name):
        raise ValueError("not JSON: " + name)
    try:
        return json.loads(text, parse_constant=no_constant)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _read(path, limit=OUT_LIMIT):
    try:
        with open(path, "rb") as f:
            data = f.read(limit)
    except OSError:
        return ""
    return data.decode("utf-8", "replace")


def run(cmd, d, timeout, mem_mb=4096, stdin=None, env=None, tag="step"):
    """Runs cmd in d; stdout / stderr go to d/<tag>.stdout/.stderr."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    outp = os.path.join(d, tag + ".stdout")
    errp = os.path.join(d, tag + ".stderr")
    t0 = time.time()
    with open(outp, "wb") as fo, open(errp, "wb") as fe:
        p = subprocess.Popen(cmd, cwd=d, stdin=subprocess.PIPE if stdin is not None
                             else subprocess.DEVNULL, stdout=fo, stderr=fe,
                             start_new_session=True, env=full_env,
                             preexec_fn=ir_fuzz.child_limits(mem_mb))
        try:
            if stdin is not None:
                data = stdin.encode() if isinstance(stdin, str) else stdin
                try:
                    p.communicate(input=data, timeout=timeout)
                except BrokenPipeError:
                    p.wait(timeout=timeout)
            else:
                p.wait(timeout=timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            _killpg(p)
            rc = None
    return Res(rc, _read(outp), _read(errp), time.time() - t0, cmd)


def _killpg(p, sig=signal.SIGKILL):
    try:
        os.killpg(p.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass


def _start(cmd, d, stderr_name, ctx, limited=True):
    """Starts `cmd` in `d` in its own process group, stderr into
    d/stderr_name (with the probe's memory limit unless `limited` is off);
    returns (process, stderr file) for _finish_all."""
    fe = open(os.path.join(d, stderr_name), "wb")
    p = subprocess.Popen(cmd, cwd=d, stdout=subprocess.DEVNULL, stderr=fe,
                         start_new_session=True,
                         preexec_fn=ir_fuzz.child_limits(ctx.mem_mb) if limited else None)
    return p, fe


def _finish_all(procs, timeout):
    """Waits for every (process, stderr file) of _start, killing the group of
    one that runs past `timeout`; the exit codes, None for those killed."""
    rcs = []
    for p, fe in procs:
        try:
            p.wait(timeout=timeout)
            rcs.append(p.returncode)
        except subprocess.TimeoutExpired:
            _killpg(p)
            rcs.append(None)
        fe.close()
    return rcs


TRACEBACK = "Traceback (most recent call last)"
# sptune-measure answers with a JSON result on stdout, its reason the message.
REASON_RE = re.compile(r'"reason":"[^"]')


def crash_of(res, python=False):
    """(class, note) when res is a crash, else None."""
    if res.rc is None:
        return None
    markers = any(m in res.err for m in ir_fuzz.CRASH_MARKERS)
    if res.rc < 0 or markers:
        cls, note, top = ir_fuzz.attribute_crash(res.err, SRC_ROOT)
        sig = (("signal %s" % signal.Signals(-res.rc).name) if res.rc < 0
               else "rc %d" % res.rc)
        return cls, "%s; %s%s" % (sig, note, ("; top: " + top[0][:120])
                                  if top else "")
    if python and TRACEBACK in res.err:
        last = [l for l in res.err.strip().splitlines() if l.strip()]
        return "crash-sptune", "uncaught Python exception: %s" % (
            last[-1][:200] if last else "?")
    return None


def judge(res, expect="any", python=False):
    """(class, note) of one step by exit status and stderr alone."""
    if res.rc is None:
        return "hang", "no exit within %.0f s" % res.secs
    c = crash_of(res, python)
    if c:
        return c
    if res.rc == 0:
        if expect == "error":
            return "silent-wrong", "exit 0 where an error was due"
        return "ok", ""
    if not res.err.strip() and not REASON_RE.search(res.out):
        return "silent-wrong", "exit %d without a message" % res.rc
    if expect == "ok":
        return "silent-wrong", "valid input refused (exit %d): %s" % (
            res.rc, _last_line(res.err))
    return "error", ""


def _last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:200] if lines else ""


def default_runner(case, d, ctx):
    cmd = [ctx.expand(a) for a in case.cmd]
    res = run(cmd, d, case.timeout or ctx.timeout, case.mem_mb or ctx.mem_mb,
              stdin=case.stdin, env=case.env)
    cls, note = judge(res, case.expect, case.python)
    if "SETUP-FAILED" in res.err:
        cls, note = "probe-error", _last_line(res.err)
    if cls in ("ok", "error") and case.check:
        r = case.check(res, d, ctx)
        if r:
            cls, note = r
    return Outcome(cls, note, res.err, res.out, [cmd], res.secs)


# ----------------------------------------------------------------------------
# The context: tools, scratch space, lazily built valid inputs
# ----------------------------------------------------------------------------

class Ctx:
    def __init__(self, args):
        self.build = os.path.abspath(args.build)
        self.bin = os.path.join(self.build, "bin")
        self.src = SRC_ROOT
        self.seed = args.seed
        self.timeout = args.timeout
        self.mem_mb = args.mem_limit_mb
        self.python = sys.executable or "/usr/bin/python3"
        self.scratch = tempfile.mkdtemp(prefix="sptune-probe-")
        self.setup_dir = os.path.join(self.scratch, "setup")
        os.makedirs(self.setup_dir)
        self._lock = threading.RLock()  # setups use other setups
        self._cache = {}
        self.kernels = os.path.join(self.src, "examples", "kernels.mlir")
        self.pyenv = {"PYTHONPATH": os.path.join(self.src, "python"),
                      "SPTUNE_BIN": self.bin}

    def tool(self, name):
        return os.path.join(self.bin, name)

    def expand(self, a):
        """{bin}, {src}, {setup:NAME} in command arguments."""
        a = a.replace("{bin}", self.bin).replace("{src}", self.src)
        m = re.search(r"\{setup:(\w+)\}", a)
        if m:
            a = a.replace(m.group(0), self.setup(m.group(1)))
        return a

    def setup(self, name):
        """A valid input built once (thread safe): a path."""
        with self._lock:
            if name not in self._cache:
                self._cache[name] = getattr(self, "_setup_" + name)()
            return self._cache[name]

    def _setup_small_mtx(self):
        p = os.path.join(self.setup_dir, "small.mtx")
        subprocess.run([self.tool("sptune-matrix"), "gen", SMALL, "-o", p],
                       check=True)
        return p

    def _setup_annotated(self):
        """examples/kernels.mlir after extract-kernels + default-schedule."""
        p = os.path.join(self.setup_dir, "annotated.mlir")
        subprocess.run([self.tool("sptune-opt"), self.kernels,
                        "--sptune-extract-kernels", "--sptune-default-schedule",
                        "-o", p], check=True, stderr=subprocess.DEVNULL)
        return p

    def _setup_dataset(self):
        """A small real dataset: 4 matrices, SpMM, 5 samples + the default."""
        p = os.path.join(self.setup_dir, "dataset.jsonl")
        specs = ["gen:uniform:rows=48,cols=48,nnz=200,seed=1",
                 "gen:banded:rows=64,cols=64,nnz=300,bw=6,seed=2",
                 "gen:rmat:rows=64,cols=64,nnz=400,seed=3",
                 "gen:block:rows=48,cols=48,nnz=256,bs=4,seed=4"]
        subprocess.run([self.tool("sptune-collect")] + specs +
                       ["--kernel", "spmm", "--free", "8", "--samples", "5",
                        "--min-seconds", "0", "--min-reps", "2",
                        "--baselines", "mlir-default", "--timeout", "60",
                        "--out", p], check=True, stderr=subprocess.DEVNULL)
        return p

    def _setup_db(self):
        """A tuning database with three records (the kernels of
        examples/kernels.mlir on SMALL)."""
        p = os.path.join(self.setup_dir, "tuning.jsonl")
        subprocess.run([self.tool("sptune-opt"), self.kernels,
                        "--sptune-extract-kernels",
                        "--sptune-autotune=mode=heuristic matrix=%s database=%s"
                        % (SMALL, p), "-o", os.devnull], check=True,
                       stderr=subprocess.DEVNULL)
        return p

    def _setup_program(self):
        p = os.path.join(self.setup_dir, "spmm.spade")
        subprocess.run([self.tool("spade-sim"), SMALL,
                        "--schedule=spade spmm, split = [8, 16], tile = 0, "
                        "pes = 4, barrier = false, bypass = [], reorder = none",
                        "--emit-program=" + p], check=True)
        return p

    def _setup_model(self):
        """A model trained on the setup dataset (2 epochs)."""
        p = os.path.join(self.setup_dir, "model.pt")
        subprocess.run([self.tool("sptune-train"), "--data",
                        self.setup("dataset"), "--out", p, "--epochs", "2",
                        "--quiet"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        return p

    def _setup_slurm_local(self):
        """The Slurm area's plan measured by a local run: the keys each of
        its Slurm runs must end with."""
        p = os.path.join(self.setup_dir, "slurm-local.jsonl")
        subprocess.run([self.tool("sptune-collect")] + SLURM_MATRICES +
                       SLURM_PLAN + ["--out", p], check=True,
                       stderr=subprocess.DEVNULL)
        return p

    def read_setup(self, name):
        with open(self.setup(name)) as f:
            return f.read()


# ----------------------------------------------------------------------------
# Area: Matrix Market files through four tools
# ----------------------------------------------------------------------------

BANNER = "%%MatrixMarket matrix coordinate real general\n"

# (name, content, oracle): oracle (rows, cols, nnz) for a valid file (nnz
# None: not checked), None when the file is malformed (an error is due),
# "any" when either outcome is fine.
def mtx_corpus(rng):
    g = BANNER
    big = 1 << 27
    rnd = bytes(rng.randrange(256) for _ in range(300))
    return [
        # Valid files.
        ("general", g + "% c\n4 5 3\n1 1 1.5\n2 3 -2\n4 5 3e2\n", (4, 5, 3)),
        ("pattern", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n3 1\n", (3, 3, 2)),
        ("integer", "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 7\n3 1 -4\n", (3, 3, 2)),
        ("symmetric", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n3 3 2\n", (3, 3, 3)),
        ("skew", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n3 2 4\n", (3, 3, 4)),
        ("crlf", (g + "4 5 3\n1 1 1.5\n2 3 -2\n4 5 3e2\n").replace("\n", "\r\n"), (4, 5, 3)),
        ("uppercase", "%%MATRIXMARKET MATRIX COORDINATE REAL GENERAL\n2 2 1\n2 2 1\n", (2, 2, 1)),
        ("tabs", g + "3\t3\t2\n1\t1\t 1\n  3 3   2.5  \n", (3, 3, 2)),
        ("duplicates", g + "3 3 3\n1 1 1\n1 1 2\n2 2 1\n", (3, 3, 2)),
        ("no-entries", g + "5 7 0\n", (5, 7, 0)),
        ("zero-by-zero", g + "0 0 0\n", (0, 0, 0)),
        ("one-by-one", g + "1 1 1\n1 1 -0.5\n", (1, 1, 1)),
        ("explicit-zero", g + "2 2 1\n1 1 0\n", (2, 2, None)),
        ("fortran-exp", g + "2 2 2\n1 1 1.0D+00\n2 2 -3.5d-2\n", (2, 2, 2)),
        ("plus-signs", g + "2 2 1\n+1 +2 +2.5\n", (2, 2, 1)),
        ("extreme-values", g + "2 2 2\n1 1 1e308\n2 2 4e-320\n", (2, 2, 2)),
        ("no-final-newline", g + "2 2 1\n2 1 3", (2, 2, 1)),
        ("comments-between", g + "%a\n\n3 3 2\n% x\n1 1 1\n\n%y\n3 3 1\n%end\n", (3, 3, 2)),
        ("long-comment", g + "%" + "x" * (1 << 20) + "\n2 2 1\n1 1 1\n", (2, 2, 1)),
        ("many-comments", g + "%\n" * 200000 + "2 2 1\n1 1 1\n", (2, 2, 1)),
        ("1e8-rows-empty", g + "100000000 100000000 0\n", (10**8, 10**8, 0)),
        ("max-dim", g + "%d 1 1\n%d 1 1\n" % (big, big), (big, 1, 1)),
        # Malformed files.
        ("empty", "", None),
        ("banner-only", g, None),
        ("no-banner", "3 3 1\n1 1 1\n", None),
        ("bare-banner", "%%MatrixMarket\n3 3 1\n1 1 1\n", None),
        ("banner-typo", "%%MatrixMarkt matrix coordinate real general\n2 2 1\n1 1 1\n", None),
        ("array", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", None),
        ("complex", "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 0\n", None),
        ("hermitian", "%%MatrixMarket matrix coordinate real hermitian\n2 2 1\n1 1 1\n", None),
        ("vector", "%%MatrixMarket vector coordinate real general\n2 2 1\n1 1 1\n", None),
        ("banner-extra", "%%MatrixMarket matrix coordinate real general extra\n2 2 1\n1 1 1\n", None),
        ("banner-short", "%%MatrixMarket matrix coordinate real\n2 2 1\n1 1 1\n", None),
        ("no-size", g + "% only comments\n", None),
        ("size-negative", g + "-3 3 1\n1 1 1\n", None),
        ("size-two", g + "3 3\n1 1 1\n", None),
        ("size-four", g + "3 3 1 1\n1 1 1\n", None),
        ("size-float", g + "3.5 3 1\n1 1 1\n", None),
        ("size-word", g + "three 3 1\n1 1 1\n", None),
        ("rows-2^31-1", g + "2147483647 2 1\n1 1 1\n", None),
        ("rows-2^27+1", g + "%d 2 1\n1 1 1\n" % (big + 1), None),
        ("size-20-digits", g + "99999999999999999999 2 1\n1 1 1\n", None),
        ("entries-10^12", g + "3 3 1000000000000\n1 1 1\n", None),
        ("too-few", g + "3 3 3\n1 1 1\n2 2 1\n", None),
        ("too-many", g + "3 3 1\n1 1 1\n2 2 1\n", None),
        ("index-zero", g + "3 3 1\n0 1 1\n", None),
        ("row-past-end", g + "3 3 1\n4 1 1\n", None),
        ("col-past-end", g + "3 3 1\n1 4 1\n", None),
        ("index-negative", g + "3 3 1\n-1 1 1\n", None),
        ("index-float", g + "3 3 1\n1.5 1 1\n", None),
        ("index-2^63", g + "3 3 1\n9223372036854775808 1 1\n", None),
        ("value-nan", g + "2 2 1\n1 1 nan\n", None),
        ("value-inf", g + "2 2 1\n1 1 inf\n", None),
        ("value-1e400", g + "2 2 1\n1 1 1e400\n", None),
        ("value-missing", g + "2 2 1\n1 1\n", None),
        ("value-word", g + "2 2 1\n1 1 x\n", None),
        ("entry-extra", g + "2 2 1\n1 1 1 1\n", None),
        ("pattern-with-value", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 5\n", None),
        ("integer-real", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", None),
        ("integer-2^70", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1180591620717411303424\n", None),
        ("symmetric-nonsquare", "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", None),
        ("symmetric-both", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n1 2 1\n", None),
        ("skew-diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n", None),
        ("binary", rnd, None),
        ("nul-byte", (g + "2 2 1\n1 1\x00 1\n").encode(), None),
        ("cut-entry", g + "3 3 2\n1 1 1.5\n2 ", None),
        ("bom", b"\xef\xbb\xbf" + (g + "2 2 1\n1 1 1\n").encode(), "any"),
        ("directory", None, None),
        ("missing-file", None, None),
        ("dev-null", None, None),
    ]


def _mtx_path(name, content):
    if name == "directory":
        return "adir"
    if name == "missing-file":
        return "does/not/exist.mtx"
    if name == "dev-null":
        return "/dev/null"
    return name + ".mtx"


def _mtx_files(name, content):
    if name == "directory":
        return {"adir/x.txt": "not a matrix\n"}
    if content is None:
        return {}
    return {name + ".mtx": content}


def _size_check(oracle, get):
    """A check that the tool's reported rows / cols / nnz are the file's."""
    def check(res, d, ctx):
        if res.rc != 0 or not isinstance(oracle, tuple):
            return None
        try:
            got = get(res, d)
        except Exception as e:  # noqa: BLE001 - unparsable output is a finding
            return "silent-wrong", "exit 0 but its output does not parse: %s" % e
        if got is None:
            return None
        want = oracle
        for w, g_, what in zip(want, got, ("rows", "cols", "nnz")):
            if w is not None and g_ != w:
                return "silent-wrong", "%s: %s in the output, %s in the file" % (
                    what, g_, w)
        return None
    return check


def _stats_json(res, d):
    o = json.loads(res.out.strip().splitlines()[-1])
    return o["rows"], o["cols"], o["nnz"]


def _measure_json(res, d):
    o = json.loads(res.out.strip().splitlines()[-1])
    m = o["matrix"]
    return m["rows"], m["cols"], m["nnz"]


def _collect_records(res, d):
    recs = [json.loads(l) for l in open(os.path.join(d, "d.jsonl")) if l.strip()]
    if not recs:
        raise ValueError("no record written")
    m = recs[0]["matrix"]
    if m["rows"] == 0 and recs[0]["status"] != "ok":
        return None  # a failed measurement knows no sizes
    return m["rows"], m["cols"], m["nnz"]


def gen_matrix(ctx, rng):
    cases = []
    corpus = mtx_corpus(rng)
    quick_names = {"general", "symmetric", "no-banner", "rows-2^31-1",
                   "value-nan", "directory", "too-many", "1e8-rows-empty"}
    heavy = {"1e8-rows-empty", "max-dim"}
    # Valid files a measurement may refuse: nothing to time in a 0 x 0
    # matrix; 1e308 is infinite in f32, so the result check fails.
    unmeasurable = {"zero-by-zero", "extreme-values"}
    for name, content, oracle in corpus:
        path = _mtx_path(name, content)
        files = _mtx_files(name, content)
        expect = ("error" if oracle is None else "any" if oracle == "any"
                  else "ok")
        q = name in quick_names
        cases.append(Case("matrix", "stats/" + name,
                          ["{bin}/sptune-matrix", "stats", "--json", path],
                          files, expect=expect,
                          check=_size_check(oracle, _stats_json), quick=q))
        cases.append(Case("matrix", "opt-autotune/" + name,
                          ["{bin}/sptune-opt", "{src}/examples/kernels.mlir",
                           "--sptune-extract-kernels",
                           "--sptune-autotune=mode=heuristic matrix=" +
                           (path if path.startswith("/") else "./" + path),
                           "-o", "out.mlir"],
                          files, expect=expect if name not in heavy else "any",
                          quick=q and name in ("no-banner", "general")))
        if name in heavy:
            # SpMV on a 10^8-row matrix measures gigabytes of vectors.
            continue
        cases.append(Case("matrix", "measure/" + name,
                          ["{bin}/sptune-measure", "--matrix", path, "--kernel",
                           "spmv", "--baseline", "heuristic", "--min-seconds",
                           "0", "--min-reps", "1"],
                          files, expect="any" if name in unmeasurable else expect,
                          check=_size_check(oracle, _measure_json),
                          quick=q and name in ("value-nan", "general")))
        if oracle is None or rng.random() < 0.5:
            cases.append(Case("matrix", "collect/" + name,
                              ["{bin}/sptune-collect", path, "--kernel", "spmv",
                               "--samples", "1", "--baselines", "heuristic",
                               "--min-seconds", "0", "--min-reps", "1",
                               "--timeout", "60", "--out", "d.jsonl"],
                              files, expect="any" if name in unmeasurable else expect,
                              check=_size_check(oracle, _collect_records),
                              quick=q and name == "directory"))
    return cases


# ----------------------------------------------------------------------------
# Area: sptune-opt
# ----------------------------------------------------------------------------

def gen_opt_ir(ctx, rng, count, quick_every):
    """The IR fuzzer's cases (sptune.ir_fuzz), judged here. A case is built
    when it runs (its seed annotated on first use), from an RNG seeded with
    `probe-ir:<seed>:<n>`, so it is the same in every selection."""
    files = ir_fuzz.load_seeds(ir_fuzz.DEFAULT_SEEDS, ctx.src)
    cases = []
    for n in range(count):
        cases.append(Case("opt", "ir-fuzz/%d" % n, runner=_ir_runner(files, n),
                          quick=bool(quick_every) and n % quick_every == 0))
    return cases


_annotate_lock = threading.Lock()


def _ir_runner(files, n):
    def runner(case, d, ctx):
        crng = random.Random("probe-ir:%d:%d" % (ctx.seed, n))
        _, chunks = crng.choice(files)
        seed = crng.choice(chunks)
        pname, passes = ir_fuzz.choose_pipeline(crng)
        use_annotated = passes[0] != "extract-kernels" or crng.random() < 0.2
        text0 = seed.text
        if use_annotated:
            adir = os.path.join(ctx.setup_dir, "annotate")
            with _annotate_lock:
                os.makedirs(adir, exist_ok=True)
                text0 = ir_fuzz.annotate(seed, ctx.tool("sptune-opt"), adir,
                                         ctx.timeout, ctx.mem_mb)
        text, muts = ir_fuzz.mutate(text0, crng)
        mutated_dims = any(k == "dim" for k, _ in muts)
        pargs = ir_fuzz.pipeline_args(passes, crng, text, mutated_dims)
        with open(os.path.join(d, "case.mlir"), "w") as f:
            f.write(text)
        cmd = [ctx.tool("sptune-opt"), "case.mlir"] + pargs + ["-o", os.devnull]
        res = run(cmd, d, ctx.timeout, ctx.mem_mb)
        cls, note = judge(res, "any")
        desc = "[%s] seed=%s%s mutations=%s" % (
            pname, seed.name, " (annotated)" if text0 != seed.text else "",
            [m for _, m in muts])
        return Outcome(cls, (note + "; " if note else "") + desc, res.err,
                       res.out, [cmd], res.secs)
    return runner


CPU_ROLES = {"spmm": ("i", "k", "j"), "spmv": ("i", "k", None),
             "sddmm": ("i", "j", "k")}


def random_schedule(rng, kernel, target):
    """(printed schedule body, [reasons it is invalid])."""
    bad = []
    row, col, free = CPU_ROLES[kernel]

    def pick(good, wrong, why, p=0.12):
        if rng.random() < p:
            v = rng.choice(wrong)
            bad.append("%s %s" % (why, v))
            return v
        return rng.choice(good)

    if target == "spade":
        sr = pick([1, 8, 64, 256], [0, -1, 2**32 + 8], "split")
        sc = pick([1, 16, 1024], [0, -5], "split")
        pes = pick([0, 1, 4, 16], [-4], "pes")
        tile = pick([0, 0, 8], [-1], "tile")
        fields = ["split = [%d, %d]" % (sr, sc), "tile = %d" % tile,
                  "pes = %d" % pes,
                  "barrier = %s" % rng.choice(["true", "false"]),
                  "bypass = [%s]" % rng.choice(["", "sparse", "dense",
                                                "sparse, dense"]),
                  "reorder = %s" % rng.choice(["none", "length"])]
    else:
        sr = pick([1, 1, 2, 4], [0, -1, 5000, 2**32], "split")
        sc = pick([1, 1, 2, 8], [0, 4097], "split")
        parts = []
        for role, s in ((row, sr), (col, sc)):
            parts += ([role + "1", role + "0"] if s > 1 else [role])
        # Outer parts first, in the usual blocked order.
        if sr > 1 and sc > 1:
            parts = [row + "1", col + "1", row + "0", col + "0"]
        fmts = []
        for _ in parts:
            fmts.append(rng.choice(["dense", "compressed", "compressed",
                                    "compressed_nu", "singleton"]))
        if rng.random() < 0.6:
            fmts = ["dense"] + ["compressed"] * (len(parts) - 1)
        levels = ", ".join("%s : %s" % (p, f) for p, f in zip(parts, fmts))
        order = parts + ([free] if free else [])
        if rng.random() < 0.15:
            rng.shuffle(order)
        widths = [pick([32, 64], [0, 7, 16], "width", 0.06) for _ in range(2)]
        tile = pick([0, 0, 0, 8] if free else [0], [-1], "tile", 0.06)
        fields = ["levels = [%s]" % levels, "split = [%d, %d]" % (sr, sc),
                  "order = [%s]" % ", ".join(order),
                  "widths = [%d, %d]" % tuple(widths), "tile = %d" % tile]
        if target == "cpu":
            fields += [
                "parallel = %s" % rng.choice(["outer", "none"]),
                "threads = %d" % pick([0, 1, 2, 8], [-3, 2000, 2**32 + 2],
                                      "threads"),
                "omp = %s" % rng.choice(["static", "dynamic"]),
                "chunk = %d" % pick([0, 1, 16], [-1], "chunk", 0.05),
                "vl = %d" % pick([0, 4, 8, 16], [7, 1000000000, -1], "vl"),
                "simd32 = %s" % pick(["true", "false"], ["on", "1"], "simd32",
                                     0.05)]
        else:
            fields += ["threads = %d" % pick([32, 128, 1024], [0, -5, 2000],
                                             "gpu threads"),
                       "libgen = %s" % rng.choice(["false", "false", "true"])]
    r = rng.random()
    if r < 0.05:
        k = rng.randrange(len(fields))
        fields.insert(k, fields[k])
        bad.append("duplicate key")
    elif r < 0.08:
        fields.append("bogus = 1")
        bad.append("unknown key")
    elif r < 0.2:
        # Omitted keys take their defaults.
        del fields[rng.randrange(len(fields))]
    return "%s %s, %s" % (target, kernel, ", ".join(fields)), bad


ENC_RE = re.compile(r"#sparse_tensor\.encoding<\{\s*map\s*=\s*\([^)]*\)\s*->\s*"
                    r"\(([^{}]*?)\)\s*(?:,[^{}]*)?\}>")
FMT_RE = re.compile(r":\s*(compressed\(nonunique\)|compressed|dense|singleton"
                    r"|loose_compressed)")


def _applied_check(sched):
    """The encodings after apply-schedule hold the schedule's level formats
    (a schedule must not be silently ignored)."""
    m = re.search(r"levels = \[([^\]]*)\]", sched)
    want = None
    if m:
        want = [f.strip() for f in re.findall(r":\s*(\w+)", m.group(1))]
        want = ["compressed(nonunique)" if f == "compressed_nu" else f
                for f in want]

    def check(res, d, ctx):
        if res.rc != 0 or not want:
            return None
        try:
            text = open(os.path.join(d, "out.mlir")).read()
        except OSError:
            return "silent-wrong", "exit 0 but no output"
        seqs = [FMT_RE.findall(e.group(1)) for e in ENC_RE.finditer(text)]
        if want not in seqs:
            return ("silent-wrong", "schedule levels %s not in any encoding "
                    "of the output" % want)
        return None
    return check


def gen_opt_schedules(ctx, rng, count):
    """Random schedules on examples/kernels.mlir, through apply + a lowering."""
    cases = []
    kernels = ["spmm", "sddmm", "spmv"]
    for n in range(count):
        kernel = rng.choice(kernels)
        target = rng.choice(["cpu", "cpu", "cpu", "nvvm", "spade"])
        sched, bad = random_schedule(rng, kernel, target)
        lower = {"cpu": "--sptune-lower-cpu", "nvvm": "--sptune-lower-nvvm",
                 "spade": "--sptune-emit-spade=output-dir=spade-out"}
        crossed = rng.random() < 0.12
        how = rng.choice(["cpu", "nvvm", "spade"]) if crossed else target
        if how == target:
            crossed = False
        # sptune-emit-spade leaves kernels of other targets alone (mixed
        # modules); the lowerings must refuse a foreign schedule.
        if crossed and how != "spade":
            bad.append("a %s schedule through %s" % (target, lower[how]))
        if target == "spade" and kernel == "spmv":
            expect = "error" if crossed or how == "spade" else "any"
        else:
            expect = "error" if bad else "any"
        only_apply = target == "cpu" and not crossed and rng.random() < 0.35
        passes = ["--sptune-apply-schedule"] + ([] if only_apply else [lower[how]])
        cases.append(Case(
            "opt", "schedule/%d %s%s" % (n, sched[:60], " [apply only]"
                                         if only_apply else ""),
            ["{bin}/sptune-opt", "in.mlir"] + passes + ["-o", "out.mlir"],
            {"in.mlir": lambda c, k=kernel, s=sched: _with_schedule(c, k, s)},
            expect=expect,
            check=_applied_check(sched) if only_apply and not bad else None,
            quick=n % 40 == 0))
    return cases


def _with_schedule(ctx, kernel, sched):
    """The annotated kernels with `kernel`'s schedule replaced."""
    text = ctx.read_setup("annotated")
    out = []
    for line in text.splitlines(True):
        if "#sptune.kernel<%s" % kernel in line and "sptune.schedule" in line:
            line = re.sub(r"#sptune\.schedule<[^>]*>",
                          lambda _: "#sptune.schedule<%s>" % sched, line)
        out.append(line)
    return "".join(out)


def gen_opt_options(ctx, rng):
    """Every pass option of sptune-opt with bad, huge, negative and empty
    values. (option string, pipeline kind, expect)."""
    E, A, O = "error", "any", "ok"
    K = "{src}/examples/kernels.mlir"
    ex = "--sptune-extract-kernels"
    at = "--sptune-autotune=mode=heuristic matrix=%s " % SMALL
    items = []
    for v, e in [("0", A), ("1", O), ("4294967295", E), ("4294967296", E),
                 ("-1", E), ("99999999999", E), ("abc", E), ("", E),
                 ("2000000", E), ("1e3", E)]:
        items.append(("candidates=" + v, [K, ex, at + "candidates=" + v], e))
    for v, e in [("100000", E), ("4294967295", E), ("-1", E), ("x", E)]:
        items.append(("measure-top-k=" + v, [K, ex, at + "measure-top-k=" + v +
                                             " free=8"], e))
    for v, e in [("0", O), ("1000", O), ("4294967295", A), ("-2", E)]:
        items.append(("top-k=" + v, [K, ex, at + "top-k=" + v], e))
    for v, e in [("-1", E), ("0", E), ("1", O), ("4294967296", E),
                 (str(2**62), E), ("x", E)]:
        # The free size of a dynamic kernel: examples/kernels.mlir's are static.
        items.append(("free=" + v, ["{src}/test/Transforms/autotune.mlir", ex,
                                    "--sptune-autotune=mode=heuristic matrix="
                                    "gen:uniform:rows=256,cols=256,nnz=900 "
                                    "free=" + v], e))
    for v, e in [("oracle", E), ("", E), ("development", E), ("release", A),
                 ("HEURISTIC", E)]:
        items.append(("mode=" + v, [K, ex, "--sptune-autotune=mode=%s matrix=%s"
                                    % (v, SMALL)], e))
    for v, e in [("tpu", E), ("", E), ("CPU", E), ("nvvm", O), ("spade", A)]:
        items.append(("autotune target=" + v, [K, ex, at + "target=" + v], e))
    for v, e in [("/nonexistent/model.pt", E), (".", E), ("{setup:dataset}", E),
                 ("/dev/null", E)]:
        items.append(("model=" + v, [K, ex, "--sptune-autotune=mode=development "
                                     "matrix=%s model=%s" % (SMALL, v)], e))
    for v, e in [("/nonexistent/dir/log.jsonl", E), (".", E)]:
        items.append(("log=" + v, [K, ex, "--sptune-autotune=mode=development "
                                   "matrix=%s model={setup:model} log=%s"
                                   % (SMALL, v)], e))
    for v, e in [("gen:uniform:rows=0,cols=0,nnz=0", A),
                 ("gen:uniform:rows=2147483647,cols=2147483647,nnz=1", E),
                 ("gen:uniform:rows=64,cols=64,nnz=4097", E),
                 ("gen:uniform:rows=64,cols=64,nnz=10,nnz=20", E),
                 ("gen:rmat:rows=64,cols=64,nnz=100,a=2", E),
                 ("gen:banded:rows=1000000000,cols=1000000000,nnz=1000000000", E),
                 ("", A), (".", E), ("gen:", E)]:
        items.append(("matrix=" + v, [K, ex, "--sptune-autotune=mode=heuristic "
                                      "matrix=" + v], e))
    # An unwritable database is warned about: the compile itself is right.
    for v, e in [("/nonexistent/dir/db.jsonl", A), (".", E), ("/dev/null", A),
                 ("/dev/full", E)]:
        items.append(("database=" + v, [K, ex, at + "database=" + v], e))
    items.append(("measure-heuristic=maybe", [K, ex, at + "measure-heuristic=maybe"], E))
    items.append(("seed=-1", [K, ex, at + "seed=-1"], E))
    items.append(("autotune bogus=1", [K, ex, at + "bogus=1"], E))
    # 0 x 0 matrix: no blocked schedule may be chosen.
    items.append(("autotune on a 0x0 matrix", [K, ex, "--sptune-autotune=mode="
                                               "heuristic matrix=./zero.mtx",
                                               "--sptune-apply-schedule"], A))
    ann = "{setup:annotated}"
    ap = "--sptune-apply-schedule"
    for v, e in [("-5", E), ("0", O), ("3", E), ("7", E), ("1000000000", E),
                 ("2147483647", E), ("x", E), ("", E), ("16", O), ("-1", O)]:
        items.append(("lower-cpu vl=" + v, [ann, ap, "--sptune-lower-cpu=vl=" + v], e))
    for v, e in [("-3", E), ("-1", O), ("0", O), ("1025", E),
                 ("2147483647", E), ("4", O)]:
        items.append(("lower-cpu threads=" + v,
                      [ann, ap, "--sptune-lower-cpu=threads=" + v], e))
    for v, e in [("on", E), ("maybe", E), ("", E), ("true", O)]:
        items.append(("lower-cpu simd32=" + v,
                      [ann, ap, "--sptune-lower-cpu=simd32=" + v], e))
    for v, e in [("outer", E), ("", E), ("none", O)]:
        items.append(("lower-cpu parallelization=" + v,
                      [ann, ap, "--sptune-lower-cpu=parallelization=" + v], e))
    for v, e in [("-5", E), ("3", E), ("1000000000", E)]:
        items.append(("cpu-sparsify vl=" + v,
                      [ann, ap, "--sptune-cpu-sparsify=vl=" + v], e))
    # NVVM: the annotated kernels carry CPU schedules; default-schedule nvvm.
    nv = [K, ex, "--sptune-default-schedule=target=nvvm", ap]
    for v, e in [("chip=sm_1", E), ("chip=sm_9999", E), ("chip=foo", E),
                 ("chip=", E), ("chip=sm_80", O), ("threads=0", E),
                 ("threads=-5", E), ("threads=2000", E), ("blocks=-5", E),
                 ("blocks=0", E), ("blocks=2147483647", A), ("format=bogus", E),
                 ("format=", E), ("features=garbage", E),
                 ("cuda-path=/nonexistent format=bin", E)]:
        items.append(("lower-nvvm " + v, nv + ["--sptune-lower-nvvm=" + v], e))
    items.append(("nvvm schedule through lower-cpu", nv + ["--sptune-lower-cpu"], E))
    items.append(("spade schedule through lower-cpu",
                  [K, ex, "--sptune-default-schedule=target=spade", ap,
                   "--sptune-lower-cpu"], E))
    items.append(("cpu schedule through lower-nvvm",
                  [ann, ap, "--sptune-lower-nvvm"], E))
    items.append(("lower-cpu without apply-schedule",
                  [ann, "--sptune-lower-cpu"], E))
    sp = [K, ex, "--sptune-default-schedule=target=spade"]
    for v, e in [("pes=-4", E), ("pes=0", A), ("pes=2147483647", E),
                 ("pes=x", E), ("output-dir=/nonexistent/dir/x", E),
                 ("output-dir=afile", E)]:
        items.append(("emit-spade " + v, sp + ["--sptune-emit-spade=" + v], e))
    for v, e in [("tpu", E), ("", E), ("Cpu", E)]:
        items.append(("default-schedule target=" + v,
                      [K, ex, "--sptune-default-schedule=target=" + v], e))
    items.append(("extract report into a missing dir",
                  [K, "--sptune-extract-kernels=report=/nonexistent/dir/r.json"], E))
    items.append(("apply retype-args=maybe", [ann, "--sptune-apply-schedule=retype-args=maybe"], E))
    cases = []
    for n, (name, args, e) in enumerate(items):
        files = {"afile": "x\n", "zero.mtx": BANNER + "0 0 0\n"}
        check = _zero_matrix_check if "0x0" in name else None
        cases.append(Case("opt", "option/" + name,
                          ["{bin}/sptune-opt"] + args + ["-o", "out.mlir"],
                          files, expect=e, check=check,
                          quick=n % 25 == 0 or name == "lower-cpu vl=1000000000"))
    return cases


_CSR = ("#CSR = #sparse_tensor.encoding<{ map = (i, j) -> "
        "(i : dense, j : compressed) }>\n")
_UNUSED_SPMM = _CSR + """func.func @spmm(%a: tensor<64x64xf32, #CSR>,
    %b: tensor<64x16xf32>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x16xf32>)
                     outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %c : tensor<64x16xf32>
}
"""
_READ_4X4 = _CSR + """func.func private @getTensorFilename(index) -> (!llvm.ptr)
func.func @main() {
  %c0 = arith.constant 0 : index
  %f = call @getTensorFilename(%c0) : (index) -> (!llvm.ptr)
  %a = sparse_tensor.new %f : !llvm.ptr to tensor<4x4xf64, #CSR>
  %n = sparse_tensor.number_of_entries %a : tensor<4x4xf64, #CSR>
  vector.print %n : index
  bufferization.dealloc_tensor %a : tensor<4x4xf64, #CSR>
  return
}
"""


def gen_opt_programs(ctx):
    """Programs of the kind users compile: a kernel whose result is unused
    (refused with "lost the kernel while mapping it to level space"), and a
    sparse_tensor.new of a file whose shape is not the static one, run
    (read out of bounds, exit 0; issue 35)."""
    E, O = "error", "ok"
    runner = tools.llvm_tool("mlir-runner")
    libs = ",".join(os.path.join(tools.llvm_lib_dir(), l) for l in
                    ("libmlir_c_runner_utils.so", "libmlir_runner_utils.so"))
    run_4x4 = ("{bin}/sptune-opt read.mlir --sptune-lower-cpu -o low.mlir && "
               "TENSOR0=%%s %s low.mlir -e main -entry-point-result=void "
               "-shared-libs=%s 1>&2" % (shlex.quote(runner), libs))
    files = {"unused.mlir": _UNUSED_SPMM, "read.mlir": _READ_4X4,
             "m4.mtx": BANNER + "4 4 2\n1 1 1.0\n4 4 2.0\n",
             "m60.mtx": BANNER + "60 60 2\n1 1 1.0\n60 60 2.0\n",
             "m3.mtx": BANNER + "3 3 1\n1 1 1.0\n"}
    items = [
        ("unused kernel through lower-cpu",
         ["{bin}/sptune-opt", "unused.mlir", "--sptune-extract-kernels",
          "--sptune-autotune=matrix=" + SMALL.replace("32", "64"),
          "--sptune-apply-schedule", "--sptune-lower-cpu", "-o", "out.mlir"],
         O),
        ("read a 4x4 file into tensor<4x4>", ["sh", "-c", run_4x4 % "m4.mtx"], O),
        ("read a 60x60 file into tensor<4x4>",
         ["sh", "-c", run_4x4 % "m60.mtx"], E),
        ("read a 3x3 file into tensor<4x4>", ["sh", "-c", run_4x4 % "m3.mtx"],
         E),
    ]
    return [Case("opt", "program/" + name, cmd, files, expect=e,
                 quick=n == 0 or n == 2)
            for n, (name, cmd, e) in enumerate(items)]


def _zero_matrix_check(res, d, ctx):
    if res.rc != 0:
        return None
    text = open(os.path.join(d, "out.mlir")).read()
    for m in re.finditer(r"#sptune\.schedule<[^>]*split = \[(\d+), (\d+)\]", text):
        if m.group(1) != "1" or m.group(2) != "1":
            return "silent-wrong", "a blocked schedule for a 0x0 matrix"
    return None


# ----------------------------------------------------------------------------
# Area: sptune-measure options and the worker protocol
# ----------------------------------------------------------------------------

def gen_measure(ctx, rng):
    E, O = "error", "ok"
    base = ["{bin}/sptune-measure", "--matrix", SMALL, "--kernel", "spmv",
            "--baseline", "heuristic", "--min-seconds", "0", "--min-reps", "1"]
    opts = [
        (["--min-reps=-3"], E), (["--min-reps=0"], E), (["--min-reps=99999999999"], E),
        (["--min-seconds=-1"], E), (["--min-seconds=nan"], E),
        (["--min-seconds=inf"], E), (["--min-seconds=1e300"], E),
        (["--min-seconds=0.001"], O),
        (["--free=0"], E), (["--free=-5"], E), (["--free=99999999999"], E),
        (["--bits=16"], E), (["--bits=-1"], E), (["--bits=64"], O),
        (["--kernel=foo"], E), (["--kernel="], E), (["--target=tpu"], E),
        (["--target="], E), (["--baseline=eigen", "--target=spade"], E),
        (["--baseline=nope"], E), (["--matrix="], E),
        (["--matrix=gen:uniform:rows=-1,nnz=1"], E),
        (["--matrix=/nonexistent.mtx"], E),
        (["--sddmm-b-transposed"], E),
        (["--inject-fault=boom"], E), (["--inject-fault=crash:"], E),
        (["--no-check"], O), (["--print-ir"], O), (["--bogus"], E),
    ]
    cases = []
    for n, (extra, e) in enumerate(opts):
        cases.append(Case("measure", "options/" + " ".join(extra), base + extra,
                          expect=e, check=_measure_time_check,
                          quick=n % 10 == 0))
    sched = "cpu spmv, levels = [i : dense, k : compressed], split = [1, 1], " \
            "order = [i, k], widths = [32, 32], tile = 0, parallel = none, " \
            "threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false"
    sbase = ["{bin}/sptune-measure", "--matrix", SMALL, "--kernel", "spmv",
             "--min-seconds", "0", "--min-reps", "1"]
    for n, (s, e) in enumerate([
            (sched, O), (sched.replace("vl = 0", "vl = 7"), E),
            (sched.replace("split = [1, 1]", "split = [0, 1]"), E),
            (sched.replace("threads = 0", "threads = 4294967296"), E),
            (sched.replace("cpu spmv", "nvvm spmv"), E),
            (sched.replace("cpu spmv", "cpu spmm"), E),
            (sched + ", vl = 4", E), ("garbage", E), ("", E),
            ("spade spmm, split = [8, 8], tile = 0, pes = 4, barrier = false, "
             "bypass = [], reorder = none", E)]):
        cases.append(Case("measure", "schedule/%d %s" % (n, s[:50]),
                          sbase + ["--schedule=" + s], expect=e,
                          check=_measure_time_check, quick=n == 1))
    # A compile or kernel call that does not return is answered `timeout`
    # once --timeout has passed (it hung until killed; issue 35).
    for n, (extra, e) in enumerate([
            (["--inject-fault=hang:heuristic", "--timeout=1"], E),
            (["--timeout=0"], E), (["--timeout=nan"], E),
            (["--timeout=1e9"], E)]):
        cases.append(Case("measure", "timeout/" + " ".join(extra), base + extra,
                          expect=e, check=_measure_time_check, timeout=60,
                          quick=n == 0))
    # Values beyond float range: f64 kernels, sptune's and the libraries',
    # compute with them (the references read them at float precision, so
    # the f64 libraries were wrong_result; issue 35).
    big = ("%%MatrixMarket matrix coordinate real general\n4 4 5\n1 1 1e39\n"
           "2 2 -1e100\n3 3 1.79e308\n4 1 2.5\n4 4 1.0\n")
    for n, (kernel, baseline, bits) in enumerate([
            ("spmm", "reference", 64), ("spmv", "eigen", 64),
            ("sddmm", "reference", 64), ("spmm", "heuristic", 64),
            ("spmv", "heuristic", 32), ("sddmm", "heuristic", 32)]):
        free = [] if kernel == "spmv" else ["--free", "4"]
        cases.append(Case(
            "measure", "beyond-float/%s %s f%d" % (kernel, baseline, bits),
            ["{bin}/sptune-measure", "--matrix", "big.mtx", "--kernel", kernel,
             *free, "--bits", str(bits), "--baseline", baseline,
             "--min-seconds", "0", "--min-reps", "1"],
            files={"big.mtx": big}, expect=O, check=_measure_time_check,
            quick=n == 0))
    cases += gen_worker(ctx, rng)
    return cases


def _measure_time_check(res, d, ctx):
    if res.rc != 0:
        return None
    try:
        o = json.loads(res.out.strip().splitlines()[-1])
    except Exception as e:  # noqa: BLE001
        return "silent-wrong", "exit 0 but no JSON result: %s" % e
    if o.get("status") != "ok":
        return "silent-wrong", "exit 0 with status %s" % o.get("status")
    t = (o.get("time_s") or {}).get("median")
    if not isinstance(t, (int, float)) or not t > 0 or not math.isfinite(t):
        return "silent-wrong", "status ok with time %r" % t
    return None


def _req(**kw):
    r = {"id": 1, "target": "cpu", "matrix": SMALL, "kernel": "spmv", "free": 1,
         "bits": 32, "baseline": "heuristic",
         "options": {"min_reps": 1, "min_seconds": 0, "max_reps": 3}}
    opts = kw.pop("options", None)
    for k, v in kw.items():
        if v is _DROP:
            r.pop(k, None)
        else:
            r[k] = v
    if opts:
        for k, v in opts.items():
            r["options"][k] = v
    return json.dumps(r)


_DROP = object()


def gen_worker(ctx, rng):
    """Request lines for `sptune-measure --worker`. Each session is a few
    lines, each with what its answer must be: one answer per non-empty line,
    in order, the id of the request, an error for a bad request and the
    worker still serving the next one."""
    E, O, A = "error", "ok", "any"
    deep = "[" * 100000 + "]" * 100000
    deep_obj = '{"id":1,"options":' + '{"a":' * 50000 + "1" + "}" * 50000 + "}"
    lines = [
        (_req(), O), ("not json", E), ("[1, 2, 3]", E), ("{}", E), ("null", E),
        ('"string"', E), (_req(id="seven"), E), (_req(id=2**63 - 1), O),
        (_req(id=-5), O), (_req(id=1.5), E), (_req(free="1"), E),
        (_req(free=0, kernel="spmm"), E), (_req(free=2**40, kernel="spmm"), E),
        (_req(bits=16), E), (_req(bits=2048), E), (_req(bits=-32), E),
        (_req(options={"min_reps": -5}), E), (_req(options={"min_reps": 0}), E),
        (_req(options={"min_reps": 2**40}), E),
        (_req(options={"min_reps": 5, "max_reps": 2}), E),
        (_req(options={"warmups": -1}), E), (_req(options={"min_seconds": -1}), E),
        (_req(options={"min_seconds": 1e308}), E),
        (_req(options={"timeout_s": 0}), E), (_req(options={"timeout_s": -1}), E),
        (_req(options={"tolerance": 2}), E), (_req(options={"check": "yes"}), E),
        (_req(options=None).replace('"options": {"min_reps": 1, "min_seconds": 0, "max_reps": 3}', '"options": [1]'), E),
        (_req(b_transposed="true", kernel="sddmm", free=8), E),
        (_req(b_transposed=True), E), (_req(matrix="x" * 1000000), E),
        (_req(schedule="garbage", baseline=_DROP), E),
        (_req(baseline=_DROP), E), (_req(target="tpu"), E), (_req(kernel="spmx"), E),
        (_req(unknown_field=1), O), ('{"id": 1, "id": 2}', E),
        (deep, E), (deep_obj, E), ("x" * 5000000, E),
        (bytes(rng.randrange(1, 256) for _ in range(400)).replace(b"\n", b" ")
         .decode("latin-1"), E),
        (" ", E), (_req() + "\r", O), (_req(matrix="/nonexistent.mtx"), E),
        (_req(matrix="gen:uniform:rows=2147483647,cols=2,nnz=1"), E),
        (_req(options={"min_seconds": float("nan")}).replace("NaN", "NaN"), E),
        # 10^7 repetitions: the answer within timeout_s (the session's own
        # timeout is 120 s).
        (_req(options={"min_seconds": 0.0, "max_reps": 100000000,
                       "min_reps": 10000000, "timeout_s": 10}), A),
    ]
    cases = []
    ids = iter(range(1000, 100000))
    for n, (line, e) in enumerate(lines):
        # Each bad line between two good ones: the worker must answer all
        # three, in order, with the ids of the requests.
        before = _req(id=next(ids))
        after = _req(id=next(ids))
        session = [(before, O), (line, e), (after, O)]
        text = "".join(l + "\n" for l, _ in session)
        if n % 7 == 3:
            text = text[:-1]  # no final newline
        cases.append(Case("measure", "worker/%d %s" % (n, line[:40].replace("\n", " ")),
                          ["{bin}/sptune-measure", "--worker"], stdin=text,
                          expect="ok", check=_worker_check(session),
                          quick=n in (0, 38, 17), timeout=120))
    # A session of many requests: answers must not be lost or doubled.
    many = [(_req(id=i), O) for i in range(40)]
    cases.append(Case("measure", "worker/40 requests",
                      ["{bin}/sptune-measure", "--worker"],
                      stdin="".join(l + "\n" for l, _ in many), expect="ok",
                      check=_worker_check(many), timeout=120))
    return cases


def _worker_check(session):
    def check(res, d, ctx):
        answers = [l for l in res.out.split("\n") if l.strip()]
        asked = [(l, e) for l, e in session if l != ""]
        if len(answers) != len(asked):
            return "data", "%d answers to %d requests" % (len(answers), len(asked))
        for k, ((line, e), a) in enumerate(zip(asked, answers)):
            try:
                o = _loads(a)
            except ValueError:
                return "silent-wrong", "answer %d is not JSON" % k
            try:
                want_id = _loads(line).get("id")
            except (ValueError, AttributeError):
                want_id = None
            if isinstance(want_id, int) and not isinstance(want_id, bool) \
                    and o.get("id") != want_id:
                return "data", "answer %d has id %r, request %r" % (
                    k, o.get("id"), want_id)
            st = o.get("status")
            if e == "error" and st == "ok":
                return "silent-wrong", "bad request %d answered ok" % k
            if e == "ok" and st != "ok":
                return "silent-wrong", "good request %d answered %s: %s" % (
                    k, st, (o.get("reason") or "")[:150])
            if st == "ok":
                t = (o.get("time_s") or {}).get("median")
                if not isinstance(t, (int, float)) or not t > 0:
                    return "silent-wrong", "answer %d ok with time %r" % (k, t)
        return None
    return check


# ----------------------------------------------------------------------------
# Area: sptune-collect options and faults
# ----------------------------------------------------------------------------

COLLECT = ["{bin}/sptune-collect", "gen:uniform:rows=40,cols=40,nnz=160,seed=5",
           "gen:banded:rows=48,cols=48,nnz=200,bw=4,seed=6", "--kernel", "spmm",
           "--free", "8", "--samples", "3", "--baselines", "heuristic",
           "--min-seconds", "0", "--min-reps", "1", "--timeout", "60"]
PLANNED_RE = re.compile(r"(\d+) measurements planned, (\d+) already in .*, "
                        r"(\d+) to do")


def _dataset(d, name="d.jsonl"):
    """([records], cut_lines) of a dataset file."""
    recs, bad = [], 0
    try:
        f = open(os.path.join(d, name), "rb")
    except OSError:
        return [], 0
    with f:
        for l in f:
            l = l.strip()
            if not l:
                continue
            try:
                o = _loads(l)
                # A record as the collector writes it (junk put there by
                # the case is not one).
                if isinstance(o, dict) and isinstance(o.get("key"), str) \
                        and "status" in o and "time" in o:
                    recs.append(o)
                else:
                    bad += 1
            except ValueError:
                bad += 1
    return recs, bad


def _keys_check(planned_from_err=True, no_ok_from=None, want_status=None,
                ok_only=False):
    """No planned key missing or doubled in d.jsonl; with no_ok_from, no
    record may be "ok" (the worker was a fake)."""
    def check(res, d, ctx):
        recs, _ = _dataset(d)
        m = PLANNED_RE.findall(res.err)
        keys = collections.Counter(r["key"] for r in recs)
        dup = [k for k, c in keys.items() if c > 1]
        if dup:
            return "data", "%d key(s) recorded twice, e.g. %s" % (len(dup), dup[0][:100])
        if m and planned_from_err and res.rc in (0, 1):
            planned = int(m[0][0])
            if len(keys) != planned:
                return "data", "%d distinct keys recorded, %d planned" % (
                    len(keys), planned)
        for r in recs:
            if r.get("status") == "ok":
                if no_ok_from:
                    return "silent-wrong", "record ok from %s" % no_ok_from
                t = (r.get("time_s") or {}).get("median")
                if not isinstance(t, (int, float)) or not t > 0:
                    return "silent-wrong", "record ok with time %r" % t
        return None
    return check


def gen_collect(ctx, rng):
    E, A, O = "error", "any", "ok"
    cases = []
    opts = [
        (["--min-reps=-3"], E), (["--min-seconds=nan"], E), (["--min-seconds=-1"], E),
        (["--timeout=0"], E), (["--timeout=nan"], E), (["--timeout=-5"], E),
        (["--timeout=1e300"], E), (["--workers=0"], E), (["--workers=100000"], E),
        (["--workers=2"], O), (["--free=0"], E), (["--free=-5"], E),
        (["--free=99999999"], E), (["--samples=4000000000"], E),
        (["--samples=0"], O), (["--seed=-1"], E),
        (["--model-top-k=4000000000", "--model", "{setup:model}"], E),
        (["--model-candidates=4000000000", "--model", "{setup:model}"], E),
        (["--model", "/nonexistent.pt"], E), (["--model", "{setup:dataset}"], E),
        (["--kernel=spmx"], E), (["--kernel="], E), (["--target=tpu"], E),
        (["--baselines=nope"], E), (["--baselines=eigen", "--target=spade"], E),
        (["--min-nnz=1000", "--max-nnz=10"], A), (["--max-nnz=-1"], A),
        (["--space-size"], O), (["--no-baselines", "--samples=0"], A),
        (["--bogus"], E),
    ]
    for n, (extra, e) in enumerate(opts):
        cases.append(Case("collect", "options/" + " ".join(extra),
                          COLLECT + ["--out", "d.jsonl"] + extra, expect=e,
                          check=_keys_check(), quick=n % 12 == 0))
    # Where the dataset goes.
    for name, out, e in [("out is a directory", ".", E),
                         ("out in a missing directory", "no/such/d.jsonl", E),
                         ("out is /dev/full", "/dev/full", E)]:
        cases.append(Case("collect", "out/" + name, COLLECT + ["--out", out],
                          expect=e))
    # Inputs: @lists, directories with bad files, all bad.
    good = "%%MatrixMarket matrix coordinate real general\n4 4 3\n1 1 1\n2 3 2\n4 4 1\n"
    cases.append(Case("collect", "inputs/directory with bad files",
                      ["{bin}/sptune-collect", "mats", "--kernel", "spmv",
                       "--samples", "1", "--baselines", "heuristic",
                       "--min-seconds", "0", "--min-reps", "1", "--out", "d.jsonl"],
                      {"mats/good.mtx": good, "mats/bad.mtx": "garbage\n",
                       "mats/empty.mtx": "", "mats/sub/x.mtx": good},
                      expect="any", check=_keys_check()))
    cases.append(Case("collect", "inputs/all bad",
                      ["{bin}/sptune-collect", "a.mtx", "b.mtx", "--kernel",
                       "spmv", "--samples", "1", "--out", "d.jsonl"],
                      {"a.mtx": "garbage\n", "b.mtx": BANNER + "2 2 1\n9 9 1\n"},
                      expect=E))
    cases.append(Case("collect", "inputs/@list with a missing file",
                      ["{bin}/sptune-collect", "@list", "--kernel", "spmv",
                       "--samples", "1", "--baselines", "heuristic",
                       "--min-seconds", "0", "--min-reps", "1", "--out", "d.jsonl"],
                      {"list": "good.mtx\nmissing.mtx\n\n", "good.mtx": good},
                      expect="any", check=_keys_check()))
    cases.append(Case("collect", "inputs/@missing",
                      ["{bin}/sptune-collect", "@nope", "--out", "d.jsonl"], expect=E))
    # Bad workers.
    sh = "#!/bin/sh\n"
    workers = [
        ("missing", None, "--worker-exe=./no-such-worker"),
        ("false", sh + "exit 1\n", None),
        ("exits at once", sh + "exit 0\n", None),
        ("garbage", sh + "while read l; do echo garbage; done\n", None),
        ("ok with zero time", sh + 'while read l; do echo \'{"id":0,"status":"ok",'
         '"time_s":{"median":0,"min":0,"max":0,"mad":0,"reps":1}}\'; done\n', None),
        ("ok without times", sh + 'while read l; do echo \'{"status":"ok"}\'; done\n', None),
        ("ok negative time", sh + 'while read l; do echo \'{"status":"ok","time_s":'
         '{"median":-1,"min":-1,"max":-1,"mad":0,"reps":3}}\'; done\n', None),
        ("huge line", sh + "read l; head -c 30000000 /dev/zero | tr '\\0' x; sleep 30\n", None),
        ("sleeps", sh + "sleep 60\n", None),
        ("directory", None, "--worker-exe=."),
        ("not executable", None, "--worker-exe=./plain"),
    ]
    for name, script, flag in workers:
        files = {"plain": "not a program\n"}
        if script:
            files["worker"] = script
            flag = "--worker-exe=./worker"
        cases.append(Case("collect", "worker/" + name,
                          COLLECT[:-2] + ["--timeout", "3", "--out", "d.jsonl", flag],
                          files, expect=E,
                          check=_keys_check(no_ok_from="a fake worker"),
                          quick=name in ("ok with zero time", "missing")))
    wrap = "#!/bin/sh\nhead -n 1 | exec %s --worker\n"
    cases.append(Case("collect", "worker/one request per process",
                      COLLECT + ["--out", "d.jsonl", "--worker-exe=./worker"],
                      {"worker": lambda c: wrap % c.tool("sptune-measure")},
                      expect=O, check=_keys_check()))
    crash = "#!/bin/sh\nexec %s --worker '--inject-fault=crash: '\n"
    cases.append(Case("collect", "worker/crashes on every schedule",
                      COLLECT + ["--out", "d.jsonl", "--worker-exe=./worker"],
                      {"worker": lambda c: crash % c.tool("sptune-measure")},
                      expect=E, check=_keys_check(no_ok_from="a crashing worker")))
    # A dataset file already holding junk.
    junk = ("garbage\n" + "[" * 100000 + "\n" + '{"key": 5}\n' +
            '{"schema":1,"key":"x|y","status":"ok"' + "\n" + "z" * 3000000 + "\n")
    cases.append(Case("collect", "dataset/junk lines", COLLECT + ["--out", "d.jsonl"],
                      {"d.jsonl": junk}, expect=O, check=_keys_check(), quick=True))
    cases.append(Case("collect", "dataset/cut last line",
                      COLLECT + ["--out", "d.jsonl"],
                      {"d.jsonl": '{"schema":1,"key":"gen:'}, expect=O,
                      check=_keys_check()))
    # Faults: kill -9 mid-run and resume; interrupt; two collectors at once.
    for k, sig in [(1, signal.SIGKILL), (3, signal.SIGKILL), (5, signal.SIGKILL),
                   (2, signal.SIGTERM), (4, signal.SIGINT)]:
        cases.append(Case("collect", "fault/%s after %d record(s), resume" % (
            signal.Signals(sig).name, k), runner=_kill_resume(k, sig),
            quick=(k == 3)))
    for delay in [0.0, 0.3, 1.0, 2.5]:
        cases.append(Case("collect", "fault/two collectors, second %.1f s later"
                          % delay, runner=_two_collectors(delay),
                          quick=delay == 0.3))
    return cases


def _collect_cmd(ctx, extra=()):
    return [ctx.expand(a) for a in COLLECT] + ["--out", "d.jsonl"] + list(extra)


def _count_lines(path):
    try:
        with open(path, "rb") as f:
            return sum(1 for l in f if l.strip())
    except OSError:
        return 0


def _start_until(cmd, d, ctx, mem_mb, errp, done):
    """Starts `cmd` in `d` (its own process group, stderr to `errp`) and
    waits until `done()` holds, it exits, or the timeout passes."""
    t0 = time.time()
    with open(errp, "wb") as fe:
        p = subprocess.Popen(cmd, cwd=d, stdout=subprocess.DEVNULL, stderr=fe,
                             start_new_session=True,
                             preexec_fn=ir_fuzz.child_limits(mem_mb))
    while p.poll() is None and not done() and time.time() - t0 < ctx.timeout:
        time.sleep(0.01)
    return p


def _signal_and_wait(p, sig, timeout):
    """Sends `sig` to a running `p` (SIGKILL: its whole process group;
    another signal: the process alone, as Ctrl-C does) and waits up to
    `timeout` s. False when it did not exit (it is then killed)."""
    if p.poll() is not None:
        return True
    if sig == signal.SIGKILL:
        _killpg(p, sig)
    else:
        os.kill(p.pid, sig)
    try:
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _killpg(p)
        return False
    return True


def _stop(p, sig, ctx, errp, cmd):
    """Stops `p`, a fault case's first run, with `sig`: SIGKILL to its whole
    group, another signal to the tool itself, as Ctrl-C does. None when it
    ended as due (any way after SIGKILL, exit 0 or 130 after another
    signal), else the Outcome to report."""
    if not _signal_and_wait(p, sig, ctx.timeout):
        return Outcome("hang", "no exit after %s" % sig.name, _read(errp),
                       cmds=[cmd])
    if sig != signal.SIGKILL and p.returncode not in (0, 130):
        return Outcome("silent-wrong", "exit %s after %s (130 is due)" % (
            p.returncode, sig.name), _read(errp), cmds=[cmd])
    return None


def _kill_resume(k, sig):
    def runner(case, d, ctx):
        cmd = _collect_cmd(ctx)
        t0 = time.time()
        errp = os.path.join(d, "first.stderr")
        path = os.path.join(d, "d.jsonl")
        p = _start_until(cmd, d, ctx, ctx.mem_mb, errp,
                         lambda: _count_lines(path) >= k)
        stopped = _stop(p, sig, ctx, errp, cmd)
        if stopped:
            return stopped
        res = run(cmd, d, ctx.timeout, ctx.mem_mb, tag="resume")
        cls, note = judge(res, "ok")
        if cls == "ok":
            r = _keys_check()(res, d, ctx)
            if r:
                cls, note = r
        return Outcome(cls, note, _read(errp) + res.err, res.out, [cmd, cmd],
                       time.time() - t0)
    return runner


def _two_collectors(delay):
    def runner(case, d, ctx):
        cmd = _collect_cmd(ctx)
        t0 = time.time()
        procs = []
        for n in range(2):
            if n:
                time.sleep(delay)
            procs.append(_start(cmd, d, "c%d.stderr" % n, ctx))
        rcs = _finish_all(procs, ctx.timeout)
        errs = "".join(_read(os.path.join(d, "c%d.stderr" % n)) for n in range(2))
        if None in rcs:
            return Outcome("hang", "a collector did not finish", errs, cmds=[cmd, cmd])
        for rc in rcs:
            if rc not in (0, 1, 2):
                return Outcome("crash-sptune", "a collector exited %d" % rc, errs,
                               cmds=[cmd, cmd])
        # A third run completes what a refused one left.
        res = run(cmd, d, ctx.timeout, ctx.mem_mb, tag="third")
        cls, note = judge(res, "ok")
        if cls == "ok":
            r = _keys_check()(res, d, ctx)
            if r:
                cls, note = r
            elif "0 to do" not in res.err and 0 not in rcs:
                cls, note = "silent-wrong", "neither collector finished the plan"
        return Outcome(cls, note or "exits %s" % rcs, errs + res.err, res.out,
                       [cmd, cmd, cmd], time.time() - t0)
    return runner


# ----------------------------------------------------------------------------
# Area: sptune-train
# ----------------------------------------------------------------------------

NONFINITE_RE = re.compile(r"(?<![\w.])-?(nan|inf)(?![\w])", re.I)


def _train_check(res, d, ctx):
    """A trained model: its file exists, its numbers are finite and
    sptune-autotune can rank with it."""
    if res.rc != 0:
        return None
    if NONFINITE_RE.search(res.out):
        return "silent-wrong", "non-finite number in the results: %s" % (
            NONFINITE_RE.search(res.out).group(0))
    model = os.path.join(d, "m.pt")
    if not os.path.isfile(model):
        return None  # --evaluate and co write no model
    r = run([ctx.tool("sptune-opt"), ctx.kernels, "--sptune-extract-kernels",
             "--sptune-autotune=mode=development model=m.pt matrix=" + SMALL,
             "-o", os.devnull], d, ctx.timeout, ctx.mem_mb, tag="use-model")
    if r.rc != 0:
        return "silent-wrong", "the trained model cannot be used: %s" % (
            _last_line(r.err))
    if NONFINITE_RE.search(r.err.split("ranking:")[-1]):
        return "silent-wrong", "the trained model ranks with non-finite scores"
    return None


def _dataset_variant(kind):
    """A malformed dataset built from the setup one."""
    def make(ctx):
        lines = [l for l in ctx.read_setup("dataset").splitlines() if l.strip()]
        recs = [json.loads(l) for l in lines]
        dump = lambda rs: "".join(json.dumps(r) + "\n" for r in rs)
        if kind == "cut":
            return "".join(l + "\n" for l in lines)[:-70]
        if kind == "garbage-lines":
            return "".join(l + "\ngarbage {\n" for l in lines)
        if kind == "deep":
            return "".join(l + "\n" for l in lines) + "[" * 100000 + "\n"
        if kind == "all-crash":
            for r in recs:
                r["status"] = "crash"
            return dump(recs)
        if kind.startswith("time="):
            v = float(kind[5:])
            for r in recs:
                if r["status"] == "ok":
                    r["time_s"] = {"median": v, "min": v, "max": v, "mad": 0,
                                   "reps": 3}
            return dump(recs)
        if kind == "time-string":
            for r in recs:
                r["time_s"]["median"] = "fast"
            return dump(recs)
        if kind == "schema-99":
            for r in recs:
                r["schema"] = 99
            return dump(recs)
        if kind == "no-key-fields":
            for r in recs:
                for f in ("kernel", "schedule", "matrix"):
                    r.pop(f, None)
            return dump(recs)
        if kind == "missing-source":
            for r in recs:
                r["matrix"]["source"] = "/nonexistent/m.mtx"
                r["matrix"]["id"] = "m"
            return dump(recs)
        if kind == "size-mismatch":
            for r in recs:
                r["matrix"]["rows"] = 7
            return dump(recs)
        if kind == "one-matrix":
            first = recs[0]["matrix"]["id"]
            return dump([r for r in recs if r["matrix"]["id"] == first])
        if kind == "one-record":
            return dump(recs[:1])
        if kind == "duplicated":
            return dump(recs * 10)
        if kind == "bad-schedule":
            for r in recs:
                r["schedule"] = "garbage"
            return dump(recs)
        if kind == "other-kernel-schedule":
            for r in recs:
                r["schedule"] = r["schedule"].replace("cpu spmm", "cpu spmv")
            return dump(recs)
        if kind == "unknown-kernel":
            for r in recs:
                r["kernel"] = "spmx"
            return dump(recs)
        if kind == "huge-line":
            return dump(recs) + '{"pad": "' + "p" * 5000000 + '"}\n'
        if kind == "wrong-types":
            for r in recs:
                r["free"] = "eight"
                r["matrix"]["nnz"] = -5
            return dump(recs)
        if kind == "free-huge":
            for r in recs:
                r["free"] = 2**62
            return dump(recs)
        raise ValueError(kind)
    return make


def gen_train(ctx, rng):
    E, A, O = "error", "any", "ok"
    base = ["{bin}/sptune-train", "--data", "{setup:dataset}", "--epochs", "2",
            "--quiet"]
    out = ["--out", "m.pt"]
    items = [
        (["--epochs=-1"], E), (["--epochs=0"], A), (["--epochs=1000000000"], E),
        (["--epochs=abc"], E),
        (["--holdout=-0.5"], E), (["--holdout=1"], E), (["--holdout=1.5"], E),
        (["--holdout=nan"], E), (["--holdout=inf"], E), (["--holdout=0"], O),
        (["--holdout=0.999"], A),
        (["--lr=nan"], E), (["--lr=inf"], E), (["--lr=-1"], E), (["--lr=0"], E),
        (["--lr=1e30"], A), (["--lr=abc"], E),
        (["--batch-groups=0"], E), (["--batch-groups=-1"], E),
        (["--batch-groups=1000000000"], A),
        (["--schedules-per-group=0"], E), (["--schedules-per-group=-1"], E),
        (["--schedules-per-group=1000000000"], A),
        (["--torch-threads=-3"], E), (["--torch-threads=1000000"], E),
        (["--torch-threads=0"], O),
        (["--seed=-1"], E), (["--seed=18446744073709551616"], E),
        (["--target=tpu"], E), (["--target=spade"], E), (["--target="], E),
        (["--finetune-from=/nonexistent.pt"], E), (["--finetune-from=."], E),
        (["--finetune-from=garbage.pt"], E), (["--finetune-from={setup:dataset}"], E),
        (["--finetune-from=empty.pt"], E),
        (["--finetune-from={setup:model}"], O),
        (["--checkpoint-dir=afile"], E),
        (["--log=/nonexistent/dir/log.jsonl"], E), (["--log=."], E),
        (["--metrics=."], E), (["--metrics=/nonexistent/dir/m.json"], E),
        (["--bogus"], E),
    ]
    cases = []
    files = {"afile": "x\n", "garbage.pt": "not a model\n", "empty.pt": ""}
    for n, (extra, e) in enumerate(items):
        cases.append(Case("train", "options/" + " ".join(extra), base + out + extra,
                          dict(files), expect=e, check=_train_check,
                          mem_mb=8192))
    for name, cmd, e in [
            ("no --out", base, E), ("out is a directory", base + ["--out", "."], E),
            ("out in a missing directory", base + ["--out", "no/dir/m.pt"], E),
            ("no --data", ["{bin}/sptune-train", "--out", "m.pt"], E),
            ("data missing", ["{bin}/sptune-train", "--data", "nope.jsonl", "--out", "m.pt"], E),
            ("data is a directory", ["{bin}/sptune-train", "--data", ".", "--out", "m.pt"], E),
            ("data is /dev/null", ["{bin}/sptune-train", "--data", "/dev/null", "--out", "m.pt"], E),
            ("data is /dev/zero", ["{bin}/sptune-train", "--data", "/dev/zero", "--out", "m.pt"], E),
            ("evaluate a garbage model", ["{bin}/sptune-train", "--data",
                                          "{setup:dataset}", "--evaluate", "garbage.pt"], E),
            ("evaluate a missing model", ["{bin}/sptune-train", "--data",
                                          "{setup:dataset}", "--evaluate", "nope.pt"], E)]:
        cases.append(Case("train", "io/" + name, cmd, dict(files), expect=e,
                          check=_train_check, mem_mb=8192,
                          quick=name in ("data is /dev/null", "no --data",
                                         "data is /dev/zero")))
    for kind, e in [("empty", E), ("garbage", E), ("binary", E)]:
        content = {"empty": "", "garbage": "garbage\n{\n",
                   "binary": bytes(rng.randrange(256) for _ in range(500))}[kind]
        cases.append(Case("train", "dataset/" + kind,
                          ["{bin}/sptune-train", "--data", "bad.jsonl", "--out",
                           "m.pt", "--epochs", "2", "--quiet"],
                          {"bad.jsonl": content}, expect=e, check=_train_check,
                          mem_mb=8192, quick=kind == "garbage"))
    for kind, e in [("cut", A), ("garbage-lines", A), ("deep", A),
                    ("all-crash", E), ("time=0", E), ("time=-1", E),
                    ("time=1e308", A), ("time-string", E), ("schema-99", E),
                    ("no-key-fields", E), ("missing-source", E),
                    ("size-mismatch", A), ("one-matrix", A), ("one-record", A),
                    ("duplicated", A), ("bad-schedule", E),
                    ("other-kernel-schedule", E), ("unknown-kernel", E),
                    ("huge-line", A), ("wrong-types", E), ("free-huge", E)]:
        cases.append(Case("train", "dataset/" + kind,
                          ["{bin}/sptune-train", "--data", "bad.jsonl", "--out",
                           "m.pt", "--epochs", "2", "--quiet"],
                          {"bad.jsonl": _dataset_variant(kind)}, expect=e,
                          check=_train_check, mem_mb=8192))
    return cases


# ----------------------------------------------------------------------------
# Area: spade-sim
# ----------------------------------------------------------------------------

MACHINE_KEYS = ["pes", "vector_lanes", "elem_bytes", "line_bytes",
                "private_bytes", "private_ways", "private_latency", "llc_bytes",
                "llc_ways", "llc_latency", "llc_banks", "llc_bank_cycles",
                "dram_channels", "dram_bytes_per_cycle", "dram_latency",
                "mshrs", "lookahead", "tile_start_cycles", "row_start_cycles",
                "barrier_cycles", "clock_ghz"]


def _spade_check(res, d, ctx):
    """A simulation that exits 0 has a finite, positive cycle count."""
    if res.rc != 0 or "--json" not in res.cmd:
        return None
    try:
        o = json.loads(res.out.strip().splitlines()[-1])
    except Exception as e:  # noqa: BLE001
        return "silent-wrong", "exit 0 but no JSON: %s" % e
    c = o.get("cycles")
    if "results" in o:
        return None
    if not isinstance(c, (int, float)) or not math.isfinite(c) or c < 0:
        return "silent-wrong", "cycles %r" % c
    if NONFINITE_RE.search(res.out):
        return "silent-wrong", "non-finite number in the statistics"
    if o.get("functional") not in (None, "ok"):
        return "silent-wrong", "exit 0 with functional %r" % o.get("functional")
    return None


def gen_spade(ctx, rng):
    E, A, O = "error", "any", "ok"
    base = ["{bin}/spade-sim", SMALL, "--json", "--functional"]
    items = [
        (["--free=0"], E), (["--free=-1"], E), (["--free=1000000000"], E),
        (["--free=abc"], E), (["--free=9223372036854775808"], E), (["--free=1"], O),
        (["--tolerance=-1"], E), (["--tolerance=nan"], E), (["--tolerance=inf"], A),
        (["--tolerance=abc"], E),
        (["--timeout=-1"], E), (["--timeout=nan"], E), (["--timeout=inf"], A),
        (["--timeout=1e-9"], A), (["--timeout=abc"], E),
        (["--kernel=spmv"], E), (["--kernel="], E), (["--kernel=sddmm"], O),
        (["--schedule=garbage"], E), (["--schedule="], E),
        (["--schedule=spade spmm, split = [0, 1], tile = 0, pes = 0, barrier = false, bypass = [], reorder = none"], E),
        (["--schedule=spade spmm, split = [4294967304, 1], tile = 0, pes = 0, barrier = false, bypass = [], reorder = none"], E),
        (["--schedule=spade spmm, split = [8, 8], tile = 0, pes = -4, barrier = false, bypass = [], reorder = none"], E),
        (["--schedule=spade spmm, split = [8, 8], tile = 0, pes = 100000, barrier = false, bypass = [], reorder = none"], E),
        (["--schedule=spade spmm, split = [8, 8], tile = 5000, pes = 0, barrier = false, bypass = [], reorder = none"], A),
        (["--schedule=cpu spmm, levels = [i : dense, k : compressed], split = [1, 1], order = [i, k, j], widths = [32, 32], tile = 0"], E),
        (["--schedule=spade spmm, split = [8, 8], split = [4, 4]"], E),
        (["--schedule=spade sddmm, split = [8, 8]", "--kernel=spmm"], E),
        (["--emit-program=/nonexistent/dir/p.spade"], E),
        (["--program=/nonexistent.spade"], E), (["--program=."], E),
        (["--program=/dev/zero"], E),
        (["--program=garbage.spade"], E), (["--program=empty.spade"], E),
        (["--program={setup:program}", "--free=9"], E),
        (["--program={setup:program}", "--kernel=sddmm"], E),
        (["--program={setup:program}"], O),
        (["--program={setup:program}", "--schedule=spade spmm"], E),
        (["--sweep", "--program={setup:program}"], E),
        (["--machine=pes"], E), (["--machine==1"], E), (["--machine=bogus=1"], E),
        (["--bogus"], E), (["extra-matrix"], E),
    ]
    for key in MACHINE_KEYS:
        for v in rng.sample(["0", "-1", "1e18", "nan", "abc", "", "inf",
                             "4294967297", "1"], 3):
            e = E if v in ("-1", "nan", "abc", "", "inf", "4294967297", "1e18") \
                else A
            if v == "0" and key not in ("dram_latency", "llc_latency",
                                        "private_latency", "tile_start_cycles",
                                        "row_start_cycles", "barrier_cycles",
                                        "llc_bank_cycles", "lookahead"):
                e = E
            items.append((["--machine=%s=%s" % (key, v)], e))
    items += [(["--machine=llc_bytes=1099511627776"], E),
              (["--machine=private_bytes=1099511627776"], E),
              (["--machine=clock_ghz=1e-300"], E), (["--machine=pes=1000000000"], E)]
    cases = []
    files = {"garbage.spade": "spade-program 1\nkernel spmm\nnonsense\n",
             "empty.spade": ""}
    for n, (extra, e) in enumerate(items):
        cases.append(Case("spade", "options/" + " ".join(extra)[:90], base + extra,
                          dict(files), expect=e, check=_spade_check,
                          quick=n % 15 == 0))
    for name, m, e in [("missing matrix", "/nonexistent.mtx", E),
                       ("bad spec", "gen:uniform:rows=0", E),
                       ("0x0", "gen:uniform:rows=0,cols=0,nnz=0", A),
                       ("empty rows", "gen:uniform:rows=64,cols=64,nnz=0", O),
                       ("one row", "gen:uniform:rows=1,cols=500,nnz=50", O),
                       ("one column", "gen:uniform:rows=500,cols=1,nnz=50", O)]:
        cases.append(Case("spade", "matrix/" + name,
                          ["{bin}/spade-sim", m, "--json", "--functional"],
                          expect=e, check=_spade_check))
    cases.append(Case("spade", "sweep/small", ["{bin}/spade-sim",
                                               "gen:uniform:rows=16,cols=16,nnz=40",
                                               "--sweep", "--json"], expect=O,
                      check=_spade_check))
    # Mutated programs, checked functionally: exit 0 only with a right result.
    for n in range(24):
        cases.append(Case("spade", "program/%d" % n,
                          ["{bin}/spade-sim", SMALL, "--program=p.spade",
                           "--json", "--functional"],
                          {"p.spade": _mutated_program(random.Random(
                              "probe-spade:%d:%d" % (ctx.seed, n)))},
                          expect=A, check=_spade_check, quick=n == 0))
    return cases


def _mutated_program(rng):
    def make(ctx):
        lines = ctx.read_setup("program").splitlines()
        for _ in range(rng.choice([1, 1, 2, 3])):
            k = rng.randrange(len(lines))
            r = rng.random()
            if r < 0.2:
                del lines[k]
            elif r < 0.3:
                lines.insert(k, lines[k])
            elif r < 0.8:
                nums = list(re.finditer(r"-?\d+", lines[k]))
                if nums:
                    m = rng.choice(nums)
                    v = rng.choice(["0", "-1", "-4", "1", "3", "33", "64",
                                    "4294967297", "9223372036854775807",
                                    "99999999999999999999", str(rng.randint(0, 200))])
                    lines[k] = lines[k][:m.start()] + v + lines[k][m.end():]
            else:
                lines[k] = lines[k] + rng.choice([" x", " 1", ":", " 0:0", ""])
        return "\n".join(lines) + "\n"
    return make


# ----------------------------------------------------------------------------
# Area: tuning databases
# ----------------------------------------------------------------------------

def _db_records(ctx):
    return [json.loads(l) for l in ctx.read_setup("db").splitlines() if l.strip()]


def _db_variant(kind):
    def make(ctx):
        recs = _db_records(ctx)
        dump = lambda rs: "".join(json.dumps(r) + "\n" for r in rs)
        good = dump(recs)
        variants = {
            "valid": good,
            "garbage-lines": "".join(json.dumps(r) + "\ngarbage\n" for r in recs),
            "cut": good[:-40],
            "empty": "",
            "newlines": "\n" * 1000,
            "binary": bytes(range(256)) * 20,
            "deep": good + "[" * 100000 + "\n",
            "huge-line": good + '{"v":1,"pad":"' + "p" * 5000000 + '"}\n',
            "many": dump(recs * 1000),
        }
        if kind in variants:
            return variants[kind]
        bad = [dict(r) for r in recs]
        f, _, v = kind.partition("=")
        for r in bad:
            if v == "DROP":
                r.pop(f, None)
            else:
                r[f] = json.loads(v)
        return good + dump(bad)
    return make


DB_VALID_COUNT = 3


def _db_list_check(valid):
    """sptune-db list --json prints exactly the valid records."""
    def check(res, d, ctx):
        if res.rc != 0:
            return None
        n = len([l for l in res.out.splitlines() if l.strip()])
        ok = valid if isinstance(valid, tuple) else (valid,)
        if n not in ok:
            return "silent-wrong", "%d records listed, %s valid in the file" % (
                n, " or ".join(map(str, ok)))
        return None
    return check


def _db_keeps(before_name):
    """After sptune-opt: the database still holds what it held (appends
    only), and every line it added parses."""
    def check(res, d, ctx):
        try:
            before = open(os.path.join(d, before_name), "rb").read()
            after = open(os.path.join(d, "db.jsonl"), "rb").read()
        except OSError:
            return None
        if not after.startswith(before):
            return "data", "the database lost or changed earlier content"
        for l in after[len(before):].splitlines():
            if l.strip():
                try:
                    _loads(l)
                except ValueError:
                    return "data", "an appended line does not parse"
        return None
    return check


def gen_db(ctx, rng):
    E, O = "error", "ok"
    kinds = [("valid", 3), ("garbage-lines", 3), ("cut", 2), ("empty", 0),
             ("newlines", 0), ("binary", 0), ("deep", 3), ("huge-line", 3),
             ("many", 3000),
             ("v=2", 3), ("v=DROP", 3), ("fingerprint=5", 3), ("kernel=\"spmx\"", 3),
             ("target=\"tpu\"", 3), ("free=0", 3), ("free=-8", 3),
             ("rows=-1", 3), ("candidates=1099511627776", 3),
             ("measure_top_k=-1", 3), ("seconds=-1", 3), ("seconds=0", 3),
             ("seconds=1e309", 3), ("seconds=\"fast\"", 3),
             ("schedule=\"garbage\"", 3),
             ("schedule=\"nvvm spmm, levels = [i : dense, k : compressed], split = [1, 1], order = [i, k, j], widths = [64, 64], tile = 0, threads = 1024, libgen = false\"", 3),
             ("measured=[{\"schedule\": \"x\", \"seconds\": 1}]", 3),
             ("measured=[{\"schedule\": \"cpu spmm\", \"seconds\": -1}]", 3),
             ("measured=5", (3, 6)), ("created=5", (3, 6)), ("source=\"/nonexistent.mtx\"", 6)]
    cases = []
    for n, (kind, valid) in enumerate(kinds):
        q = kind in ("garbage-lines", "deep", "seconds=-1")
        files = {"db.jsonl": _db_variant(kind)}
        cases.append(Case("db", "list/" + kind, ["{bin}/sptune-db", "list",
                                                 "--json", "db.jsonl"], files,
                          expect=O, check=_db_list_check(valid), quick=q))
        cases.append(Case("db", "autotune/" + kind,
                          ["sh", "-c", "cp db.jsonl before.jsonl && exec \"$0\" \"$@\"",
                           "{bin}/sptune-opt", "{src}/examples/kernels.mlir",
                           "--sptune-extract-kernels",
                           "--sptune-autotune=mode=heuristic matrix=%s "
                           "database=db.jsonl" % SMALL, "-o", "out.mlir"],
                          files, expect=O, check=_db_keeps("before.jsonl"),
                          quick=q and kind == "deep"))
        if n % 3 == 0:
            cases.append(Case("db", "merge/" + kind,
                              ["{bin}/sptune-db", "merge", "-o", "m.jsonl", "db.jsonl"],
                              files, expect=O, check=_merge_check))
    for name, args, e in [
            ("no command", [], E), ("unknown command", ["frob"], E),
            ("list nothing", ["list"], E), ("list missing", ["list", "nope"], E),
            ("list a directory", ["list", "."], E),
            ("list /dev/zero", ["list", "/dev/zero"], E),
            ("merge without -o", ["merge", "db.jsonl"], E),
            ("merge -o missing dir", ["merge", "-o", "no/dir/x", "db.jsonl"], E),
            ("merge into itself", ["merge", "-o", "db.jsonl", "db.jsonl"], O),
            ("prune two", ["prune", "db.jsonl", "db.jsonl"], E),
            ("prune --keep-model missing", ["prune", "--keep-model", "/nope.pt", "db.jsonl"], E),
            ("prune --keep-model garbage", ["prune", "--keep-model", "db.jsonl", "db.jsonl"], E),
            ("prune --keep-model heuristic", ["prune", "--keep-model", "heuristic", "db.jsonl"], O),
            ("prune --drop-missing-sources", ["prune", "--drop-missing-sources", "db.jsonl"], O),
            ("prune -o", ["prune", "-o"], E), ("list --bogus", ["list", "--bogus", "db.jsonl"], E)]:
        cases.append(Case("db", "cli/" + name, ["{bin}/sptune-db"] + args,
                          {"db.jsonl": _db_variant("valid")}, expect=e,
                          quick=name == "no command"))
    cases.append(Case("db", "autotune/database is a directory",
                      ["{bin}/sptune-opt", "{src}/examples/kernels.mlir",
                       "--sptune-extract-kernels",
                       "--sptune-autotune=mode=heuristic matrix=%s database=." % SMALL,
                       "-o", "out.mlir"], expect=E))
    cases.append(Case("db", "autotune/database /dev/full",
                      ["{bin}/sptune-opt", "{src}/examples/kernels.mlir",
                       "--sptune-extract-kernels",
                       "--sptune-autotune=mode=heuristic matrix=%s database=/dev/full"
                       % SMALL, "-o", "out.mlir"], expect=E))
    for n, start in enumerate(["", "cut", "valid", "garbage-lines", "", "cut"]):
        cases.append(Case("db", "concurrent/4 autotunes on %s database" % (
            start or "a new"), runner=_concurrent_appends(start, 4, n),
            quick=n == 1))
    cases.append(Case("db", "concurrent/autotunes while merging into the same file",
                      runner=_append_while_merge()))
    return cases


def _merge_check(res, d, ctx):
    if res.rc != 0:
        return None
    for l in open(os.path.join(d, "m.jsonl"), "rb"):
        if l.strip():
            try:
                _loads(l)
            except ValueError:
                return "data", "merge wrote a line that does not parse"
    return None


def _concurrent_appends(start, n, variant):
    def runner(case, d, ctx):
        content = _db_variant(start)(ctx) if start else ""
        if isinstance(content, str):
            content = content.encode()
        with open(os.path.join(d, "db.jsonl"), "wb") as f:
            f.write(content)
        before = _valid_db_lines(content)
        cmds, procs = [], []
        t0 = time.time()
        for k in range(n):
            spec = "gen:uniform:rows=40,cols=40,nnz=%d,seed=%d" % (100 + k,
                                                                   10 * variant + k)
            cmd = [ctx.tool("sptune-opt"), ctx.kernels, "--sptune-extract-kernels",
                   "--sptune-autotune=mode=heuristic matrix=%s database=db.jsonl"
                   % spec, "-o", os.devnull]
            cmds.append(cmd)
            procs.append(_start(cmd, d, "p%d.stderr" % k, ctx))
        rcs = _finish_all(procs, ctx.timeout)
        errs = "".join(_read(os.path.join(d, "p%d.stderr" % k)) for k in range(n))
        if None in rcs:
            return Outcome("hang", "", errs, cmds=cmds)
        for rc, k in zip(rcs, range(n)):
            res = Res(rc, "", _read(os.path.join(d, "p%d.stderr" % k)), 0, cmds[k])
            cls, note = judge(res, "ok")
            if cls != "ok":
                return Outcome(cls, "run %d: %s" % (k, note), errs, cmds=cmds)
        after = open(os.path.join(d, "db.jsonl"), "rb").read()
        got = _valid_db_lines(after)
        want = before + 3 * n
        secs = time.time() - t0
        if not after.startswith(content):
            return Outcome("data", "earlier content changed", errs, cmds=cmds, secs=secs)
        if got != want:
            return Outcome("data", "%d valid records, %d due" % (got, want), errs,
                           cmds=cmds, secs=secs)
        return Outcome("ok", "", errs, cmds=cmds, secs=secs)
    return runner


def _valid_db_lines(data):
    n = 0
    for l in data.splitlines():
        try:
            o = _loads(l)
            n += isinstance(o, dict) and o.get("v") == 1 and "schedule" in o
        except ValueError:
            pass
    return n


def _append_while_merge():
    """Two autotunes append while `sptune-db merge -o db db` rewrites the
    file: a record appended meanwhile must not vanish."""
    def runner(case, d, ctx):
        content = _db_variant("many")(ctx).encode()
        with open(os.path.join(d, "db.jsonl"), "wb") as f:
            f.write(content)
        cmds = [[ctx.tool("sptune-db"), "merge", "-o", "db.jsonl", "db.jsonl"]]
        for k in range(2):
            cmds.append([ctx.tool("sptune-opt"), ctx.kernels, "--sptune-extract-kernels",
                         "--sptune-autotune=mode=heuristic matrix=gen:uniform:rows=40,"
                         "cols=40,nnz=%d,seed=77 database=db.jsonl" % (90 + k),
                         "-o", os.devnull])
        procs = [_start(cmd, d, "p%d.stderr" % k, ctx, limited=False)
                 for k, cmd in enumerate(cmds)]
        rcs = _finish_all(procs, ctx.timeout)
        errs = "".join(_read(os.path.join(d, "p%d.stderr" % k)) for k in range(3))
        if None in rcs:
            return Outcome("hang", "", errs, cmds=cmds)
        if any(rc != 0 for rc in rcs):
            return Outcome("error", "exits %s" % rcs, errs, cmds=cmds)
        # After: the merged records (3, superseded removed) plus 6 appended
        # ones, whichever order the writes took.
        data = open(os.path.join(d, "db.jsonl"), "rb").read()
        got = [json.loads(l) for l in data.splitlines() if l.strip()]
        fresh = {(r["fingerprint"], r["kernel"]) for r in got
                 if r.get("source", "").endswith("seed=77")}
        if len(fresh) != 6:
            return Outcome("data", "%d of the 6 appended decisions survived the "
                           "merge" % len(fresh), errs, cmds=cmds)
        return Outcome("ok", "", errs, cmds=cmds)
    return runner


# ----------------------------------------------------------------------------
# Area: python3 -m sptune tune / report, sptune.torch
# ----------------------------------------------------------------------------

TORCH_SCRIPT = r'''
import sys, torch, sptune.torch as st
torch.manual_seed(0)
def csr(m, n, density=0.1, dtype=torch.float32, index=torch.int64):
    d = (torch.rand(m, n) < density).to(dtype) * torch.rand(m, n, dtype=dtype)
    a = d.to_sparse_csr()
    return torch.sparse_csr_tensor(a.crow_indices().to(index), a.col_indices().to(index),
                                   a.values(), (m, n)), d
A, Ad = csr(32, 24)
B = torch.rand(24, 8)
x = torch.rand(24)
try:
%(setup)s
except Exception as e:  # the probe's own inputs: not sptune's failure
    print("SETUP-FAILED", type(e).__name__, e, file=sys.stderr)
    sys.exit(5)
try:
    got = %(call)s
except (ValueError, TypeError, RuntimeError) as e:
    if "sptune" not in str(e):
        raise
    print("ERROR", type(e).__name__, e, file=sys.stderr)
    sys.exit(3)
want = %(want)s
if want is not None:
    if isinstance(got, torch.Tensor) and got.layout == torch.sparse_csr:
        got = got.to_dense()
    ok = got.shape == want.shape and torch.allclose(got.to(torch.float64), want.to(torch.float64), rtol=1e-3, atol=1e-4)
    print("RESULT", "match" if ok else "MISMATCH", tuple(got.shape))
else:
    print("RESULT", "done")
'''


def _torch_case(name, setup, call, want, expect, quick=False):
    setup = "\n".join("    " + l for l in (setup or "pass").splitlines())
    script = TORCH_SCRIPT % {"setup": setup, "call": call, "want": want}

    def check(res, d, ctx):
        if res.rc == 0 and "MISMATCH" in res.out:
            return "silent-wrong", "result differs from torch: " + res.out.strip()[-120:]
        return None
    return Case("python", "torch/" + name, ["{python}", "case.py"],
                {"case.py": script}, expect=expect, check=check, python=True,
                quick=quick, mem_mb=0, timeout=180)


def gen_learn(ctx, rng):
    """sptune-learn (issue 35): every option out of range is refused before
    anything is read or measured (2^32 rounds and 100,000 workers aborted,
    10^9 epochs ran forever), an output that is not a file, an empty replay
    pool, a state directory of another format; and requests too big for
    memory, refused with the size named instead of aborting."""
    E, O = "error", "ok"
    replay = ["{bin}/sptune-learn", "--replay", "{setup:dataset}", "--state",
              "state", "--quiet", "--initial-epochs", "1", "--epochs", "1"]
    live = ["{bin}/sptune-learn", SMALL, "--validation", "{setup:dataset}",
            "--state", "state", "--quiet", "--rounds-at", "5"]
    at = ["--rounds-at", "50%"]
    items = [
        ("replay", replay + at, O),
        ("rounds 2^32-1", replay + ["--budget", "100%", "--rounds",
                                     "4294967295"], E),
        ("rounds 0", replay + ["--budget", "100%", "--rounds", "0"], E),
        ("initial-epochs 1e9", replay + at + ["--initial-epochs", "1000000000"], E),
        ("epochs 1e9", replay + at + ["--epochs", "1e9"], E),
        ("epochs 0", replay + at + ["--epochs", "0"], E),
        ("ensemble 100000", replay + at + ["--ensemble", "100000"], E),
        ("reference-cost -5", replay + at + ["--reference-cost", "-5"], E),
        ("reference-cost nan", replay + at + ["--reference-cost", "nan"], E),
        ("lr nan", replay + at + ["--lr", "nan"], E),
        ("far-share 2", replay + at + ["--far-share", "2"], E),
        ("rs2-fraction 0", replay + at + ["--rs2-fraction", "0"], E),
        ("validation-fraction 1", replay + at + ["--validation-fraction", "1"], E),
        ("policy", replay + at + ["--policy", "greedy"], E),
        ("reward", replay + at + ["--reward", "loss"], E),
        ("strategy", replay + at + ["--strategy", "oracle"], E),
        ("kernel", replay + at + ["--kernel", "spgemm"], E),
        ("budget bad", replay + ["--rounds-at", "ten"], E),
        ("no budget", replay, E),
        ("out a directory", replay + at + ["--out", "."], E),
        ("empty pool", replay + at + ["--validation", "{setup:dataset}"], E),
        ("state of another format", replay + at, E),
        ("workers 0", live + ["--workers", "0"], E),
        ("workers 100000", live + ["--workers", "100000"], E),
        ("free 0", live + ["--free", "0"], E),
        ("timeout 0", live + ["--timeout", "0"], E),
        ("min-reps -3", live + ["--min-reps", "-3"], E),
        ("min-seconds nan", live + ["--min-seconds", "nan"], E),
        ("worker-exe missing", live + ["--worker-exe", "/nonexistent/w"], E),
    ]
    foreign = {"state/state.json": '{"version": 99, "fingerprint": "x"}\n'}
    cases = []
    for name, cmd, e in items:
        files = foreign if name == "state of another format" else {}
        cases.append(Case("learn", "options/" + name, cmd, dict(files),
                          expect=e, mem_mb=8192,
                          quick=name in ("rounds 2^32-1", "workers 100000",
                                         "state of another format")))
    # Faults: killed (or interrupted) after round k, then the same command.
    for k, sig in [(1, signal.SIGKILL), (4, signal.SIGKILL), (7, signal.SIGKILL),
                   (3, signal.SIGINT)]:
        cases.append(Case("learn", "fault/%s after round %d, resume" % (
            signal.Signals(sig).name, k), runner=_learn_kill_resume(k, sig),
            quick=k == 4))
    # Requests too big for the memory budget (set, so that the case does not
    # depend on this machine's memory).
    big = {"SPTUNE_MEMORY_BUDGET": "1G"}
    huge = "gen:uniform:rows=100000,cols=100000,nnz=10,seed=1"
    for name, cmd in [
            ("measure spmm", ["{bin}/sptune-measure", "--matrix", huge,
                              "--kernel", "spmm", "--free", "65536",
                              "--baseline", "eigen"]),
            ("measure sddmm", ["{bin}/sptune-measure", "--matrix", huge,
                               "--kernel", "sddmm", "--free", "65536",
                               "--baseline", "heuristic"]),
            ("spade-sim functional", ["{bin}/spade-sim", huge, "--free=65536",
                                      "--functional"])]:
        cases.append(Case("learn", "big/" + name, cmd, expect=E, env=big,
                          quick=name == "measure spmm"))
    return cases


# Timing fields of a round record: the only ones a resumed run may change.
_ROUND_TIMES = ("select_s", "train_s", "measure_s")


def _learn_rounds(path):
    """The round records of a learn state's rounds.jsonl, timings dropped."""
    out = []
    for l in open(path, "rb"):
        if l.strip():
            o = _loads(l)
            for k in _ROUND_TIMES:
                o.pop(k, None)
            out.append(o)
    return out


def _learn_kill_resume(k, sig):
    """A replay run of 10 rounds killed with `sig` once its state holds round
    `k`, then run again: it must resume and end with the round records of an
    uninterrupted run of the same command (timings aside); nothing lost,
    nothing counted twice."""
    def runner(case, d, ctx):
        mem = max(ctx.mem_mb, 8192)

        def cmd(state):
            return [ctx.tool("sptune-learn"), "--replay", ctx.setup("dataset"),
                    "--initial-epochs", "20", "--epochs", "20", "--rounds-at",
                    ",".join("%d%%" % (10 * n) for n in range(1, 11)),
                    "--seed", "3", "--state", state, "--quiet"]
        t0 = time.time()
        ref = run(cmd("ref"), d, ctx.timeout, mem, tag="reference")
        cls, note = judge(ref, "ok")
        if cls != "ok":
            return Outcome(cls, "uninterrupted run: " + note, ref.err,
                           cmds=[cmd("ref")])
        errp = os.path.join(d, "first.stderr")
        state = os.path.join(d, "run", "state.json")

        def rounds_done():
            try:
                with open(state) as f:
                    return len(json.load(f).get("rounds", []))
            except (OSError, ValueError):
                return 0
        p = _start_until(cmd("run"), d, ctx, mem, errp,
                         lambda: rounds_done() >= k)
        stopped = _stop(p, sig, ctx, errp, cmd("run"))
        if stopped:
            return stopped
        res = run(cmd("run"), d, ctx.timeout, mem, tag="resume")
        cls, note = judge(res, "ok")
        cmds = [cmd("ref"), cmd("run"), cmd("run")]
        if cls == "ok":
            want = _learn_rounds(os.path.join(d, "ref", "rounds.jsonl"))
            got = _learn_rounds(os.path.join(d, "run", "rounds.jsonl"))
            if got != want:
                rounds = [r.get("round") for r in got]
                cls, note = "data", "resumed rounds %s differ from an " \
                    "uninterrupted run's %s" % (rounds, [r.get("round") for r in want])
            elif not os.path.isfile(os.path.join(d, "run", "final.pt")):
                cls, note = "data", "no final model after the resumed run"
        return Outcome(cls, note, _read(errp) + res.err, res.out, cmds,
                       time.time() - t0)
    return runner


def gen_python(ctx, rng):
    E, A, O = "error", "any", "ok"
    cases = []
    tune = ["{python}", "-m", "sptune", "tune"]
    for name, args, e in [
            ("missing matrix", ["nope.mtx", "--kernel", "spmm", "--no-measure"], E),
            ("directory", [".", "--kernel", "spmm", "--no-measure"], E),
            ("malformed mtx", ["bad.mtx", "--kernel", "spmm", "--no-measure"], E),
            ("bad spec", ["gen:uniform:rows=-1", "--kernel", "spmm", "--no-measure"], E),
            ("free 0", [SMALL, "--kernel", "spmm", "--free", "0", "--no-measure"], E),
            ("free -1", [SMALL, "--kernel", "spmm", "--free", "-1", "--no-measure"], E),
            ("free huge", [SMALL, "--kernel", "spmm", "--free", "99999999999",
                           "--no-measure"], E),
            ("kernel bad", [SMALL, "--kernel", "spmx"], E),
            ("target bad", [SMALL, "--kernel", "spmm", "--target", "tpu"], E),
            ("min-seconds 0", [SMALL, "--kernel", "spmm", "--min-seconds", "0"], E),
            ("min-seconds nan", [SMALL, "--kernel", "spmm", "--min-seconds", "nan"], E),
            ("min-seconds inf", [SMALL, "--kernel", "spmm", "--min-seconds", "inf"], E),
            ("top-k -1", [SMALL, "--kernel", "spmm", "--top-k", "-1", "--no-measure"], E),
            ("measure-top-k -1", [SMALL, "--kernel", "spmm", "--measure-top-k", "-1",
                                  "--no-measure"], E),
            ("database dir", [SMALL, "--kernel", "spmm", "--database", ".",
                              "--no-measure"], E),
            ("database garbage", [SMALL, "--kernel", "spmm", "--database", "bad.mtx",
                                  "--mode", "heuristic", "--no-measure"], O),
            ("json missing dir", [SMALL, "--kernel", "spmm", "--json", "no/dir/x.json",
                                  "--no-measure"], E),
            ("save-ir a directory", [SMALL, "--kernel", "spmm", "--save-ir", ".",
                                     "--no-measure", "--mode", "heuristic"], E),
            ("matrix with a space", ["a b.mtx", "--kernel", "spmm", "--no-measure"], E),
            ("development without model", [SMALL, "--kernel", "spmm", "--mode",
                                           "development", "--no-measure"], E),
            ("model missing", [SMALL, "--kernel", "spmm", "--model", "nope.pt",
                               "--no-measure"], E),
            ("baselines bogus", [SMALL, "--kernel", "spmv", "--mode", "heuristic",
                                 "--baselines", "bogus", "--min-seconds", "0.01"], E),
            ("spade spmv", [SMALL, "--kernel", "spmv", "--target", "spade",
                            "--mode", "heuristic"], E),
            ("heuristic ok", [SMALL, "--kernel", "spmv", "--mode", "heuristic",
                              "--baselines", "none", "--min-seconds", "0.01"], O),
            ("0x0 matrix", ["zero.mtx", "--kernel", "spmv", "--mode", "heuristic",
                            "--baselines", "none", "--min-seconds", "0.01"], A)]:
        files = {"bad.mtx": "garbage\n", "a b.mtx": BANNER + "2 2 1\n1 1 1\n",
                 "zero.mtx": BANNER + "0 0 0\n"}
        cases.append(Case("python", "tune/" + name, tune + args, files, expect=e,
                          python=True, env=ctx.pyenv, quick=name == "free 0",
                          mem_mb=0, timeout=120))
    rep = ["{python}", "-m", "sptune", "report"]
    for name, files, args, e in [
            ("missing", {}, ["nope.json"], E),
            ("empty", {"r.json": ""}, ["r.json"], E),
            ("garbage", {"r.json": "garbage {"}, ["r.json"], E),
            ("unknown shape", {"r.json": '{"a": 1}'}, ["r.json"], E),
            ("list", {"r.json": "[1, 2]"}, ["r.json"], E),
            ("number", {"r.json": "5"}, ["r.json"], E),
            ("deep", {"r.json": "[" * 100000}, ["r.json"], E),
            ("binary", {"r.json": bytes(range(256))}, ["r.json"], E),
            ("directory", {"dir/x": "x"}, ["dir"], E),
            ("dataset with junk", {"r.jsonl": lambda c: c.read_setup("dataset")
                                   + "garbage\n"}, ["r.jsonl"], A),
            ("dataset", {"r.jsonl": lambda c: c.read_setup("dataset")}, ["r.jsonl"], O),
            ("tune result cut", {"r.json": '{"format": "sptune-tune", "version": 1, '
                                 '"matrix": "x", "measurements": [{"variant"'}, ["r.json"], E),
            ("tune result wrong types", {"r.json": json.dumps(
                {"format": "sptune-tune", "version": 1, "matrix": 5, "kernel": None,
                 "target": [], "measurements": "none"})}, ["r.json"], E),
            ("output missing dir", {"r.jsonl": lambda c: c.read_setup("dataset")},
             ["r.jsonl", "-o", "no/dir/r.html"], E),
            ("output a directory", {"r.jsonl": lambda c: c.read_setup("dataset")},
             ["r.jsonl", "-o", "."], E)]:
        cases.append(Case("python", "report/" + name, rep + args + (
            ["-o", "out.html"] if "-o" not in args else []), files, expect=e,
            python=True, env=ctx.pyenv, quick=name in ("garbage", "deep"),
            mem_mb=0, timeout=120))
    # torch checks what it builds; the unsafe constructor makes the
    # malformed tensors sptune must check itself.
    bad_csr = "torch._sparse_csr_tensor_unsafe(torch.tensor(%s), torch.tensor(%s), torch.rand(%d), %s)"
    T = [
        ("dense A", "", "st.spmm(Ad, B)", "None", E),
        ("COO A", "C = Ad.to_sparse()", "st.spmm(C, B)", "None", E),
        ("int values", "I = Ad.to(torch.int32).to_sparse_csr()", "st.spmm(I, B.to(torch.int32))", "None", E),
        ("f16", "H = Ad.half().to_sparse_csr()", "st.spmm(H, B.half())", "None", E),
        ("dtype mismatch", "", "st.spmm(A, B.double())", "None", E),
        ("shape mismatch", "B2 = torch.rand(25, 8)", "st.spmm(A, B2)", "None", E),
        ("B 3-D", "B3 = torch.rand(24, 8, 1)", "st.spmm(A, B3)", "None", E),
        ("B 1-D", "", "st.spmm(A, x)", "None", E),
        ("A 3-D", "A3 = torch.rand(2, 4, 4).to_sparse_csr()", "st.spmm(A3, torch.rand(4, 2))", "None", E),
        ("requires grad", "Bg = B.clone().requires_grad_()", "st.spmm(A, Bg).detach()", "Ad @ B", O),
        ("x 2-D for spmv", "", "st.spmv(A, B)", "None", E),
        ("x wrong length", "x2 = torch.rand(23)", "st.spmv(A, x2)", "None", E),
        ("sddmm A wrong", "P, Q = torch.rand(31, 4), torch.rand(4, 24)", "st.sddmm(A, P, Q)", "None", E),
        ("sddmm B wrong", "P, Q = torch.rand(32, 4), torch.rand(5, 24)", "st.sddmm(A, P, Q)", "None", E),
        ("not a tensor", "", "st.spmm([[1.0]], B)", "None", E),
        ("None", "", "st.spmv(A, None)", "None", E),
        ("crow decreasing", "M = " + bad_csr % ("[0, 2, 1, 3]", "[0, 1, 2]", 3, "(3, 3)"), "st.spmv(M, torch.rand(3))", "None", E),
        ("col out of range", "M = " + bad_csr % ("[0, 1, 2]", "[0, 7]", 2, "(2, 3)"), "st.spmv(M, torch.rand(3))", "None", E),
        ("col negative", "M = " + bad_csr % ("[0, 1, 2]", "[0, -1]", 2, "(2, 3)"), "st.spmv(M, torch.rand(3))", "None", E),
        ("crow too short", "M = " + bad_csr % ("[0, 2]", "[0, 1]", 2, "(2, 3)"), "st.spmv(M, torch.rand(3))", "None", E),
        ("kernel_info unknown", "", "st.kernel_info('spmx', A)", "None", E),
        ("spmm", "", "st.spmm(A, B)", "Ad @ B", O),
        ("spmv f64 int32", "A2, D2 = csr(20, 30, 0.2, torch.float64, torch.int32)\nxv = torch.rand(30, dtype=torch.float64)", "st.spmv(A2, xv)", "D2 @ xv", O),
        ("sddmm", "P, Q = torch.rand(32, 4), torch.rand(4, 24)", "st.sddmm(A, P, Q)", "Ad * (P @ Q)", O),
        ("spmm non-contiguous B", "Bt = torch.rand(8, 24).t()", "st.spmm(A, Bt)", "Ad @ Bt", O),
        ("no entries", "E0, D0 = csr(16, 16, 0.0)\nB4 = torch.rand(16, 4)", "st.spmm(E0, B4)", "D0 @ B4", O),
        ("0 x 0", "Z = torch.zeros(0, 0).to_sparse_csr()", "st.spmv(Z, torch.zeros(0))", "torch.zeros(0)", A),
        ("1 x 1", "O1 = torch.ones(1, 1).to_sparse_csr()\nB5 = torch.full((1, 3), 2.0)", "st.spmm(O1, B5)", "B5", O),
        ("nan values", "N1 = torch.tensor([[float('nan'), 0.0], [0.0, 1.0]]).to_sparse_csr()", "st.spmv(N1, torch.ones(2))", "None", A),
    ]
    for n, (name, setup, call, want, e) in enumerate(T):
        c = _torch_case(name, setup, call, want, e, quick=name == "dense A")
        c.env = dict(ctx.pyenv, SPTUNE_CACHE=os.path.join(ctx.scratch, "torch-cache"),
                     SPTUNE_AUTOTUNE="mode=heuristic", OMP_NUM_THREADS="1")
        cases.append(c)
    return cases


# ----------------------------------------------------------------------------
# Area: the Slurm backend on a fake Slurm
# ----------------------------------------------------------------------------

# The fake Slurm: one Python script, installed as sbatch, squeue and scancel
# (it acts by the name it is called as) in the case's fakeslurm/bin, first on
# PATH. Array tasks run as local background processes, each in its own
# session (a killed driver leaves them running, as Slurm does).
FAKE_SLURM = r'''"""A fake Slurm for sptune's probe: sbatch, squeue and scancel, by the name
it is called as. Array tasks run as local background processes, each in its
own session. State under $FAKE_SLURM_DIR: sbatch.log (one JSON line per
submitted job: job, tasks, argv; fresh: a new batch, no state.json beside
its task.sh yet; done: its tasks whose shard was marked done), starts.log ("JOB TASK ATTEMPT" per task
start), tasks/JOB_TASK.json (the pid of the task's wrapper),
tasks/JOB_TASK.exit (its exit status; none when it was killed, as scancel
does), counters sbatch-calls, squeue-calls, next-job, attempts-TASK.

Faults (environment):
  FAKE_SBATCH_MODE         fail | garbage | empty | hang | submit-then-fail
  FAKE_SBATCH_FAIL_FROM    N: the N-th sbatch call (1-based) and later fail
  FAKE_SQUEUE_MODE         fail | hang
  FAKE_SQUEUE_FAIL_FIRST   N: the first N squeue calls fail
  FAKE_SQUEUE_EMPTY_FIRST  N: the first N squeue calls list nothing
  FAKE_TASK_FAIL           task ids ("1,3" or "all") whose first
                           FAKE_TASK_FAIL_ATTEMPTS (1) attempts exit 1 at once
  FAKE_TASK_KILL           task ids killed (preempted) FAKE_TASK_KILL_AFTER
                           (0.5) s after they start, in their first
                           FAKE_TASK_KILL_ATTEMPTS (1) attempts
  FAKE_SLURM_SLOTS         tasks running at once (2); the others are PENDING
"""
import fcntl
import glob
import json
import os
import signal
import subprocess
import sys
import time

D = os.environ.get("FAKE_SLURM_DIR") or sys.exit("fake slurm: no FAKE_SLURM_DIR")
TASKS = os.path.join(D, "tasks")
ME = os.path.realpath(sys.argv[0])


def locked(fn):
    os.makedirs(TASKS, exist_ok=True)
    with open(os.path.join(D, "lock"), "a") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        return fn()


def bump(name):
    """Increments the counter file `name`: its new value."""
    def f():
        p = os.path.join(D, name)
        try:
            with open(p) as fh:
                n = int(fh.read() or 0)
        except (OSError, ValueError):
            n = 0
        with open(p, "w") as fh:
            fh.write(str(n + 1))
        return n + 1
    return locked(f)


def append(name, line):
    def f():
        with open(os.path.join(D, name), "a") as fh:
            fh.write(line + "\n")
    locked(f)


def number(var, default=0):
    try:
        return int(os.environ.get(var) or default)
    except ValueError:
        return default


def listed(var, task):
    v = os.environ.get(var, "")
    return v == "all" or str(task) in v.split(",")


def array(spec):
    out = []
    for part in spec.split("%")[0].split(","):
        step = 1
        if ":" in part:
            part, s = part.split(":")
            step = int(s)
        if "-" in part:
            a, b = part.split("-")
            out += list(range(int(a), int(b) + 1, step))
        else:
            out.append(int(part))
    return out


def alive(job, task):
    """The pid of the wrapper of array task JOB_TASK while it runs."""
    try:
        with open(os.path.join(TASKS, "%s_%s.json" % (job, task))) as fh:
            pid = json.load(fh)["pid"]
        with open("/proc/%d/cmdline" % pid, "rb") as fh:
            cmd = fh.read().split(b"\0")
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if b"_task" in cmd and str(job).encode() in cmd and str(task).encode() in cmd:
        return pid
    return None


def sbatch(args):
    n = bump("sbatch-calls")
    mode = os.environ.get("FAKE_SBATCH_MODE", "")
    fail_from = number("FAKE_SBATCH_FAIL_FROM")
    if mode == "fail" or (fail_from and n >= fail_from):
        sys.stderr.write("sbatch: error: Batch job submission failed: "
                         "Invalid partition name specified\n")
        return 1
    if mode == "garbage":
        print("Submitted batch job")
        return 0
    if mode == "empty":
        return 0
    if mode == "hang":
        time.sleep(600)
        return 0
    spec, output, script = None, "slurm-%A_%a.out", None
    for a in args:
        if a.startswith("--array="):
            spec = a[len("--array="):]
        elif a.startswith("--output="):
            output = a[len("--output="):]
        elif not a.startswith("-"):
            script = a
    if not script or not os.path.isfile(script):
        sys.stderr.write("sbatch: error: Unable to open file %s\n" % script)
        return 1
    try:
        tasks = array(spec) if spec else [0]
    except ValueError:
        sys.stderr.write("sbatch: error: Invalid job array specification\n")
        return 1
    # A new batch has no state.json yet (the driver writes it once sbatch
    # returned); a task whose shard is marked done has finished.
    batch = os.path.dirname(os.path.abspath(script))
    fresh = not os.path.exists(os.path.join(batch, "state.json"))
    done = [t for t in tasks
            if os.path.exists(os.path.join(batch, "shard-%d.jsonl.done" % t))]
    job = 1000 + bump("next-job")
    append("sbatch.log", json.dumps({"job": job, "tasks": tasks, "fresh": fresh,
                                     "done": done, "argv": args}))
    for t in tasks:
        out = output.replace("%A", str(job)).replace("%a", str(t)).replace(
            "%j", str(job))
        with open(out, "ab") as fo:
            p = subprocess.Popen([sys.executable, ME, "_task", str(job), str(t),
                                  script], stdin=subprocess.DEVNULL, stdout=fo,
                                 stderr=subprocess.STDOUT, start_new_session=True)
        with open(os.path.join(TASKS, "%d_%d.json" % (job, t)), "w") as fh:
            json.dump({"pid": p.pid}, fh)
    if mode == "submit-then-fail":
        sys.stderr.write("sbatch: error: Socket timed out on send/recv operation\n")
        return 1
    print(job)
    return 0


def task(job, t, script):
    attempt = bump("attempts-%s" % t)
    held = None
    while held is None:  # PENDING until a slot is free
        for s in range(max(1, number("FAKE_SLURM_SLOTS", 2))):
            f = open(os.path.join(D, "slot-%d" % s), "a")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held = f
                break
            except OSError:
                f.close()
        if held is None:
            time.sleep(0.05)
    open(os.path.join(TASKS, "%s_%s.running" % (job, t)), "w").close()
    append("starts.log", "%s %s %d" % (job, t, attempt))
    if listed("FAKE_TASK_FAIL", t) and attempt <= number("FAKE_TASK_FAIL_ATTEMPTS", 1):
        print("fake slurm: task %s of job %s fails (attempt %d)" % (t, job, attempt),
              flush=True)
        rc = 1
    else:
        env = dict(os.environ, SLURM_ARRAY_JOB_ID=job, SLURM_ARRAY_TASK_ID=t,
                   SLURM_JOB_ID=str(int(job) * 1000 + int(t)))
        p = subprocess.Popen(["bash", script], env=env)
        if listed("FAKE_TASK_KILL", t) and attempt <= number("FAKE_TASK_KILL_ATTEMPTS", 1):
            try:
                p.wait(timeout=float(os.environ.get("FAKE_TASK_KILL_AFTER") or 0.5))
            except subprocess.TimeoutExpired:
                print("fake slurm: preempting task %s of job %s" % (t, job), flush=True)
                os.killpg(os.getpid(), signal.SIGKILL)
        rc = p.wait()
    with open(os.path.join(TASKS, "%s_%s.exit" % (job, t)), "w") as fh:
        fh.write("%d\n" % rc)
    return rc


def squeue(args):
    n = bump("squeue-calls")
    mode = os.environ.get("FAKE_SQUEUE_MODE", "")
    if mode == "hang":
        time.sleep(600)
    if mode == "fail" or n <= number("FAKE_SQUEUE_FAIL_FIRST"):
        sys.stderr.write("squeue: error: Unable to contact slurm controller "
                         "(connect failure)\n")
        return 1
    if n <= number("FAKE_SQUEUE_EMPTY_FIRST"):
        return 0
    for p in sorted(glob.glob(os.path.join(TASKS, "*.json"))):
        job, t = os.path.basename(p)[:-5].split("_")
        if os.path.exists(os.path.join(TASKS, "%s_%s.exit" % (job, t))):
            continue
        if alive(job, t):
            running = os.path.exists(os.path.join(TASKS, "%s_%s.running" % (job, t)))
            print("%s %s %s" % (job, t, "RUNNING" if running else "PENDING"))
    return 0


def scancel(args):
    """scancel [JOB...]: kills the tasks of these jobs (of all without)."""
    for p in sorted(glob.glob(os.path.join(TASKS, "*.json"))):
        job, t = os.path.basename(p)[:-5].split("_")
        pid = alive(job, t)
        if pid and (not args or job in args):
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 4 and sys.argv[1] == "_task":
        sys.exit(task(*sys.argv[2:5]))
    name = os.path.basename(sys.argv[0])
    tools = {"sbatch": sbatch, "squeue": squeue, "scancel": scancel}
    if name not in tools:
        sys.exit("fake slurm: called as %s" % name)
    sys.exit(tools[name](sys.argv[1:]))
'''

# The plan of test/Collect/slurm.test: 2 matrices, 3 samples + the MLIR
# default each = 8 measurements; a local run of it (Ctx setup slurm_local)
# gives the keys every Slurm run must end with, each once.
SLURM_MATRICES = ["gen:banded:rows=64,cols=64,nnz=300,bw=4,seed=6",
                  "gen:uniform:rows=48,cols=48,nnz=200,seed=3"]
SLURM_PLAN = ["--kernel", "spmm", "--free", "8", "--samples", "3",
              "--min-seconds", "0", "--min-reps", "1", "--baselines",
              "mlir-default", "--timeout", "60"]
SLURM_BACKEND = ["--backend", "slurm", "--slurm-state", "state",
                 "--slurm-tasks", "4", "--slurm-poll", "0.3"]
SLURM_TIMEOUT = 90  # seconds per step of a case whose array tasks measure
GAVE_UP_RE = re.compile(r"(\d+) of (\d+) measurements did not come back")


def _batch_file(d, name):
    """`name` in the batch directory of the case's Slurm state (each batch
    has its own, state/batch-<unique>), or None while there is none."""
    import glob
    found = sorted(glob.glob(os.path.join(d, "state", "batch-*", name)))
    return found[0] if found else None


def _slurm_collect(ctx, extra=(), backend=True):
    return ([ctx.tool("sptune-collect")] + SLURM_MATRICES + SLURM_PLAN +
            ["--out", "d.jsonl"] + (SLURM_BACKEND if backend else []) +
            list(extra))


def _slurm_learn(ctx, extra=()):
    """A live sptune-learn of 2 rounds on the plan's matrices: 3 candidates
    each, 1 epoch, a reference cost of 6 s (a few seconds of measurement)."""
    return ([ctx.tool("sptune-learn")] + SLURM_MATRICES +
            ["--validation", ctx.setup("dataset"), "--state", "learn",
             "--quiet", "--initial-epochs", "1", "--epochs", "1",
             "--candidates", "3", "--free", "8", "--min-seconds", "0",
             "--min-reps", "1", "--timeout", "60", "--rounds-at", "40%,100%",
             "--reference-cost", "6", "--seed", "1"] + SLURM_BACKEND +
            list(extra))


def _fake_slurm(d, ctx, without=()):
    """Installs the fake Slurm in d/fakeslurm (less the tools in `without`,
    and then alone on PATH); the environment of the case's commands."""
    root = os.path.join(d, "fakeslurm")
    b = os.path.join(root, "bin")
    os.makedirs(os.path.join(root, "state"), exist_ok=True)
    os.makedirs(b, exist_ok=True)
    for name in ("sbatch", "squeue", "scancel"):
        if name not in without:
            p = os.path.join(b, name)
            with open(p, "w") as f:
                f.write("#!%s\n" % ctx.python + FAKE_SLURM)
            os.chmod(p, 0o755)
    path = b if without else b + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")
    return {"PATH": path, "FAKE_SLURM_DIR": os.path.join(root, "state")}


def _fs(d, *parts):
    return os.path.join(d, "fakeslurm", "state", *parts)


def _fs_jobs(d):
    """The fake's submitted jobs in order: [{"job", "tasks", "fresh",
    "done", "argv"}] (FAKE_SLURM's sbatch.log)."""
    jobs = []
    try:
        with open(_fs(d, "sbatch.log")) as f:
            for l in f:
                if l.strip():
                    jobs.append(json.loads(l))
    except OSError:
        pass
    return jobs


def _fs_live(d):
    """Process ids (= process groups) of the fake's live array tasks."""
    pids = []
    for p in glob.glob(_fs(d, "tasks", "*.json")):
        try:
            with open(p) as f:
                pid = json.load(f)["pid"]
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                if b"_task" in f.read().split(b"\0"):
                    pids.append(pid)
        except (OSError, ValueError, KeyError, TypeError):
            pass
    return pids


def _fs_cancel(d, wait=10.0):
    """scancel of every job: kills the array tasks' process groups and waits
    until none is left."""
    t0 = time.time()
    while time.time() - t0 < wait:
        pids = _fs_live(d)
        if not pids:
            return
        for pid in pids:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.05)


def _fs_wait(d, limit):
    """Waits (at most `limit` s) until no array task runs."""
    t0 = time.time()
    while _fs_live(d) and time.time() - t0 < limit:
        time.sleep(0.1)


class _Verdict(Exception):
    """Ends a Slurm case with a class other than its last step's."""

    def __init__(self, cls, note):
        Exception.__init__(self, note)
        self.cls, self.note = cls, note


class _SlurmRun:
    """The steps of one case on the fake Slurm: commands run with its
    environment; their commands and stderr are kept for the report, the last
    step's class is the case's unless a check says otherwise."""

    def __init__(self, case, d, ctx, without=()):
        self.d, self.ctx = d, ctx
        self.env = _fake_slurm(d, ctx, without)
        self.timeout = case.timeout or SLURM_TIMEOUT
        # sptune-learn loads LibTorch (8 GiB, as the learn area); array tasks
        # inherit the limit of the driver that started sbatch.
        self.mem = max(ctx.mem_mb, 8192) if ctx.mem_mb else 0
        self.cmds, self.err, self.out = [], "", ""
        self.cls, self.note = "ok", ""

    def _env(self, fault):
        env = dict(self.env)
        env.update(fault or {})
        return env

    def _shown(self, cmd, env):
        """The command as failures/<case>/cmd.sh shows it: with the fake's
        variables, paths relative to the case directory (cmd.sh runs in its
        copy, which holds the fake; remove fakeslurm/state, state and the
        dataset to start afresh)."""
        rel = lambda a: a.replace(self.d + os.sep, "")
        return ["env"] + ["%s=%s" % (k, rel(v)) for k, v in sorted(env.items())] + \
            [rel(a) for a in cmd]

    def run(self, cmd, expect, fault=None, tag="step"):
        """Runs `cmd` (with the fault's variables); a _Verdict unless it ends
        as `expect` allows; its Res."""
        env = self._env(fault)
        self.cmds.append(self._shown(cmd, env))
        res = run(cmd, self.d, self.timeout, self.mem, env=env, tag=tag)
        self.err += "==== %s: exit %s after %.1f s\n%s" % (tag, res.rc, res.secs,
                                                           res.err)
        self.out += res.out
        cls, note = judge(res, expect)
        lost = GAVE_UP_RE.search(res.err)
        if lost and cls in ("ok", "error", "silent-wrong") and \
                "giving up its measurements" not in res.err:
            # A task is only finished by its .done marker, written once its
            # shard holds all its records: what did not come back was given
            # up, or a marker lied.
            raise _Verdict("data", "%s: \"%s\", though no array task was "
                           "given up" % (tag, lost.group(0)))
        if cls not in ("ok", "error"):
            raise _Verdict(cls, "%s: %s" % (tag, note))
        self.cls, self.note = cls, note
        return res

    def start(self, cmd, until, fault=None, tag="first"):
        """Starts `cmd` in the background and returns it once `until()`
        holds, it ended, or the step's timeout passed."""
        env = self._env(fault)
        self.cmds.append(self._shown(cmd, env))
        errp = os.path.join(self.d, tag + ".stderr")
        full = dict(os.environ)
        full.update(env)
        with open(errp, "wb") as fe:
            p = subprocess.Popen(cmd, cwd=self.d, stdout=subprocess.DEVNULL,
                                 stderr=fe, start_new_session=True, env=full,
                                 preexec_fn=ir_fuzz.child_limits(self.mem))
        t0 = time.time()
        while p.poll() is None and not until() and time.time() - t0 < self.timeout:
            time.sleep(0.02)
        p.tag, p.errp = tag, errp
        return p

    def stop(self, p, sig):
        """Stops a started driver with `sig` (SIGKILL: its whole process
        group, the fake's array tasks are not in it; another signal: the
        driver alone, as Ctrl-C does); its exit status (None: killed)."""
        if not _signal_and_wait(p, sig, self.timeout):
            self.err += _read(p.errp)
            raise _Verdict("hang", "%s: no exit after %s" % (p.tag, sig.name))
        err = _read(p.errp)
        self.err += "==== %s: exit %s after %s\n%s" % (p.tag, p.returncode,
                                                      sig.name, err)
        return p.returncode, err

    # Checks: each raises a _Verdict when it fails.

    def says(self, res, *texts):
        for t in texts:
            if t not in res.err:
                raise _Verdict("silent-wrong", "the message does not say %r: %s"
                               % (t, _last_line(res.err)))

    def submitted(self, n):
        jobs = _fs_jobs(self.d)
        if len(jobs) != n:
            raise _Verdict("silent-wrong", "%d job(s) submitted, %d due" % (
                len(jobs), n))

    def keys(self, complete=True, name="d.jsonl"):
        """The dataset holds the local run's keys (a subset without
        `complete`), each once; its number of keys."""
        recs, _ = _dataset(self.d, name)
        keys = collections.Counter(r["key"] for r in recs)
        dup = [k for k, c in keys.items() if c > 1]
        if dup:
            raise _Verdict("data", "%d key(s) recorded twice, e.g. %s" % (
                len(dup), dup[0][:100]))
        want = {r["key"] for r in _dataset(*os.path.split(
            self.ctx.setup("slurm_local")))[0]}
        extra = sorted(set(keys) - want)
        if extra:
            raise _Verdict("data", "%d key(s) the plan does not have, e.g. %s"
                           % (len(extra), extra[0][:100]))
        if complete and len(keys) != len(want):
            raise _Verdict("data", "%d of the %d keys of a local run recorded"
                           % (len(keys), len(want)))
        for r in recs:
            t = (r.get("time_s") or {}).get("median")
            if r.get("status") == "ok" and not (isinstance(t, (int, float))
                                                and t > 0):
                raise _Verdict("silent-wrong", "record ok with time %r" % (t,))
        return len(keys)

    def gave_up(self, res):
        """A run that gave measurements up: exit 1, says how many of how
        many (exactly those missing from the dataset), not "interrupted"."""
        n = self.keys(complete=False)
        m = GAVE_UP_RE.search(res.err)
        if res.rc != 1 or not m:
            raise _Verdict("silent-wrong", "exit %s without \"N of M "
                           "measurements did not come back\"" % res.rc)
        missing, total = int(m.group(1)), int(m.group(2))
        if "interrupted" in res.err:
            raise _Verdict("silent-wrong", "a run that gave measurements up "
                           "says \"interrupted\"")
        if not missing or n != total - missing:
            raise _Verdict("data", "%d of %d measurements reported missing, %d "
                           "keys recorded" % (missing, total, n))

    def finished_not_resubmitted(self):
        """No array task submitted while its shard was marked done: a
        resubmission of a finished task, or a new batch over an old one's
        markers (whose shards it would take for its own)."""
        for j in _fs_jobs(self.d):
            if j.get("done") and j.get("fresh"):
                raise _Verdict("data", "new batch (job %s) submitted beside "
                               "the .done markers of task(s) %s" % (
                                   j["job"], j["done"]))
            if j.get("done"):
                raise _Verdict("silent-wrong", "job %s resubmitted task(s) %s "
                               "after they had finished" % (j["job"], j["done"]))

    def task_crashes(self):
        """No array task's log with a crash signature."""
        for log in glob.glob(os.path.join(self.d, "state", "*", "logs", "*")):
            text = _read(log)
            if any(m in text for m in ir_fuzz.CRASH_MARKERS):
                raise _Verdict("crash-sptune", "an array task crashed: %s (%s)"
                               % (_last_line(text), os.path.basename(log)))


def _slurm_case(name, scenario, quick=False, timeout=None, without=(),
                expect="any"):
    """A case that runs `scenario(s)` on a fake Slurm (s: _SlurmRun); the
    fake's array tasks are killed afterwards, whatever happened."""
    def runner(case, d, ctx):
        s = _SlurmRun(case, d, ctx, without)
        t0 = time.time()
        try:
            scenario(s)
            s.task_crashes()
            cls, note = s.cls, s.note
        except _Verdict as v:
            cls, note = v.cls, v.note
        finally:
            _fs_cancel(d)
        return Outcome(cls, note, s.err, s.out, s.cmds, time.time() - t0)
    return Case("slurm", name, runner=runner, quick=quick, timeout=timeout,
                expect=expect)


def _records_in(path):
    return lambda: _count_lines(path) >= 1


def gen_slurm(ctx, rng):
    """sptune-collect and sptune-learn --backend slurm on a fake Slurm
    (FAKE_SLURM): options refused before anything is submitted, sbatch and
    squeue missing, failing, printing garbage or hanging, array tasks that
    fail, are preempted or cancelled, a driver killed and run again. A run
    that completes must end with a local run's keys, each once; one that
    gives measurements up must say how many, with exit status 1."""
    E, O = "error", "ok"
    cases = []
    collect = lambda extra: lambda ctx: _slurm_collect(ctx, extra)
    learn = lambda extra: lambda ctx: _slurm_learn(ctx, extra)

    def refused(cmd, text):
        def scenario(s):
            res = s.run(cmd(s.ctx), E)
            s.says(res, text)
            s.submitted(0)
            if _dataset(s.d)[0]:
                raise _Verdict("silent-wrong", "records written")
        return scenario
    # Options out of range: refused before anything is submitted.
    tasks = "--slurm-tasks must be in [1, 100000]"
    poll = "--slurm-poll must be in [0.2, 60] seconds"
    limit = "--slurm-command-timeout must be in [1, 3600] seconds"
    retries = "--slurm-max-retries must be at most 100"
    opts = [(["--slurm-tasks", "0"], tasks), (["--slurm-tasks", "100001"], tasks),
            (["--slurm-tasks=-1"], "slurm-tasks"),
            (["--slurm-poll", "nan"], poll), (["--slurm-poll", "0.1"], poll),
            (["--slurm-poll", "61"], poll), (["--slurm-poll", "inf"], poll),
            (["--slurm-poll=-1"], poll),
            (["--slurm-max-retries", "1000"], retries),
            (["--slurm-max-retries", "101"], retries),
            (["--slurm-command-timeout", "0"], limit),
            (["--slurm-command-timeout", "4000"], limit),
            (["--backend", "nosuch"], "unknown backend 'nosuch'"),
            (["--backend", ""], "unknown backend ''")]
    for tool, make in [("collect", collect), ("learn", learn)]:
        for extra, text in opts:
            cases.append(_slurm_case(
                "options/%s %s" % (tool, " ".join(extra)),
                refused(make(extra), text), expect=E, timeout=60,
                quick=(tool, extra[-1]) in (("collect", "nan"),
                                            ("learn", "4000"))))
    # Tools missing from PATH.
    for tool, missing in [("collect", "sbatch"), ("collect", "squeue"),
                          ("learn", "sbatch")]:
        make = collect([]) if tool == "collect" else learn([])
        cases.append(_slurm_case(
            "tools/%s without %s" % (tool, missing),
            refused(make, "'%s' not found" % missing), expect=E, timeout=60,
            without=(missing,), quick=(tool, missing) == ("collect", "sbatch")))

    # sbatch faults: an error with sbatch's own message, nothing recorded.
    def sbatch_fault(fault, texts, extra=(), within=None):
        def scenario(s):
            res = s.run(_slurm_collect(s.ctx, extra), E, fault)
            s.says(res, *texts)
            if _dataset(s.d)[0]:
                raise _Verdict("silent-wrong", "records written")
            if within and res.secs > within:
                raise _Verdict("hang", "ended after %.0f s (over %d s)" % (
                    res.secs, within))
        return scenario
    for name, fault, texts, extra, quick in [
            ("fails", {"FAKE_SBATCH_MODE": "fail"},
             ["sbatch failed (exit 1)", "Invalid partition name specified"], (), True),
            ("prints garbage", {"FAKE_SBATCH_MODE": "garbage"},
             ["sbatch printed no job id: 'Submitted batch job'"], (), False),
            ("prints nothing", {"FAKE_SBATCH_MODE": "empty"},
             ["sbatch printed no job id"], (), False),
            ("hangs", {"FAKE_SBATCH_MODE": "hang"},
             ["sbatch did not return within 2 s"],
             ("--slurm-command-timeout", "2"), True)]:
        cases.append(_slurm_case("sbatch/" + name,
                                 sbatch_fault(fault, texts, extra, within=30),
                                 expect=E, timeout=60, quick=quick))

    def then_rerun(fault, first_texts, extra=(), settle=False):
        """A first run with the fault ends with an error; the same command
        without it then ends with the local run's keys."""
        def scenario(s):
            cmd = _slurm_collect(s.ctx, extra)
            res = s.run(cmd, E, fault, tag="faulty")
            s.says(res, *first_texts)
            s.keys(complete=False)
            if settle:  # an orphan job: let it end first
                _fs_wait(s.d, s.timeout)
            res = s.run(cmd, O, tag="rerun")
            s.keys()
            s.finished_not_resubmitted()
        return scenario
    cases.append(_slurm_case(
        "sbatch/fails on resubmission, then rerun",
        then_rerun({"FAKE_TASK_FAIL": "1", "FAKE_SBATCH_FAIL_FROM": "2"},
                   ["resubmitting 1 failed or missing array task(s)",
                    "Invalid partition name specified"])))
    cases.append(_slurm_case(
        "sbatch/submits but fails, then rerun",
        then_rerun({"FAKE_SBATCH_MODE": "submit-then-fail"},
                   ["Socket timed out"], settle=True)))

    def orphan(s):
        """sbatch submits the array but says it failed: a job the driver
        does not know of (docs/cluster.md: "its records are not read"),
        still running when the same command is run again. Its tasks'
        workers wait 6 s first (FAKE_WORKER_DELAY is in the first run's
        environment only, which its tasks inherit), so that they still
        measure into the old state/batch when the rerun replaces it. The
        rerun must end with the local run's keys."""
        worker = os.path.join(s.d, "worker")
        with open(worker, "w") as f:
            f.write('#!/bin/sh\n[ -n "$FAKE_WORKER_DELAY" ] && sleep '
                    '"$FAKE_WORKER_DELAY"\nexec %s "$@"\n'
                    % shlex.quote(s.ctx.tool("sptune-measure")))
        os.chmod(worker, 0o755)
        cmd = _slurm_collect(s.ctx, ["--worker-exe", worker])
        res = s.run(cmd, E, {"FAKE_SBATCH_MODE": "submit-then-fail",
                             "FAKE_WORKER_DELAY": "6"}, tag="faulty")
        s.says(res, "Socket timed out")
        # Until the orphan's first two tasks have opened their shards.
        t0 = time.time()
        while time.time() - t0 < 30 and not (
                _batch_file(s.d, "shard-0.jsonl") and
                _batch_file(s.d, "shard-1.jsonl")):
            time.sleep(0.05)
        s.run(cmd, O, tag="rerun")
        s.keys()
        s.finished_not_resubmitted()
    cases.append(_slurm_case(
        "sbatch/submits but fails, rerun while its tasks run", orphan))

    # squeue faults.
    def squeue_fault(fault, texts, extra):
        """squeue never answers: nothing is read back (a task's records are
        only taken after an answer), the error says why."""
        def scenario(s):
            res = s.run(_slurm_collect(s.ctx, extra), E, fault)
            s.says(res, *texts)
            if _dataset(s.d)[0]:
                raise _Verdict("silent-wrong", "records taken without an "
                               "answer of squeue")
        return scenario
    cases.append(_slurm_case(
        "squeue/fails always", squeue_fault(
            {"FAKE_SQUEUE_MODE": "fail"},
            ["squeue failed (exit 1)", "Unable to contact slurm controller"],
            ["--slurm-poll", "0.2", "--slurm-command-timeout", "1"]),
        expect=E, quick=True, timeout=60))
    cases.append(_slurm_case(
        "squeue/hangs", squeue_fault(
            {"FAKE_SQUEUE_MODE": "hang"},
            ["squeue did not return within 1 s"],
            ["--slurm-poll", "0.2", "--slurm-command-timeout", "1"]),
        expect=E, timeout=60))
    cases.append(_slurm_case(
        "squeue/fails always, then rerun",
        then_rerun({"FAKE_SQUEUE_MODE": "fail"}, ["squeue failed"],
                   ["--slurm-poll", "0.2"])))

    def completes(fault=None, extra=(), texts=(), resubmits=None, rerun=False):
        """One run with the fault ends with the local run's keys; with
        `resubmits`, so many jobs were submitted in all."""
        def scenario(s):
            cmd = _slurm_collect(s.ctx, extra)
            res = s.run(cmd, O, fault)
            s.says(res, *texts)
            s.keys()
            s.finished_not_resubmitted()
            if resubmits is not None:
                s.submitted(resubmits)
            if rerun:
                res = s.run(cmd, O, tag="rerun")
                s.says(res, "0 to do")
                s.keys()
        return scenario
    cases.append(_slurm_case("squeue/fails 3 times, then answers", completes(
        {"FAKE_SQUEUE_FAIL_FIRST": "3"}, ["--slurm-poll", "0.2"],
        ["squeue failed (exit 1)", "retrying"], resubmits=1)))
    cases.append(_slurm_case("squeue/lists nothing once", completes(
        {"FAKE_SQUEUE_EMPTY_FIRST": "1"}, texts=["resubmitting 4"])))

    # Happy paths: the local run's keys, each once.
    for name, extra, jobs in [("4 tasks", [], 1),
                              ("1 task, poll 0.2", ["--slurm-tasks", "1",
                                                    "--slurm-poll", "0.2"], 1),
                              ("100 tasks for 8 measurements",
                               ["--slurm-tasks", "100"], 1),
                              ("max-retries 100, command-timeout 3600, shared",
                               ["--slurm-max-retries", "100",
                                "--slurm-command-timeout", "3600",
                                "--slurm-shared"], 1)]:
        cases.append(_slurm_case("run/" + name, completes(
            extra=extra, resubmits=jobs, rerun=name == "4 tasks")))

    # Array tasks that fail or are preempted.
    cases.append(_slurm_case("task/task 1 fails once", completes(
        {"FAKE_TASK_FAIL": "1"}, texts=["resubmitting 1 failed"], resubmits=2)))
    cases.append(_slurm_case("task/every task fails once", completes(
        {"FAKE_TASK_FAIL": "all"}, texts=["resubmitting 4 failed"],
        resubmits=2)))
    cases.append(_slurm_case("task/every task preempted once", completes(
        {"FAKE_TASK_KILL": "all", "FAKE_TASK_KILL_AFTER": "0.5"},
        texts=["resubmitting"])))

    def given_up(fault, extra, attempts):
        """Task 1 fails every attempt: given up after `attempts`; exit 1
        with the number missing; a rerun without the fault completes."""
        def scenario(s):
            cmd = _slurm_collect(s.ctx, extra)
            res = s.run(cmd, E, fault, tag="faulty")
            s.gave_up(res)
            s.says(res, "array task 1 of")
            runs = sum(1 for j in _fs_jobs(s.d) if 1 in j["tasks"])
            if runs != attempts:
                raise _Verdict("silent-wrong", "task 1 submitted %d time(s), "
                               "%d due" % (runs, attempts))
            res = s.run(cmd, O, tag="rerun")
            s.keys()
        return scenario
    cases.append(_slurm_case("task/task 1 fails, max-retries 0, then rerun",
                             given_up({"FAKE_TASK_FAIL": "1"},
                                      ["--slurm-max-retries", "0"], 1)))
    cases.append(_slurm_case("task/task 1 fails always, then rerun",
                             given_up({"FAKE_TASK_FAIL": "1",
                                       "FAKE_TASK_FAIL_ATTEMPTS": "99"}, [], 3)))
    cases.append(_slurm_case("task/every task preempted always, then rerun",
                             given_up({"FAKE_TASK_KILL": "all",
                                       "FAKE_TASK_KILL_ATTEMPTS": "99"},
                                      ["--slurm-max-retries", "1"], 2)))

    # The array cancelled (scancel) once a record is in: resubmitted.
    def cancelled(s):
        cmd = _slurm_collect(s.ctx)
        p = s.start(cmd, _records_in(os.path.join(s.d, "d.jsonl")))
        _fs_cancel(s.d)
        try:
            p.wait(timeout=s.timeout)
        except subprocess.TimeoutExpired:
            _killpg(p)
            s.err += _read(p.errp)
            raise _Verdict("hang", "the driver did not end after its jobs "
                           "were cancelled")
        err = _read(p.errp)
        s.err += "==== first: exit %s\n%s" % (p.returncode, err)
        res = Res(p.returncode, "", err, 0, cmd)
        cls, note = judge(res)
        if cls not in ("ok", "error"):
            raise _Verdict(cls, "first: " + note)
        if p.returncode == 0:
            s.keys()
        elif not GAVE_UP_RE.search(err):
            raise _Verdict("silent-wrong", "after a cancel: exit %s without "
                           "saying what did not come back" % p.returncode)
        s.finished_not_resubmitted()
        res = s.run(cmd, O, tag="rerun")
        s.keys()
        s.finished_not_resubmitted()
    cases.append(_slurm_case("cancel/scancel after the first record, rerun",
                             cancelled))

    # The driver killed (or interrupted) and run again.
    def killed(sig, when, cancel=False, fault=None):
        def scenario(s):
            cmd = _slurm_collect(s.ctx)
            if when == "submitted":
                until = lambda: bool(_batch_file(s.d, "state.json"))
            elif when == "sbatch":
                until = lambda: os.path.exists(_fs(s.d, "sbatch-calls"))
            else:
                until = _records_in(os.path.join(s.d, "d.jsonl"))
            p = s.start(cmd, until, fault)
            if p.poll() is not None:
                raise _Verdict("probe-error", "the driver ended (exit %s) "
                               "before it could be stopped" % p.returncode)
            if when == "sbatch":
                time.sleep(0.3)
            rc, err = s.stop(p, sig)
            if sig != signal.SIGKILL and (rc != 130 or "interrupted" not in err):
                raise _Verdict("silent-wrong", "exit %s after %s (130 and "
                               "\"interrupted\" due)" % (rc, sig.name))
            if cancel:
                _fs_cancel(s.d)
            jobs = len(_fs_jobs(s.d))
            res = s.run(cmd, O, tag="rerun")
            s.keys()
            s.finished_not_resubmitted()
            if when != "sbatch":
                s.says(res, "re-attaching the batch")
            if not cancel and len(_fs_jobs(s.d)) != max(jobs, 1):
                raise _Verdict("silent-wrong", "the rerun submitted %d job(s) "
                               "though every task of the first was running or "
                               "done" % (len(_fs_jobs(s.d)) - jobs))
        return scenario
    cases.append(_slurm_case("kill/SIGKILL after the first submission, rerun",
                             killed(signal.SIGKILL, "submitted")))
    cases.append(_slurm_case("kill/SIGKILL after the first record, jobs "
                             "cancelled, rerun",
                             killed(signal.SIGKILL, "record", cancel=True)))
    cases.append(_slurm_case("kill/SIGKILL while sbatch hangs, rerun",
                             killed(signal.SIGKILL, "sbatch",
                                    fault={"FAKE_SBATCH_MODE": "hang"})))
    cases.append(_slurm_case("kill/SIGTERM after the first submission, rerun",
                             killed(signal.SIGTERM, "submitted")))

    # sptune-learn's live oracle on the fake Slurm.
    def learned(s, res):
        rounds = []
        try:
            rounds = [r.get("round") for r in _learn_rounds(
                os.path.join(s.d, "learn", "rounds.jsonl"))]
        except (OSError, ValueError):
            pass
        if not rounds or rounds != list(range(1, len(rounds) + 1)):
            raise _Verdict("data", "rounds.jsonl rounds %s" % rounds)
        if not os.path.isfile(os.path.join(s.d, "learn", "final.pt")):
            raise _Verdict("data", "no final model")
        recs, _ = _dataset(os.path.join(s.d, "learn"), "measurements.jsonl")
        keys = collections.Counter(r["key"] for r in recs)
        dup = [k for k, c in keys.items() if c > 1]
        if dup:
            raise _Verdict("data", "%d measurement(s) recorded twice, e.g. %s"
                           % (len(dup), dup[0][:100]))
        if not recs or not _fs_jobs(s.d):
            raise _Verdict("silent-wrong", "%d measurement(s), %d job(s) "
                           "submitted" % (len(recs), len(_fs_jobs(s.d))))

    def learn_run(fault=None, extra=(), kill=False, expect=O):
        def scenario(s):
            cmd = _slurm_learn(s.ctx, extra)
            if kill:
                p = s.start(cmd, lambda: bool(_batch_file(s.d, "state.json")))
                if p.poll() is not None:
                    raise _Verdict("probe-error", "sptune-learn ended (exit %s) "
                                   "before it could be killed" % p.returncode)
                s.stop(p, signal.SIGKILL)
            res = s.run(cmd, expect, fault)
            if "interrupted" in res.err:
                raise _Verdict("silent-wrong", "says \"interrupted\"")
            if res.rc == 0:
                learned(s, res)
        return scenario
    cases.append(_slurm_case("learn/live, 2 rounds", learn_run()))
    cases.append(_slurm_case("learn/task 1 fails once",
                             learn_run({"FAKE_TASK_FAIL": "1"})))
    cases.append(_slurm_case("learn/SIGKILL after the first submission, rerun",
                             learn_run(kill=True)))
    cases.append(_slurm_case("learn/every task fails always",
                             learn_run({"FAKE_TASK_FAIL": "all",
                                        "FAKE_TASK_FAIL_ATTEMPTS": "999"},
                                       ["--slurm-max-retries", "0"],
                                       expect=E)))
    cases.append(_slurm_case("learn/task 1 fails, max-retries 0",
                             learn_run({"FAKE_TASK_FAIL": "1"},
                                       ["--slurm-max-retries", "0"],
                                       expect="any")))
    return cases


# ----------------------------------------------------------------------------
# The driver
# ----------------------------------------------------------------------------

def generate(ctx, quick):
    rng = lambda area: random.Random("probe:%s:%d" % (area, ctx.seed))
    cases = []
    cases += gen_matrix(ctx, rng("matrix"))
    cases += gen_opt_ir(ctx, rng("opt-ir"), 470, 60)
    cases += gen_opt_schedules(ctx, rng("opt-sched"), 170)
    cases += gen_opt_options(ctx, rng("opt-options"))
    cases += gen_opt_programs(ctx)
    cases += gen_measure(ctx, rng("measure"))
    cases += gen_collect(ctx, rng("collect"))
    cases += gen_train(ctx, rng("train"))
    cases += gen_spade(ctx, rng("spade"))
    cases += gen_db(ctx, rng("db"))
    cases += gen_learn(ctx, rng("learn"))
    cases += gen_python(ctx, rng("python"))
    cases += gen_slurm(ctx, rng("slurm"))
    if quick:
        cases = [c for c in cases if c.quick]
    for n, c in enumerate(cases):
        c.id = n
    return cases


def _materialize(case, d, ctx):
    for name, content in case.files.items():
        p = os.path.join(d, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if callable(content):
            content = content(ctx)
        mode = "wb" if isinstance(content, bytes) else "w"
        with open(p, mode) as f:
            f.write(content)
        if name in ("worker",):
            os.chmod(p, 0o755)
    if case.cmd:
        case.cmd = [a.replace("{python}", ctx.python) for a in case.cmd]


def run_case(case, ctx):
    d = os.path.join(ctx.scratch, "case-%d" % case.id)
    os.makedirs(d, exist_ok=True)
    t0 = time.time()
    try:
        _materialize(case, d, ctx)
        out = (case.runner or default_runner)(case, d, ctx)
    except Exception as e:  # noqa: BLE001 - the probe's own failure
        import traceback
        out = Outcome("probe-error", "%s: %s" % (type(e).__name__, e),
                      traceback.format_exc())
    out.secs = time.time() - t0
    return case, d, out


def save_failure(out_dir, case, d, outcome):
    name = "%s-%d" % (case.area, case.id)
    f = os.path.join(out_dir, "failures", name)
    shutil.rmtree(f, ignore_errors=True)
    shutil.copytree(d, f, symlinks=True, ignore=shutil.ignore_patterns(
        "*.so", "spade-out"), dirs_exist_ok=True)
    with open(os.path.join(f, "cmd.sh"), "w") as fh:
        fh.write("#!/bin/sh\n# sptune probe case %d [%s] %s\n# class: %s\n# %s\n"
                 % (case.id, case.area, case.name, outcome.cls, outcome.note))
        fh.write("# expected: %s\n" % case.expect)
        fh.write('cd "$(dirname "$0")"\n')
        for cmd in outcome.cmds or []:
            fh.write(" ".join(shlex.quote(a) for a in cmd) +
                     (" < stdin.txt" if case.stdin is not None else "") + "\n")
    if case.stdin is not None:
        with open(os.path.join(f, "stdin.txt"), "w") as fh:
            fh.write(case.stdin)
    with open(os.path.join(f, "stderr.txt"), "w") as fh:
        fh.write(outcome.err[-200000:])
    with open(os.path.join(f, "stdout.txt"), "w") as fh:
        fh.write(outcome.out[-200000:])


def table(counts):
    cols = CLASSES
    head = "| area | cases | " + " | ".join(cols) + " |"
    sep = "|---" * (len(cols) + 2) + "|"
    rows = [head, sep]
    total = collections.Counter()
    for a in AREAS:
        c = counts.get(a, collections.Counter())
        n = sum(c.values())
        if not n:
            continue
        total.update(c)
        rows.append("| %s | %d | %s |" % (a, n, " | ".join(str(c[k]) for k in cols)))
    rows.append("| **total** | %d | %s |" % (sum(total.values()),
                                             " | ".join(str(total[k]) for k in cols)))
    return "\n".join(rows), total


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m sptune.probe",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", help="write summary.json, counts.md and failures/ here")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true",
                    help="a small fixed slice of every area (about a minute)")
    ap.add_argument("--jobs", type=int, default=2, help="cases run at once")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds per case step (default 60)")
    ap.add_argument("--mem-limit-mb", type=int, default=4096,
                    help="address-space limit of each run (0 = none)")
    ap.add_argument("--area", action="append", choices=AREAS,
                    help="only these areas (repeatable)")
    ap.add_argument("--only", help="only cases whose name contains this text")
    ap.add_argument("--list", action="store_true", help="print every case's class")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = ap.parse_args(argv)

    if not os.path.isfile(os.path.join(args.build, "bin", "sptune-opt")):
        print("probe: no sptune-opt in %s/bin" % args.build, file=sys.stderr)
        return 2
    ctx = Ctx(args)
    t0 = time.time()
    cases = generate(ctx, args.quick)
    if args.area:
        cases = [c for c in cases if c.area in args.area]
    if args.only:
        cases = [c for c in cases if args.only in c.name]
    print("probe: %d cases generated in %.0f s" % (len(cases), time.time() - t0),
          file=sys.stderr, flush=True)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        shutil.rmtree(os.path.join(args.out, "failures"), ignore_errors=True)
    counts = collections.defaultdict(collections.Counter)
    findings = []
    slow = []
    t1 = time.time()
    last = t1
    done = 0
    try:
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            futs = [pool.submit(run_case, c, ctx) for c in cases]
            for fut in concurrent.futures.as_completed(futs):
                case, d, out = fut.result()
                done += 1
                counts[case.area][out.cls] += 1
                slow.append((out.secs, case.area, case.name))
                if args.list:
                    print("case %d [%s] %s: %s %s (%.1fs)" % (
                        case.id, case.area, case.name, out.cls, out.note, out.secs),
                        flush=True)
                if out.cls not in ("ok", "error"):
                    findings.append({"id": case.id, "area": case.area,
                                     "name": case.name, "class": out.cls,
                                     "note": out.note, "expect": case.expect,
                                     "seconds": round(out.secs, 2)})
                    if args.out:
                        save_failure(args.out, case, d, out)
                shutil.rmtree(d, ignore_errors=True)
                now = time.time()
                if now - last > 10 or done == len(cases):
                    last = now
                    rate = done / max(now - t1, 1e-9)
                    bad = sum(c[k] for c in counts.values() for k in FAILING)
                    print("probe: %d/%d cases, %.2f cases/s, ETA %.0f s, %d "
                          "finding(s)" % (done, len(cases), rate,
                                          (len(cases) - done) / max(rate, 1e-9),
                                          bad), file=sys.stderr, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(ctx.scratch, ignore_errors=True)
    seconds = time.time() - t0
    text, total = table(counts)
    findings.sort(key=lambda f: f["id"])
    summary = {"seed": args.seed, "quick": args.quick, "build": ctx.build,
               "jobs": args.jobs, "timeout_s": args.timeout,
               "seconds": round(seconds, 1), "cases": len(cases),
               "areas": {a: dict(counts[a]) for a in AREAS if counts[a]},
               "total": dict(total), "findings": findings,
               "slowest": [{"seconds": round(s, 1), "area": a, "name": n}
                           for s, a, n in sorted(slow, reverse=True)[:15]]}
    if args.out:
        with open(os.path.join(args.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=1)
        with open(os.path.join(args.out, "counts.md"), "w") as f:
            f.write(text + "\n")
    print(text)
    for fd in findings:
        print("finding %d [%s] %s: %s %s" % (fd["id"], fd["area"], fd["name"],
                                             fd["class"], fd["note"]))
    print("seconds: %.0f" % seconds)
    print("total cases: %d" % len(cases))
    for k in CLASSES + ["probe-error"]:
        print("total %s: %d" % (k, total[k]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
