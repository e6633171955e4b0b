"""The results files `sptune report` reads, recognized by their shape.

Each format has a name, the tool that writes it and a test on the parsed
JSON (one document, or a list of JSON-lines records).
"""

import json

from sptune.errors import SptuneError

# (name, what writes it), in the order they are tried.
FORMATS = [
    ("tune", "python3 -m sptune tune --json"),
    ("autotune-eval", "python3 -m sptune.autotune_eval --json ({summary, rows} with tuned_vs_mlir)"),
    ("ceiling-report", "python3 -m sptune.ceiling_report --json ({summary, rows} with best_vs_mlir)"),
    ("learn-experiment", "python3 -m sptune.learn_experiment --json (learning curves per strategy)"),
    ("learn-rounds", "sptune-learn's STATE/rounds.jsonl (one round per line)"),
    ("transfer-curve", "python3 -m sptune.transfer_curve --report-json (fine-tuned vs from scratch)"),
    ("transfer-experiment", "python3 -m sptune.transfer_curve --json ({variants, k, runs, summary})"),
    ("spade-headroom", "bench/spade-headroom.py --json (best/default before and after calibration)"),
    ("spade-knob-headroom", "bench/spade-knob-headroom.py --json (SPADE headroom with and without its SPADE-only knobs)"),
    ("model-metrics", "sptune-train's MODEL.metrics.json (train and held-out ranking metrics)"),
    ("gpu-check", "bench/gpu-check.sh's gpu-check.json"),
    ("gpu-bench", "sptune-gpu-bench's summary lines (bench-summary.jsonl, --json)"),
    ("dataset", "sptune-collect's dataset (JSON lines of measured schedules, docs/dataset.md)"),
    ("torch-entry", "bench/torch-entry.py --out (sptune.torch against torch.sparse)"),
    ("tuning-database", "bench/tuning-database.py --out (compile time, cold and warm database)"),
    ("paired-compare", "python3 -m sptune.paired_compare --json (A and B alternated in one worker)"),
    ("guard-calibration", "python3 -m sptune.guard_calibrate --json (the guard's z and its curve)"),
    ("dispatch-overhead", "bench/dispatch-overhead.py --json (a multi-versioned kernel's route "
                          "against the kernel)"),
    ("gat-layer", "bench/gat-layer.py --json (an attention layer, its scale folded or not)"),
    ("cpu-headroom", "bench/cpu-headroom.py --json (the best measured schedule over the CPU "
                     "heuristic, before and after issue 31's knobs)"),
    ("spgemm", "bench/spgemm.py --json (sptune's SpGEMM kernel against the libraries)"),
    ("row-order-headroom", "bench/row-order-headroom.py --json (the heuristic's kernel on the "
                           "matrix stored in other row orders)"),
    ("mttkrp", "bench/mttkrp.py --json (sptune's MTTKRP against a hand CSF kernel)"),
    ("batched-spmm", "bench/batched-spmm.py --json (sptune's batched SpMM against loops "
                     "over the SpMM baselines)"),
    ("spgemm-learn", "bench/spgemm-learn.py --json (an SpGEMM model learned from no data: "
                     "validation fraction of the best schedule per round)"),
]


def known():
    return "\n".join(f"  {name:17} {what}" for name, what in FORMATS)


def _rows_with(doc, key):
    rows = doc.get("rows")
    return (isinstance(rows, list) and isinstance(doc.get("summary"), dict) and
            any(isinstance(r, dict) and key in r for r in rows))


def _records(doc):
    """The records of a JSON-lines file (a single line parses as one dict)."""
    if isinstance(doc, dict):
        return [doc]
    if isinstance(doc, list) and doc and all(isinstance(r, dict) for r in doc):
        return doc
    return None


def detect(doc):
    """(format name, its data) of a parsed results file, or None."""
    if isinstance(doc, dict):
        if doc.get("format") == "sptune-tune":
            return "tune", doc
        if _rows_with(doc, "tuned_vs_mlir"):
            return "autotune-eval", doc
        if _rows_with(doc, "best_vs_mlir"):
            return "ceiling-report", doc
        if isinstance(doc.get("curves"), dict) and "full_top1" in doc:
            return "learn-experiment", doc
        if isinstance(doc.get("train"), dict) and isinstance(doc.get("heldout"), dict):
            return "model-metrics", doc
        if (isinstance(doc.get("variants"), list) and isinstance(doc.get("k"), list) and
                isinstance(doc.get("summary"), list) and
                all(isinstance(r, dict) and "variant" in r and "k" in r for r in doc["summary"])):
            return "transfer-experiment", doc
        if (isinstance(doc.get("problems"), list) and isinstance(doc.get("summary"), dict) and
                all(isinstance(r, dict) and "after_best_over_default" in r and
                    "before_best_over_default" in r for r in doc["problems"])):
            return "spade-headroom", doc
        if isinstance(doc.get("bench"), dict) and isinstance(doc["bench"].get("results"), list):
            return "gpu-check", doc
        if doc.get("bench") == "tuning-database" and isinstance(doc.get("rows"), list):
            return "tuning-database", doc
        if doc.get("bench") == "paired-compare" and isinstance(doc.get("rows"), list):
            return "paired-compare", doc
        if doc.get("bench") == "dispatch-overhead" and isinstance(doc.get("rows"), list):
            return "dispatch-overhead", doc
        if doc.get("bench") == "gat-layer" and isinstance(doc.get("rows"), list):
            return "gat-layer", doc
        if (doc.get("bench") == "spgemm" and isinstance(doc.get("rows"), list) and
                isinstance(doc.get("summary"), dict)):
            return "spgemm", doc
        if (doc.get("bench") == "row-order-headroom" and isinstance(doc.get("rows"), list) and
                isinstance(doc.get("summary"), dict)):
            return "row-order-headroom", doc
        if (doc.get("bench") == "mttkrp" and isinstance(doc.get("rows"), list) and
                isinstance(doc.get("summary"), dict)):
            return "mttkrp", doc
        if (doc.get("bench") == "batched-spmm" and isinstance(doc.get("rows"), list) and
                isinstance(doc.get("summary"), dict)):
            return "batched-spmm", doc
        if doc.get("bench") == "spgemm-learn" and isinstance(doc.get("runs"), dict):
            return "spgemm-learn", doc
        if (doc.get("bench") == "cpu-headroom" and isinstance(doc.get("rows"), list) and
                isinstance(doc.get("summary"), dict)):
            return "cpu-headroom", doc
        if (isinstance(doc.get("curve"), list) and isinstance(doc.get("per_kernel"), dict) and
                "z" in doc and all(isinstance(r, dict) and "z" in r for r in doc["curve"])):
            return "guard-calibration", doc
        if doc.get("bench") == "spade-knob-headroom" and isinstance(doc.get("spade"), dict):
            return "spade-knob-headroom", doc
        if (isinstance(doc.get("matrices"), list) and isinstance(doc.get("summary"), dict) and
                all(isinstance(m, dict) and isinstance(m.get("kernels"), dict)
                    for m in doc["matrices"])):
            return "torch-entry", doc
    if isinstance(doc, list) and doc and all(
            isinstance(r, dict) and "finetune" in r and "scratch" in r and "matrices" in r
            for r in doc):
        return "transfer-curve", doc
    records = _records(doc)
    if records:
        if all("round" in r and isinstance(r.get("validation"), dict) for r in records):
            return "learn-rounds", records
        summaries = [r for r in records if r.get("summary") is True and "speedup" in r]
        if summaries and all("matrix" in r and "kernel" in r for r in records):
            return "gpu-bench", summaries
        if all({"key", "role", "kernel", "status"} <= r.keys() and
               isinstance(r.get("matrix"), dict) for r in records):
            return "dataset", records
    return None


def parse(text, path):
    """The JSON document of `text`, or the list of its JSON lines."""
    try:
        return json.loads(text)
    except RecursionError:
        raise SptuneError(f"{path}: JSON nested too deeply") from None
    except json.JSONDecodeError as whole:
        records = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except RecursionError:
                raise SptuneError(f"{path}: line {n}: JSON nested too deeply") from None
            except json.JSONDecodeError as e:
                if n == 1:  # not JSON lines either: the document's own error
                    raise SptuneError(f"{path}: not JSON ({whole})") from None
                raise SptuneError(f"{path}: line {n} is not JSON ({e.msg})") from None
        return records


def load(path):
    """(format name, data) of results file `path`; SptuneError when it
    cannot be read or is of no known format."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise SptuneError(f"{path}: cannot read ({e.strerror})") from None
    except UnicodeDecodeError:
        raise SptuneError(f"{path}: not a text file") from None
    if not text.strip():
        raise SptuneError(f"{path}: empty file")
    found = detect(parse(text, path))
    if not found:
        raise SptuneError(f"{path}: not a results format sptune report knows; it knows:\n"
                          + known())
    return found
