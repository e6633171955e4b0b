//===- ScheduleTest.cpp - Schedule values, legality, canonical forms ------===//

#include "sptune/Target/DefaultSchedule.h"
#include "spade/SpadeKnobs.h"
#include "nvvm/NvvmKnobs.h"
#include "cpu/CpuKnobs.h"
#include "sptune/Schedule/Schedule.h"
#include "sptune/Support/Error.h"

#include "gtest/gtest.h"

using namespace sptune;

namespace {

Schedule parseOrDie(const std::string &text) {
  std::string error;
  std::optional<Schedule> s = takeValue(parseSchedule(text), error);
  EXPECT_TRUE(s.has_value()) << text << ": " << error;
  return s.value_or(Schedule());
}

TEST(Schedule, PrintParseRoundTrip) {
  std::vector<Schedule> schedules = {
      Schedule::csr(TargetKind::CPU, KernelType::SpMM),
      Schedule::csc(TargetKind::CPU, KernelType::SDDMM),
      Schedule::dcsr(TargetKind::NVVM, KernelType::SpMV),
      Schedule::coo(TargetKind::CPU, KernelType::SpMM),
      Schedule::bsr(TargetKind::CPU, KernelType::SpMM, 4, 2),
      defaultSchedule(TargetKind::SPADE, KernelType::SDDMM)};
  Schedule knobs = Schedule::bsr(TargetKind::CPU, KernelType::SpMM, 1, 8);
  cpuKnobs(knobs).parallel = ParallelKind::Outer;
  cpuKnobs(knobs).omp = OmpScheduleKind::Dynamic;
  cpuKnobs(knobs).chunk = 16;
  cpuKnobs(knobs).vectorLength = 8;
  cpuKnobs(knobs).simdIndex32 = true;
  knobs.posWidth = knobs.crdWidth = 32;
  schedules.push_back(knobs);
  Schedule tiled = Schedule::coo(TargetKind::CPU, KernelType::SpMM);
  tiled.tile = 32;
  schedules.push_back(tiled);
  for (uint8_t layout : {1, 2, 3}) {
    Schedule sddmm = Schedule::csr(TargetKind::CPU, KernelType::SDDMM);
    sddmm.denseTransposed = layout;
    schedules.push_back(sddmm);
    Schedule spmm = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
    spmm.denseTransposed = layout;
    schedules.push_back(spmm);
  }
  Schedule spade = Schedule::csr(TargetKind::SPADE, KernelType::SpMM);
  spade.splitRow = 64;
  spade.splitCol = 1024;
  spadeKnobs(spade).barrier = true;
  spadeKnobs(spade).bypassSparse = spadeKnobs(spade).bypassOutput = true;
  spadeKnobs(spade).reorder = RowReorder::BySimilarity;
  schedules.push_back(spade);
  for (const Schedule &s : schedules) {
    EXPECT_TRUE(isLegal(s)) << s.str() << ": " << whyIllegal(s);
    Schedule back = parseOrDie(s.str());
    EXPECT_EQ(back, s) << s.str() << "\nvs\n" << back.str();
    EXPECT_EQ(back.hash(), s.hash());
  }
}

TEST(Schedule, OmittedKeysTakeDefaults) {
  Schedule s = parseOrDie("cpu spmm, levels = [k : dense, i : compressed]");
  EXPECT_EQ(s, Schedule::csc(TargetKind::CPU, KernelType::SpMM));
  EXPECT_EQ(parseOrDie("cpu spmv"), Schedule::csr(TargetKind::CPU, KernelType::SpMV));
}

TEST(Schedule, DenseLayouts) {
  // The natural layouts print nothing: schedules without the knob keep the
  // printed form (and dataset key) they had before it existed.
  Schedule natural = Schedule::csr(TargetKind::CPU, KernelType::SDDMM);
  EXPECT_EQ(natural.str().find("layout"), std::string::npos);
  Schedule s = parseOrDie("cpu sddmm, layout = [b : k]");
  EXPECT_EQ(s.denseTransposed, 2);
  EXPECT_EQ(s.contiguousRole(0), Role::K);
  EXPECT_EQ(s.contiguousRole(1), Role::K);
  EXPECT_NE(s.str().find("layout = [a : k, b : k]"), std::string::npos)
      << s.str();
  EXPECT_EQ(parseOrDie("cpu sddmm, layout = [a : k, b : j]"), natural);
  EXPECT_EQ(parseOrDie("cpu spmm, layout = [c : i]").denseTransposed, 2);

  std::string error;
  EXPECT_FALSE(takeValue(parseSchedule("cpu spmv, layout = [x : k]"), error));
  EXPECT_NE(error.find("'x' is not a dense operand of spmv (expected none)"),
            std::string::npos)
      << error;
  EXPECT_FALSE(takeValue(parseSchedule("cpu sddmm, layout = [c : i]"), error));
  EXPECT_NE(error.find("expected a, b"), std::string::npos) << error;
  EXPECT_FALSE(takeValue(parseSchedule("cpu sddmm, layout = [b : i]"), error));
  EXPECT_NE(error.find("must be 'j' or 'k', got 'i'"), std::string::npos)
      << error;
  EXPECT_FALSE(
      takeValue(parseSchedule("cpu sddmm, layout = [b : k, b : j]"), error));
  EXPECT_NE(error.find("given twice"), std::string::npos) << error;
  EXPECT_FALSE(takeValue(parseSchedule("nvvm sddmm, layout = [b : k]"), error));
  EXPECT_NE(error.find("does not apply to target 'nvvm'"), std::string::npos)
      << error;

  // Structural legality: bits beyond the kernel's dense operands, and
  // targets other than the CPU.
  Schedule spmv = Schedule::csr(TargetKind::CPU, KernelType::SpMV);
  spmv.denseTransposed = 1;
  EXPECT_NE(whyIllegal(spmv).find("0 dense operands"), std::string::npos)
      << whyIllegal(spmv);
  Schedule gpu = Schedule::csr(TargetKind::NVVM, KernelType::SDDMM);
  gpu.denseTransposed = 2;
  EXPECT_NE(whyIllegal(gpu).find("not a knob of target 'nvvm'"), std::string::npos);
  EXPECT_EQ(canonicalize(gpu).denseTransposed, 0);
}

TEST(Schedule, ParseErrorsSayWhat) {
  std::string error;
  EXPECT_FALSE(takeValue(parseSchedule("gpu spmm"), error));
  EXPECT_NE(error.find("unknown target 'gpu'"), std::string::npos) << error;
  EXPECT_FALSE(takeValue(parseSchedule("cpu spmm, vl = "), error));
  EXPECT_NE(error.find("expected an integer"), std::string::npos) << error;
  EXPECT_FALSE(takeValue(parseSchedule("spade spmm, vl = 4"), error));
  EXPECT_NE(error.find("does not apply to target 'spade'"), std::string::npos)
      << error;
  EXPECT_FALSE(
      takeValue(parseSchedule("cpu spmm, levels = [x : dense]"), error));
  EXPECT_NE(error.find("loop name"), std::string::npos) << error;
  EXPECT_FALSE(
      takeValue(parseSchedule("cpu spmm, levels = [i : sparse]"), error));
  EXPECT_NE(error.find("unknown level format 'sparse'"), std::string::npos)
      << error;
  EXPECT_FALSE(takeValue(parseSchedule("cpu spmm trailing"), error));
  // Integers that would wrap are errors, not small values.
  EXPECT_FALSE(takeValue(
      parseSchedule("cpu spmm, parallel = outer, threads = 4294967298"),
      error));
  EXPECT_NE(error.find("integer 4294967298 is out of range"),
            std::string::npos)
      << error;
  EXPECT_FALSE(
      takeValue(parseSchedule("cpu spmm, widths = [4294967328, 64]"), error));
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  // A key given twice is an error, not "the last one wins".
  EXPECT_FALSE(takeValue(parseSchedule("cpu spmm, vl = 4, vl = 8"), error));
  EXPECT_NE(error.find("duplicate key 'vl'"), std::string::npos) << error;
}

TEST(Schedule, LegalityExplainsItself) {
  Schedule s = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
  // Loop order against storage order.
  s.loopOrder = {{Role::K, Part::Whole}, {Role::I, Part::Whole},
                 {Role::J, Part::Whole}};
  EXPECT_NE(whyIllegal(s).find("storage order"), std::string::npos);
  // Splits without their levels.
  s = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
  s.splitRow = 4;
  EXPECT_NE(whyIllegal(s).find("do not match the splits"), std::string::npos);
  // Singleton not after a non-unique level.
  s = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
  s.levels[1].format = LevelFormat::Singleton;
  EXPECT_NE(whyIllegal(s).find("singleton"), std::string::npos);
  // The sparsifier crash of DESIGN.md: the first dimension split alone.
  s = parseOrDie("cpu spmm, levels = [i1 : dense, k : compressed, i0 : dense], "
                 "split = [2, 1]");
  EXPECT_NE(whyIllegal(s).find("crashes the sparsifier"), std::string::npos);
  s = parseOrDie("cpu spmm, levels = [i1 : dense, i0 : dense, k : compressed], "
                 "split = [2, 1]");
  EXPECT_NE(whyIllegal(s).find("crashes the sparsifier"), std::string::npos);
  // ... while the second dimension alone is fine, even around the first.
  s = parseOrDie("cpu spmm, levels = [k1 : dense, i : compressed, k0 : dense], "
                 "split = [1, 2]");
  EXPECT_EQ(whyIllegal(s), "");
  EXPECT_NE(whyIllegalForOrientation(s, /*transposed=*/true), "");
  // Knob ranges.
  s = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
  cpuKnobs(s).vectorLength = 3;
  EXPECT_NE(whyIllegal(s).find("vector length"), std::string::npos);
  s = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
  // Column panels vectorize (the sparsifier's views are folded first:
  // test/Integration/cpu-spmm-accumulators.mlir).
  s.tile = 16;
  cpuKnobs(s).vectorLength = 8;
  EXPECT_EQ(whyIllegal(s), "");
  // Rows balanced by stored entries: compressed rows, parallel, no chunk;
  // printed and parsed back.
  s = parseOrDie("cpu spmv, parallel = outer, omp = balanced");
  EXPECT_EQ(whyIllegal(s), "");
  EXPECT_NE(s.str().find("omp = balanced"), std::string::npos);
  EXPECT_EQ(parseOrDie(s.str()), s);
  cpuKnobs(s).chunk = 8;
  EXPECT_NE(whyIllegal(s).find("takes no chunk"), std::string::npos);
  s = parseOrDie("cpu spmm, levels = [i : compressed, k : compressed], "
                 "parallel = outer, omp = balanced");
  EXPECT_NE(whyIllegal(s).find("needs compressed rows"), std::string::npos);
  s = parseOrDie(
      "cpu spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, "
      "k0 : dense], split = [2, 2], parallel = outer, omp = balanced");
  EXPECT_NE(whyIllegal(s).find("needs compressed rows"), std::string::npos);
  // Rows in reverse Cuthill-McKee order: printed only when asked for (a
  // schedule without it prints as before the knob), parsed back; the rows
  // of the output walked outermost, not with balanced blocks.
  s = parseOrDie("cpu spmm, parallel = outer, omp = dynamic, chunk = 16");
  EXPECT_EQ(s.str().find("reorder"), std::string::npos);
  cpuKnobs(s).rowOrder = RowOrderKind::Rcm;
  EXPECT_EQ(whyIllegal(s), "");
  EXPECT_NE(s.str().find(", reorder = rcm"), std::string::npos);
  EXPECT_EQ(parseOrDie(s.str()), s);
  EXPECT_EQ(parseOrDie("cpu spmv, reorder = none"),
            Schedule::csr(TargetKind::CPU, KernelType::SpMV));
  EXPECT_EQ(whyIllegal(parseOrDie("cpu sddmm, order = [i, j, k], "
                                  "reorder = rcm")),
            "");
  EXPECT_NE(whyIllegal(parseOrDie("cpu sddmm, order = [i, k, j], "
                                  "reorder = rcm"))
                .find("the reduction loop innermost"),
            std::string::npos);
  s = parseOrDie("cpu spmv, parallel = outer, omp = balanced, reorder = rcm");
  EXPECT_NE(whyIllegal(s).find("not combined with omp = balanced"),
            std::string::npos);
  // Split columns make the sparse operand 3-D, and the order is computed
  // for the matrix's rows (the lowering refused such twins of sampled
  // schedules): refused here.
  s = parseOrDie("cpu spmm, levels = [i : dense, k1 : compressed, k0 : "
                 "dense], split = [1, 4], order = [i, k1, k0, j], "
                 "reorder = rcm");
  EXPECT_NE(whyIllegal(s).find("needs unsplit levels"), std::string::npos);
  // CSC: the outer loop is SpMM's reduction.
  s = parseOrDie("cpu spmm, levels = [k : dense, i : compressed], "
                 "order = [k, i, j], reorder = rcm");
  EXPECT_NE(whyIllegal(s).find("rows of the output"), std::string::npos);
  s = parseOrDie("cpu spmm, levels = [i : compressed, k : compressed], "
                 "reorder = rcm");
  EXPECT_NE(whyIllegal(s).find("rows of the output"), std::string::npos);
  s = Schedule::coo(TargetKind::CPU, KernelType::SpMV);
  cpuKnobs(s).vectorLength = 4;
  EXPECT_NE(whyIllegal(s).find("over a COO (singleton) level"),
            std::string::npos);
  // SpMM over COO: vectorized with k (the singleton level) innermost is
  // out, with j innermost (the row-wise product) is fine.
  s = parseOrDie("cpu spmm, levels = [i : compressed_nu, k : singleton], "
                 "order = [i, j, k], layout = [b : k], vl = 4");
  EXPECT_NE(whyIllegal(s).find("singleton"), std::string::npos);
  s = parseOrDie("cpu spmm, levels = [i : compressed_nu, k : singleton], "
                 "vl = 4");
  EXPECT_EQ(whyIllegal(s), "");
  s = Schedule::csr(TargetKind::CPU, KernelType::SpMV);
  s.tile = 8;
  EXPECT_NE(whyIllegal(s).find("no free dense loop"), std::string::npos);
}

TEST(Schedule, ShapeChecks) {
  Schedule bsr = Schedule::bsr(TargetKind::CPU, KernelType::SpMM, 4, 4);
  EXPECT_EQ(whyIllegalForShape(bsr, 64, 64), "");
  EXPECT_NE(whyIllegalForShape(bsr, 62, 64), "");
  // A block as large as the dimension: the outer level would be a constant.
  EXPECT_NE(whyIllegalForShape(bsr, 4, 64).find("equals the rows"),
            std::string::npos);
  EXPECT_NE(whyIllegalForShape(bsr, 64, 4).find("equals the columns"),
            std::string::npos);
  EXPECT_EQ(whyIllegalForShape(bsr, 8, 8), "");
  EXPECT_EQ(whyIllegalForShape(bsr, -1, -1), ""); // dynamic sizes
  EXPECT_EQ(whyIllegalForShape(Schedule::csr(TargetKind::CPU, KernelType::SpMM),
                               1, 1),
            "");
  // A dense level under a compressed one on a huge, very sparse matrix.
  Schedule dense = parseOrDie("cpu spmm, levels = [i : compressed, k : dense]");
  EXPECT_NE(whyIllegalForShape(dense, 1 << 20, 1 << 20, 1000).find("values"),
            std::string::npos);
  EXPECT_EQ(whyIllegalForShape(Schedule::csr(TargetKind::CPU, KernelType::SpMM),
                               1 << 20, 1 << 20, 1000),
            "");
  // A dense level in the middle blows up the positions of the level below
  // even when the last level is compressed (seen as a 120 s hang).
  Schedule middle = parseOrDie("cpu spmm, levels = [i : compressed, k1 : dense, "
                               "k0 : compressed], split = [1, 2]");
  EXPECT_NE(whyIllegalForShape(middle, 67578, 67578, 336352), "");
}

TEST(Schedule, CanonicalizeMergesEquivalents) {
  Schedule a = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
  Schedule b = a;
  cpuKnobs(b).threads = 4; // no effect without parallelism
  cpuKnobs(b).chunk = 16;
  EXPECT_NE(a, b);
  EXPECT_EQ(canonicalize(a), canonicalize(b));
  // Another target's knob block (the schedule's target reassigned after
  // its knobs were set) reads as this target's defaults.
  Schedule foreign = a;
  gpuKnobs(foreign).threads = 7;
  EXPECT_EQ(foreign, a);
  EXPECT_EQ(foreign.str(), a.str());
  EXPECT_EQ(canonicalize(foreign).knobBlock, nullptr);
  // An outer reduction loop is never parallelized.
  Schedule c = Schedule::csc(TargetKind::CPU, KernelType::SpMM);
  cpuKnobs(c).parallel = ParallelKind::Outer;
  EXPECT_EQ(cpuKnobs(canonicalize(c)).parallel, ParallelKind::None);
  Schedule d = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
  cpuKnobs(d).parallel = ParallelKind::Outer;
  EXPECT_EQ(cpuKnobs(canonicalize(d)).parallel, ParallelKind::Outer);
}

TEST(Schedule, SpgemmKnobs) {
  // Printed when not auto; parsed back.
  Schedule s = parseOrDie("cpu spgemm, parallel = outer, accumulator = hash, "
                          "passes = two");
  EXPECT_TRUE(isLegal(s)) << whyIllegal(s);
  EXPECT_EQ(cpuKnobs(s).accumulator, SpgemmAccumulator::Hash);
  EXPECT_EQ(cpuKnobs(s).passes, SpgemmPasses::Two);
  EXPECT_NE(s.str().find("accumulator = hash, passes = two"), std::string::npos)
      << s.str();
  EXPECT_EQ(parseOrDie(s.str()), s);
  EXPECT_EQ(parseOrDie("cpu spgemm").str().find("accumulator"),
            std::string::npos);
  // The Gustavson kernel takes no vectors, OpenMP schedule, chunk or row
  // order; no storage but CSR; and other kernels take none of its knobs.
  for (const char *bad :
       {"cpu spgemm, parallel = outer, vl = 8",
        "cpu spgemm, parallel = outer, omp = dynamic, chunk = 16",
        "cpu spgemm, parallel = outer, omp = balanced",
        "cpu spgemm, reorder = rcm",
        "cpu spgemm, levels = [i : compressed, k : compressed]",
        "cpu spgemm, widths = [32, 32]", "cpu spmm, accumulator = dense",
        "cpu spmv, passes = one"}) {
    std::string error;
    std::optional<Schedule> parsed = takeValue(parseSchedule(bad), error);
    ASSERT_TRUE(parsed) << bad << ": " << error;
    EXPECT_FALSE(isLegal(*parsed)) << bad;
  }
}

TEST(Schedule, MttkrpKnobs) {
  // `form` printed when not auto; parsed back.
  Schedule s = parseOrDie("cpu mttkrp, parallel = outer, threads = 3, "
                          "form = entry_wise");
  EXPECT_TRUE(isLegal(s)) << whyIllegal(s);
  EXPECT_EQ(cpuKnobs(s).form, MttkrpForm::EntryWise);
  EXPECT_NE(s.str().find("form = entry_wise"), std::string::npos) << s.str();
  EXPECT_EQ(parseOrDie(s.str()), s);
  EXPECT_EQ(parseOrDie("cpu mttkrp").str().find("form"), std::string::npos);
  // The kernel takes no vectors, OpenMP schedule, chunk, row order, tile,
  // split or storage but B's own; a schedule names no `l`; other kernels
  // take no form.
  for (const char *bad :
       {"cpu mttkrp, parallel = outer, vl = 8",
        "cpu mttkrp, parallel = outer, omp = dynamic, chunk = 16",
        "cpu mttkrp, reorder = rcm", "cpu mttkrp, tile = 8",
        "cpu mttkrp, levels = [i : compressed, k : compressed]",
        "cpu mttkrp, widths = [32, 32]", "cpu spmm, form = factored",
        "cpu spgemm, form = entry_wise"}) {
    std::string error;
    std::optional<Schedule> parsed = takeValue(parseSchedule(bad), error);
    ASSERT_TRUE(parsed) << bad << ": " << error;
    EXPECT_FALSE(isLegal(*parsed)) << bad;
  }
  std::string error;
  EXPECT_FALSE(takeValue(parseSchedule("cpu mttkrp, levels = [i : dense, k : "
                                       "compressed, l : compressed]"),
                         error));
  EXPECT_NE(error.find("got 'l'"), std::string::npos) << error;
}

TEST(Schedule, BatchedSpmmKnobs) {
  Schedule s = parseOrDie("cpu batched_spmm, parallel = outer, threads = 3");
  EXPECT_TRUE(isLegal(s)) << whyIllegal(s);
  EXPECT_EQ(cpuKnobs(s).threads, 3);
  EXPECT_EQ(parseOrDie(s.str()), s);
  EXPECT_TRUE(isLegal(parseOrDie("cpu batched_spmm, parallel = none")));
  // The kernel takes no vectors, OpenMP schedule, chunk, row order, tile,
  // split, form or storage but A's own; a schedule names no `b`.
  for (const char *bad :
       {"cpu batched_spmm, parallel = outer, vl = 8",
        "cpu batched_spmm, parallel = outer, omp = dynamic, chunk = 16",
        "cpu batched_spmm, reorder = rcm", "cpu batched_spmm, tile = 8",
        "cpu batched_spmm, split = [2, 1]",
        "cpu batched_spmm, levels = [i : compressed, k : compressed]",
        "cpu batched_spmm, widths = [32, 32]",
        "cpu batched_spmm, form = factored",
        "cpu batched_spmm, accumulator = hash"}) {
    std::string error;
    std::optional<Schedule> parsed = takeValue(parseSchedule(bad), error);
    ASSERT_TRUE(parsed) << bad << ": " << error;
    EXPECT_FALSE(isLegal(*parsed)) << bad;
  }
  std::string error;
  EXPECT_FALSE(takeValue(
      parseSchedule("cpu batched_spmm, levels = [b : dense, i : dense, k : "
                    "compressed]"),
      error));
  EXPECT_NE(error.find("got 'b'"), std::string::npos) << error;
}

TEST(DefaultSchedule, BatchedSpmmIsTheKernelInParallel) {
  Schedule s = defaultSchedule(TargetKind::CPU, KernelType::BatchedSpMM);
  EXPECT_TRUE(isLegal(s)) << s.str() << ": " << whyIllegal(s);
  EXPECT_EQ(s.levels,
            Schedule::csr(TargetKind::CPU, KernelType::BatchedSpMM).levels);
  EXPECT_EQ(cpuKnobs(s).parallel, ParallelKind::Outer);
  EXPECT_EQ(cpuKnobs(s).threads, 0);
}

TEST(DefaultSchedule, MttkrpIsTheKernelInParallelWithItsRuntimeForm) {
  Schedule s = defaultSchedule(TargetKind::CPU, KernelType::MTTKRP);
  EXPECT_TRUE(isLegal(s)) << s.str() << ": " << whyIllegal(s);
  EXPECT_EQ(s.levels,
            Schedule::csr(TargetKind::CPU, KernelType::MTTKRP).levels);
  EXPECT_EQ(cpuKnobs(s).parallel, ParallelKind::Outer);
  EXPECT_EQ(cpuKnobs(s).form, MttkrpForm::Auto);
}

TEST(DefaultSchedule, SpgemmIsTheGustavsonKernelInParallel) {
  MatrixStats stats;
  stats.rows = stats.cols = 100000;
  stats.nnz = 10; // hypersparse and tiny: still CSR, still parallel
  stats.emptyRows = 99990;
  for (const MatrixStats *m : {static_cast<const MatrixStats *>(nullptr),
                               static_cast<const MatrixStats *>(&stats)}) {
    Schedule s = defaultSchedule(TargetKind::CPU, KernelType::SpGEMM, m, 64);
    EXPECT_TRUE(isLegal(s)) << s.str() << ": " << whyIllegal(s);
    EXPECT_EQ(s.levels,
              Schedule::csr(TargetKind::CPU, KernelType::SpGEMM).levels);
    EXPECT_EQ(cpuKnobs(s).parallel, ParallelKind::Outer);
    EXPECT_EQ(cpuKnobs(s).accumulator, SpgemmAccumulator::Auto);
    EXPECT_EQ(cpuKnobs(s).passes, SpgemmPasses::Auto);
  }
}

TEST(DefaultSchedule, AvoidsCliffsAndAdaptsToImbalance) {
  Schedule s = defaultSchedule(TargetKind::CPU, KernelType::SpMM);
  EXPECT_TRUE(isLegal(s));
  // Row-wise product: the free loop j innermost, outer loop parallel.
  EXPECT_EQ(s.loopOrder.back(), (DimPart{Role::J, Part::Whole}));
  EXPECT_EQ(cpuKnobs(s).parallel, ParallelKind::Outer);
  EXPECT_GT(cpuKnobs(s).vectorLength, 0);
  // Whole 16-lane vectors when 16 divides the free dimension (the row of C
  // is kept in registers as whole vectors), else 8 lanes if it is wide enough.
  EXPECT_EQ(cpuKnobs(defaultSchedule(TargetKind::CPU, KernelType::SpMM, nullptr, 64)).vectorLength,
            16);
  EXPECT_EQ(cpuKnobs(defaultSchedule(TargetKind::CPU, KernelType::SpMM, nullptr, 24)).vectorLength,
            8);
  EXPECT_EQ(cpuKnobs(defaultSchedule(TargetKind::CPU, KernelType::SpMM, nullptr, 4)).vectorLength,
            0);
  // (Matrices large enough to run in parallel: RunsTinyKernelsInOneThread.)
  MatrixStats skewed;
  skewed.rows = skewed.cols = 100000;
  skewed.nnz = 200000;
  skewed.rowMean = 2;
  skewed.rowStd = 10;
  Schedule skewedSpmm =
      defaultSchedule(TargetKind::CPU, KernelType::SpMM, &skewed);
  EXPECT_EQ(cpuKnobs(skewedSpmm).omp, OmpScheduleKind::Dynamic);
  EXPECT_EQ(cpuKnobs(skewedSpmm).chunk, 256);
  MatrixStats hyper;
  hyper.rows = hyper.cols = 100000;
  hyper.nnz = 100000;
  hyper.emptyRows = 90000;
  EXPECT_EQ(defaultSchedule(TargetKind::CPU, KernelType::SpMM, &hyper)
                .levels[0]
                .format,
            LevelFormat::Compressed);
  EXPECT_EQ(cpuKnobs(defaultSchedule(TargetKind::CPU, KernelType::SpMV)).vectorLength,
            0);
  // SpMV rows are too cheap for dynamic dispatch, even when skewed: one
  // block per thread, of equal stored entries.
  EXPECT_EQ(
      cpuKnobs(defaultSchedule(TargetKind::CPU, KernelType::SpMV, &skewed)).omp,
      OmpScheduleKind::Balanced);
  // Not over doubly-compressed rows (their outer loop is not dense).
  EXPECT_EQ(
      cpuKnobs(defaultSchedule(TargetKind::CPU, KernelType::SpMV, &hyper)).omp,
      OmpScheduleKind::Static);
  // SDDMM: dot products with k innermost; B stored transposed when its
  // columns are read often enough to repay the transposition.
  MatrixStats dense;
  dense.rows = dense.cols = 1000;
  dense.nnz = 20000;
  Schedule sddmm = defaultSchedule(TargetKind::CPU, KernelType::SDDMM, &dense);
  EXPECT_TRUE(isLegal(sddmm)) << whyIllegal(sddmm);
  EXPECT_EQ(sddmm.loopOrder.back(), (DimPart{Role::K, Part::Whole}));
  EXPECT_EQ(sddmm.contiguousRole(1), Role::K);
  MatrixStats thin = dense;
  thin.nnz = 3000;
  EXPECT_EQ(defaultSchedule(TargetKind::CPU, KernelType::SDDMM, &thin)
                .contiguousRole(1),
            Role::J);
  // Few entries per column but rows of B wider than a 4 KiB page: B^T.
  MatrixStats wide = thin;
  wide.rows = wide.cols = 4096;
  wide.nnz = 8192;
  EXPECT_EQ(defaultSchedule(TargetKind::CPU, KernelType::SDDMM, &wide)
                .contiguousRole(1),
            Role::K);
  // No matrix: B^T, as for the graphs the rule measured (most have at
  // least 1,024 columns).
  EXPECT_EQ(
      defaultSchedule(TargetKind::CPU, KernelType::SDDMM).contiguousRole(1),
      Role::K);
}

TEST(DefaultSchedule, RunsTinyKernelsInOneThread) {
  // Below a kernel shape's threshold of multiply-adds (stored entries times
  // the free size), one thread: SpMV below 6,144, SDDMM below 16,384, SpMM
  // below 65,536.
  auto parallelOf = [](KernelType k, int64_t nnz, int64_t free) {
    MatrixStats m;
    m.rows = m.cols = 1000;
    m.nnz = nnz;
    m.rowMean = static_cast<double>(nnz) / 1000.0;
    return cpuKnobs(defaultSchedule(TargetKind::CPU, k, &m, free)).parallel;
  };
  EXPECT_EQ(parallelOf(KernelType::SpMV, 6143, 0), ParallelKind::None);
  EXPECT_EQ(parallelOf(KernelType::SpMV, 6144, 0), ParallelKind::Outer);
  EXPECT_EQ(parallelOf(KernelType::SpMV, 6143, 64), ParallelKind::None);
  EXPECT_EQ(parallelOf(KernelType::SDDMM, 255, 64), ParallelKind::None);
  EXPECT_EQ(parallelOf(KernelType::SDDMM, 256, 64), ParallelKind::Outer);
  EXPECT_EQ(parallelOf(KernelType::SpMM, 4095, 16), ParallelKind::None);
  EXPECT_EQ(parallelOf(KernelType::SpMM, 4096, 16), ParallelKind::Outer);
  EXPECT_EQ(parallelOf(KernelType::SpMM, 255, 256), ParallelKind::None);
  EXPECT_EQ(parallelOf(KernelType::SpMM, 1024, 64), ParallelKind::Outer);
  // A free size that is not known leaves the work unknown: parallel.
  EXPECT_EQ(parallelOf(KernelType::SpMM, 10, 0), ParallelKind::Outer);
  // So does a matrix that is not known.
  EXPECT_EQ(
      cpuKnobs(defaultSchedule(TargetKind::CPU, KernelType::SpMV)).parallel,
      ParallelKind::Outer);
  // The Hadamard product has no threshold measured: parallel.
  EXPECT_EQ(parallelOf(KernelType::Hadamard, 10, 0), ParallelKind::Outer);
  // The batched SpMM takes SpMM's threshold over its tensor's stored
  // entries; MTTKRP and SpGEMM, not measured small, stay parallel.
  EXPECT_EQ(parallelOf(KernelType::BatchedSpMM, 2047, 32), ParallelKind::None);
  EXPECT_EQ(parallelOf(KernelType::BatchedSpMM, 2048, 32), ParallelKind::Outer);
  EXPECT_EQ(parallelOf(KernelType::BatchedSpMM, 10, 0), ParallelKind::Outer);
  EXPECT_EQ(cpuKnobs(defaultSchedule(TargetKind::CPU, KernelType::BatchedSpMM))
                .parallel,
            ParallelKind::Outer);
  EXPECT_EQ(parallelOf(KernelType::MTTKRP, 10, 32), ParallelKind::Outer);
  EXPECT_EQ(parallelOf(KernelType::SpGEMM, 10, 0), ParallelKind::Outer);
  // One thread takes no OpenMP schedule, and keeps its vectors.
  MatrixStats tiny;
  tiny.rows = tiny.cols = 50;
  tiny.nnz = 200;
  tiny.rowMean = 4;
  tiny.rowStd = 40; // skewed: would take dynamic chunks in parallel
  Schedule s = defaultSchedule(TargetKind::CPU, KernelType::SpMM, &tiny, 64);
  EXPECT_TRUE(isLegal(s)) << whyIllegal(s);
  EXPECT_EQ(cpuKnobs(s).omp, OmpScheduleKind::Static);
  EXPECT_EQ(cpuKnobs(s).chunk, 0);
  EXPECT_EQ(cpuKnobs(s).vectorLength, 16);
}

} // namespace
