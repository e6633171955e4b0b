//===- Dataset.h - The JSONL dataset of measurements ------------*- C++ -*-===//
//
// Part of sptune. Writing records of docs/dataset.md and reading back which
// keys a dataset already holds (how sptune-collect resumes).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COLLECT_DATASET_H
#define SPTUNE_COLLECT_DATASET_H

#include "sptune/Collect/WorkerProtocol.h"

#include <cstdio>
#include <string>
#include <unordered_set>

namespace sptune {

/// What a record is about, before it is measured.
struct RecordKey {
  std::string matrixId;
  std::string kernel;
  int64_t free = 0;
  std::string target;
  /// "sample", "baseline:mlir-default", "baseline:heuristic", ...
  std::string role;
  /// The requested schedule (empty for baselines).
  std::string schedule;
  std::string str() const;
};

/// Machine description stored in every record.
struct MachineInfo {
  std::string host, cpu;
  int cores = 0;
  static MachineInfo current();
};

/// One JSONL line for `response` to `key`.
std::string datasetRecord(const RecordKey &key, const MeasureRequest &request,
                          const MeasureResponse &response,
                          const MachineInfo &machine);

/// The keys of the parseable records of `path` (a missing file is empty).
/// `badLines` counts lines that do not parse (e.g. cut by a kill).
std::unordered_set<std::string> readDatasetKeys(const std::string &path,
                                                size_t *badLines = nullptr);

/// Appends lines to a dataset, flushing (and optionally fsyncing) each one so
/// that an interrupted collector loses nothing it reported.
class DatasetWriter {
public:
  bool open(const std::string &path, bool sync, std::string &error);
  bool append(const std::string &line);
  ~DatasetWriter();

private:
  FILE *file = nullptr;
  bool sync = false;
};

} // namespace sptune

#endif // SPTUNE_COLLECT_DATASET_H
