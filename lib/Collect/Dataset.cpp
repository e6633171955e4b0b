//===- Dataset.cpp - The JSONL dataset of measurements --------------------===//

#include "sptune/Collect/Dataset.h"
#include "sptune/CostModel/Dataset.h"

#include "sptune/Config.h"
#include "sptune/Schedule/DatasetSchema.h"
#include "sptune/Support/Error.h"
#include "sptune/Support/Files.h"
#include "sptune/Support/Json.h"

#include "MeasurementJson.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <ctime>
#include <fstream>
#include <unordered_map>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace sptune;
namespace json = llvm::json;

std::string RecordKey::str() const {
  return matrixId + (matrixHash.empty() ? "" : "@" + matrixHash) + "|" +
         kernel + "|" + std::to_string(free) + "|" + target + "|" + role + "|" +
         schedule + dataset::elementWidthKeySuffix(elementBits);
}

std::string RecordKey::legacyStr() const {
  RecordKey unhashed = *this;
  unhashed.matrixHash.clear();
  return unhashed.str();
}

std::string sptune::matrixContentKey(const CsrMatrix &m) {
  return contentKey(contentHash(m));
}

std::string sptune::contentKey(uint64_t hash) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx",
                static_cast<unsigned long long>(hash));
  return hex;
}

MachineInfo MachineInfo::current() {
  MachineInfo m;
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) == 0)
    m.host = host;
  m.descriptor = thisMachine();
  return m;
}

/// The record's "machine" object: the host, then the descriptor.
static json::Object machineObject(const MachineInfo &machine) {
  json::Object o = toJson(machine.descriptor);
  o[dataset::machine_field::kHost] = machine.host;
  return o;
}

static std::string isoNow() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string sptune::datasetRecord(const RecordKey &key,
                                  const MeasureRequest &request,
                                  const MeasureResponse &response,
                                  const MachineInfo &machine) {
  const Measurement &m = response.measurement;
  namespace f = dataset::field;
  namespace mf = dataset::matrix_field;
  json::Object o{
      {f::kSchema, dataset::kSchemaVersion},
      {f::kKey, key.str()},
      {f::kMatrix, json::Object{{mf::kId, key.matrixId},
                                {mf::kHash, key.matrixHash},
                                {mf::kSource, response.matrix.source.empty()
                                                  ? request.matrix
                                                  : response.matrix.source},
                                {mf::kRows, response.rows},
                                {mf::kCols, response.cols},
                                {mf::kNnz, response.nnz}}},
      {f::kKernel, key.kernel},
      {f::kFree, key.free},
      {f::kBits, request.elementBits},
      {f::kTarget, key.target},
      {f::kRole, key.role},
      {f::kSchedule,
       response.schedule.empty() ? key.schedule : response.schedule},
      {f::kStatus, toString(m.status)},
      {f::kReason, m.reason},
      {f::kTimes, timeObject(m)},
      {f::kCompileSeconds, m.compileSeconds},
      {f::kWallSeconds, response.wallSeconds},
      {f::kCycles, m.cycles ? json::Value(*m.cycles) : json::Value(nullptr)},
      {f::kDetails, detailsValue(m)},
      {f::kMachine, machineObject(machine)},
      {f::kToolVersion, SPTUNE_VERSION},
      {f::kTime, isoNow()}};
  std::string s;
  llvm::raw_string_ostream(s) << json::Value(std::move(o));
  return s;
}

std::unordered_set<std::string>
sptune::readDatasetKeys(const std::string &path, size_t *badLines,
                        bool skipTransient) {
  std::unordered_set<std::string> keys;
  size_t bad = 0;
  if (!whyNotAFile(path).empty()) { // the writer says why
    if (badLines)
      *badLines = 0;
    return keys;
  }
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty())
      continue;
    llvm::Expected<json::Value> v = parseJson(line);
    if (!v) {
      llvm::consumeError(v.takeError());
      ++bad;
      continue;
    }
    const json::Object *o = v->getAsObject();
    std::optional<llvm::StringRef> key = o ? o->getString(dataset::field::kKey) : std::nullopt;
    if (!key) {
      ++bad;
      continue;
    }
    std::optional<llvm::StringRef> status =
        o->getString(dataset::field::kStatus);
    if (skipTransient && status && isTransientStatus(status->str()))
      continue;
    keys.insert(key->str());
  }
  if (badLines)
    *badLines = bad;
  return keys;
}

bool sptune::isTransientStatus(std::string_view status) {
  return status == "crash" || status == "timeout" || status == "error";
}

llvm::Error sptune::mergeDatasets(const std::vector<std::string> &inputs,
                                  const std::string &output,
                                  MergeSummary &summary) {
  // A collector appending to the output holds its lock for the whole run:
  // renamed over, its file would be unlinked and everything it appended
  // after the read lost. Take the lock (held until the rename) or refuse.
  if (std::string why = whyNotPlainDatasetOutput(output); !why.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot write the dataset: " + why);
  int lock = -1;
  if (whyNotReplaceable(output).empty() && llvm::sys::fs::exists(output)) {
    lock = ::open(output.c_str(), O_RDONLY | O_CLOEXEC);
    if (lock >= 0 && ::flock(lock, LOCK_EX | LOCK_NB) != 0) {
      ::close(lock);
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "'" + output + "' is being written by another process (an "
          "sptune-collect); merge it when that has finished, or merge into "
          "another file");
    }
  }
  struct CloseLock {
    int fd;
    ~CloseLock() {
      if (fd >= 0)
        ::close(fd);
    }
  } closeLock{lock};
  struct Kept {
    std::string line;
    bool ok = false;
  };
  std::vector<std::string> order;
  std::unordered_map<std::string, Kept> kept;
  for (const std::string &input : inputs) {
    // Through the one dataset reader: a gzipped input is inflated.
    llvm::Error read = forEachDatasetLine(
        input, [&](llvm::StringRef text, const json::Object *o) {
          std::string line = text.rtrim("\r").str();
          ++summary.lines;
          std::optional<llvm::StringRef> key =
              o ? o->getString(dataset::field::kKey) : std::nullopt;
          if (!key) {
            ++summary.unreadable;
            return;
          }
          bool ok = o->getString(dataset::field::kStatus).value_or("") == "ok";
          auto [it, inserted] = kept.try_emplace(key->str());
          if (inserted) {
            order.push_back(key->str());
            it->second = {line, ok};
            return;
          }
          ++summary.duplicates;
          if (ok && !it->second.ok) {
            it->second = {line, ok};
            ++summary.replaced;
          }
        });
    if (read)
      return read;
  }
  std::string text;
  for (const std::string &key : order)
    text += kept[key].line + "\n";
  summary.records = order.size();
  return replaceFileAtomically(output, text);
}

std::string sptune::whyNotPlainDatasetOutput(const std::string &path) {
  llvm::StringRef name(path);
  if (name.ends_with(".gz"))
    return "'" + path +
           "' names a gzipped file, but sptune writes datasets as plain "
           "JSONL (appending to them): give a .jsonl path, and gzip it when "
           "it is complete";
  // Only a regular file is probed: opening a pipe would wait for a writer.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return "";
  char magic[2] = {0, 0};
  if (FILE *probe = std::fopen(path.c_str(), "rb")) {
    size_t got = std::fread(magic, 1, 2, probe);
    std::fclose(probe);
    if (got == 2 && magic[0] == '\x1f' && magic[1] == '\x8b')
      return "'" + path +
             "' is gzipped, but sptune writes datasets as plain JSONL "
             "(appending to them): gunzip it first, or write to another file";
  }
  return "";
}

llvm::Error DatasetWriter::open(const std::string &path, bool syncEach) {
  if (std::string why = whyNotAFile(path); !why.empty())
    return makeError("cannot write the dataset: " + why);
  if (std::string why = whyNotPlainDatasetOutput(path); !why.empty())
    return makeError("cannot write the dataset: " + why);
  // A line cut by a kill would glue onto the next record: start on a fresh
  // line when the file does not end with one.
  bool needNewline = false;
  if (FILE *probe = std::fopen(path.c_str(), "rb")) {
    if (std::fseek(probe, -1, SEEK_END) == 0) {
      int last = std::fgetc(probe);
      needNewline = last != '\n' && last != EOF;
    }
    std::fclose(probe);
  }
  // Close-on-exec ("e"): a measurement worker forked and exec'd after this
  // must not inherit the descriptor, or the lock on it would outlive a
  // killed collector until its worker died too, and a resume be refused.
  file = std::fopen(path.c_str(), "abe");
  if (!file)
    return makeError("cannot open '" + path + "' for appending");
  if (::flock(::fileno(file), LOCK_EX | LOCK_NB) != 0) {
    std::fclose(file);
    file = nullptr;
    return makeError("'" + path +
                     "' is being written by another process (is another "
                     "sptune-collect running on it?)");
  }
  sync = syncEach;
  if (needNewline)
    std::fputc('\n', file);
  return llvm::Error::success();
}

bool DatasetWriter::append(const std::string &line) {
  if (!file)
    return false;
  bool ok = std::fwrite(line.data(), 1, line.size(), file) == line.size() &&
            std::fputc('\n', file) != EOF && std::fflush(file) == 0;
  if (ok && sync)
    ok = fsync(fileno(file)) == 0;
  return ok;
}

DatasetWriter::~DatasetWriter() {
  if (file)
    std::fclose(file);
}
