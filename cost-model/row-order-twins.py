#!/usr/bin/env python3
"""Requests measuring the CPU schedules of a dataset again with their rows
visited in reverse Cuthill-McKee order (`reorder = rcm`).

Issue 31's item 5: a knob the CPU source and SPADE share, so that a CPU base
model can say something of when SPADE's row reordering pays. The CPU's
reorder is out of the tuner's space (it lost everywhere on large matrices,
docs/results.md "Rows in another order"), so no collection samples it; this
writes, for every measured CPU schedule of DATASET that can visit its rows in
another order (cpu/CpuKnobs.h whyNotReorderable: a dense outer level of the
output's rows over compressed storage, outermost, no split; for SDDMM the sample updated
in place; not omp = balanced, which becomes OpenMP's dynamic chunks of 256
rows), its twin with `reorder = rcm`, as a request file for

    sptune-collect --run-requests FILE --task 0/1 --out OUT

(measured with the settings below: the element type of the record, at
least 3 repetitions and 0.05 s, 60 s per measurement). Only square matrices
(RCM orders the graph of one). A schedule the worker finds illegal after all
is recorded as such, not measured. A twin of an `omp = balanced` schedule
differs from it in two knobs (dynamic chunks and the order).

    /usr/bin/python3 cost-model/row-order-twins.py DATASET.jsonl REQUESTS.jsonl
"""

import gzip
import json
import re
import sys


def reorderable(kernel, schedule):
    """Whether the printed CPU `schedule` can visit its rows in another order."""
    levels = re.search(r"levels = \[([^\]]*)\]", schedule)
    order = re.search(r"order = \[([^\]]*)\]", schedule)
    if not levels or not order or "reorder =" in schedule:
        return False
    lv = [x.strip() for x in levels.group(1).split(",")]
    loops = [x.strip() for x in order.group(1).split(",")]
    if len(lv) < 2 or not lv[0].startswith("i : dense") or \
            not lv[1].endswith(": compressed") or loops[0] != "i":
        return False
    if "split = [1, 1]" not in schedule:
        return False
    if kernel == "sddmm":
        return len(lv) == 2 and loops[-1] == "k" and ", tile = 0," in schedule
    return kernel in ("spmm", "spmv")


def twin(schedule):
    s = schedule.replace("omp = balanced, chunk = 0", "omp = dynamic, chunk = 256")
    return s + ", reorder = rcm"


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    src, out = argv[1], argv[2]
    opener = gzip.open if src.endswith(".gz") else open
    seen, lines = set(), []
    with opener(src, "rt") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            if r.get("target") != "cpu" or r.get("status") != "ok" or \
                    not reorderable(r["kernel"], r.get("schedule", "")):
                continue
            # Reverse Cuthill-McKee orders the graph of a square matrix.
            if r["matrix"].get("rows") != r["matrix"].get("cols"):
                continue
            s = twin(r["schedule"])
            m = r["matrix"]
            key = {"matrix": m["id"], "hash": m["hash"], "kernel": r["kernel"],
                   "free": r["free"], "target": "cpu", "role": "sample", "schedule": s}
            k = json.dumps(key, sort_keys=True)
            if k in seen:
                continue
            seen.add(k)
            request = {"id": len(lines), "target": "cpu", "matrix": m["source"],
                       "kernel": r["kernel"], "free": r["free"], "bits": r["bits"],
                       "schedule": s, "baseline": "",
                       "options": {"min_reps": 3, "min_seconds": 0.05, "timeout_s": 60}}
            lines.append(json.dumps({"key": key, "request": json.dumps(request)}))
    with open(out, "w") as f:
        f.write("".join(l + "\n" for l in lines))
    print(f"{len(lines)} twins with reorder = rcm -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
