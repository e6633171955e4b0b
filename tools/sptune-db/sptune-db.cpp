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
#include "sptune/Tune/TuningDatabaseMaintenance.h"

#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <optional>
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

/// Reads every database, reporting skipped lines on stderr; 0 on failure
/// (reported).
std::optional<std::vector<TuningRecord>>
openAll(const std::vector<std::string> &paths) {
  llvm::Expected<std::vector<TuningRecord>> records =
      readTuningDatabases(paths, [](const std::string &why) {
        llvm::errs() << "sptune-db: warning: skipped " << why << "\n";
      });
  if (!records) {
    failure(llvm::toString(records.takeError()));
    return std::nullopt;
  }
  return std::move(*records);
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
  std::optional<std::vector<TuningRecord>> records = openAll(paths);
  if (!records)
    return 1;
  printTuningRecords(*records, asJson, llvm::outs());
  return 0;
}

/// Rewrites `out` from `paths` through `keep`, under the database's lock.
int rewrite(const std::vector<std::string> &paths, const std::string &out,
            const std::function<std::vector<TuningRecord>(
                std::vector<TuningRecord>)> &keep) {
  llvm::Expected<TuningDatabaseRewrite> done =
      rewriteTuningDatabase(paths, out, keep, [](const std::string &why) {
        llvm::errs() << "sptune-db: warning: skipped " << why << "\n";
      });
  if (!done)
    return failure(llvm::toString(done.takeError()));
  llvm::outs() << "sptune-db: wrote " << done->written << " record(s) to '"
               << out << "' (" << (done->read - done->written)
               << " dropped)\n";
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
  return rewrite(paths, out, supersededRemoved);
}

int prune(const std::vector<std::string> &args) {
  std::string out;
  std::vector<std::string> paths;
  TuningDatabasePruning pruning;
  for (size_t n = 0; n < args.size(); ++n) {
    const std::string &a = args[n];
    if (a == "-o" && n + 1 < args.size()) {
      out = args[++n];
    } else if (a == "--keep-model" && n + 1 < args.size()) {
      std::string m = args[++n];
      if (m == "heuristic" || llvm::StringRef(m).starts_with("model:")) {
        pruning.keepModels.insert(m);
        continue;
      }
      llvm::Expected<std::string> id = costModelIdentity(
          m == "release" ? CostModelMode::Release : CostModelMode::Development,
          m == "release" ? "" : m);
      if (!id)
        return usageError("prune: --keep-model '" + m +
                          "': " + llvm::toString(id.takeError()));
      pruning.keepModels.insert(*id);
    } else if (a == "--drop-missing-sources") {
      pruning.dropMissingSources = true;
    } else if (a == "--keep-superseded") {
      pruning.keepSuperseded = true;
    } else if (!a.empty() && a[0] == '-') {
      return usageError("prune: unknown option or missing value '" + a + "'");
    } else {
      paths.push_back(a);
    }
  }
  if (paths.size() != 1)
    return usageError("prune: give exactly one database");
  return rewrite(paths, out.empty() ? paths.front() : out,
                 [&](std::vector<TuningRecord> records) {
                   return pruneTuningRecords(std::move(records), pruning);
                 });
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
