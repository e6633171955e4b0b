//===- Dataset.h - The JSONL dataset of measurements ------------*- C++ -*-===//
//
// Part of sptune. Writing records of docs/dataset.md and reading back which
// keys a dataset already holds (how sptune-collect resumes).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COLLECT_DATASET_H
#define SPTUNE_COLLECT_DATASET_H

#include "sptune/Collect/WorkerProtocol.h"
#include "sptune/Machine/MachineDescriptor.h"
#include "sptune/Matrix/SparseMatrix.h"

#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "llvm/Support/Error.h"

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
  /// matrixContentKey of the matrix (empty in records written before
  /// content keys: their key is legacyStr()).
  std::string matrixHash;
  /// The width of the kernel's elements (32: f32; 64: f64).
  int elementBits = 32;
  /// "id@hash|kernel|free|target|role|schedule", then "|<bits>-bit" when
  /// the elements are not 32-bit: an f64 measurement is not an f32 one's
  /// resume key, and 32-bit keys are those of records before the width.
  std::string str() const;
  /// The key without the content hash, as records written before content
  /// keys have it.
  std::string legacyStr() const;
};

/// The content hash of a matrix as it appears in record keys (16 hex
/// digits of contentHash: shape, pattern and values).
std::string matrixContentKey(const CsrMatrix &m);
/// A content hash (contentHash, tensorContentHash) as it appears in record
/// keys: 16 hex digits.
std::string contentKey(uint64_t hash);

/// Machine description stored in every record: the host's name and the
/// machine descriptor (its bandwidth measured once per process, the first
/// time `current()` is called: before any measurement runs).
struct MachineInfo {
  std::string host;
  MachineDescriptor descriptor;
  static MachineInfo current();
};

/// One JSONL line for `response` to `key`.
std::string datasetRecord(const RecordKey &key, const MeasureRequest &request,
                          const MeasureResponse &response,
                          const MachineInfo &machine);

/// Why sptune cannot write the dataset `path`, or "": it appends plain
/// JSONL, so a name ending in .gz, or an existing file that is gzipped,
/// is refused (appended to, a gzipped file would become one that no
/// reader inflates whole).
std::string whyNotPlainDatasetOutput(const std::string &path);

/// The keys of the parseable records of `path` (a missing file is empty).
/// `badLines` counts lines that do not parse (e.g. cut by a kill). With
/// `skipTransient`, a key whose records all failed for a reason that may
/// not recur (crash, timeout, error: a worker killed, a machine busy, a
/// wrong worker path) is left out, so that a resumed collection measures it
/// again; deterministic outcomes (ok, illegal, compile_error,
/// wrong_result) stay done.
std::unordered_set<std::string> readDatasetKeys(const std::string &path,
                                                size_t *badLines = nullptr,
                                                bool skipTransient = false);

/// Whether a record with `status` may come out differently when measured
/// again (crash, timeout, error).
bool isTransientStatus(std::string_view status);

/// What mergeDatasets did.
struct MergeSummary {
  size_t lines = 0;       ///< non-empty input lines
  size_t records = 0;     ///< records written (distinct keys)
  size_t duplicates = 0;  ///< records dropped for a key already kept
  size_t replaced = 0;    ///< failed records replaced by an ok one
  size_t unreadable = 0;  ///< lines that are not records (cut by a kill)
};

/// Joins the datasets `inputs` (e.g. the outputs of `sptune-collect --shard
/// I/N`) into `output`: one record per key, the first ok record of a key
/// over any failed one, else its first record; keys in order of first
/// appearance. Written to a temporary file renamed over `output` (which may
/// be one of the inputs). Fails when an input is missing or unreadable or
/// the output cannot be written.
llvm::Error mergeDatasets(const std::vector<std::string> &inputs,
                          const std::string &output, MergeSummary &summary);

/// Appends lines to a dataset, flushing (and optionally fsyncing) each one so
/// that an interrupted collector loses nothing it reported.
class DatasetWriter {
public:
  /// Opens `path` for appending and takes an exclusive lock on it: a second
  /// writer (another sptune-collect on the same dataset) fails to open
  /// rather than writing every record twice.
  llvm::Error open(const std::string &path, bool sync);
  bool append(const std::string &line);
  ~DatasetWriter();

private:
  FILE *file = nullptr;
  bool sync = false;
};

} // namespace sptune

#endif // SPTUNE_COLLECT_DATASET_H
