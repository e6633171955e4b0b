#!/usr/bin/python3
"""The sparse ⊙ dense product into sparse storage, C = A ⊙ B stored like A:
what sptune's schedules give over MLIR's default code (issue 33).

Every measurement is of the user's op as written (the kernel's descriptor
travels with the request: a CSR result of the same pattern as A), in one
`sptune-measure --worker` run per round, checked against the reference:

  - `mlir-default`: upstream's sparsifier on the op as written (a fresh
    sparse result, filled by insertion, sequential);
  - `heuristic`: the CPU heuristic's schedule for the matrix (on row-major
    storage sptune computes it in place on a copy of A, in parallel);
  - the hand-written schedules of --schedule NAME=SCHEDULE (default: the
    same in place with 8 lanes, and column-major storage, which inserts).

Rounds are interleaved (every schedule of every matrix once per round) and
the median over rounds is kept. The dense B has rows x cols entries, so
the matrices must be of moderate size (the worker refuses what exceeds its
memory budget).

    /usr/bin/python3 bench/hadamard-into-sparse.py --build build \\
        --json out.json MATRIX.mtx...
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys

DEFAULT_SCHEDULES = [
    "vl8=cpu hadamard, levels = [i : dense, j : compressed], order = [i, j], "
    "parallel = outer, vl = 8",
    "csc=cpu hadamard, levels = [j : dense, i : compressed], order = [j, i]",
]


def descriptor():
    """C(i, j) = A(i, j) * B(i, j), A CSR, C stored like A (f32)."""
    def operand(kind, levels):
        return {"kind": kind, "type": "f32", "dims": [0, 1], "levels": levels,
                "pos_width": 0, "crd_width": 0}
    csr = ["dense", "compressed"]
    return {"loops": [{"name": "i", "reduction": False, "size": -1},
                      {"name": "j", "reduction": False, "size": -1}],
            "operands": [operand("sparse", csr), operand("dense", []),
                         operand("sparse_output", csr)],
            "body": "elementwise product"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--min-seconds", type=float, default=0.2)
    ap.add_argument("--schedule", action="append", metavar="NAME=SCHEDULE",
                    help="a hand-written schedule to measure (repeatable)")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("matrices", nargs="+")
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    worker = os.path.join(args.build, "bin", "sptune-measure")
    if not os.access(worker, os.X_OK):
        ap.error(f"no sptune-measure in {args.build}/bin (build first)")
    for m in args.matrices:
        if not os.path.isfile(m):
            ap.error(f"no such matrix file: {m}")
    named = []
    for spec in args.schedule or DEFAULT_SCHEDULES:
        name, sep, schedule = spec.partition("=")
        if not sep or not name or not schedule.strip():
            ap.error(f"--schedule takes NAME=SCHEDULE, got '{spec}'")
        named.append((name, schedule.strip()))
    variants = [("mlir-default", "", "mlir-default"),
                ("heuristic", "", "heuristic")] + \
        [(name, schedule, "") for name, schedule in named]

    machine = json.loads(subprocess.run(
        [worker, "--machine"], check=True, capture_output=True,
        text=True).stdout)
    requests = []
    for m in args.matrices:
        for name, schedule, baseline in variants:
            requests.append((m, name, {
                "target": "cpu", "matrix": os.path.abspath(m),
                "kernel": "hadamard", "free": 1, "bits": 32,
                "schedule": schedule, "baseline": baseline,
                "options": {"warmups": 1, "min_reps": 5, "max_reps": 1000,
                            "min_seconds": args.min_seconds,
                            "timeout_s": 120, "check": True,
                            "tolerance": 1e-4},
                "descriptor": descriptor()}))
    times = {}  # (matrix, variant) -> [seconds per round]
    failures = {}
    for r in range(args.rounds):
        lines = [json.dumps(dict(q, id=n)) for n, (_, _, q) in enumerate(requests)]
        out = subprocess.run([worker, "--worker"], input="\n".join(lines) + "\n",
                             capture_output=True, text=True)
        answers = {}
        for line in out.stdout.splitlines():
            try:
                a = json.loads(line)
            except ValueError:
                continue
            if isinstance(a, dict) and "id" in a and "status" in a:
                answers[a["id"]] = a
        for n, (m, name, _) in enumerate(requests):
            a = answers.get(n)
            key = (m, name)
            if a is None or a["status"] != "ok":
                failures[key] = (a or {}).get("reason") or \
                    (a or {}).get("status") or "no answer (worker died)"
                continue
            times.setdefault(key, []).append(a["time_s"]["median"])
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)

    rows = []
    ratios = {name: [] for name, _, _ in variants[1:]}
    print(f"{'matrix':32} " + " ".join(f"{v[0]:>14}" for v in variants))
    for m in args.matrices:
        row = {"matrix": os.path.basename(m), "seconds": {}, "speedup": {},
               "failed": {}}
        for name, _, _ in variants:
            if (m, name) in failures:
                row["failed"][name] = failures[(m, name)]
            elif (m, name) in times:
                row["seconds"][name] = statistics.median(times[(m, name)])
        base = row["seconds"].get("mlir-default")
        for name, _, _ in variants[1:]:
            if base and name in row["seconds"]:
                row["speedup"][name] = base / row["seconds"][name]
                ratios[name].append(row["speedup"][name])
        rows.append(row)
        cells = []
        for name, _, _ in variants:
            if name == "mlir-default":
                cells.append(f"{base * 1e6:12.1f}us" if base else f"{'failed':>14}")
            else:
                s = row["speedup"].get(name)
                cells.append(f"{s:13.2f}x" if s else f"{'failed':>14}")
        print(f"{row['matrix']:32} " + " ".join(cells))
    summary = {name: math.exp(sum(map(math.log, v)) / len(v))
               for name, v in ratios.items() if v}
    print("geomean over mlir-default: " +
          ", ".join(f"{k} {v:.2f}x" for k, v in summary.items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"bench": "hadamard-into-sparse", "machine": machine,
                       "rounds": args.rounds,
                       "schedules": dict(named), "rows": rows,
                       "summary": {"geomean_speedup_over_mlir_default": summary}},
                      f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
