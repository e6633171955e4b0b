//===- Metrics.cpp - How well a ranking matches measurements --------------===//

#include "sptune/CostModel/Metrics.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

using namespace sptune;

double sptune::kendallTau(const std::vector<double> &x,
                          const std::vector<double> &y) {
  size_t n = std::min(x.size(), y.size());
  double concordant = 0, discordant = 0, tiesX = 0, tiesY = 0;
  for (size_t a = 0; a < n; ++a)
    for (size_t b = a + 1; b < n; ++b) {
      double dx = x[a] - x[b], dy = y[a] - y[b];
      if (dx == 0 && dy == 0)
        continue;
      if (dx == 0)
        tiesX += 1;
      else if (dy == 0)
        tiesY += 1;
      else if ((dx > 0) == (dy > 0))
        concordant += 1;
      else
        discordant += 1;
    }
  double denom = std::sqrt((concordant + discordant + tiesX) *
                           (concordant + discordant + tiesY));
  return denom > 0 ? (concordant - discordant) / denom : 0.0;
}

double sptune::rankingTau(const std::vector<double> &scores,
                          const std::vector<double> &times) {
  std::vector<double> speed(times.size());
  for (size_t n = 0; n < times.size(); ++n)
    speed[n] = -times[n];
  return kendallTau(scores, speed);
}

std::optional<double>
sptune::orderedPairAccuracy(const std::vector<double> &scores,
                            const std::vector<double> &times,
                            double relativeTolerance) {
  size_t n = std::min(scores.size(), times.size());
  double right = 0, pairs = 0;
  for (size_t a = 0; a < n; ++a)
    for (size_t b = a + 1; b < n; ++b) {
      double fast = std::min(times[a], times[b]);
      if (std::abs(times[a] - times[b]) <= relativeTolerance * fast ||
          times[a] == times[b])
        continue;
      pairs += 1;
      double ds = scores[a] - scores[b];
      if (ds == 0)
        right += 0.5;
      else if ((ds > 0) == (times[a] < times[b]))
        right += 1;
    }
  if (pairs == 0)
    return std::nullopt;
  return right / pairs;
}

std::vector<size_t> sptune::orderByScore(const std::vector<double> &scores) {
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  return order;
}

double sptune::topKSpeedup(const std::vector<double> &scores,
                           const std::vector<double> &times,
                           double referenceTime, size_t k) {
  std::vector<size_t> order = orderByScore(scores);
  double best = INFINITY;
  for (size_t n = 0; n < order.size() && n < k; ++n)
    best = std::min(best, times[order[n]]);
  return best > 0 && std::isfinite(best) ? referenceTime / best : 0.0;
}

GroupEvaluation sptune::evaluateGroup(std::string key,
                                      const std::vector<double> &scores,
                                      const std::vector<double> &times,
                                      std::optional<double> defaultTime,
                                      std::optional<double> referenceTime) {
  GroupEvaluation g;
  g.key = std::move(key);
  g.samples = times.size();
  g.tau = rankingTau(scores, times);
  g.pairAccuracy = orderedPairAccuracy(scores, times);
  g.scores = scores;
  g.times = times;
  g.defaultTime = defaultTime;
  if (referenceTime)
    for (size_t n = 0; n < times.size(); ++n) {
      double predicted = *referenceTime * std::exp(-scores[n]);
      g.ape.push_back(std::abs(predicted - times[n]) / times[n]);
    }
  if (defaultTime && !times.empty()) {
    g.top1 = topKSpeedup(scores, times, *defaultTime, 1);
    g.top5 = topKSpeedup(scores, times, *defaultTime, 5);
    g.oracle = *defaultTime / *std::min_element(times.begin(), times.end());
  }
  if (!times.empty()) {
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    size_t n = sorted.size();
    double median = n % 2 ? sorted[n / 2]
                          : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    g.top1OverMedian = topKSpeedup(scores, times, median, 1);
    g.oracleOverMedian = median / sorted.front();
  }
  return g;
}

static std::optional<double> geomean(const std::vector<double> &v) {
  if (v.empty())
    return std::nullopt;
  double s = 0;
  for (double x : v)
    s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

EvaluationReport sptune::summarize(std::vector<GroupEvaluation> groups) {
  EvaluationReport r;
  r.groups = groups.size();
  std::vector<double> apes, top1, top5, oracle, overMedian, oracleOverMedian;
  double pairSum = 0;
  size_t pairGroups = 0;
  for (const GroupEvaluation &g : groups) {
    r.samples += g.samples;
    r.tau += g.tau;
    if (g.pairAccuracy) {
      pairSum += *g.pairAccuracy;
      ++pairGroups;
    }
    apes.insert(apes.end(), g.ape.begin(), g.ape.end());
    if (g.top1 && *g.top1 > 0 && *g.top5 > 0 && *g.oracle > 0) {
      top1.push_back(*g.top1);
      top5.push_back(*g.top5);
      oracle.push_back(*g.oracle);
    }
    if (g.top1OverMedian && *g.top1OverMedian > 0 && *g.oracleOverMedian > 0) {
      overMedian.push_back(*g.top1OverMedian);
      oracleOverMedian.push_back(*g.oracleOverMedian);
    }
  }
  if (r.groups)
    r.tau /= static_cast<double>(r.groups);
  if (pairGroups)
    r.pairAccuracy = pairSum / static_cast<double>(pairGroups);
  if (!apes.empty()) {
    r.mape = std::accumulate(apes.begin(), apes.end(), 0.0) /
             static_cast<double>(apes.size());
    std::nth_element(apes.begin(), apes.begin() + apes.size() / 2, apes.end());
    r.medianApe = apes[apes.size() / 2];
  }
  r.groupsWithDefault = top1.size();
  r.top1 = geomean(top1);
  r.top5 = geomean(top5);
  r.oracle = geomean(oracle);
  r.top1OverMedian = geomean(overMedian);
  r.oracleOverMedian = geomean(oracleOverMedian);
  r.perGroup = std::move(groups);
  return r;
}

static llvm::json::Value opt(std::optional<double> v) {
  return v ? llvm::json::Value(*v) : llvm::json::Value(nullptr);
}

std::string EvaluationReport::toJson() const {
  llvm::json::Array per;
  for (const GroupEvaluation &g : perGroup) {
    std::optional<double> mape;
    if (!g.ape.empty())
      mape = std::accumulate(g.ape.begin(), g.ape.end(), 0.0) /
             static_cast<double>(g.ape.size());
    per.push_back(
        llvm::json::Object{{"key", g.key},
                           {"samples", static_cast<int64_t>(g.samples)},
                           {"kendall_tau", g.tau},
                           {"pair_accuracy", opt(g.pairAccuracy)},
                           {"mape", opt(mape)},
                           {"top1_speedup", opt(g.top1)},
                           {"top5_speedup", opt(g.top5)},
                           {"oracle_speedup", opt(g.oracle)},
                           {"top1_over_median", opt(g.top1OverMedian)},
                           {"oracle_over_median", opt(g.oracleOverMedian)}});
  }
  llvm::json::Object o{
      {"groups", static_cast<int64_t>(groups)},
      {"samples", static_cast<int64_t>(samples)},
      {"groups_with_default", static_cast<int64_t>(groupsWithDefault)},
      {"kendall_tau", tau},
      {"pair_accuracy", opt(pairAccuracy)},
      {"mape", opt(mape)},
      {"median_ape", opt(medianApe)},
      {"top1_speedup", opt(top1)},
      {"top5_speedup", opt(top5)},
      {"oracle_speedup", opt(oracle)},
      {"top1_over_median", opt(top1OverMedian)},
      {"oracle_over_median", opt(oracleOverMedian)},
      {"per_group", std::move(per)}};
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o)));
  return out;
}

std::string EvaluationReport::summary() const {
  char buf[768];
  auto fmt = [](std::optional<double> v, const char *spec) {
    char b[32];
    if (!v)
      return std::string("n/a");
    std::snprintf(b, sizeof(b), spec, *v);
    return std::string(b);
  };
  std::snprintf(
      buf, sizeof(buf),
      "%zu groups, %zu samples: Kendall tau %.3f, pair accuracy %s, MAPE %s "
      "(median %s)\nspeedup over the default schedule (geomean of %zu groups): top-1 "
      "%s, top-5 %s, oracle %s\nspeedup over the group's median schedule "
      "(geomean of %zu groups): top-1 %s, oracle %s",
      groups, samples, tau, fmt(pairAccuracy, "%.3f").c_str(),
      fmt(mape ? std::optional<double>(*mape * 100) : std::nullopt, "%.1f%%")
          .c_str(),
      fmt(medianApe ? std::optional<double>(*medianApe * 100) : std::nullopt,
          "%.1f%%")
          .c_str(),
      groupsWithDefault, fmt(top1, "%.3fx").c_str(), fmt(top5, "%.3fx").c_str(),
      fmt(oracle, "%.3fx").c_str(), groups, fmt(top1OverMedian, "%.3fx").c_str(),
      fmt(oracleOverMedian, "%.3fx").c_str());
  return buf;
}

std::string EvaluationReport::toScoresJsonl() const {
  std::string out;
  llvm::raw_string_ostream os(out);
  for (const GroupEvaluation &g : perGroup) {
    llvm::json::Array scores, times, schedules;
    for (double v : g.scores)
      scores.push_back(v);
    for (double v : g.times)
      times.push_back(v);
    for (const std::string &s : g.schedules)
      schedules.push_back(s);
    llvm::json::Object line{{"key", g.key},
                            {"default_time", opt(g.defaultTime)},
                            {"times", std::move(times)},
                            {"scores", std::move(scores)}};
    if (!g.schedules.empty())
      line["schedules"] = std::move(schedules);
    os << llvm::json::Value(std::move(line)) << "\n";
  }
  return out;
}
