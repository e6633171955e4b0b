//===- sptune-db.cpp - List, merge and prune tuning databases -------------===//
//
//   sptune-db list [--json] DB...
//   sptune-db merge -o OUT DB...
//   sptune-db prune [-o OUT] [--keep-model M]... [--drop-missing-sources]
//                   [--keep-superseded] DB
//
// A tuning database is the JSONL file `sptune-autotune database=...` reads
// and appends to (sptune/Tune/TuningDatabase.h). Exit status: 0 on success,
// 1 when a database cannot be read or written, 2 on a usage error.
//
//===----------------------------------------------------------------------===//

#include "sptune/Config.h"
#include "sptune/InitAllTargets.h"
#include "sptune/CostModel/CostModel.h"
#include "sptune/Tune/TuningDatabase.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <set>
#include <string>
#include <vector>

using namespace sptune;

namespace {

const char *kUsage = R"(usage: sptune-db <command> [options]

Commands:
  list [--json] DB...    one line per decision: matrix fingerprint, kernel,
                         target, free size, matrix shape, model, effort,
                         measured time, age, chosen schedule (--json: the
                         records as JSON lines)
  merge -o OUT DB...     the union of the databases without superseded or
                         duplicate records, written atomically to OUT (which
                         may be one of the inputs)
  prune [options] DB     rewrites DB (or -o OUT) keeping only:
      --keep-model M     records of model M (repeatable): 'release' (the
                         model compiled into sptune), 'heuristic', a model
                         file, or an identity 'model:<16 hex>'
      --drop-missing-sources
                         records whose matrix file still exists (gen: specs
                         always do)
      --keep-superseded  keep records another one supersedes (dropped by
                         default: for each matrix, kernel, free size, target,
                         model and effort, only the best is kept)
  --help, --version

A record answers a compile when the matrix (by source stamp or structural
fingerprint), kernel, free size, target and model match and it was tuned with
at least the compile's candidates and measure-top-k. Best: measured before
unmeasured, faster before slower, newer before older.
)";

int usageError(const std::string &message) {
  llvm::errs() << "sptune-db: error: " << message
               << "\nrun 'sptune-db --help' for usage\n";
  return 2;
}

int failure(const std::string &message) {
  llvm::errs() << "sptune-db: error: " << message << "\n";
  return 1;
}

/// Opens every database, reporting skipped lines on stderr.
bool openAll(const std::vector<std::string> &paths,
             std::vector<TuningRecord> &records) {
  for (const std::string &path : paths) {
    if (!llvm::sys::fs::exists(path)) {
      llvm::errs() << "sptune-db: error: '" << path << "' does not exist\n";
      return false;
    }
    llvm::Expected<TuningDatabase> db = TuningDatabase::open(path);
    if (!db) {
      llvm::errs() << "sptune-db: error: " << llvm::toString(db.takeError())
                   << "\n";
      return false;
    }
    for (const std::string &why : db->skipped())
      llvm::errs() << "sptune-db: warning: skipped " << why << "\n";
    records.insert(records.end(), db->records().begin(), db->records().end());
  }
  return true;
}

std::string shortModel(const std::string &model) {
  return llvm::StringRef(model).starts_with("model:") ? model.substr(6, 8)
                                                      : model;
}

int list(const std::vector<std::string> &args) {
  bool asJson = false;
  std::vector<std::string> paths;
  for (const std::string &a : args) {
    if (a == "--json")
      asJson = true;
    else if (!a.empty() && a[0] == '-')
      return usageError("list: unknown option '" + a + "'");
    else
      paths.push_back(a);
  }
  if (paths.empty())
    return usageError("list: give at least one database");
  std::vector<TuningRecord> records;
  if (!openAll(paths, records))
    return 1;
  llvm::raw_ostream &os = llvm::outs();
  if (asJson) {
    for (const TuningRecord &r : records)
      os << llvm::json::Value(r.toJson()) << "\n";
    return 0;
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
  return 0;
}

int write(const std::string &out, const std::vector<TuningRecord> &records,
          size_t before) {
  if (llvm::Error e = writeTuningDatabase(out, records))
    return failure(llvm::toString(std::move(e)));
  llvm::outs() << "sptune-db: wrote " << records.size() << " record(s) to '"
               << out << "' (" << (before - records.size()) << " dropped)\n";
  return 0;
}

int merge(const std::vector<std::string> &args) {
  std::string out;
  std::vector<std::string> paths;
  for (size_t n = 0; n < args.size(); ++n) {
    if (args[n] == "-o" && n + 1 < args.size())
      out = args[++n];
    else if (!args[n].empty() && args[n][0] == '-')
      return usageError("merge: unknown option '" + args[n] + "'");
    else
      paths.push_back(args[n]);
  }
  if (out.empty() || paths.empty())
    return usageError("merge: give -o OUT and at least one database");
  std::vector<TuningRecord> records;
  if (!openAll(paths, records))
    return 1;
  size_t before = records.size();
  return write(out, supersededRemoved(std::move(records)), before);
}

int prune(const std::vector<std::string> &args) {
  std::string out;
  std::vector<std::string> paths;
  std::set<std::string> keepModels;
  bool dropMissing = false, keepSuperseded = false;
  for (size_t n = 0; n < args.size(); ++n) {
    const std::string &a = args[n];
    if (a == "-o" && n + 1 < args.size()) {
      out = args[++n];
    } else if (a == "--keep-model" && n + 1 < args.size()) {
      std::string m = args[++n], error;
      if (m == "heuristic" || llvm::StringRef(m).starts_with("model:")) {
        keepModels.insert(m);
        continue;
      }
      std::optional<std::string> id = costModelIdentity(
          m == "release" ? CostModelMode::Release : CostModelMode::Development,
          m == "release" ? "" : m, &error);
      if (!id)
        return usageError("prune: --keep-model '" + m + "': " + error);
      keepModels.insert(*id);
    } else if (a == "--drop-missing-sources") {
      dropMissing = true;
    } else if (a == "--keep-superseded") {
      keepSuperseded = true;
    } else if (!a.empty() && a[0] == '-') {
      return usageError("prune: unknown option or missing value '" + a + "'");
    } else {
      paths.push_back(a);
    }
  }
  if (paths.size() != 1)
    return usageError("prune: give exactly one database");
  std::vector<TuningRecord> records;
  if (!openAll(paths, records))
    return 1;
  size_t before = records.size();
  std::vector<TuningRecord> kept;
  for (TuningRecord &r : records) {
    if (!keepModels.empty() && !keepModels.count(r.key.model))
      continue;
    if (dropMissing && !r.stamp.source.empty() &&
        !llvm::StringRef(r.stamp.source).starts_with("gen:")) {
      llvm::StringRef file = r.stamp.source;
      if (file.ends_with("|T"))
        file = file.drop_back(2);
      if (!llvm::sys::fs::exists(file))
        continue;
    }
    kept.push_back(std::move(r));
  }
  if (!keepSuperseded)
    kept = supersededRemoved(std::move(kept));
  return write(out.empty() ? paths.front() : out, kept, before);
}

} // namespace

int main(int argc, char **argv) {
  // Database records hold schedules of every target.
  registerAllTargets();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty())
    return usageError("no command");
  std::string command = args.front();
  args.erase(args.begin());
  if (command == "--help" || command == "-h") {
    llvm::outs() << kUsage;
    return 0;
  }
  if (command == "--version") {
    llvm::outs() << "sptune-db " << SPTUNE_VERSION << "\n";
    return 0;
  }
  if (command == "list")
    return list(args);
  if (command == "merge")
    return merge(args);
  if (command == "prune")
    return prune(args);
  return usageError("unknown command '" + command + "'");
}
