//===- LiveOracle.cpp - Active learning measuring for real ----------------===//

#include "sptune/Collect/LiveOracle.h"

#include "sptune/Collect/Dataset.h"
#include "sptune/Matrix/MatrixStats.h"
#include "sptune/Matrix/MeasuredOperand.h"
#include "sptune/Schedule/DatasetSchema.h"
#include "sptune/Support/Error.h"
#include "sptune/Support/Files.h"
#include "sptune/Support/Json.h"
#include "sptune/Target/Measurer.h"
#include "sptune/Target/Target.h"

#include "llvm/Support/JSON.h"

#include <cmath>
#include <fstream>
#include <unordered_map>

using namespace sptune;
namespace json = llvm::json;

static llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error LiveOracle::buildPool(const std::vector<std::string> &sources,
                                  const LivePoolOptions &options,
                                  LearningPool &pool,
                                  std::vector<std::string> &warnings) {
  const CollectOptions &collect = options.collect;
  llvm::Expected<const Target &> target = TargetRegistry::get(collect.target);
  if (!target)
    return target.takeError();
  for (const std::string &source : sources) {
    MeasuredOperand operand;
    std::string error;
    if (takeErrorMessage(loadMeasuredOperand(source, operand), error)) {
      warnings.push_back("skipping " + source + ": " + error);
      continue;
    }
    const MatrixInfo &info = operand.info;
    if (operand.nnz < options.minNnz || operand.nnz > options.maxNnz ||
        options.excludeMatrixIds.count(info.id))
      continue;
    MatrixStats stats = heuristicStats(operand);
    std::string hash = contentKey(operand.contentHash);
    // The collector's sampled schedules, without its baselines: those are
    // added below as schedules, known before they are measured. Only the
    // kernels measured on this operand (an MTTKRP and a batched SpMM on a
    // tensor, the others on a matrix).
    CollectOptions samplesOnly = collect;
    samplesOnly.baselines.clear();
    llvm::erase_if(samplesOnly.kernels, [&](const std::string &k) {
      std::string why =
          whyNotMeasuredOn(*parseKernelType(k), operand.isTensor(), info.id);
      if (!why.empty())
        warnings.push_back("not in the pool: " + why);
      return !why.empty();
    });
    std::vector<PlannedRequest> sampled =
        planMatrix(source, info.id, operand.rows, operand.cols, operand.nnz,
                   target->space(), samplesOnly);
    for (const std::string &kernelName : samplesOnly.kernels) {
      KernelType kernel = *parseKernelType(kernelName);
      int64_t free = Schedule::freeLoopSize(kernel, collect.free);
      MatrixRef ref{info.id, source, operand.rows, operand.cols, operand.nnz};
      size_t problem = pool.addProblem(
          {ref, kernel, free, target->kind(), collect.elementBits});
      auto add = [&](const Schedule &s, bool isDefault, bool isHeuristic) {
        size_t c = pool.addCandidate(problem, s);
        pool.markBaseline(c, isDefault, isHeuristic);
        if (c < planned.size())
          return;
        planned.push_back(makeRequest(source, info.id, kernelName,
                                      std::string(dataset::kRoleSample),
                                      pool.candidates()[c].schedule.str(), "",
                                      collect));
        planned.back().key.matrixHash = hash;
      };
      // The reference is "the MLIR default" on targets lowered through MLIR;
      // elsewhere (a simulator) it is the target's own default, which its
      // heuristic baseline also measures.
      add(target->referenceSchedule(kernel), target->rewritesIR(),
          !target->rewritesIR());
      add(target->heuristicSchedule(kernel, &stats, free), false, true);
      for (const PlannedRequest &p : sampled) {
        if (p.key.kernel != kernelName)
          continue;
        std::string why;
        std::optional<Schedule> s =
            takeValue(parseSchedule(p.key.schedule), why);
        if (!s) {
          warnings.push_back("a sampled schedule does not parse: " + why);
          continue;
        }
        add(*s, false, false);
      }
    }
  }
  if (pool.candidates().empty())
    return failure(
        "no matrix of the pool could be loaded, or none is measured for the "
        "kernels given (an MTTKRP and a batched SpMM on 3-D tensors, the "
        "others on matrices)");
  return llvm::Error::success();
}

namespace {
/// What the dataset says about one key: the last successful record's time,
/// else the last record's status; the cost of every record.
struct KeyOutcome {
  MeasuredOutcome outcome;
  bool seen = false;
};

std::unordered_map<std::string, KeyOutcome>
readOutcomes(const std::string &path,
             const std::unordered_map<std::string, size_t> &wanted) {
  namespace f = dataset::field;
  std::unordered_map<std::string, KeyOutcome> out;
  if (!whyNotAFile(path).empty())
    return out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    llvm::Expected<json::Value> v = parseJson(line);
    if (!v) {
      llvm::consumeError(v.takeError());
      continue;
    }
    const json::Object *o = v->getAsObject();
    std::optional<llvm::StringRef> key = o ? o->getString(f::kKey) : std::nullopt;
    if (!key || !wanted.count(key->str()))
      continue;
    std::optional<llvm::StringRef> status = o->getString(f::kStatus);
    const json::Object *times = o->getObject(f::kTimes);
    std::optional<double> median =
        times ? times->getNumber(dataset::time_field::kMedian) : std::nullopt;
    KeyOutcome &k = out[key->str()];
    k.seen = true;
    k.outcome.cost += recordMeasurementCost(*o);
    if (status && *status == "ok" && median && *median > 0) {
      k.outcome.ok = true;
      k.outcome.time = *median;
    }
  }
  return out;
}
} // namespace

llvm::Expected<std::vector<std::optional<MeasuredOutcome>>>
LiveOracle::measure(const LearningPool &pool,
                    const std::vector<size_t> &candidates,
                    const std::function<void(const OracleProgress &)> &onProgress,
                    const std::atomic<bool> *stop) {
  (void)pool;
  CollectionPlan plan;
  std::unordered_map<std::string, size_t> wanted;
  for (size_t c : candidates) {
    if (c >= planned.size())
      return failure("live oracle: candidate " + llvm::Twine(c) +
                     " was not planned");
    plan.requests.push_back(planned[c]);
    wanted[planned[c].key.str()] = c;
  }
  // Measure what the dataset does not hold yet (crashes and timeouts of an
  // earlier run are measured again, as the collector does on resume).
  PendingRequests pending = pendingRequests(plan, run.datasetPath, true);
  if (!pending.requests.empty()) {
    llvm::Expected<CollectionResult> r = measureIntoDataset(
        pending, run,
        [&](const CollectionProgress &p) {
          if (onProgress)
            onProgress({p.done, p.total, p.secondsElapsed});
        },
        stop);
    if (!r)
      return r.takeError();
  }
  std::unordered_map<std::string, KeyOutcome> read =
      readOutcomes(run.datasetPath, wanted);
  std::vector<std::optional<MeasuredOutcome>> out;
  for (size_t c : candidates) {
    auto it = read.find(planned[c].key.str());
    if (it == read.end() || !it->second.seen)
      out.emplace_back(); // not measured (stopped): measured on resume
    else
      out.emplace_back(it->second.outcome);
  }
  return out;
}
