"""COGNATE-style transfer to an expensive target, as a learning curve.

Trains the target's model on the measurements of n matrices (n growing) in
two ways — fine-tuned from a model pre-trained on cheap CPU data (frozen
matrix and schedule encoders; only the target's knob autoencoder and the
predictor learn) and from scratch — and evaluates both on held-out matrices:
Kendall's tau and the top-1 speedup over the target's default schedule.

    /usr/bin/python3 -m sptune.transfer_curve --build build --target spade \
        --base cost-model/models/cpu-default.pt --few few.jsonl \
        --eval eval.jsonl --sizes 2,4,8,16,24 --json out.json --plot out.png
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

TAU = re.compile(r"Kendall tau (-?[0-9.]+)")
TOP1 = re.compile(r"top-1 ([0-9.]+)x")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"transfer_curve: {' '.join(cmd)} failed:\n{p.stderr[-800:]}")
    return p.stdout + p.stderr


def evaluate(train, model, data, target):
    out = run([train, "--data", data, "--target", target, "--evaluate", model, "--quiet"])
    line = [l for l in out.splitlines() if l.startswith("evaluated")][-1]
    nxt = out.splitlines()[out.splitlines().index(line) + 1]
    tau = float(TAU.search(line).group(1))
    top1 = TOP1.search(nxt)
    return tau, float(top1.group(1)) if top1 else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--target", default="spade")
    ap.add_argument("--base", required=True)
    ap.add_argument("--few", required=True)
    ap.add_argument("--eval", required=True)
    ap.add_argument("--sizes", default="2,4,8,16,24")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--finetune-schedule-encoder", action="store_true",
                    help="fine-tune the schedule encoder too")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--plot")
    args = ap.parse_args(argv)
    train = os.path.join(args.build, "bin", "sptune-train")
    records = [json.loads(l) for l in open(args.few) if l.strip()]
    matrices = sorted({r["matrix"]["id"] for r in records})
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(x) for x in args.sizes.split(",")]:
            for seed in range(args.seeds):
                chosen = set(random.Random(seed).sample(matrices, min(n, len(matrices))))
                subset = os.path.join(tmp, "few.jsonl")
                with open(subset, "w") as f:
                    for r in records:
                        if r["matrix"]["id"] in chosen:
                            f.write(json.dumps(r) + "\n")
                samples = sum(1 for r in records if r["matrix"]["id"] in chosen)
                result = {"matrices": n, "seed": seed, "samples": samples}
                for how in ("finetune", "scratch"):
                    model = os.path.join(tmp, how + ".pt")
                    cmd = [train, "--data", subset, "--target", args.target, "--out", model,
                           "--epochs", str(args.epochs), "--holdout", "0", "--seed", str(seed),
                           "--quiet"]
                    if how == "finetune":
                        cmd += ["--finetune-from", args.base]
                        if args.finetune_schedule_encoder:
                            cmd += ["--finetune-schedule-encoder"]
                    run(cmd)
                    tau, top1 = evaluate(train, model, args.eval, args.target)
                    result[how] = {"tau": tau, "top1": top1}
                rows.append(result)
                print(f"{n:3d} matrices ({samples:4d} samples) seed {seed}: "
                      f"fine-tuned tau {result['finetune']['tau']:.3f} top-1 {result['finetune']['top1']}x | "
                      f"scratch tau {result['scratch']['tau']:.3f} top-1 {result['scratch']['top1']}x", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        sizes = sorted({r["matrices"] for r in rows})
        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        for ax, metric, label in ((axes[0], "tau", "held-out Kendall tau"),
                                  (axes[1], "top1", "held-out top-1 speedup over default")):
            for how, style in (("finetune", "o-"), ("scratch", "s--")):
                ys = []
                for n in sizes:
                    vals = [r[how][metric] for r in rows if r["matrices"] == n and r[how][metric] is not None]
                    ys.append(sum(vals) / len(vals) if vals else float("nan"))
                ax.plot(sizes, ys, style, label="fine-tuned from CPU" if how == "finetune" else "from scratch")
            ax.set_xscale("log", base=2)
            ax.set_xlabel(f"{args.target} training matrices")
            ax.set_title(label)
            ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)


if __name__ == "__main__":
    main()
