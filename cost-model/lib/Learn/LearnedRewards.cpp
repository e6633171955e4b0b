//===- LearnedRewards.cpp - What the model learns from an arm -------------===//

#include "sptune/Learn/LearnedRewards.h"
#include "sptune/CostModel/Model.h"
#include "sptune/Learn/LearningPool.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>

using namespace sptune;

namespace {

/// What each arm measured in the round.
struct ArmTally {
  /// Per arm: the seconds its measurements cost (failures included),
  /// whether it measured anything, and whether any measurement succeeded.
  std::vector<double> cost;
  std::vector<bool> informed, learned;
  /// Per candidate: measured this round by an arm, successfully.
  std::vector<bool> isNew;

  /// The rewards of an arm that measured nothing (nullopt) or only failures
  /// (0); the others are the caller's to fill in.
  std::vector<std::optional<double>> uninformed() const {
    std::vector<std::optional<double>> rewards(cost.size());
    for (size_t a = 0; a < cost.size(); ++a)
      if (informed[a])
        rewards[a] = 0.0;
    return rewards;
  }
  bool anyLearned() const {
    return std::any_of(learned.begin(), learned.end(),
                       [](bool b) { return b; });
  }
};

ArmTally armTally(const LearningPool &pool, const std::vector<size_t> &measured,
                  const std::vector<size_t> &armOf, size_t arms) {
  ArmTally out;
  out.cost.assign(arms, 0.0);
  out.informed.assign(arms, false);
  out.learned.assign(arms, false);
  out.isNew.assign(pool.candidates().size(), false);
  for (size_t c : measured) {
    if (c >= armOf.size() || armOf[c] >= arms || !pool.outcome(c))
      continue;
    out.informed[armOf[c]] = true;
    out.cost[armOf[c]] += pool.outcome(c)->cost;
    if (pool.outcome(c)->ok) {
      out.learned[armOf[c]] = true;
      out.isNew[c] = true;
    }
  }
  return out;
}

/// Per arm, per group of `groups` (LearningPool::measuredGroups: a group's
/// samples sorted by their schedule's printed form), which samples are the
/// arm's new ones (`tally.isNew`).
std::vector<std::vector<std::vector<bool>>>
armFocus(const LearningPool &pool, const std::vector<SampleGroup> &groups,
         const ArmTally &tally, const std::vector<size_t> &armOf,
         size_t arms) {
  std::map<std::string, size_t> groupOf;
  // Per group, each sample's index by its schedule's printed form.
  std::vector<std::map<std::string, size_t>> sampleOf(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    groupOf[groups[g].key()] = g;
    for (size_t n = 0; n < groups[g].samples.size(); ++n)
      sampleOf[g][groups[g].samples[n].schedule.str()] = n;
  }
  std::vector<std::vector<std::vector<bool>>> focus(arms);
  for (size_t a = 0; a < arms; ++a) {
    focus[a].resize(groups.size());
    for (size_t g = 0; g < groups.size(); ++g)
      focus[a][g].assign(groups[g].samples.size(), false);
  }
  for (size_t c = 0; c < tally.isNew.size(); ++c) {
    if (!tally.isNew[c])
      continue;
    const PoolCandidate &pc = pool.candidates()[c];
    auto g = groupOf.find(pool.problems()[pc.problem].key());
    if (g == groupOf.end())
      continue;
    auto n = sampleOf[g->second].find(pc.schedule.str());
    if (n != sampleOf[g->second].end())
      focus[armOf[c]][g->second][n->second] = true;
  }
  return focus;
}

} // namespace

llvm::Expected<std::vector<std::optional<double>>> sptune::learnedRewards(
    const Model &model, const LearningPool &pool,
    const std::vector<size_t> &measured, const std::vector<size_t> &armOf,
    size_t arms, const std::vector<SampleGroup> &rewardSet,
    const FeatureTable &features, const TrainOptions &training) {
  ArmTally by = armTally(pool, measured, armOf, arms);
  std::vector<std::optional<double>> rewards = by.uninformed();
  if (!by.anyLearned() || rewardSet.empty())
    return rewards;

  llvm::Expected<std::vector<float>> toward =
      lossGradient(model, rewardSet, features, training);
  if (!toward)
    return toward.takeError();
  double norm = 0;
  for (float x : *toward)
    norm += static_cast<double>(x) * x;
  norm = std::sqrt(norm);
  if (!(norm > 0) || !std::isfinite(norm))
    return rewards;

  std::vector<SampleGroup> groups = pool.measuredGroups();
  std::vector<std::vector<std::vector<bool>>> focus =
      armFocus(pool, groups, by, armOf, arms);
  for (size_t a = 0; a < arms; ++a) {
    if (!by.learned[a])
      continue;
    llvm::Expected<std::vector<float>> step =
        lossGradient(model, groups, features, training, &focus[a]);
    if (!step)
      return step.takeError();
    if (step->size() != toward->size())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "learned reward: gradients of different sizes (%zu, %zu)",
          step->size(), toward->size());
    double dot = 0;
    for (size_t n = 0; n < step->size(); ++n)
      dot += static_cast<double>((*step)[n]) * (*toward)[n];
    rewards[a] = dot / norm / std::max(by.cost[a], 1e-9);
  }
  return rewards;
}

llvm::Expected<std::vector<std::optional<double>>> sptune::lookaheadRewards(
    const Model &model, const LearningPool &pool,
    const std::vector<size_t> &measured, const std::vector<size_t> &armOf,
    size_t arms, const std::vector<SampleGroup> &rewardSet,
    const FeatureTable &features, const TrainOptions &training) {
  ArmTally by = armTally(pool, measured, armOf, arms);
  std::vector<std::optional<double>> rewards = by.uninformed();
  if (!by.anyLearned() || rewardSet.empty())
    return rewards;

  // The reward set's top-1 speedup (over the MLIR default when the reward
  // set has it, else over the median schedule) of a copy of `model`
  // trained on `groups`; of `model` itself when there is nothing to train
  // on (a base model's first round, all of whose samples are new).
  auto lookahead =
      [&](const std::vector<SampleGroup> &groups) -> llvm::Expected<double> {
    std::string error;
    std::unique_ptr<Model> copy = model.clone(&error);
    if (!copy)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "lookahead reward: " + error);
    if (!groups.empty()) {
      TrainResult r = train(*copy, groups, features, training);
      if (!r.ok)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "lookahead reward: training failed: " +
                                           r.error);
      if (r.interrupted)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "lookahead reward: interrupted");
    }
    ModelEvaluation eval = evaluate(*copy, rewardSet, features);
    if (eval.failedGroups)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "lookahead reward: the model failed to score reward-set problems: " +
              eval.firstError);
    std::optional<double> top1 = eval.top1 ? eval.top1 : eval.top1OverMedian;
    if (!top1 || !(*top1 > 0))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "lookahead reward: the reward set gives no top-1 speedup");
    return *top1;
  };

  // The baseline leaves the round's successful measurements all out (as if
  // unmeasured: their samples, and the default's or the heuristic's time
  // they give their problem); an arm's copy keeps its own.
  llvm::Expected<double> base = lookahead(pool.measuredGroups(by.isNew));
  if (!base)
    return base.takeError();
  for (size_t a = 0; a < arms; ++a) {
    if (!by.learned[a])
      continue;
    std::vector<bool> others = by.isNew;
    for (size_t c = 0; c < others.size(); ++c)
      others[c] = others[c] && armOf[c] != a;
    llvm::Expected<double> mine = lookahead(pool.measuredGroups(others));
    if (!mine)
      return mine.takeError();
    rewards[a] = std::log(*mine / *base) / std::max(by.cost[a], 1e-9);
  }
  return rewards;
}
