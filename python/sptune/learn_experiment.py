"""Active-learning strategy comparison in replay, with learning curves.

Runs `sptune-learn --replay` for every strategy (and bandit settings) over
several seeds and validation splits, and a full-data model per seed and
split (every sample of the pool, one round); then summarizes the validation
top-1 speedup and Kendall tau at each budget (geomean, min, max over the
runs, and per split), names the best single arm at each budget, counts the
bandit's paired per-run wins against it, checks the issue's bar (bandit >=
95% of the full-data top-1 at <= 10% of the cost, and at least the best
single arm at every budget <= 10%), and plots the learning curves. Runs
resume: a finished run is not run again.

    /usr/bin/python3 -m sptune.learn_experiment --build build \
        --replay cpu.jsonl --out build/learn-runs/cpu --seeds 201-210 \
        --split-seeds 3,4,5 --jobs 2 --json cpu-summary.json \
        --plot cpu-curves.png \
        --config "bandit-mix=--strategy bandit --arms exploitation,exploitation+random@0.25"

A strategy is a name sptune-learn's --strategy takes (a mix
"main+other@share" too), "bandit-ucb1" / "bandit-thompson" / "bandit-hedge"
(the bandit with that policy and its default arms), or a --config
NAME=OPTIONS (a bandit when
its options say --strategy bandit). Every other strategy is a single arm.
"""

import argparse
import concurrent.futures
import json
import math
import os
import shlex
import subprocess
import sys
import time

STRATEGIES = ["random", "rs2", "diversity", "uncertainty", "exploitation",
              "exploration", "bandit-ucb1", "bandit-thompson"]
DEFAULT_ROUNDS = "0.5%,1%,1.5%,2%,3%,4%,5%,6.5%,8%,10%,15%,20%"


def parse_seeds(text, count=False):
    """"201-210" -> 201..210, "1,4,9" -> those, "7" -> [7]; with `count`
    (--seeds, as before), a lone number N means 1..N."""
    text = text.strip()
    try:
        if "," in text:
            return [int(x) for x in text.split(",") if x.strip()]
        if "-" in text:
            lo, hi = text.split("-", 1)
            seeds = list(range(int(lo), int(hi) + 1))
            if not seeds:
                raise ValueError
            return seeds
        n = int(text)
    except ValueError:
        raise ValueError(f"bad seeds {text!r} (A-B, a list, or a number)")
    return list(range(1, n + 1)) if count else [n]


def strategy_of(name, configs):
    """The --strategy a run of `name` gives sptune-learn."""
    if name in configs:
        args = shlex.split(configs[name])
        for i, a in enumerate(args):
            if a.startswith("--strategy="):
                return a.split("=", 1)[1]
            if a == "--strategy" and i + 1 < len(args):
                return args[i + 1]
        return "bandit"  # sptune-learn's default
    return "bandit" if name.startswith("bandit-") else name


def is_bandit(name, configs):
    return strategy_of(name, configs) == "bandit"


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def run_args(args, name, seed, split, state, configs):
    cmd = [os.path.join(args.build, "bin", "sptune-learn"), "--quiet",
           "--target", args.target, "--seed", str(seed), "--state", state,
           "--split-seed", str(split),
           "--validation-fraction", str(args.validation_fraction),
           "--reward-fraction", str(args.reward_fraction)]
    for r in args.replay:
        cmd += ["--replay", r]
    if name == "full":
        cmd += ["--strategy", "random", "--rounds-at", "100%",
                "--initial-epochs", str(args.full_epochs)]
    elif name in configs:
        cmd += ["--rounds-at", args.rounds_at] + shlex.split(configs[name])
    elif name.startswith("bandit-"):
        cmd += ["--strategy", "bandit", "--policy", name.split("-", 1)[1],
                "--rounds-at", args.rounds_at]
    else:
        cmd += ["--strategy", name, "--rounds-at", args.rounds_at]
    return cmd + args.extra


def state_dir(out, name, split, seed):
    return os.path.join(out, f"{name}-split{split}-seed{seed}")


def rounds_of(state):
    path = os.path.join(state, "rounds.jsonl")
    if not os.path.exists(path):
        return []
    return [json.loads(l) for l in open(path) if l.strip()]


def finished(state, expected):
    return (os.path.exists(os.path.join(state, "final.pt")) and
            len(rounds_of(state)) >= expected)


def run_one(job):
    cmd, state, log = job
    start = time.time()
    with open(log, "w") as f:
        p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    return state, p.returncode, time.time() - start


def summarize(runs, full):
    """runs: {name: {(split, seed): [round records]}}; full: {(split, seed):
    full-data validation top-1, and the split's reference cost} -> curves
    per strategy: per round, the geomean, min and max of the validation top-1
    over the runs, per split, and of its ratio to the full-data model's."""
    full_top1 = {}
    reference = {}
    for (split, seed), (top1, cost) in full.items():
        full_top1.setdefault(split, []).append(top1)
        reference[split] = cost
    full_by_split = {s: geomean(v) for s, v in full_top1.items()}
    out = {}
    for name, per_run in runs.items():
        points = {}
        for (split, seed), rounds in per_run.items():
            for i, r in enumerate(rounds):
                v = r["validation"]
                points.setdefault(i, []).append({
                    "split": split, "seed": seed,
                    "fraction": r["cumulative_cost_s"] / reference[split],
                    "top1": v["top1_speedup"], "tau": v["kendall_tau"],
                    "arm": r.get("arm")})
        curve = []
        for i in sorted(points):
            p = points[i]
            top1 = [x["top1"] for x in p if x["top1"] is not None]
            tau = [x["tau"] for x in p]
            splits = sorted({x["split"] for x in p})
            curve.append({
                "round": i + 1,
                "budget_fraction": sum(x["fraction"] for x in p) / len(p),
                "seeds": len(p),
                "top1_geomean": geomean(top1),
                "top1_min": min(top1) if top1 else None,
                "top1_max": max(top1) if top1 else None,
                "top1_per_split": {str(s): geomean([x["top1"] for x in p if x["split"] == s])
                                   for s in splits},
                "of_full_geomean": geomean([x["top1"] / full_by_split[x["split"]]
                                            for x in p if x["top1"]]),
                "tau_mean": sum(tau) / len(tau),
                "tau_min": min(tau), "tau_max": max(tau),
                "runs": [[x["split"], x["seed"], x["top1"]] for x in p],
                "arms": [x["arm"] for x in p]})
        out[name] = curve
    return out


BAR_BUDGETS = (0.02, 0.05, 0.10)


def at_budget(curve, fraction):
    """The round of `curve` whose mean budget is nearest `fraction`."""
    return min(curve, key=lambda p: abs(math.log(p["budget_fraction"] / fraction)))


def paired(a, b):
    """Per-run wins, ties and losses of curve point `a` against `b` (runs
    matched by split and seed)."""
    other = {(s, n): t for s, n, t in b["runs"]}
    wins = ties = losses = 0
    for s, n, t in a["runs"]:
        u = other.get((s, n))
        if t is None or u is None:
            continue
        if t > u * (1 + 1e-9):
            wins += 1
        elif u > t * (1 + 1e-9):
            losses += 1
        else:
            ties += 1
    return {"wins": wins, "ties": ties, "losses": losses}


def check_bar(curves, full_top1, bandits, arms):
    """The issue's bar at its budgets <= 10% (2%, 5%, 10%): each bandit
    reaches 95% of the full-data top-1 by 10%, and is at least the best
    single arm at each of them (geometric mean over the runs; the paired
    per-run wins counted). Random's and RS2's figures are kept beside."""
    result = {"full_top1": full_top1, "budgets": BAR_BUDGETS, "policies": {}}
    for policy in bandits:
        rows = []
        reached = None
        for pt in curves[policy]:
            if pt["budget_fraction"] <= 0.1005 and reached is None and \
                    pt["top1_geomean"] >= 0.95 * full_top1:
                reached = pt["budget_fraction"]
        for budget in BAR_BUDGETS:
            pt = at_budget(curves[policy], budget)
            row = {"budget_fraction": pt["budget_fraction"], "bandit": pt["top1_geomean"],
                   "of_full": pt["top1_geomean"] / full_top1}
            same = {a: [q for q in curves[a] if q["round"] == pt["round"]] for a in arms}
            same = {a: q[0] for a, q in same.items() if q}
            for base in ("random", "rs2"):
                row[base] = same[base]["top1_geomean"] if base in same else None
            row["beats_random_and_rs2"] = all(
                row[b] is not None and row["bandit"] > row[b] for b in ("random", "rs2"))
            if same:
                best = max(same, key=lambda a: same[a]["top1_geomean"])
                row["best_arm"] = best
                row["best_arm_top1"] = same[best]["top1_geomean"]
                row["paired_vs_best_arm"] = paired(pt, same[best])
                row["at_least_best_arm"] = row["bandit"] >= row["best_arm_top1"]
            rows.append(row)
        result["policies"][policy] = {
            "rows": rows,
            "reaches_95pct_at": reached,
            "beats_random_and_rs2_everywhere": all(r["beats_random_and_rs2"] for r in rows),
            "at_least_best_arm_everywhere": all(r.get("at_least_best_arm", False)
                                                for r in rows)}
    return result


def plot(curves, full_top1, full_tau, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    styles = {"bandit-ucb1": ("k", "-", 2.2), "bandit-thompson": ("tab:purple", "-", 2.2),
              "random": ("tab:gray", "--", 1.5), "rs2": ("tab:brown", "--", 1.5)}
    for strategy, curve in curves.items():
        color, ls, lw = styles.get(strategy, (None, "-", 2.2 if strategy.startswith("bandit")
                                              else 1.2))
        x = [100 * p["budget_fraction"] for p in curve]
        for ax, key, lo, hi in ((axes[0], "top1_geomean", "top1_min", "top1_max"),
                                (axes[1], "tau_mean", "tau_min", "tau_max")):
            y = [p[key] for p in curve]
            line, = ax.plot(x, y, ls, color=color, lw=lw, label=strategy, marker=".")
            ax.fill_between(x, [p[lo] for p in curve], [p[hi] for p in curve],
                            color=line.get_color(), alpha=0.08)
    axes[0].axhline(full_top1, color="tab:green", lw=1, label="full data")
    axes[0].axhline(0.95 * full_top1, color="tab:green", lw=1, ls=":", label="95% of full")
    axes[1].axhline(full_tau, color="tab:green", lw=1, label="full data")
    for ax, name in ((axes[0], "validation top-1 speedup over the default (geomean over runs)"),
                     (axes[1], "validation Kendall tau (mean over runs)")):
        ax.set_xscale("log")
        ax.set_xlabel("measurement cost, % of the full dataset's")
        ax.set_title(name, fontsize=10)
        ax.axvline(10, color="0.8", lw=0.8)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, ncol=2)
    fig.suptitle(title + " (band: min-max over runs)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--replay", action="append", required=True)
    ap.add_argument("--target", default="cpu")
    ap.add_argument("--out", required=True, help="directory of the runs' states")
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    ap.add_argument("--config", action="append", default=[], metavar="NAME=OPTIONS",
                    help="a named run with these sptune-learn options (e.g. a bandit's "
                         "arms, --bandit-c, --discount)")
    ap.add_argument("--seeds", default="5", help="N (seeds 1..N), A-B or a list")
    ap.add_argument("--split-seeds", default="1",
                    help="validation splits: one, A-B or a list")
    ap.add_argument("--full-seeds", help="seeds of the full-data models: one, A-B or a list "
                                         "(default: --seeds)")
    ap.add_argument("--rounds-at", default=DEFAULT_ROUNDS)
    ap.add_argument("--full-epochs", type=int, default=60)
    ap.add_argument("--validation-fraction", type=float, default=0.2)
    ap.add_argument("--reward-fraction", type=float, default=0.15,
                    help="the bandit's reward set, taken from every run's pool (0: none)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--plot")
    ap.add_argument("--title", default="active learning in replay")
    ap.add_argument("extra", nargs="*", help="more sptune-learn options (after --)")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    configs = {}
    for c in args.config:
        name, sep, opts = c.partition("=")
        if not sep or not name or name == "full" or "/" in name:
            ap.error(f"--config {c!r}: expected NAME=OPTIONS")
        configs[name] = opts
    names = [s for s in args.strategies.split(",") if s] + list(configs)
    try:
        seeds = parse_seeds(args.seeds, count=True)
        splits = parse_seeds(args.split_seeds)
        full_seeds = parse_seeds(args.full_seeds) if args.full_seeds else seeds
    except ValueError as e:
        ap.error(str(e))
    expected = len(args.rounds_at.split(","))
    plan = [(n, split, seed) for n in names for split in splits for seed in seeds] + \
           [("full", split, seed) for split in splits for seed in full_seeds]
    jobs = []
    for name, split, seed in plan:
        state = state_dir(args.out, name, split, seed)
        if finished(state, 1 if name == "full" else expected):
            continue
        jobs.append((run_args(args, name, seed, split, state, configs), state,
                     state + ".log"))
    start = time.time()
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for n, (state, rc, secs) in enumerate(pool.map(run_one, jobs), 1):
            rate = n / (time.time() - start)
            print(f"\r[{n}/{len(jobs)}] {os.path.basename(state)} {secs:.0f} s; "
                  f"{60 * rate:.1f} runs/min, ETA {(len(jobs) - n) / rate:.0f} s   ",
                  end="", file=sys.stderr, flush=True)
            if rc != 0:
                failed.append(state)
    print(file=sys.stderr)
    if failed:
        sys.exit("learn_experiment: failed runs (see their .log): " + ", ".join(failed))

    runs = {}
    full = {}
    for name, split, seed in plan:
        rounds = rounds_of(state_dir(args.out, name, split, seed))
        if name == "full":
            full[(split, seed)] = (rounds[-1]["validation"]["top1_speedup"],
                                   rounds[-1]["cumulative_cost_s"])
        else:
            runs.setdefault(name, {})[(split, seed)] = rounds
    full_runs = [rounds_of(state_dir(args.out, "full", s, n))[-1]["validation"]
                 for s in splits for n in full_seeds]
    full_top1 = geomean([v["top1_speedup"] for v in full_runs])
    full_tau = sum(v["kendall_tau"] for v in full_runs) / len(full_runs)
    curves = summarize(runs, full)
    bandits = [n for n in names if is_bandit(n, configs)]
    arms = [n for n in names if not is_bandit(n, configs)]
    bar = check_bar(curves, full_top1, bandits, arms)
    summary = {"reference_cost_s": {str(s): full[(s, full_seeds[0])][1] for s in splits},
               "full_top1": full_top1, "full_tau": full_tau,
               "full_top1_per_split": {str(s): geomean([full[(s, n)][0] for n in full_seeds])
                                       for s in splits},
               "seeds": seeds, "split_seeds": splits, "full_seeds": full_seeds,
               "rounds_at": args.rounds_at, "reward_fraction": args.reward_fraction,
               "configs": configs, "bandits": bandits, "single_arms": arms,
               "curves": curves, "bar": bar}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    if args.plot:
        plot(curves, full_top1, full_tau, args.plot, args.title)
    # A table on stdout: top-1 per strategy at each budget.
    budgets = [p["budget_fraction"] for p in curves[names[0]]]
    width = max(17, max(len(n) for n in names) + 2)
    print("strategy".ljust(width) + "".join(f"{100 * b:>7.1f}%" for b in budgets))
    for s, c in curves.items():
        print(s.ljust(width) + "".join(f"{p['top1_geomean']:>8.2f}" for p in c))
    print(f"full data: top-1 {full_top1:.3f}x, tau {full_tau:.3f} "
          f"({len(full_runs)} runs over splits {splits})")
    for policy, r in bar["policies"].items():
        at = r["reaches_95pct_at"]
        reached = "never (<= 10%)" if at is None else f"{100 * at:.1f}%"
        print(f"{policy}: reaches 95% of full at {reached}")
        for row in r["rows"]:
            pv = row.get("paired_vs_best_arm") or {}
            print(f"  {100 * row['budget_fraction']:.1f}%: {row['bandit']:.2f}x "
                  f"({100 * row['of_full']:.0f}% of full); best single arm "
                  f"{row.get('best_arm')} {row.get('best_arm_top1', float('nan')):.2f}x; "
                  f"paired wins/ties/losses {pv.get('wins')}/{pv.get('ties')}/"
                  f"{pv.get('losses')}")
        print(f"  at least the best single arm at 2%, 5% and 10%: "
              f"{r['at_least_best_arm_everywhere']}")


if __name__ == "__main__":
    main()
