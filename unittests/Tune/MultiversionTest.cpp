//===- MultiversionTest.cpp - Variants and the dispatch rule --------------===//

#include "sptune/Tune/Multiversion.h"
#include "cpu/CpuKnobs.h"

#include "sptune/InitAllTargets.h"
#include "sptune/Matrix/Generators.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Matrix/MatrixStats.h"
#include "sptune/Target/Target.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

#include <cmath>
#include <numeric>

using namespace sptune;

namespace {

CsrMatrix matrix(const std::string &spec) {
  CooMatrix coo;
  MatrixInfo info;
  EXPECT_TRUE(test::succeeded(loadMatrix(spec, coo, info)));
  return CsrMatrix::fromCoo(coo);
}

/// A model that predicts 16 vector lanes fast on matrices with long rows
/// (a mean over 8) and slow elsewhere, and is indifferent to the rest.
class LongRowsWantLanesModel : public CostModel {
public:
  LongRowsWantLanesModel() : CostModel(CostModelMode::Development, "test") {}
  std::string description() const override { return "long rows want lanes"; }
  bool supports(TargetKind target) const override {
    return target == TargetKind::CPU;
  }
  llvm::Expected<Ranking> rank(const MatrixFeatures &features,
                               const std::vector<Schedule> &candidates,
                               TargetKind, int64_t) const override {
    bool longRows = features.stats.rowMean > 8;
    Ranking r;
    for (const Schedule &s : candidates) {
      bool lanes = cpuKnobs(s).vectorLength == 16;
      r.scores.push_back(lanes == longRows ? 1.0 : 0.0);
    }
    r.order.resize(candidates.size());
    std::iota(r.order.begin(), r.order.end(), 0);
    std::stable_sort(r.order.begin(), r.order.end(), [&](size_t a, size_t b) {
      return r.scores[a] > r.scores[b];
    });
    return r;
  }
};

TEST(Multiversion, DispatchFeaturesAreTheRowLengthStatistics) {
  // Rows of 0, 1, 3 and 4 entries.
  CooMatrix coo;
  coo.rows = 4;
  coo.cols = 8;
  for (auto [r, c] : std::vector<std::pair<int, int>>{
           {1, 0}, {2, 1}, {2, 2}, {2, 3}, {3, 0}, {3, 1}, {3, 5}, {3, 7}}) {
    coo.rowIdx.push_back(r);
    coo.colIdx.push_back(c);
    coo.values.push_back(1.0);
  }
  DispatchFeatures f = dispatchFeatures(CsrMatrix::fromCoo(coo));
  EXPECT_EQ(f[DispatchFeatures::Rows], 4);
  EXPECT_EQ(f[DispatchFeatures::Cols], 8);
  EXPECT_EQ(f[DispatchFeatures::Nnz], 8);
  EXPECT_EQ(f[DispatchFeatures::RowMean], 2);
  // Variance (0 + 1 + 9 + 16) / 4 - 2^2 = 2.5.
  EXPECT_NEAR(f[DispatchFeatures::RowCv], std::sqrt(2.5) / 2, 1e-12);
  EXPECT_EQ(f[DispatchFeatures::RowMax], 4);
  // No rows: no mean and no spread (no division by zero).
  CsrMatrix empty;
  empty.rowPtr = {0};
  DispatchFeatures e = dispatchFeatures(empty);
  EXPECT_EQ(e[DispatchFeatures::RowMean], 0);
  EXPECT_EQ(e[DispatchFeatures::RowCv], 0);
}

TEST(Multiversion, TheRuleRoutesAndPrints) {
  DispatchRule rule;
  // row_mean <= 4 ? (nnz <= 1000 ? v0 : v2) : v1
  rule.nodes = {{DispatchFeatures::RowMean, 4, 1, 4, 0},
                {DispatchFeatures::Nnz, 1000, 2, 3, 0},
                {-1, 0, -1, -1, 0},
                {-1, 0, -1, -1, 2},
                {-1, 0, -1, -1, 1}};
  DispatchFeatures f;
  f.values[DispatchFeatures::RowMean] = 3;
  f.values[DispatchFeatures::Nnz] = 500;
  EXPECT_EQ(rule.route(f), 0u);
  f.values[DispatchFeatures::Nnz] = 5000;
  EXPECT_EQ(rule.route(f), 2u);
  f.values[DispatchFeatures::RowMean] = 4.5;
  EXPECT_EQ(rule.route(f), 1u);
  EXPECT_EQ(rule.str(), "row_mean <= 4 ? (nnz <= 1000 ? v0 : v2) : v1");
  EXPECT_EQ(rule.numLeaves(), 3u);
  EXPECT_FALSE(rule.readsRowLengths());
  rule.nodes[1].feature = DispatchFeatures::RowMax;
  EXPECT_TRUE(rule.readsRowLengths());
  EXPECT_EQ(DispatchRule().route(f), 0u);
  EXPECT_EQ(DispatchRule().str(), "v0");
}

TEST(Multiversion, OnlySchedulesThatRunOnAnyShapeAreVariants) {
  EXPECT_TRUE(runsOnAnyShape(Schedule::csr(TargetKind::CPU, KernelType::SpMM)));
  EXPECT_TRUE(runsOnAnyShape(Schedule::csc(TargetKind::CPU, KernelType::SpMM)));
  EXPECT_TRUE(runsOnAnyShape(Schedule::coo(TargetKind::CPU, KernelType::SpMM)));
  // A block split must divide the dimensions.
  EXPECT_FALSE(
      runsOnAnyShape(Schedule::bsr(TargetKind::CPU, KernelType::SpMM, 2, 2)));
  // A dense level under a sparse one stores a dense row per stored row.
  Schedule s = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
  s.setLevels({{{Role::I, Part::Whole}, LevelFormat::Compressed},
               {{Role::K, Part::Whole}, LevelFormat::Dense}});
  EXPECT_FALSE(runsOnAnyShape(s));
}

TEST(Multiversion, VariantsAndRuleFollowTheModel) {
  registerAllTargets();
  const Target &cpu = *TargetRegistry::lookup(TargetKind::CPU);
  std::vector<CsrMatrix> owned;
  for (int perRow : {2, 3, 4, 16, 24, 32})
    owned.push_back(matrix("gen:uniform:rows=512,cols=512,nnz=" +
                           std::to_string(512 * perRow) + ",seed=7"));
  std::vector<const CsrMatrix *> pool;
  for (const CsrMatrix &m : owned)
    pool.push_back(&m);
  LongRowsWantLanesModel model;
  MultiversionOptions options;
  options.variants = 4;
  options.candidates = 200;
  llvm::Expected<MultiversionPlan> plan =
      planMultiversion(model, cpu, pool, KernelType::SpMM, 64, options);
  ASSERT_TRUE(test::succeeded(plan));
  // Two variants serve it all (a third would add nothing): one with 16
  // lanes, one without, and the rule splits on the row lengths.
  ASSERT_EQ(plan->variants.size(), 2u);
  EXPECT_NE(cpuKnobs(plan->variants[0]).vectorLength == 16,
            cpuKnobs(plan->variants[1]).vectorLength == 16);
  for (size_t m = 0; m < owned.size(); ++m) {
    unsigned v = plan->rule.route(dispatchFeatures(owned[m]));
    bool longRows = m >= 3;
    EXPECT_EQ(cpuKnobs(plan->variants[v]).vectorLength == 16, longRows)
        << "matrix " << m << ", rule " << plan->rule.str();
  }
  EXPECT_DOUBLE_EQ(plan->routedShareOfBest, 1.0);
  EXPECT_LT(plan->singleShareOfBest, 1.0);
  EXPECT_EQ(plan->routedToBest, owned.size());
  EXPECT_TRUE(plan->scoresArePredictions);
  EXPECT_EQ(plan->trainingMatrices, owned.size());
  EXPECT_EQ(std::accumulate(plan->routedCounts.begin(),
                            plan->routedCounts.end(), size_t(0)),
            owned.size());
  for (const Schedule &s : plan->variants)
    EXPECT_TRUE(runsOnAnyShape(s)) << s.str();
}

TEST(Multiversion, TheHeuristicPlansToo) {
  registerAllTargets();
  const Target &cpu = *TargetRegistry::lookup(TargetKind::CPU);
  CsrMatrix a = matrix("gen:banded:rows=1024,cols=1024,nnz=4096,bw=4,seed=1");
  CsrMatrix b = matrix("gen:rmat:rows=1024,cols=1024,nnz=32768,a=0.57,b=0.19,"
                       "c=0.19,seed=2");
  std::unique_ptr<CostModel> heuristic =
      test::value(createCostModel(CostModelMode::Heuristic, ""));
  ASSERT_TRUE(heuristic);
  MultiversionOptions options;
  options.variants = 3;
  options.minLeaf = 1;
  options.candidates = 100;
  llvm::Expected<MultiversionPlan> plan = planMultiversion(
      *heuristic, cpu, {&a, &b}, KernelType::SpMV, 1, options);
  ASSERT_TRUE(test::succeeded(plan));
  ASSERT_GE(plan->variants.size(), 1u);
  EXPECT_LE(plan->variants.size(), 3u);
  // Each matrix is routed to the schedule the heuristic gives it.
  EXPECT_EQ(plan->routedToBest, 2u);
  EXPECT_FALSE(plan->scoresArePredictions);
  EXPECT_TRUE(plan->fallbackReason.empty());
  // The heuristic runs a's SpMV (4,096 entries) in one thread, but a variant
  // may be routed any matrix: every variant keeps its OpenMP loop.
  MatrixStats stats = computeStats(a);
  EXPECT_EQ(cpuKnobs(cpu.heuristicSchedule(KernelType::SpMV, &stats, 1)).parallel,
            ParallelKind::None);
  for (const Schedule &v : plan->variants)
    EXPECT_EQ(cpuKnobs(v).parallel, ParallelKind::Outer) << v.str();
}

TEST(Multiversion, AVariantKeepsItsLoopWhereItCan) {
  registerAllTargets();
  const Target &cpu = *TargetRegistry::lookup(TargetKind::CPU);
  Schedule one = Schedule::csr(TargetKind::CPU, KernelType::SpMV);
  Schedule variant = cpu.asVariant(one);
  EXPECT_EQ(cpuKnobs(variant).parallel, ParallelKind::Outer);
  EXPECT_EQ(cpuKnobs(variant).omp, OmpScheduleKind::Balanced);
  // A parallel schedule is left alone; so is one whose outer loop cannot
  // run in parallel (over COO's non-unique rows).
  EXPECT_EQ(cpu.asVariant(variant), variant);
  Schedule coo = Schedule::coo(TargetKind::CPU, KernelType::SpMV);
  EXPECT_EQ(cpuKnobs(coo).parallel, ParallelKind::None);
  EXPECT_EQ(cpu.asVariant(coo), coo);
  // Nor over a reduction outermost (CSC's SpMV: k, a race in parallel).
  Schedule csc = Schedule::csc(TargetKind::CPU, KernelType::SpMV);
  EXPECT_EQ(cpuKnobs(csc).parallel, ParallelKind::None);
  EXPECT_EQ(cpu.asVariant(csc), csc);
  // Doubly compressed rows cannot be cut by stored entries: static blocks.
  Schedule dcsr = Schedule::dcsr(TargetKind::CPU, KernelType::SpMV);
  Schedule dcsrVariant = cpu.asVariant(dcsr);
  EXPECT_EQ(cpuKnobs(dcsrVariant).parallel, ParallelKind::Outer);
  EXPECT_EQ(cpuKnobs(dcsrVariant).omp, OmpScheduleKind::Static);
  EXPECT_TRUE(cpu.whyIllegal(dcsrVariant).empty()) << cpu.whyIllegal(dcsrVariant);
}

TEST(Multiversion, NoMatricesNoPlan) {
  registerAllTargets();
  LongRowsWantLanesModel model;
  llvm::Expected<MultiversionPlan> plan =
      planMultiversion(model, *TargetRegistry::lookup(TargetKind::CPU), {},
                       KernelType::SpMM, 64, {});
  ASSERT_FALSE(plan);
  EXPECT_NE(llvm::toString(plan.takeError()).find("training matrices"),
            std::string::npos);
}

TEST(Multiversion, TheBuiltInTrainingSpecsParse) {
  std::vector<std::string> specs = defaultDispatchTrainingSpecs();
  EXPECT_EQ(specs.size(), 48u);
  for (const std::string &spec : specs) {
    llvm::Expected<GenSpec> parsed = parseGenSpec(spec);
    EXPECT_TRUE(test::succeeded(parsed)) << spec;
    if (parsed)
      EXPECT_LE(parsed->nnz, parsed->capacity()) << spec;
  }
}

} // namespace
