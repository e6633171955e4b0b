//===- CandidateMeasurer.h - How the tuner measures candidates --*- C++ -*-===//
//
// Part of sptune. The tuner's view of measuring (TVM MetaSchedule's Runner):
// run these schedules of one kernel on one matrix and report each one's
// time. The implementation that runs them in crash- and timeout-isolated
// worker processes lives on the measurement side
// (sptune/Collect/WorkerCandidateMeasurer.h); the pass library only knows
// this interface, so linking the passes pulls in no measurement stack.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TUNE_CANDIDATEMEASURER_H
#define SPTUNE_TUNE_CANDIDATEMEASURER_H

#include "sptune/Target/Measurer.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sptune {

class CandidateMeasurer {
public:
  virtual ~CandidateMeasurer();
  /// One measurement per schedule, in order. `matrixSource` is what
  /// loadMatrix accepts (a .mtx path or a generator spec); `kernel` the
  /// kernel as the tuned op computes it: its shape, free dense loop's size,
  /// element type and (SDDMM) whether it reads B through a transposition.
  /// Never fails as a whole: failures are statuses.
  virtual std::vector<Measurement>
  measure(const std::string &matrixSource, const KernelSpec &kernel,
          const std::vector<Schedule> &schedules,
          const MeasureOptions &options) = 0;
};

using CandidateMeasurerFactory =
    std::function<std::unique_ptr<CandidateMeasurer>()>;

/// Sets the process's default candidate measurer, used by sptune-autotune
/// when asked to measure. Tools that can measure set it at start-up
/// (registerWorkerCandidateMeasurer()).
void setDefaultCandidateMeasurer(CandidateMeasurerFactory factory);

/// A new default candidate measurer, or null when none was set.
std::unique_ptr<CandidateMeasurer> createDefaultCandidateMeasurer();

} // namespace sptune

#endif // SPTUNE_TUNE_CANDIDATEMEASURER_H
