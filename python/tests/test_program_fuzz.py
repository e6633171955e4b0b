"""Tests of sptune.program_fuzz's pure parts: the SpGEMM family's
reference product, its parser of sparse_tensor.print's output and its check
against the reference (which must reject wrong structure and values); the
layers family's reference, check and schedule count; the cases (the same
case for the same seed and number; narrow widths only where they fit); and
--only."""

import unittest

from sptune import fuzz_beyond as fb
from sptune import fuzz_layers as fl
from sptune import fuzz_spgemm as fz
from sptune import fuzz_unscheduled as fu
from sptune import program_fuzz as pf


def printed(nrows, ncols, pos, crd, values):
    return ("---- Sparse Tensor ----\nnse = %d\ndim = ( %d, %d )\n"
            "lvl = ( %d, %d )\npos[1] : ( %s )\ncrd[1] : ( %s )\n"
            "values : ( %s )\n----\n" % (
                len(crd), nrows, ncols, nrows, ncols,
                ", ".join(map(str, pos)), ", ".join(map(str, crd)),
                ", ".join(map(str, values))))


class FakeCase:
    """A case of one product with given operands."""

    def __init__(self, a, b, elt="f64"):
        self.a, self.b, self.elt, self.form = a, b, elt, "matmul"

    expected = fz.SpgemmCase.expected


# A = [[1, 2], [0, 0], [3, 0]], B = [[1, 0, 1], [-0.5, 0, 0]]:
# row 0 of A B is (1 - 1, 0, 1): the cancelling sum stays stored.
A = fz.Sparse(3, 2, [[(0, 1.0), (1, 2.0)], [], [(0, 3.0)]])
B = fz.Sparse(2, 3, [[(0, 1.0), (2, 1.0)], [(0, -0.5)]])
GOOD = printed(3, 3, [0, 2, 2, 4], [0, 2, 0, 2], [0, 1, 3, 3])


class Reference(unittest.TestCase):
    def test_cancelling_sums_stay_stored(self):
        c, scales = fz.product(A, B)
        self.assertEqual(c.rows, [[(0, 0.0), (2, 1.0)], [], [(0, 3.0), (2, 3.0)]])
        self.assertEqual(scales[0], [2.0, 1.0])

    def test_stored_zeros_of_an_input_make_entries(self):
        z = fz.Sparse(1, 1, [[(0, 0.0)]])
        c, _ = fz.product(z, fz.Sparse(1, 2, [[(1, 5.0)]]))
        self.assertEqual(c.rows, [[(1, 0.0)]])


class Check(unittest.TestCase):
    def test_unreadable_output_is_wrong_not_a_crash(self):
        self.assertIn("unreadable", fz.check_against_reference(
            FakeCase(A, B), GOOD.replace("0, 1, 3, 3", "0, x, 3, 3")))

    def test_the_right_output_passes(self):
        self.assertEqual(fz.check_against_reference(FakeCase(A, B), GOOD), "")

    def test_wrong_outputs_are_caught(self):
        case = FakeCase(A, B)
        wrong = {
            "positions": printed(3, 3, [0, 1, 1, 3], [2, 0, 2], [1, 3, 3]),
            "coordinates": printed(3, 3, [0, 2, 2, 4], [0, 1, 0, 2], [0, 1, 3, 3]),
            "value 3": printed(3, 3, [0, 2, 2, 4], [0, 2, 0, 2], [0, 1, 3, 3.01]),
            "dim": printed(3, 4, [0, 2, 2, 4], [0, 2, 0, 2], [0, 1, 3, 3]),
            "printed 0": "",
        }
        for what, text in wrong.items():
            self.assertIn(what, fz.check_against_reference(case, text), what)

    def test_floats_within_print_precision_pass(self):
        text = printed(3, 3, [0, 2, 2, 4], [0, 2, 0, 2], [1e-7, 1, 3, 3.000001])
        self.assertEqual(fz.check_against_reference(FakeCase(A, B, "f32"), text), "")

    def test_integers_are_exact(self):
        a = fz.Sparse(1, 1, [[(0, 2)]])
        b = fz.Sparse(1, 1, [[(0, 3)]])
        self.assertEqual(fz.check_against_reference(
            FakeCase(a, b, "i64"), printed(1, 1, [0, 1], [0], [6])), "")
        self.assertIn("value 0", fz.check_against_reference(
            FakeCase(a, b, "i64"), printed(1, 1, [0, 1], [0], [7])))


class Cases(unittest.TestCase):
    def test_a_case_is_its_seed_and_number(self):
        self.assertEqual(fz.SpgemmCase(3, 17).program(), fz.SpgemmCase(3, 17).program())
        self.assertNotEqual(fz.SpgemmCase(3, 17).program(), fz.SpgemmCase(3, 18).program())

    def test_narrow_widths_only_where_they_fit(self):
        for n in range(300):
            case = fz.SpgemmCase(1, n)
            mats = dict(case.operands)
            mats["c"], _ = fz.product(case.a, case.b)
            if case.form == "chain":
                mats["e"], _ = fz.product(mats["c"], case.d)
            for name, (pos, crd) in case.widths.items():
                self.assertTrue(fz.fits(pos, mats[name]) and fz.fits(crd, mats[name]),
                                (n, name, pos, crd))

    def test_the_kernel_is_expected_for_wide_results_only(self):
        case = fz.SpgemmCase(1, 0)
        case.widths["c"] = (0, 32)
        self.assertEqual(case.uses_kernel(), 1)
        case.widths["c"] = (16, 32)
        self.assertEqual(case.uses_kernel(), 0)


def layer(chain="spmm", **over):
    """A layer case with a 2 x 2 S = [[2, 0], [0.5, -1]] and small operands."""
    case = fl.LayerCase(1, 0)
    case.chain, case.m, case.ncols, case.k, case.p = chain, 2, 2, 1, 2
    case.s = fz.Sparse(2, 2, [[(0, 2.0)], [(0, 0.5), (1, -1.0)]])
    case.a, case.b = [[1.0], [2.0]], [[3.0, -1.0]]
    case.h = [[1.0, -2.0], [4.0, 0.5]]
    case.v, case.d = [[1.0], [-3.0]], [[2.0, 0.0], [1.0, 1.0]]
    case.bias, case.scale, case.argument = [0.25, -0.25], 0.5, 0.25
    case.scale_form, case.spmm_form, case.epilogue = "none", "matmul", "none"
    for k, v in over.items():
        setattr(case, k, v)
    return case


class Layers(unittest.TestCase):
    def test_spmm_with_epilogues(self):
        self.assertEqual(layer().reference(False), [[2.0, -4.0], [-3.5, -1.5]])
        self.assertEqual(layer(epilogue="relu").reference(False),
                         [[2.0, 0.0], [0.0, 0.0]])
        # alpha is the argument: 0.25 (S H) + bias.
        self.assertEqual(layer(epilogue="bias", spmm_form="alpha").reference(False),
                         [[0.75, -1.25], [-0.625, -0.625]])
        # The magnitudes: every term's absolute value.
        self.assertEqual(layer().reference(True), [[2.0, 4.0], [4.5, 1.5]])

    def test_gat_scores_and_their_scale(self):
        # X = S ⊙ (A B) = [[6, 0], [3, 2]]; then X H.
        self.assertEqual(layer("gat").reference(False), [[6.0, -12.0], [11.0, -5.0]])
        self.assertEqual(layer("gat", scale_form="op-constant").reference(False),
                         [[3.0, -6.0], [5.5, -2.5]])
        # The argument (0.25 here) is another value than the constant.
        self.assertEqual(layer("gat", scale_form="op-argument").reference(False),
                         [[1.5, -3.0], [2.75, -1.25]])

    def test_vector_chains(self):
        self.assertEqual(layer("spmv").reference(False), [[2.0], [3.5]])
        self.assertEqual(layer("hadamard-spmv").reference(False), [[4.0], [3.5]])

    def test_the_check_reads_printed_values(self):
        case = layer("spmv")
        self.assertEqual(case.check("2\n3.5\n"), "")
        self.assertEqual(case.check("2.00001\n3.49999\n"), "")
        self.assertIn("value 1", case.check("2\n3.6\n"))
        self.assertIn("printed 1 values", case.check("2\n"))
        self.assertIn("unexpected output", case.check("2\nerror: boom\n"))

    def test_every_kernel_must_be_scheduled(self):
        case = layer("gat")
        ops = ("%0 = linalg.generic {sptune.schedule = #sptune.schedule<cpu sddmm, x>}\n"
               "%1 = linalg.matmul {sptune.schedule = #sptune.schedule<cpu spmm, y>}\n")
        self.assertEqual(case.why_kernels_unused("", ops), "")
        # A function's attribute is not a kernel's schedule.
        fn = "func.func @f() attributes {sptune.schedule = #sptune.schedule<cpu spmm, y>}\n"
        self.assertEqual(case.why_kernels_unused("", ops + fn), "")
        self.assertIn("expected", case.why_kernels_unused("", ops.splitlines()[0]))

    def test_a_case_is_its_seed_and_number(self):
        self.assertEqual(fl.LayerCase(2, 5).program(), fl.LayerCase(2, 5).program())


def beyond(kind, shape, sparse, free, **operands):
    case = fb.BeyondCase(1, 0)
    case.kind, case.shape, case.sparse, case.free = kind, shape, sparse, free
    case.elt = "f16" if kind == "half" else "f64"
    case.fill = 0.0
    for k, v in operands.items():
        setattr(case, k, v)
    return case


class Beyond(unittest.TestCase):
    def test_mttkrp(self):
        # B(0, 1, 0) = 2, B(1, 0, 1) = -1; C, D: 2 x 2 and 2 x 2.
        case = beyond("mttkrp", (2, 2, 2), {(0, 1, 0): 2.0, (1, 0, 1): -1.0}, 2,
                      c=[[1.0, 2.0], [3.0, 4.0]], d=[[0.5, 1.0], [2.0, -1.0]])
        # A(0, j) = 2 C(1, j) D(0, j); A(1, j) = -C(0, j) D(1, j).
        self.assertEqual(case.reference(False), [3.0, 8.0, -2.0, 2.0])
        self.assertEqual(case.reference(True), [3.0, 8.0, 2.0, 2.0])
        # The output starts from the fill, rows without entries too.
        case.fill = -1.5
        self.assertEqual(case.reference(False), [1.5, 6.5, -3.5, 0.5])
        self.assertEqual(case.reference(True), [4.5, 9.5, 3.5, 3.5])
        self.assertIn("arith.constant -1.5 : f64", case.program())

    def test_batched_and_half(self):
        case = beyond("batched", (2, 1, 2), {(0, 0, 1): 2.0, (1, 0, 0): 3.0}, 1,
                      b=[[[5.0], [7.0]], [[-1.0], [4.0]]])
        self.assertEqual(case.reference(False), [14.0, -3.0])
        half = beyond("half", (2, 2), {(0, 0): 1.5, (1, 1): -2.0}, 2,
                      b=[[1.0, 2.0], [0.5, 0.5]])
        self.assertEqual(half.reference(False), [1.5, 3.0, -1.0, -1.0])
        self.assertEqual(half.check("1.5\n3\n-1\n-1\n"), "")
        # f16 / bf16 sums of these values are exact: any difference is wrong.
        self.assertIn("value 3", half.check("1.5\n3\n-1\n-1.25\n"))

    def test_the_half_spmm_and_the_kernels_mttkrp_are_tuned(self):
        spmm = "%1 = linalg.matmul {sptune.schedule = #sptune.schedule<cpu spmm, y>}\n"
        mttkrp = "%1 = linalg.generic {sptune.schedule = #sptune.schedule<cpu mttkrp, y>}\n"
        self.assertEqual(beyond("half", (1, 1), {}, 1).why_kernels_unused("", spmm), "")
        self.assertIn("expected {'mttkrp': 1}", beyond("mttkrp", (1, 1, 1), {}, 1,
                                                      encoding="csf")
                      .why_kernels_unused("", spmm))
        self.assertIn("expected {'spmm': 1}", beyond("half", (1, 1), {}, 1)
                      .why_kernels_unused("", ""))
        # An MTTKRP or batched product the kernels do not compute passes
        # through.
        for kind, encoding in [("mttkrp", "dense-dense-compressed"),
                               ("batched", "csf"), ("batched", "dense-csr")]:
            case = beyond(kind, (1, 1, 1), {}, 1, encoding=encoding)
            self.assertIn("expected {}", case.why_kernels_unused("", mttkrp))
            self.assertEqual(case.why_kernels_unused("omp.wsloop {\n", ""), "")
        for encoding in ["csf", "dense-csr", "coo", "coo-soa32"]:
            case = beyond("mttkrp", (1, 1, 1), {}, 1, encoding=encoding)
            self.assertEqual(case.why_kernels_unused("omp.wsloop {\n", mttkrp), "",
                             encoding)
        batched = ("%1 = linalg.generic {sptune.schedule = "
                   "#sptune.schedule<cpu batched_spmm, y>}\n")
        for encoding in ["dense-dense-compressed", "coo", "coo-soa32"]:
            case = beyond("batched", (1, 1, 1), {}, 1, encoding=encoding)
            self.assertEqual(case.why_kernels_unused("omp.wsloop {\n", batched), "",
                             encoding)
            self.assertIn("expected {'batched_spmm': 1}",
                          case.why_kernels_unused("omp.wsloop {\n", ""))

    def test_the_3d_kernels_must_run_in_parallel(self):
        loop = "omp.wsloop {\n"
        cases = [(kind, encoding, shape, None, parallel)
                 for kind in ["mttkrp", "batched"]
                 for encoding, shape, parallel in [("csf", (1, 2, 2), True),
                                                   ("dense-csr", (3, 2, 2), True),
                                                   ("dense-csr", (1, 2, 2), False)]]
        # sptune's kernels over COO run in parallel but in one block
        # (threads=1).
        cases += [(kind, encoding, (3, 2, 2), threads, threads != 1)
                  for kind in ["mttkrp", "batched"]
                  for encoding in ["coo", "coo-soa32"]
                  for threads in [None, 1, 2]]
        for kind, encoding, shape, threads, parallel in cases:
            case = beyond(kind, shape, {}, 1, encoding=encoding, threads=threads)
            self.assertEqual(case.expects_parallel_loop(), parallel,
                             (kind, encoding, shape, threads))
            scheduled = "".join(
                "linalg.generic {sptune.schedule = #sptune.schedule<cpu %s, y>}\n"
                % k for k in case.expected_schedules())
            self.assertEqual(case.why_kernels_unused(loop, scheduled), "")
            why = case.why_kernels_unused("scf.for\n", scheduled)
            if parallel:
                self.assertIn("no omp.wsloop", why)
            else:
                self.assertEqual(why, "")
        self.assertFalse(beyond("half", (2, 2), {}, 1).expects_parallel_loop())

    def test_a_case_is_its_seed_and_number(self):
        self.assertEqual(fb.BeyondCase(4, 9).program(), fb.BeyondCase(4, 9).program())


class Unscheduled(unittest.TestCase):
    def test_reference(self):
        # out(i) = sum_j S(i, j) d(j), S 2 x 3 with two entries.
        case = fu.UnscheduledCase(1, 0)
        case.sizes, case.out_dims, case.parallel = [2, 3], [0], {0}
        case.sparse_inputs = [((0, 1), [0, 1], ["dense", "compressed"],
                               {(0, 1): 2.0, (1, 2): -1.0})]
        case.dense = ((1,), {(0,): 1.0, (1,): 0.5, (2,): 4.0})
        self.assertEqual(case.reference(False), [1.0, -4.0])
        self.assertEqual(case.reference(True), [1.0, 4.0])
        self.assertEqual(case.check("1\n-4\n"), "")
        self.assertIn("value 1", case.check("1\n-3.5\n"))
        # The kernel: one generic, S's levels in its storage order, the
        # output over i, every loop named in the maps.
        text = case.program()
        self.assertIn("(e0, e1) -> (e0 : dense, e1 : compressed)", text)
        self.assertIn('iterator_types = ["parallel", "reduction"]', text)
        self.assertEqual(text.count("linalg.generic"), 1)

    def test_a_loop_no_input_indexes_broadcasts(self):
        # out(i, k) = sum_j S(i, j): the same sums along k.
        case = fu.UnscheduledCase(1, 0)
        case.sizes, case.out_dims, case.parallel = [2, 3, 2], [0, 2], {0, 2}
        case.sparse_inputs = [((0, 1), [0, 1], ["dense", "compressed"],
                               {(0, 1): 2.0, (0, 2): 0.5, (1, 0): -1.0})]
        case.dense = None
        self.assertEqual(case.reference(False), [2.5, 2.5, -1.0, -1.0])
        self.assertIn('iterator_types = ["parallel", "reduction", "parallel"]',
                      case.program())

    def test_inputs_are_rarely_empty(self):
        empty = sum(all(not e for _, _, _, e in fu.UnscheduledCase(3, n).sparse_inputs)
                    for n in range(400))
        self.assertLess(empty, 40)

    def test_every_loop_is_indexed_and_output_loops_are_parallel(self):
        for n in range(300):
            case = fu.UnscheduledCase(7, n)
            indexed = set(case.out_dims).union(*(d for d, _, _, _ in case.sparse_inputs))
            if case.dense:
                indexed |= set(case.dense[0])
            self.assertEqual(indexed, set(range(len(case.sizes))), case.describe())
            self.assertEqual(case.parallel, set(case.out_dims), case.describe())
            for dims, order, types, _ in case.sparse_inputs:
                self.assertEqual(sorted(order), list(range(len(dims))))
                self.assertEqual(len(types), len(dims))

    def test_nothing_is_scheduled_and_the_rule_applies(self):
        case = fu.UnscheduledCase(2, 3)
        self.assertEqual(case.sptune_args("DIR")[0].split("=")[0], "--sptune-lower-cpu")
        self.assertIsNone(case.schedule_args("DIR"))

    def test_a_case_is_its_seed_and_number(self):
        self.assertEqual(fu.UnscheduledCase(4, 9).program(), fu.UnscheduledCase(4, 9).program())


class Only(unittest.TestCase):
    def test_numbers_and_family_numbers(self):
        self.assertEqual(pf.parse_only("3,layers:4", ["spgemm", "layers"]),
                         [("spgemm", 3), ("layers", 3), ("layers", 4)])
        with self.assertRaises(ValueError):
            pf.parse_only("nope:1", ["spgemm"])
        with self.assertRaises(ValueError):
            pf.parse_only("x", ["spgemm"])
        with self.assertRaises(ValueError):
            pf.parse_only("-2", ["spgemm"])


if __name__ == "__main__":
    unittest.main()
