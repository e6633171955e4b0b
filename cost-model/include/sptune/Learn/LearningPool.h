//===- LearningPool.h - What active learning can measure --------*- C++ -*-===//
//
// Part of sptune. The pool of the active-learning driver (`sptune-learn`):
// problems (matrix, kernel, free size, target) and, per problem, candidate
// schedules that could be measured. The pool also holds what has been
// measured so far (time and cost of each outcome) and turns it into the
// training groups of the cost model.
//
// Selection strategies read the pool but never a candidate's time or cost
// before it is measured: they plan with `estimatedCost`, which only looks at
// what was already paid for.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_LEARN_LEARNINGPOOL_H
#define SPTUNE_LEARN_LEARNINGPOOL_H

#include "sptune/CostModel/Dataset.h"
#include "sptune/CostModel/MatrixFeatures.h"
#include "sptune/Schedule/Schedule.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sptune {

/// A problem of the pool: what one group of measurements is about.
struct PoolProblem {
  MatrixRef matrix;
  KernelType kernel = kDefaultKernelType;
  int64_t free = 0;
  TargetKind target = TargetKind::CPU;
  /// The kernel's element width (SampleGroup::elementBits): part of the
  /// key, so that a learner's state of f32 measurements never resumes as
  /// f64 ones.
  int elementBits = 32;
  /// Same as `SampleGroup::key()`.
  std::string key() const;
};

/// A schedule of a problem that could be measured.
struct PoolCandidate {
  size_t problem = 0;
  Schedule schedule; ///< canonical
  /// Which baseline schedule it is, if any: the MLIR default or the
  /// heuristic (what speedups are relative to, see SampleGroup).
  bool isMlirDefault = false, isHeuristic = false;
};

/// What measuring a candidate gave.
struct MeasuredOutcome {
  /// False when the measurement failed (compile error, crash, timeout):
  /// the cost is paid, the candidate is not measured again, no time.
  bool ok = false;
  double time = 0; ///< median seconds (ok only)
  double cost = 0; ///< seconds the measurement took
};

class LearningPool {
public:
  size_t addProblem(PoolProblem problem);
  /// Adds a candidate (its schedule is canonicalized); a schedule already
  /// in the problem is not added twice (returns the existing index).
  size_t addCandidate(size_t problem, const Schedule &schedule);
  /// Marks a candidate as the MLIR default or the heuristic baseline.
  void markBaseline(size_t candidate, bool mlirDefault, bool heuristic);

  const std::vector<PoolProblem> &problems() const { return problems_; }
  const std::vector<PoolCandidate> &candidates() const { return candidates_; }
  const std::vector<size_t> &candidatesOf(size_t problem) const {
    return byProblem_[problem];
  }
  /// Distinct matrix ids, in problem order.
  std::vector<std::string> matrixIds() const;

  bool isMeasured(size_t candidate) const {
    return outcomes_[candidate].has_value();
  }
  const std::optional<MeasuredOutcome> &outcome(size_t candidate) const {
    return outcomes_[candidate];
  }
  void record(size_t candidate, const MeasuredOutcome &outcome);
  /// The measured candidates in the order they were first recorded. A
  /// checkpoint saves them in this order so that a resumed run sums their
  /// costs in the same order and gets the same `spent()` to the last bit.
  const std::vector<size_t> &recordOrder() const { return recordOrder_; }
  /// Candidates not measured yet, in index order.
  std::vector<size_t> unmeasured() const;
  size_t measuredCount() const { return measured_; }
  /// Seconds paid for every measurement so far.
  double spent() const { return spent_; }

  /// What measuring `candidate` is expected to cost, from what was paid:
  /// the mean cost of the measured candidates of its problem, else of its
  /// matrix, else of the whole pool, else `prior`.
  double estimatedCost(size_t candidate, double prior = 1.0) const;

  /// The measured candidates as training groups (successful ones only);
  /// problems with nothing measured are left out. `excluded` (indexed by
  /// candidate; shorter is fine) leaves candidates out as if unmeasured:
  /// their samples, and the default's or heuristic's time they would give.
  std::vector<SampleGroup>
  measuredGroups(const std::vector<bool> &excluded = {}) const;

private:
  std::vector<PoolProblem> problems_;
  std::vector<PoolCandidate> candidates_;
  std::vector<std::vector<size_t>> byProblem_;
  std::vector<std::optional<MeasuredOutcome>> outcomes_;
  std::vector<size_t> recordOrder_;
  size_t measured_ = 0;
  double spent_ = 0;
};

/// Loads and featurizes every matrix of `matrices` (id -> source) once.
/// Matrices that cannot be loaded are left out and named in `unloadable`;
/// `onMatrix` is called before each (1-based index, count, id). Stops early
/// (returning what it has) when `stop` is set.
std::map<std::string, MatrixFeatures>
featurizeMatrices(const std::map<std::string, std::string> &matrices,
                  std::vector<std::string> &unloadable,
                  const std::function<void(size_t, size_t, const std::string &)>
                      &onMatrix = nullptr,
                  const std::atomic<bool> *stop = nullptr);

} // namespace sptune

#endif // SPTUNE_LEARN_LEARNINGPOOL_H
