//===- LocalBackend.h - Measurements in local worker processes --*- C++ -*-===//
//
// Part of sptune. The default MeasurementBackend: a WorkerPool of
// `sptune-measure --worker` children on this machine (crash and timeout
// isolated); records carry this machine's MachineInfo.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COLLECT_LOCALBACKEND_H
#define SPTUNE_COLLECT_LOCALBACKEND_H

#include "sptune/Collect/MeasurementBackend.h"
#include "sptune/Collect/WorkerPool.h"

namespace sptune {

class LocalBackend : public MeasurementBackend {
public:
  LocalBackend(WorkerOptions worker, unsigned workers)
      : worker(std::move(worker)), workers(workers) {}
  std::string name() const override { return "local"; }
  llvm::Error measure(const PendingRequests &pending, const RecordSink &sink,
                      const std::atomic<bool> *stop) override;

private:
  WorkerOptions worker;
  unsigned workers;
};

} // namespace sptune

#endif // SPTUNE_COLLECT_LOCALBACKEND_H
