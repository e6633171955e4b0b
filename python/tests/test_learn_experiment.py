"""Tests of sptune.learn_experiment: seeds and splits, which runs are
bandits, the curves, the paired comparison, the bar against the best single
arm, and a whole experiment over a fake sptune-learn (runs, resume, JSON)."""

import json
import math
import os
import stat
import sys
import tempfile
import unittest

from sptune import learn_experiment as le

# A fake sptune-learn: writes rounds.jsonl and final.pt into --state, with a
# validation top-1 that depends on the strategy, seed and split only, and
# records each call (to check that finished runs are not run again).
FAKE = r'''#!/usr/bin/env python3
import json, os, sys
a = sys.argv[1:]
def opt(name, default=None):
    return a[a.index(name) + 1] if name in a else default
state, seed, split = opt("--state"), int(opt("--seed")), int(opt("--split-seed"))
strategy = opt("--strategy", "bandit")
arms = opt("--arms", "")
os.makedirs(state, exist_ok=True)
with open(os.path.join(os.path.dirname(state), "calls.log"), "a") as f:
    f.write(os.path.basename(state) + "\n")
budgets = [float(b.rstrip("%")) / 100 for b in opt("--rounds-at").split(",")]
base = {"random": 1.0, "exploitation": 1.5, "bandit": 1.6}.get(strategy, 1.2)
if "exploitation+random" in arms:
    base = 1.7
reference = 1000.0 + split
with open(os.path.join(state, "rounds.jsonl"), "w") as f:
    for n, b in enumerate(budgets):
        top1 = 3.0 if strategy == "random" and b == 1.0 else \
            base * (1 + n) * (1 + 0.01 * seed)
        f.write(json.dumps({"round": n + 1, "cumulative_cost_s": b * reference,
                            "arm": None if strategy != "bandit" or n == 0 else "exploitation",
                            "validation": {"top1_speedup": top1,
                                           "kendall_tau": 0.1 * (n + 1)}}) + "\n")
open(os.path.join(state, "final.pt"), "w").write("model")
'''


class SmallPieces(unittest.TestCase):
    def test_seeds(self):
        self.assertEqual(le.parse_seeds("3", count=True), [1, 2, 3])
        self.assertEqual(le.parse_seeds("201"), [201], "one seed, not 201 of them")
        self.assertEqual(le.parse_seeds("201-203"), [201, 202, 203])
        self.assertEqual(le.parse_seeds("4,9"), [4, 9])
        for bad in ("x", "5-3", "1-b", ""):
            with self.assertRaises(ValueError):
                le.parse_seeds(bad)

    def test_which_runs_are_bandits(self):
        configs = {"mix": "--strategy bandit --arms exploitation,random",
                   "plain": "--arms a,b", "greedy": "--strategy=exploitation"}
        self.assertTrue(le.is_bandit("mix", configs))
        self.assertTrue(le.is_bandit("plain", configs), "sptune-learn's default")
        self.assertFalse(le.is_bandit("greedy", configs))
        self.assertTrue(le.is_bandit("bandit-ucb1", configs))
        self.assertFalse(le.is_bandit("exploitation+random@0.25", configs))

    def test_paired(self):
        a = {"runs": [[1, 1, 2.0], [1, 2, 1.0], [2, 1, 3.0], [2, 2, None]]}
        b = {"runs": [[1, 1, 1.0], [1, 2, 1.0], [2, 1, 4.0], [2, 2, 1.0]]}
        self.assertEqual(le.paired(a, b), {"wins": 1, "ties": 1, "losses": 1})

    def test_summary_and_bar(self):
        full = {(1, 1): (4.0, 100.0), (2, 1): (2.0, 200.0)}
        def rounds(top1s, costs):
            return [{"cumulative_cost_s": c, "arm": None,
                     "validation": {"top1_speedup": t, "kendall_tau": 0.5}}
                    for t, c in zip(top1s, costs)]
        runs = {
            "bandit": {(1, 1): rounds([2.0, 3.9], [2, 10]),
                       (2, 1): rounds([1.0, 1.9], [4, 20])},
            "exploitation": {(1, 1): rounds([1.0, 3.8], [2, 10]),
                             (2, 1): rounds([1.5, 1.8], [4, 20])},
            "random": {(1, 1): rounds([1.0, 1.0], [2, 10]),
                       (2, 1): rounds([1.0, 1.0], [4, 20])}}
        curves = le.summarize(runs, full)
        b = curves["bandit"]
        self.assertAlmostEqual(b[0]["budget_fraction"], 0.02)
        self.assertAlmostEqual(b[1]["budget_fraction"], 0.10)
        self.assertAlmostEqual(b[1]["top1_geomean"], math.sqrt(3.9 * 1.9))
        self.assertAlmostEqual(b[1]["of_full_geomean"], math.sqrt(3.9 / 4 * 1.9 / 2))
        self.assertEqual(sorted(b[1]["top1_per_split"]), ["1", "2"])
        self.assertAlmostEqual(b[1]["top1_per_split"]["1"], 3.9)
        self.assertAlmostEqual(b[1]["top1_per_split"]["2"], 1.9)
        full_top1 = math.sqrt(8.0)
        bar = le.check_bar(curves, full_top1, ["bandit"], ["exploitation", "random"])
        rows = bar["policies"]["bandit"]["rows"]
        # 2% and 5% both map to round 1 (nearest in log budget), 10% to 2.
        self.assertEqual([r["best_arm"] for r in rows], ["exploitation"] * 3)
        self.assertEqual(rows[0]["paired_vs_best_arm"], {"wins": 1, "ties": 0, "losses": 1})
        self.assertTrue(rows[0]["at_least_best_arm"])  # sqrt(2) >= sqrt(1.5)
        self.assertTrue(rows[2]["at_least_best_arm"])
        self.assertEqual(rows[2]["random"], 1.0)
        self.assertIsNone(rows[2]["rs2"])
        self.assertTrue(bar["policies"]["bandit"]["at_least_best_arm_everywhere"])
        # 95% of the full-data top-1 (0.95 * 2.83 = 2.69) is reached at 10%
        # (2.72).
        self.assertAlmostEqual(bar["policies"]["bandit"]["reaches_95pct_at"], 0.10)


class WholeExperiment(unittest.TestCase):
    def test_runs_resumes_and_reports(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "build", "bin"))
            exe = os.path.join(tmp, "build", "bin", "sptune-learn")
            with open(exe, "w") as f:
                f.write(FAKE.replace("#!/usr/bin/env python3", "#!" + sys.executable))
            os.chmod(exe, os.stat(exe).st_mode | stat.S_IEXEC)
            out = os.path.join(tmp, "runs")
            js = os.path.join(tmp, "summary.json")
            argv = ["--build", os.path.join(tmp, "build"), "--replay", "x.jsonl",
                    "--out", out, "--strategies", "random,exploitation",
                    "--config", "mix=--strategy bandit --arms exploitation,exploitation+random@0.25",
                    "--seeds", "2", "--split-seeds", "3,4", "--full-seeds", "1",
                    "--rounds-at", "2%,5%,10%", "--jobs", "2", "--json", js]
            le.main(argv)
            calls = open(os.path.join(out, "calls.log")).read().split()
            self.assertEqual(len(calls), 3 * 2 * 2 + 2)
            self.assertIn("mix-split4-seed2", calls)
            self.assertIn("full-split3-seed1", calls)
            doc = json.load(open(js))
            self.assertEqual(doc["bandits"], ["mix"])
            self.assertEqual(doc["single_arms"], ["random", "exploitation"])
            self.assertEqual(doc["split_seeds"], [3, 4])
            self.assertEqual(doc["reference_cost_s"], {"3": 1003.0, "4": 1004.0})
            rows = doc["bar"]["policies"]["mix"]["rows"]
            self.assertEqual([r["best_arm"] for r in rows], ["exploitation"] * 3)
            self.assertEqual(rows[0]["paired_vs_best_arm"]["wins"], 4)
            self.assertTrue(doc["bar"]["policies"]["mix"]["at_least_best_arm_everywhere"])
            # Again: every run is finished, nothing runs.
            le.main(argv)
            self.assertEqual(len(open(os.path.join(out, "calls.log")).read().split()),
                             len(calls))


if __name__ == "__main__":
    unittest.main()
