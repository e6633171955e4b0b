//===- StrategyPortfolio.h - Every arm a share of each round ----*- C++ -*-===//
//
// Part of sptune. The bandit's other form (`--policy hedge`): instead of one
// strategy choosing a whole round, every strategy (arm) chooses a share of
// it, and the shares follow what each arm's picks paid. This is Hedge
// (exponential weights, Freund & Schapire 1997) as GP-Hedge uses it for a
// portfolio of acquisition functions (Hoffman, Brochu & de Freitas 2011).
//
// Why not one arm per round (StrategyBandit): a round's reward there is the
// gain of a retrained model's validation metric, and one retraining moves
// that metric by tens of percent whatever was measured; with nine informed
// rounds the arms cannot be told apart (issue 32). Here every arm plays in
// every round, on the same model, and its reward is what its own
// measurements found, read off the measurements themselves
// (improvementRewards below: log(best before / time) summed over its
// measurements that beat their problem's best before the round, per second
// of its measurements), so arms are compared paired, round by round,
// without the retraining's noise.
//
// Shares: p_a = minShare + (1 - K minShare) softmax(rate * G)_a, where G_a
// sums the arm's rewards, each scaled by the round's largest (so the best
// arm of a round scores 1 whatever the reward's unit), a reward t rounds old
// weighing discount^t. A round's ranking takes its entries from the arms'
// rankings by smooth weighted round-robin on the shares, without repeats,
// so every prefix the driver measures holds about each arm's share of the
// candidates (not of the seconds: candidates cost what they cost).
//
// Deterministic; its state is JSON, for the driver's checkpoint.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_LEARN_STRATEGYPORTFOLIO_H
#define SPTUNE_LEARN_STRATEGYPORTFOLIO_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace sptune {

/// What an arm of the portfolio is rewarded for.
enum class PortfolioReward {
  /// What its measurements found (improvementRewards).
  Found,
  /// What the model learns from them, to first order (LearnedRewards.h).
  Learned,
  /// What the model learns from them, measured: a few epochs of training
  /// with and without them, scored on the reward set's top-1
  /// (LearnedRewards.h).
  Lookahead,
};
/// Whether `r` asks what the model learns (it needs the model that chose
/// the round and a reward set).
inline bool rewardsWhatIsLearned(PortfolioReward r) {
  return r == PortfolioReward::Learned || r == PortfolioReward::Lookahead;
}
/// "found" | "learned" | "lookahead".
const char *toString(PortfolioReward r);
std::optional<PortfolioReward> parsePortfolioReward(llvm::StringRef name);

struct PortfolioOptions {
  /// Hedge's learning rate on round-scaled rewards (>= 0; 0: fixed equal
  /// shares).
  double rate = 1.0;
  /// Every arm's smallest share, so that an arm that paid little early can
  /// still show it pays later (K * minShare < 1).
  double minShare = 0.05;
  /// Weight of a reward per later round, in (0, 1].
  double discount = 1.0;
};

/// A round's ranking merged from the arms' rankings.
struct MergedRanking {
  std::vector<size_t> candidates;
  /// The arm each entry came from.
  std::vector<size_t> arms;
};

class StrategyPortfolio {
public:
  /// `arms`: the strategies' names (at least one).
  StrategyPortfolio(std::vector<std::string> arms,
                    PortfolioOptions options = {});

  const std::vector<std::string> &arms() const { return arms_; }
  const PortfolioOptions &options() const { return options_; }
  /// Why `options` cannot be used with `arms` arms ("" when they can).
  static std::string whyInvalid(const PortfolioOptions &options, size_t arms);

  /// Each arm's share of the next round (they sum to 1).
  std::vector<double> shares() const;
  /// The arms' cumulative scaled, discounted rewards (G above).
  const std::vector<double> &scores() const { return scores_; }
  /// Interleaves `rankings` (one per arm, most wanted first) by `shares`,
  /// without repeats: every entry of every ranking appears once, taken from
  /// the first arm whose turn reaches it.
  static MergedRanking merge(const std::vector<std::vector<size_t>> &rankings,
                             const std::vector<double> &shares);

  /// One round's rewards, per arm (nullopt: the arm's picks told nothing
  /// this round; its score only ages). Non-finite rewards count as none.
  void update(const std::vector<std::optional<double>> &rewards);
  size_t rounds() const { return history_.size(); }

  /// E.g. "hedge shares: exploitation 0.71, random 0.29".
  std::string describe() const;

  llvm::json::Value toJson() const;
  /// Restores the rounds of `toJson` into a portfolio of the same arms;
  /// fails when they differ.
  llvm::Error restore(const llvm::json::Value &state);

private:
  void rescore();

  std::vector<std::string> arms_;
  PortfolioOptions options_;
  /// Every round's raw rewards (the state), and the scores they give.
  std::vector<std::vector<std::optional<double>>> history_;
  std::vector<double> scores_;
};

class LearningPool;

/// Each problem's best successfully measured time so far (infinity: none,
/// also when every measurement of it failed).
std::vector<double> bestMeasuredTimes(const LearningPool &pool);

/// The portfolio's reward of each of `arms` arms for a round: over the
/// round's `measured` candidates that arm `armOf[c]` chose, the sum of
/// log(best before / time) where a time beat its problem's best before the
/// round (`bestBefore`, from bestMeasuredTimes), per second the arm's
/// measurements cost (failures included). A problem measured for the first
/// time has nothing to beat: such measurements count for nothing either
/// way, and an arm with only such measurements (or none) gets nullopt.
std::vector<std::optional<double>>
improvementRewards(const LearningPool &pool,
                   const std::vector<double> &bestBefore,
                   const std::vector<size_t> &measured,
                   const std::vector<size_t> &armOf, size_t arms);

} // namespace sptune

#endif // SPTUNE_LEARN_STRATEGYPORTFOLIO_H
