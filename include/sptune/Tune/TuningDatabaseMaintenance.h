//===- TuningDatabaseMaintenance.h - List, merge, prune ---------*- C++ -*-===//
//
// Part of sptune. What `sptune-db` does to tuning databases
// (sptune/Tune/TuningDatabase.h), as library calls: read several, print
// their records as a table or JSON lines, and keep the records a pruning
// asks for. Merging is `supersededRemoved` + `writeTuningDatabase`.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TUNE_TUNINGDATABASEMAINTENANCE_H
#define SPTUNE_TUNE_TUNINGDATABASEMAINTENANCE_H

#include "sptune/Tune/TuningDatabase.h"

#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace sptune {

/// The records of every database in `paths`, in order. Each must exist; a
/// line `open` skips is reported through `onSkipped` (why).
llvm::Expected<std::vector<TuningRecord>> readTuningDatabases(
    const std::vector<std::string> &paths,
    const std::function<void(const std::string &)> &onSkipped);

/// One line per record (matrix fingerprint, kernel, target, free size,
/// shape, model, effort, measured time, tuning seconds, age, schedule) and a
/// count; or, with `asJson`, each record as a JSON line.
void printTuningRecords(const std::vector<TuningRecord> &records, bool asJson,
                        llvm::raw_ostream &os);

struct TuningDatabasePruning {
  /// Model identities to keep ("heuristic", "model:<16 hex>"); empty: all.
  std::set<std::string> keepModels;
  /// Drop records whose matrix file no longer exists (gen: specs always do).
  bool dropMissingSources = false;
  /// Keep records another one supersedes (dropped by default).
  bool keepSuperseded = false;
};

/// The records `pruning` keeps, in their order.
std::vector<TuningRecord> pruneTuningRecords(std::vector<TuningRecord> records,
                                             const TuningDatabasePruning &pruning);

/// How many records a rewrite read and wrote.
struct TuningDatabaseRewrite {
  size_t read = 0, written = 0;
};

/// Rewrites `output` from `inputs` (`output` may be one of them): takes its
/// TuningDatabaseLock, reads the inputs (`onSkipped` as above), writes what
/// `keep` returns atomically and releases the lock, so that a record
/// `sptune-autotune` appends meanwhile lands in the new file.
llvm::Expected<TuningDatabaseRewrite> rewriteTuningDatabase(
    const std::vector<std::string> &inputs, const std::string &output,
    const std::function<std::vector<TuningRecord>(std::vector<TuningRecord>)>
        &keep,
    const std::function<void(const std::string &)> &onSkipped);

} // namespace sptune

#endif // SPTUNE_TUNE_TUNINGDATABASEMAINTENANCE_H
