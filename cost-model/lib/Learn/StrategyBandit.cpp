//===- StrategyBandit.cpp - Which strategy chooses this round -------------===//

#include "sptune/Learn/StrategyBandit.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <random>

using namespace sptune;

const char *sptune::toString(BanditPolicy policy) {
  switch (policy) {
  case BanditPolicy::UCB1:
    return "ucb1";
  case BanditPolicy::Thompson:
    return "thompson";
  case BanditPolicy::Hedge:
    return "hedge";
  }
  return "?";
}

std::optional<BanditPolicy> sptune::parseBanditPolicy(std::string_view name) {
  if (name == "ucb1" || name == "ucb")
    return BanditPolicy::UCB1;
  if (name == "thompson" || name == "ts")
    return BanditPolicy::Thompson;
  if (name == "hedge")
    return BanditPolicy::Hedge;
  return std::nullopt;
}

StrategyBandit::StrategyBandit(BanditPolicy policy,
                               std::vector<std::string> arms,
                               BanditOptions options)
    : policy_(policy), arms_(std::move(arms)), options_(options),
      rewards_(arms_.size()) {
  assert(policy != BanditPolicy::Hedge && "Hedge is StrategyPortfolio's");
}

namespace {
/// Per arm: the discounted count and sum of its rewards.
struct ArmTotals {
  std::vector<double> weight, sum;
};
} // namespace

static ArmTotals totalsOf(const std::vector<std::vector<double>> &rewards,
                          const std::vector<size_t> &order, double discount) {
  ArmTotals t{std::vector<double>(rewards.size()),
              std::vector<double>(rewards.size())};
  std::vector<size_t> seen(rewards.size());
  size_t updates = order.size();
  for (size_t j = 0; j < updates; ++j) {
    size_t a = order[j];
    double w = std::pow(discount, static_cast<double>(updates - 1 - j));
    t.weight[a] += w;
    t.sum[a] += w * rewards[a][seen[a]++];
  }
  return t;
}

double StrategyBandit::meanReward(size_t arm) const {
  ArmTotals t = totalsOf(rewards_, order_, options_.discount);
  return t.weight[arm] > 0 ? t.sum[arm] / t.weight[arm] : 0.0;
}

double StrategyBandit::weight(size_t arm) const {
  return totalsOf(rewards_, order_, options_.discount).weight[arm];
}

void StrategyBandit::update(size_t arm, double reward) {
  if (!std::isfinite(reward))
    reward = 0;
  rewards_[arm].push_back(reward);
  order_.push_back(arm);
}

BanditChoice StrategyBandit::decide(uint64_t seed) const {
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
  ArmTotals t = totalsOf(rewards_, order_, options_.discount);
  // Per arm: the estimate and what is added to it (UCB1's bonus, Thompson's
  // draw); the arm with the largest sum plays.
  std::vector<std::pair<double, double>> parts(arms_.size());
  const char *label;
  if (policy_ == BanditPolicy::UCB1) {
    for (size_t a = 0; a < arms_.size(); ++a)
      if (rewards_[a].empty())
        return {a, "ucb1: first play of " + arms_[a]};
    double range = hi > lo ? hi - lo : 1.0;
    double played = 0;
    for (double w : t.weight)
      played += w;
    for (size_t a = 0; a < arms_.size(); ++a) {
      double n = std::max(t.weight[a], 1e-12);
      parts[a] = {(t.sum[a] / n - (hi > lo ? lo : 0)) / range,
                  options_.exploration *
                      std::sqrt(2 * std::log(std::max(played, 1.0)) / n)};
    }
    label = "ucb1 (scaled mean+bonus): ";
  } else {
    // Thompson sampling, Gaussian posterior with one prior pseudo-observation
    // at 0 and the pooled variance of every reward (a floor while few).
    double variance = 1e-4;
    if (total >= 2) {
      double mean = sum / static_cast<double>(total);
      variance = std::max(variance, (sq - total * mean * mean) / (total - 1));
    }
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    for (size_t a = 0; a < arms_.size(); ++a) {
      double n = t.weight[a];
      parts[a] = {t.sum[a] / (n + 1), options_.exploration *
                                          std::sqrt(variance / (n + 1)) *
                                          normal(rng)};
    }
    label = "thompson (posterior mean+draw): ";
  }
  BanditChoice choice;
  std::string terms;
  double best = -std::numeric_limits<double>::infinity();
  for (size_t a = 0; a < arms_.size(); ++a) {
    terms += llvm::formatv("{0}{1} {2:f2}+{3:f2}", a ? ", " : "", arms_[a],
                           parts[a].first, parts[a].second)
                 .str();
    if (parts[a].first + parts[a].second > best) {
      best = parts[a].first + parts[a].second;
      choice.arm = a;
    }
  }
  choice.reason = label + terms + " -> " + arms_[choice.arm];
  return choice;
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
  llvm::json::Array order;
  for (size_t a : order_)
    order.push_back(static_cast<int64_t>(a));
  return llvm::json::Object{{"policy", toString(policy_)},
                            {"arms", std::move(arms)},
                            {"order", std::move(order)}};
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
  // The order of the updates (a state without it, from before discounting:
  // arm by arm).
  std::vector<size_t> order;
  if (const llvm::json::Array *ord = o->getArray("order")) {
    std::vector<size_t> count(arms_.size());
    for (const llvm::json::Value &x : *ord) {
      std::optional<int64_t> a = x.getAsInteger();
      if (!a || *a < 0 || static_cast<size_t>(*a) >= arms_.size())
        return fail("an update names no arm");
      order.push_back(static_cast<size_t>(*a));
      ++count[static_cast<size_t>(*a)];
    }
    for (size_t a = 0; a < arms_.size(); ++a)
      if (count[a] != rewards[a].size())
        return fail("the order of the updates does not match the rewards");
  } else {
    for (size_t a = 0; a < arms_.size(); ++a)
      order.insert(order.end(), rewards[a].size(), a);
  }
  rewards_ = std::move(rewards);
  order_ = std::move(order);
  return llvm::Error::success();
}
