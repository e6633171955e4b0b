//===- SelectionStrategy.h - Which measurements are worth it ----*- C++ -*-===//
//
// Part of sptune. A selection strategy of the active-learning driver orders
// the pool's unmeasured candidates by how much it wants them measured; the
// driver measures a prefix that fits the round's budget. One class per
// strategy (lib/Learn/*Strategy.cpp), created by name:
//
//   random        uniform over the unmeasured candidates
//   rs2           uniform selection, and RS2 training (Okanovic et al. 2023,
//                 "Repeated Random Sampling for Minimizing the
//                 Time-to-Accuracy of Learning"): every epoch trains on a new
//                 random subset of the collected problems
//   diversity     k-center greedy over the matrices' embedding (the model's
//                 matrix encoder; standardized features before a model
//                 exists), a few random schedules of each chosen matrix
//   uncertainty   disagreement (standard deviation of within-problem
//                 centered scores) of an ensemble: the model and copies
//                 fine-tuned on bootstrap resamples of the data
//   exploitation  the model's best-ranked unmeasured schedules per problem
//                 (what `sptune-collect --model` does)
//   exploration   around the model's predicted best schedule (nearest in
//                 the schedule encoder's input space) plus a share of the
//                 schedules farthest from what was measured
//
// A mix "main+other@share" (e.g. "exploitation+random@0.25") takes `share`
// of its picks, evenly spaced, from the other strategy's ranking.
//
// Model-based strategies interleave problems (every problem's first choice,
// then every problem's second, ...) so that a round's budget is spread.
// Strategies are deterministic for the context's seed.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_LEARN_SELECTIONSTRATEGY_H
#define SPTUNE_LEARN_SELECTIONSTRATEGY_H

#include "sptune/CostModel/Model.h"
#include "sptune/CostModel/Trainer.h"
#include "sptune/Learn/LearningPool.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sptune {

/// What a strategy may look at.
struct SelectionContext {
  const LearningPool &pool;
  /// Features of every matrix of the pool, by matrix id.
  const FeatureTable &features;
  /// The current model; null before the first round's training.
  const Model *model = nullptr;
  /// The round's seed.
  uint64_t seed = 0;
  /// Trains an ensemble member: a copy of the current model trained on a
  /// bootstrap resample of the measured data with `seed` (uncertainty).
  std::function<llvm::Expected<std::unique_ptr<Model>>(uint64_t seed)>
      trainEnsembleMember;
};

struct StrategyOptions {
  /// diversity: schedules per chosen matrix and pass.
  size_t perMatrix = 4;
  /// uncertainty: ensemble size, the current model included (>= 2).
  size_t ensembleSize = 4;
  /// exploration: share of picks far from what was measured.
  double farShare = 0.3;
  /// rs2: fraction of the problems each epoch trains on.
  double rs2Fraction = 0.5;
};

class SelectionStrategy {
public:
  virtual ~SelectionStrategy();
  virtual std::string name() const = 0;
  /// Whether `rank` needs `context.model` (the first round, before any
  /// model, is uniform for such strategies).
  virtual bool needsModel() const { return false; }
  /// The unmeasured candidates, most wanted first. Fails when the model
  /// cannot score (a LibTorch error) or an ensemble member cannot be
  /// trained.
  virtual llvm::Expected<std::vector<size_t>>
  rank(const SelectionContext &context) = 0;
  /// The fraction of the problems each training epoch uses (RS2; 1: all).
  virtual double epochFraction() const { return 1.0; }
};

/// The strategies' names, in the order above.
const std::vector<std::string> &strategyNames();
/// A strategy by name (or a mix, "main+other@share"); an Error naming the
/// valid ones for another name or invalid options.
llvm::Expected<std::unique_ptr<SelectionStrategy>>
createStrategy(std::string_view name, const StrategyOptions &options = {});

} // namespace sptune

#endif // SPTUNE_LEARN_SELECTIONSTRATEGY_H
