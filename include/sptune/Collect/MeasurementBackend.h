//===- MeasurementBackend.h - Where measurements run ------------*- C++ -*-===//
//
// Part of sptune. measureIntoDataset (sptune-collect) and the LiveOracle
// (sptune-learn) hand a batch of pending measurements to a backend and get
// dataset records back, without knowing where they ran:
//   - LocalBackend: today's worker pool on this machine;
//   - SlurmBackend: job arrays on a Slurm cluster (docs/cluster.md).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COLLECT_MEASUREMENTBACKEND_H
#define SPTUNE_COLLECT_MEASUREMENTBACKEND_H

#include "sptune/Collect/Collection.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <functional>
#include <string>

namespace sptune {

/// One dataset record (a JSONL line of docs/dataset.md) a backend produced.
struct MeasuredRecord {
  std::string key;    ///< RecordKey::str() of the record
  std::string status; ///< "ok", "timeout", ...
  std::string line;   ///< the record, without newline
};

/// Receives records; returns false to stop the batch (e.g. a write failed).
using RecordSink = std::function<bool(const MeasuredRecord &)>;

class MeasurementBackend {
public:
  virtual ~MeasurementBackend();
  virtual std::string name() const = 0;
  /// Measures `pending` and hands each record to `sink` (serialized). A
  /// backend may hand records of keys outside `pending` (e.g. of an earlier
  /// batch it re-attached): the caller filters. When `stop` becomes true the
  /// backend returns soon, keeping what it can for a later run.
  virtual llvm::Error measure(const PendingRequests &pending,
                              const RecordSink &sink,
                              const std::atomic<bool> *stop) = 0;
};

/// Parses the key and status of a record line; false when it is not one.
bool parseRecordLine(const std::string &line, MeasuredRecord &out);

} // namespace sptune

#endif // SPTUNE_COLLECT_MEASUREMENTBACKEND_H
