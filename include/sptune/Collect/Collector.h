//===- Collector.h - What sptune-collect measures ---------------*- C++ -*-===//
//
// Part of sptune. Turns matrices x kernels into measurement requests: the
// baselines and M schedules sampled from the target's space per matrix, each
// with its dataset key; requests whose key the dataset already holds are
// dropped, which is how an interrupted collection resumes.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COLLECT_COLLECTOR_H
#define SPTUNE_COLLECT_COLLECTOR_H

#include "sptune/Collect/Dataset.h"
#include "sptune/Target/ScheduleSpace.h"

#include <string>
#include <unordered_set>
#include <vector>

namespace sptune {

struct CollectOptions {
  std::vector<std::string> kernels = {"spmm"};
  int64_t free = 64;
  int elementBits = 32;
  std::string target = "cpu";
  size_t samples = 40;
  uint64_t seed = 1;
  std::vector<std::string> baselines = {"mlir-default", "heuristic", "eigen"};
  MeasureOptions measure;
};

struct PlannedRequest {
  RecordKey key;
  MeasureRequest request;
};

/// Expands `inputs` (Matrix Market and FROSTT files, directories of them,
/// `gen:` and `gen3:` specs) into matrix and tensor sources, appended to
/// `sources`, sorted and deduplicated.
/// Fails on the first missing or unlistable input. (Tools take lists as LLVM
/// response files: `@file` with one input per line.)
llvm::Error expandMatrixSources(const std::vector<std::string> &inputs,
                                std::vector<std::string> &sources);

/// One request with its dataset key: a `schedule` in `role`, or a
/// `baseline` (then role is "baseline:<name>").
PlannedRequest makeRequest(const std::string &source,
                           const std::string &matrixId,
                           const std::string &kernel, const std::string &role,
                           const std::string &schedule,
                           const std::string &baseline,
                           const CollectOptions &options);

/// The requests for one matrix (already loaded: its id and shape).
std::vector<PlannedRequest> planMatrix(const std::string &source,
                                       const std::string &matrixId,
                                       int64_t rows, int64_t cols, int64_t nnz,
                                       const ScheduleSpace &space,
                                       const CollectOptions &options);

} // namespace sptune

#endif // SPTUNE_COLLECT_COLLECTOR_H
