"""sptune-measure from Python: one schedule or baseline on one matrix.

A measurement is sptune-measure's JSON result (`status`, `reason`,
`time_s` {median, min, max, mad, reps}, `matrix`, `cycles` for simulated
targets); a run that printed none becomes {"status": "error", "reason": ...}.
"""

import json
import subprocess

from sptune.run import diagnostics, executable

# The baselines worth comparing a tuned schedule with, per target and kernel
# (sptune-measure --help lists them all).
BASELINES = {
    "cpu": {"spmm": ["mlir-default", "heuristic", "eigen", "reference"],
            "sddmm": ["mlir-default", "heuristic", "reference"],
            "spmv": ["mlir-default", "heuristic", "eigen", "reference"]},
    "nvvm": {k: ["heuristic", "cusparse"] for k in ("spmm", "sddmm", "spmv")},
    "spade": {k: ["heuristic"] for k in ("spmm", "sddmm", "spmv")},
}


def default_baselines(target, kernel):
    return list(BASELINES.get(target, {}).get(kernel, ["heuristic"]))


def measure(matrix, kernel, free, min_seconds=0.2, schedule=None, baseline=None,
            target=None, transposed_b=False, min_reps=None, tool=None, timeout=None):
    """Measures `schedule` (printed form) or `baseline` (of `target`) for
    `kernel` on `matrix`; returns the result dict (never raises for a
    failed measurement: its status says what happened)."""
    cmd = [tool or executable("sptune-measure"), "--matrix", matrix, "--kernel", kernel,
           "--free", str(free), "--min-seconds", str(min_seconds)]
    if min_reps:
        cmd += ["--min-reps", str(min_reps)]
    if transposed_b:
        cmd.append("--sddmm-b-transposed")
    if schedule:
        cmd += ["--schedule", schedule]
    else:
        cmd += ["--baseline", baseline]
        if target:
            cmd += ["--target", target]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "reason": f"sptune-measure timed out after {timeout} s"}
    except OSError as e:
        return {"status": "error", "reason": f"cannot run sptune-measure: {e}"}
    lines = p.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (json.JSONDecodeError, IndexError):
        return {"status": "error",
                "reason": diagnostics(p.stderr) or f"sptune-measure exit status {p.returncode}"}


def seconds(result):
    """Median seconds of a successful measurement, else None."""
    if not result or result.get("status") != "ok":
        return None
    t = (result.get("time_s") or {}).get("median")
    return t if t and t > 0 else None
