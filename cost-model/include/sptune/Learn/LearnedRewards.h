//===- LearnedRewards.h - What the model learns from an arm -----*- C++ -*-===//
//
// Part of sptune. The active-learning portfolio's second and third rewards
// (`sptune-learn --policy hedge --hedge-reward learned|lookahead`, issue 32).
//
// The first reward (improvementRewards, StrategyPortfolio.h) pays an arm for
// what its measurements found: schedules faster than their problem's best.
// On the CPU replay that pays exploration's picks next to the predicted best
// as well as exploitation's, yet a model trained on exploitation's picks
// ranks better: what corrects the model's top choice is worth more to it than
// another fast schedule beside it. This reward pays an arm for what the model
// learns from its picks, without the retraining whose noise drowns the arms'
// differences (StrategyBandit): a first-order, gradient-alignment account
// (as TracIn and gradient-matching data valuation do). The third measures
// it instead: a few epochs from the same weights with and without each
// arm's picks, scored on the reward set's top-1, the quantity the reported
// validation measures (each arm's picks added to a baseline without the
// round's, the copies trained with one seed).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_LEARN_LEARNEDREWARDS_H
#define SPTUNE_LEARN_LEARNEDREWARDS_H

#include "sptune/CostModel/Trainer.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace sptune {

class LearningPool;

/// The portfolio's other reward (`--hedge-reward learned`): what the model
/// learns from each arm's measurements of a round, to first order, without
/// retraining. g_a is the gradient of the part of the training loss the
/// arm's new samples add (the pairs that hold one of them and their
/// regression, in their problems' groups of everything measured so far:
/// `lossGradient` with them in focus); g_R is the gradient of the loss on
/// `rewardSet` (problems the reported validation does not hold), each
/// problem weighing the same in both. A gradient step on the arm's samples
/// lowers the reward set's loss by about eta * g_a . g_R. The reward is
/// g_a . g_R / |g_R| per second the arm's measurements cost (failures
/// included): positive when the arm's picks teach the model what holds on
/// problems it was not shown. `model` is the model that chose the round and
/// trains on it next (not a fresh one: the driver refuses --retrain with
/// this reward); `training` the options it trains with. An arm that measured
/// nothing gets nullopt; one whose measurements all failed, 0. With no
/// reward set (or a zero g_R: the model fits it), every informed arm gets 0.
llvm::Expected<std::vector<std::optional<double>>>
learnedRewards(const Model &model, const LearningPool &pool,
               const std::vector<size_t> &measured,
               const std::vector<size_t> &armOf, size_t arms,
               const std::vector<SampleGroup> &rewardSet,
               const FeatureTable &features, const TrainOptions &training);

/// The portfolio's third reward (`--hedge-reward lookahead`): what the model
/// learns from each arm's measurements, measured instead of estimated. From
/// the weights of `model` (the model that chose the round), one copy trains
/// with `training` on everything measured but this round's successful
/// measurements (the baseline: as if unmeasured, default and heuristic
/// times included; `model` itself when nothing else was measured), and one
/// per arm on that plus the arm's, all with `training`'s seed. The batches
/// still differ where an arm's samples add a problem or change a large
/// group's draw, so the reward carries some training noise. The reward is
/// the log of the arm's copy's top-1 speedup on `rewardSet` (over the MLIR
/// default when the reward set has it, else over the median schedule) over
/// the baseline copy's, per second the arm's measurements cost: the
/// quantity the reported validation measures, on other problems. An arm
/// that measured nothing gets nullopt, one whose measurements all failed 0;
/// with no reward set every informed arm gets 0. Costs one training of
/// `training.epochs` epochs, plus one per arm with a successful
/// measurement.
llvm::Expected<std::vector<std::optional<double>>>
lookaheadRewards(const Model &model, const LearningPool &pool,
                 const std::vector<size_t> &measured,
                 const std::vector<size_t> &armOf, size_t arms,
                 const std::vector<SampleGroup> &rewardSet,
                 const FeatureTable &features, const TrainOptions &training);

} // namespace sptune

#endif // SPTUNE_LEARN_LEARNEDREWARDS_H
