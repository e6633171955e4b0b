//===- UncertaintyStrategy.cpp - Where an ensemble disagrees --------------===//

#include "StrategySupport.h"

#include <algorithm>
#include <cmath>

using namespace sptune;
using namespace sptune::learn;

namespace {
/// Query by committee: the current model and `ensemble - 1` copies trained
/// on bootstrap resamples of the measured problems score every candidate;
/// scores are centered per problem and model (rankings, not offsets, are
/// what matters), and a candidate's uncertainty is their standard deviation
/// across the models. Per problem, most uncertain first.
class UncertaintyStrategy : public SelectionStrategy {
public:
  explicit UncertaintyStrategy(size_t ensemble) : ensemble(ensemble) {}
  std::string name() const override { return "uncertainty"; }
  bool needsModel() const override { return true; }
  llvm::Expected<std::vector<size_t>>
  rank(const SelectionContext &context) override {
    if (!context.model)
      return failure("uncertainty needs a model");
    if (!context.trainEnsembleMember)
      return failure("uncertainty needs a way to train ensemble members");
    const LearningPool &pool = context.pool;
    std::vector<std::vector<double>> scores;
    llvm::Expected<std::vector<double>> own =
        scoreCandidates(*context.model, pool, context.features);
    if (!own)
      return own.takeError();
    scores.push_back(std::move(*own));
    for (size_t m = 1; m < ensemble; ++m) {
      llvm::Expected<std::unique_ptr<Model>> member =
          context.trainEnsembleMember(context.seed * 31 + m);
      if (!member)
        return member.takeError();
      llvm::Expected<std::vector<double>> s =
          scoreCandidates(**member, pool, context.features);
      if (!s)
        return s.takeError();
      scores.push_back(std::move(*s));
    }
    // Center per problem and model.
    for (std::vector<double> &s : scores)
      for (size_t p = 0; p < pool.problems().size(); ++p) {
        const std::vector<size_t> &cands = pool.candidatesOf(p);
        if (cands.empty())
          continue;
        double mean = 0;
        for (size_t c : cands)
          mean += s[c];
        mean /= static_cast<double>(cands.size());
        for (size_t c : cands)
          s[c] -= mean;
      }
    std::vector<double> spread(pool.candidates().size(), 0);
    for (size_t c = 0; c < spread.size(); ++c) {
      double mean = 0, sq = 0;
      for (const auto &s : scores)
        mean += s[c];
      mean /= static_cast<double>(scores.size());
      for (const auto &s : scores)
        sq += (s[c] - mean) * (s[c] - mean);
      spread[c] = std::sqrt(sq / static_cast<double>(scores.size() - 1));
    }
    std::vector<std::vector<size_t>> lists;
    for (size_t p = 0; p < pool.problems().size(); ++p) {
      std::vector<size_t> list = unmeasuredOf(pool, p);
      std::stable_sort(list.begin(), list.end(), [&](size_t a, size_t b) {
        return spread[a] > spread[b];
      });
      lists.push_back(std::move(list));
    }
    return interleave(std::move(lists), context.seed);
  }

private:
  size_t ensemble;
};
} // namespace

std::unique_ptr<SelectionStrategy>
learn::makeUncertaintyStrategy(size_t ensemble) {
  return std::make_unique<UncertaintyStrategy>(ensemble);
}
