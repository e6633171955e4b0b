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

/// What each arm measured in the round, as the training data sees it.
struct ArmSamples {
  /// Per arm: the seconds its measurements cost (failures included),
  /// whether it measured anything, and whether any measurement succeeded.
  std::vector<double> cost;
  std::vector<bool> informed, learned;
  /// The problems' training groups (LearningPool::measuredGroups: the
  /// successful measurements of each problem with any, this round's
  /// included), and per arm which of their samples it measured this round.
  std::vector<SampleGroup> groups;
  std::vector<std::vector<std::vector<bool>>> focus;

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

ArmSamples armSamples(const LearningPool &pool,
                      const std::vector<size_t> &measured,
                      const std::vector<size_t> &armOf, size_t arms) {
  ArmSamples out;
  out.cost.assign(arms, 0.0);
  out.informed.assign(arms, false);
  out.learned.assign(arms, false);
  for (size_t c : measured) {
    if (c >= armOf.size() || armOf[c] >= arms || !pool.outcome(c))
      continue;
    out.informed[armOf[c]] = true;
    out.cost[armOf[c]] += pool.outcome(c)->cost;
    out.learned[armOf[c]] = out.learned[armOf[c]] || pool.outcome(c)->ok;
  }
  out.groups = pool.measuredGroups();
  std::map<std::string, size_t> groupOf;
  // Per group, each sample's index by its schedule's printed form (a
  // group's samples are sorted by it).
  std::vector<std::map<std::string, size_t>> sampleOf(out.groups.size());
  for (size_t g = 0; g < out.groups.size(); ++g) {
    groupOf[out.groups[g].key()] = g;
    for (size_t n = 0; n < out.groups[g].samples.size(); ++n)
      sampleOf[g][out.groups[g].samples[n].schedule.str()] = n;
  }
  out.focus.resize(arms);
  for (size_t a = 0; a < arms; ++a) {
    out.focus[a].resize(out.groups.size());
    for (size_t g = 0; g < out.groups.size(); ++g)
      out.focus[a][g].assign(out.groups[g].samples.size(), false);
  }
  for (size_t c : measured) {
    if (c >= armOf.size() || armOf[c] >= arms || !pool.outcome(c) ||
        !pool.outcome(c)->ok)
      continue;
    const PoolCandidate &pc = pool.candidates()[c];
    auto g = groupOf.find(pool.problems()[pc.problem].key());
    if (g == groupOf.end())
      continue;
    auto n = sampleOf[g->second].find(pc.schedule.str());
    if (n != sampleOf[g->second].end())
      out.focus[armOf[c]][g->second][n->second] = true;
  }
  return out;
}

} // namespace

llvm::Expected<std::vector<std::optional<double>>> sptune::learnedRewards(
    const Model &model, const LearningPool &pool,
    const std::vector<size_t> &measured, const std::vector<size_t> &armOf,
    size_t arms, const std::vector<SampleGroup> &rewardSet,
    const FeatureTable &features, const TrainOptions &training) {
  ArmSamples by = armSamples(pool, measured, armOf, arms);
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

  for (size_t a = 0; a < arms; ++a) {
    if (!by.learned[a])
      continue;
    llvm::Expected<std::vector<float>> step =
        lossGradient(model, by.groups, features, training, &by.focus[a]);
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
  ArmSamples by = armSamples(pool, measured, armOf, arms);
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

  // The round's successful measurements, by arm. The baseline leaves them
  // all out (as if unmeasured: their samples, and the default's or the
  // heuristic's time they give their problem); an arm's copy keeps its own.
  std::vector<bool> isNew(pool.candidates().size(), false);
  for (size_t c : measured)
    if (c < armOf.size() && armOf[c] < arms && pool.outcome(c) &&
        pool.outcome(c)->ok)
      isNew[c] = true;
  llvm::Expected<double> base = lookahead(pool.measuredGroups(isNew));
  if (!base)
    return base.takeError();
  for (size_t a = 0; a < arms; ++a) {
    if (!by.learned[a])
      continue;
    std::vector<bool> others = isNew;
    for (size_t c = 0; c < others.size(); ++c)
      others[c] = others[c] && armOf[c] != a;
    llvm::Expected<double> mine = lookahead(pool.measuredGroups(others));
    if (!mine)
      return mine.takeError();
    rewards[a] = std::log(*mine / *base) / std::max(by.cost[a], 1e-9);
  }
  return rewards;
}
