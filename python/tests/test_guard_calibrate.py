"""Tests of sptune.guard_calibrate: the problems it builds from scores and
the heuristic's records, the verdict it mirrors, the curve over z and the
choice of z."""

import json
import math
import os
import tempfile
import unittest

from sptune import guard_calibrate as gc

HEUR = "cpu spmm, heuristic"


def scores_file(path, groups):
    with open(path, "w") as f:
        for key, (schedules, times, scores) in groups.items():
            f.write(json.dumps({"key": key, "default_time": None,
                                "schedules": schedules, "times": times,
                                "scores": scores}) + "\n")


class Problems(unittest.TestCase):
    def test_the_main_models_pick_against_the_heuristic(self):
        schedules = [HEUR, "cpu spmm, a", "cpu spmm, b"]
        main = {"M|spmm|64|cpu": (schedules, [2.0, 1.0, 4.0], [0.0, 0.5, 0.1]),
                "N|spmm|64|cpu": (schedules, [1.0, 3.0, 4.0], [0.9, 0.5, 0.1]),
                "X|spmm|64|cpu": (schedules, [1.0, 3.0, 4.0], [0.0, 0.5, 0.1])}
        member = {k: (s, t, [0.0, 0.2, 0.0]) for k, (s, t, _) in main.items()}
        heuristics = {"M|spmm|64|cpu": HEUR, "N|spmm|64|cpu": HEUR}
        entries = gc.problems(main, [member, member], heuristics)
        # X has no measured heuristic: left out.
        self.assertEqual([e["key"] for e in entries],
                         ["M|spmm|64|cpu", "N|spmm|64|cpu"])
        m, n = entries
        self.assertAlmostEqual(m["actual"], math.log(2.0))
        self.assertEqual(m["gains"], [0.2, 0.2])
        # N: the main model picks the heuristic itself, nothing to judge.
        self.assertEqual(n["actual"], 0.0)
        self.assertEqual(n["gains"], [])

    def test_other_schedules_are_refused(self):
        main = {"M|spmm|64|cpu": ([HEUR, "a"], [1.0, 2.0], [0.0, 1.0])}
        member = {"M|spmm|64|cpu": ([HEUR, "b"], [1.0, 2.0], [0.0, 1.0])}
        with self.assertRaises(ValueError):
            gc.problems(main, [member, member], {"M|spmm|64|cpu": HEUR})


class Verdict(unittest.TestCase):
    def test_mirrors_the_cpp_guard(self):
        # ModelGuardTest.VerdictIsTheMembersMeanAgainstZSpreads
        self.assertTrue(gc.trusted([0.3, 0.2, 0.4], 2.9))
        self.assertFalse(gc.trusted([0.3, 0.2, 0.4], 3.0))
        self.assertTrue(gc.trusted([0.1, 0.1], 100))
        self.assertFalse(gc.trusted([-0.2, 0.1, -0.3], 0))
        self.assertFalse(gc.trusted([], 0))
        # ModelGuardTest.NeverTrustsNoPick
        self.assertFalse(gc.trusted([0.5, 0.5], gc.NEVER))
        self.assertFalse(gc.trusted([0.5, 0.4, 0.6], gc.NEVER))


class Calibration(unittest.TestCase):
    def entries(self):
        # Two sure and right picks, two unsure and wrong ones, one same pick.
        return [
            {"key": "a", "kernel": "spmm", "actual": math.log(1.5),
             "gains": [0.5, 0.45, 0.55]},
            {"key": "b", "kernel": "spmm", "actual": math.log(1.2),
             "gains": [0.5, 0.38, 0.62]},
            {"key": "c", "kernel": "spmv", "actual": math.log(0.5),
             "gains": [0.2, -0.1, 0.3]},
            {"key": "d", "kernel": "spmv", "actual": math.log(0.8),
             "gains": [0.1, -0.2, 0.2]},
            {"key": "e", "kernel": "spmv", "actual": 0.0, "gains": []},
        ]

    def test_curve(self):
        rows = gc.curve(self.entries(), [0.0, 1.0, 10.0])
        # z = 0: every pick with a positive mean is trusted (a, b, c, d).
        self.assertEqual(rows[0]["trusted"], 4)
        self.assertEqual(rows[0]["trusted_slower"], 2)
        self.assertAlmostEqual(rows[0]["geomean_over_heuristic"],
                               (1.5 * 1.2 * 0.5 * 0.8) ** (1 / 5))
        # z = 1: only the sure ones.
        self.assertEqual(rows[1]["trusted"], 2)
        self.assertAlmostEqual(rows[1]["geomean_over_heuristic"],
                               (1.5 * 1.2) ** (1 / 5))
        # z = 10: none.
        self.assertEqual(rows[2]["trusted"], 0)
        self.assertEqual(rows[2]["geomean_over_heuristic"], 1.0)
        self.assertEqual(rows[2]["differing"], 4)

    def test_choice_is_the_best_geomean_then_the_larger_z(self):
        result = gc.calibrate(self.entries())
        # From z = 0.7 (c, at 0.64 spreads, and d drop out) to 4.1 (b's
        # mean is 4.17 spreads) the geomean is the same best value; the
        # largest such z is chosen.
        best = (1.5 * 1.2) ** (1 / 5)
        self.assertAlmostEqual(result["guarded_over_heuristic"], best)
        self.assertEqual(result["z"], 4.1)
        self.assertAlmostEqual(result["unguarded_over_heuristic"],
                               (1.5 * 1.2 * 0.5 * 0.8) ** (1 / 5))
        self.assertEqual(result["per_kernel"]["spmv"]["trusted"], 0)
        self.assertEqual(result["per_kernel"]["spmm"]["trusted"], 2)
        self.assertEqual(result["problems"], 5)

    def test_each_kernel_has_its_own_best_z(self):
        result = gc.calibrate(self.entries())
        # SpMM alone: both sure picks pay, b's 4.17 spreads bound z. SpMV
        # alone: both trusted picks lose, so every z that trusts neither
        # ties with "never", the largest.
        self.assertEqual(result["z_by_kernel"], {"spmm": 4.1, "spmv": gc.NEVER})
        spmv = result["per_kernel"]["spmv"]
        self.assertEqual(spmv["own_z"], gc.NEVER)
        self.assertEqual(spmv["trusted_own_z"], 0)
        self.assertAlmostEqual(spmv["guarded_over_heuristic_own_z"], 1.0)
        spmm = result["per_kernel"]["spmm"]
        self.assertAlmostEqual(spmm["guarded_over_heuristic_own_z"],
                               (1.5 * 1.2) ** (1 / 2))

    def test_one_lucky_pick_does_not_decide(self):
        # Five picks, each at 4 spreads: one 3.8x faster, four slower.
        # Trusting them gains in geomean (3.8 * 0.85 * 0.55 * 0.95 * 0.8 =
        # 1.35) but loses more often than it wins; "never" is chosen.
        entries = [{"key": k, "kernel": "spmv", "actual": math.log(t),
                    "gains": [0.5, 0.375, 0.625]}
                   for k, t in [("a", 0.85), ("b", 0.55), ("c", 0.95),
                                ("d", 0.8), ("e", 3.8)]]
        result = gc.calibrate(entries)
        self.assertEqual(result["z"], gc.NEVER)
        self.assertEqual(result["per_kernel"]["spmv"]["own_z"], gc.NEVER)
        self.assertAlmostEqual(result["guarded_over_heuristic"], 1.0)
        self.assertGreater(result["unguarded_over_heuristic"], 1.0)
        self.assertEqual(result["curve"][-1]["z"], gc.NEVER)
        self.assertEqual(result["curve"][-1]["trusted"], 0)
        # Two more wins (1 of 5 -> 3 of 5): the same picks are trusted.
        entries[0]["actual"] = entries[3]["actual"] = math.log(1.1)
        self.assertEqual(gc.calibrate(entries)["z"], 3.9)
        # As many wins as losses is not enough; a pick as fast as the
        # heuristic is no win.
        entries[0]["actual"] = 0.0
        self.assertEqual(gc.calibrate(entries)["z"], gc.NEVER)

    def test_a_sound_threshold_beats_a_better_unsound_one(self):
        # Below 2 spreads a (1.5x, at 8 spreads), b (3x) and c, d (0.95x;
        # b, c, d at 1.5 spreads) are trusted: 2 wins, 2 losses, geomean
        # (1.5 * 3 * 0.95 ** 2) ** (1 / 4) = 1.42 but unsound. From 2 to 7.9
        # spreads a alone: sound, 1.5 ** (1 / 4) = 1.11.
        entries = [{"key": k, "kernel": "spmm", "actual": math.log(t),
                    "gains": g}
                   for k, t, g in [("a", 1.5, [0.8, 0.7, 0.9]),
                                   ("b", 3.0, [0.3, 0.1, 0.5]),
                                   ("c", 0.95, [0.3, 0.1, 0.5]),
                                   ("d", 0.95, [0.3, 0.1, 0.5])]]
        result = gc.calibrate(entries)
        self.assertEqual(result["z"], 7.9)
        self.assertAlmostEqual(result["guarded_over_heuristic"],
                               1.5 ** (1 / 4))
        row = result["curve"][0]
        self.assertEqual((row["trusted"], row["trusted_faster"],
                          row["trusted_slower"]), (4, 2, 2))
        self.assertGreater(row["geomean_over_heuristic"],
                           result["guarded_over_heuristic"])

    def test_plots_a_never_calibration(self):
        entries = [{"key": "a", "kernel": "spmv", "actual": math.log(0.5),
                    "gains": [0.3, 0.2, 0.4]}]
        result = gc.calibrate(entries)
        self.assertEqual(result["z"], gc.NEVER)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "c.png")
            gc.plot(result, entries, path)
            self.assertGreater(os.path.getsize(path), 1000)

    def test_reads_scores_and_heuristics(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "s.jsonl")
            scores_file(path, {"M|spmm|64|cpu": ([HEUR], [1.0], [0.5])})
            self.assertEqual(gc.read_scores(path),
                             {"M|spmm|64|cpu": ([HEUR], [1.0], [0.5])})
            data = os.path.join(tmp, "d.jsonl")
            with open(data, "w") as f:
                for role, status in [("baseline:heuristic", "ok"),
                                     ("sample", "ok"),
                                     ("baseline:heuristic", "error")]:
                    f.write(json.dumps({
                        "role": role, "status": status, "kernel": "spmm",
                        "free": 64, "target": "cpu",
                        "matrix": {"id": "M" if status == "ok" else "E"},
                        "schedule": HEUR if role != "sample" else "x"}) + "\n")
            self.assertEqual(gc.heuristic_schedules([data]),
                             {"M|spmm|64|cpu": HEUR})
            # An f64 problem's key is the trainer's (SampleGroup::key()).
            wide = os.path.join(tmp, "w.jsonl")
            with open(wide, "w") as f:
                f.write(json.dumps({
                    "role": "baseline:heuristic", "status": "ok", "bits": 64,
                    "kernel": "spmm", "free": 64, "target": "cpu",
                    "matrix": {"id": "M"}, "schedule": HEUR}) + "\n")
            self.assertEqual(gc.heuristic_schedules([wide]),
                             {"M|spmm|64|cpu|64-bit": HEUR})
            self.assertEqual(gc.data_machines([data]), [])
            with open(data, "a") as f:
                for cpu in ["B cpu", "A cpu", "B cpu"]:
                    f.write(json.dumps({"role": "sample", "status": "ok",
                                        "machine": {"cpu": cpu}}) + "\n")
            self.assertEqual(gc.data_machines([data]), ["A cpu", "B cpu"])


if __name__ == "__main__":
    unittest.main()
