//===- Collection.h - A whole measurement collection ------------*- C++ -*-===//
//
// Part of sptune. What `sptune-collect` does, as library functions that other
// drivers (the active-learning loop) call too:
//   1. planCollection: matrices x kernels -> the baselines, schedules sampled
//      from the target's space and, optionally, a cost model's favourites;
//   2. pendingRequests: drop what the dataset already holds (resume);
//   3. measureIntoDataset: measure the rest in crash- and timeout-isolated
//      workers and append one record per measurement, stopping cleanly when
//      asked to.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COLLECT_COLLECTION_H
#define SPTUNE_COLLECT_COLLECTION_H

#include "sptune/Collect/Collector.h"
#include "sptune/Collect/WorkerPool.h"
#include "sptune/CostModel/CostModel.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sptune {

class MeasurementBackend;

struct CollectionPlanOptions {
  CollectOptions collect;
  /// Matrices outside [minNnz, maxNnz] stored entries are skipped.
  int64_t minNnz = 0;
  int64_t maxNnz = std::numeric_limits<int64_t>::max();
  /// Smallest matrices first (early coverage), else in source order.
  bool smallestFirst = true;
  /// Active learning: also measure the `modelTopK` best of
  /// `modelCandidates` schedules this model ranks (not owned; null: none).
  const CostModel *model = nullptr;
  size_t modelCandidates = 1000;
  size_t modelTopK = 8;
  /// Also measure the target's heuristic schedule for each matrix and kernel
  /// and its `neighbours - 1` nearest knob settings (nearestKnobNeighbours:
  /// the heuristic's storage and loop order, one knob changed, then two...),
  /// role "neighbour". 0: none.
  size_t neighbours = 0;
};

struct CollectionPlan {
  std::vector<PlannedRequest> requests;
  size_t matrices = 0; ///< matrices planned
  /// Sources none of the kernels is measured on (a tensor without MTTKRP or
  /// a batched SpMM, a matrix with only those).
  size_t unsuited = 0;
  /// Sources that could not be loaded or ranked, with the reason (they are
  /// skipped, not fatal).
  std::vector<std::string> warnings;
};

/// Plans the collection of `sources` (expanded matrix sources). Fails when
/// the target is not registered or the model was not trained for it.
llvm::Expected<CollectionPlan>
planCollection(const std::vector<std::string> &sources,
               const CollectionPlanOptions &options);

/// Keeps the share `index` of `count` of the plan (sptune-collect --shard
/// I/N): the requests whose key's stable 64-bit FNV-1a hash (of
/// RecordKey::str(), content hash included) is `index` modulo `count`. The
/// same plan splits the same way on every run and machine, the shares are
/// disjoint and together they are the whole plan.
void keepShard(CollectionPlan &plan, unsigned index, unsigned count);

/// FNV-1a 64 of `text` (stable across runs, machines and compilers).
uint64_t stableHash(const std::string &text);

/// The planned requests the dataset at `datasetPath` does not hold yet, with
/// their keys; `unreadableLines` counts dataset lines that did not parse.
struct PendingRequests {
  std::vector<MeasureRequest> requests;
  std::vector<RecordKey> keys;
  size_t alreadyDone = 0;
  size_t unreadableLines = 0;
  /// Whether records that crashed, timed out or hit a worker error leave
  /// their key pending (readDatasetKeys' `skipTransient`).
  bool retryTransient = true;
};
/// The planned requests `datasetPath` does not hold yet. With
/// `retryTransient`, requests whose records all crashed, timed out or hit a
/// worker error are measured again (readDatasetKeys).
PendingRequests pendingRequests(const CollectionPlan &plan,
                                const std::string &datasetPath,
                                bool retryTransient = true);

struct CollectionRunOptions {
  std::string datasetPath;
  bool fsyncEach = false;
  WorkerOptions worker;
  unsigned workers = 1;
  /// Where measurements run (null: a LocalBackend with `worker`, `workers`).
  std::shared_ptr<MeasurementBackend> backend;
};

struct CollectionProgress {
  size_t done = 0, total = 0;
  double secondsElapsed = 0;
  /// Measurements per status name ("ok", "timeout", ...).
  std::map<std::string, size_t> statuses;
};

struct CollectionResult {
  CollectionProgress progress;
  /// The run was stopped (`stop` raised) before every measurement came
  /// back; a later run resumes.
  bool interrupted = false;
  /// Measurements that did not come back although nobody stopped the run:
  /// the backend gave up on them (a Slurm task past its retries). Not an
  /// interruption: they were reported as one (exit 130) before.
  size_t missing = 0;
  /// Pending requests the dataset held once its lock was taken: another
  /// collector on the same output finished them after this one read it.
  size_t recordedMeanwhile = 0;
};

/// Measures `pending` through the run's backend and appends a record per
/// measurement to the dataset. `onProgress` is called after each record; when
/// `stop` becomes true the run ends after the measurements in flight (nothing
/// reported is lost; a later run resumes). The dataset is read again once
/// its lock is held, and what it holds by then is not measured again.
/// Fails when the dataset cannot be opened or written.
llvm::Expected<CollectionResult> measureIntoDataset(
    const PendingRequests &pending, const CollectionRunOptions &options,
    const std::function<void(const CollectionProgress &)> &onProgress,
    const std::atomic<bool> *stop = nullptr);

} // namespace sptune

#endif // SPTUNE_COLLECT_COLLECTION_H
