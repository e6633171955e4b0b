//===- BackendOptions.h - --backend and --slurm-* options -------*- C++ -*-===//
//
// Part of sptune. The command-line options that choose the measurement
// backend, shared by sptune-collect and sptune-learn: a tool defines one
// static BackendCommandLine in its option category and calls create().
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COLLECT_BACKENDOPTIONS_H
#define SPTUNE_COLLECT_BACKENDOPTIONS_H

#include "sptune/Collect/MeasurementBackend.h"
#include "sptune/Collect/WorkerPool.h"

#include "llvm/Support/CommandLine.h"

#include <memory>

namespace sptune {

class BackendCommandLine {
public:
  explicit BackendCommandLine(llvm::cl::OptionCategory &category);
  /// The backend the options name: null for local (the caller's worker pool),
  /// a SlurmBackend for slurm; an error for an unknown name. `worker` is what
  /// the array tasks use; `datasetPath` places the default state directory.
  llvm::Expected<std::shared_ptr<MeasurementBackend>>
  create(const WorkerOptions &worker, const std::string &datasetPath) const;

  llvm::cl::opt<std::string> backend;
  llvm::cl::opt<std::string> partition, account, time, sbatchArgs, stateDir;
  llvm::cl::opt<unsigned> maxRetries, tasks, commandTimeout;
  llvm::cl::opt<double> poll;
  llvm::cl::opt<bool> shared;
};

} // namespace sptune

#endif // SPTUNE_COLLECT_BACKENDOPTIONS_H
