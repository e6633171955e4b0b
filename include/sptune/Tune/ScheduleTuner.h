//===- ScheduleTuner.h - Pick a schedule for a matrix -----------*- C++ -*-===//
//
// Part of sptune. The decision behind `sptune-autotune`, as plain C++: draw
// candidates from the target's schedule space (plus the heuristic and the
// MLIR default), rank them with the cost model, optionally measure the top k
// in measurement workers and keep the fastest. When it measures, it measures
// the heuristic schedule too (unless the model already put it in the top k):
// a measured choice is never slower than sptune's model-free default.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TUNE_SCHEDULETUNER_H
#define SPTUNE_TUNE_SCHEDULETUNER_H

#include "sptune/CostModel/CostModel.h"
#include "sptune/Target/Measurer.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sptune {

struct TuneOptions {
  TargetKind target = TargetKind::CPU;
  /// Candidates drawn from the space (the heuristic and MLIR default are
  /// always added).
  size_t candidates = 1000;
  uint64_t seed = 1;
  /// How many of the best-ranked candidates to report.
  size_t topK = 5;
  /// Measure this many of the best-ranked candidates and keep the fastest
  /// (0 = trust the model).
  size_t measureTopK = 0;
  /// When measuring, also measure the heuristic schedule if it is not among
  /// the measured top k.
  bool measureHeuristic = true;
  /// For measuring: the matrix source the workers load, and their options.
  std::string matrixSource;
  MeasureOptions measure;
  double timeoutSeconds = 120;
  /// The measurement worker (empty: sptune-measure next to this program).
  std::string workerExecutable;
  /// Extra legality for the kernel form being tuned (e.g. the rules of an
  /// in-place SDDMM); empty string = applicable.
  std::function<std::string(const Schedule &)> applicable;
};

struct RankedCandidate {
  Schedule schedule;
  double score = 0;
  /// Measured median seconds (when measured and it ran correctly).
  std::optional<double> seconds;
  std::string measureStatus; ///< "ok", or why the measurement failed
  /// 1-based position in the model's ranking.
  size_t rank = 0;
  /// The heuristic, measured as a guard outside the model's top k.
  bool guard = false;
};

struct TuneResult {
  Schedule chosen;
  /// The best-ranked candidates, best first (topK of them, or all measured),
  /// then the guard when there is one.
  std::vector<RankedCandidate> top;
  size_t numCandidates = 0;
  double rankSeconds = 0;
  bool measured = false;
};

/// Tunes `kernel` on the matrix `m` (rows x cols in canonical roles) with
/// free size `free`. Fails with `error` when the model cannot rank.
std::optional<TuneResult> tuneSchedule(const CostModel &model,
                                       const CsrMatrix &m, KernelType kernel,
                                       int64_t free, const TuneOptions &options,
                                       std::string &error);

} // namespace sptune

#endif // SPTUNE_TUNE_SCHEDULETUNER_H
