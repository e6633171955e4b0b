"""Running sptune's executables from Python.

A tool that fails is a `ToolError` carrying the tool's own diagnostics (the
`error:` lines of an MLIR tool, else the end of its stderr), so that a
command-line front end can print one clear message instead of a traceback.
"""

import os
import re
import subprocess

from sptune import tools
from sptune.errors import SptuneError


_LOCATION = re.compile(r"^\S*:\d+:\d+: (?=error: )")


class ToolError(SptuneError):
    """An sptune executable failed (or could not be found)."""


def executable(name, bindir=None):
    """The path of sptune executable `name`: in `bindir` when given (the
    `--build DIR` of older scripts gives DIR/bin), else where `sptune.tools`
    finds it (SPTUNE_BIN, the build tree, an installed prefix, the PATH)."""
    if bindir:
        return os.path.join(bindir, name)
    try:
        return tools.tool(name)
    except tools.ToolNotFound as e:
        raise ToolError(str(e)) from None


def diagnostics(stderr, limit=5):
    """The lines of `stderr` worth showing: MLIR `error:` diagnostics (without
    the source excerpt under them), else its last non-empty lines."""
    lines = [l.rstrip() for l in stderr.splitlines() if l.strip()]
    # "FILE:LINE:COL: error: ..." -> "error: ..." (FILE is often a temporary).
    errors = [_LOCATION.sub("", l) for l in lines if "error: " in l]
    picked = errors if errors else lines[-limit:]
    return "\n".join(picked[:limit])


def run(cmd, what=None, timeout=None):
    """Runs `cmd` (a list), returning the CompletedProcess; raises ToolError
    with `what` (default: the executable's name) and its diagnostics when it
    cannot start, times out or exits non-zero."""
    what = what or os.path.basename(cmd[0])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise ToolError(f"{what}: cannot run '{cmd[0]}' (not found)") from None
    except PermissionError:
        raise ToolError(f"{what}: cannot run '{cmd[0]}' (not executable)") from None
    except subprocess.TimeoutExpired:
        raise ToolError(f"{what}: timed out after {timeout} s") from None
    if p.returncode != 0:
        detail = diagnostics(p.stderr) or f"exit status {p.returncode}"
        raise ToolError(f"{what} failed (exit status {p.returncode}):\n{detail}")
    return p


# glibc keeping the memory a program frees (GLIBC_TUNABLES): without it, the
# page faults of buffers a kernel re-allocates on every call dominate the
# times of large outputs, and benches compare allocators, not kernels.
STEADY_MALLOC = ("glibc.malloc.trim_threshold=4294967296:"
                 "glibc.malloc.mmap_threshold=4294967296")


def machine():
    """The CPU model (as /proc/cpuinfo names it) and the core count."""
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as fh:
            model = next((l.split(":", 1)[1].strip() for l in fh
                          if l.startswith("model name")), model)
    except OSError:
        pass
    return {"cpu": model, "cores": os.cpu_count()}
