//===- Dataset.cpp - Measured schedules, grouped for ranking --------------===//

#include "sptune/CostModel/Dataset.h"
#include "sptune/CostModel/ConfigurationMapper.h"
#include "sptune/Schedule/DatasetSchema.h"
#include "sptune/Support/Error.h"
#include "sptune/Target/DefaultSchedule.h"
#include "sptune/Target/Target.h"
#include "sptune/Target/Measurer.h"
#include "sptune/Support/Json.h"
#include "sptune/Support/Files.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

#include <zlib.h>

using namespace sptune;

/// The text of a gzip file (`bytes` starts with gzip's magic), every member
/// of it (`cat a.gz b.gz` is one valid file; zeros after the last member,
/// as some writers pad, are ignored), or why it cannot be read.
static llvm::Expected<std::string> gunzip(llvm::StringRef bytes,
                                          const std::string &path) {
  auto corrupt = [&](const std::string &why) {
    return makeError("cannot read dataset '" + path +
                     "': not a valid gzip file (" + why + ")");
  };
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK)
    return corrupt("zlib could not start");
  // zlib counts input in uInt: a file of 4 GiB or more is fed in pieces.
  size_t fed = 0;
  auto feed = [&] {
    size_t piece =
        std::min<size_t>(bytes.size() - fed, std::numeric_limits<uInt>::max());
    stream.next_in =
        reinterpret_cast<Bytef *>(const_cast<char *>(bytes.data() + fed));
    stream.avail_in = static_cast<uInt>(piece);
    fed += piece;
  };
  auto inputLeft = [&] { return stream.avail_in > 0 || fed < bytes.size(); };
  feed();
  std::string text;
  char chunk[1 << 16];
  int status = Z_OK;
  while (true) {
    if (stream.avail_in == 0 && fed < bytes.size())
      feed();
    stream.next_out = reinterpret_cast<Bytef *>(chunk);
    stream.avail_out = sizeof(chunk);
    status = inflate(&stream, Z_NO_FLUSH);
    text.append(chunk, sizeof(chunk) - stream.avail_out);
    if (status == Z_STREAM_END) {
      size_t at = fed - stream.avail_in;
      if (!inputLeft() ||
          bytes.drop_front(at).find_first_not_of('\0') == llvm::StringRef::npos)
        break;
      inflateReset(&stream); // the next member
      continue;
    }
    if (status == Z_OK)
      continue;
    if (status == Z_BUF_ERROR && !inputLeft())
      break; // the input ends inside a member
    std::string why =
        stream.msg ? stream.msg : "error " + std::to_string(status);
    inflateEnd(&stream);
    return corrupt(why);
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END)
    return corrupt("it is cut short");
  return text;
}

std::string SampleGroup::key() const {
  return matrix.id + "|" + toString(kernel) + "|" + std::to_string(free) + "|" +
         toString(target) + dataset::elementWidthKeySuffix(elementBits);
}

std::optional<double> SampleGroup::defaultTime() const {
  if (mlirDefaultTime)
    return mlirDefaultTime;
  // The sample that is the target's untuned reference (MLIR's sparsifier
  // default on the CPU). Targets the MLIR sparsifier does not serve (a simulator)
  // are compared with their own default schedule, whose time the heuristic
  // baseline also measures when no sample is that schedule.
  Schedule reference = referenceSchedule(target, kernel);
  for (const MeasuredSchedule &m : samples)
    if (m.schedule == reference)
      return m.time;
  const Target *t = TargetRegistry::lookup(target);
  if (t && !t->rewritesIR() && heuristicTime)
    return heuristicTime;
  return std::nullopt;
}

double SampleGroup::referenceTime() const {
  if (auto t = defaultTime())
    return *t;
  if (samples.empty())
    return 1.0;
  double logSum = 0;
  for (const MeasuredSchedule &m : samples)
    logSum += std::log(m.time);
  return std::exp(logSum / static_cast<double>(samples.size()));
}

std::string sptune::recordMachine(const llvm::json::Object &record) {
  const llvm::json::Object *m = record.getObject(dataset::field::kMachine);
  if (!m)
    return "";
  return m->getString(dataset::machine_field::kCpu).value_or("").str() +
         " @ " + m->getString(dataset::machine_field::kHost).value_or("").str();
}

bool sptune::recordOnMachine(const llvm::json::Object &record,
                             std::string_view machine) {
  const llvm::json::Object *m = record.getObject(dataset::field::kMachine);
  if (!m)
    return false;
  llvm::StringRef want(machine.data(), machine.size());
  return m->getString(dataset::machine_field::kCpu).value_or("") == want ||
         m->getString(dataset::machine_field::kHost).value_or("") == want;
}

llvm::Error sptune::forEachDatasetLine(
    const std::string &path,
    llvm::function_ref<void(llvm::StringRef line,
                            const llvm::json::Object *record)>
        onLine) {
  if (std::string why = whyNotAFile(path); !why.empty())
    return makeError("cannot read dataset: " + why);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return makeError("cannot read dataset '" + path +
                     "': " + buffer.getError().message());
  llvm::StringRef rest = (*buffer)->getBuffer();
  // The shipped datasets are gzipped (cost-model/data/*.jsonl.gz).
  std::string unzipped;
  if (rest.starts_with("\x1f\x8b")) {
    llvm::Expected<std::string> text = gunzip(rest, path);
    if (!text)
      return text.takeError();
    unzipped = std::move(*text);
    rest = unzipped;
  }
  while (!rest.empty()) {
    auto [line, tail] = rest.split('\n');
    rest = tail;
    if (line.trim().empty())
      continue;
    llvm::Expected<llvm::json::Value> v = parseJson(line);
    if (!v) {
      llvm::consumeError(v.takeError());
      onLine(line, nullptr);
      continue;
    }
    onLine(line, v->getAsObject());
  }
  return llvm::Error::success();
}

llvm::Error sptune::datasetMachines(const std::vector<std::string> &files,
                                    std::map<std::string, DatasetMachine> &machines) {
  for (const std::string &path : files)
    if (llvm::Error e = forEachDatasetLine(
            path, [&](llvm::StringRef, const llvm::json::Object *record) {
              if (!record)
                return;
              DatasetMachine &machine = machines[recordMachine(*record)];
              ++machine.records;
              const llvm::json::Object *m =
                  record->getObject(dataset::field::kMachine);
              if (machine.descriptor || !m ||
                  !m->get(dataset::machine_field::kSimdBits))
                return;
              // A malformed descriptor only goes unreported: the runtimes
              // it came with are read (and checked) as before.
              if (llvm::Expected<MachineDescriptor> d = machineFromJson(*m))
                machine.descriptor = std::move(*d);
              else
                llvm::consumeError(d.takeError());
            }))
      return e;
  return llvm::Error::success();
}

llvm::Error sptune::filterDatasetByMachine(const std::string &input,
                                           const std::string &output,
                                           std::string_view machine,
                                           size_t &kept, size_t &dropped) {
  if (std::string why = whyNotAFile(input); !why.empty())
    return makeError("cannot read dataset: " + why);
  std::error_code ec;
  llvm::raw_fd_ostream out(output, ec);
  if (ec)
    return makeError("cannot write '" + output + "': " + ec.message());
  return forEachDatasetLine(
      input, [&](llvm::StringRef line, const llvm::json::Object *record) {
        if (record && recordOnMachine(*record, machine)) {
          out << line << "\n";
          ++kept;
        } else {
          ++dropped;
        }
      });
}

std::string DatasetCounts::summary() const {
  return std::to_string(lines) + " lines: " + std::to_string(samples) +
         " schedule measurements, " + std::to_string(baselines) +
         " library baselines; skipped " + std::to_string(unparsable) +
         " unparsable, " + std::to_string(unsupportedSchema) +
         " of another schema, " + std::to_string(notOk) + " not ok, " +
         std::to_string(badSchedule) + " with a bad schedule; merged " +
         std::to_string(duplicates) + " repeated measurements" +
         (otherMachine ? "; left out " + std::to_string(otherMachine) +
                             " record(s) of other machines"
                       : "") +
         (unmodeledKernel
              ? "; left out " + std::to_string(unmodeledKernel) +
                    " record(s) of kernels the model has no feature for"
              : "");
}

llvm::Error DatasetReader::addFile(const std::string &path) {
  return forEachDatasetLine(
      path, [&](llvm::StringRef, const llvm::json::Object *record) {
        addRecord(record);
      });
}

DatasetReader::Accumulator &
DatasetReader::accumulator(const MatrixRef &m, KernelType k, int64_t free,
                           TargetKind t, int elementBits) {
  SampleGroup probe;
  probe.matrix = m;
  probe.kernel = k;
  probe.free = free;
  probe.target = t;
  probe.elementBits = elementBits;
  auto [it, inserted] = groups_.try_emplace(probe.key());
  if (inserted)
    it->second.group = probe;
  return it->second;
}

static void keepMin(std::optional<double> &slot, double t) {
  slot = slot ? std::min(*slot, t) : t;
}

double sptune::recordMeasurementCost(const llvm::json::Object &record) {
  namespace f = dataset::field;
  if (std::optional<double> wall = record.getNumber(f::kWallSeconds);
      wall && std::isfinite(*wall) && *wall >= 0)
    return *wall;
  const llvm::json::Object *times = record.getObject(f::kTimes);
  double median =
      times ? times->getNumber(dataset::time_field::kMedian).value_or(0) : 0;
  double reps = times ? static_cast<double>(times->getInteger(
                            dataset::time_field::kReps).value_or(1))
                      : 1;
  double compile = record.getNumber(f::kCompileSeconds).value_or(0);
  double cost = (std::isfinite(compile) && compile > 0 ? compile : 0) +
                (std::isfinite(median) && median > 0
                     ? median * std::max(1.0, reps)
                     : 0);
  return cost;
}

bool DatasetReader::addLine(std::string_view text) {
  llvm::Expected<llvm::json::Value> parsed =
      parseJson(llvm::StringRef(text.data(), text.size()));
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return addRecord(nullptr);
  }
  return addRecord(parsed->getAsObject());
}

bool DatasetReader::addRecord(const llvm::json::Object *rec) {
  // The machine filter first, as filterDatasetByMachine: what it leaves out
  // is not part of the data.
  if (!machineFilter_.empty() && !(rec && recordOnMachine(*rec, machineFilter_))) {
    ++counts_.otherMachine;
    return false;
  }
  ++counts_.lines;
  if (!rec) {
    ++counts_.unparsable;
    return false;
  }
  namespace f = dataset::field;
  namespace mf = dataset::matrix_field;
  if (auto schema = rec->getInteger(f::kSchema);
      !schema || *schema != dataset::kSchemaVersion) {
    ++(schema ? counts_.unsupportedSchema : counts_.unparsable);
    return false;
  }
  ++counts_.machines[recordMachine(*rec)];
  const llvm::json::Object *matrix = rec->getObject(f::kMatrix);
  auto kernelName = rec->getString(f::kKernel);
  auto targetName = rec->getString(f::kTarget);
  auto role = rec->getString(f::kRole);
  auto status = rec->getString(f::kStatus);
  auto free = rec->getInteger(f::kFree);
  auto schedText = rec->getString(f::kSchedule);
  if (!matrix || !kernelName || !targetName || !role || !status || !free ||
      !schedText) {
    ++counts_.unparsable;
    return false;
  }
  auto id = matrix->getString(mf::kId);
  auto kernel =
      parseKernelType(std::string_view(kernelName->data(), kernelName->size()));
  auto target =
      parseTargetKind(std::string_view(targetName->data(), targetName->size()));
  // A free size no measurement can have (over the worker protocol's 65536):
  // a record with 2^62 trained as if valid (issue 13 probe).
  // Records without `bits` predate it: the collector measured f32 then.
  int64_t bits = rec->getInteger(f::kBits).value_or(32);
  if (!id || id->empty() || !kernel || !target || *free < 0 ||
      *free > (1 << 16) || (bits != 32 && bits != 64)) {
    ++counts_.unparsable;
    return false;
  }
  if (!hasKernelFeature(*kernel)) {
    ++counts_.unmodeledKernel;
    return false;
  }
  if (*status != toString(MeasureStatus::Ok)) {
    ++counts_.notOk;
    return false;
  }
  const llvm::json::Object *times = rec->getObject(f::kTimes);
  std::optional<double> median =
      times ? times->getNumber(dataset::time_field::kMedian) : std::nullopt;
  if (!median || !std::isfinite(*median) || *median <= 0) {
    ++counts_.unparsable;
    return false;
  }

  MatrixRef m;
  m.id = id->str();
  if (auto source = matrix->getString(mf::kSource))
    m.source = source->str();
  m.rows = matrix->getInteger(mf::kRows).value_or(0);
  m.cols = matrix->getInteger(mf::kCols).value_or(0);
  m.nnz = matrix->getInteger(mf::kNnz).value_or(0);
  Accumulator &acc =
      accumulator(m, *kernel, *free, *target, static_cast<int>(bits));
  if (acc.group.matrix.source.empty())
    acc.group.matrix = m;

  std::string_view roleName(role->data(), role->size());
  std::optional<std::string_view> baseline = dataset::baselineOfRole(roleName);
  bool isDefault = baseline == dataset::kBaselineMlirDefault;
  bool isHeuristic = baseline == dataset::kBaselineHeuristic;
  if (baseline && !isDefault && !isHeuristic) {
    // A library baseline (eigen, rsb, cusparse, ...): a time, no schedule.
    auto [slot, fresh] =
        acc.group.libraryTimes.try_emplace(std::string(*baseline), *median);
    if (!fresh)
      slot->second = std::min(slot->second, *median);
    ++counts_.baselines;
    return true;
  }
  // Every other role ("sample", "model" from active learning, ...) is a
  // measured schedule like any other.
  std::string error;
  std::optional<Schedule> sched = takeValue(
      parseSchedule(std::string_view(schedText->data(), schedText->size())),
      error);
  if (!sched || sched->target != *target || sched->kernel != *kernel ||
      !isLegal(*sched)) {
    ++counts_.badSchedule;
    return false;
  }
  Schedule canon = canonicalize(*sched);
  if (isDefault)
    keepMin(acc.group.mlirDefaultTime, *median);
  if (isHeuristic)
    keepMin(acc.group.heuristicTime, *median);
  auto [it, inserted] = acc.times.try_emplace(canon.str(), Repeats{canon});
  if (!inserted)
    ++counts_.duplicates;
  it->second.sumLogTime += std::log(*median);
  it->second.count += 1;
  it->second.cost += recordMeasurementCost(*rec);
  it->second.isMlirDefault |= isDefault;
  it->second.isHeuristic |= isHeuristic;
  ++counts_.samples;
  return true;
}

std::vector<SampleGroup> DatasetReader::groups() const {
  std::vector<SampleGroup> out;
  for (const auto &[key, acc] : groups_) {
    if (acc.times.empty())
      continue;
    SampleGroup g = acc.group;
    for (const auto &[text, entry] : acc.times)
      g.samples.push_back({entry.schedule,
                           std::exp(entry.sumLogTime / entry.count),
                           entry.cost, entry.isMlirDefault,
                           entry.isHeuristic});
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(),
            [](const SampleGroup &a, const SampleGroup &b) {
              return a.key() < b.key();
            });
  return out;
}

std::string
sptune::whyMixedElementWidths(const std::vector<SampleGroup> &groups) {
  std::map<int, size_t> perWidth;
  for (const SampleGroup &g : groups)
    ++perWidth[g.elementBits];
  if (perWidth.size() < 2)
    return "";
  std::string list;
  for (const auto &[bits, count] : perWidth)
    list += (list.empty() ? "" : ", ") + std::to_string(bits) +
            "-bit: " + std::to_string(count) +
            (count == 1 ? " problem" : " problems");
  return "the datasets hold kernels of more than one element width (" + list +
         "); a cost model does not see the width: give it the records of one "
         "`bits` (sptune-collect --bits measures one width per dataset)";
}

std::vector<SampleGroup> sptune::filterTarget(std::vector<SampleGroup> groups,
                                              TargetKind target) {
  groups.erase(
      std::remove_if(groups.begin(), groups.end(),
                     [&](const SampleGroup &g) { return g.target != target; }),
      groups.end());
  return groups;
}

DatasetSplit sptune::splitByMatrix(const std::vector<SampleGroup> &groups,
                                   double holdout, uint64_t seed) {
  std::set<std::string> idSet;
  for (const SampleGroup &g : groups)
    idSet.insert(g.matrix.id);
  std::vector<std::string> ids(idSet.begin(), idSet.end());
  // Fisher-Yates with an explicit generator: the same split on every
  // platform (std::shuffle's algorithm is unspecified).
  std::mt19937_64 rng(seed);
  for (size_t n = ids.size(); n > 1; --n)
    std::swap(ids[n - 1], ids[rng() % n]);
  size_t numTest = 0;
  if (holdout > 0 && ids.size() >= 2) {
    numTest = static_cast<size_t>(
        std::llround(holdout * static_cast<double>(ids.size())));
    numTest = std::clamp<size_t>(numTest, 1, ids.size() - 1);
  }
  DatasetSplit split;
  std::set<std::string> testIds(ids.begin(), ids.begin() + numTest);
  for (size_t n = 0; n < groups.size(); ++n)
    (testIds.count(groups[n].matrix.id) ? split.test : split.train)
        .push_back(n);
  split.testMatrices.assign(testIds.begin(), testIds.end());
  for (const std::string &id : idSet)
    if (!testIds.count(id))
      split.trainMatrices.push_back(id);
  return split;
}
