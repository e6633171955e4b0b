"""sptune.multiversion: reading the multiversion remark and routing a
matrix the way the emitted dispatcher does."""

import unittest

from sptune import multiversion

REMARK = (
    "k.mlir:3:8: remark: sptune-autotune: no matrix for this kernel: 2 variants chosen for 7 "
    "training matrices (from 'train.txt'; 16 schedules pooled), dispatched at run time by the "
    "rule: row_cv <= 0.991146 ? v0 : (nnz <= 1e+05 ? v1 : v0); variant v0 (5 training "
    "matrices) [cpu spmm, levels = [i : dense, k : compressed], split = [1, 1], omp = static] "
    "variant v1 (2 training matrices) [cpu spmm, levels = [i : dense, k : compressed], split = "
    "[1, 1], omp = dynamic]; 7 of the 7 training matrices are routed to their best pooled "
    "schedule")


class Rule(unittest.TestCase):
    def test_parse_and_route(self):
        tree = multiversion.parse_rule("row_cv <= 0.5 ? (nnz <= 1e+05 ? v0 : v2) : v1")
        f = {"row_cv": 0.4, "nnz": 5e4}
        self.assertEqual(multiversion.route(tree, f), 0)
        f["nnz"] = 2e5
        self.assertEqual(multiversion.route(tree, f), 2)
        f["row_cv"] = 0.5  # <= goes left, as the IR's `ole`
        self.assertEqual(multiversion.route(tree, f), 2)
        f["row_cv"] = 0.51
        self.assertEqual(multiversion.route(tree, f), 1)
        self.assertEqual(multiversion.route(multiversion.parse_rule("v0"), f), 0)

    def test_malformed_rules_are_refused(self):
        for text in ("", "rows <= ? v0 : v1", "speed <= 1 ? v0 : v1", "v0 v1",
                     "(rows <= 1 ? v0 : v1", "rows <= 1 ? v0"):
            with self.assertRaises(ValueError, msg=text):
                multiversion.parse_rule(text)


class Remark(unittest.TestCase):
    def test_variants_counts_and_rule(self):
        plan = multiversion.parse_remark("some other line\n" + REMARK + "\n")
        self.assertEqual(plan.rule, "row_cv <= 0.991146 ? v0 : (nnz <= 1e+05 ? v1 : v0)")
        self.assertEqual(plan.routed_counts, [5, 2])
        self.assertEqual(len(plan.variants), 2)
        # A schedule's own brackets stay in it.
        self.assertTrue(plan.variants[0].startswith("cpu spmm, levels = [i : dense"))
        self.assertTrue(plan.variants[1].endswith("omp = dynamic"))
        self.assertIsNone(multiversion.parse_remark("remark: sptune-autotune (release, ...)"))


class Features(unittest.TestCase):
    def test_from_matrix_stats(self):
        stats = {"rows": 4, "cols": 8, "nnz": 8, "row_mean": 2.0, "row_std": 2.5 ** 0.5,
                 "row_max": 4}
        f = multiversion.features_of(stats)
        self.assertEqual(f["rows"], 4.0)
        self.assertAlmostEqual(f["row_cv"], 2.5 ** 0.5 / 2)
        self.assertEqual(f["row_max"], 4.0)
        empty = dict(stats, nnz=0, row_mean=0.0, row_std=0.0, row_max=0)
        self.assertEqual(multiversion.features_of(empty)["row_cv"], 0.0)


if __name__ == "__main__":
    unittest.main()
