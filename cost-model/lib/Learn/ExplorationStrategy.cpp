//===- ExplorationStrategy.cpp - Near the predicted best, and far away ----===//

#include "StrategySupport.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace sptune;
using namespace sptune::learn;

namespace {
/// Per problem: the unmeasured candidates nearest (in the schedule encoder's
/// input space) to the model's predicted best candidate, with a share
/// `farShare` of the picks taken instead from those farthest from every
/// measured candidate of the problem (exploration-aware sampling).
class ExplorationStrategy : public SelectionStrategy {
public:
  explicit ExplorationStrategy(double farShare) : farShare(farShare) {}
  std::string name() const override { return "exploration"; }
  bool needsModel() const override { return true; }
  llvm::Expected<std::vector<size_t>>
  rank(const SelectionContext &context) override {
    if (!context.model)
      return failure("exploration needs a model");
    const LearningPool &pool = context.pool;
    llvm::Expected<std::vector<double>> scores =
        scoreCandidates(*context.model, pool, context.features);
    if (!scores)
      return scores.takeError();
    std::vector<std::vector<size_t>> lists;
    for (size_t p = 0; p < pool.problems().size(); ++p) {
      const std::vector<size_t> &all = pool.candidatesOf(p);
      std::vector<size_t> open = unmeasuredOf(pool, p);
      if (open.empty()) {
        lists.emplace_back();
        continue;
      }
      llvm::Expected<std::vector<std::vector<float>>> codes =
          scheduleCodes(*context.model, pool, p);
      if (!codes)
        return codes.takeError();
      // Position of each candidate in `all` (codes are in that order).
      auto codeOf = [&](size_t c) -> const std::vector<float> & {
        return (*codes)[static_cast<size_t>(
            std::find(all.begin(), all.end(), c) - all.begin())];
      };
      size_t best = *std::max_element(all.begin(), all.end(), [&](size_t a,
                                                                   size_t b) {
        return (*scores)[a] < (*scores)[b];
      });
      std::vector<std::pair<double, size_t>> near, far;
      for (size_t c : open) {
        near.emplace_back(squaredDistance(codeOf(c), codeOf(best)), c);
        double closest = std::numeric_limits<double>::infinity();
        for (size_t m : all)
          if (pool.isMeasured(m))
            closest = std::min(closest, squaredDistance(codeOf(c), codeOf(m)));
        far.emplace_back(-closest, c);
      }
      std::stable_sort(near.begin(), near.end());
      std::stable_sort(far.begin(), far.end());
      // Merge: pick i is far when floor((i + 1) * share) grows.
      std::vector<size_t> list;
      std::vector<bool> taken(pool.candidates().size(), false);
      size_t ni = 0, fi = 0;
      for (size_t i = 0; list.size() < open.size(); ++i) {
        bool pickFar = std::floor((i + 1) * farShare) > std::floor(i * farShare);
        auto &src = pickFar ? far : near;
        size_t &at = pickFar ? fi : ni;
        while (at < src.size() && taken[src[at].second])
          ++at;
        if (at == src.size()) {
          auto &other = pickFar ? near : far;
          size_t &oat = pickFar ? ni : fi;
          while (oat < other.size() && taken[other[oat].second])
            ++oat;
          if (oat == other.size())
            break;
          taken[other[oat].second] = true;
          list.push_back(other[oat].second);
          continue;
        }
        taken[src[at].second] = true;
        list.push_back(src[at].second);
      }
      lists.push_back(std::move(list));
    }
    return interleave(std::move(lists), context.seed);
  }

private:
  double farShare;
};
} // namespace

std::unique_ptr<SelectionStrategy>
learn::makeExplorationStrategy(double farShare) {
  return std::make_unique<ExplorationStrategy>(farShare);
}
