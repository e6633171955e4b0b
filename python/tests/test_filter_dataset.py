"""`python3 -m sptune.filter_dataset`: records kept or dropped by matrix
size (only .mtx matrices with --only-files) and by kernel.

    PYTHONPATH=python /usr/bin/python3 -m unittest -v tests.test_filter_dataset
"""

import contextlib
import io
import json
import os
import tempfile
import unittest

from sptune import filter_dataset


def record(source, nnz, kernel):
    return {"matrix": {"id": source, "source": source, "nnz": nnz}, "kernel": kernel}


RECORDS = [record("/m/small.mtx", 1000, "spmm"), record("/m/small.mtx", 1000, "spmv"),
           record("/m/large.mtx", 90000, "sddmm"), record("gen:uniform:nnz=90000", 90000, "spmv"),
           record("gen:uniform:nnz=90000", 90000, "spmm")]


class FilterDataset(unittest.TestCase):
    def run_filter(self, *options):
        with tempfile.TemporaryDirectory() as d:
            inp, out = os.path.join(d, "in.jsonl"), os.path.join(d, "out.jsonl")
            with open(inp, "w") as f:
                for r in RECORDS:
                    f.write(json.dumps(r) + "\n")
                f.write("not json\n")
            with contextlib.redirect_stderr(io.StringIO()) as err:
                filter_dataset.main([inp, out, *options])
            with open(out) as f:
                kept = [json.loads(line) for line in f]
        return [(r["matrix"]["source"], r["kernel"]) for r in kept], err.getvalue()

    def test_drop_large_files_only(self):
        kept, err = self.run_filter("--drop-min-nnz", "50000", "--only-files")
        self.assertEqual(kept, [("/m/small.mtx", "spmm"), ("/m/small.mtx", "spmv"),
                                ("gen:uniform:nnz=90000", "spmv"),
                                ("gen:uniform:nnz=90000", "spmm")])
        self.assertIn("kept 4, dropped 1, unparseable 1", err)

    def test_keep_large_files_only(self):
        kept, _ = self.run_filter("--keep-min-nnz", "50000", "--only-files")
        self.assertEqual(kept, [("/m/large.mtx", "sddmm")])

    def test_drop_kernel(self):
        kept, err = self.run_filter("--drop-kernel", "spmv")
        self.assertEqual([k for _, k in kept], ["spmm", "sddmm", "spmm"])
        self.assertIn("kept 3, dropped 2", err)

    def test_drop_kernel_with_size_rule(self):
        kept, _ = self.run_filter("--drop-kernel", "spmv,sddmm", "--drop-min-nnz", "50000",
                                  "--only-files")
        self.assertEqual(kept, [("/m/small.mtx", "spmm"), ("gen:uniform:nnz=90000", "spmm")])

    def test_unknown_kernel_is_a_usage_error(self):
        with tempfile.TemporaryDirectory() as d, \
                contextlib.redirect_stderr(io.StringIO()) as err, \
                self.assertRaises(SystemExit) as e:
            filter_dataset.main([os.path.join(d, "in.jsonl"), os.path.join(d, "out.jsonl"),
                                 "--drop-kernel", "spmv,gemm"])
        self.assertEqual(e.exception.code, 2)
        self.assertIn("unknown kernel(s) gemm", err.getvalue())


if __name__ == "__main__":
    unittest.main()


class Problems(unittest.TestCase):
    """sptune.dataset.problems: one problem per matrix, kernel, free size,
    target and element width."""

    def test_element_widths_are_problems_apart(self):
        from sptune import dataset

        def rec(key, bits=None):
            r = {"matrix": {"id": "t"}, "kernel": "mttkrp", "free": 32,
                 "target": "cpu", "key": key}
            if bits is not None:
                r["bits"] = bits
            return r
        got = dataset.problems([rec("a"), rec("b", 32), rec("a|64-bit", 64)])
        self.assertEqual(sorted(got), [("t", "mttkrp", 32, "cpu", 32),
                                       ("t", "mttkrp", 32, "cpu", 64)])
        self.assertEqual(len(got[("t", "mttkrp", 32, "cpu", 32)]), 2)
        self.assertEqual(got[("t", "mttkrp", 32, "cpu", 64)][0]["key"], "a|64-bit")
