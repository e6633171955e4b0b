"""Reading sptune datasets (docs/dataset.md): one JSON record per line."""

import json
import math
import os
from collections import defaultdict


def load(paths):
    """Returns the parseable records of the JSONL files `paths` and the
    number of lines that did not parse (e.g. cut by an interruption)."""
    records, bad = [], 0
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    bad += 1
    return records, bad


def append_record(path, record):
    """Appends `record` to the JSONL file `path` durably (flushed and
    synced); a torn last line (a killed run) is ended first so that the
    record does not join it."""
    torn = False
    if os.path.exists(path) and os.path.getsize(path) > 0:
        with open(path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            torn = f.read(1) != b"\n"
    with open(path, "a") as f:
        f.write(("\n" if torn else "") + json.dumps(record) + "\n")
        f.flush()
        os.fsync(f.fileno())


def problems(records):
    """Groups records by (matrix id, kernel, free, target, element bits): one
    problem each, with its baselines and samples (the latest record wins for
    a key). A record without "bits" is f32 (32), as the collector measured
    before it had --bits; f32 and f64 runtimes are never one problem's."""
    groups = defaultdict(dict)
    for r in records:
        problem = (r["matrix"]["id"], r["kernel"], r["free"], r["target"],
                   r.get("bits", 32))
        groups[problem][r["key"]] = r
    return {p: list(g.values()) for p, g in groups.items()}


def ok_time(record):
    """Median seconds of a successful measurement, else None."""
    if record.get("status") != "ok":
        return None
    t = record.get("time_s", {}).get("median")
    return t if t and t > 0 else None


def geomean(values):
    values = [v for v in values if v and v > 0]
    if not values:
        return float("nan")
    return math.exp(sum(math.log(v) for v in values) / len(values))
