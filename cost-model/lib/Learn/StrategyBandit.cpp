//===- StrategyBandit.cpp - Which strategy chooses this round -------------===//

#include "sptune/Learn/StrategyBandit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace sptune;

const char *sptune::toString(BanditPolicy policy) {
  return policy == BanditPolicy::UCB1 ? "ucb1" : "thompson";
}

std::optional<BanditPolicy> sptune::parseBanditPolicy(std::string_view name) {
  if (name == "ucb1" || name == "ucb")
    return BanditPolicy::UCB1;
  if (name == "thompson" || name == "ts")
    return BanditPolicy::Thompson;
  return std::nullopt;
}

StrategyBandit::StrategyBandit(BanditPolicy policy,
                               std::vector<std::string> arms,
                               double exploration)
    : policy_(policy), arms_(std::move(arms)), exploration_(exploration),
      rewards_(arms_.size()) {}

double StrategyBandit::meanReward(size_t arm) const {
  const std::vector<double> &r = rewards_[arm];
  if (r.empty())
    return 0;
  double sum = 0;
  for (double x : r)
    sum += x;
  return sum / static_cast<double>(r.size());
}

void StrategyBandit::update(size_t arm, double reward) {
  if (!std::isfinite(reward))
    reward = 0;
  rewards_[arm].push_back(reward);
}

size_t StrategyBandit::choose(uint64_t seed) const {
  size_t total = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  double sum = 0, sq = 0;
  for (const std::vector<double> &r : rewards_)
    for (double x : r) {
      ++total;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      sum += x;
      sq += x * x;
    }
  if (policy_ == BanditPolicy::UCB1) {
    for (size_t a = 0; a < arms_.size(); ++a)
      if (rewards_[a].empty())
        return a;
    double range = hi > lo ? hi - lo : 1.0;
    size_t best = 0;
    double bestIndex = -std::numeric_limits<double>::infinity();
    for (size_t a = 0; a < arms_.size(); ++a) {
      double n = static_cast<double>(rewards_[a].size());
      double mean = (meanReward(a) - (hi > lo ? lo : 0)) / range;
      double index = mean + exploration_ *
                                std::sqrt(2 * std::log(static_cast<double>(
                                                  total)) /
                                          n);
      if (index > bestIndex) {
        bestIndex = index;
        best = a;
      }
    }
    return best;
  }
  // Thompson sampling, Gaussian posterior with one prior pseudo-observation
  // at 0 and the pooled variance of every reward (a floor while few).
  double variance = 1e-4;
  if (total >= 2) {
    double mean = sum / static_cast<double>(total);
    variance = std::max(variance, (sq - total * mean * mean) / (total - 1));
  }
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  size_t best = 0;
  double bestDraw = -std::numeric_limits<double>::infinity();
  for (size_t a = 0; a < arms_.size(); ++a) {
    double n = static_cast<double>(rewards_[a].size());
    double postMean = meanReward(a) * n / (n + 1);
    double draw = postMean + std::sqrt(variance / (n + 1)) * normal(rng);
    if (draw > bestDraw) {
      bestDraw = draw;
      best = a;
    }
  }
  return best;
}

llvm::json::Value StrategyBandit::toJson() const {
  llvm::json::Array arms;
  for (size_t a = 0; a < arms_.size(); ++a) {
    llvm::json::Array r;
    for (double x : rewards_[a])
      r.push_back(x);
    arms.push_back(llvm::json::Object{{"name", arms_[a]},
                                      {"rewards", std::move(r)}});
  }
  return llvm::json::Object{{"policy", toString(policy_)},
                            {"arms", std::move(arms)}};
}

llvm::Error StrategyBandit::restore(const llvm::json::Value &state) {
  auto fail = [](const llvm::Twine &m) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "bandit state: " + m);
  };
  const llvm::json::Object *o = state.getAsObject();
  if (!o)
    return fail("not an object");
  std::optional<llvm::StringRef> policy = o->getString("policy");
  if (!policy || *policy != toString(policy_))
    return fail("another policy than '" + llvm::Twine(toString(policy_)) +
                "'");
  const llvm::json::Array *arms = o->getArray("arms");
  if (!arms || arms->size() != arms_.size())
    return fail("other arms");
  std::vector<std::vector<double>> rewards(arms_.size());
  for (size_t a = 0; a < arms_.size(); ++a) {
    const llvm::json::Object *arm = (*arms)[a].getAsObject();
    std::optional<llvm::StringRef> name =
        arm ? arm->getString("name") : std::nullopt;
    const llvm::json::Array *r = arm ? arm->getArray("rewards") : nullptr;
    if (!name || *name != arms_[a] || !r)
      return fail("other arms");
    for (const llvm::json::Value &x : *r) {
      std::optional<double> v = x.getAsNumber();
      if (!v)
        return fail("a reward is not a number");
      rewards[a].push_back(*v);
    }
  }
  rewards_ = std::move(rewards);
  return llvm::Error::success();
}
