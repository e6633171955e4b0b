"""`python3 -m sptune` and `python3 -m sptune tune`: the schedule it
prints parses, the comparison it prints has numbers, bad input is one
message and a non-zero exit.

Needs sptune's tools: SPTUNE_BIN, or SPTUNE_TEST_OPT (the path of
sptune-opt, which lit substitutes), else where sptune.tools finds them.

    PYTHONPATH=python /usr/bin/python3 -m unittest -v tests.test_cli
"""

import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import unittest

from sptune import autotune
from sptune.run import diagnostics

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MATRIX = "gen:uniform:rows=64,cols=64,nnz=400,seed=2"
FAST = ["--free", "8", "--min-seconds", "0.005"]
SCHEDULE_LINE = re.compile(r"^schedule: #sptune\.schedule<(.*)>$", re.M)


def environment(**extra):
    env = dict(os.environ)
    if not env.get("SPTUNE_BIN") and env.get("SPTUNE_TEST_OPT"):
        env["SPTUNE_BIN"] = os.path.dirname(env["SPTUNE_TEST_OPT"])
    env["PYTHONPATH"] = PYTHON_DIR + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def sptune(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "sptune", *args], capture_output=True,
                          text=True, env=env or environment(), cwd=cwd, timeout=300)


def read(path):
    with open(path) as f:
        return f.read()


def tool(name):
    env = environment()
    if env.get("SPTUNE_BIN"):
        return os.path.join(env["SPTUNE_BIN"], name)
    from sptune import tools
    return tools.tool(name)


def parses(test, schedule):
    """sptune-opt reads `#sptune.schedule<schedule>` back and prints it the same."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.mlir")
        with open(path, "w") as f:
            f.write(f'module attributes {{test.s = #sptune.schedule<{schedule}>}} {{}}\n')
        p = subprocess.run([tool("sptune-opt"), path], capture_output=True, text=True)
    test.assertEqual(p.returncode, 0, p.stderr)
    test.assertIn(f"#sptune.schedule<{schedule}>", p.stdout)


class Help(unittest.TestCase):
    def test_lists_subcommands(self):
        p = sptune("--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"(?m)^\s+tune\s+autotune a kernel")
        self.assertRegex(p.stdout, r"(?m)^\s+report\s+turn results JSON")

    def test_no_command(self):
        p = sptune()
        self.assertEqual(p.returncode, 2)
        self.assertIn("COMMAND", p.stderr)
        self.assertNotIn("Traceback", p.stderr)

    def test_tune_help(self):
        p = sptune("tune", "--help")
        self.assertEqual(p.returncode, 0)
        for option in ("--kernel", "--target", "--free", "--measure-top-k", "--database",
                       "--json"):
            self.assertIn(option, p.stdout)


class Remark(unittest.TestCase):
    """The parser of sptune-autotune's remark (no tools)."""

    LINE = ("k.mlir:4:8: remark: sptune-autotune (release, 1144 candidates ranked in 16.0 ms, "
            "top 2 and the heuristic measured): chose cpu spmm, levels = [i : dense, k : "
            "compressed], vl = 16; ranking: #1 score 0.420 measured 0.002 ms [cpu spmm, "
            "levels = [i : dense, k : compressed], vl = 16] #2 score -0.368 (error) [cpu spmm, "
            "levels = [k : dense, i : compressed], vl = 8] + heuristic #7 score 0.165 measured "
            "0.005 ms [cpu spmm, levels = [i : dense, k : compressed], vl = 0]; ranked by the "
            "heuristic: no model")

    def test_ranking(self):
        r = autotune.parse_remark(self.LINE)
        self.assertEqual((r.mode, r.candidates, r.rank_ms, r.measured), ("release", 1144, 16.0, True))
        self.assertEqual(r.chosen, "cpu spmm, levels = [i : dense, k : compressed], vl = 16")
        self.assertEqual([c.rank for c in r.top], [1, 2, 7])
        self.assertEqual([c.score for c in r.top], [0.42, -0.368, 0.165])
        self.assertEqual([c.measured_ms for c in r.top], [0.002, None, 0.005])
        self.assertEqual([c.status for c in r.top], [None, "error", None])
        self.assertEqual([c.heuristic for c in r.top], [False, False, True])
        self.assertEqual(r.top[1].schedule, "cpu spmm, levels = [k : dense, i : compressed], vl = 8")
        self.assertEqual(r.notes, ["ranked by the heuristic: no model"])

    def test_other_remarks(self):
        self.assertIsNone(autotune.parse_remark("k.mlir:1:1: remark: something else"))
        r = autotune.parse_remark("k.mlir:4:8: remark: sptune-autotune: from the tuning "
                                  "database (...): chose cpu spmm, vl = 4")
        self.assertIsNone(r.mode)
        self.assertTrue(r.text.startswith("sptune-autotune: from the tuning database"))
        # The once-per-run note about the machine is no kernel's ranking.
        self.assertIsNone(autotune.parse_remark(
            "k.mlir:1:1: remark: sptune-autotune: the cost model was trained on measurements "
            "from 'A' and this machine's CPU is 'B': its picks replace the heuristic only "
            "where its ensemble is sure by 4.10 spreads (on its own machine 0.10)"))

    def test_diagnostics_drop_locations(self):
        self.assertEqual(diagnostics("/tmp/x/k.mlir:3:8: error: sptune-autotune: bad spec\n"
                                     "  %0 = linalg.matmul\n       ^\n"),
                         "error: sptune-autotune: bad spec")


class Tune(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def test_cpu_spmm_measured(self):
        out = self.path("r.json")
        ir = self.path("tuned.mlir")
        p = sptune("tune", MATRIX, "--kernel", "spmm", "--top-k", "3", *FAST, "--json", out,
                   "--save-ir", ir)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        m = SCHEDULE_LINE.search(p.stdout)
        self.assertIsNotNone(m, p.stdout)
        schedule = m.group(1)
        self.assertTrue(schedule.startswith("cpu spmm, levels = ["), schedule)
        parses(self, schedule)
        self.assertIn(f"#sptune.schedule<{schedule}>", read(ir))
        # The model's ranking: three candidates.
        self.assertEqual(len(re.findall(r"(?m)^  #\d+ score -?[0-9.]+", p.stdout)), 3, p.stdout)
        self.assertIn("matrix: 64 x 64, 400 nonzeros", p.stdout)
        # The comparison: every variant with its time, the speedup, its runs.
        rows = dict((name, (float(ms), float(x))) for name, ms, x in re.findall(
            r"(?m)^  (tuned|mlir-default|heuristic|eigen|reference) +([0-9.]+) +([0-9.]+)x +\d+$",
            p.stdout))
        self.assertEqual(set(rows), {"tuned", "mlir-default", "heuristic", "eigen", "reference"},
                         p.stdout)
        self.assertEqual(rows["tuned"][1], 1.0)
        for name, (ms, x) in rows.items():
            self.assertGreater(ms, 0)
        # The JSON result says the same.
        r = json.loads(read(out))
        self.assertEqual((r["format"], r["kernel"], r["target"], r["free"], r["schedule"]),
                         ("sptune-tune", "spmm", "cpu", 8, schedule))
        self.assertEqual(r["matrix_info"]["nnz"], 400)
        self.assertEqual([m["variant"] for m in r["measurements"]],
                         ["tuned", "mlir-default", "heuristic", "eigen", "reference"])
        tuned = r["measurements"][0]["time_s"]
        for m in r["measurements"]:
            self.assertEqual(m["status"], "ok", m)
            self.assertGreater(m["time_s"], 0)
            self.assertAlmostEqual(m["tuned_speedup"], m["time_s"] / tuned)
            # The table printed the same numbers.
            ms, x = rows[m["variant"]]
            self.assertAlmostEqual(ms, m["time_s"] * 1e3, delta=m["time_s"] * 1e3 * 1e-3)
            self.assertAlmostEqual(x, m["tuned_speedup"], delta=0.006)
        self.assertEqual(r["autotune"]["chosen"], schedule)
        self.assertEqual(len(r["autotune"]["ranking"]), 3)

    def test_spade_sddmm_simulated(self):
        p = sptune("tune", MATRIX, "--kernel", "sddmm", "--target", "spade", *FAST)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        schedule = SCHEDULE_LINE.search(p.stdout).group(1)
        self.assertTrue(schedule.startswith("spade sddmm, "), schedule)
        parses(self, schedule)
        self.assertIn("simulated by spade-sim", p.stdout)
        self.assertRegex(p.stdout, r"(?m)^  tuned +[0-9.]+ +1\.00x +\d+$")
        self.assertRegex(p.stdout, r"(?m)^  heuristic +[0-9.]+ +[0-9.]+x +\d+$")

    def test_nvvm_spmv(self):
        # Without a GPU: the schedule, and a clear "not measured"; with one: measured.
        p = sptune("tune", MATRIX, "--kernel", "spmv", "--target", "nvvm", "--baselines",
                   "heuristic", *FAST)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        schedule = SCHEDULE_LINE.search(p.stdout).group(1)
        self.assertTrue(schedule.startswith("nvvm spmv, "), schedule)
        parses(self, schedule)
        self.assertTrue("not measured: nvvm code cannot run on this machine" in p.stdout or
                        re.search(r"(?m)^  tuned +[0-9.]+ +1\.00x", p.stdout), p.stdout)

    def test_no_measure(self):
        p = sptune("tune", MATRIX, "--kernel", "spmv", "--no-measure", "--top-k", "1")
        self.assertEqual(p.returncode, 0, p.stderr)
        parses(self, SCHEDULE_LINE.search(p.stdout).group(1))
        self.assertNotIn("measured (", p.stdout)

    def test_database(self):
        db = self.path("db.jsonl")
        args = ("tune", MATRIX, "--kernel", "spmm", "--free", "8", "--no-measure",
                "--database", db)
        if "database" not in autotune.pass_options(opt=tool("sptune-opt")):
            p = sptune(*args)
            self.assertEqual(p.returncode, 1)
            self.assertIn("has no 'database' option", p.stderr)
            return
        first = sptune(*args)
        self.assertEqual(first.returncode, 0, first.stderr)
        self.assertTrue(os.path.getsize(db) > 0)
        second = sptune(*args)
        self.assertEqual(second.returncode, 0, second.stderr)
        self.assertIn("tuning database", second.stdout)
        self.assertEqual(SCHEDULE_LINE.search(first.stdout).group(1),
                         SCHEDULE_LINE.search(second.stdout).group(1))

    def error(self, args, code, message, env=None):
        p = sptune(*args, env=env)
        self.assertEqual(p.returncode, code, p.stdout + p.stderr)
        self.assertIn(message, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        return p

    def test_missing_matrix(self):
        self.error(["tune", self.path("none.mtx"), "--kernel", "spmm"], 1,
                   f"sptune tune: error: matrix '{self.path('none.mtx')}': no such file")

    def test_directory_matrix(self):
        self.error(["tune", self.tmp.name, "--kernel", "spmm"], 1, "is a directory")

    def test_malformed_matrix(self):
        bad = self.path("bad.mtx")
        with open(bad, "w") as f:
            f.write("%%MatrixMarket matrix coordinate real general\n3 3 1\n4 1 1.0\n")
        self.error(["tune", bad, "--kernel", "spmm"], 1, "error: sptune-autotune: ")

    def test_bad_generator_spec(self):
        self.error(["tune", "gen:nosuchkind:rows=10", "--kernel", "spmm"], 1,
                   "bad generator spec 'gen:nosuchkind:rows=10'")

    def test_bad_kernel(self):
        self.error(["tune", MATRIX, "--kernel", "spgemm"], 2,
                   "argument --kernel: invalid choice: 'spgemm'")

    def test_bad_target(self):
        self.error(["tune", MATRIX, "--kernel", "spmm", "--target", "tpu"], 2,
                   "argument --target: invalid choice: 'tpu'")

    def test_bad_free(self):
        self.error(["tune", MATRIX, "--kernel", "spmm", "--free", "0"], 1,
                   "--free must be positive")

    def test_bad_min_seconds(self):
        # inf ended in an OverflowError traceback, nan was taken (issue 13
        # probe).
        for value in ("0", "inf", "nan", "-1"):
            with self.subTest(value):
                self.error(["tune", MATRIX, "--kernel", "spmv", "--min-seconds", value], 1,
                           "--min-seconds must be in (0, 3600]")

    def test_unknown_baseline(self):
        # A baseline that does not exist printed n/a and exited 0.
        self.error(["tune", MATRIX, "--kernel", "spmv", "--mode", "heuristic", "--baselines",
                    "bogus", "--min-seconds", "0.005"], 1,
                   "--baselines: unknown baseline 'bogus' for target 'cpu'")

    def test_missing_model(self):
        self.error(["tune", MATRIX, "--kernel", "spmm", "--mode", "development", "--model",
                    self.path("none.pt"), "--no-measure"], 1,
                   "sptune tune: error: sptune-opt --sptune-autotune failed")

    def test_tool_failure(self):
        # A sptune-opt that fails: its diagnostic, without the file location.
        bindir = self.path("bin")
        os.mkdir(bindir)
        fake = os.path.join(bindir, "sptune-opt")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho '/tmp/k.mlir:3:8: error: boom' >&2\nexit 3\n")
        os.chmod(fake, stat.S_IRWXU)
        self.error(["tune", MATRIX, "--kernel", "spmm"], 1,
                   "sptune-opt --sptune-autotune failed (exit status 3):\nerror: boom",
                   env=environment(SPTUNE_BIN=bindir))

    def test_unwritable_json(self):
        self.error(["tune", MATRIX, "--kernel", "spmv", "--no-measure", "--json",
                    self.path("no/such/dir/r.json")], 1, "no such directory")


class OlderScripts(unittest.TestCase):
    """The scripts refactored onto the shared modules keep their command lines."""

    def test_help(self):
        for module in ("sptune.tune_example", "sptune.autotune_eval"):
            p = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                               text=True, env=environment())
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("--build", p.stdout)

    def test_autotune_eval_runs(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "e.json")
            # With torch (a baseline timed once, whether built or not).
            p = subprocess.run([sys.executable, "-m", "sptune.autotune_eval", MATRIX,
                                "--kernel", "spmv", "--free", "8", "--min-seconds", "0.005",
                                "--no-libraries", "--json", out],
                               capture_output=True, text=True, env=environment())
            self.assertEqual(p.returncode, 0, p.stderr)
            row = json.loads(read(out))["rows"][0]
        self.assertEqual(row["status"], "ok")
        self.assertGreater(row["tuned_vs_mlir"], 0)
        self.assertTrue(row["schedule"].startswith("cpu spmv, "))
        self.assertEqual(row["source"], MATRIX)  # what paired_compare --from-eval measures
        self.assertTrue(row["torch_status"])  # measured, or why not
        # The heuristic's schedule at this size is what the shipped model
        # keeps (a guard on another machine, or its own pick): timed once.
        if row["timed_as_one"]:
            self.assertEqual(row["timed_as_one"], [["tuned", "heur"]])
            self.assertEqual(row["tuned_vs_heuristic"], 1.0)


    def test_autotune_eval_from_json(self):
        """--from-json measures nothing: the summary, with a compared model's
        ratios over the heuristic, and the plot from an earlier run's rows."""
        def row(matrix, tuned, heur, mlir, other):
            return {"matrix": matrix, "source": matrix, "kernel": "spmv", "schedule": "s",
                    "status": "ok", "tuned_s": tuned, "heuristic_s": heur,
                    "mlir_default_s": mlir, "oracle_vs_mlir": None,
                    "heuristic_vs_mlir": mlir / heur, "tuned_vs_mlir": mlir / tuned,
                    "tuned_vs_heuristic": heur / tuned, "tuned_vs_best_library": None,
                    "tuned_vs_reference": None, "tuned_bt_vs_reference": None,
                    "adapted_schedule": "a", "adapted_s": other}
        with tempfile.TemporaryDirectory() as tmp:
            earlier, out, plot = (os.path.join(tmp, n) for n in ("e.json", "o.json", "p.png"))
            with open(earlier, "w") as f:
                json.dump({"summary": {}, "rows": [row("A", 1.0, 2.0, 2.0, 4.0),
                                                   row("B", 1.0, 1.0, 1.0, 0.25)]}, f)
            p = subprocess.run([sys.executable, "-m", "sptune.autotune_eval", "--from-json",
                                earlier, "--kernel", "spmm,spmv", "--json", out, "--plot", plot],
                               capture_output=True, text=True, env=environment())
            self.assertEqual(p.returncode, 0, p.stderr)
            summary = json.loads(read(out))["summary"]
            self.assertEqual(list(summary), ["spmv"])
            # adapted / heuristic: 2 / 4 and 1 / 0.25, geomean 1.41.
            self.assertAlmostEqual(summary["spmv"]["adapted_vs_heuristic"], 2 ** 0.5)
            self.assertAlmostEqual(summary["spmv"]["tuned_vs_heuristic"], 2 ** 0.5)
            self.assertTrue(os.path.getsize(plot) > 0)
            for argv, why in ((["--from-json", earlier, MATRIX], "give no matrices"),
                              ([], "give matrices (or --from-json)")):
                p = subprocess.run([sys.executable, "-m", "sptune.autotune_eval"] + argv,
                                   capture_output=True, text=True, env=environment())
                self.assertEqual(p.returncode, 2)
                self.assertIn(why, p.stderr)


class MeasureRoundsTest(unittest.TestCase):
    def test_interleaved_fastest_median_and_first_failure(self):
        from sptune.autotune_eval import measure_rounds
        calls = []
        answers = {"a": iter([(3.0, "ok"), (1.0, "ok")]),
                   "b": iter([(None, "crashed: x"), (2.0, "ok")])}

        def one(name):
            calls.append(name)
            return next(answers[name])
        times, statuses = measure_rounds(one, {"a": {"name": "a"}, "b": {"name": "b"}}, 2)
        self.assertEqual(calls, ["a", "b", "a", "b"])
        self.assertEqual(times, {"a": 1.0, "b": 2.0})
        self.assertEqual(statuses, {"a": "ok", "b": "crashed: x"})
        times, _ = measure_rounds(lambda name: (None, "failed"), {"c": {"name": "c"}}, 0)
        self.assertEqual(times, {"c": None})

    def test_jobs_of_one_kernel_are_timed_as_one(self):
        from sptune.autotune_eval import measure_rounds
        # tuned and heur compiled the same schedule (seen in the first round);
        # other and mlir did not (mlir names none). heur is not timed again,
        # and its first median (0.5, faster) is dropped: tuned and heur are
        # both the best of tuned's 3 rounds, as every other job.
        calls = []
        answers = {"tuned": iter([(3.0, "ok", "s1"), (1.5, "ok", "s1"), (2.0, "ok", "s1")]),
                   "heur": iter([(0.5, "ok", "s1")]),
                   "other": iter([(2.0, "ok", "s2"), (2.5, "ok", "s2"), (None, "crashed: x", None)]),
                   "mlir": iter([(4.0, "ok", None), (5.0, "ok", None), (3.5, "ok", None)])}

        def one(name):
            calls.append(name)
            return next(answers[name])
        shared = []
        times, statuses = measure_rounds(one, {n: {"name": n} for n in answers}, 3, shared)
        self.assertEqual(times, {"tuned": 1.5, "heur": 1.5, "other": 2.0, "mlir": 3.5})
        self.assertEqual(shared, [["tuned", "heur"]])
        self.assertEqual(calls.count("heur"), 1)
        self.assertEqual(calls.count("tuned"), 3)
        self.assertEqual(statuses["other"], "crashed: x")
        # A job that failed in the first round is timed on its own.
        answers = {"tuned": iter([(1.0, "ok", "s1"), (1.0, "ok", "s1")]),
                   "heur": iter([(None, "crashed: y", None), (0.9, "ok", "s1")])}
        shared = []
        times, _ = measure_rounds(lambda name: next(answers[name]),
                                  {n: {"name": n} for n in answers}, 2, shared)
        self.assertEqual(times, {"tuned": 1.0, "heur": 0.9})
        self.assertEqual(shared, [])


if __name__ == "__main__":
    unittest.main()
