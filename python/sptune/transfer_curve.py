"""COGNATE's transfer experiment: the learning curve of a target's cost model.

For each variant, each k (number of target training matrices) and each seed,
trains a model on the target measurements of k matrices drawn from a
training pool and evaluates it on held-out matrices with
`sptune-train --evaluate`: Kendall's tau, top-1 and top-5 speedup over the
target's default schedule (for SPADE: its default configuration), the
oracle, and the top-1 speedup over the group's median configuration.

    PYTHONPATH=python /usr/bin/python3 -m sptune.transfer_curve \\
        --build build --target spade \\
        --base small=cpu-100.pt --base large=cpu-1000.pt \\
        --train spade-pool.jsonl --eval spade-heldout.jsonl \\
        --k 0,1,3,5,7,20,all --seeds 3 \\
        --variants finetune,scratch,all,finetune-matrix,finetune-none \\
        --epochs 40 --jobs 2 --out runs/ --json curve.json \\
        --table curve.md --plot curve.png

Variants (comma-separated, `KIND[-FREEZE][@BASE][+ABLATION...]`):

  finetune           fine-tuned from a CPU base model (sptune-train
                     --finetune-from); -encoders (default: matrix and
                     schedule encoders frozen), -matrix (only the matrix
                     encoder frozen), -none (everything trains; --lr-none)
  scratch            trained from scratch on the same k matrices
  all                trained from scratch on the whole pool (once per seed;
                     a reference line, the same run as scratch at k=all)
  @NAME              the base model (a --base NAME=PATH; default the first)
  +reinit-ae         (finetune) re-initialize and pre-train the target's knob
                     autoencoder before fine-tuning (sptune-train
                     --finetune-pretrain-autoencoder)
  +ABLATION          sptune-train --ablate items: no-config-mapper,
                     no-autoencoder, single-scale. A fine-tuned ablation
                     needs a base pre-trained with the same ablation: the
                     driver trains it from --cpu-data NAME=FILE (the CPU
                     recipe: --epochs 60 --holdout 0.15 --seed 1, and
                     the named base's --shared-knobs) once, under
                     OUT/bases/.

  e.g. finetune-matrix@large, scratch+no-config-mapper,
  finetune+single-scale+no-autoencoder

k: matrices drawn from the pool per seed: one seeded permutation per seed,
k takes its first k (so k=1 is inside k=3 ..., and every variant of a seed
sees the same matrices); all = the whole pool; k=0 evaluates the base model
zero-shot (fine-tuned variants only; scratch has nothing to train on).

Runs live in OUT/runs/<variant>/k<k>-s<seed>/ (model.pt, eval.json,
spec.json); a run whose eval.json exists for the same spec is not run again
(resume: rerun the same command). --jobs N runs N trainings at once.
--min-steps N raises the epochs of runs on few matrices so that each takes
at least N optimizer steps (the epochs used are in each run's spec.json).
--report-json also writes the older list format (`sptune.report`'s
transfer-curve section: finetune vs scratch rows).
"""

import argparse
import concurrent.futures
import json
import math
import os
import random
import subprocess
import sys
import threading
import time

from sptune import model_file

KINDS = ("finetune", "scratch", "all")
FREEZES = ("encoders", "matrix", "none")
ABLATIONS = ("no-config-mapper", "no-autoencoder", "single-scale")
METRICS = (("tau", "kendall_tau"), ("top1", "top1_speedup"), ("top5", "top5_speedup"),
           ("oracle", "oracle_speedup"), ("over_median", "top1_over_median"),
           ("oracle_over_median", "oracle_over_median"), ("pair_accuracy", "pair_accuracy"))


class UsageError(Exception):
    pass


# ---------------------------------------------------------------------------
# Pure functions (unit-tested in python/tests/test_transfer_curve.py)
# ---------------------------------------------------------------------------

def parse_variant(text, bases):
    """'finetune-matrix@large+single-scale' -> dict(kind, freeze, base, ablations, name).

    `bases` is the list of base names (the first is the default)."""
    name = text.strip()
    if not name:
        raise UsageError("empty variant")
    head, *ablations = name.split("+")
    base = None
    if "@" in head:
        head, base = head.split("@", 1)
    kind, _, freeze = head.partition("-")
    if kind not in KINDS:
        raise UsageError(f"variant '{name}': unknown kind '{kind}' (expected {', '.join(KINDS)})")
    if freeze and kind != "finetune":
        raise UsageError(f"variant '{name}': only finetune has a freeze alternative")
    freeze = freeze or ("encoders" if kind == "finetune" else None)
    if freeze is not None and freeze not in FREEZES:
        raise UsageError(f"variant '{name}': unknown freeze '{freeze}' (expected {', '.join(FREEZES)})")
    if kind != "finetune" and base is not None:
        raise UsageError(f"variant '{name}': only finetune has a base")
    if kind == "finetune":
        if not bases:
            raise UsageError(f"variant '{name}' needs a --base")
        base = base or bases[0]
        if base not in bases:
            raise UsageError(f"variant '{name}': no --base named '{base}' (have {', '.join(bases)})")
    reinit = "reinit-ae" in ablations
    ablations = [a for a in ablations if a != "reinit-ae"]
    if reinit and kind != "finetune":
        raise UsageError(f"variant '{name}': +reinit-ae is for finetune")
    for a in ablations:
        if a not in ABLATIONS:
            raise UsageError(f"variant '{name}': unknown ablation '{a}' (expected {', '.join(ABLATIONS)}"
                             f", or reinit-ae for finetune)")
    ablations = sorted(set(ablations), key=ABLATIONS.index)
    return {"name": name, "kind": kind, "freeze": freeze, "base": base, "ablations": ablations,
            "reinit_ae": reinit}


def parse_ks(text):
    """'0,1,3,all' -> [0, 1, 3, 'all'] (sorted, 'all' last, no repeats)."""
    out = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if item == "all":
            k = "all"
        else:
            try:
                k = int(item)
            except ValueError:
                raise UsageError(f"--k: '{item}' is neither a number nor 'all'")
            if k < 0:
                raise UsageError(f"--k: {k} is negative")
        if k not in out:
            out.append(k)
    if not out:
        raise UsageError("--k is empty")
    return sorted(out, key=lambda k: (k == "all", k if k != "all" else 0))


def draw(matrices, k, seed):
    """The k matrices of a seed: a prefix of one seeded permutation of the
    sorted pool, so draws are nested in k and shared by every variant."""
    pool = sorted(matrices)
    random.Random(f"transfer-curve-{seed}").shuffle(pool)
    if k == "all":
        return sorted(pool)
    if k > len(pool):
        raise UsageError(f"k={k} but the training pool has only {len(pool)} matrices")
    return sorted(pool[:k])


def structure_features(records):
    """matrix id -> (log rows, log cols, log entries per row): what is known
    of a matrix before any simulation, for --draw diverse."""
    feats = {}
    for r in records:
        m = r.get("matrix")
        if isinstance(m, dict) and m.get("id") not in feats:
            rows, cols, nnz = (max(1, int(m.get(f, 1) or 1)) for f in ("rows", "cols", "nnz"))
            feats[m["id"]] = (math.log(rows), math.log(cols), math.log(max(1.0, nnz / rows)))
    return feats


def draw_diverse(features, k, seed):
    """The k matrices of a seed chosen to represent the pool's structure:
    greedy k-medoids over `features` (standardized): each step adds the
    matrix that most reduces the summed distance from every pool matrix to
    its nearest chosen one, among a seeded half of the pool (so seeds differ).
    Nested in k and shared by every variant, like draw(); nothing simulated
    is used."""
    pool = sorted(features)
    if k == "all":
        return pool
    if k > len(pool):
        raise UsageError(f"k={k} but the training pool has only {len(pool)} matrices")
    dims = len(next(iter(features.values()))) if features else 0
    mean = [sum(features[m][d] for m in pool) / len(pool) for d in range(dims)]
    std = [max(1e-9, math.sqrt(sum((features[m][d] - mean[d]) ** 2 for m in pool) / len(pool)))
           for d in range(dims)]
    z = {m: [(features[m][d] - mean[d]) / std[d] for d in range(dims)] for m in pool}
    candidates = list(pool)
    random.Random(f"transfer-curve-{seed}").shuffle(candidates)
    candidates = sorted(candidates[:max(k, (len(pool) + 1) // 2)])
    nearest = {m: math.inf for m in pool}
    chosen = []
    while len(chosen) < k:
        def cost(c):
            return sum(min(nearest[m], math.dist(z[m], z[c])) for m in pool)
        best = min((c for c in candidates if c not in chosen), key=lambda c: (cost(c), c))
        chosen.append(best)
        for m in pool:
            nearest[m] = min(nearest[m], math.dist(z[m], z[best]))
    return sorted(chosen)


def planned_runs(variants, ks, seeds):
    """(variant, k, seed) triples to run, deduplicated: 'all' is one run per
    seed at k='all'; scratch at k=0 has nothing to train and is skipped."""
    out = []
    for v in variants:
        for seed in range(seeds):
            if v["kind"] == "all":
                out.append((v, "all", seed))
                continue
            for k in ks:
                if k == 0 and v["kind"] != "finetune":
                    continue
                out.append((v, k, seed))
    return out


def run_dir_name(variant, k, seed):
    """Directory of a run; 'all' and scratch at k=all share one, and k=0
    (the base model evaluated zero-shot) is one run per base, whatever the
    seed or freeze."""
    name = variant["name"]
    if k == 0:
        return os.path.join("+".join([f"zero-shot@{variant['base']}"] + variant["ablations"])
                            .replace("@", "_at_"), "k0")
    if variant["kind"] == "all":
        name = "+".join(["scratch"] + variant["ablations"])
    return os.path.join(name.replace("@", "_at_"), f"k{k}-s{seed}")


def run_is_done(directory, spec):
    """Resume decision: the run's evaluation exists, parses and was made by
    the same spec (command, data, draw)."""
    try:
        with open(os.path.join(directory, "spec.json")) as f:
            old = json.load(f)
        with open(os.path.join(directory, "eval.json")) as f:
            metrics = json.load(f)
    except (OSError, ValueError):
        return False
    if old != spec or not isinstance(metrics, dict) or "kendall_tau" not in metrics:
        return False
    return spec.get("zero_shot") or os.path.exists(os.path.join(directory, "model.pt"))


def metrics_of(eval_json):
    """The metrics the experiment reports, from `sptune-train --evaluate
    --metrics`'s JSON."""
    return {short: eval_json.get(key) for short, key in METRICS}


def _stats(values):
    vals = [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    if not vals:
        return None
    return {"mean": sum(vals) / len(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def aggregate(runs):
    """Per (variant, k): mean, min and max over seeds of every metric.
    Speedups are averaged arithmetically over seeds (each is already a
    geometric mean over the held-out groups)."""
    keyed = {}
    for r in runs:
        keyed.setdefault((r["variant"], r["k"]), []).append(r)
    out = []
    for (variant, k), rs in keyed.items():
        row = {"variant": variant, "k": k, "seeds": len(rs)}
        for short, _ in METRICS:
            row[short] = _stats([r.get(short) for r in rs])
        out.append(row)
    order = lambda k: (k == "all", k if k != "all" else 0)
    return sorted(out, key=lambda r: (r["variant"], order(r["k"])))


def is_all_variant(name):
    """'all' and its ablations train once on the whole pool: one value, at k=all."""
    return name == "all" or name.startswith("all+")


def parse_gap(text):
    """'all@all,finetune-none@5' -> (('all', 'all'), ('finetune-none', 5))."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all("@" in p for p in parts):
        raise UsageError(f"--gaps '{text}': expected VARIANT@K,VARIANT@K (e.g. all@all,finetune@5)")
    out = []
    for p in parts:
        name, k = p.rsplit("@", 1)
        ks = parse_ks(k)
        if not name or len(ks) != 1:
            raise UsageError(f"--gaps '{text}': '{p}' is not VARIANT@K")
        out.append((name, ks[0]))
    return tuple(out)


def problem_gaps(per_group_a, per_group_b, top=15):
    """Where model A's top-1 pick beats model B's: per held-out problem, the
    geometric mean over seeds of each one's top-1 speedup over the default
    (`per_group_*`: one {problem key: top-1} per seed), and the share of the
    log gap of the whole set that the problem carries. The `top` problems
    with the largest gap, then the total: {"problems": [...], "log_gap": g,
    "ratio": exp(g)} (the ratio of A's geomean top-1 to B's over the
    problems both have)."""
    def gm(values):
        return math.exp(sum(math.log(v) for v in values) / len(values))
    keys = sorted(set.intersection(*(set(d) for d in per_group_a + per_group_b)))
    if not keys:
        return {"problems": [], "log_gap": 0.0, "ratio": 1.0}
    rows = []
    for key in keys:
        a = gm([d[key] for d in per_group_a])
        b = gm([d[key] for d in per_group_b])
        rows.append({"problem": key, "a": a, "b": b,
                     "share": math.log(a / b) / len(keys)})
    total = sum(r["share"] for r in rows)
    rows.sort(key=lambda r: (-r["share"], r["problem"]))
    return {"problems": rows[:top], "log_gap": total, "ratio": math.exp(total)}


def gaps_markdown(gaps, a, b):
    name = lambda v: f"{v[0]} (k={v[1]})"
    lines = [f"**Where {name(a)} beats {name(b)}** (top-1 over the default, geomean of "
             f"seeds; {gaps['ratio']:.3f}x in all)\n",
             "| problem | " + name(a) + " | " + name(b) + " | share of the gap |",
             "|---|---|---|---|"]
    for r in gaps["problems"]:
        problem = r["problem"].replace("|", "\\|")  # problem keys are a|b|c
        lines.append(f"| {problem} | {r['a']:.3f}x | {r['b']:.3f}x | "
                     f"{r['share'] / gaps['log_gap'] * 100 if gaps['log_gap'] else 0:.0f}% |")
    return "\n".join(lines) + "\n"


def _cell(stat, fmt):
    return "-" if stat is None else fmt.format(stat["mean"])


def markdown_table(summary, variants, ks):
    """One table per metric: a row per variant, a column per k."""
    by = {(r["variant"], r["k"]): r for r in summary}
    lines = []
    for short, title, fmt in (("top1", "top-1 speedup over the default", "{:.3f}x"),
                              ("top5", "top-5 speedup over the default", "{:.3f}x"),
                              ("over_median", "top-1 speedup over the median configuration",
                               "{:.3f}x"),
                              ("tau", "Kendall tau", "{:.3f}")):
        lines.append(f"**{title}** (mean of seeds; held-out matrices)\n")
        if "all" not in ks:
            ks = list(ks) + ["all"]
        lines.append("| variant | " + " | ".join(f"k={k}" for k in ks) + " |")
        lines.append("|---|" + "---|" * len(ks))
        for v in variants:
            cells = []
            for k in ks:
                # 'all' (the whole pool) is one value: under k=all.
                key = (v, k)
                if is_all_variant(v):
                    key = (v, "all") if k == "all" else None
                cells.append(_cell(by[key].get(short), fmt) if key in by else "-")
            lines.append(f"| {v} | " + " | ".join(cells) + " |")
        lines.append("")
    oracle = [r["oracle"]["mean"] for r in summary if r.get("oracle")]
    if oracle:
        lines.append(f"Oracle (best configuration in the sample) over the default: "
                     f"{oracle[0]:.3f}x.")
    return "\n".join(lines) + "\n"


def legacy_rows(runs):
    """The older transfer_curve JSON (a list of rows with 'finetune' and
    'scratch'), for `sptune.report`'s transfer-curve section."""
    rows = {}
    for r in runs:
        if r["variant"] not in ("finetune", "scratch") or r["k"] == "all":
            continue
        row = rows.setdefault((r["k"], r["seed"]), {
            "matrices": r["k"], "seed": r["seed"], "samples": r.get("samples", 0),
            "finetune": {"tau": None, "top1": None}, "scratch": {"tau": None, "top1": None}})
        row[r["variant"]] = {"tau": r.get("tau"), "top1": r.get("top1")}
    return [rows[k] for k in sorted(rows)]


def epochs_for(epochs, groups, min_steps, batch_groups=8):
    """Epochs of a run: --epochs, raised so that a run on few problems
    (groups) still takes at least `min_steps` optimizer steps (sptune-train
    takes ceil(groups / batch_groups) steps an epoch)."""
    if min_steps <= 0 or groups <= 0:
        return epochs
    per_epoch = -(-groups // batch_groups)
    return max(epochs, -(-min_steps // per_epoch))


def eta(done_seconds, remaining, jobs):
    """Seconds left: mean run time so far x remaining runs / parallel jobs."""
    if not done_seconds or remaining <= 0:
        return None
    return sum(done_seconds) / len(done_seconds) * remaining / max(1, jobs)


def fmt_duration(s):
    if s is None:
        return "?"
    s = int(round(s))
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

def read_records(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    continue
    return out


def subset_file(out_dir, records, chosen, name):
    """Writes the records of the chosen matrices (once)."""
    path = os.path.join(out_dir, "data", name + ".jsonl")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            for r in records:
                if r.get("matrix", {}).get("id") in chosen:
                    f.write(json.dumps(r) + "\n")
        os.replace(tmp, path)
    return path


def run_cmd(cmd, log):
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        with open(log) as f:
            tail = f.read()[-1500:]
        raise RuntimeError(f"{' '.join(cmd)} failed (exit {p.returncode}):\n{tail}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[1:]))
    ap.add_argument("--build", default="build", help="build directory (bin/sptune-train)")
    ap.add_argument("--target", default="spade")
    ap.add_argument("--base", action="append", default=[], metavar="[NAME=]MODEL",
                    help="CPU base model; repeatable (NAME for @NAME variants; default name 'cpu')")
    ap.add_argument("--cpu-data", action="append", default=[], metavar="[NAME=]FILE",
                    help="CPU dataset of a base, to pre-train ablated bases for finetune+ABLATION")
    ap.add_argument("--train", required=True, help="target dataset: the training pool")
    ap.add_argument("--eval", required=True, help="target dataset of the held-out matrices")
    ap.add_argument("--k", default="0,1,3,5,7,20,all")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--draw", choices=("random", "diverse"), default="random",
                    help="how the k training matrices of a seed are chosen: a seeded "
                         "random prefix, or greedy k-medoids over the matrices' "
                         "structure (rows, cols, entries per row; nothing simulated) "
                         "among a seeded half of the pool")
    ap.add_argument("--variants", default="finetune,scratch,all")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--min-steps", type=int, default=0,
                    help="raise a run's epochs so that it takes at least this many optimizer "
                         "steps (8 problems a step): with few matrices, 40 epochs are few steps "
                         "(k=1: 40). 0: off")
    ap.add_argument("--base-epochs", type=int, default=60, help="epochs of an ablated base")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--lr-none", type=float, default=5e-4,
                    help="learning rate of finetune-none (everything trains)")
    ap.add_argument("--jobs", type=int, default=1, help="trainings run at once")
    ap.add_argument("--out", required=True, help="directory of the runs (resume: same command)")
    ap.add_argument("--json", help="results (default OUT/transfer-curve.json)")
    ap.add_argument("--report-json", help="also the older list format, for sptune.report")
    ap.add_argument("--table", help="markdown tables")
    ap.add_argument("--plot", help="PNG: top-1 and tau against k")
    ap.add_argument("--gaps", metavar="A@K,B@K",
                    help="also list the held-out problems where variant A at k beats variant B "
                         "at k most (top-1, geomean of seeds), in the JSON and the table; "
                         "e.g. all@all,finetune@5")
    args = ap.parse_args(argv)
    try:
        return experiment(args)
    except UsageError as e:
        print(f"transfer_curve: error: {e}", file=sys.stderr)
        return 1


def named(items, default_name):
    out = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep:
            name, path = (default_name if not out else f"base{len(out)}"), item
        if name in out:
            raise UsageError(f"two bases named '{name}'")
        out[name] = path
    return out


def base_shared_knobs(path):
    """The shared knobs recorded in the base model at `path` ([] for none)."""
    try:
        return model_file.shared_knobs(path)
    except (OSError, ValueError) as e:
        raise UsageError(f"base '{path}': {e}") from None


def experiment(args):
    train_bin = os.path.join(args.build, "bin", "sptune-train")
    if not os.access(train_bin, os.X_OK):
        raise UsageError(f"no {train_bin} (build it, or pass --build)")
    if args.seeds < 1 or args.jobs < 1 or args.epochs < 1:
        raise UsageError("--seeds, --jobs and --epochs must be at least 1")
    bases = named(args.base, "cpu")
    cpu_data = named(args.cpu_data, next(iter(bases), "cpu"))
    for name, path in bases.items():
        if not os.path.exists(path):
            raise UsageError(f"base '{name}': no file '{path}'")
    variants = [parse_variant(v, list(bases)) for v in args.variants.split(",") if v.strip()]
    if len({v["name"] for v in variants}) != len(variants):
        raise UsageError("a variant is listed twice")
    ks = parse_ks(args.k)
    gap_spec = parse_gap(args.gaps) if args.gaps else None
    if gap_spec:
        names = {v["name"] for v in variants}
        for name, k in gap_spec:
            if name not in names or (k not in ks and not is_all_variant(name)):
                raise UsageError(f"--gaps: {name}@{k} is not among the variants and k run")
    for path in (args.train, args.eval):
        if not os.path.exists(path):
            raise UsageError(f"no dataset '{path}'")
    out_dir = os.path.abspath(args.out)
    os.makedirs(out_dir, exist_ok=True)

    records = [r for r in read_records(args.train) if r.get("target") == args.target]
    eval_ids = {r.get("matrix", {}).get("id") for r in read_records(args.eval)
                if r.get("target") == args.target}
    pool = sorted({r["matrix"]["id"] for r in records if isinstance(r.get("matrix"), dict)})
    overlap = sorted(set(pool) & eval_ids)
    if overlap:
        print(f"warning: {len(overlap)} matrices are in both --train and --eval; "
              f"left out of the training pool: {', '.join(overlap[:5])}"
              f"{' ...' if len(overlap) > 5 else ''}", file=sys.stderr)
        pool = [m for m in pool if m not in set(overlap)]
    if not pool:
        raise UsageError(f"the training pool has no {args.target} matrices")
    if not eval_ids:
        raise UsageError(f"--eval has no {args.target} records")
    print(f"training pool: {len(pool)} matrices, {len(records)} records; held-out: "
          f"{len(eval_ids)} matrices", file=sys.stderr)

    # Ablated bases, trained once.
    base_of = {}
    needed = {(v["base"], tuple(v["ablations"])) for v in variants if v["kind"] == "finetune"}
    for base, abl in sorted(needed):
        if not abl:
            base_of[(base, abl)] = os.path.abspath(bases[base])
            continue
        if base not in cpu_data:
            raise UsageError(f"finetune+{'+'.join(abl)}@{base} needs a base pre-trained with "
                             f"--ablate {','.join(abl)}: give --cpu-data {base}=CPU.jsonl")
        path = os.path.join(out_dir, "bases", f"{base}+{'+'.join(abl)}.pt")
        base_of[(base, abl)] = path
        # The ablated base keeps the knobs whose features the named base
        # shares across targets (its recipe is the CPU one above).
        shared = base_shared_knobs(bases[base])
        cached = base_shared_knobs(path) if os.path.exists(path) else shared
        if cached != shared:
            raise UsageError(f"{path} was pre-trained with shared knobs "
                             f"{cached or 'none'}, the base '{base}' has "
                             f"{shared or 'none'}: remove it to pre-train it again")
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            print(f"pre-training the {base} base with --ablate {','.join(abl)}", file=sys.stderr)
            cmd = [train_bin, "--data", cpu_data[base], "--target", "cpu", "--out", path,
                   "--epochs", str(args.base_epochs), "--holdout", "0.15", "--seed", "1",
                   "--ablate", ",".join(abl), "--quiet"]
            if shared:
                cmd += ["--shared-knobs", ",".join(shared)]
            run_cmd(cmd, path + ".log")

    pool_set = set(pool)
    records = [r for r in records if r["matrix"]["id"] in pool_set]
    features = structure_features(records)
    todo, results = [], []
    for v, k, seed in planned_runs(variants, ks, args.seeds):
        if k == 0:
            chosen = []
        elif args.draw == "diverse":
            chosen = draw_diverse(features, k, seed)
        else:
            chosen = draw(pool, k, seed)
        directory = os.path.join(out_dir, "runs", run_dir_name(v, k, seed))
        if k == 0:
            spec = {"target": args.target, "k": 0, "zero_shot": True,
                    "eval": os.path.abspath(args.eval),
                    "model": base_of[(v["base"], tuple(v["ablations"]))]}
        else:
            spec = {"target": args.target, "k": k, "seed": seed, "matrices": chosen,
                    "eval": os.path.abspath(args.eval), "train": os.path.abspath(args.train)}
            chosen_set = set(chosen)
            groups = len({(r["matrix"]["id"], r.get("kernel"), r.get("free")) for r in records
                          if r["matrix"]["id"] in chosen_set})
            spec.update(kind="scratch" if v["kind"] == "all" else v["kind"],
                        epochs=epochs_for(args.epochs, groups, args.min_steps),
                        ablations=v["ablations"],
                        lr=args.lr_none if v["freeze"] == "none" else args.lr)
            if v["kind"] == "finetune":
                spec.update(base=base_of[(v["base"], tuple(v["ablations"]))], freeze=v["freeze"])
                if v["reinit_ae"]:
                    spec["reinit_ae"] = True
        todo.append((v, k, seed, chosen, directory, spec))

    distinct = {}
    for item in todo:
        distinct.setdefault(item[4], item)
    pending = [item for d, item in distinct.items() if not run_is_done(d, item[5])]
    print(f"{len(todo)} results from {len(distinct)} runs; {len(distinct) - len(pending)} "
          f"already done (resume), {len(pending)} to run with {args.jobs} job(s)", file=sys.stderr)

    lock = threading.Lock()
    durations, counter = [], [0]
    start = time.time()

    def execute(item):
        v, k, seed, chosen, directory, spec = item
        os.makedirs(directory, exist_ok=True)
        for stale in ("eval.json", "spec.json"):
            if os.path.exists(os.path.join(directory, stale)):
                os.remove(os.path.join(directory, stale))
        log = os.path.join(directory, "log.txt")
        t0 = time.time()
        model = spec["model"] if k == 0 else os.path.join(directory, "model.pt")
        train_s = 0.0
        if k != 0:
            data = subset_file(out_dir, records, set(chosen), f"s{seed}-k{k}")
            cmd = [train_bin, "--data", data, "--target", args.target, "--out", model,
                   "--epochs", str(spec["epochs"]), "--holdout", "0", "--seed", str(seed),
                   "--lr", str(spec["lr"]), "--torch-threads", "1", "--quiet"]
            if spec["kind"] == "finetune":
                cmd += ["--finetune-from", spec["base"], "--finetune-freeze", spec["freeze"]]
                if spec.get("reinit_ae"):
                    cmd += ["--finetune-pretrain-autoencoder"]
            elif spec["ablations"]:
                cmd += ["--ablate", ",".join(spec["ablations"])]
            run_cmd(cmd, log)
            train_s = time.time() - t0
        t1 = time.time()
        run_cmd([train_bin, "--evaluate", model, "--data", args.eval, "--target", args.target,
                 "--metrics", os.path.join(directory, "eval.json"), "--torch-threads", "1",
                 "--quiet"], log)
        with open(os.path.join(directory, "timing.json"), "w") as f:
            json.dump({"train_s": train_s, "eval_s": time.time() - t1}, f)
        with open(os.path.join(directory, "spec.json"), "w") as f:
            json.dump(spec, f, indent=1)
        with lock:
            durations.append(time.time() - t0)
            counter[0] += 1
            left = eta(durations, len(pending) - counter[0], args.jobs)
            m = metrics_of(json.load(open(os.path.join(directory, "eval.json"))))
            top1 = "n/a" if m["top1"] is None else f"{m['top1']:.3f}x"
            print(f"[{counter[0]}/{len(pending)}] {v['name']} k={k} seed {seed}: tau "
                  f"{m['tau']:.3f} top-1 {top1} ({time.time() - t0:.0f}s; elapsed "
                  f"{fmt_duration(time.time() - start)}, ETA {fmt_duration(left)})",
                  file=sys.stderr, flush=True)

    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool_ex:
        futures = {pool_ex.submit(execute, item): item for item in pending}
        for fut in concurrent.futures.as_completed(futures):
            try:
                fut.result()
            except Exception as e:  # one failed run does not stop the others
                item = futures[fut]
                failures.append(f"{item[0]['name']} k={item[1]} seed {item[2]}: {e}")
                print(f"run failed: {failures[-1]}", file=sys.stderr, flush=True)
    per_matrix = {}
    for r in records:
        per_matrix[r["matrix"]["id"]] = per_matrix.get(r["matrix"]["id"], 0) + 1
    top1_by_run = {}  # (variant, k) -> one {problem: top-1} per finished seed, for --gaps
    for v, k, seed, chosen, directory, spec in todo:
        try:
            with open(os.path.join(directory, "eval.json")) as f:
                ev = json.load(f)
        except (OSError, ValueError):
            continue
        try:
            with open(os.path.join(directory, "timing.json")) as f:
                timing = json.load(f)
        except (OSError, ValueError):
            timing = {}
        top1_by_run.setdefault((v["name"], k), []).append(
            {g["key"]: g["top1_speedup"] for g in ev.get("per_group", []) if g.get("top1_speedup")})
        row = {"variant": v["name"], "k": k, "seed": seed, "matrices": chosen,
               "samples": sum(per_matrix.get(m, 0) for m in chosen),
               "groups": ev.get("groups"), "run": os.path.relpath(directory, out_dir)}
        row.update(metrics_of(ev))
        row.update(timing)
        results.append(row)

    summary = aggregate(results)
    doc = {"target": args.target, "bases": bases, "train": args.train, "eval": args.eval,
           "pool_matrices": len(pool), "eval_matrices": len(eval_ids), "epochs": args.epochs,
           "k": ks, "seeds": args.seeds, "variants": [v["name"] for v in variants],
           "runs": results, "summary": summary, "failures": failures}
    table = markdown_table(summary, [v["name"] for v in variants], ks)
    if gap_spec:
        a, b = (top1_by_run.get((name, "all" if is_all_variant(name) else k), [])
                for name, k in gap_spec)
        if not (a and b):
            print(f"warning: --gaps: no finished runs of "
                  f"{' and '.join(f'{n}@{k}' for (n, k), got in zip(gap_spec, (a, b)) if not got)}"
                  f"; no gap table", file=sys.stderr)
        else:
            gaps = problem_gaps(a, b)
            doc["gaps"] = {"a": list(gap_spec[0]), "b": list(gap_spec[1]), **gaps}
            table += "\n" + gaps_markdown(gaps, *gap_spec)
    json_path = args.json or os.path.join(out_dir, "transfer-curve.json")
    with open(json_path, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"wrote {json_path}", file=sys.stderr)
    if args.report_json:
        with open(args.report_json, "w") as f:
            json.dump(legacy_rows(results), f, indent=1)
    if args.table:
        with open(args.table, "w") as f:
            f.write(table)
    print(table)
    if args.plot:
        plot(summary, [v["name"] for v in variants], ks, args.target, args.plot)
    return 1 if failures else 0


def plot(summary, variants, ks, target, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    xs = list(range(len(ks)))
    by = {(r["variant"], r["k"]): r for r in summary}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, metric, title in ((axes[0], "top1", "held-out top-1 speedup over the default"),
                              (axes[1], "tau", "held-out Kendall tau")):
        for v in variants:
            if is_all_variant(v):
                s = by.get((v, "all"), {}).get(metric)
                if s:
                    ax.axhline(s["mean"], linestyle=":", color="gray", label=f"{v} ({s['mean']:.3f})")
                    ax.axhspan(s["min"], s["max"], color="gray", alpha=0.1)
                continue
            pts = [(x, by[(v, k)][metric]) for x, k in zip(xs, ks)
                   if (v, k) in by and by[(v, k)].get(metric)]
            if not pts:
                continue
            px = [p[0] for p in pts]
            line, = ax.plot(px, [p[1]["mean"] for p in pts], "o-", label=v)
            ax.fill_between(px, [p[1]["min"] for p in pts], [p[1]["max"] for p in pts],
                            color=line.get_color(), alpha=0.15)
        ax.set_xticks(xs)
        ax.set_xticklabels([str(k) for k in ks])
        ax.set_xlabel(f"{target} training matrices (k)")
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
