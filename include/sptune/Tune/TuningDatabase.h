//===- TuningDatabase.h - Recorded tuning decisions -------------*- C++ -*-===//
//
// Part of sptune. A JSONL file of tuning decisions (TVM MetaSchedule's
// database, MLGO's replay): each line is one decision of sptune-autotune for
// one (matrix, kernel, free size, target, cost model), with the schedule it
// chose, the measured times when it measured, and what it cost to decide.
// With the database, a second compile of the same kernel and matrix takes the
// recorded schedule without featurizing, ranking or measuring.
//
// A record answers a request when its key matches exactly and it was tuned
// with at least the effort asked for (as many candidates, as many measured).
// Among the records that answer, a measured one beats an unmeasured one, a
// faster measured time a slower one, and a newer record an older one.
//
// Plain C++ over LLVM Support (no MLIR, no torch): the passes and the
// `sptune-db` tool both use it. Appends take an exclusive lock, so compiles
// running in parallel can share one database.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TUNE_TUNINGDATABASE_H
#define SPTUNE_TUNE_TUNINGDATABASE_H

#include "sptune/Matrix/SparseMatrix.h"
#include "sptune/Schedule/Schedule.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sptune {

/// The structure of a matrix as 16 hex digits: a hash (xxh3) of its shape,
/// row pointers and column indices in canonical CSR order. Values are left
/// out: no schedule decision reads them.
std::string matrixFingerprint(const CsrMatrix &m);

/// Where a matrix came from, cheap to check again: a file's real path, size
/// and modification time, or a `gen:` spec (deterministic). A warm compile
/// finds its decision by stamp without reading the matrix; a changed file
/// has a new stamp and is looked up by fingerprint after reading it.
struct MatrixStamp {
  std::string source;
  uint64_t size = 0;
  int64_t mtimeNs = 0;
  bool operator==(const MatrixStamp &o) const {
    return source == o.source && size == o.size && mtimeNs == o.mtimeNs;
  }
};

/// The stamp of a matrix source (.mtx path or gen: spec); nullopt when the
/// file cannot be examined.
std::optional<MatrixStamp> stampMatrixSource(const std::string &source);

/// What a decision is about. Two requests with equal keys get the same
/// schedule.
struct TuningKey {
  /// matrixFingerprint of the matrix in canonical orientation.
  std::string fingerprint;
  KernelType kernel = kDefaultKernelType;
  TargetKind target = TargetKind::CPU;
  /// The free dense size.
  int64_t free = 0;
  /// CostModel::identity() of the model that ranked.
  std::string model;
  bool operator==(const TuningKey &o) const {
    return fingerprint == o.fingerprint && kernel == o.kernel &&
           target == o.target && free == o.free && model == o.model;
  }
};

/// How hard a decision was worked for.
struct TuningEffort {
  unsigned candidates = 0;
  unsigned measureTopK = 0;
};

struct MeasuredCandidate {
  Schedule schedule;
  double seconds = 0;
};

struct TuningRecord {
  TuningKey key;
  TuningEffort effort;
  /// How many distinct legal candidates were ranked: the sample of
  /// effort.candidates plus the heuristic, its knob neighbourhood and the
  /// reference, as the deciding remark says (0: a record written before it
  /// was kept).
  int64_t ranked = 0;
  uint64_t seed = 0;
  int64_t rows = 0, cols = 0, nnz = 0;
  /// How the matrix was named when the decision was made.
  MatrixStamp stamp;
  Schedule chosen;
  /// The chosen schedule's measured median, when it was measured.
  std::optional<double> chosenSeconds;
  /// Every candidate measured, with its median.
  std::vector<MeasuredCandidate> measured;
  /// Wall time of the decision (loading, ranking, measuring).
  double tuneSeconds = 0;
  /// ISO-8601 UTC time of the decision, and the sptune version that made it.
  std::string createdAt;
  std::string version;

  /// Whether this record answers a request for `key` with `effort`.
  bool answers(const TuningKey &key, const TuningEffort &effort) const;
  /// Whether it answers `effort` for the key it has, found by `stamp`.
  bool answersByStamp(const MatrixStamp &stamp, const TuningKey &keyBesides,
                      const TuningEffort &effort) const;
  /// Whether `this` is a better answer than `other` (see the file comment).
  bool betterThan(const TuningRecord &other) const;

  llvm::json::Object toJson() const;
};

/// Parses one database line's JSON; fails with what is wrong.
llvm::Expected<TuningRecord> tuningRecordFromJson(const llvm::json::Value &v);

class TuningDatabase {
public:
  /// Reads the database at `path`; a missing file is an empty database.
  /// Malformed lines (cut, garbage, a schedule this build cannot parse) are
  /// skipped and counted, never fatal. Fails when the file cannot be read.
  static llvm::Expected<TuningDatabase> open(const std::string &path);

  /// The best record that answers `key` with `effort`, or null.
  const TuningRecord *find(const TuningKey &key,
                           const TuningEffort &effort) const;
  /// The best record made for a matrix with `stamp` that answers
  /// `keyBesides` (whose fingerprint is ignored) with `effort`, or null.
  const TuningRecord *findByStamp(const MatrixStamp &stamp,
                                  const TuningKey &keyBesides,
                                  const TuningEffort &effort) const;

  /// Appends `record` to the file (one line, under an exclusive lock, synced)
  /// and to this view of it.
  llvm::Error append(const TuningRecord &record);

  const std::string &path() const { return path_; }
  const std::vector<TuningRecord> &records() const { return records_; }
  /// Lines skipped by `open`, with why, for diagnostics.
  const std::vector<std::string> &skipped() const { return skipped_; }

private:
  std::string path_;
  std::vector<TuningRecord> records_;
  std::vector<std::string> skipped_;
};

/// An exclusive lock on the database file at `path` (created empty when
/// absent), for whoever rewrites it (sptune-db merge and prune): taken before
/// the database is read and held until the rewritten file has been renamed
/// over it. `TuningDatabase::append` waits for it and then appends to the
/// file that is at `path` by then, so a record appended during a rewrite is
/// never written into the replaced file and lost.
class TuningDatabaseLock {
public:
  static llvm::Expected<TuningDatabaseLock> acquire(const std::string &path);
  TuningDatabaseLock(TuningDatabaseLock &&other) : fd(other.fd) {
    other.fd = -1;
  }
  TuningDatabaseLock(const TuningDatabaseLock &) = delete;
  TuningDatabaseLock &operator=(const TuningDatabaseLock &) = delete;
  TuningDatabaseLock &operator=(TuningDatabaseLock &&) = delete;
  ~TuningDatabaseLock();

private:
  explicit TuningDatabaseLock(int fd) : fd(fd) {}
  int fd = -1;
};

/// Keeps only the records that are not superseded: for each key and
/// effort, the best (TuningRecord::betterThan); identical duplicates go.
/// Order: first appearance of each kept record.
std::vector<TuningRecord> supersededRemoved(std::vector<TuningRecord> records);

/// Writes `records` as a database at `path`, atomically (a temporary file
/// renamed over it).
llvm::Error writeTuningDatabase(const std::string &path,
                                const std::vector<TuningRecord> &records);

/// The current time as ISO-8601 UTC ("2026-11-30T23:59:59Z").
std::string currentUtcTime();

} // namespace sptune

#endif // SPTUNE_TUNE_TUNINGDATABASE_H
