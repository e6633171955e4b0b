//===- StrategySupport.cpp - Shared pieces of the selection strategies ----===//

#include "StrategySupport.h"

using namespace sptune;
using namespace sptune::learn;

llvm::Error learn::failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<std::vector<double>>
learn::scoreCandidates(const Model &model, const LearningPool &pool,
                       const FeatureTable &features) {
  std::vector<double> scores(pool.candidates().size(), 0.0);
  for (size_t p = 0; p < pool.problems().size(); ++p) {
    const std::vector<size_t> &cands = pool.candidatesOf(p);
    if (cands.empty())
      continue;
    const PoolProblem &problem = pool.problems()[p];
    auto f = features.find(problem.matrix.id);
    if (f == features.end())
      return failure("no features for matrix '" + problem.matrix.id + "'");
    std::vector<Schedule> schedules;
    schedules.reserve(cands.size());
    for (size_t c : cands)
      schedules.push_back(pool.candidates()[c].schedule);
    std::string error;
    std::vector<double> s =
        model.score(f->second, schedules, problem.free, &error);
    if (s.size() != schedules.size())
      return failure("scoring the candidates of " + problem.key() +
                     " failed: " + error);
    for (size_t n = 0; n < cands.size(); ++n)
      scores[cands[n]] = s[n];
  }
  return scores;
}

llvm::Expected<std::vector<std::vector<float>>>
learn::scheduleCodes(const Model &model, const LearningPool &pool,
                     size_t problem) {
  std::vector<std::vector<float>> codes;
  for (size_t c : pool.candidatesOf(problem)) {
    std::string error;
    std::vector<float> code = model.scheduleCode(
        pool.candidates()[c].schedule, pool.problems()[problem].free, &error);
    if (code.empty())
      return failure("the schedule code of a candidate of " +
                     pool.problems()[problem].key() + " failed: " + error);
    codes.push_back(std::move(code));
  }
  return codes;
}

double learn::squaredDistance(const std::vector<float> &a,
                              const std::vector<float> &b) {
  double d = 0;
  for (size_t n = 0; n < a.size() && n < b.size(); ++n) {
    double x = static_cast<double>(a[n]) - b[n];
    d += x * x;
  }
  return d;
}

std::vector<size_t> learn::interleave(std::vector<std::vector<size_t>> lists,
                                      uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<size_t> order(lists.size());
  for (size_t n = 0; n < order.size(); ++n)
    order[n] = n;
  shuffle(order, rng);
  std::vector<size_t> out;
  for (size_t depth = 0;; ++depth) {
    bool any = false;
    for (size_t l : order)
      if (depth < lists[l].size()) {
        out.push_back(lists[l][depth]);
        any = true;
      }
    if (!any)
      break;
  }
  return out;
}

std::vector<size_t> learn::unmeasuredOf(const LearningPool &pool,
                                        size_t problem) {
  std::vector<size_t> out;
  for (size_t c : pool.candidatesOf(problem))
    if (!pool.isMeasured(c))
      out.push_back(c);
  return out;
}
