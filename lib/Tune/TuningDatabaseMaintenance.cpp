//===- TuningDatabaseMaintenance.cpp - List, merge, prune -----------------===//

#include "sptune/Tune/TuningDatabaseMaintenance.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace sptune;

llvm::Expected<std::vector<TuningRecord>> sptune::readTuningDatabases(
    const std::vector<std::string> &paths,
    const std::function<void(const std::string &)> &onSkipped) {
  std::vector<TuningRecord> records;
  for (const std::string &path : paths) {
    if (!llvm::sys::fs::exists(path))
      return llvm::createStringError("'" + path + "' does not exist");
    llvm::Expected<TuningDatabase> db = TuningDatabase::open(path);
    if (!db)
      return db.takeError();
    for (const std::string &why : db->skipped())
      onSkipped(why);
    records.insert(records.end(), db->records().begin(), db->records().end());
  }
  return records;
}

/// "model:0123456789abcdef" -> "01234567"; other names as they are.
static std::string shortModel(const std::string &model) {
  return llvm::StringRef(model).starts_with("model:") ? model.substr(6, 8)
                                                      : model;
}

void sptune::printTuningRecords(const std::vector<TuningRecord> &records,
                                bool asJson, llvm::raw_ostream &os) {
  if (asJson) {
    for (const TuningRecord &r : records)
      os << llvm::json::Value(r.toJson()) << "\n";
    return;
  }
  os << llvm::format("%-16s %-5s %-6s %5s %-22s %-9s %7s %9s %8s  %-20s  %s\n",
                     "matrix", "kern", "target", "free", "rows x cols (nnz)",
                     "model", "effort", "measured", "tune s", "created",
                     "schedule");
  for (const TuningRecord &r : records) {
    std::string shape = std::to_string(r.rows) + "x" + std::to_string(r.cols) +
                        " (" + std::to_string(r.nnz) + ")";
    std::string effort = std::to_string(r.effort.candidates) + "/" +
                         std::to_string(r.effort.measureTopK);
    std::string measured =
        r.chosenSeconds
            ? (llvm::formatv("{0:F3}", *r.chosenSeconds * 1e3).str() + "ms")
            : std::string("-");
    os << llvm::format("%-16s %-5s %-6s %5lld %-22s %-9s %7s %9s %8.3f  %-20s  ",
                       r.key.fingerprint.c_str(), toString(r.key.kernel),
                       toString(r.key.target),
                       static_cast<long long>(r.key.free), shape.c_str(),
                       shortModel(r.key.model).c_str(), effort.c_str(),
                       measured.c_str(), r.tuneSeconds, r.createdAt.c_str())
       << r.chosen.str() << "\n";
  }
  os << records.size() << " record(s)\n";
}

std::vector<TuningRecord>
sptune::pruneTuningRecords(std::vector<TuningRecord> records,
                           const TuningDatabasePruning &pruning) {
  std::vector<TuningRecord> kept;
  for (TuningRecord &r : records) {
    if (!pruning.keepModels.empty() && !pruning.keepModels.count(r.key.model))
      continue;
    if (pruning.dropMissingSources && !r.stamp.source.empty() &&
        !llvm::StringRef(r.stamp.source).starts_with("gen:")) {
      llvm::StringRef file = r.stamp.source;
      if (file.ends_with("|T")) // a transposed read of the file
        file = file.drop_back(2);
      if (!llvm::sys::fs::exists(file))
        continue;
    }
    kept.push_back(std::move(r));
  }
  if (!pruning.keepSuperseded)
    kept = supersededRemoved(std::move(kept));
  return kept;
}

llvm::Expected<TuningDatabaseRewrite> sptune::rewriteTuningDatabase(
    const std::vector<std::string> &inputs, const std::string &output,
    const std::function<std::vector<TuningRecord>(std::vector<TuningRecord>)>
        &keep,
    const std::function<void(const std::string &)> &onSkipped) {
  // An output that is not there yet is created by the lock: it must not be
  // mistaken for a missing input.
  for (const std::string &path : inputs)
    if (!llvm::sys::fs::exists(path))
      return llvm::createStringError("'" + path + "' does not exist");
  bool created = !llvm::sys::fs::exists(output);
  llvm::Expected<TuningDatabaseLock> lock = TuningDatabaseLock::acquire(output);
  if (!lock)
    return lock.takeError();
  auto failed = [&](llvm::Error e) -> llvm::Error {
    if (created) // no empty output left behind by the lock
      llvm::sys::fs::remove(output);
    return e;
  };
  llvm::Expected<std::vector<TuningRecord>> records =
      readTuningDatabases(inputs, onSkipped);
  if (!records)
    return failed(records.takeError());
  TuningDatabaseRewrite counts;
  counts.read = records->size();
  std::vector<TuningRecord> kept = keep(std::move(*records));
  counts.written = kept.size();
  if (llvm::Error e = writeTuningDatabase(output, kept))
    return failed(std::move(e));
  return counts;
}
