//===- CpuScheduleSpaceTest.cpp - The CPU schedule space ------------------===//

#include "cpu/CpuScheduleSpace.h"
#include "cpu/CpuKnobs.h"
#include "sptune/Support/Error.h"
#include "sptune/Target/Measurer.h"

#include "gtest/gtest.h"

#include <set>

using namespace sptune;

namespace {

CpuSpaceConfig smallConfig() {
  CpuSpaceConfig c;
  c.splits = {1, 4};
  c.tiles = {0, 16};
  c.widths = {{64, 64}};
  c.omp = {{OmpScheduleKind::Static, 0}, {OmpScheduleKind::Dynamic, 16}};
  c.vectorLengths = {0, 8};
  return c;
}

TEST(CpuScheduleSpace, EnumeratesLegalCanonicalDistinct) {
  CpuScheduleSpace space(smallConfig());
  ProblemShape shape{KernelType::SpMM, 64, 64, 64, 500};
  std::set<std::string> seen;
  space.enumerate(shape, [&](const Schedule &s) {
    EXPECT_TRUE(isLegal(s)) << s.str() << ": " << whyIllegal(s);
    EXPECT_EQ(canonicalize(s), s) << s.str();
    EXPECT_TRUE(seen.insert(s.str()).second) << "duplicate " << s.str();
    return true;
  });
  EXPECT_EQ(seen.size(), space.size(shape));
  EXPECT_GT(seen.size(), 100u);
  // CSR and the blocked mixed format of WACO are in the space.
  EXPECT_TRUE(space.contains(shape, Schedule::csr(TargetKind::CPU, KernelType::SpMM)));
  std::string error;
  auto waco = takeValue(
      parseSchedule("cpu spmm, levels = [i1 : dense, k1 : compressed, "
                    "i0 : dense, k0 : compressed], split = [4, 4]"),
      error);
  ASSERT_TRUE(waco) << error;
  EXPECT_TRUE(space.contains(shape, *waco));
}

TEST(CpuScheduleSpace, RespectsShape) {
  CpuScheduleSpace space(smallConfig());
  // 62 rows: no row split by 4; a free size of 16 admits no tile of 16.
  ProblemShape shape{KernelType::SpMM, 62, 64, 16, 300};
  space.enumerate(shape, [&](const Schedule &s) {
    EXPECT_EQ(s.splitRow, 1) << s.str();
    EXPECT_EQ(s.tile, 0) << s.str();
    return true;
  });
}

TEST(CpuScheduleSpace, NoMoreVectorLanesThanTheInnermostFreeLoopHas) {
  CpuScheduleSpace space(smallConfig());
  for (int64_t free : {1, 3, 8}) {
    ProblemShape shape{KernelType::SpMM, 64, 64, free, 500};
    size_t vectorizedFree = 0, vectorizedOther = 0;
    space.enumerate(shape, [&](const Schedule &s) {
      int vl = cpuKnobs(s).vectorLength;
      bool freeInnermost = s.loopOrder.back() == DimPart{Role::J, Part::Whole};
      if (freeInnermost) {
        EXPECT_LE(vl, free) << s.str();
        vectorizedFree += vl > 0;
      } else {
        vectorizedOther += vl > 0;
      }
      return true;
    });
    // Vectorizing a sparse innermost loop stays (an SpMV-like order).
    EXPECT_GT(vectorizedOther, 0u) << "N = " << free;
    if (free == 8)
      EXPECT_GT(vectorizedFree, 0u);
  }
}

TEST(CpuScheduleSpace, VectorizedPanelsOnlyWhenAsked) {
  // Column panels of vectors are legal schedules, but the default space
  // (the tuner's) leaves them out until a model is trained on them.
  ProblemShape shape{KernelType::SpMM, 64, 64, 64, 500};
  auto count = [&](const CpuScheduleSpace &space) {
    size_t tiled = 0, vectorizedTiles = 0;
    space.enumerate(shape, [&](const Schedule &s) {
      tiled += s.tile > 0;
      vectorizedTiles += s.tile > 0 && cpuKnobs(s).vectorLength > 0;
      return true;
    });
    for (const Schedule &s : space.sample(shape, 200, 7))
      vectorizedTiles += s.tile > 0 && cpuKnobs(s).vectorLength > 0;
    return std::make_pair(tiled, vectorizedTiles);
  };
  auto [tiled, vectorized] = count(CpuScheduleSpace(smallConfig()));
  EXPECT_GT(tiled, 0u);
  EXPECT_EQ(vectorized, 0u);
  CpuSpaceConfig c = smallConfig();
  c.vectorizedTiles = true;
  EXPECT_GT(count(CpuScheduleSpace(c)).second, 0u);
}

TEST(CpuScheduleSpace, RowOrdersOnlyWhenAskedAndOnSquareMatrices) {
  // The tuner's space never visits rows in RCM order (it never won); the
  // fuzzer's does, wherever the schedule can and the matrix is square.
  ProblemShape square{KernelType::SpMM, 64, 64, 64, 500};
  ProblemShape wide{KernelType::SpMM, 64, 128, 64, 500};
  auto reordered = [](const CpuScheduleSpace &space, const ProblemShape &p) {
    size_t all = 0, rcm = 0;
    space.enumerate(p, [&](const Schedule &s) {
      ++all;
      if (cpuKnobs(s).rowOrder != RowOrderKind::Natural) {
        ++rcm;
        EXPECT_EQ(whyNotReorderable(s), "") << s.str();
      }
      return true;
    });
    return std::make_pair(all, rcm);
  };
  CpuScheduleSpace plain(smallConfig());
  auto [plainAll, plainRcm] = reordered(plain, square);
  EXPECT_EQ(plainRcm, 0u);
  CpuSpaceConfig c = smallConfig();
  c.rowOrders = {RowOrderKind::Natural, RowOrderKind::Rcm};
  CpuScheduleSpace withOrders(c);
  auto [all, rcm] = reordered(withOrders, square);
  EXPECT_GT(rcm, 0u);
  EXPECT_EQ(all, plainAll + rcm);
  EXPECT_EQ(reordered(withOrders, wide).second, 0u);
  // (About one schedule in 200 of this space can visit its rows in another
  // order.)
  size_t sampled = 0;
  for (const Schedule &s : withOrders.sample(square, 2000, 3))
    sampled += cpuKnobs(s).rowOrder == RowOrderKind::Rcm;
  EXPECT_GT(sampled, 0u) << all << " " << rcm;
}

TEST(CpuScheduleSpace, NoMoreThreadsThanTheMachineRuns) {
  CpuScheduleSpace space(smallConfig());
  space.setUsableCpus(2);
  Schedule s = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
  EXPECT_TRUE(space.fitsThisMachine(s)); // sequential
  cpuKnobs(s).parallel = ParallelKind::Outer;
  for (int threads : {0, 1, 2}) {
    cpuKnobs(s).threads = threads;
    EXPECT_TRUE(space.fitsThisMachine(s)) << threads;
  }
  cpuKnobs(s).threads = 4;
  EXPECT_FALSE(space.fitsThisMachine(s));
  space.setUsableCpus(8);
  EXPECT_TRUE(space.fitsThisMachine(s));
}

TEST(CpuScheduleSpace, SamplingIsDeterministicDistinctAndLegal) {
  CpuScheduleSpace space; // the full default space
  ProblemShape shape{KernelType::SpMM, 4096, 4096, 64, 40000};
  std::vector<Schedule> a = space.sample(shape, 200, 7);
  std::vector<Schedule> b = space.sample(shape, 200, 7);
  std::vector<Schedule> c = space.sample(shape, 200, 8);
  ASSERT_EQ(a.size(), 200u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::set<std::string> distinct;
  size_t parallel = 0, vectorized = 0, split = 0;
  for (const Schedule &s : a) {
    EXPECT_TRUE(isLegal(s)) << s.str();
    EXPECT_EQ(canonicalize(s), s);
    distinct.insert(s.str());
    parallel += cpuKnobs(s).parallel == ParallelKind::Outer;
    vectorized += cpuKnobs(s).vectorLength > 0;
    split += s.splitRow > 1 || s.splitCol > 1;
  }
  EXPECT_EQ(distinct.size(), a.size());
  // A uniform sample covers every knob.
  EXPECT_GT(parallel, 20u);
  EXPECT_GT(vectorized, 20u);
  EXPECT_GT(split, 20u);
}

TEST(CpuScheduleSpace, SmallSpacesFallBackToEnumeration) {
  CpuSpaceConfig c;
  c.splits = {1};
  c.tiles = {0};
  c.widths = {{64, 64}};
  c.omp = {{OmpScheduleKind::Static, 0}};
  c.vectorLengths = {0};
  c.includeCoo = false;
  CpuScheduleSpace space(c);
  ProblemShape shape{KernelType::SpMV, 8, 8, 1, 10};
  uint64_t n = space.size(shape);
  EXPECT_GT(n, 0u);
  EXPECT_EQ(space.sample(shape, 1000, 1).size(), n);
}

} // namespace

namespace {
TEST(CpuScheduleSpace, SddmmKeepsOnlyOrdersTheSparseOutputAllows) {
  CpuSpaceConfig c = smallConfig();
  CpuScheduleSpace space(c);
  ProblemShape shape{KernelType::SDDMM, 64, 64, 32, 500};
  size_t n = 0;
  space.enumerate(shape, [&](const Schedule &s) {
    EXPECT_EQ(whyIllegalForSparseOutput(s, false), "") << s.str();
    ++n;
    return true;
  });
  EXPECT_GT(n, 50u);
  c.sddmmSparseOutput = false;
  EXPECT_GT(CpuScheduleSpace(c).size(shape), n);
  // The dot-product order (i, j, k) is in, the scatter order (k, i, j) not.
  std::string error;
  auto dot = takeValue(parseSchedule("cpu sddmm, order = [i, j, k]"), error);
  auto scatter =
      takeValue(parseSchedule("cpu sddmm, order = [k, i, j]"), error);
  ASSERT_TRUE(dot && scatter) << error;
  EXPECT_TRUE(space.contains(shape, *dot));
  EXPECT_FALSE(space.contains(shape, *scatter));
}
TEST(CpuScheduleSpace, SpgemmVariesTheGustavsonKernelsKnobsOnly) {
  // The default space: its storage is CSR on the operands' own widths, and
  // its knobs are parallel (one thread or all), the accumulator and the
  // pass count: 2 x 2 x 2 schedules.
  CpuScheduleSpace space;
  ProblemShape shape{KernelType::SpGEMM, 64, 64, 64, 500};
  std::set<std::string> seen;
  std::set<std::pair<int, int>> knobs;
  space.enumerate(shape, [&](const Schedule &s) {
    EXPECT_TRUE(isLegal(s)) << s.str() << ": " << whyIllegal(s);
    EXPECT_EQ(s.levels,
              Schedule::csr(TargetKind::CPU, KernelType::SpGEMM).levels)
        << s.str();
    EXPECT_EQ(cpuKnobs(s).vectorLength, 0) << s.str();
    EXPECT_EQ(cpuKnobs(s).omp, OmpScheduleKind::Static) << s.str();
    EXPECT_NE(cpuKnobs(s).accumulator, SpgemmAccumulator::Auto) << s.str();
    EXPECT_NE(cpuKnobs(s).passes, SpgemmPasses::Auto) << s.str();
    knobs.insert({static_cast<int>(cpuKnobs(s).accumulator),
                  static_cast<int>(cpuKnobs(s).passes)});
    EXPECT_TRUE(seen.insert(s.str()).second) << "duplicate " << s.str();
    return true;
  });
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_EQ(knobs.size(), 4u);
  EXPECT_EQ(space.sample(shape, 8, 1).size(), 8u);
}

TEST(CpuScheduleSpace, MttkrpVariesTheKernelsKnobsOnly) {
  // The default space: B's own storage, and the knobs parallel (one
  // thread or all) and the form (factored or entry-wise): 2 x 2 schedules.
  CpuScheduleSpace space;
  ProblemShape shape{KernelType::MTTKRP, 64, 64, 32, 500};
  std::set<std::string> seen;
  std::set<int> forms;
  space.enumerate(shape, [&](const Schedule &s) {
    EXPECT_TRUE(isLegal(s)) << s.str() << ": " << whyIllegal(s);
    EXPECT_EQ(s.levels,
              Schedule::csr(TargetKind::CPU, KernelType::MTTKRP).levels)
        << s.str();
    EXPECT_EQ(cpuKnobs(s).vectorLength, 0) << s.str();
    EXPECT_EQ(cpuKnobs(s).omp, OmpScheduleKind::Static) << s.str();
    EXPECT_NE(cpuKnobs(s).form, MttkrpForm::Auto) << s.str();
    forms.insert(static_cast<int>(cpuKnobs(s).form));
    EXPECT_TRUE(seen.insert(s.str()).second) << "duplicate " << s.str();
    return true;
  });
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_EQ(forms.size(), 2u);
  EXPECT_EQ(space.sample(shape, 4, 1).size(), 4u);
}

TEST(CpuScheduleSpace, BatchedSpmmVariesParallelismOnly) {
  // The default space: A's own storage, in one thread or in all.
  CpuScheduleSpace space;
  ProblemShape shape{KernelType::BatchedSpMM, 64, 64, 32, 500};
  std::set<std::string> seen;
  space.enumerate(shape, [&](const Schedule &s) {
    EXPECT_TRUE(isLegal(s)) << s.str() << ": " << whyIllegal(s);
    EXPECT_EQ(s.levels,
              Schedule::csr(TargetKind::CPU, KernelType::BatchedSpMM).levels)
        << s.str();
    EXPECT_EQ(cpuKnobs(s).vectorLength, 0) << s.str();
    EXPECT_TRUE(seen.insert(s.str()).second) << "duplicate " << s.str();
    return true;
  });
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_EQ(space.sample(shape, 2, 1).size(), 2u);
}

TEST(CpuScheduleSpace, MttkrpAndBatchedSpmmAreMeasuredOnTensorsOnly) {
  EXPECT_TRUE(isMeasuredOnTensor(KernelType::BatchedSpMM));
  EXPECT_TRUE(isMeasuredOnTensor(KernelType::MTTKRP));
  EXPECT_FALSE(isMeasuredOnTensor(KernelType::SpGEMM));
  EXPECT_EQ(whyNotMeasuredOn(KernelType::BatchedSpMM, true, "t"), "");
  EXPECT_NE(whyNotMeasuredOn(KernelType::BatchedSpMM, false, "m")
                .find("a batched SpMM is measured on a 3-D tensor"),
            std::string::npos);
  EXPECT_NE(whyKernelNotMeasured(KernelType::BatchedSpMM)
                .find("batched SpMM kernels are not measured on a matrix"),
            std::string::npos);
  EXPECT_EQ(whyNotMeasuredOn(KernelType::MTTKRP, true, "t"), "");
  EXPECT_EQ(whyNotMeasuredOn(KernelType::SpMM, false, "m"), "");
  EXPECT_NE(whyNotMeasuredOn(KernelType::MTTKRP, false, "m")
                .find("an MTTKRP is measured on a 3-D tensor"),
            std::string::npos);
  EXPECT_NE(whyNotMeasuredOn(KernelType::SpGEMM, true, "t")
                .find("3-D tensor 't' is measured for MTTKRP and batched "
                      "SpMM kernels only"),
            std::string::npos);
  EXPECT_NE(whyKernelNotMeasured(KernelType::MTTKRP), "");
  EXPECT_EQ(whyKernelNotMeasured(KernelType::SpGEMM), "");
}

} // namespace
