//===- LearnedRewards.cpp - What the model learns from an arm -------------===//

#include "sptune/Learn/LearnedRewards.h"
#include "sptune/Learn/LearningPool.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

using namespace sptune;

llvm::Expected<std::vector<std::optional<double>>> sptune::learnedRewards(
    const Model &model, const LearningPool &pool,
    const std::vector<size_t> &measured, const std::vector<size_t> &armOf,
    size_t arms, const std::vector<SampleGroup> &rewardSet,
    const FeatureTable &features, const TrainOptions &training) {
  std::vector<double> cost(arms);
  std::vector<bool> informed(arms), learned(arms);
  for (size_t c : measured) {
    if (c >= armOf.size() || armOf[c] >= arms || !pool.outcome(c))
      continue;
    informed[armOf[c]] = true;
    cost[armOf[c]] += pool.outcome(c)->cost;
    learned[armOf[c]] = learned[armOf[c]] || pool.outcome(c)->ok;
  }
  std::vector<std::optional<double>> rewards(arms);
  for (size_t a = 0; a < arms; ++a)
    if (informed[a])
      rewards[a] = 0.0;
  if (std::none_of(learned.begin(), learned.end(), [](bool b) { return b; }) ||
      rewardSet.empty())
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

  // Where each measured candidate sits among its problem's training samples
  // (measuredGroups: the successful measurements of each problem with any,
  // sorted by the schedule's printed form).
  std::vector<SampleGroup> groups = pool.measuredGroups();
  std::map<std::string, size_t> groupOf;
  // Per group, each sample's index by its schedule's printed form.
  std::vector<std::map<std::string, size_t>> sampleOf(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    groupOf[groups[g].key()] = g;
    for (size_t n = 0; n < groups[g].samples.size(); ++n)
      sampleOf[g][groups[g].samples[n].schedule.str()] = n;
  }
  for (size_t a = 0; a < arms; ++a) {
    if (!learned[a])
      continue;
    std::vector<std::vector<bool>> focus(groups.size());
    for (size_t g = 0; g < groups.size(); ++g)
      focus[g].assign(groups[g].samples.size(), false);
    for (size_t c : measured) {
      if (c >= armOf.size() || armOf[c] != a || !pool.outcome(c) ||
          !pool.outcome(c)->ok)
        continue;
      const PoolCandidate &pc = pool.candidates()[c];
      auto g = groupOf.find(pool.problems()[pc.problem].key());
      if (g == groupOf.end())
        continue;
      auto n = sampleOf[g->second].find(pc.schedule.str());
      if (n != sampleOf[g->second].end())
        focus[g->second][n->second] = true;
    }
    llvm::Expected<std::vector<float>> step =
        lossGradient(model, groups, features, training, &focus);
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
    rewards[a] = dot / norm / std::max(cost[a], 1e-9);
  }
  return rewards;
}
