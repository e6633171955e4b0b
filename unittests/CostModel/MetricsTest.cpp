//===- MetricsTest.cpp - Ranking metrics on known inputs ------------------===//

#include "sptune/CostModel/Metrics.h"

#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"

#include <cmath>

using namespace sptune;

TEST(MetricsTest, KendallTauOfKnownOrders) {
  std::vector<double> x = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(kendallTau(x, x), 1.0);
  EXPECT_DOUBLE_EQ(kendallTau(x, {5, 4, 3, 2, 1}), -1.0);
  // One adjacent swap among 4: 5 concordant, 1 discordant pairs.
  EXPECT_NEAR(kendallTau({1, 2, 3, 4}, {1, 3, 2, 4}), 4.0 / 6.0, 1e-12);
  // Ties (tau-b): x has one tied pair.
  EXPECT_NEAR(kendallTau({1, 1, 2}, {1, 2, 3}), 2.0 / std::sqrt(2.0 * 3.0),
              1e-12);
  EXPECT_DOUBLE_EQ(kendallTau({1}, {1}), 0.0);
  EXPECT_DOUBLE_EQ(kendallTau({1, 1, 1}, {1, 2, 3}), 0.0);
}

TEST(MetricsTest, RankingTauComparesScoresWithSpeed) {
  std::vector<double> times = {1.0, 2.0, 3.0};
  EXPECT_DOUBLE_EQ(rankingTau({3, 2, 1}, times), 1.0); // fastest scored best
  EXPECT_DOUBLE_EQ(rankingTau({1, 2, 3}, times), -1.0);
}

TEST(MetricsTest, OrderedPairAccuracy) {
  std::vector<double> times = {1.0, 2.0, 3.0, 4.0};
  EXPECT_DOUBLE_EQ(*orderedPairAccuracy({4, 3, 2, 1}, times), 1.0);
  EXPECT_DOUBLE_EQ(*orderedPairAccuracy({1, 2, 3, 4}, times), 0.0);
  EXPECT_DOUBLE_EQ(*orderedPairAccuracy({4, 2, 3, 1}, times), 5.0 / 6.0);
  // A tie in the scores counts half.
  EXPECT_DOUBLE_EQ(*orderedPairAccuracy({1, 1}, {1.0, 2.0}), 0.5);
  // Pairs within the tolerance are not counted; none left: no value.
  EXPECT_FALSE(orderedPairAccuracy({1, 2}, {1.0, 1.01}, 0.05));
  EXPECT_FALSE(orderedPairAccuracy({1, 2}, {1.0, 1.0}));
}

TEST(MetricsTest, OrderAndTopKSpeedup) {
  std::vector<double> scores = {0.5, 2.0, 2.0, -1.0};
  EXPECT_EQ(orderByScore(scores), (std::vector<size_t>{1, 2, 0, 3}));
  std::vector<double> times = {4.0, 8.0, 2.0, 1.0};
  // top-1 is candidate 1 (8.0): 4 / 8; top-3 reaches candidate 2 (2.0).
  EXPECT_DOUBLE_EQ(topKSpeedup(scores, times, 4.0, 1), 0.5);
  EXPECT_DOUBLE_EQ(topKSpeedup(scores, times, 4.0, 2), 2.0);
  EXPECT_DOUBLE_EQ(topKSpeedup(scores, times, 4.0, 10), 4.0);
}

TEST(MetricsTest, GroupAndSummary) {
  // Predicted time = reference * exp(-score): with reference 1 and scores
  // -log(t * 1.1) every prediction is 10% high.
  std::vector<double> times = {1.0, 2.0, 4.0};
  std::vector<double> scores;
  for (double t : times)
    scores.push_back(-std::log(t * 1.1));
  GroupEvaluation a = evaluateGroup("a", scores, times, 2.0, 1.0);
  EXPECT_DOUBLE_EQ(a.tau, 1.0);
  ASSERT_EQ(a.ape.size(), 3u);
  for (double e : a.ape)
    EXPECT_NEAR(e, 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(*a.top1, 2.0);
  EXPECT_DOUBLE_EQ(*a.oracle, 2.0);

  // Reversed scores, no default measured, no calibration.
  GroupEvaluation b =
      evaluateGroup("b", {1, 2, 3}, times, std::nullopt, std::nullopt);
  EXPECT_DOUBLE_EQ(b.tau, -1.0);
  EXPECT_TRUE(b.ape.empty());
  EXPECT_FALSE(b.top1);

  // Worst pick: top-1 is 8 against a default of 2.
  GroupEvaluation c = evaluateGroup("c", {0, 1}, {1.0, 8.0}, 2.0, std::nullopt);
  EXPECT_DOUBLE_EQ(*c.top1, 0.25);
  EXPECT_DOUBLE_EQ(*c.top5, 2.0);

  EvaluationReport r = summarize({a, b, c});
  EXPECT_EQ(r.groups, 3u);
  EXPECT_EQ(r.samples, 8u);
  EXPECT_NEAR(r.tau, (1.0 - 1.0 - 1.0) / 3, 1e-12);
  EXPECT_EQ(r.groupsWithDefault, 2u);
  EXPECT_NEAR(*r.top1, std::sqrt(2.0 * 0.25), 1e-12);
  EXPECT_NEAR(*r.oracle, std::sqrt(2.0 * 2.0), 1e-12);
  EXPECT_NEAR(*r.mape, 0.1, 1e-12);
  EXPECT_NE(r.toJson().find("\"kendall_tau\""), std::string::npos);
  EXPECT_NE(r.summary().find("top-1"), std::string::npos);
}

TEST(MetricsTest, SpeedupOverTheMedianSchedule) {
  // Median of {1, 2, 4} is 2: the model picking 1 is 2x over the median,
  // picking 4 is 0.5x; an even count takes the mean of the middle two.
  GroupEvaluation a = evaluateGroup("a", {3, 2, 1}, {1.0, 2.0, 4.0},
                                    std::nullopt, std::nullopt);
  EXPECT_DOUBLE_EQ(*a.top1OverMedian, 2.0);
  EXPECT_DOUBLE_EQ(*a.oracleOverMedian, 2.0);
  EXPECT_FALSE(a.top1); // no default measured: still over the median
  GroupEvaluation b =
      evaluateGroup("b", {0, 1, 0, 0}, {1.0, 8.0, 2.0, 4.0}, 2.0, std::nullopt);
  EXPECT_DOUBLE_EQ(*b.top1OverMedian, 3.0 / 8.0);
  EXPECT_DOUBLE_EQ(*b.oracleOverMedian, 3.0);
  EvaluationReport r = summarize({a, b});
  EXPECT_NEAR(*r.top1OverMedian, std::sqrt(2.0 * 3.0 / 8.0), 1e-12);
  EXPECT_NEAR(*r.oracleOverMedian, std::sqrt(2.0 * 3.0), 1e-12);
  EXPECT_NE(r.toJson().find("\"top1_over_median\""), std::string::npos);
  EXPECT_NE(r.toJson().find("\"oracle_over_median\""), std::string::npos);
  EXPECT_NE(r.summary().find("median schedule"), std::string::npos);
}

TEST(MetricsTest, ScoresJsonlKeepsWhatTheMetricsCameFrom) {
  // One line per group, in the groups' order, with the scores and times in
  // sample order and the default's time (null where none was measured).
  GroupEvaluation a =
      evaluateGroup("a|spmm", {0.5, -1.0}, {2.0, 3.0}, 4.0, std::nullopt);
  GroupEvaluation b =
      evaluateGroup("b|sddmm", {1.0}, {8.0}, std::nullopt, std::nullopt);
  a.schedules = {"first", "second"}; // b has none: no "schedules" field
  EvaluationReport r = summarize({a, b});
  std::string text = r.toScoresJsonl();
  std::vector<std::string> lines;
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos;
       start = end + 1)
    lines.push_back(text.substr(start, end - start));
  ASSERT_EQ(lines.size(), 2u);
  llvm::Expected<llvm::json::Value> first = llvm::json::parse(lines[0]);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  const llvm::json::Object *o = first->getAsObject();
  ASSERT_TRUE(o);
  EXPECT_EQ(o->getString("key"), "a|spmm");
  EXPECT_EQ(o->getNumber("default_time"), 4.0);
  const llvm::json::Array *scores = o->getArray("scores");
  const llvm::json::Array *times = o->getArray("times");
  ASSERT_TRUE(scores && times);
  ASSERT_EQ(scores->size(), 2u);
  EXPECT_EQ((*scores)[0].getAsNumber(), 0.5);
  EXPECT_EQ((*scores)[1].getAsNumber(), -1.0);
  EXPECT_EQ((*times)[1].getAsNumber(), 3.0);
  const llvm::json::Array *schedules = o->getArray("schedules");
  ASSERT_TRUE(schedules);
  ASSERT_EQ(schedules->size(), 2u);
  EXPECT_EQ((*schedules)[1].getAsString(), "second");
  llvm::Expected<llvm::json::Value> second = llvm::json::parse(lines[1]);
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  EXPECT_EQ(second->getAsObject()->getString("key"), "b|sddmm");
  EXPECT_TRUE(second->getAsObject()->get("default_time")->getAsNull());
  EXPECT_FALSE(second->getAsObject()->get("schedules"));
  // Not in the metrics JSON: that stays one summary object.
  EXPECT_EQ(r.toJson().find("\"scores\""), std::string::npos);
}
