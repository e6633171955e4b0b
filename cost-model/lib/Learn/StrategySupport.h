//===- StrategySupport.h - Shared pieces of the selection strategies ------===//
//
// Part of sptune (internal to lib/Learn): seeded shuffles, scoring every
// candidate of the pool with a model, schedule codes, and the interleaving
// of per-problem preference lists.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_LIB_LEARN_STRATEGYSUPPORT_H
#define SPTUNE_LIB_LEARN_STRATEGYSUPPORT_H

#include "sptune/Learn/SelectionStrategy.h"

#include <cstdint>
#include <random>
#include <vector>

namespace sptune {
namespace learn {

llvm::Error failure(const llvm::Twine &message);

/// Fisher-Yates with an explicit generator (the same order everywhere).
template <typename T> void shuffle(std::vector<T> &v, std::mt19937_64 &rng) {
  for (size_t n = v.size(); n > 1; --n)
    std::swap(v[n - 1], v[rng() % n]);
}

/// The model's score of every candidate of the pool (indexed like
/// `pool.candidates()`), one batch per problem.
llvm::Expected<std::vector<double>> scoreCandidates(const Model &model,
                                                    const LearningPool &pool,
                                                    const FeatureTable &features);

/// The schedule encoder's input of every candidate of `problem`, in
/// `pool.candidatesOf(problem)` order.
llvm::Expected<std::vector<std::vector<float>>>
scheduleCodes(const Model &model, const LearningPool &pool, size_t problem);

double squaredDistance(const std::vector<float> &a, const std::vector<float> &b);

/// Round-robin over per-problem lists (problems in a seeded random order):
/// every list's first entry, then every list's second, ...
std::vector<size_t> interleave(std::vector<std::vector<size_t>> lists,
                               uint64_t seed);

/// The unmeasured candidates of `problem`.
std::vector<size_t> unmeasuredOf(const LearningPool &pool, size_t problem);

/// The strategies (one file each), for `createStrategy`.
std::unique_ptr<SelectionStrategy> makeRandomStrategy();
std::unique_ptr<SelectionStrategy> makeRs2Strategy(double fraction);
std::unique_ptr<SelectionStrategy> makeDiversityStrategy(size_t perMatrix);
std::unique_ptr<SelectionStrategy> makeUncertaintyStrategy(size_t ensemble);
std::unique_ptr<SelectionStrategy> makeExploitationStrategy();
std::unique_ptr<SelectionStrategy> makeExplorationStrategy(double farShare);
/// `main` with `share` of its picks (evenly spaced) from `other`.
std::unique_ptr<SelectionStrategy>
makeMixedStrategy(std::unique_ptr<SelectionStrategy> main,
                  std::unique_ptr<SelectionStrategy> other, double share);

} // namespace learn
} // namespace sptune

#endif // SPTUNE_LIB_LEARN_STRATEGYSUPPORT_H
