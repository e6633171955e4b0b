//===- SlurmBackend.h - Measurements as Slurm job arrays --------*- C++ -*-===//
//
// Part of sptune. A MeasurementBackend for HPC clusters: a batch of pending
// measurements is written to a request file in the state directory and
// submitted with `sbatch --array=0-(T-1)`; array task I runs
// `sptune-collect --run-requests FILE --task I/T --out shard-I.jsonl` on its
// node (local crash/timeout-isolated workers, per-measurement timeouts). The
// driver polls `squeue`, hands finished shards' records to the caller,
// resubmits failed, preempted or vanished tasks up to a retry bound, and
// resumes after being killed: the state directory records the job ids and
// the finished tasks; finished tasks are never resubmitted and jobs still
// queued or running are re-attached. See docs/cluster.md.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COLLECT_SLURMBACKEND_H
#define SPTUNE_COLLECT_SLURMBACKEND_H

#include "sptune/Collect/MeasurementBackend.h"
#include "sptune/Collect/WorkerPool.h"

#include <string>
#include <vector>

namespace sptune {

struct SlurmOptions {
  std::string partition, account;
  /// --time of each array task (Slurm's syntax, e.g. "30:00"); empty: the
  /// partition's default.
  std::string time;
  /// Extra sbatch arguments, split on whitespace.
  std::string sbatchArgs;
  /// Resubmissions of a failed task before its measurements are given up
  /// (a later run measures them again).
  unsigned maxRetries = 2;
  /// Request files, job ids, shard outputs and logs; on a shared file
  /// system. Empty: "<dataset>.slurm".
  std::string stateDir;
  /// Array tasks per batch (at most one per pending measurement).
  unsigned tasks = 4;
  /// Seconds between squeue polls (clamped to [0.2, 60]).
  double pollSeconds = 5;
  /// Seconds one sbatch or squeue call may take before it is killed
  /// and the call counts as failed (a hung slurmctld must not hang the
  /// driver).
  unsigned commandTimeoutSeconds = 120;
  /// --exclusive: one task per node, so measurements do not disturb each
  /// other.
  bool exclusive = true;
  /// The sptune-collect the array tasks run; empty: next to this program.
  std::string collectExecutable;
  /// The tasks' worker (sptune-measure, empty: next to sptune-collect) and
  /// per-measurement timeout.
  WorkerOptions worker;
  /// Where sbatch and squeue are looked for; empty: PATH.
  std::string slurmBinDir;
};

class SlurmBackend : public MeasurementBackend {
public:
  explicit SlurmBackend(SlurmOptions options) : options(std::move(options)) {}
  std::string name() const override { return "slurm"; }
  llvm::Error measure(const PendingRequests &pending, const RecordSink &sink,
                      const std::atomic<bool> *stop) override;

private:
  struct Batch;
  llvm::Error drive(Batch &batch, const RecordSink &sink,
                    const std::atomic<bool> *stop, bool &stopped);
  llvm::Error submit(Batch &batch, const std::vector<unsigned> &tasks);
  llvm::Expected<std::string> tool(const std::string &name);
  SlurmOptions options;
};

} // namespace sptune

#endif // SPTUNE_COLLECT_SLURMBACKEND_H
