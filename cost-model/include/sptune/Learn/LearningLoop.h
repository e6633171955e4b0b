//===- LearningLoop.h - The active-learning driver --------------*- C++ -*-===//
//
// Part of sptune. What `sptune-learn` does, as a library function: rounds of
//
//   1. choose the round's strategy (fixed, or a bandit's arm),
//   2. let it order the pool's unmeasured candidates, measure a prefix that
//      fits the round's budget through the oracle (live or replay); with
//      the Hedge policy every arm ranks, and the round takes from each
//      ranking its arm's share (StrategyPortfolio.h),
//   3. update the model on everything measured so far: the first round
//      trains a fresh model (knob autoencoders pre-trained on the pool's
//      schedules), later rounds continue training the previous round's model
//      (warm start, `roundEpochs`), or retrain from scratch (`retrain`),
//   4. evaluate on the fixed validation problems (top-1 speedup over the
//      default, Kendall's tau), reward the bandit's arm with the metric's
//      gain (log top-1 speedup or tau) on the reward set per unit of log
//      cumulative cost (learning curves are close to linear in the log of
//      the data: the rewards of early and late rounds stay comparable); the
//      reward set is a set of problems apart from the reported validation
//      ones, so that the bandit is not tuned on what is reported (without
//      one, the validation problems reward it, as before);
//      Hedge instead rewards each arm with what its own measurements found:
//      the sum, over those that beat their problem's best time before the
//      round, of log(best before / time), per second of its measurements
//      (problems measured for the first time tell nothing), and
//   5. checkpoint: the measured outcomes, the bandit, the model and the
//      round log, atomically, so that a killed run resumes where it was and
//      nothing measured is measured again.
//
// Round budgets are cumulative measurement seconds (the driver keeps
// measuring within a round, re-estimating costs from what it paid, until the
// round's budget is spent or the pool is empty).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_LEARN_LEARNINGLOOP_H
#define SPTUNE_LEARN_LEARNINGLOOP_H

#include "sptune/CostModel/Trainer.h"
#include "sptune/Learn/LearningPool.h"
#include "sptune/Learn/MeasurementOracle.h"
#include "sptune/Learn/SelectionStrategy.h"
#include "sptune/Learn/StrategyBandit.h"
#include "sptune/Learn/StrategyPortfolio.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sptune {

/// The validation metric the bandit's reward is the gain of.
enum class RewardMetric { Top1, Tau };

struct LearnOptions {
  TargetKind target = TargetKind::CPU;
  /// A strategy name (`strategyNames()`), or "bandit".
  std::string strategy = "bandit";
  BanditPolicy policy = BanditPolicy::UCB1;
  /// The bandit's arms, exploration constant and discount. The defaults
  /// were chosen on CPU replay seeds 1-3 of validation split 1 (issue 32):
  /// exploitation and two mixes of it, c = 0.5, rewards discounted by 0.8 a
  /// round. On seeds 201-210 x splits 3-5 they beat the former defaults
  /// (every strategy but rs2, c = 1, no discount) at 10% of the cost in 26
  /// of 30 paired runs (docs/results.md).
  std::vector<std::string> arms = {"exploitation", "exploitation+random@0.25",
                                   "exploitation+uncertainty@0.25"};
  BanditOptions banditOptions{/*exploration=*/0.5, /*discount=*/0.8};
  /// The Hedge policy's learning rate and every arm's smallest share (see
  /// StrategyPortfolio.h; its discount is `banditOptions.discount`).
  double hedgeRate = 1.0, hedgeMinShare = 0.05;
  /// What the Hedge policy rewards an arm for: what its measurements found,
  /// or what the model learns from them, estimated or by lookahead
  /// (StrategyPortfolio.h; needs a reward set).
  PortfolioReward hedgeReward = PortfolioReward::Found;
  /// Epochs of each copy's training for the lookahead reward.
  int lookaheadEpochs = 3;
  RewardMetric reward = RewardMetric::Top1;
  StrategyOptions strategyOptions;
  /// Cumulative measurement seconds at the end of each round (increasing).
  std::vector<double> roundBudgets;
  /// What 100% of the budget is, for the log's `budget_fraction` (0: none).
  double referenceCost = 0;
  uint64_t seed = 1;
  /// Epochs of the first round's fresh model, and of each later round.
  int initialEpochs = 30, roundEpochs = 10;
  /// Retrain from scratch every round (initialEpochs) instead of warm
  /// starting.
  bool retrain = false;
  /// A trained model to start from instead of nothing (`sptune-learn
  /// adapt`: the shipped release model), as the bytes of its file; empty:
  /// the first round trains a fresh model on a uniform sample. With a base,
  /// the strategy (or the bandit) ranks with it from the first round, and
  /// every round fine-tunes (TrainOptions::finetune: the base's feature
  /// standardization kept, `baseFreeze` frozen) for `roundEpochs`.
  std::string baseModelBytes;
  /// Names the base in messages and in the model's provenance.
  std::string baseModelName;
  FinetuneFreeze baseFreeze = FinetuneFreeze::Encoders;
  /// Adam's learning rate of the first round's fresh model (and of every
  /// round with `retrain`), and of the warm-started rounds (each decays
  /// along a cosine to a tenth, see TrainOptions).
  double learningRate = 2e-3, warmLearningRate = 1e-3;
  /// Regression term of the loss (see TrainOptions).
  double regressionWeight = 0.5;
  int torchThreads = 1;
  /// Where the state is checkpointed and resumed from (required): state.json,
  /// the current model, rounds.jsonl.
  std::string stateDir;
  /// The final model (empty: only the state directory's copy).
  std::string outPath;
  /// Named in the model's provenance.
  std::string toolName = "sptune-learn";

  const std::atomic<bool> *stop = nullptr;
  /// Status lines (what was resumed, each round's summary).
  std::function<void(llvm::StringRef)> onMessage;
  /// Progress within a round (measuring), for a transient line: the
  /// round, the oracle's progress of the current batch, and the seconds of
  /// measurement paid so far out of the last round's budget (what is left
  /// of it is the run's remaining measurement time).
  std::function<void(int round, int rounds, const OracleProgress &,
                     double spent, double budget)>
      onMeasureProgress;
};

/// One round, as logged (rounds.jsonl).
struct RoundRecord {
  int round = 0;
  std::string strategy;
  /// The bandit's arm (empty for a fixed strategy or the uniform first round
  /// of a model-based strategy).
  std::string arm;
  /// Why the bandit chose it (the policy's index per arm).
  std::string armReason;
  size_t measured = 0, failed = 0, totalMeasured = 0, problems = 0;
  double cost = 0, cumulativeCost = 0;
  double selectSeconds = 0, measureSeconds = 0, trainSeconds = 0;
  std::optional<double> top1, top5, oracle;
  double tau = 0;
  /// The metrics on the reward set (when there is one).
  std::optional<double> rewardTop1, rewardTau;
  std::optional<double> reward;
  std::string json() const;
};

struct LearnResult {
  std::vector<RoundRecord> rounds;
  /// The round a checkpoint resumed after (0: started fresh).
  int resumedAfter = 0;
  bool interrupted = false;
  /// Stopped early because nothing was left to measure.
  bool poolExhausted = false;
  std::string modelPath;
};

/// Runs (or resumes) active learning on `pool` with `oracle`; `validation`
/// groups are evaluated after every round; `rewardSet` groups give the
/// bandit's reward (empty: the validation groups do); `features` holds
/// every pool, validation and reward-set matrix. Fails for invalid options,
/// a state directory of another run, oracle and training errors.
llvm::Expected<LearnResult>
runLearning(LearningPool &pool, MeasurementOracle &oracle,
            const std::vector<SampleGroup> &validation,
            const FeatureTable &features, const LearnOptions &options,
            const std::vector<SampleGroup> &rewardSet = {});

} // namespace sptune

#endif // SPTUNE_LEARN_LEARNINGLOOP_H
