//===- ScheduleTunerTest.cpp - Ranking, measuring and the heuristic guard -===//

#include "sptune/Tune/ScheduleTuner.h"

#include "sptune/Config.h"
#include "sptune/CostModel/MatrixFeatures.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Schedule/DefaultSchedule.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <numeric>

using namespace sptune;

namespace {

/// A model that ranks the candidates in their given order except the
/// heuristic schedule, which it ranks last: the case the guard is for.
class HeuristicLastModel : public CostModel {
public:
  HeuristicLastModel() : CostModel(CostModelMode::Development) {}
  std::string description() const override { return "heuristic last"; }
  bool supports(TargetKind target) const override {
    return target == TargetKind::CPU;
  }
  std::optional<Ranking> rank(const MatrixFeatures &features,
                              const std::vector<Schedule> &candidates,
                              TargetKind target, int64_t free,
                              std::string *) const override {
    std::string heuristic = defaultSchedule(target, candidates.front().kernel,
                                            &features.stats, free)
                                .str();
    Ranking r;
    for (size_t i = 0; i < candidates.size(); ++i)
      r.scores.push_back(
          candidates[i].str() == heuristic ? -1e9 : -static_cast<double>(i));
    r.order.resize(candidates.size());
    std::iota(r.order.begin(), r.order.end(), 0);
    std::stable_sort(r.order.begin(), r.order.end(), [&](size_t a, size_t b) {
      return r.scores[a] > r.scores[b];
    });
    return r;
  }
};

const char *kMatrix = "gen:uniform:rows=64,cols=64,nnz=400,seed=9";

CsrMatrix load() {
  CooMatrix coo;
  MatrixInfo info;
  std::string error;
  EXPECT_TRUE(loadMatrix(kMatrix, coo, info, error)) << error;
  return CsrMatrix::fromCoo(coo);
}

TuneOptions measuring(size_t k) {
  TuneOptions o;
  o.candidates = 40;
  o.topK = 3;
  o.measureTopK = k;
  o.matrixSource = kMatrix;
  o.measure.minSeconds = 0;
  o.measure.minReps = 3;
  o.workerExecutable = std::string(SPTUNE_BINARY_DIR) + "/bin/sptune-measure";
  return o;
}

TEST(ScheduleTuner, MeasuresTheHeuristicTheModelRankedLast) {
  CsrMatrix m = load();
  HeuristicLastModel model;
  std::string error;
  auto result =
      tuneSchedule(model, m, KernelType::SpMM, 16, measuring(2), error);
  ASSERT_TRUE(result) << error;
  // Top 3 reported; the heuristic, ranked last, appended as the guard.
  ASSERT_EQ(result->top.size(), 4u);
  const RankedCandidate &guard = result->top.back();
  EXPECT_TRUE(guard.guard);
  EXPECT_EQ(guard.rank, result->numCandidates);
  MatrixFeatures features = featurize(m);
  EXPECT_EQ(
      guard.schedule.str(),
      defaultSchedule(TargetKind::CPU, KernelType::SpMM, &features.stats, 16)
          .str());
  // Measured: the top 2 and the guard, not #3.
  EXPECT_TRUE(result->top[0].seconds) << result->top[0].measureStatus;
  EXPECT_TRUE(result->top[1].seconds) << result->top[1].measureStatus;
  EXPECT_FALSE(result->top[2].seconds);
  ASSERT_TRUE(guard.seconds) << guard.measureStatus;
  // The choice is the fastest measured one.
  double best = std::min(
      {*result->top[0].seconds, *result->top[1].seconds, *guard.seconds});
  auto chosen = std::find_if(result->top.begin(), result->top.end(),
                             [&](const RankedCandidate &c) {
                               return c.schedule.str() == result->chosen.str();
                             });
  ASSERT_NE(chosen, result->top.end());
  EXPECT_EQ(*chosen->seconds, best);
}

TEST(ScheduleTuner, GuardCanBeTurnedOffAndIsNotNeededWithoutMeasuring) {
  CsrMatrix m = load();
  HeuristicLastModel model;
  std::string error;
  TuneOptions off = measuring(1);
  off.measureHeuristic = false;
  auto result = tuneSchedule(model, m, KernelType::SpMM, 16, off, error);
  ASSERT_TRUE(result) << error;
  EXPECT_EQ(result->top.size(), 3u);
  EXPECT_TRUE(std::none_of(result->top.begin(), result->top.end(),
                           [](const RankedCandidate &c) { return c.guard; }));
  EXPECT_EQ(result->chosen.str(), result->top.front().schedule.str());

  auto unmeasured =
      tuneSchedule(model, m, KernelType::SpMM, 16, measuring(0), error);
  ASSERT_TRUE(unmeasured) << error;
  EXPECT_FALSE(unmeasured->measured);
  EXPECT_EQ(unmeasured->top.size(), 3u);
  EXPECT_EQ(unmeasured->top.back().rank, 3u);
}

} // namespace
