//===- StrategyPortfolioTest.cpp - Hedge over the selection strategies ----===//
//
// The portfolio's shares (equal at first, towards the arm that pays, never
// below the smallest share, independent of the rewards' unit, forgetting
// with a discount), the merge of the arms' rankings, its JSON state, and
// the improvement reward read off a pool's measurements.
//
//===----------------------------------------------------------------------===//

#include "sptune/Learn/StrategyPortfolio.h"
#include "sptune/Learn/LearningPool.h"

#include "gtest/gtest.h"

#include <cmath>
#include <numeric>
#include <set>

using namespace sptune;

namespace {

std::string errorText(llvm::Error e) { return llvm::toString(std::move(e)); }

double sum(const std::vector<double> &v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

TEST(StrategyPortfolioTest, StartsEqualAndChecksItsOptions) {
  StrategyPortfolio p({"a", "b", "c", "d"});
  for (double s : p.shares())
    EXPECT_DOUBLE_EQ(s, 0.25);
  EXPECT_EQ(StrategyPortfolio::whyInvalid({}, 4), "");
  EXPECT_NE(StrategyPortfolio::whyInvalid({}, 0), "");
  EXPECT_NE(StrategyPortfolio::whyInvalid({-1, 0.05, 1}, 2), "");
  EXPECT_NE(StrategyPortfolio::whyInvalid({NAN, 0.05, 1}, 2), "");
  // Four arms cannot each keep a quarter or more.
  EXPECT_NE(StrategyPortfolio::whyInvalid({1, 0.25, 1}, 4), "");
  EXPECT_EQ(StrategyPortfolio::whyInvalid({1, 0.24, 1}, 4), "");
  EXPECT_NE(StrategyPortfolio::whyInvalid({1, 0.05, 0}, 2), "");
  EXPECT_NE(StrategyPortfolio::whyInvalid({1, 0.05, 1.5}, 2), "");
  EXPECT_EQ(p.describe(), "hedge shares: a 0.25, b 0.25, c 0.25, d 0.25");
}

TEST(StrategyPortfolioTest, SharesMoveToThePayingArmAndKeepTheFloor) {
  PortfolioOptions o{/*rate=*/1.0, /*minShare=*/0.1, /*discount=*/1.0};
  StrategyPortfolio p({"good", "poor"}, o);
  double last = 0.5;
  for (int t = 0; t < 8; ++t) {
    p.update({1.0, 0.2});
    std::vector<double> s = p.shares();
    EXPECT_NEAR(sum(s), 1.0, 1e-12);
    EXPECT_GT(s[0], last) << "round " << t;
    last = s[0];
    EXPECT_GE(s[1], 0.1 - 1e-12);
  }
  // Scores: the round's best scores 1, the other its fraction of it.
  EXPECT_NEAR(p.scores()[0], 8.0, 1e-12);
  EXPECT_NEAR(p.scores()[1], 8 * 0.2, 1e-12);
  EXPECT_NEAR(p.shares()[1], 0.1 + 0.8 / (1 + std::exp(8 - 1.6)), 1e-12);
  EXPECT_EQ(p.rounds(), 8u);

  // The rewards' unit does not matter; a rate of 0 keeps equal shares.
  StrategyPortfolio small({"a", "b"}), large({"a", "b"}),
      fixed({"a", "b"}, {0.0, 0.05, 1.0});
  for (int t = 0; t < 5; ++t) {
    small.update({0.003, 0.001});
    large.update({3000.0, 1000.0});
    fixed.update({3.0, 1.0});
  }
  EXPECT_EQ(small.shares(), large.shares());
  EXPECT_DOUBLE_EQ(fixed.shares()[0], 0.5);
}

TEST(StrategyPortfolioTest, ArmsWithoutNewsOnlyAgeAndBadRewardsAreNone) {
  StrategyPortfolio p({"a", "b"}, {1.0, 0.05, 0.5});
  p.update({1.0, std::nullopt});
  EXPECT_DOUBLE_EQ(p.scores()[0], 1.0);
  EXPECT_DOUBLE_EQ(p.scores()[1], 0.0);
  p.update({std::nullopt, NAN});
  EXPECT_DOUBLE_EQ(p.scores()[0], 0.5) << "aged by the discount";
  EXPECT_DOUBLE_EQ(p.scores()[1], 0.0) << "NaN counts as no reward";
  // A round where nothing improved scores nobody.
  p.update({0.0, 0.0});
  EXPECT_DOUBLE_EQ(p.scores()[0], 0.25);
}

TEST(StrategyPortfolioTest, DiscountingFollowsAnArmThatStartsPayingLater) {
  PortfolioOptions keep{2.0, 0.05, 1.0}, forget{2.0, 0.05, 0.5};
  StrategyPortfolio a({"early", "late"}, keep), b({"early", "late"}, forget);
  for (int t = 0; t < 6; ++t) {
    a.update({1.0, 0.0});
    b.update({1.0, 0.0});
  }
  for (int t = 0; t < 3; ++t) {
    a.update({0.0, 1.0});
    b.update({0.0, 1.0});
  }
  EXPECT_GT(a.shares()[0], a.shares()[1]) << "without discount: the past";
  EXPECT_LT(b.shares()[0], b.shares()[1]) << "discounted: the present";
}

TEST(StrategyPortfolioTest, MergeTakesEachArmsShareWithoutRepeats) {
  // Arm 0 ranks 0..19, arm 1 ranks 19..0: they overlap entirely.
  std::vector<size_t> up(20), down(20);
  std::iota(up.begin(), up.end(), 0);
  std::iota(down.rbegin(), down.rend(), 0);
  MergedRanking m = StrategyPortfolio::merge({up, down}, {0.75, 0.25});
  ASSERT_EQ(m.candidates.size(), 20u);
  ASSERT_EQ(m.arms.size(), 20u);
  EXPECT_EQ(std::set<size_t>(m.candidates.begin(), m.candidates.end()).size(),
            20u);
  // Every prefix of 4 holds 3 of arm 0's and 1 of arm 1's, each taken in
  // its own order.
  for (size_t n = 4; n <= 16; n += 4)
    EXPECT_EQ(std::count(m.arms.begin(), m.arms.begin() + n, 1u),
              static_cast<long>(n / 4))
        << n;
  EXPECT_EQ(m.candidates[0], 0u);
  size_t firstOfArm1 =
      std::find(m.arms.begin(), m.arms.end(), 1u) - m.arms.begin();
  EXPECT_EQ(m.candidates[firstOfArm1], 19u);
  for (size_t n = 0; n < m.candidates.size(); ++n) {
    const std::vector<size_t> &own = m.arms[n] ? down : up;
    EXPECT_NE(std::find(own.begin(), own.end(), m.candidates[n]), own.end());
  }

  // An arm whose ranking runs out leaves the rest to the others; an arm of
  // share 0 plays only then.
  MergedRanking short1 =
      StrategyPortfolio::merge({{1, 2}, {3, 4, 5, 6}, {7}}, {0.5, 0.5, 0.0});
  EXPECT_EQ(short1.candidates, (std::vector<size_t>{1, 3, 2, 4, 5, 6, 7}));
  EXPECT_EQ(short1.arms, (std::vector<size_t>{0, 1, 0, 1, 1, 1, 2}));
  EXPECT_TRUE(
      StrategyPortfolio::merge({{}, {}}, {0.5, 0.5}).candidates.empty());
}

TEST(StrategyPortfolioTest, StateRoundTripsAndRejectsOtherArms) {
  StrategyPortfolio p({"x", "y"}, {1.5, 0.05, 0.8});
  p.update({0.4, std::nullopt});
  p.update({0.1, 0.3});
  StrategyPortfolio q({"x", "y"}, {1.5, 0.05, 0.8});
  llvm::Error e = q.restore(p.toJson());
  ASSERT_FALSE(static_cast<bool>(e)) << errorText(std::move(e));
  EXPECT_EQ(q.rounds(), 2u);
  EXPECT_EQ(q.shares(), p.shares());
  EXPECT_EQ(q.scores(), p.scores());

  StrategyPortfolio other({"x", "z"});
  EXPECT_NE(errorText(other.restore(p.toJson())).find("other arms"),
            std::string::npos);
  llvm::json::Value bad =
      llvm::json::Object{{"policy", "hedge"},
                         {"arms", llvm::json::Array{"x", "y"}},
                         {"rounds", llvm::json::Array{llvm::json::Array{1.0}}}};
  EXPECT_NE(errorText(q.restore(bad)).find("one reward (or null) per arm"),
            std::string::npos);
  llvm::json::Value ucb = llvm::json::Object{{"policy", "ucb1"}};
  EXPECT_NE(errorText(q.restore(ucb)).find("another policy"),
            std::string::npos);
  EXPECT_EQ(q.rounds(), 2u) << "a failed restore changes nothing";
}

TEST(StrategyPortfolioTest, RewardsAreBestTimeGainsPerSecondOfEachArm) {
  LearningPool pool;
  size_t p = pool.addProblem(
      {MatrixRef{"m", "m", 8, 8, 16}, KernelType::SpMM, 16, TargetKind::CPU});
  size_t q = pool.addProblem(
      {MatrixRef{"n", "n", 8, 8, 16}, KernelType::SpMM, 16, TargetKind::CPU});
  std::vector<size_t> c;
  for (Schedule s : {Schedule::csr(TargetKind::CPU, KernelType::SpMM),
                     Schedule::dcsr(TargetKind::CPU, KernelType::SpMM),
                     Schedule::coo(TargetKind::CPU, KernelType::SpMM),
                     Schedule::csc(TargetKind::CPU, KernelType::SpMM)})
    c.push_back(pool.addCandidate(p, s));
  ASSERT_EQ(std::set<size_t>(c.begin(), c.end()).size(), 4u);
  size_t other =
      pool.addCandidate(q, Schedule::csr(TargetKind::CPU, KernelType::SpMM));
  // Before the round: problem p's best is 4 ms; q has nothing.
  pool.record(c[0], {true, 4e-3, 1.0});
  std::vector<double> before = bestMeasuredTimes(pool);
  EXPECT_DOUBLE_EQ(before[p], 4e-3);
  EXPECT_TRUE(std::isinf(before[q]));
  // The round: arm 0 finds 2 ms (costing 2 s) and fails once (1 s); arm 1
  // measures a slower one (1 s) and q's first (nothing to beat); arm 2
  // measures nothing.
  pool.record(c[1], {true, 2e-3, 2.0});
  pool.record(c[2], {false, 0, 1.0});
  pool.record(c[3], {true, 5e-3, 1.0});
  pool.record(other, {true, 1e-3, 3.0});
  std::vector<size_t> armOf(pool.candidates().size(), 9);
  armOf[c[1]] = armOf[c[2]] = 0;
  armOf[c[3]] = armOf[other] = 1;
  std::vector<std::optional<double>> r =
      improvementRewards(pool, before, {c[1], c[2], c[3], other}, armOf, 3);
  ASSERT_EQ(r.size(), 3u);
  ASSERT_TRUE(r[0].has_value());
  EXPECT_NEAR(*r[0], std::log(2.0) / 3.0, 1e-12);
  ASSERT_TRUE(r[1].has_value());
  EXPECT_DOUBLE_EQ(*r[1], 0.0) << "slower than the best: no gain, cost paid";
  EXPECT_FALSE(r[2].has_value());
  EXPECT_DOUBLE_EQ(bestMeasuredTimes(pool)[p], 2e-3);
}

} // namespace
