"""`python3 -m sptune.paired_compare`: the paired statistics, the sides, and
the worker conversation (against a fake worker: the warm-up pair dropped, a
failed measurement and a hung worker reported, not raised).

    PYTHONPATH=python /usr/bin/python3 -m unittest -v tests.test_paired_compare
"""

import contextlib
import io
import json
import os
import stat
import sys
import tempfile
import unittest

from sptune import paired_compare

# A stand-in for `sptune-measure --worker`: the schedule "fast" takes 1 ms,
# the baseline 2 ms, except that the first answer of each side is 10x slower
# (what the warm-up pair must absorb); "broken" fails, "hang" never answers.
FAKE_WORKER = r'''#!%s
import json, sys, time
seen = set()
for line in sys.stdin:
    q = json.loads(line)
    side = q.get("schedule") or "baseline:" + q.get("baseline", "")
    if side.endswith("broken"):
        print(json.dumps({"id": q["id"], "status": "compile_error", "reason": "no such knob"}), flush=True)
        continue
    if side.endswith("hang"):
        time.sleep(60)
    t = 1e-3 if side.startswith("cpu") else 2e-3
    if side not in seen:
        t *= 10
        seen.add(side)
    answer = {"id": q["id"], "status": "ok", "time_s": {"median": t}}
    if side == "baseline:heuristic":
        answer["schedule"] = "cpu spmm, order = [i, k, j], tile = 0, parallel = outer, vl = 16"
    elif q.get("schedule"):
        answer["schedule"] = q["schedule"]
    print(json.dumps(answer), flush=True)
''' % sys.executable


class PairedStats(unittest.TestCase):
    def test_ratio_is_a_speedup_of_a_over_b(self):
        s = paired_compare.paired_stats([1.0, 1.0, 2.0], [2.0, 3.0, 2.0])
        self.assertEqual(s["pairs"], 3)
        self.assertAlmostEqual(s["median_ratio"], 2.0)
        self.assertAlmostEqual(s["geomean_ratio"], 6 ** (1 / 3))
        self.assertAlmostEqual(s["a_wins"], 2 / 3)
        self.assertEqual((s["a_median_s"], s["b_median_s"]), (1.0, 2.0))
        lo, hi = s["ci95"]
        self.assertTrue(1.0 <= lo <= s["median_ratio"] <= hi <= 3.0)

    def test_interval_of_a_known_spread(self):
        # Ratios 1..9: the median is 5; resampled medians of 9 values stay
        # strictly inside the range and about it.
        s = paired_compare.paired_stats([1.0] * 9, [float(x) for x in range(1, 10)])
        lo, hi = s["ci95"]
        self.assertEqual(s["median_ratio"], 5.0)
        self.assertTrue(2.0 <= lo < 5.0 < hi <= 8.0, (lo, hi))
        # No spread: a point interval.
        self.assertEqual(paired_compare.paired_stats([1.0] * 4, [2.0] * 4)["ci95"], [2.0, 2.0])

    def test_bad_input(self):
        for a, b in (([], []), ([1.0], [1.0, 2.0]), ([0.0], [1.0])):
            with self.assertRaises(ValueError):
                paired_compare.paired_stats(a, b)


class Sides(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(paired_compare.parse_side("baseline:mlir-default"),
                         ("baseline", "mlir-default"))
        self.assertEqual(paired_compare.parse_side(" cpu spmv, tile = 0 "),
                         ("schedule", "cpu spmv, tile = 0"))
        for bad in ("", "baseline:", "  "):
            with self.assertRaises(ValueError):
                paired_compare.parse_side(bad)

    def test_heuristic_with_fields(self):
        self.assertEqual(paired_compare.parse_side("heuristic with tile = 64, vl = 8"),
                         ("derived", "heuristic with tile = 64, vl = 8"))
        for bad in ("heuristic with ", "heuristic with tile", "heuristic with order = [j, i]",
                    "heuristic with tile = 64; vl = 8"):
            with self.assertRaises(ValueError, msg=bad):
                paired_compare.parse_side(bad)
        heuristic = "cpu spmm, order = [i, k, j], widths = [64, 64], tile = 0, vl = 16"
        self.assertEqual(
            paired_compare.derive_schedule(heuristic, [("tile", "128"), ("vl", "8")]),
            "cpu spmm, order = [i, k, j], widths = [64, 64], tile = 128, vl = 8")
        with self.assertRaises(ValueError):
            paired_compare.derive_schedule(heuristic, [("chunk", "4")])
        # A field printed only away from its default is appended, then
        # replaced like any other.
        reordered = paired_compare.derive_schedule(heuristic, [("reorder", "rcm")])
        self.assertEqual(reordered, heuristic + ", reorder = rcm")
        self.assertEqual(paired_compare.derive_schedule(reordered, [("reorder", "none")]),
                         heuristic + ", reorder = none")
        # An SpGEMM's knobs, printed when not auto.
        spgemm = "cpu spgemm, parallel = outer, threads = 0, simd32 = false"
        self.assertEqual(
            paired_compare.derive_schedule(spgemm, [("accumulator", "hash"), ("passes", "two")]),
            spgemm + ", accumulator = hash, passes = two")

    def test_matrix_label(self):
        self.assertEqual(paired_compare.matrix_label("/data/matrices/SNAP_wiki-Vote.mtx"),
                         "SNAP_wiki-Vote")
        self.assertEqual(paired_compare.matrix_label("gen:uniform:rows=64"), "gen:uniform:rows=64")


class Conversation(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.tool = os.path.join(self.dir.name, "fake-worker")
        with open(self.tool, "w") as f:
            f.write(FAKE_WORKER)
        os.chmod(self.tool, os.stat(self.tool).st_mode | stat.S_IXUSR)

    def tearDown(self):
        self.dir.cleanup()

    def compare(self, a, timeout=30):
        return paired_compare.compare(self.tool, "gen:uniform", "spmv", 1,
                                      paired_compare.parse_side(a),
                                      ("baseline", "mlir-default"), 4, 0.01, timeout)

    def test_warm_up_pair_is_dropped(self):
        r = self.compare("cpu spmv, fast")
        self.assertEqual(r["status"], "ok")
        self.assertEqual(r["pairs"], 4)
        self.assertAlmostEqual(r["median_ratio"], 2.0)  # not 20x: the first pair is gone
        self.assertEqual(r["a_wins"], 1.0)

    def test_heuristic_with_fields_is_measured_per_matrix(self):
        # A is the heuristic the worker names, with its tile replaced; B the
        # heuristic itself.
        r = paired_compare.compare(self.tool, "gen:uniform", "spmm", 64,
                                   paired_compare.parse_side("heuristic with tile = 32"),
                                   ("baseline", "heuristic"), 4, 0.01, 30)
        self.assertEqual(r["status"], "ok")
        self.assertEqual(r["a_schedule"],
                         "cpu spmm, order = [i, k, j], tile = 32, parallel = outer, vl = 16")
        self.assertEqual(r["b_schedule"],
                         "cpu spmm, order = [i, k, j], tile = 0, parallel = outer, vl = 16")
        self.assertAlmostEqual(r["median_ratio"], 2.0)
        r = paired_compare.compare(self.tool, "gen:uniform", "spmm", 64,
                                   paired_compare.parse_side("heuristic with chunk = 4"),
                                   ("baseline", "heuristic"), 4, 0.01, 30)
        self.assertEqual((r["status"], r["side"]), ("error", "a"))
        self.assertIn("no field 'chunk'", r["reason"])

    def test_failed_measurement_is_reported(self):
        r = self.compare("cpu spmv, broken")
        self.assertEqual((r["status"], r["side"]), ("compile_error", "a"))
        self.assertIn("no such knob", r["reason"])

    def test_hung_worker_times_out(self):
        # The worker read timeout is the measurement timeout plus a minute;
        # shorten it to keep the test fast.
        worker = paired_compare.Worker(self.tool, 0.5)
        r = worker.measure({"schedule": "cpu spmv, hang"})
        worker.close()
        self.assertEqual(r["status"], "timeout")

    def test_interrupted_run_resumes(self):
        bindir = os.path.join(self.dir.name, "bin")
        os.makedirs(bindir)
        tool = os.path.join(bindir, "sptune-measure")
        os.rename(self.tool, tool)
        evaluation = os.path.join(self.dir.name, "eval.json")
        with open(evaluation, "w") as f:
            json.dump({"rows": [{"matrix": f"gen:uniform:seed={n}", "kernel": "spmv",
                                 "status": "ok", "schedule": "cpu spmv, fast"}
                                for n in range(2)]}, f)
        out = os.path.join(self.dir.name, "pairs.json")
        argv = ["--from-eval", evaluation, "--build", self.dir.name, "--pairs", "2",
                "--free", "1", "--json", out]
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(paired_compare.main(argv), 0)
        with open(out) as f:
            first = json.load(f)
        self.assertEqual([r["status"] for r in first["rows"]], ["ok", "ok"])
        # A worker that fails every request: nothing is measured again.
        with open(tool, "w") as f:
            f.write("#!/bin/sh\nexit 3\n")
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(paired_compare.main(argv), 0)
        self.assertIn("2 row(s) already in", err.getvalue())
        with open(out) as f:
            self.assertEqual(json.load(f)["rows"], first["rows"])
        # Other settings: the file is not resumed, nor written over.
        with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()):
            paired_compare.main(argv + ["--pairs", "3"])
        self.assertIn("other settings (pairs 2 here 3)", str(e.exception))
        with open(out) as f:
            self.assertEqual(json.load(f)["rows"], first["rows"])
        # Only the SpMV row of one matrix asked for again, against another
        # baseline: measured (the failing worker says so), the others kept.
        with open(evaluation, "w") as f:
            json.dump({"rows": [{"matrix": "gen:uniform:seed=0", "kernel": "spmv",
                                 "status": "ok", "schedule": "cpu spmv, fast"}]}, f)
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(paired_compare.main(argv + ["--b", "baseline:heuristic"]), 1)
        with open(out) as f:
            rows = json.load(f)["rows"]
        self.assertEqual([(r["b"], r["status"]) for r in rows],
                         [("mlir-default", "ok"), ("mlir-default", "ok"), ("heuristic", "crash")])

    def test_rows_source_is_their_matrix(self):
        with open(os.path.join(self.dir.name, "e.json"), "w") as f:
            json.dump({"rows": [{"matrix": "m", "source": "gen:uniform:seed=7", "kernel": "spmv",
                                 "status": "ok", "schedule": "cpu spmv, fast"}]}, f)
        jobs = paired_compare.eval_jobs(os.path.join(self.dir.name, "e.json"), None,
                                        ("baseline", "mlir-default"), None)
        self.assertEqual([(j[0], j[1]) for j in jobs], [("m", "gen:uniform:seed=7")])

    def test_bad_eval_rows_are_errors(self):
        for doc, message in (([1, 2], "no list of rows"), ({"rows": None}, "no list of rows"),
                             ({"rows": [{"kernel": "spmv"}]}, "row 0 has no matrix")):
            with open(os.path.join(self.dir.name, "e.json"), "w") as f:
                json.dump(doc, f)
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()):
                paired_compare.main(["--from-eval", os.path.join(self.dir.name, "e.json"),
                                     "--build", self.dir.name])
            self.assertIn(message, str(e.exception))

    def test_missing_worker_is_a_failed_row(self):
        r = paired_compare.compare(os.path.join(self.dir.name, "no-such-tool"), "gen:uniform",
                                   "spmv", 1, ("schedule", "cpu spmv, fast"),
                                   ("baseline", "mlir-default"), 2, 0.01, 30)
        self.assertEqual((r["status"], r["side"]), ("error", "a"))
        self.assertIn("cannot start", r["reason"])

    def test_from_eval_needs_matrix_dir(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"rows": [{"matrix": "no_such_matrix", "kernel": "spmv", "status": "ok",
                                 "schedule": "cpu spmv, fast"}]}, f)
        try:
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()):
                paired_compare.main(["--from-eval", f.name, "--build", self.dir.name])
            self.assertIn("--matrix-dir", str(e.exception))
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
