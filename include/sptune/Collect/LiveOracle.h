//===- LiveOracle.h - Active learning measuring for real --------*- C++ -*-===//
//
// Part of sptune. The live oracle of the active-learning driver: candidates
// are measured through the run's MeasurementBackend (the collector's local
// worker processes, crash and timeout isolated, or Slurm job arrays:
// CollectionRunOptions::backend) and appended to a JSONL dataset (docs/dataset.md) as
// `sptune-collect` would; a candidate whose record is already in the dataset
// is read back instead of measured again, which is how a killed
// `sptune-learn` resumes without measuring anything twice.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COLLECT_LIVEORACLE_H
#define SPTUNE_COLLECT_LIVEORACLE_H

#include "sptune/Collect/Collection.h"
#include "sptune/Learn/MeasurementOracle.h"

#include <set>
#include <string>
#include <vector>

namespace sptune {

struct LivePoolOptions {
  /// Kernels, free size, target, the schedules sampled per problem
  /// (`samples`), the sampling seed and the measurement options.
  CollectOptions collect;
  int64_t minNnz = 0;
  int64_t maxNnz = std::numeric_limits<int64_t>::max();
  /// Matrices left out of the pool (the validation matrices).
  std::set<std::string> excludeMatrixIds;
};

class LiveOracle : public MeasurementOracle {
public:
  explicit LiveOracle(CollectionRunOptions run) : run(std::move(run)) {}
  std::string name() const override { return "live"; }
  llvm::Expected<std::vector<std::optional<MeasuredOutcome>>>
  measure(const LearningPool &pool, const std::vector<size_t> &candidates,
          const std::function<void(const OracleProgress &)> &onProgress,
          const std::atomic<bool> *stop) override;

  /// Fills `pool` (empty) with the problems of `sources` x kernels and, per
  /// problem, the target's reference and heuristic schedules and
  /// `collect.samples` schedules sampled from its space (the collector's
  /// sampling: the same seed samples the same schedules). Unloadable
  /// matrices become warnings.
  llvm::Error buildPool(const std::vector<std::string> &sources,
                        const LivePoolOptions &options, LearningPool &pool,
                        std::vector<std::string> &warnings);

private:
  CollectionRunOptions run;
  /// The request of each pool candidate, by candidate index.
  std::vector<PlannedRequest> planned;
};

} // namespace sptune

#endif // SPTUNE_COLLECT_LIVEORACLE_H
