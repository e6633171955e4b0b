//===- Metrics.h - How well a ranking matches measurements ------*- C++ -*-===//
//
// Part of sptune. Metrics of a cost model on held-out matrices: Kendall's tau
// and ordered pair accuracy (does it order schedules right), APE (does it
// predict runtimes, when it regresses them), and top-k speedup: the best
// measured runtime among the model's k best-ranked schedules divided into
// the MLIR default's runtime, next to the oracle (the best in the sample).
// Scores follow the cost model's convention: higher is better (faster).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_METRICS_H
#define SPTUNE_COSTMODEL_METRICS_H

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace sptune {

/// Kendall's tau-b of two equally long sequences (ties in either count as
/// neither concordant nor discordant); 0 when undefined (fewer than two
/// elements, or one sequence constant).
double kendallTau(const std::vector<double> &x, const std::vector<double> &y);

/// Kendall's tau between scores (higher = faster) and measured times: 1 when
/// the scores order the schedules exactly as the measurements do.
double rankingTau(const std::vector<double> &scores,
                  const std::vector<double> &times);

/// Among pairs whose times differ by more than `relativeTolerance` (relative
/// to the faster one), the fraction the scores order correctly (a tie in the
/// scores counts half); nullopt when there is no such pair.
std::optional<double> orderedPairAccuracy(const std::vector<double> &scores,
                                          const std::vector<double> &times,
                                          double relativeTolerance = 0);

/// Indices by decreasing score; equal scores keep index order.
std::vector<size_t> orderByScore(const std::vector<double> &scores);

/// `referenceTime` divided by the best time among the `k` best-scored
/// schedules.
double topKSpeedup(const std::vector<double> &scores,
                   const std::vector<double> &times, double referenceTime,
                   size_t k);

/// One group's metrics.
struct GroupEvaluation {
  std::string key;
  size_t samples = 0;
  double tau = 0;
  std::optional<double> pairAccuracy;
  /// Absolute percentage errors of predicted runtimes (calibrated models).
  std::vector<double> ape;
  /// Speedups over the MLIR default (groups where it was measured).
  std::optional<double> top1, top5, oracle;
  /// The group's median runtime (over all its measured schedules) divided
  /// by the runtime of the model's top-1 pick, and by the best runtime:
  /// the model's value where the default is strong.
  std::optional<double> top1OverMedian, oracleOverMedian;
  /// What the metrics were computed from, in the group's sample order: the
  /// model's scores (higher: predicted faster) and the measured times, and
  /// the default's time when measured. Not in toJson(); toScoresJsonl()
  /// writes them, so that scores of several models can be combined offline.
  std::vector<double> scores, times;
  std::optional<double> defaultTime;
  /// The printed schedules, in the same order (set by the model evaluation;
  /// empty when the caller had none).
  std::vector<std::string> schedules;
};

/// Evaluates scores against measured times. `defaultTime` enables the
/// speedups; `referenceTime` (the time scores are log-relative to:
/// predicted time = referenceTime * exp(-score)) enables APE.
GroupEvaluation evaluateGroup(std::string key,
                              const std::vector<double> &scores,
                              const std::vector<double> &times,
                              std::optional<double> defaultTime,
                              std::optional<double> referenceTime);

/// Metrics over many groups.
struct EvaluationReport {
  size_t groups = 0, samples = 0, groupsWithDefault = 0;
  /// Means over groups.
  double tau = 0;
  std::optional<double> pairAccuracy;
  /// Mean and median APE over samples.
  std::optional<double> mape, medianApe;
  /// Geometric means over groups with a measured MLIR default.
  std::optional<double> top1, top5, oracle;
  /// Geometric means over all groups: median runtime / top-1 pick's, and
  /// median / best.
  std::optional<double> top1OverMedian, oracleOverMedian;
  std::vector<GroupEvaluation> perGroup;

  /// A JSON object with the aggregate and per-group metrics.
  std::string toJson() const;
  /// One JSON line per group: key, default_time, times, scores and, where
  /// known, schedules.
  std::string toScoresJsonl() const;
  /// A few human-readable lines.
  std::string summary() const;
};

EvaluationReport summarize(std::vector<GroupEvaluation> groups);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_METRICS_H
