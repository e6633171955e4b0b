//===- KnobNeighbourhoodTest.cpp - Schedules around a seed ----------------===//

#include "sptune/Tune/KnobNeighbourhood.h"
#include "cpu/CpuKnobs.h"

#include "sptune/Collect/Collection.h"
#include "sptune/InitAllTargets.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Matrix/MatrixStats.h"
#include "sptune/Schedule/DatasetSchema.h"
#include "sptune/Target/DefaultSchedule.h"
#include "sptune/Target/Target.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

#include <map>
#include <set>

using namespace sptune;

namespace {

const Target &cpuTarget() {
  registerAllTargets();
  return *TargetRegistry::get(TargetKind::CPU);
}

Schedule sddmmSeed() {
  MatrixStats stats;
  stats.rows = stats.cols = 4096;
  stats.nnz = 40000;
  stats.rowMean = stats.colMean = 40000.0 / 4096;
  Schedule s = defaultSchedule(TargetKind::CPU, KernelType::SDDMM, &stats, 64);
  s.denseTransposed = 2; // B^T, whatever the heuristic's rule
  // OpenMP's static schedule, whatever the heuristic's rule (balanced rows
  // take no chunk, which leaves fewer settings one knob away).
  cpuKnobs(s).omp = OmpScheduleKind::Static;
  return canonicalize(s);
}

TEST(KnobNeighbourhood, DistanceCountsChangedKnobs) {
  Schedule seed = sddmmSeed();
  EXPECT_EQ(knobDistance(seed, seed), 0u);
  Schedule lanes = seed;
  cpuKnobs(lanes).vectorLength = 4;
  EXPECT_EQ(knobDistance(seed, canonicalize(lanes)), 1u);
  Schedule layout = seed;
  layout.denseTransposed = 0; // B as written
  EXPECT_EQ(knobDistance(seed, canonicalize(layout)), 1u);
  Schedule sequential = seed;
  cpuKnobs(sequential).parallel = ParallelKind::None;
  EXPECT_EQ(knobDistance(seed, canonicalize(sequential)), 1u);
  Schedule dynamic = seed;
  cpuKnobs(dynamic).omp = OmpScheduleKind::Dynamic;
  cpuKnobs(dynamic).chunk = 64;
  EXPECT_EQ(knobDistance(seed, canonicalize(dynamic)), 2u);
  Schedule widths = lanes;
  widths.posWidth = widths.crdWidth = 32;
  EXPECT_EQ(knobDistance(seed, canonicalize(widths)), 2u);
}

TEST(KnobNeighbourhood, NearestComeFirstAndKeepTheStructure) {
  const Target &cpu = cpuTarget();
  Schedule seed = sddmmSeed();
  std::vector<Schedule> near =
      nearestKnobNeighbours(cpu, seed, 24, 4096, 4096, 40000, 7);
  ASSERT_EQ(near.size(), 24u);
  EXPECT_EQ(near.front(), seed);
  std::set<std::string> distinct;
  unsigned last = 0;
  size_t oneAway = 0;
  for (const Schedule &s : near) {
    EXPECT_TRUE(distinct.insert(s.str()).second) << "duplicate " << s.str();
    EXPECT_TRUE(cpu.whyIllegal(s).empty()) << s.str();
    EXPECT_EQ(s.levels, seed.levels) << s.str();
    EXPECT_EQ(s.loopOrder, seed.loopOrder) << s.str();
    unsigned d = knobDistance(seed, s);
    EXPECT_GE(d, last) << "not in increasing distance: " << s.str();
    last = d;
    oneAway += d == 1;
  }
  // The CPU knobs have more than 23 settings one knob away: all of the
  // neighbours after the seed are one knob away.
  EXPECT_EQ(oneAway, 23u);
  // Deterministic for a seed, another draw for another.
  EXPECT_EQ(nearestKnobNeighbours(cpu, seed, 24, 4096, 4096, 40000, 7), near);
  EXPECT_NE(nearestKnobNeighbours(cpu, seed, 24, 4096, 4096, 40000, 8), near);
  EXPECT_TRUE(nearestKnobNeighbours(cpu, seed, 0, 4096, 4096, 40000, 7).empty());
  // Past the settings one knob away, the ring two knobs away.
  std::vector<Schedule> wider =
      nearestKnobNeighbours(cpu, seed, 60, 4096, 4096, 40000, 7);
  ASSERT_EQ(wider.size(), 60u);
  EXPECT_EQ(knobDistance(seed, wider.back()), 2u);
  // A target with few knobs (NVVM: threads, cuSPARSE) has few neighbours,
  // and says so by returning fewer than asked.
  const Target &nvvm = *TargetRegistry::get(TargetKind::NVVM);
  Schedule gpu = nvvm.heuristicSchedule(KernelType::SpMM, nullptr, 64);
  std::vector<Schedule> few =
      nearestKnobNeighbours(nvvm, gpu, 1000, 4096, 4096, 40000, 7);
  EXPECT_GT(few.size(), 1u);
  EXPECT_LT(few.size(), 1000u);
  EXPECT_EQ(few.front(), gpu);
}

TEST(KnobNeighbourhood, CollectionPlansTheHeuristicsNeighbourhood) {
  registerAllTargets();
  CollectionPlanOptions options;
  options.collect.kernels = {"sddmm", "spmv"};
  options.collect.samples = 2;
  options.collect.baselines = {"mlir-default"};
  options.neighbours = 5;
  llvm::Expected<CollectionPlan> plan =
      planCollection({"gen:uniform:rows=256,cols=256,nnz=2000,seed=3"}, options);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  std::map<std::string, std::vector<std::string>> byKernel;
  for (const PlannedRequest &p : plan->requests)
    if (p.key.role == dataset::kRoleNeighbour)
      byKernel[p.key.kernel].push_back(p.request.schedule);
  ASSERT_EQ(byKernel["sddmm"].size(), 5u);
  ASSERT_EQ(byKernel["spmv"].size(), 5u);
  // The first neighbour is the heuristic itself.
  CooMatrix coo;
  MatrixInfo info;
  ASSERT_TRUE(test::succeeded(
      loadMatrix("gen:uniform:rows=256,cols=256,nnz=2000,seed=3", coo, info)));
  coo.canonicalize();
  MatrixStats stats = computeStats(CsrMatrix::fromCoo(coo));
  EXPECT_EQ(byKernel["sddmm"].front(),
            cpuTarget().heuristicSchedule(KernelType::SDDMM, &stats, 64).str());
  EXPECT_EQ(byKernel["spmv"].front(),
            cpuTarget().heuristicSchedule(KernelType::SpMV, &stats, 1).str());
  // 2 kernels x (1 baseline + 2 samples + 5 neighbours), keys all distinct.
  std::set<std::string> keys;
  for (const PlannedRequest &p : plan->requests)
    keys.insert(p.key.str());
  EXPECT_EQ(plan->requests.size(), 16u);
  EXPECT_EQ(keys.size(), 16u);
}

} // namespace
