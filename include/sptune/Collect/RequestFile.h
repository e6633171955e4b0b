//===- RequestFile.h - Pending measurements as a file -----------*- C++ -*-===//
//
// Part of sptune. A batch of pending measurements written to a file, one JSON
// line per measurement ({"key": {...}, "request": "<MeasureRequest JSON>"}),
// so that another process (a Slurm array task) measures a share of it:
//
//   sptune-collect --run-requests FILE --task I/T --out shard-I.jsonl
//
// measures the lines whose index is I modulo T with the local worker pool,
// resuming from what shard-I.jsonl already holds, and then writes
// shard-I.jsonl.done.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COLLECT_REQUESTFILE_H
#define SPTUNE_COLLECT_REQUESTFILE_H

#include "sptune/Collect/Collection.h"

#include "llvm/Support/Error.h"

#include <string>

namespace sptune {

/// Writes `pending` to `path` (atomically).
llvm::Error writeRequestFile(const std::string &path,
                             const PendingRequests &pending);

/// Reads the requests of `path` whose index is `task` modulo `tasks`.
llvm::Expected<PendingRequests> readRequestFile(const std::string &path,
                                                unsigned task, unsigned tasks);

/// The marker a finished task writes next to its output.
std::string taskDoneMarker(const std::string &outPath);

/// What `sptune-collect --run-requests` does: measures task `task` of
/// `tasks` of the request file into `outPath` in local workers, then writes
/// the done marker. Returns the collection's result.
llvm::Expected<CollectionResult>
runRequestFile(const std::string &requestPath, unsigned task, unsigned tasks,
               const std::string &outPath, const WorkerOptions &worker,
               const std::atomic<bool> *stop);

} // namespace sptune

#endif // SPTUNE_COLLECT_REQUESTFILE_H
