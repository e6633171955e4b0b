//===- StrategyBandit.h - Which strategy chooses this round -----*- C++ -*-===//
//
// Part of sptune. A multi-armed bandit over the selection strategies: each
// round it picks the strategy (arm) that chooses the measurements; the
// reward is the gain in the validation metric per unit of the logarithm of
// the cumulative measurement cost that round brought (see LearningLoop.h).
// Two policies:
//
//  - UCB1 (Auer et al. 2002) on rewards rescaled to [0, 1] by the smallest
//    and largest reward seen so far (the gains have no known bound);
//  - Thompson sampling with a Gaussian posterior per arm (prior mean 0, one
//    pseudo-observation; the noise variance pooled over all rewards).
//
// Deterministic for a seed; its state is JSON, for the driver's checkpoint.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_LEARN_STRATEGYBANDIT_H
#define SPTUNE_LEARN_STRATEGYBANDIT_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sptune {

enum class BanditPolicy { UCB1, Thompson };
const char *toString(BanditPolicy policy);
std::optional<BanditPolicy> parseBanditPolicy(std::string_view name);

class StrategyBandit {
public:
  /// `arms`: the strategies' names (at least one). `exploration`: UCB1's
  /// constant c in mean + c * sqrt(2 ln t / n).
  StrategyBandit(BanditPolicy policy, std::vector<std::string> arms,
                 double exploration = 1.0);

  BanditPolicy policy() const { return policy_; }
  const std::vector<std::string> &arms() const { return arms_; }
  /// The arm to play; arms never played come first (in order) under UCB1.
  size_t choose(uint64_t seed) const;
  void update(size_t arm, double reward);
  size_t pulls(size_t arm) const { return rewards_[arm].size(); }
  const std::vector<double> &rewards(size_t arm) const { return rewards_[arm]; }
  /// Mean raw reward of an arm (0 when never played).
  double meanReward(size_t arm) const;

  llvm::json::Value toJson() const;
  /// Restores the rewards of `toJson` into a bandit of the same policy and
  /// arms; fails when they differ.
  llvm::Error restore(const llvm::json::Value &state);

private:
  BanditPolicy policy_;
  std::vector<std::string> arms_;
  double exploration_;
  std::vector<std::vector<double>> rewards_;
};

} // namespace sptune

#endif // SPTUNE_LEARN_STRATEGYBANDIT_H
