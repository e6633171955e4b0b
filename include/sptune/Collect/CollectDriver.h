//===- CollectDriver.h - sptune-collect as a call ---------------*- C++ -*-===//
//
// Part of sptune. `sptune-collect` parses its command line into
// `CollectDriverOptions` and calls one of:
//
//   runCollectDriver      plan the measurements of the matrices, skip those
//                         already in the dataset, measure the rest in worker
//                         processes (or a Slurm backend) into the dataset;
//                         or print the schedule space's size per matrix;
//   runCollectRequests    a Slurm array task: measure one share of a
//                         request file;
//   runCollectMerge       join datasets, one record per key.
//
// Each prints its progress and errors to stderr prefixed "sptune-collect"
// and returns the exit status.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COLLECT_COLLECTDRIVER_H
#define SPTUNE_COLLECT_COLLECTDRIVER_H

#include "sptune/Collect/Collection.h"
#include "sptune/Collect/MeasurementBackend.h"
#include "sptune/Collect/WorkerPool.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sptune {

/// An sptune-collect run, as its command line gives it.
struct CollectDriverOptions {
  /// What to plan: kernels, free size, target, samples, seed, baselines,
  /// nnz range, order, the model's and the neighbours' picks. Its
  /// `collect.measure` is filled from the fields below; `model` from
  /// `modelPath`.
  CollectionPlanOptions plan;
  /// Matrices: .mtx files, directories, gen: specs, @file lists.
  std::vector<std::string> matrixInputs;
  /// The dataset (JSONL, appended).
  std::string out;
  unsigned workers = 1;
  double timeout = 120, minSeconds = 0.2;
  int minReps = 5;
  /// Measure sampled schedules only (no baseline).
  bool noBaselines = false;
  /// Baselines the user named (checked against the target's).
  std::vector<std::string> namedBaselines;
  /// On resume, do not measure again what failed.
  bool noRetry = false;
  bool fsyncEach = false;
  /// Print the size of the legal schedule space per matrix and kernel.
  bool spaceSize = false;
  /// A development-mode model whose best candidates are also measured.
  std::string modelPath;
  /// "I/N": measure share I of N of the plan.
  std::string shard;
  std::string workerExe;
  /// Makes the measurement backend (null = local workers):
  /// `BackendCommandLine::create`.
  std::function<llvm::Expected<std::shared_ptr<MeasurementBackend>>(
      const WorkerOptions &, const std::string &)>
      makeBackend;
  /// Called once the plan is made, just before measuring (sptune-collect
  /// installs its SIGINT / SIGTERM handlers there).
  std::function<void()> beforeMeasuring;
};

/// Collects; 0 on success, 1 when nothing could be loaded or measured or
/// the run failed, 2 for bad options, 130 when `stop` was raised (what was
/// measured is in the dataset; run again to resume).
int runCollectDriver(CollectDriverOptions options,
                     const std::atomic<bool> &stop);

/// Measures share `task` ("I/T") of the request file `requests` into `out`.
int runCollectRequests(const std::string &requests, const std::string &task,
                       const std::string &out, const WorkerOptions &worker,
                       const std::atomic<bool> &stop);

/// Merges `inputs` into `output` (which may be one of them); prints the
/// summary.
int runCollectMerge(const std::vector<std::string> &inputs,
                    const std::string &output);

} // namespace sptune

#endif // SPTUNE_COLLECT_COLLECTDRIVER_H
