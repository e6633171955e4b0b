//===- StrategyPortfolio.cpp - Every strategy, each its share of a round --===//

#include "sptune/Learn/StrategyPortfolio.h"
#include "sptune/Learn/LearningPool.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

using namespace sptune;

const char *sptune::toString(PortfolioReward r) {
  switch (r) {
  case PortfolioReward::Found:
    return "found";
  case PortfolioReward::Learned:
    return "learned";
  case PortfolioReward::Lookahead:
    return "lookahead";
  }
  return "found";
}

std::optional<PortfolioReward>
sptune::parsePortfolioReward(llvm::StringRef name) {
  if (name == "found")
    return PortfolioReward::Found;
  if (name == "learned")
    return PortfolioReward::Learned;
  if (name == "lookahead")
    return PortfolioReward::Lookahead;
  return std::nullopt;
}

StrategyPortfolio::StrategyPortfolio(std::vector<std::string> arms,
                                     PortfolioOptions options)
    : arms_(std::move(arms)), options_(options), scores_(arms_.size()) {}

std::string StrategyPortfolio::whyInvalid(const PortfolioOptions &o,
                                          size_t arms) {
  if (!arms)
    return "the portfolio needs at least one arm";
  if (!(o.rate >= 0 && std::isfinite(o.rate)))
    return "the portfolio's rate must be finite and >= 0";
  if (!(o.minShare >= 0 && o.minShare * static_cast<double>(arms) < 1))
    return llvm::formatv("the portfolio's smallest share must be >= 0 and "
                         "below 1 / arms ({0:f3} for {1} arms)",
                         1.0 / static_cast<double>(arms), arms)
        .str();
  if (!(o.discount > 0 && o.discount <= 1))
    return "the portfolio's discount must be in (0, 1]";
  return "";
}

void StrategyPortfolio::rescore() {
  std::fill(scores_.begin(), scores_.end(), 0.0);
  for (const std::vector<std::optional<double>> &round : history_) {
    double scale = 0;
    for (const std::optional<double> &r : round)
      if (r)
        scale = std::max(scale, std::fabs(*r));
    for (size_t a = 0; a < arms_.size(); ++a) {
      scores_[a] *= options_.discount;
      if (round[a] && scale > 0)
        scores_[a] += *round[a] / scale;
    }
  }
}

std::vector<double> StrategyPortfolio::shares() const {
  size_t k = arms_.size();
  double top = *std::max_element(scores_.begin(), scores_.end());
  std::vector<double> w(k);
  double sum = 0;
  for (size_t a = 0; a < k; ++a)
    sum += w[a] = std::exp(options_.rate * (scores_[a] - top));
  double free = 1 - options_.minShare * static_cast<double>(k);
  for (double &x : w)
    x = options_.minShare + free * x / sum;
  return w;
}

MergedRanking
StrategyPortfolio::merge(const std::vector<std::vector<size_t>> &rankings,
                         const std::vector<double> &shares) {
  MergedRanking out;
  size_t k = rankings.size();
  std::vector<size_t> at(k);
  std::vector<double> credit(k);
  std::unordered_set<size_t> taken;
  auto advance = [&](size_t a) {
    while (at[a] < rankings[a].size() && taken.count(rankings[a][at[a]]))
      ++at[a];
    return at[a] < rankings[a].size();
  };
  while (true) {
    // Smooth weighted round-robin over the arms that have entries left:
    // each gains its share, the richest plays and pays the round's total.
    double total = 0;
    size_t pick = k;
    for (size_t a = 0; a < k; ++a) {
      if (!advance(a))
        continue;
      double s = a < shares.size() ? std::max(shares[a], 0.0) : 0.0;
      credit[a] += s;
      total += s;
      if (pick == k || credit[a] > credit[pick])
        pick = a;
    }
    if (pick == k)
      break;
    credit[pick] -= total;
    size_t c = rankings[pick][at[pick]++];
    taken.insert(c);
    out.candidates.push_back(c);
    out.arms.push_back(pick);
  }
  return out;
}

void StrategyPortfolio::update(
    const std::vector<std::optional<double>> &rewards) {
  std::vector<std::optional<double>> round(arms_.size());
  for (size_t a = 0; a < arms_.size() && a < rewards.size(); ++a)
    if (rewards[a] && std::isfinite(*rewards[a]))
      round[a] = rewards[a];
  history_.push_back(std::move(round));
  rescore();
}

std::string StrategyPortfolio::describe() const {
  std::vector<double> s = shares();
  std::string text = "hedge shares: ";
  for (size_t a = 0; a < arms_.size(); ++a)
    text += llvm::formatv("{0}{1} {2:f2}", a ? ", " : "", arms_[a], s[a]).str();
  return text;
}

llvm::json::Value StrategyPortfolio::toJson() const {
  llvm::json::Array rounds;
  for (const std::vector<std::optional<double>> &round : history_) {
    llvm::json::Array r;
    for (const std::optional<double> &x : round)
      r.push_back(x ? llvm::json::Value(*x) : llvm::json::Value(nullptr));
    rounds.push_back(std::move(r));
  }
  llvm::json::Array arms;
  for (const std::string &a : arms_)
    arms.push_back(a);
  return llvm::json::Object{{"policy", "hedge"},
                            {"arms", std::move(arms)},
                            {"rounds", std::move(rounds)}};
}

llvm::Error StrategyPortfolio::restore(const llvm::json::Value &state) {
  auto fail = [](const llvm::Twine &m) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "portfolio state: " + m);
  };
  const llvm::json::Object *o = state.getAsObject();
  if (!o)
    return fail("not an object");
  if (o->getString("policy") != std::optional<llvm::StringRef>("hedge"))
    return fail("another policy than 'hedge'");
  const llvm::json::Array *arms = o->getArray("arms");
  if (!arms || arms->size() != arms_.size())
    return fail("other arms");
  for (size_t a = 0; a < arms_.size(); ++a)
    if ((*arms)[a].getAsString() != std::optional<llvm::StringRef>(arms_[a]))
      return fail("other arms");
  const llvm::json::Array *rounds = o->getArray("rounds");
  if (!rounds)
    return fail("no rounds");
  std::vector<std::vector<std::optional<double>>> history;
  for (const llvm::json::Value &r : *rounds) {
    const llvm::json::Array *round = r.getAsArray();
    if (!round || round->size() != arms_.size())
      return fail("a round without one reward (or null) per arm");
    std::vector<std::optional<double>> rewards;
    for (const llvm::json::Value &x : *round) {
      if (x.getAsNull()) {
        rewards.emplace_back();
        continue;
      }
      std::optional<double> v = x.getAsNumber();
      if (!v)
        return fail("a reward is not a number");
      rewards.push_back(*v);
    }
    history.push_back(std::move(rewards));
  }
  history_ = std::move(history);
  rescore();
  return llvm::Error::success();
}

std::vector<double> sptune::bestMeasuredTimes(const LearningPool &pool) {
  std::vector<double> best(pool.problems().size(),
                           std::numeric_limits<double>::infinity());
  for (size_t c : pool.recordOrder()) {
    const MeasuredOutcome &m = *pool.outcome(c);
    double &b = best[pool.candidates()[c].problem];
    if (m.ok && m.time > 0)
      b = std::min(b, m.time);
  }
  return best;
}

std::vector<std::optional<double>>
sptune::improvementRewards(const LearningPool &pool,
                           const std::vector<double> &bestBefore,
                           const std::vector<size_t> &measured,
                           const std::vector<size_t> &armOf, size_t arms) {
  std::vector<double> gain(arms), cost(arms);
  std::vector<bool> informed(arms);
  for (size_t c : measured) {
    if (c >= armOf.size() || armOf[c] >= arms || !pool.outcome(c))
      continue;
    size_t a = armOf[c];
    double best = bestBefore[pool.candidates()[c].problem];
    if (!std::isfinite(best))
      continue;
    const MeasuredOutcome &m = *pool.outcome(c);
    informed[a] = true;
    cost[a] += m.cost;
    if (m.ok && m.time > 0 && m.time < best)
      gain[a] += std::log(best / m.time);
  }
  std::vector<std::optional<double>> rewards(arms);
  for (size_t a = 0; a < arms; ++a)
    if (informed[a])
      rewards[a] = gain[a] / std::max(cost[a], 1e-9);
  return rewards;
}
