//===- StrategyBandit.h - Which strategy chooses this round -----*- C++ -*-===//
//
// Part of sptune. A multi-armed bandit over the selection strategies: each
// round it picks the strategy (arm) that chooses the measurements; the
// reward is the gain in the reward set's metric per unit of the logarithm of
// the cumulative measurement cost that round brought (see LearningLoop.h).
// Two policies:
//
//  - UCB1 (Auer et al. 2002) on rewards rescaled to [0, 1] by the smallest
//    and largest reward seen so far (the gains have no known bound);
//  - Thompson sampling with a Gaussian posterior per arm (prior mean 0, one
//    pseudo-observation; the noise variance pooled over all rewards).
//
// An arm's value changes as the model learns (early rounds favour coverage,
// later ones the model's favourites), so both policies can discount: with
// `discount` gamma < 1 a reward seen t updates ago weighs gamma^t in the
// arm's mean and count (discounted UCB, Garivier & Moulines 2011; the same
// weights give a discounted Thompson posterior).
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

/// UCB1 and Thompson pick one arm per round (StrategyBandit); Hedge gives
/// every arm a share of each round (StrategyPortfolio).
enum class BanditPolicy { UCB1, Thompson, Hedge };
const char *toString(BanditPolicy policy);
std::optional<BanditPolicy> parseBanditPolicy(std::string_view name);

struct BanditOptions {
  /// UCB1's constant c in mean + c * sqrt(2 ln t / n); Thompson sampling's
  /// scale of the posterior's standard deviation.
  double exploration = 1.0;
  /// Weight of a reward per later update (1: no discounting), in (0, 1].
  double discount = 1.0;
};

/// A choice and why (for the round log).
struct BanditChoice {
  size_t arm = 0;
  /// E.g. "ucb1: exploitation 0.71+0.40, random 0.12+0.52 -> exploitation".
  std::string reason;
};

class StrategyBandit {
public:
  /// `arms`: the strategies' names (at least one); `policy`: UCB1 or
  /// Thompson (Hedge is StrategyPortfolio's).
  StrategyBandit(BanditPolicy policy, std::vector<std::string> arms,
                 BanditOptions options = {});

  BanditPolicy policy() const { return policy_; }
  const BanditOptions &options() const { return options_; }
  const std::vector<std::string> &arms() const { return arms_; }
  /// The arm to play, and why; arms never played come first (in order)
  /// under UCB1.
  BanditChoice decide(uint64_t seed) const;
  size_t choose(uint64_t seed) const { return decide(seed).arm; }
  void update(size_t arm, double reward);
  size_t pulls(size_t arm) const { return rewards_[arm].size(); }
  const std::vector<double> &rewards(size_t arm) const { return rewards_[arm]; }
  /// Mean raw reward of an arm (0 when never played), discounted.
  double meanReward(size_t arm) const;
  /// The arm's discounted count of plays (its plays without discounting).
  double weight(size_t arm) const;

  llvm::json::Value toJson() const;
  /// Restores the rewards of `toJson` into a bandit of the same policy and
  /// arms; fails when they differ.
  llvm::Error restore(const llvm::json::Value &state);

private:
  BanditPolicy policy_;
  std::vector<std::string> arms_;
  BanditOptions options_;
  std::vector<std::vector<double>> rewards_;
  /// The arms in the order they were updated (discounting needs the age of
  /// every reward).
  std::vector<size_t> order_;
};

} // namespace sptune

#endif // SPTUNE_LEARN_STRATEGYBANDIT_H
