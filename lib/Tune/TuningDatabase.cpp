//===- TuningDatabase.cpp - Recorded tuning decisions ---------------------===//

#include "sptune/Tune/TuningDatabase.h"
#include "sptune/Support/Error.h"
#include "sptune/Support/Json.h"
#include "sptune/Support/Files.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <map>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace sptune;
namespace json = llvm::json;

/// The format version written in every record ("v"); a record of another
/// version is skipped.
static constexpr int64_t kFormatVersion = 1;

std::string sptune::matrixFingerprint(const CsrMatrix &m) {
  auto bytesOf = [](const auto &vec) {
    return llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(vec.data()),
        vec.size() * sizeof(vec[0]));
  };
  int64_t shape[2] = {m.rows, m.cols};
  uint64_t h = llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(shape), sizeof(shape)));
  // Chained: each part's hash is mixed with the running one.
  uint64_t parts[3] = {h, llvm::xxh3_64bits(bytesOf(m.rowPtr)),
                       llvm::xxh3_64bits(bytesOf(m.colIdx))};
  uint64_t all = llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(parts), sizeof(parts)));
  std::string hex;
  llvm::raw_string_ostream os(hex);
  os << llvm::format_hex_no_prefix(all, 16);
  return hex;
}

std::optional<MatrixStamp>
sptune::stampMatrixSource(const std::string &source) {
  MatrixStamp stamp;
  if (llvm::StringRef(source).starts_with("gen:")) {
    stamp.source = source;
    return stamp;
  }
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(source, real))
    return std::nullopt;
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(real, status) ||
      status.type() != llvm::sys::fs::file_type::regular_file)
    return std::nullopt;
  stamp.source = std::string(real);
  stamp.size = status.getSize();
  stamp.mtimeNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      status.getLastModificationTime().time_since_epoch())
                      .count();
  return stamp;
}

bool TuningRecord::answers(const TuningKey &k, const TuningEffort &e) const {
  return key == k && effort.candidates >= e.candidates &&
         effort.measureTopK >= e.measureTopK;
}

bool TuningRecord::answersByStamp(const MatrixStamp &s,
                                  const TuningKey &k,
                                  const TuningEffort &e) const {
  TuningKey withFingerprint = k;
  withFingerprint.fingerprint = key.fingerprint;
  return stamp == s && answers(withFingerprint, e);
}

bool TuningRecord::betterThan(const TuningRecord &other) const {
  if (chosenSeconds.has_value() != other.chosenSeconds.has_value())
    return chosenSeconds.has_value();
  if (chosenSeconds && *chosenSeconds != *other.chosenSeconds)
    return *chosenSeconds < *other.chosenSeconds;
  if (effort.candidates != other.effort.candidates ||
      effort.measureTopK != other.effort.measureTopK)
    return effort.candidates + 1000u * effort.measureTopK >
           other.effort.candidates + 1000u * other.effort.measureTopK;
  return createdAt > other.createdAt;
}

json::Object TuningRecord::toJson() const {
  json::Array measuredJson;
  for (const MeasuredCandidate &c : measured)
    measuredJson.push_back(
        json::Object{{"schedule", c.schedule.str()}, {"seconds", c.seconds}});
  json::Object o{
      {"v", kFormatVersion},
      {"fingerprint", key.fingerprint},
      {"kernel", toString(key.kernel)},
      {"target", toString(key.target)},
      {"free", key.free},
      {"model", key.model},
      {"rows", rows},
      {"cols", cols},
      {"nnz", nnz},
      {"source", stamp.source},
      {"source_size", static_cast<int64_t>(stamp.size)},
      {"source_mtime_ns", stamp.mtimeNs},
      {"candidates", static_cast<int64_t>(effort.candidates)},
      {"measure_top_k", static_cast<int64_t>(effort.measureTopK)},
      {"seed", static_cast<int64_t>(seed)},
      {"schedule", chosen.str()},
      {"measured", std::move(measuredJson)},
      {"tune_seconds", tuneSeconds},
      {"created", createdAt},
      {"sptune_version", version}};
  if (ranked > 0)
    o["ranked"] = ranked;
  if (chosenSeconds)
    o["seconds"] = *chosenSeconds;
  return o;
}

llvm::Expected<TuningRecord>
sptune::tuningRecordFromJson(const json::Value &v) {
  auto fail = [](const std::string &why) -> llvm::Error {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                   why.c_str());
  };
  const json::Object *o = v.getAsObject();
  if (!o)
    return fail("not a JSON object");
  if (o->getInteger("v") != kFormatVersion)
    return fail("format version is not " + std::to_string(kFormatVersion));
  auto str = [&](llvm::StringRef name) -> std::optional<std::string> {
    if (std::optional<llvm::StringRef> s = o->getString(name))
      return s->str();
    return std::nullopt;
  };
  auto integer = [&](llvm::StringRef name) { return o->getInteger(name); };
  TuningRecord r;
  std::optional<std::string> fingerprint = str("fingerprint"),
                             kernel = str("kernel"), target = str("target"),
                             model = str("model"), schedule = str("schedule");
  std::optional<int64_t> freeSize = integer("free"), rows = integer("rows"),
                         cols = integer("cols"), nnz = integer("nnz"),
                         candidates = integer("candidates"),
                         measureTopK = integer("measure_top_k");
  if (!fingerprint || !kernel || !target || !model || !schedule ||
      !freeSize || !rows || !cols || !nnz || !candidates || !measureTopK)
    return fail("a required field (fingerprint, kernel, target, model, "
                "schedule, free, rows, cols, nnz, candidates, measure_top_k) "
                "is missing or has the wrong type");
  std::optional<KernelType> k = parseKernelType(*kernel);
  std::optional<TargetKind> t = parseTargetKind(*target);
  if (!k || !t)
    return fail("unknown kernel '" + *kernel + "' or target '" + *target + "'");
  if (*freeSize < 1 || *rows < 0 || *cols < 0 || *nnz < 0 || *candidates < 0 ||
      *measureTopK < 0 || *candidates > (1 << 30) || *measureTopK > (1 << 30))
    return fail("a size is out of range");
  std::string why;
  std::optional<Schedule> chosen = takeValue(parseSchedule(*schedule), why);
  if (!chosen)
    return fail("schedule '" + *schedule + "': " + why);
  if (chosen->target != *t || chosen->kernel != *k)
    return fail("schedule '" + *schedule + "' is not a " + *target + " " +
                *kernel + " schedule");
  r.key = {*fingerprint, *k, *t, *freeSize, *model};
  r.effort = {static_cast<unsigned>(*candidates),
              static_cast<unsigned>(*measureTopK)};
  r.seed = static_cast<uint64_t>(integer("seed").value_or(0));
  r.ranked = integer("ranked").value_or(0);
  if (r.ranked < 0 || r.ranked > (int64_t(1) << 32))
    return fail("'ranked' is out of range");
  r.rows = *rows;
  r.cols = *cols;
  r.nnz = *nnz;
  r.stamp.source = str("source").value_or("");
  r.stamp.size = static_cast<uint64_t>(integer("source_size").value_or(0));
  r.stamp.mtimeNs = integer("source_mtime_ns").value_or(0);
  r.chosen = *chosen;
  // Optional fields that are present must have their type: a wrong one
  // silently became the default (a measured decision became an unmeasured
  // one; issue 13 probe).
  for (const char *key : {"seconds", "tune_seconds"})
    if (const json::Value *v = o->get(key); v && !v->getAsNumber())
      return fail(std::string("'") + key + "' must be a number");
  for (const char *key : {"source", "created", "sptune_version"})
    if (const json::Value *v = o->get(key); v && !v->getAsString())
      return fail(std::string("'") + key + "' must be a string");
  for (const char *key : {"seed", "source_size", "source_mtime_ns", "ranked"})
    if (const json::Value *v = o->get(key); v && !v->getAsInteger())
      return fail(std::string("'") + key + "' must be an integer");
  if (const json::Value *v = o->get("measured"); v && !v->getAsArray())
    return fail("'measured' must be an array");
  r.chosenSeconds = o->getNumber("seconds");
  if (r.chosenSeconds &&
      !(*r.chosenSeconds > 0 && std::isfinite(*r.chosenSeconds)))
    return fail("seconds must be positive");
  if (const json::Array *measured = o->getArray("measured"))
    for (const json::Value &m : *measured) {
      const json::Object *mo = m.getAsObject();
      std::optional<llvm::StringRef> text =
          mo ? mo->getString("schedule") : std::nullopt;
      std::optional<double> seconds =
          mo ? mo->getNumber("seconds") : std::nullopt;
      if (!text || !seconds)
        return fail("a measured entry lacks schedule or seconds");
      if (!(*seconds > 0 && std::isfinite(*seconds)))
        return fail("a measured entry's seconds must be positive");
      std::optional<Schedule> s = takeValue(parseSchedule(*text), why);
      if (!s)
        return fail("measured schedule '" + text->str() + "': " + why);
      r.measured.push_back({*s, *seconds});
    }
  r.tuneSeconds = o->getNumber("tune_seconds").value_or(0);
  r.createdAt = str("created").value_or("");
  r.version = str("sptune_version").value_or("");
  return r;
}

llvm::Expected<TuningDatabase> TuningDatabase::open(const std::string &path) {
  TuningDatabase db;
  db.path_ = path;
  if (!llvm::sys::fs::exists(path))
    return db;
  if (std::string why = whyNotAFile(path); !why.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "tuning database %s", why.c_str());
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read tuning database '%s': %s",
                                   path.c_str(),
                                   buffer.getError().message().c_str());
  llvm::SmallVector<llvm::StringRef, 0> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (size_t n = 0; n < lines.size(); ++n) {
    llvm::StringRef line = lines[n].trim();
    if (line.empty())
      continue;
    std::string where = path + ":" + std::to_string(n + 1) + ": ";
    llvm::Expected<json::Value> value = parseJson(line);
    if (!value) {
      db.skipped_.push_back(where + llvm::toString(value.takeError()));
      continue;
    }
    llvm::Expected<TuningRecord> record = tuningRecordFromJson(*value);
    if (!record) {
      db.skipped_.push_back(where + llvm::toString(record.takeError()));
      continue;
    }
    db.records_.push_back(std::move(*record));
  }
  return db;
}

const TuningRecord *TuningDatabase::find(const TuningKey &key,
                                         const TuningEffort &effort) const {
  const TuningRecord *best = nullptr;
  for (const TuningRecord &r : records_)
    if (r.answers(key, effort) && (!best || r.betterThan(*best)))
      best = &r;
  return best;
}

const TuningRecord *
TuningDatabase::findByStamp(const MatrixStamp &stamp,
                            const TuningKey &keyBesides,
                            const TuningEffort &effort) const {
  const TuningRecord *best = nullptr;
  for (const TuningRecord &r : records_)
    if (r.answersByStamp(stamp, keyBesides, effort) &&
        (!best || r.betterThan(*best)))
      best = &r;
  return best;
}

llvm::Error TuningDatabase::append(const TuningRecord &record) {
  auto fail = [&](const std::string &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot append to tuning database '%s': %s",
                                   path_.c_str(), why.c_str());
  };
  // Parallel compiles share a database: one line at a time, whole. A
  // rewrite (sptune-db merge or prune, TuningDatabaseLock) may have renamed
  // a new file over the one opened while waiting for the lock: append to
  // the file at the path, not to the replaced one.
  int fd = -1;
  for (int attempt = 0;; ++attempt) {
    fd = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      return fail(std::strerror(errno));
    if (::flock(fd, LOCK_EX) != 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      return fail(why);
    }
    struct stat opened, current;
    if (::fstat(fd, &opened) == 0 && ::stat(path_.c_str(), &current) == 0 &&
        opened.st_ino == current.st_ino && opened.st_dev == current.st_dev)
      break;
    ::close(fd);
    if (attempt == 100)
      return fail("the file keeps being replaced");
  }
  std::string line;
  llvm::raw_string_ostream os(line);
  // A line cut by a crash is completed by a newline first.
  off_t end = ::lseek(fd, 0, SEEK_END);
  if (end > 0) {
    char last = '\n';
    if (::pread(fd, &last, 1, end - 1) == 1 && last != '\n')
      os << '\n';
  }
  os << json::Value(record.toJson()) << '\n';
  const char *data = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR)
        continue;
      std::string why = std::strerror(errno);
      ::close(fd);
      return fail(why);
    }
    data += written;
    left -= static_cast<size_t>(written);
  }
  ::fsync(fd);
  ::close(fd); // releases the lock
  records_.push_back(record);
  return llvm::Error::success();
}

llvm::Expected<TuningDatabaseLock>
TuningDatabaseLock::acquire(const std::string &path) {
  if (std::string why = whyNotReplaceable(path); !why.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot rewrite " + why);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || ::flock(fd, LOCK_EX) != 0) {
    std::string why = std::strerror(errno);
    if (fd >= 0)
      ::close(fd);
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot lock '" + path + "': " + why);
  }
  return TuningDatabaseLock(fd);
}

TuningDatabaseLock::~TuningDatabaseLock() {
  if (fd >= 0)
    ::close(fd); // releases the lock
}

std::vector<TuningRecord>
sptune::supersededRemoved(std::vector<TuningRecord> records) {
  // One slot per (key, effort); the best record wins it.
  std::map<std::string, size_t> slotOf;
  std::vector<std::optional<TuningRecord>> slots;
  for (TuningRecord &r : records) {
    std::string id = r.key.fingerprint + "|" + toString(r.key.kernel) + "|" +
                     toString(r.key.target) + "|" +
                     std::to_string(r.key.free) + "|" + r.key.model + "|" +
                     std::to_string(r.effort.candidates) + "|" +
                     std::to_string(r.effort.measureTopK);
    auto [it, fresh] = slotOf.try_emplace(id, slots.size());
    if (fresh)
      slots.emplace_back(std::move(r));
    else if (r.betterThan(*slots[it->second]))
      slots[it->second] = std::move(r);
  }
  std::vector<TuningRecord> kept;
  for (std::optional<TuningRecord> &r : slots)
    kept.push_back(std::move(*r));
  return kept;
}

llvm::Error sptune::writeTuningDatabase(const std::string &path,
                                        const std::vector<TuningRecord> &records) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const TuningRecord &r : records)
    os << json::Value(r.toJson()) << '\n';
  return replaceFileAtomically(path, text);
}

std::string sptune::currentUtcTime() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}
