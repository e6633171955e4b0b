//===- LearnDriverTest.cpp - sptune-learn's budgets and option checks -----===//

#include "sptune/Collect/LearnDriver.h"

#include "gtest/gtest.h"

using namespace sptune;

namespace {

std::string errorOf(llvm::Expected<double> v) {
  return v ? std::string() : llvm::toString(v.takeError());
}

TEST(LearnDriver, Budgets) {
  EXPECT_DOUBLE_EQ(*parseLearnBudget("90", 0), 90);
  EXPECT_DOUBLE_EQ(*parseLearnBudget(" 90s ", 0), 90);
  EXPECT_DOUBLE_EQ(*parseLearnBudget("5%", 200), 10);
  EXPECT_DOUBLE_EQ(*parseLearnBudget("0.5%", 1000), 5);
  EXPECT_NE(errorOf(parseLearnBudget("5%", 0)).find("--reference-cost"),
            std::string::npos);
  for (const char *bad : {"", "0", "-3", "ten", "5 %x", "0%", "nan%"})
    EXPECT_NE(errorOf(parseLearnBudget(bad, 100)), "") << bad;
}

/// Bad options end the run with exit status 2 before anything is read.
TEST(LearnDriver, RefusesBadOptions) {
  std::atomic<bool> stop{false};
  auto run = [&](auto edit) {
    LearnDriverOptions o;
    o.replay = {"unused.jsonl"};
    o.learn.stateDir = testing::TempDir() + "/sptune-learn-driver";
    o.roundsAt = {"10"};
    edit(o);
    return runLearnDriver(o, stop);
  };
  EXPECT_EQ(run([](LearnDriverOptions &o) { o.target = "tpu"; }), 2);
  EXPECT_EQ(run([](LearnDriverOptions &o) { o.policy = "greedy"; }), 2);
  EXPECT_EQ(run([](LearnDriverOptions &o) { o.reward = "loss"; }), 2);
  EXPECT_EQ(run([](LearnDriverOptions &o) { o.validationFraction = 1; }), 2);
  EXPECT_EQ(run([](LearnDriverOptions &o) { o.matrixInputs = {"gen:x"}; }), 2);
  EXPECT_EQ(run([](LearnDriverOptions &o) { o.replay.clear(); }), 2);
  // A replayed dataset that does not exist.
  EXPECT_EQ(run([](LearnDriverOptions &o) {}), 2);
}

} // namespace
