//===- MeasurementOracle.h - Where times come from --------------*- C++ -*-===//
//
// Part of sptune. The active-learning driver asks an oracle for the time of
// the candidates it chose: the live collector (measurements in worker
// processes, appended to a dataset; see sptune/Collect/LiveOracle.h) or a
// replay of an already-measured dataset (`ReplayOracle`), where choosing a
// sample reveals its stored time and charges its recorded measurement cost,
// so that strategies can be compared in minutes.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_LEARN_MEASUREMENTORACLE_H
#define SPTUNE_LEARN_MEASUREMENTORACLE_H

#include "sptune/Learn/LearningPool.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace sptune {

/// Progress of one `measure` call.
struct OracleProgress {
  size_t done = 0, total = 0;
  double secondsElapsed = 0;
};

class MeasurementOracle {
public:
  virtual ~MeasurementOracle();
  /// "replay" or "live".
  virtual std::string name() const = 0;
  /// Measures `candidates` of `pool` and returns one outcome per candidate,
  /// in order; an outcome is empty when `stop` was set before it was
  /// measured (a later run measures it). Fails when measuring cannot go on
  /// at all (the dataset cannot be written, a replay has no such sample).
  virtual llvm::Expected<std::vector<std::optional<MeasuredOutcome>>>
  measure(const LearningPool &pool, const std::vector<size_t> &candidates,
          const std::function<void(const OracleProgress &)> &onProgress,
          const std::atomic<bool> *stop) = 0;
};

/// Replays a measured dataset: the pool is every measured schedule of the
/// given groups, and measuring one reveals its stored time and charges its
/// recorded cost (`MeasuredSchedule::cost`).
class ReplayOracle : public MeasurementOracle {
public:
  /// Adds the groups' problems and schedules to `pool` (which must be empty)
  /// and remembers their outcomes.
  ReplayOracle(const std::vector<SampleGroup> &groups, LearningPool &pool);
  std::string name() const override { return "replay"; }
  llvm::Expected<std::vector<std::optional<MeasuredOutcome>>>
  measure(const LearningPool &pool, const std::vector<size_t> &candidates,
          const std::function<void(const OracleProgress &)> &onProgress,
          const std::atomic<bool> *stop) override;
  /// The cost of measuring the whole pool.
  double totalCost() const { return totalCost_; }

private:
  std::vector<MeasuredOutcome> truth_; ///< by candidate index
  double totalCost_ = 0;
};

} // namespace sptune

#endif // SPTUNE_LEARN_MEASUREMENTORACLE_H
