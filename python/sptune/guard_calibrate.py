"""Calibrate a cost model's guard: the threshold z above which the model's pick replaces the heuristic.

The guard (cost-model/include/sptune/CostModel/ModelGuard.h) trusts the
model's pick over sptune's heuristic when its ensemble members' mean
predicted gain exceeds z times their spread. This script chooses z on
problems none of the models was trained on:

  python3 -m sptune.guard_calibrate --data HELDOUT.jsonl --model MAIN.pt \\
      --member A.pt --member B.pt ... --json calib.json [--plot calib.png]

For every problem (matrix, kernel, free size) of the held-out data with a
measured heuristic, the main model picks its best among the measured
schedules (as release mode picks among its candidates); the members score
that pick and the heuristic; the measured times say what trusting the pick
would have gained. z is the value of the grid, or "never" (no pick
trusted), with the best geomean speedup over the heuristic among those at
which the trusted picks win more often than they lose (ties: the larger z,
the more conservative; "never" is the largest). The sign condition keeps
one lucky pick from deciding: a threshold that trusts five picks, one 3.8x
faster and four slower, gains in geomean but is wrong more often than
right, and on another machine's few problems that is noise. The JSON
keeps the whole curve, per kernel, each kernel's own best z ("z_by_kernel",
chosen the same way on that kernel's problems alone), and the machines the
data come from, and `sptune-guard --calibration` stores it with the shipped
model (`--per-kernel` stores the z of each kernel for other machines). Data measured
on the model's own machine calibrate its z there; data of another machine
(`--other-machine-calibration`) its z everywhere else.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

from sptune import tools

#: The thresholds tried, in spreads.
Z_GRID = [round(0.1 * n, 1) for n in range(0, 81)]

#: The threshold no gain exceeds: the heuristic is kept everywhere (the
#: guard reads it as ModelGuard.h's kNeverTrust).
NEVER = "never"


def read_scores(path):
    """{group key: (schedules, times, scores)} of `sptune-train --scores`."""
    out = {}
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            g = json.loads(line)
            if "schedules" not in g:
                raise ValueError(f"{path}: the scores carry no schedules "
                                 "(an older sptune-train)")
            out[g["key"]] = (g["schedules"], g["times"], g["scores"])
    return out


def records(data_paths):
    """The datasets' records (plain or gzipped JSONL)."""
    for path in data_paths:
        opener = open
        if path.endswith(".gz"):
            import gzip
            opener = gzip.open
        with opener(path, "rt") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


def heuristic_schedules(data_paths):
    """{group key: the heuristic's schedule} from the datasets' records of
    role baseline:heuristic; keys as SampleGroup::key() writes them in the
    scores file ("|64-bit" after the target for f64 kernels)."""
    out = {}
    for r in records(data_paths):
        if r.get("role") != "baseline:heuristic" or r.get("status") != "ok":
            continue
        key = "|".join([r["matrix"]["id"], r["kernel"], str(r["free"]),
                        r["target"]])
        bits = r.get("bits", 32)
        out[key + ("" if bits == 32 else "|%s-bit" % bits)] = r["schedule"]
    return out


def data_machines(data_paths):
    """The CPUs (machine.cpu) the datasets were measured on."""
    return sorted({r["machine"]["cpu"] for r in records(data_paths)
                   if r.get("machine", {}).get("cpu")})


def problems(main, members, heuristics):
    """One entry per problem with a measured heuristic: the kernel, the
    measured log gain of the main model's pick over the heuristic, and each
    member's predicted log gain (empty when the pick is the heuristic)."""
    out = []
    for key, (schedules, times, scores) in sorted(main.items()):
        h = heuristics.get(key)
        if h is None or h not in schedules:
            continue
        ih = schedules.index(h)
        ip = max(range(len(scores)), key=lambda i: (scores[i], -i))
        entry = {"key": key, "kernel": key.split("|")[1],
                 "actual": math.log(times[ih] / times[ip]), "gains": []}
        if ip != ih:
            for m in members:
                ms, _, mscores = m[key]
                if ms != schedules:
                    raise ValueError(f"{key}: the models' scores list other "
                                     "schedules (not the same data?)")
                entry["gains"].append(mscores[ip] - mscores[ih])
        out.append(entry)
    return out


def trusted(gains, z):
    if not gains or z == NEVER:
        return False
    mean = sum(gains) / len(gains)
    sd = math.sqrt(sum((g - mean) ** 2 for g in gains) / (len(gains) - 1)) \
        if len(gains) > 1 else 0.0
    return mean > z * sd


def curve(entries, zs):
    """Per z: geomean speedup over the heuristic, the share of differing
    picks trusted, and how many trusted picks were faster and slower."""
    rows = []
    differing = [e for e in entries if e["gains"]]
    for z in zs:
        total, kept, wins, losses = 0.0, 0, 0, 0
        for e in entries:
            if e["gains"] and trusted(e["gains"], z):
                total += e["actual"]
                kept += 1
                wins += e["actual"] > 0
                losses += e["actual"] < 0
        rows.append({"z": z, "geomean_over_heuristic":
                     math.exp(total / len(entries)) if entries else 1.0,
                     "trusted": kept, "differing": len(differing),
                     "trusted_faster": wins, "trusted_slower": losses})
    return rows


def z_order(z):
    """Sorts thresholds, NEVER last."""
    return math.inf if z == NEVER else z


def best_row(rows):
    """The row of the best geomean among those whose trusted picks win more
    often than they lose, or trust none (ties at 4 digits: the larger z).
    `rows` must include NEVER's."""
    sound = [r for r in rows
             if r["trusted_faster"] > r["trusted_slower"] or r["trusted"] == 0]
    return max(sound, key=lambda r: (round(r["geomean_over_heuristic"], 4),
                                     z_order(r["z"])))


def plotted(rows):
    """The rows of numeric thresholds (a plot's x axis)."""
    return [r for r in rows if r["z"] != NEVER]


def calibrate(entries):
    """The calibration's JSON object."""
    rows = curve(entries, Z_GRID + [NEVER])
    best = best_row(rows)
    raw = math.exp(sum(e["actual"] for e in entries) / len(entries)) \
        if entries else 1.0
    kernels = sorted({e["kernel"] for e in entries})
    per_kernel = {}
    for k in kernels:
        sub = [e for e in entries if e["kernel"] == k]
        at = curve(sub, [best["z"]])[0]
        own = best_row(curve(sub, Z_GRID + [NEVER]))
        per_kernel[k] = {
            "problems": len(sub),
            "unguarded_over_heuristic": math.exp(
                sum(e["actual"] for e in sub) / len(sub)),
            "guarded_over_heuristic": at["geomean_over_heuristic"],
            "trusted": at["trusted"], "differing": at["differing"],
            "own_z": own["z"],
            "guarded_over_heuristic_own_z": own["geomean_over_heuristic"],
            "trusted_own_z": own["trusted"]}
    return {"z": best["z"], "problems": len(entries),
            "z_by_kernel": {k: v["own_z"] for k, v in per_kernel.items()},
            "unguarded_over_heuristic": raw,
            "guarded_over_heuristic": best["geomean_over_heuristic"],
            "per_kernel": per_kernel, "curve": rows}


def plot(result, entries, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4))
    rows = plotted(result["curve"])
    zs = [r["z"] for r in rows]
    ax.plot(zs, [r["geomean_over_heuristic"] for r in rows],
            label="all kernels", color="black")
    for k, v in result["per_kernel"].items():
        sub = [e for e in entries if e["kernel"] == k]
        own = f", own z = {v['own_z']}" if "own_z" in v else ""
        ax.plot(zs, [r["geomean_over_heuristic"] for r in curve(sub, zs)],
                label=k + own, linestyle="--")
    ax.axhline(1.0, color="grey", linewidth=0.8,
               label="heuristic (z = never)")
    if result["z"] != NEVER:
        ax.axvline(result["z"], color="red", linewidth=0.8,
                   label=f"chosen z = {result['z']}")
    ax.set_xlabel("z (spreads the members' mean gain must exceed)")
    ax.set_ylabel("geomean speedup over the heuristic")
    ax.set_title(f"Guard calibration, {result['problems']} held-out problems, "
                 f"z = {result['z']}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def evaluate_scores(model, data, out):
    cmd = [tools.tool("sptune-train"), "--evaluate", model, "--scores", out,
           "--quiet", "--metrics", out + ".metrics.json"]
    for d in data:
        cmd += ["--data", d]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"sptune-train --evaluate {model} failed:\n"
                           f"{proc.stderr.strip()}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", action="append", required=True,
                    help="held-out dataset (repeatable): none of the models "
                    "may have been trained on it")
    ap.add_argument("--model", required=True, help="the main model")
    ap.add_argument("--member", action="append", default=[],
                    help="a member (repeatable, at least 2)")
    ap.add_argument("--json", required=True, help="the calibration to write")
    ap.add_argument("--plot", help="a PNG of the geomean against z")
    args = ap.parse_args(argv)
    if len(args.member) < 2:
        ap.error("give at least 2 --member")
    for path in args.data + [args.model] + args.member:
        if not os.path.isfile(path):
            ap.error(f"no such file: {path}")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            scores = []
            for n, model in enumerate([args.model] + args.member):
                out = os.path.join(tmp, f"scores{n}.jsonl")
                evaluate_scores(model, args.data, out)
                scores.append(read_scores(out))
        entries = problems(scores[0], scores[1:],
                           heuristic_schedules(args.data))
    except (RuntimeError, ValueError, KeyError, tools.ToolNotFound) as e:
        print(f"guard_calibrate: error: {e}", file=sys.stderr)
        return 1
    if not entries:
        print("guard_calibrate: error: no held-out problem has a measured "
              "heuristic (collect with --baselines heuristic)", file=sys.stderr)
        return 1
    result = calibrate(entries)
    result["models"] = {"main": args.model, "members": args.member}
    result["data"] = args.data
    result["machines"] = data_machines(args.data)
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    if args.plot:
        plot(result, entries, args.plot)
    print(f"z = {result['z']}: {result['guarded_over_heuristic']:.3f}x the "
          f"heuristic guarded, {result['unguarded_over_heuristic']:.3f}x "
          f"unguarded, on {result['problems']} problems")
    for k, v in result["per_kernel"].items():
        print(f"  {k}: {v['guarded_over_heuristic']:.3f}x guarded, "
              f"{v['unguarded_over_heuristic']:.3f}x unguarded "
              f"({v['trusted']} of {v['differing']} differing picks trusted, "
              f"{v['problems']} problems); its own z = {v['own_z']}: "
              f"{v['guarded_over_heuristic_own_z']:.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
