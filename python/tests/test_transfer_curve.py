"""Unit tests of sptune.transfer_curve's pure functions (stdlib unittest).

    PYTHONPATH=python /usr/bin/python3 -m unittest python/tests/test_transfer_curve.py
"""

import json
import math
import os
import struct
import tempfile
import unittest

from sptune import transfer_curve as tc


def write_model_file(path, config, kind=b"model"):
    """A file in the layout of cost-model/lib/ModelFile.cpp (checksum not
    computed: only the C++ loader checks it)."""
    payload = struct.pack("<I", len(kind)) + kind + struct.pack("<I", 1)
    body = json.dumps(config).encode()
    payload += struct.pack("<I", 6) + b"config" + struct.pack("<Q", len(body)) + body
    with open(path, "wb") as f:
        f.write(b"SPTUNECM" + struct.pack("<IQQQ", 1, 0, len(payload), 0) + payload)


class BaseSharedKnobsTest(unittest.TestCase):
    """An ablated base is pre-trained with the named base's shared knobs."""

    def test_read(self):
        with tempfile.TemporaryDirectory() as d:
            with_knobs, without = os.path.join(d, "a.pt"), os.path.join(d, "b.pt")
            write_model_file(with_knobs, {"hidden": 8, "shared_knobs": ["row-order"]})
            write_model_file(without, {"hidden": 8})
            self.assertEqual(tc.base_shared_knobs(with_knobs), ["row-order"])
            self.assertEqual(tc.base_shared_knobs(without), [])

    def test_shipped_model(self):
        shipped = os.path.join(os.path.dirname(__file__), "..", "..", "cost-model",
                               "models", "cpu-default.pt")
        self.assertEqual(tc.base_shared_knobs(shipped), [])

    def test_bad_files(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.pt")
            with open(bad, "wb") as f:
                f.write(b"not a model")
            with self.assertRaisesRegex(tc.UsageError, "bad magic"):
                tc.base_shared_knobs(bad)
            cut = os.path.join(d, "cut.pt")
            write_model_file(cut, {"hidden": 8})
            with open(cut, "rb") as f:
                data = f.read()
            with open(cut, "wb") as f:
                f.write(data[:-5])
            with self.assertRaisesRegex(tc.UsageError, "cut short"):
                tc.base_shared_knobs(cut)
            checkpoint = os.path.join(d, "checkpoint.pt")
            write_model_file(checkpoint, {"hidden": 8}, kind=b"checkpoint")
            with self.assertRaisesRegex(tc.UsageError, "is a checkpoint file"):
                tc.base_shared_knobs(checkpoint)
            odd = os.path.join(d, "odd.pt")
            write_model_file(odd, {"shared_knobs": "row-order"})
            with self.assertRaisesRegex(tc.UsageError, "not a list of names"):
                tc.base_shared_knobs(odd)
            with self.assertRaisesRegex(tc.UsageError, "No such file"):
                tc.base_shared_knobs(os.path.join(d, "missing.pt"))


class VariantTest(unittest.TestCase):
    def test_parse(self):
        v = tc.parse_variant("finetune", ["small", "large"])
        self.assertEqual((v["kind"], v["freeze"], v["base"], v["ablations"]),
                         ("finetune", "encoders", "small", []))
        v = tc.parse_variant("finetune-matrix@large+single-scale+no-config-mapper",
                             ["small", "large"])
        self.assertEqual((v["kind"], v["freeze"], v["base"]), ("finetune", "matrix", "large"))
        self.assertEqual(v["ablations"], ["no-config-mapper", "single-scale"])
        v = tc.parse_variant("scratch+no-autoencoder", [])
        self.assertEqual((v["kind"], v["freeze"], v["base"], v["ablations"]),
                         ("scratch", None, None, ["no-autoencoder"]))
        self.assertEqual(tc.parse_variant("all", [])["kind"], "all")
        v = tc.parse_variant("finetune+reinit-ae+single-scale", ["cpu"])
        self.assertTrue(v["reinit_ae"])
        self.assertEqual(v["ablations"], ["single-scale"])
        self.assertFalse(tc.parse_variant("finetune", ["cpu"])["reinit_ae"])

    def test_errors(self):
        for bad in ("finetune-all", "scratch-matrix", "finetune@nope", "scratch@small",
                    "scratch+multi-scale", "scratch+reinit-ae", "tune", ""):
            with self.assertRaises(tc.UsageError, msg=bad):
                tc.parse_variant(bad, ["small"])
        with self.assertRaises(tc.UsageError):
            tc.parse_variant("finetune", [])

    def test_ks(self):
        self.assertEqual(tc.parse_ks("all,5,0,1,5"), [0, 1, 5, "all"])
        for bad in ("x", "-1", ""):
            with self.assertRaises(tc.UsageError):
                tc.parse_ks(bad)


class DrawTest(unittest.TestCase):
    POOL = [f"m{i:02d}" for i in range(30)]

    def test_nested_deterministic_and_seeded(self):
        a1, a3, a7 = (set(tc.draw(self.POOL, k, 0)) for k in (1, 3, 7))
        self.assertEqual((len(a1), len(a3), len(a7)), (1, 3, 7))
        self.assertTrue(a1 <= a3 <= a7)
        # The same for every call (so every variant of a seed), whatever the
        # pool's order; other seeds draw otherwise.
        self.assertEqual(tc.draw(list(reversed(self.POOL)), 7, 0), sorted(a7))
        self.assertNotEqual(set(tc.draw(self.POOL, 7, 1)), a7)
        self.assertEqual(tc.draw(self.POOL, "all", 2), sorted(self.POOL))
        with self.assertRaises(tc.UsageError):
            tc.draw(self.POOL, 31, 0)

    def test_diverse_draw_covers_the_structure(self):
        # Two clusters of 15 matrices far apart (tiny and large): five
        # representatives take both; nested in k, seeded, deterministic.
        recs = [{"matrix": {"id": f"s{i:02d}", "rows": 50 + i, "cols": 50 + i, "nnz": 200 + 4 * i}}
                for i in range(15)]
        recs += [{"matrix": {"id": f"l{i:02d}", "rows": 30000 + 100 * i, "cols": 30000,
                             "nnz": 300000 + 1000 * i}} for i in range(15)]
        feats = tc.structure_features(recs)
        self.assertEqual(len(feats), 30)
        five = tc.draw_diverse(feats, 5, 0)
        self.assertEqual(len(five), 5)
        self.assertTrue(any(m.startswith("s") for m in five))
        self.assertTrue(any(m.startswith("l") for m in five))
        self.assertTrue(set(tc.draw_diverse(feats, 2, 0)) <= set(five))
        self.assertEqual(tc.draw_diverse(feats, 5, 0), five)
        self.assertEqual(tc.draw_diverse(feats, "all", 1), sorted(feats))
        with self.assertRaises(tc.UsageError):
            tc.draw_diverse(feats, 31, 0)

    def test_planned_runs(self):
        vs = [tc.parse_variant(n, ["cpu"]) for n in ("finetune", "scratch", "all")]
        runs = tc.planned_runs(vs, [0, 5, "all"], 2)
        names = [(v["name"], k, s) for v, k, s in runs]
        self.assertIn(("finetune", 0, 1), names)
        self.assertNotIn(("scratch", 0, 0), names)  # nothing to train on
        self.assertEqual([n for n in names if n[0] == "all"], [("all", "all", 0), ("all", "all", 1)])
        self.assertEqual(len(names), 2 * 3 + 2 * 2 + 2)
        # all and scratch at k=all share a run; k=0 is one run per base.
        self.assertEqual(tc.run_dir_name(vs[2], "all", 1), tc.run_dir_name(vs[1], "all", 1))
        fm = tc.parse_variant("finetune-matrix", ["cpu"])
        self.assertEqual(tc.run_dir_name(fm, 0, 2), tc.run_dir_name(vs[0], 0, 0))
        self.assertNotEqual(tc.run_dir_name(fm, 5, 0), tc.run_dir_name(vs[0], 5, 0))


class ResumeTest(unittest.TestCase):
    def test_run_is_done(self):
        spec = {"k": 5, "seed": 0, "matrices": ["a"]}
        with tempfile.TemporaryDirectory() as d:
            self.assertFalse(tc.run_is_done(d, spec))
            with open(os.path.join(d, "spec.json"), "w") as f:
                json.dump(spec, f)
            self.assertFalse(tc.run_is_done(d, spec))  # no evaluation
            with open(os.path.join(d, "eval.json"), "w") as f:
                f.write("{not json")
            self.assertFalse(tc.run_is_done(d, spec))
            with open(os.path.join(d, "eval.json"), "w") as f:
                json.dump({"kendall_tau": 0.5}, f)
            self.assertFalse(tc.run_is_done(d, spec))  # no model
            open(os.path.join(d, "model.pt"), "w").close()
            self.assertTrue(tc.run_is_done(d, spec))
            self.assertFalse(tc.run_is_done(d, dict(spec, seed=1)))  # another spec
            zero = {"k": 0, "zero_shot": True}
            with open(os.path.join(d, "spec.json"), "w") as f:
                json.dump(zero, f)
            os.remove(os.path.join(d, "model.pt"))
            self.assertTrue(tc.run_is_done(d, zero))  # evaluates the base


class AggregateTest(unittest.TestCase):
    def runs(self):
        out = []
        for seed, (tau, top1) in enumerate(((0.2, 1.0), (0.4, 1.2), (0.6, None))):
            out.append({"variant": "finetune", "k": 5, "seed": seed, "tau": tau, "top1": top1,
                        "top5": 1.3, "over_median": 1.5, "oracle": 1.4})
        out.append({"variant": "scratch", "k": 5, "seed": 0, "tau": 0.1, "top1": 0.9,
                    "top5": 1.1, "over_median": 1.2, "oracle": 1.4})
        out.append({"variant": "all", "k": "all", "seed": 0, "tau": 0.7, "top1": 1.3,
                    "top5": 1.35, "over_median": 1.6, "oracle": 1.4})
        return out

    def test_means_and_bands(self):
        s = {(r["variant"], r["k"]): r for r in tc.aggregate(self.runs())}
        ft = s[("finetune", 5)]
        self.assertEqual(ft["seeds"], 3)
        self.assertAlmostEqual(ft["tau"]["mean"], 0.4)
        self.assertEqual((ft["tau"]["min"], ft["tau"]["max"]), (0.2, 0.6))
        self.assertAlmostEqual(ft["top1"]["mean"], 1.1)  # the missing value left out
        self.assertEqual(ft["top1"]["n"], 2)
        self.assertIsNone(ft["pair_accuracy"])

    def test_table_and_legacy(self):
        summary = tc.aggregate(self.runs())
        table = tc.markdown_table(summary, ["finetune", "scratch", "all"], [5])
        self.assertIn("| variant | k=5 | k=all |", table)
        self.assertIn("| finetune | 1.100x | - |", table)
        self.assertIn("| all | - | 1.300x |", table)
        rows = tc.legacy_rows(self.runs())
        self.assertEqual(len(rows), 3)
        self.assertEqual(rows[0]["scratch"], {"tau": 0.1, "top1": 0.9})
        self.assertEqual(rows[1]["scratch"], {"tau": None, "top1": None})

    def test_metrics_and_eta(self):
        m = tc.metrics_of({"kendall_tau": 0.3, "top1_speedup": 1.2, "top1_over_median": 1.5})
        self.assertEqual((m["tau"], m["top1"], m["over_median"], m["top5"]), (0.3, 1.2, 1.5, None))
        self.assertIsNone(tc.eta([], 3, 1))
        self.assertEqual(tc.epochs_for(40, 2, 0), 40)       # off
        self.assertEqual(tc.epochs_for(40, 2, 400), 400)    # 1 step an epoch
        self.assertEqual(tc.epochs_for(40, 17, 400), 134)   # 3 steps an epoch
        self.assertEqual(tc.epochs_for(40, 144, 400), 40)   # already enough
        self.assertAlmostEqual(tc.eta([10, 20], 4, 2), 30)


class GapTest(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(tc.parse_gap("all@all, finetune-none@5"),
                         (("all", "all"), ("finetune-none", 5)))
        for bad in ("all@all", "all,finetune@5", "all@all,finetune@x", "@5,all@all"):
            with self.assertRaises(tc.UsageError):
                tc.parse_gap(bad)

    def test_problems_ranked_by_their_share_of_the_gap(self):
        a = [{"p": 2.0, "q": 1.0, "r": 1.5}, {"p": 2.0, "q": 1.0, "r": 1.5}]
        b = [{"p": 1.0, "q": 1.0, "r": 1.5}, {"p": 4.0, "q": 1.0, "r": 1.5, "only-b": 3.0}]
        g = tc.problem_gaps(a, b, top=2)
        # p: 2 vs geomean(1, 4) = 2: no gap; all three shares are zero.
        self.assertAlmostEqual(g["log_gap"], 0.0)
        b[1]["p"] = 1.0
        g = tc.problem_gaps(a, b, top=2)
        self.assertEqual([r["problem"] for r in g["problems"]], ["p", "q"])
        self.assertAlmostEqual(g["problems"][0]["share"], math.log(2.0) / 3)
        self.assertAlmostEqual(g["ratio"], 2.0 ** (1 / 3))
        md = tc.gaps_markdown(g, ("all", "all"), ("finetune", 5))
        self.assertIn("| p | 2.000x | 1.000x | 100% |", md)
        md = tc.gaps_markdown(tc.problem_gaps([{"m|spmm": 2.0}], [{"m|spmm": 1.0}]), ("a", 1), ("b", 1))
        self.assertIn("| m\\|spmm | 2.000x", md)
        self.assertEqual(tc.problem_gaps([{"x": 1.0}], [{"y": 1.0}])["problems"], [])


if __name__ == "__main__":
    unittest.main()
