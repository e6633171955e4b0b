"""`python3 -m sptune report`: one self-contained HTML page from the
project's results files (docs/img, the shipped model's metrics) and from
synthetic ones of every other format; unknown or broken files fail with a
message naming the file.

    PYTHONPATH=python /usr/bin/python3 -m unittest -v tests.test_report
"""

import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from html.parser import HTMLParser

from sptune import report, report_formats

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(PYTHON_DIR)
DOCS = os.path.join(ROOT, "docs", "img")
METRICS = os.path.join(ROOT, "cost-model", "models", "cpu-default.metrics.json")
IMG = re.compile(r'<img alt="[^"]*" src="data:image/png;base64,([A-Za-z0-9+/=]+)">')


def sptune(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-m", "sptune", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=300)


class Structure(HTMLParser):
    """The page's tables (rows of cell texts) and the order of its blocks."""

    def __init__(self, text):
        super().__init__()
        self.tables, self.order, self.links, self.cell = [], [], [], None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.tables.append([])
            self.order.append("table")
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = ""
        elif tag in ("img", "h2"):
            self.order.append(tag)
        for key in ("src", "href"):
            if key in attrs and not attrs[key].startswith("data:image/png;base64,"):
                self.links.append(attrs[key])
        if tag in ("script", "link", "iframe"):
            self.links.append(tag)

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self.cell)
            self.cell = None


def read(path):
    with open(path) as f:
        return f.read()


def doc_file(name):
    path = os.path.join(DOCS, name)
    if not os.path.exists(path):
        raise unittest.SkipTest(f"{path} is not there")
    return path


class Page(unittest.TestCase):
    def check_page(self, text, images, tables):
        """`images` plots (PNG), `tables` tables (the Inputs one included),
        a table under each plot, nothing fetched from outside."""
        s = Structure(text)
        pngs = IMG.findall(text)
        self.assertEqual(len(pngs), images)
        self.assertEqual(text.count("<img"), images)
        for data in pngs:
            self.assertTrue(base64.b64decode(data).startswith(b"\x89PNG\r\n\x1a\n"))
        self.assertEqual(len(s.tables), tables)
        self.assertEqual(s.links, [])
        for i, block in enumerate(s.order):
            if block == "img":
                self.assertEqual(s.order[i + 1], "table", f"no table under plot {i}")
        return s


class DocsResults(Page):
    """The project's own results files."""

    def test_autotune_eval(self):
        path = doc_file("issue12-heldout.json")
        doc = json.loads(read(path))
        kernels = list(doc["summary"])
        s = self.check_page(report.build([path]), images=len(kernels) + 1,
                            tables=1 + 1 + len(kernels) + 1)
        summary = s.tables[1]
        self.assertEqual([r[0] for r in summary[1:]], kernels)
        column = summary[0].index("tuned vs MLIR default")
        self.assertEqual(summary[1][column], f"{doc['summary']['spmm']['tuned_vs_mlir']:.3g}")
        per_matrix = s.tables[2]  # spmm: one row per matrix, sorted by speedup
        spmm = [r for r in doc["rows"] if r["kernel"] == "spmm"]
        self.assertEqual(len(per_matrix), 1 + len(spmm))
        column = per_matrix[0].index("tuned vs MLIR default")
        best = max(spmm, key=lambda r: r["tuned_vs_mlir"])
        self.assertEqual(per_matrix[-1][0], best["matrix"])
        self.assertEqual(per_matrix[-1][column], f"{best['tuned_vs_mlir']:.2f}x")
        cdf = s.tables[-1]
        self.assertEqual(cdf[0][:3], ["kernel", "speedup", "n"])
        self.assertIn(["spmm", "tuned vs MLIR default", str(len(spmm))], [r[:3] for r in cdf])

    def test_live_eval_with_a_compared_model(self):
        path = doc_file("issue14-live-eval.json")
        s = self.check_page(report.build([path]), images=4, tables=6)
        self.assertIn("shipped vs MLIR default", s.tables[2][0])

    def test_learn_experiment(self):
        for name in ("issue14-cpu-replay.json", "issue14-spade-replay.json"):
            path = doc_file(name)
            doc = json.loads(read(path))
            s = self.check_page(report.build([path]), images=1, tables=5)
            top1 = s.tables[2]
            self.assertEqual([r[0] for r in top1[1:]], list(doc["curves"]))
            first = doc["curves"]["random"][0]
            self.assertEqual(top1[0][1], f"{100 * first['budget_fraction']:.1f}%")
            self.assertEqual(top1[1][1], f"{first['top1_geomean']:.2f}x")
            bar = s.tables[4]
            self.assertEqual(len(bar), 1 + sum(len(p["rows"]) for p in
                                               doc["bar"]["policies"].values()))

    def test_learn_experiment_against_the_best_arm(self):
        # Issue 32's documents: seeds x splits, the bar against the best
        # single arm with the paired per-run comparison.
        path = doc_file("issue32-cpu-replay.json")
        doc = json.loads(read(path))
        s = self.check_page(report.build([path]), images=1, tables=5)
        self.assertEqual(s.tables[1][1][4], "3, 4, 5")
        bar = s.tables[4]
        self.assertEqual(bar[0][3:6], ["best single arm", "paired wins/ties/losses",
                                       "at least the best arm"])
        self.assertEqual(len(bar), 1 + sum(len(p["rows"]) for p in
                                           doc["bar"]["policies"].values()))
        row = doc["bar"]["policies"]["bandit-ucb1-mix"]["rows"][-1]
        pv = row["paired_vs_best_arm"]
        self.assertIn([f"{pv['wins']}/{pv['ties']}/{pv['losses']}"],
                      [[r[4]] for r in bar[1:]])

    def test_learn_rounds(self):
        path = doc_file("issue14-live-rounds.jsonl")
        rounds = [json.loads(l) for l in read(path).splitlines() if l.strip()]
        s = self.check_page(report.build([path]), images=1, tables=2)
        table = s.tables[1]
        self.assertEqual(len(table), 1 + len(rounds))
        self.assertEqual(table[-1][7], f"{rounds[-1]['validation']['top1_speedup']:.2f}x")

    def test_spade_knob_headroom(self):
        # The index; the family bars and the family table under them; the
        # knob moves; the CPU data.
        path = doc_file("issue17-knob-headroom.json")
        self.assertEqual(report_formats.load(path)[0], "spade-knob-headroom")
        text = report.build([path])
        s = self.check_page(text, images=1, tables=1 + 1 + 1 + 1)
        families = s.tables[1]
        self.assertEqual(families[0][:4], ["family", "problems", "every knob", "shared knobs only"])
        self.assertEqual(families[-1][:4], ["all", "86", "1.34x", "1.19x"])
        self.assertIn("42% of the log headroom needs the SPADE-only knobs", text)
        self.assertEqual(s.tables[3][1][:4], ["321", "6%", "0%", "5%"])

    def test_model_metrics(self):
        if not os.path.exists(METRICS):
            self.skipTest("no shipped model metrics")
        groups = len(json.loads(read(METRICS))["heldout"].get("per_group", []))
        s = self.check_page(report.build([METRICS]), images=2 if groups else 0,
                            tables=5 if groups else 3)
        self.assertEqual([r[0] for r in s.tables[1][1:]], ["train", "heldout"])

    def test_everything_on_one_page_by_the_command_line(self):
        paths = [os.path.join(DOCS, n) for n in sorted(os.listdir(DOCS))
                 if n.endswith((".json", ".jsonl"))]
        if not paths:
            self.skipTest("no docs/img results")
        expected = [report_formats.load(p)[0] for p in paths]
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "report.html")
            p = sptune("report", *paths, "-o", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            text = read(out)
        self.assertRegex(p.stdout, r"sptune report: wrote .*report\.html \(\d+ KiB, \d+ plots, "
                                   r"\d+ tables\)")
        s = Structure(text)
        self.assertEqual(s.order.count("h2"), len(paths))
        self.assertEqual([r[1] for r in s.tables[0][1:]], expected)
        self.assertEqual(s.links, [])
        self.assertGreaterEqual(text.count("<img"), len(paths))


class SyntheticResults(Page):
    """A file of every other format, written here."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def write(self, name, content):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            if name.endswith(".jsonl"):
                f.write("".join(json.dumps(r) + "\n" for r in content))
            else:
                json.dump(content, f)
        return path

    def ceiling_doc(self):
        rows = [{"matrix": f"m{i}", "kernel": k, "free": 64, "nnz": 1000 * (i + 1),
                 "mlir_default_s": 0.01, "heuristic_s": 0.005, "eigen_s": None,
                 "rsb_s": None, "best_sample_s": 0.01 / (i + 1.5), "best_vs_mlir": i + 1.5,
                 "best_vs_eigen": None, "best_vs_rsb": None, "heuristic_vs_mlir": 2.0,
                 "heuristic_vs_rsb": None, "mean_compile_s": 0.1}
                for i in range(4) for k in ("spmm", "sddmm")]
        return {"summary": {"spmm": {"matrices": 4, "geomean_best_vs_mlir": 2.9},
                            "sddmm": {"matrices": 4, "geomean_best_vs_mlir": 2.9},
                            "measurements_per_minute": 12.5, "statuses": {"ok": 40}},
                "rows": rows}

    def test_ceiling_report(self):
        path = self.write("ceiling.json", self.ceiling_doc())
        # Two kernels: two bar charts and a CDF; the summary, its other numbers,
        # a table per kernel, the distribution.
        s = self.check_page(report.build([path]), images=3, tables=1 + 2 + 2 + 1)
        self.assertEqual(s.tables[2], [["", "value"], ["measurements per minute", "12.5"],
                                       ["statuses", "ok 40"]])
        spmm = s.tables[3]
        self.assertEqual([r[0] for r in spmm[1:]], ["m0", "m1", "m2", "m3"])
        self.assertEqual(spmm[-1][spmm[0].index("best sample vs MLIR default")], "4.50x")
        dist = s.tables[-1]
        row = [r for r in dist if r[:2] == ["spmm", "best sample vs MLIR default"]][0]
        self.assertEqual(row[2:], ["4", "1.50x", "1.80x", "2.25x", "3.00x", "3.75x", "4.20x",
                                   "4.50x", "2.77x", "100%"])

    def test_transfer_curve(self):
        rows = [{"matrices": n, "seed": s, "samples": 10 * n,
                 "finetune": {"tau": 0.1 * n + 0.01 * s, "top1": 1.0 + 0.1 * n},
                 "scratch": {"tau": 0.05 * n, "top1": None if n == 2 else 1.0}}
                for n in (2, 4, 8) for s in range(3)]
        s = self.check_page(report.build([self.write("transfer.json", rows)]), images=1, tables=2)
        self.assertEqual(s.tables[1][1], ["2", "3", "20", "0.210", "0.100", "1.20x", "-"])

    def test_gpu_check_and_bench_lines(self):
        results = [{"matrix": f"m{i}", "kernel": "spmm", "nnz": 100, "device": "GPU",
                    "summary": True, "cusparse_s": 0.002, "tuned_s": 0.001, "codegen_s": 0.004,
                    "tuned_schedule": "nvvm spmm, ...", "speedup": 2.0} for i in range(3)]
        check = self.write("gpu-check.json", {
            "gpu": "GPU", "lit": {"passed": 5, "failed": 0, "unsupported": 1, "status": 0},
            "bench": {"status": 0, "results": results,
                      "geomean_speedup_tuned_over_cusparse": 2.0},
            "seconds": {"total": 100}})
        lines = self.write("bench.jsonl", [{"matrix": "m0", "kernel": "spmm", "what": "cusparse",
                                            "status": "ok"}] + results)
        self.assertEqual(report_formats.load(lines)[0], "gpu-bench")
        s = self.check_page(report.build([check, lines]), images=2, tables=1 + 2 + 1)
        self.assertEqual(s.tables[2][1][3:9], ["100", "2", "1", "4", "2.00x", "0.50x"])

    def test_torch_entry_and_tuning_database(self):
        kernel = {"median_s": {"sptune": 0.001, "torch": 0.004, "dense": 0.002},
                  "compile": {"tune_s": 1.0, "lower_s": 0.5, "llvm_s": 0.5},
                  "speedup_vs_torch": 4.0, "speedup_vs_dense": 2.0}
        entry = self.write("torch-entry.json", {
            "n": 64, "dtype": "float32", "threads": 2,
            "summary": {"spmm": {"geomean_speedup_vs_torch": 4.0, "matrices": 2}},
            "matrices": [{"name": f"m{i}", "kernels": {"spmm": kernel, "spmv": kernel}}
                         for i in range(2)]})
        self.assertEqual(report_formats.load(entry)[0], "torch-entry")
        # Per kernel a bar chart and a table; the CDFs and their table; the summary.
        s = self.check_page(report.build([entry]), images=3, tables=1 + 1 + 2 + 1)
        self.assertEqual(s.tables[2][1][1:], ["1", "4", "2", "2000", "4.00x", "2.00x"])
        run = {"process_s": 1.0, "autotune_s": 0.1, "from_database": 0, "schedules": []}
        warm = {"process_s": 0.5, "autotune_s": 0.001, "from_database": 3, "schedules": []}
        db = self.write("tdb.json", {"bench": "tuning-database", "kernels": "k.mlir",
                                     "rows": [{"matrix": "m", "measure_top_k": k, "cold": run,
                                               "warm": warm, "same_choice": True,
                                               "process_ratio": 2.0, "autotune_ratio": 100.0}
                                              for k in (0, 5)]})
        self.assertEqual(report_formats.load(db)[0], "tuning-database")
        text = report.build([db])
        self.check_page(text, images=3, tables=1 + 2 + 1)
        self.assertIn("same schedules in 2 of 2 cases", text)

    def test_paired_compare(self):
        row = {"status": "ok", "pairs": 3, "median_ratio": 1.5, "geomean_ratio": 1.4,
               "ci95": [1.2, 1.8], "a_wins": 1.0, "a_median_s": 0.001, "b_median_s": 0.0015,
               "a": "cpu spmv, tile = 0", "b": "mlir-default"}
        path = self.write("paired.json", {
            "bench": "paired-compare", "pairs": 3, "min_seconds": 0.2,
            "summary": {"compared": 2, "failed": 1},
            "rows": [dict(row, matrix="m0", kernel="spmv"), dict(row, matrix="m1", kernel="spmv"),
                     {"status": "timeout", "reason": "", "side": "a", "matrix": "m2",
                      "kernel": "spmv"}]})
        self.assertEqual(report_formats.load(path)[0], "paired-compare")
        # The page's index; the bar chart and table of the one kernel; the CDF
        # and its table.
        text = report.build([path])
        s = self.check_page(text, images=2, tables=1 + 1 + 1)
        self.assertEqual(s.tables[1][1][1:], ["1", "1.5", "1.50x", "1.20x", "1.80x", "1.40x"])
        self.assertIn("Failed: m2 spmv: timeout", text)

    def test_dispatch_overhead(self):
        path = self.write("dispatch.json", {
            "bench": "dispatch-overhead", "machine": "AMD EPYC",
            "summary": {"spmm": {"matrices": 1, "worst_miss_vs_kernel": 0.005,
                                 "worst_hit_vs_kernel": 1e-6, "routes_agree_with_eval": True}},
            "rows": [{"matrix": "m0", "kernel": "spmm", "variant": 1, "miss_s": 2e-6,
                      "hit_s": 3e-10, "miss_vs_kernel": 0.005, "hit_vs_kernel": 1e-6}]})
        self.assertEqual(report_formats.load(path)[0], "dispatch-overhead")
        s = self.check_page(report.build([path]), images=0, tables=1 + 2)
        self.assertEqual(s.tables[1][1], ["spmm", "1", "0.500%", "0.000%"])
        self.assertEqual(s.tables[2][1], ["m0", "spmm", "1", "2.00", "0.3", "0.500%", "0.000%"])

    def test_cpu_headroom(self):
        row = {"matrix": "m0", "kernel": "spmm", "free": 64, "status": "ok",
               "heuristic": "cpu spmm, tile = 0", "heuristic_s": 0.002,
               "single_run_oracle": 1.3, "before": 1.05, "after": 1.2,
               "after_from": "new knob: balanced rows", "candidates": []}
        path = self.write("headroom.json", {
            "bench": "cpu-headroom", "machine": {"cpu": "AMD EPYC", "cores": 2},
            "summary": {"spmm N=64": {"kernel": "spmm", "free": 64, "problems": 1,
                                      "single_run_oracle": 1.3, "before": 1.05, "after": 1.2,
                                      "max_after": 1.2,
                                      "share_of_log_headroom_from_new_knobs": 0.73}},
            "rows": [row, {"matrix": "m1", "kernel": "spmm", "free": 64,
                           "status": "no heuristic measured"}]})
        self.assertEqual(report_formats.load(path)[0], "cpu-headroom")
        text = report.build([path])
        s = self.check_page(text, images=1, tables=1 + 2)
        self.assertEqual(s.tables[1][1], ["spmm N=64", "1", "1.30x", "1.05x", "1.20x", "1.20x",
                                          "73%"])
        self.assertEqual(s.tables[2][1], ["m0", "spmm", "64", "2.000", "1.05x", "1.20x",
                                          "new knob: balanced rows"])
        self.assertIn("Not measured: m1 spmm 64: no heuristic measured", text)

    def test_row_order_headroom(self):
        orders = ["rcm", "mean-column", "rcm-symmetric"]
        path = self.write("row-order.json", {
            "bench": "row-order-headroom", "machine": {"cpu": "AMD EPYC", "cores": 2},
            "settings": {"rounds": 4, "min_seconds": 0.2}, "orders": orders,
            "summary": {"sddmm:16": {"matrices": 1, **{
                o: {"geomean": x, "oracle": max(1.0, x), "best": x, "worst": x}
                for o, x in zip(orders, (0.84, 0.99, 1.23))}}},
            "rows": [{"matrix": "m0", "kernel": "sddmm", "free": 16, "status": "ok",
                      "speedup": dict(zip(orders, (0.84, 0.99, 1.23)))},
                     {"matrix": "m1", "kernel": "sddmm", "free": 16,
                      "status": "m1.mtx is not square"}]})
        self.assertEqual(report_formats.load(path)[0], "row-order-headroom")
        text = report.build([path])
        s = self.check_page(text, images=1, tables=1 + 2)
        self.assertEqual(s.tables[1][1], ["sddmm:16", "1", "0.84x (1.00x)", "0.99x (1.00x)",
                                          "1.23x (1.23x)"])
        self.assertEqual(s.tables[2][1], ["m0", "sddmm", "16", "0.84x", "0.99x", "1.23x"])
        self.assertIn("Not measured: m1 sddmm 16: m1.mtx is not square", text)

    def test_spgemm(self):
        path = self.write("spgemm.json", {
            "bench": "spgemm", "machine": {"cpu": "AMD EPYC", "cores": 2}, "rounds": 2,
            "reps": 3, "threads": 2,
            "summary": {"geomean_speedup_vs_best_library": 1.1,
                        "geomean_speedup_vs_mlir_default": 1.5, "all_agree": True},
            "rows": [{"matrix": "m0", "entries_c": 1234,
                      "seconds": {"sptune": 0.01, "mlir_default": 0.015, "hand": 0.011,
                                  "eigen": 0.02},
                      "speedup_vs_best_library": 1.1, "speedup_vs_mlir_default": 1.5,
                      "speedup_vs": {"hand": 1.1, "eigen": 2.0}, "best_library": "hand"}]})
        self.assertEqual(report_formats.load(path)[0], "spgemm")
        s = self.check_page(report.build([path]), images=1, tables=1 + 1)
        self.assertEqual(s.tables[1][1], ["m0", "1,234", "0.0100", "0.0150", "0.0110", "0.0200",
                                          "-", "1.10x", "hand"])

    def test_spgemm_variants(self):
        """A run with --variant and without MLIR's default: the variant's
        times and geomean, no MLIR-default column."""
        path = self.write("spgemm-variants.json", {
            "bench": "spgemm", "machine": {"cpu": "AMD EPYC", "cores": 2}, "rounds": 2,
            "reps": 3, "threads": 2, "variants": {"hash": "gustavson-accumulator=hash"},
            "summary": {"geomean_speedup_vs_best_library": 1.1,
                        "geomean_speedup_vs_mlir_default": None, "all_agree": True,
                        "geomean_variant_speedup": {"hash": 0.5}},
            "rows": [{"matrix": "m0", "entries_c": 1234,
                      "seconds": {"sptune": 0.01, "hash": 0.02, "hand": 0.011},
                      "speedup_vs_best_library": 1.1, "variant_speedup": {"hash": 0.5},
                      "speedup_vs": {"hand": 1.1}, "best_library": "hand"}]})
        text = report.build([path])
        s = self.check_page(text, images=1, tables=1 + 1)
        self.assertEqual(s.tables[1][0], ["matrix", "entries of C", "sptune (s)", "hand (s)",
                                          "eigen (s)", "rsb (s)", "hash (s)",
                                          "over the best library", "best library"])
        self.assertEqual(s.tables[1][1], ["m0", "1,234", "0.0100", "0.0110", "-", "-",
                                          "0.0200", "1.10x", "hand"])
        self.assertIn("the variant hash (gustavson-accumulator=hash) 0.50x", text)
        self.assertNotIn("MLIR's default", text)

    def test_learned_kernel_titles(self):
        # A spgemm-learn file's section is titled by its kernel field; one
        # naming no kernel the bench learns, or of another type, is SpGEMM's.
        self.assertEqual(report.learned_kernel_title("mttkrp"),
                         "An MTTKRP model learned from no data")
        self.assertEqual(report.learned_kernel_title("batched_spmm"),
                         "A batched SpMM model learned from no data")
        for other in ("spgemm", "spmm", 3, None, ["mttkrp"], {"k": 1}):
            self.assertEqual(report.learned_kernel_title(other),
                             "An SpGEMM model learned from no data")

    def test_rounds_of_a_single_line(self):
        path = self.write("rounds.jsonl", [{"round": 1, "strategy": "random", "arm": None,
                                            "measured": 3, "total_measured": 3, "cost_s": 1.5,
                                            "cumulative_cost_s": 1.5, "reward": None,
                                            "validation": {"top1_speedup": 1.2,
                                                           "top5_speedup": 1.5,
                                                           "oracle_speedup": 2.0,
                                                           "kendall_tau": 0.3}}])
        s = self.check_page(report.build([path]), images=1, tables=2)
        self.assertEqual(s.tables[1][1][:3], ["1", "random", "-"])

    def test_dataset(self):
        records = []
        for m in ("a", "b"):
            for role, t in (("baseline:mlir-default", 0.004), ("baseline:heuristic", 0.002),
                            ("sample", 0.001), ("sample", 0.003)):
                records.append({"key": f"{m}{len(records)}", "role": role, "kernel": "spmm",
                                "free": 16, "target": "cpu", "status": "ok",
                                "schedule": "cpu spmm, ...", "time_s": {"median": t},
                                "matrix": {"id": m, "nnz": 100}})
        s = self.check_page(report.build([self.write("d.jsonl", records)]), images=2,
                            tables=1 + 2 + 1 + 1)
        per_matrix = s.tables[3]
        self.assertEqual(per_matrix[1][per_matrix[0].index("best sample vs MLIR default")],
                         "4.00x")

    def test_tune_results_share_a_section(self):
        def tune_doc(matrix, kernel, target, tuned, baselines):
            ms = [{"variant": "tuned", "status": "ok" if tuned else "error",
                   "reason": None if tuned else "no GPU", "time_s": tuned,
                   "tuned_speedup": 1.0 if tuned else None}]
            ms += [{"variant": b, "status": "ok", "time_s": t,
                    "tuned_speedup": t / tuned if tuned else None} for b, t in baselines]
            return {"format": "sptune-tune", "version": 1, "matrix": matrix, "kernel": kernel,
                    "target": target, "free": 16, "schedule": f"{target} {kernel}, vl = 4",
                    "autotune": {"mode": "release", "notes": [], "ranking": [
                        {"rank": 1, "score": 0.5, "schedule": f"{target} {kernel}, vl = 4",
                         "measured_ms": None, "heuristic": False}]},
                    "measurements": ms}
        a = self.write("a.json", tune_doc("/m/x.mtx", "spmm", "cpu", 0.001,
                                          [("mlir-default", 0.004), ("heuristic", 0.002)]))
        b = self.write("b.json", tune_doc("gen:uniform:rows=8,nnz=9", "spmv", "nvvm", None, []))
        text = report.build([a, b])
        s = self.check_page(text, images=1, tables=1 + 1 + 2)
        self.assertEqual(s.order.count("h2"), 1)
        results = s.tables[1]
        self.assertEqual(results[0], ["matrix", "kernel", "target", "tuned (ms)",
                                      "mlir-default (ms)", "tuned vs mlir-default",
                                      "heuristic (ms)", "tuned vs heuristic",
                                      "tuned measurement"])
        self.assertEqual(results[1], ["x", "spmm", "cpu", "1", "4", "4.00x", "2", "2.00x", "ok"])
        self.assertEqual(results[2][-1], "error: no GPU")

    def test_unknown_format_fails_cleanly(self):
        unknown = self.write("unknown.json", {"some": "thing"})
        good = self.write("ceiling.json", self.ceiling_doc())
        out = os.path.join(self.tmp.name, "r.html")
        p = sptune("report", good, unknown, "-o", out)
        self.assertEqual(p.returncode, 1)
        self.assertIn(f"sptune report: error: {unknown}: not a results format sptune report "
                      f"knows; it knows:", p.stderr)
        for name, _ in report_formats.FORMATS:
            self.assertIn(name, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        self.assertFalse(os.path.exists(out))

    def test_broken_files_fail_cleanly(self):
        cases = [("bad.json", "{not json", "not JSON"),
                 ("cut.jsonl", '{"round": 1}\n{"round": ', "line 2 is not JSON"),
                 ("empty.json", "", "empty file"),
                 # Python's json recursed into a RecursionError traceback.
                 ("deep.json", "[" * 100000, "JSON nested too deeply"),
                 ("deep.jsonl", '{"round": 1}\n' + "[" * 100000,
                  "line 2: JSON nested too deeply")]
        for name, content, message in cases:
            path = os.path.join(self.tmp.name, name)
            with open(path, "w") as f:
                f.write(content)
            with self.subTest(name):
                with self.assertRaises(report_formats.SptuneError) as e:
                    report_formats.load(path)
                self.assertIn(f"{path}: {message}", str(e.exception))
        # A known shape with fields of the wrong type: the file named, no
        # traceback (a TypeError from the plot code; issue 13 probe).
        wrong = self.write("wrong.json", {"format": "sptune-tune", "version": 1,
                                          "matrix": 5, "kernel": None, "target": [],
                                          "measurements": "none"})
        p = sptune("report", wrong, "-o", os.path.join(self.tmp.name, "w.html"))
        self.assertEqual(p.returncode, 1)
        self.assertIn(f"{wrong}: malformed tune results", p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        p = sptune("report", os.path.join(self.tmp.name, "none.json"), "-o",
                   os.path.join(self.tmp.name, "r.html"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("none.json: cannot read (No such file or directory)", p.stderr)
        self.assertNotIn("Traceback", p.stderr)

    def test_no_inputs(self):
        p = sptune("report")
        self.assertEqual(p.returncode, 2)
        self.assertIn("RESULTS", p.stderr)


if __name__ == "__main__":
    unittest.main()
