"""Active-learning strategy comparison in replay, with learning curves.

Runs `sptune-learn --replay` for every strategy (and both bandit policies)
over several seeds, and a full-data model per seed (every sample of the
pool, one round); then summarizes the validation top-1 speedup and Kendall
tau at each budget (mean, min, max over seeds), checks the issue's bar
(bandit >= 95% of the full-data top-1 at <= 10% of the cost, and above
random and RS2 at every budget <= 10%), and plots the learning curves.
Runs resume: a finished run is not run again.

    /usr/bin/python3 -m sptune.learn_experiment --build build \
        --replay cpu.jsonl --out build/learn-runs/cpu --seeds 5 --jobs 2 \
        --json cpu-summary.json --plot cpu-curves.png
"""

import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import time

STRATEGIES = ["random", "rs2", "diversity", "uncertainty", "exploitation",
              "exploration", "bandit-ucb1", "bandit-thompson"]
DEFAULT_ROUNDS = "0.5%,1%,1.5%,2%,3%,4%,5%,6.5%,8%,10%,15%,20%"


def run_args(args, strategy, seed, state):
    cmd = [os.path.join(args.build, "bin", "sptune-learn"), "--quiet",
           "--target", args.target, "--seed", str(seed), "--state", state,
           "--split-seed", str(args.split_seed),
           "--validation-fraction", str(args.validation_fraction)]
    for r in args.replay:
        cmd += ["--replay", r]
    if strategy == "full":
        cmd += ["--strategy", "random", "--rounds-at", "100%",
                "--initial-epochs", str(args.full_epochs)]
    elif strategy.startswith("bandit-"):
        cmd += ["--strategy", "bandit", "--policy", strategy.split("-", 1)[1],
                "--rounds-at", args.rounds_at]
    else:
        cmd += ["--strategy", strategy, "--rounds-at", args.rounds_at]
    return cmd + args.extra


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


def summarize(runs, reference):
    """runs: {strategy: {seed: [round records]}} -> curves per strategy."""
    out = {}
    for strategy, seeds in runs.items():
        if strategy == "full":
            continue
        points = {}
        for seed, rounds in seeds.items():
            for i, r in enumerate(rounds):
                v = r["validation"]
                points.setdefault(i, []).append(
                    (r["cumulative_cost_s"] / reference,
                     v["top1_speedup"], v["kendall_tau"], r.get("arm")))
        curve = []
        for i in sorted(points):
            p = points[i]
            top1 = [x[1] for x in p if x[1] is not None]
            tau = [x[2] for x in p]
            curve.append({
                "round": i + 1,
                "budget_fraction": sum(x[0] for x in p) / len(p),
                "seeds": len(p),
                "top1_geomean": math.exp(sum(math.log(t) for t in top1) / len(top1)) if top1 else None,
                "top1_min": min(top1) if top1 else None,
                "top1_max": max(top1) if top1 else None,
                "tau_mean": sum(tau) / len(tau),
                "tau_min": min(tau), "tau_max": max(tau),
                "arms": [x[3] for x in p]})
        out[strategy] = curve
    return out


BAR_BUDGETS = (0.02, 0.05, 0.10)


def at_budget(curve, fraction):
    """The round of `curve` whose mean budget is nearest `fraction`."""
    return min(curve, key=lambda p: abs(math.log(p["budget_fraction"] / fraction)))


def check_bar(curves, full_top1):
    """The issue's bar at its budgets <= 10% (2%, 5%, 10%): the bandit
    reaches 95% of the full-data top-1 by 10%, and beats uniform random and
    RS2 at each of them (geometric mean over seeds)."""
    result = {"full_top1": full_top1, "budgets": BAR_BUDGETS, "policies": {}}
    for policy in ("bandit-ucb1", "bandit-thompson"):
        if policy not in curves:
            continue
        rows = []
        reached = None
        for pt in curves[policy]:
            if pt["budget_fraction"] <= 0.1005 and reached is None and \
                    pt["top1_geomean"] >= 0.95 * full_top1:
                reached = pt["budget_fraction"]
        for budget in BAR_BUDGETS:
            pt = at_budget(curves[policy], budget)
            f = pt["budget_fraction"]
            row = {"budget_fraction": f, "bandit": pt["top1_geomean"]}
            for base in ("random", "rs2"):
                other = [q for q in curves.get(base, []) if q["round"] == pt["round"]]
                row[base] = other[0]["top1_geomean"] if other else None
            row["beats_random_and_rs2"] = all(
                row[b] is not None and row["bandit"] > row[b] for b in ("random", "rs2"))
            rows.append(row)
        result["policies"][policy] = {
            "rows": rows,
            "reaches_95pct_at": reached,
            "beats_random_and_rs2_everywhere": all(r["beats_random_and_rs2"] for r in rows)}
    return result


def plot(curves, full_top1, full_tau, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    styles = {"bandit-ucb1": ("k", "-", 2.2), "bandit-thompson": ("tab:purple", "-", 2.2),
              "random": ("tab:gray", "--", 1.5), "rs2": ("tab:brown", "--", 1.5)}
    for strategy, curve in curves.items():
        color, ls, lw = styles.get(strategy, (None, "-", 1.2))
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
    for ax, name in ((axes[0], "validation top-1 speedup over the default (geomean over seeds)"),
                     (axes[1], "validation Kendall tau (mean over seeds)")):
        ax.set_xscale("log")
        ax.set_xlabel("measurement cost, % of the full dataset's")
        ax.set_title(name, fontsize=10)
        ax.axvline(10, color="0.8", lw=0.8)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, ncol=2)
    fig.suptitle(title + " (band: min-max over seeds)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--replay", action="append", required=True)
    ap.add_argument("--target", default="cpu")
    ap.add_argument("--out", required=True, help="directory of the runs' states")
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--rounds-at", default=DEFAULT_ROUNDS)
    ap.add_argument("--full-epochs", type=int, default=60)
    ap.add_argument("--split-seed", type=int, default=1)
    ap.add_argument("--validation-fraction", type=float, default=0.2)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--plot")
    ap.add_argument("--title", default="active learning in replay")
    ap.add_argument("extra", nargs="*", help="more sptune-learn options (after --)")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    strategies = [s for s in args.strategies.split(",") if s] + ["full"]
    expected = len(args.rounds_at.split(","))
    jobs = []
    for strategy in strategies:
        for seed in range(1, args.seeds + 1):
            state = os.path.join(args.out, f"{strategy}-seed{seed}")
            if finished(state, 1 if strategy == "full" else expected):
                continue
            jobs.append((run_args(args, strategy, seed, state), state, state + ".log"))
    start = time.time()
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for n, (state, rc, secs) in enumerate(pool.map(run_one, jobs), 1):
            rate = n / (time.time() - start)
            print(f"\r[{n}/{len(jobs)}] {os.path.basename(state)} {secs:.0f} s; "
                  f"ETA {(len(jobs) - n) / rate:.0f} s   ", end="", file=sys.stderr, flush=True)
            if rc != 0:
                failed.append(state)
    print(file=sys.stderr)
    if failed:
        sys.exit("learn_experiment: failed runs (see their .log): " + ", ".join(failed))

    runs = {}
    reference = None
    for strategy in strategies:
        for seed in range(1, args.seeds + 1):
            state = os.path.join(args.out, f"{strategy}-seed{seed}")
            runs.setdefault(strategy, {})[seed] = rounds_of(state)
            if strategy == "full":
                r = rounds_of(state)[-1]
                reference = r["cumulative_cost_s"]
    full = [r[-1]["validation"] for r in runs["full"].values()]
    full_top1 = math.exp(sum(math.log(v["top1_speedup"]) for v in full) / len(full))
    full_tau = sum(v["kendall_tau"] for v in full) / len(full)
    curves = summarize(runs, reference)
    bar = check_bar(curves, full_top1)
    summary = {"reference_cost_s": reference, "full_top1": full_top1, "full_tau": full_tau,
               "full_top1_per_seed": [v["top1_speedup"] for v in full],
               "seeds": args.seeds, "rounds_at": args.rounds_at, "curves": curves, "bar": bar}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    if args.plot:
        plot(curves, full_top1, full_tau, args.plot, args.title)
    # A table on stdout: top-1 per strategy at each budget.
    budgets = [p["budget_fraction"] for p in curves[strategies[0]]]
    print("strategy".ljust(17) + "".join(f"{100 * b:>7.1f}%" for b in budgets))
    for s, c in curves.items():
        print(s.ljust(17) + "".join(f"{p['top1_geomean']:>8.2f}" for p in c))
    print(f"full data: top-1 {full_top1:.3f}x, tau {full_tau:.3f}")
    for policy, r in bar["policies"].items():
        at = r["reaches_95pct_at"]
        reached = "never (<= 10%)" if at is None else f"{100 * at:.1f}%"
        print(f"{policy}: reaches 95% of full at {reached}; beats random and "
              f"RS2 at 2%, 5% and 10%: {r['beats_random_and_rs2_everywhere']}")


if __name__ == "__main__":
    main()
