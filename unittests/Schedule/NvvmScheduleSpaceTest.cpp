//===- NvvmScheduleSpaceTest.cpp - The NVVM schedule space ----------------===//

#include "nvvm/NvvmScheduleSpace.h"
#include "nvvm/NvvmKnobs.h"
#include "nvvm/NvvmLegality.h"
#include "sptune/Target/DefaultSchedule.h"

#include "gtest/gtest.h"

#include <set>

using namespace sptune;

namespace {

const KernelType kKernels[] = {KernelType::SpMM, KernelType::SDDMM,
                               KernelType::SpMV};

/// A shape that prunes nothing of the default space (every block size
/// divides 1024 and is smaller; the storage stays small).
ProblemShape largeShape(KernelType kernel) {
  return ProblemShape{kernel, 1024, 1024, kernel == KernelType::SpMV ? 0 : 64,
                      20000};
}

std::vector<Schedule> all(const ScheduleSpace &space,
                          const ProblemShape &shape) {
  std::vector<Schedule> out;
  space.enumerate(shape, [&](const Schedule &s) {
    out.push_back(s);
    return true;
  });
  return out;
}

TEST(NvvmScheduleSpace, Sizes) {
  NvvmScheduleSpace space;
  EXPECT_EQ(space.target(), TargetKind::NVVM);
  // With the shape unknown and with a large shape that prunes nothing.
  for (const ProblemShape &shape :
       {ProblemShape{KernelType::SpMM}, largeShape(KernelType::SpMM)})
    EXPECT_EQ(space.size(shape), 172u);
  for (const ProblemShape &shape :
       {ProblemShape{KernelType::SDDMM}, largeShape(KernelType::SDDMM)})
    EXPECT_EQ(space.size(shape), 24u);
  for (const ProblemShape &shape :
       {ProblemShape{KernelType::SpMV}, largeShape(KernelType::SpMV)})
    EXPECT_EQ(space.size(shape), 36u);
}

TEST(NvvmScheduleSpace, EnumeratesLegalCanonicalDistinctDeterministic) {
  NvvmScheduleSpace space;
  for (KernelType kernel : kKernels) {
    ProblemShape shape = largeShape(kernel);
    std::vector<Schedule> schedules = all(space, shape);
    ASSERT_FALSE(schedules.empty()) << toString(kernel);
    std::set<std::string> seen;
    for (const Schedule &s : schedules) {
      EXPECT_EQ(s.target, TargetKind::NVVM) << s.str();
      EXPECT_EQ(s.kernel, kernel) << s.str();
      EXPECT_EQ(whyIllegalForNvvm(s), "") << s.str();
      EXPECT_EQ(whyIllegalForShape(s, shape.rows, shape.cols, shape.nnz), "")
          << s.str();
      EXPECT_EQ(canonicalize(s), s) << s.str();
      EXPECT_TRUE(seen.insert(s.str()).second) << "duplicate " << s.str();
    }
    EXPECT_EQ(all(space, shape), schedules) << "order is not deterministic";
  }
}

TEST(NvvmScheduleSpace, ContainsTheHeuristicDefault) {
  NvvmScheduleSpace space;
  for (KernelType kernel : kKernels) {
    Schedule d = defaultSchedule(TargetKind::NVVM, kernel, nullptr,
                                 largeShape(kernel).free);
    EXPECT_TRUE(space.contains(largeShape(kernel), d)) << d.str();
    EXPECT_TRUE(space.contains(ProblemShape{kernel}, d)) << d.str();
  }
}

TEST(NvvmScheduleSpace, HasCodegenAndLibgen) {
  NvvmScheduleSpace space;
  for (KernelType kernel : kKernels) {
    size_t libgen = 0, codegen = 0;
    std::set<int> threads;
    std::set<CuSparseFormat> formats;
    for (const Schedule &s : all(space, largeShape(kernel))) {
      if (gpuKnobs(s).libgen) {
        ++libgen;
        formats.insert(cuSparseFormatOf(s));
      } else {
        ++codegen;
        threads.insert(gpuKnobs(s).threads);
      }
    }
    EXPECT_GT(libgen, 0u) << toString(kernel);
    EXPECT_GT(codegen, 0u) << toString(kernel);
    EXPECT_EQ(threads, (std::set<int>{128, 256, 512, 1024}))
        << toString(kernel);
    if (kernel == KernelType::SDDMM)
      EXPECT_EQ(formats, (std::set<CuSparseFormat>{CuSparseFormat::CSR,
                                                   CuSparseFormat::BSR}));
    else
      EXPECT_EQ(formats, (std::set<CuSparseFormat>{CuSparseFormat::CSR,
                                                   CuSparseFormat::CSC}));
  }

  // Without the library path only generated kernels remain.
  NvvmSpaceConfig c;
  c.includeLibgen = false;
  NvvmScheduleSpace codegenOnly(c);
  EXPECT_EQ(codegenOnly.size(largeShape(KernelType::SpMM)), 168u);
  codegenOnly.enumerate(largeShape(KernelType::SpMM), [](const Schedule &s) {
    EXPECT_FALSE(gpuKnobs(s).libgen) << s.str();
    return true;
  });

  // With MLIR's sparse runtime library cuSPARSE also takes COO.
  c = NvvmSpaceConfig();
  c.sparseRuntimeLibrary = true;
  NvvmScheduleSpace withRuntime(c);
  Schedule coo = Schedule::coo(TargetKind::NVVM, KernelType::SpMM);
  gpuKnobs(coo).libgen = true;
  EXPECT_FALSE(space.contains(largeShape(KernelType::SpMM), coo));
  EXPECT_TRUE(withRuntime.contains(largeShape(KernelType::SpMM), coo));
  EXPECT_EQ(withRuntime.size(largeShape(KernelType::SpMM)), 174u);
}

TEST(NvvmScheduleSpace, LibgenIgnoresLoopOrderAndThreads) {
  NvvmScheduleSpace space;
  ProblemShape shape = largeShape(KernelType::SpMM);
  Schedule s = Schedule::csr(TargetKind::NVVM, KernelType::SpMM);
  gpuKnobs(s).libgen = true;
  gpuKnobs(s).threads = 128;
  s.loopOrder = {
      {Role::J, Part::Whole}, {Role::I, Part::Whole}, {Role::K, Part::Whole}};
  EXPECT_TRUE(space.contains(shape, s));
  size_t csrLibgen = 0;
  space.enumerate(shape, [&](const Schedule &x) {
    csrLibgen += gpuKnobs(x).libgen && cuSparseFormatOf(x) == CuSparseFormat::CSR;
    return true;
  });
  EXPECT_EQ(csrLibgen, 2u); // one per width pair
}

TEST(NvvmScheduleSpace, SampleIsDeterministicSubset) {
  NvvmScheduleSpace space;
  for (KernelType kernel : kKernels) {
    ProblemShape shape = largeShape(kernel);
    std::vector<Schedule> a = space.sample(shape, 20, 42);
    std::vector<Schedule> b = space.sample(shape, 20, 42);
    EXPECT_EQ(a.size(), 20u);
    EXPECT_EQ(a, b);
    std::vector<Schedule> everything = all(space, shape);
    std::set<std::string> members, distinct;
    for (const Schedule &s : everything)
      members.insert(s.str());
    for (const Schedule &s : a) {
      EXPECT_TRUE(members.count(s.str())) << s.str();
      EXPECT_TRUE(distinct.insert(s.str()).second) << "duplicate " << s.str();
    }
  }
  // Asking for more than the space holds gives all of it.
  ProblemShape sddmm = largeShape(KernelType::SDDMM);
  EXPECT_EQ(space.sample(sddmm, 1000, 1).size(), space.size(sddmm));
}

TEST(NvvmScheduleSpace, PrunesByShape) {
  NvvmScheduleSpace space;
  // 30 x 30: blocks of 2 divide it, 4 and 8 do not.
  for (KernelType kernel : kKernels) {
    ProblemShape shape{kernel, 30, 30, kernel == KernelType::SpMV ? 0 : 16,
                       100};
    std::set<int64_t> blocks;
    space.enumerate(shape, [&](const Schedule &s) {
      EXPECT_EQ(whyIllegalForShape(s, 30, 30, 100), "") << s.str();
      if (s.splitRow > 1)
        blocks.insert(s.splitRow);
      return true;
    });
    EXPECT_EQ(blocks, (std::set<int64_t>{2})) << toString(kernel);
    EXPECT_LT(space.size(shape), space.size(largeShape(kernel)));
    Schedule bsr4 = Schedule::bsr(TargetKind::NVVM, kernel, 4, 4);
    EXPECT_TRUE(space.contains(largeShape(kernel), bsr4) ||
                kernel == KernelType::SDDMM)
        << bsr4.str();
    EXPECT_FALSE(space.contains(shape, bsr4)) << bsr4.str();
  }
  EXPECT_EQ(space.size(ProblemShape{KernelType::SpMM, 30, 30, 16, 100}),
            172u - 2 * 2 * 5 * 4);
}

TEST(NvvmScheduleSpace, RejectsOtherTargetsAndIllegalSchedules) {
  NvvmScheduleSpace space;
  for (KernelType kernel : kKernels) {
    ProblemShape shape = largeShape(kernel);
    EXPECT_FALSE(space.contains(shape, Schedule::csr(TargetKind::CPU, kernel)));
    EXPECT_FALSE(
        space.contains(shape, defaultSchedule(TargetKind::CPU, kernel)));
  }
  // The reduction outermost is never offloaded by code generation.
  Schedule csc = Schedule::csc(TargetKind::NVVM, KernelType::SpMV);
  EXPECT_NE(whyIllegalForNvvm(csc), "");
  EXPECT_FALSE(space.contains(largeShape(KernelType::SpMV), csc));
  // An SDDMM with the reduction innermost is not the in-place form.
  Schedule sddmm = Schedule::csr(TargetKind::NVVM, KernelType::SDDMM);
  EXPECT_FALSE(space.contains(largeShape(KernelType::SDDMM), sddmm));
  // A schedule of another kernel is not in the space.
  EXPECT_FALSE(
      space.contains(largeShape(KernelType::SpMV),
                     defaultSchedule(TargetKind::NVVM, KernelType::SpMM)));
}

} // namespace
