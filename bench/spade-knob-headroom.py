#!/usr/bin/env python3
"""Where SPADE's headroom lies, knob by knob, and what a CPU source shows of
the same knobs (issue 17: why 5 SPADE matrices and the CPU model do not
reach the all-data model).

For every SPADE problem (matrix, kernel) of the datasets: SPADE's default
(the `baseline:heuristic` record, else the sample that is the default
schedule), the best of all its configurations, and the best among those
that leave the knobs without a CPU counterpart at their defaults. In the
configuration mapper (cost-model/lib/ConfigurationMapper.cpp) the panel
height (`split`), the column tile (`tile`) and the PEs used (`pes`) set
common features a CPU schedule also sets; `bypass`, `barrier` and
`reorder` are only in SPADE's knob code, so nothing a CPU model learned says
when they pay. Reported: geometric means of best / default over all
configurations, over the "shared" ones, with only the reordering held at
its default, and with only the bypass held; how often the best configuration
moves each knob away from the default; the same per matrix family
(generated kind, or "real"). For CPU datasets: how often the fastest
measured schedule of a problem splits a loop, tiles, or uses dynamic
OpenMP scheduling, i.e. whether the CPU data show the effects SPADE's
knobs have.

  /usr/bin/python3 bench/spade-knob-headroom.py \\
      --spade cost-model/data/spade-2026-12-01-train.jsonl.gz \\
      --spade cost-model/data/spade-2026-12-01-heldout.jsonl.gz \\
      --cpu cost-model/data/cpu-2026-11-30.jsonl.gz \\
      --json docs/img/issue17-knob-headroom.json --plot docs/img/issue17-knob-headroom.png
"""

import argparse
import collections
import gzip
import json
import math
import re
import sys

# SPADE's default configuration, knob by knob (SpadeScheduleSpace.h).
DEFAULTS = {"split": "[256, 1]", "tile": "0", "pes": "0", "barrier": "false",
            "bypass": "[]", "reorder": "none"}
SHARED = ("split", "tile", "pes")
SPADE_ONLY = ("barrier", "bypass", "reorder")
KNOB = re.compile(r"\b(split|tile|pes|barrier|bypass|reorder) = (\[[^\]]*\]|\w+)")


def knobs(schedule):
    return dict(KNOB.findall(schedule))


def is_default(k):
    return all(k.get(name) == value for name, value in DEFAULTS.items())


def records(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as e:
                raise SystemExit(f"{path}:{n}: not JSON: {e}")


def family(matrix_id):
    return matrix_id.split(":")[1] if matrix_id.startswith("gen:") else "real"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def spade_problems(paths):
    """(matrix, kernel) -> {"default": cycles, "samples": [(cycles, knobs)]}."""
    groups = collections.defaultdict(lambda: {"default": None, "samples": []})
    for path in paths:
        for r in records(path):
            if r.get("target") != "spade" or r.get("status") != "ok" or "cycles" not in r:
                continue
            g = groups[(r["matrix"]["id"], r["kernel"])]
            k = knobs(r.get("schedule", ""))
            if r.get("role") == "baseline:heuristic":
                g["default"] = r["cycles"]
                continue
            g["samples"].append((r["cycles"], k))
            if g["default"] is None and is_default(k):
                g["default"] = r["cycles"]
    return {key: g for key, g in groups.items() if g["default"] and g["samples"]}


def best_where(g, keep):
    """Best cycles among the samples `keep` accepts; the default counts as
    one (it keeps every knob at its default)."""
    return min([c for c, k in g["samples"] if keep(k)] + [g["default"]])


def held(names):
    return lambda k: all(k.get(n) == DEFAULTS[n] for n in names)


RESTRICTIONS = {
    "all knobs": lambda k: True,
    "shared knobs only (bypass, barrier, reorder at default)": held(SPADE_ONLY),
    "reorder at default": held(("reorder",)),
    "bypass at default": held(("bypass",)),
}


def summarize_spade(problems):
    def block(keys):
        out = {"problems": len(keys)}
        for name, keep in RESTRICTIONS.items():
            out[name] = geomean([problems[k]["default"] / best_where(problems[k], keep)
                                 for k in keys])
        moved = collections.Counter()
        for key in keys:
            g = problems[key]
            best = min(g["samples"], key=lambda s: s[0])
            if best[0] < g["default"]:
                for name, value in DEFAULTS.items():
                    moved[name] += best[1].get(name) != value
        out["best moves the knob (share of problems)"] = {
            name: moved[name] / len(keys) for name in DEFAULTS}
        return out

    keys = sorted(problems)
    fams = collections.defaultdict(list)
    for key in keys:
        fams[family(key[0])].append(key)
    out = block(keys)
    full = math.log(out["all knobs"])
    out["share of the log headroom needing SPADE-only knobs"] = (
        1 - math.log(out[list(RESTRICTIONS)[1]]) / full if full > 0 else 0.0)
    out["families"] = {f: block(ks) for f, ks in sorted(fams.items())}
    return out


def summarize_cpu(paths):
    best = {}
    for path in paths:
        for r in records(path):
            if r.get("target") != "cpu" or r.get("status") != "ok" or "schedule" not in r:
                continue
            t = r.get("time_s", {}).get("median")
            if not t or t <= 0:
                continue
            key = (r["matrix"]["id"], r["kernel"], r.get("free"))
            if key not in best or t < best[key][0]:
                best[key] = (t, r["schedule"])
    if not best:
        return None
    n = len(best)
    schedules = [s for _, s in best.values()]
    return {"problems": n,
            "fastest splits a loop": sum("split = [1, 1]" not in s for s in schedules) / n,
            "fastest tiles": sum("tile = 0," not in s for s in schedules) / n,
            "fastest uses dynamic OpenMP scheduling": sum("omp = dynamic" in s for s in schedules) / n}


def plot(summary, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fams = summary["spade"]["families"]
    names = list(fams) + ["all"]
    blocks = [fams[f] for f in fams] + [summary["spade"]]
    shown = list(RESTRICTIONS)[:2]
    fig, ax = plt.subplots(figsize=(8, 3.6))
    width = 0.38
    for i, r in enumerate(shown):
        ax.bar([x + (i - 0.5) * width for x in range(len(names))],
               [b[r] for b in blocks], width, label=r)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([f"{n}\n({b['problems']})" for n, b in zip(names, blocks)])
    ax.set_ylabel("best / SPADE default (geomean)")
    ax.set_title("SPADE headroom with and without the knobs the CPU space lacks")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spade", action="append", required=True,
                    help="SPADE dataset (JSONL, .gz allowed); repeatable")
    ap.add_argument("--cpu", action="append", default=[],
                    help="CPU dataset (JSONL, .gz allowed); repeatable")
    ap.add_argument("--json", help="write the summary here")
    ap.add_argument("--plot", help="write a bar chart (PNG) here")
    args = ap.parse_args(argv)
    for path in args.spade + args.cpu:
        try:
            open(path, "rb").close()
        except OSError as e:
            ap.error(f"cannot read '{path}': {e.strerror}")
    problems = spade_problems(args.spade)
    if not problems:
        ap.error("no SPADE problem with its default measured in the --spade data")
    summary = {"bench": "spade-knob-headroom", "spade": summarize_spade(problems),
               "cpu": summarize_cpu(args.cpu) if args.cpu else None}
    s = summary["spade"]
    print(f"SPADE: {s['problems']} problems; best / default, geomean:")
    for name in RESTRICTIONS:
        print(f"  {name}: {s[name]:.3f}x")
    print(f"  share of the log headroom needing SPADE-only knobs: "
          f"{s['share of the log headroom needing SPADE-only knobs']:.0%}")
    moved = s["best moves the knob (share of problems)"]
    print("  the best configuration moves: " +
          ", ".join(f"{k} {v:.0%}" for k, v in moved.items()))
    for f, b in s["families"].items():
        print(f"  {f:10s} {b['problems']:4d} problems: all {b['all knobs']:.3f}x, "
              f"shared only {b[list(RESTRICTIONS)[1]]:.3f}x, "
              f"reorder held {b['reorder at default']:.3f}x")
    c = summary["cpu"]
    if c:
        print(f"CPU: {c['problems']} problems; the fastest schedule splits a loop in "
              f"{c['fastest splits a loop']:.0%}, tiles in {c['fastest tiles']:.0%}, "
              f"schedules OpenMP dynamically in "
              f"{c['fastest uses dynamic OpenMP scheduling']:.0%}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
            f.write("\n")
    if args.plot:
        plot(summary, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
