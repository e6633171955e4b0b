//===- LearnDriverTest.cpp - sptune-learn's budgets and option checks -----===//

#include "sptune/Collect/LearnDriver.h"

#include "gtest/gtest.h"

#include <cmath>

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

/// Values that aborted, hung or wasted a whole run (issue 35 probe) are
/// refused up front, each with its option named.
TEST(LearnDriver, RefusesWhatWouldAbortHangOrFailLater) {
  auto why = [](auto edit, bool live = false) {
    LearnDriverOptions o;
    if (live)
      o.matrixInputs = {"gen:uniform:rows=10,cols=10,nnz=20,seed=1"};
    else
      o.replay = {"data.jsonl"};
    edit(o);
    return whyInvalidLearnOptions(o);
  };
  EXPECT_EQ(why([](LearnDriverOptions &) {}), "");
  EXPECT_EQ(why([](LearnDriverOptions &) {}, true), "");
  auto expectRefused = [&](auto edit, const char *option, bool live = false) {
    std::string w = why(edit, live);
    EXPECT_NE(w.find(option), std::string::npos) << option << ": " << w;
  };
  expectRefused([](LearnDriverOptions &o) { o.rounds = 4294967295u; },
                "--rounds");
  expectRefused([](LearnDriverOptions &o) { o.rounds = 0; }, "--rounds");
  expectRefused([](LearnDriverOptions &o) { o.learn.initialEpochs = 1000000000; },
                "--initial-epochs");
  expectRefused([](LearnDriverOptions &o) { o.learn.roundEpochs = 0; },
                "--epochs");
  expectRefused(
      [](LearnDriverOptions &o) { o.learn.strategyOptions.ensembleSize = 100000; },
      "--ensemble");
  expectRefused([](LearnDriverOptions &o) { o.referenceCost = -5; },
                "--reference-cost");
  expectRefused([](LearnDriverOptions &o) { o.referenceCost = NAN; },
                "--reference-cost");
  expectRefused([](LearnDriverOptions &o) { o.learn.learningRate = NAN; },
                "--lr");
  expectRefused(
      [](LearnDriverOptions &o) { o.learn.strategyOptions.farShare = 2; },
      "--far-share");
  expectRefused([](LearnDriverOptions &o) { o.kernels = {"spgemv"}; },
                "unknown kernel");
  // A kernel type the cost model has no feature for (measured, collected,
  // not learned from). SpGEMM has features: a model is created for it.
  expectRefused([](LearnDriverOptions &o) { o.kernels = {"hadamard"}; },
                "the cost model has no feature for 'hadamard' kernels");
  expectRefused([](LearnDriverOptions &o) { o.learn.outPath = "/"; }, "--out");
  // Live measurement options: checked before anything is measured.
  expectRefused([](LearnDriverOptions &o) { o.workers = 0; }, "--workers",
                true);
  expectRefused([](LearnDriverOptions &o) { o.workers = 100000; }, "--workers",
                true);
  expectRefused([](LearnDriverOptions &o) { o.free = 0; }, "--free", true);
  expectRefused([](LearnDriverOptions &o) { o.timeout = 0; }, "--timeout",
                true);
  expectRefused([](LearnDriverOptions &o) { o.minReps = -3; }, "--min-reps",
                true);
  expectRefused([](LearnDriverOptions &o) { o.minSeconds = NAN; },
                "--min-seconds", true);
  expectRefused(
      [](LearnDriverOptions &o) { o.workerExe = "/nonexistent/sptune-measure"; },
      "--worker-exe", true);
  // Replay never measures: the live options do not matter there.
  EXPECT_EQ(why([](LearnDriverOptions &o) { o.workers = 0; }), "");
}

} // namespace
