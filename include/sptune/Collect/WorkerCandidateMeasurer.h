//===- WorkerCandidateMeasurer.h - Tuning in workers ------------*- C++ -*-===//
//
// Part of sptune. The CandidateMeasurer the tools give sptune-autotune: each
// candidate is measured by a `sptune-measure --worker` child process with a
// timeout, so a schedule that crashes or hangs costs its measurement, not
// the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COLLECT_WORKERCANDIDATEMEASURER_H
#define SPTUNE_COLLECT_WORKERCANDIDATEMEASURER_H

#include "sptune/Collect/WorkerPool.h"
#include "sptune/Tune/CandidateMeasurer.h"

namespace sptune {

class WorkerCandidateMeasurer : public CandidateMeasurer {
public:
  explicit WorkerCandidateMeasurer(WorkerOptions options = {})
      : options(std::move(options)) {}
  std::vector<Measurement> measure(const std::string &matrixSource,
                                   const KernelSpec &kernel,
                                   const std::vector<Schedule> &schedules,
                                   const MeasureOptions &measure) override;

private:
  WorkerOptions options;
};

/// Makes worker measurements the process's default candidate measurer
/// (`options.executable` empty: sptune-measure next to the program).
void registerWorkerCandidateMeasurer(WorkerOptions options = {});

} // namespace sptune

#endif // SPTUNE_COLLECT_WORKERCANDIDATEMEASURER_H
