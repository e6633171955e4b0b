//===- Collection.cpp - A whole measurement collection --------------------===//

#include "sptune/Collect/Collection.h"

#include "sptune/Collect/LocalBackend.h"

#include "sptune/CostModel/MatrixFeatures.h"
#include "sptune/Matrix/MatrixStats.h"
#include "sptune/Matrix/MeasuredOperand.h"
#include "sptune/Schedule/DatasetSchema.h"
#include "sptune/Support/Error.h"
#include "sptune/Target/Measurer.h"
#include "sptune/Target/Target.h"
#include "sptune/Tune/KnobNeighbourhood.h"
#include "sptune/Tune/ScheduleTuner.h"

#include <algorithm>
#include <chrono>

using namespace sptune;

static llvm::Error failure(const std::string &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<CollectionPlan>
sptune::planCollection(const std::vector<std::string> &sources,
                       const CollectionPlanOptions &options) {
  const CollectOptions &collect = options.collect;
  llvm::Expected<const Target &> target = TargetRegistry::get(collect.target);
  if (!target)
    return target.takeError();
  if (options.model && !options.model->supports(target->kind()))
    return failure(options.model->description() +
                   " was not trained for target '" + collect.target + "'");
  CollectionPlan plan;
  std::vector<std::pair<int64_t, std::vector<PlannedRequest>>> perMatrix;
  for (const std::string &source : sources) {
    MeasuredOperand operand;
    std::string error;
    if (takeErrorMessage(loadMeasuredOperand(source, operand), error)) {
      plan.warnings.push_back("skipping " + source + ": " + error);
      continue;
    }
    if (operand.nnz < options.minNnz || operand.nnz > options.maxNnz)
      continue;
    const MatrixInfo &info = operand.info;
    // The kernels measured on this operand: an MTTKRP and a batched SpMM on
    // a tensor, the others on a matrix.
    CollectOptions here = collect;
    llvm::erase_if(here.kernels, [&](const std::string &k) {
      std::string why =
          whyNotMeasuredOn(*parseKernelType(k), operand.isTensor(), info.id);
      if (!why.empty())
        plan.warnings.push_back("not planned: " + why);
      return !why.empty();
    });
    if (here.kernels.empty()) {
      ++plan.unsuited;
      continue;
    }
    std::vector<PlannedRequest> requests =
        planMatrix(source, info.id, operand.rows, operand.cols, operand.nnz,
                   target->space(), here);
    const CsrMatrix &csr = operand.matrix;
    std::optional<MatrixFeatures> features;
    if (options.model)
      features = featurizeOperand(operand);
    if (options.model) {
      // Active learning: the model's favourites are where its errors
      // matter; measuring them corrects its optimism (winner's curse).
      for (const std::string &k : here.kernels) {
        KernelType kt = *parseKernelType(k);
        TuneOptions tune;
        tune.features = &*features;
        tune.target = target->kind();
        tune.candidates = options.modelCandidates;
        tune.topK = options.modelTopK;
        tune.seed = collect.seed + 17;
        tune.onlyThisMachine = false;
        tune.unseenKnobsByRule = false;
        llvm::Expected<TuneResult> ranked =
            tuneSchedule(*options.model, csr, kt,
                         Schedule::freeLoopSize(kt, collect.free), tune);
        if (!ranked) {
          plan.warnings.push_back("model ranking failed on " + info.id + ": " +
                                  llvm::toString(ranked.takeError()));
          continue;
        }
        for (const RankedCandidate &c : ranked->top)
          requests.push_back(makeRequest(source, info.id, k,
                                         std::string(dataset::kRoleModel),
                                         c.schedule.str(), "", here));
      }
    }
    if (options.neighbours > 0) {
      // The heuristic's neighbourhood: what the training data must hold
      // whatever the sample and the model's favourites happen to miss.
      MatrixStats stats = heuristicStats(operand);
      for (const std::string &k : here.kernels) {
        KernelType kt = *parseKernelType(k);
        int64_t free = Schedule::freeLoopSize(kt, collect.free);
        Schedule heuristic = target->heuristicSchedule(kt, &stats, free);
        uint64_t seed = collect.seed ^
                        std::hash<std::string>()(info.id + "|" + k + "|nbr");
        std::vector<Schedule> near = nearestKnobNeighbours(
            *target, heuristic, options.neighbours, operand.rows, operand.cols,
            operand.nnz, seed);
        if (near.size() < options.neighbours)
          plan.warnings.push_back(
              info.id + " " + k + ": " + std::to_string(near.size()) +
              " neighbour schedule(s) within reach, not " +
              std::to_string(options.neighbours));
        for (const Schedule &s : near)
          requests.push_back(makeRequest(source, info.id, k,
                                         std::string(dataset::kRoleNeighbour),
                                         s.str(), "", here));
      }
    }
    // Keyed by content too: another matrix under the same name is measured.
    std::string hash = contentKey(operand.contentHash);
    for (PlannedRequest &p : requests)
      p.key.matrixHash = hash;
    perMatrix.emplace_back(operand.nnz, std::move(requests));
  }
  if (options.smallestFirst)
    std::stable_sort(
        perMatrix.begin(), perMatrix.end(),
        [](const auto &a, const auto &b) { return a.first < b.first; });
  plan.matrices = perMatrix.size();
  for (auto &[nnz, requestsOfMatrix] : perMatrix)
    for (PlannedRequest &p : requestsOfMatrix)
      plan.requests.push_back(std::move(p));
  return plan;
}

uint64_t sptune::stableHash(const std::string &text) {
  uint64_t h = 14695981039346656037ull; // FNV-1a 64 offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

void sptune::keepShard(CollectionPlan &plan, unsigned index, unsigned count) {
  if (count <= 1)
    return;
  std::vector<PlannedRequest> kept;
  for (PlannedRequest &p : plan.requests)
    if (stableHash(p.key.str()) % count == index)
      kept.push_back(std::move(p));
  plan.requests = std::move(kept);
}

PendingRequests sptune::pendingRequests(const CollectionPlan &plan,
                                        const std::string &datasetPath,
                                        bool retryTransient) {
  PendingRequests pending;
  pending.retryTransient = retryTransient;
  std::unordered_set<std::string> have = readDatasetKeys(
      datasetPath, &pending.unreadableLines, retryTransient);
  for (const PlannedRequest &p : plan.requests) {
    // Records written before content keys are matched by name.
    if (have.count(p.key.str()) || have.count(p.key.legacyStr())) {
      ++pending.alreadyDone;
      continue;
    }
    MeasureRequest request = p.request;
    request.id = static_cast<int64_t>(pending.requests.size());
    pending.requests.push_back(std::move(request));
    pending.keys.push_back(p.key);
  }
  return pending;
}

/// The requests of `pending` that `datasetPath` does not hold (yet).
static PendingRequests notYetRecorded(const PendingRequests &pending,
                                      const std::string &datasetPath) {
  std::unordered_set<std::string> have =
      readDatasetKeys(datasetPath, nullptr, pending.retryTransient);
  PendingRequests rest;
  rest.alreadyDone = pending.alreadyDone;
  rest.unreadableLines = pending.unreadableLines;
  rest.retryTransient = pending.retryTransient;
  for (size_t i = 0; i < pending.requests.size(); ++i) {
    const RecordKey &key = pending.keys[i];
    if (have.count(key.str()) || have.count(key.legacyStr())) {
      ++rest.alreadyDone;
      continue;
    }
    MeasureRequest request = pending.requests[i];
    request.id = static_cast<int64_t>(rest.requests.size()); // keys[id]
    rest.requests.push_back(std::move(request));
    rest.keys.push_back(key);
  }
  return rest;
}

llvm::Expected<CollectionResult> sptune::measureIntoDataset(
    const PendingRequests &planned, const CollectionRunOptions &options,
    const std::function<void(const CollectionProgress &)> &onProgress,
    const std::atomic<bool> *stop) {
  CollectionResult result;
  result.progress.total = planned.requests.size();
  if (planned.requests.empty())
    return result;
  DatasetWriter writer;
  std::string error;
  if (takeErrorMessage(writer.open(options.datasetPath, options.fsyncEach),
                       error))
    return failure(error);
  // `planned` was read before the lock was taken: another collector on the
  // same output may have finished since, and what it wrote is done.
  const PendingRequests pending = notYetRecorded(planned, options.datasetPath);
  result.recordedMeanwhile = planned.requests.size() - pending.requests.size();
  result.progress.total = pending.requests.size();
  if (pending.requests.empty())
    return result;

  std::shared_ptr<MeasurementBackend> backend = options.backend;
  if (!backend)
    backend = std::make_shared<LocalBackend>(options.worker, options.workers);
  // Only the pending keys, each once: a backend may hand back records of an
  // earlier batch (re-attached Slurm jobs) or the same key twice.
  std::unordered_set<std::string> wanted;
  for (const RecordKey &k : pending.keys)
    wanted.insert(k.str());
  bool writeFailed = false;
  auto start = std::chrono::steady_clock::now();
  CollectionProgress &progress = result.progress;
  llvm::Error err = backend->measure(
      pending,
      [&](const MeasuredRecord &record) {
        if (!wanted.erase(record.key))
          return !writeFailed;
        if (!writer.append(record.line))
          writeFailed = true;
        ++progress.done;
        ++progress.statuses[record.status];
        progress.secondsElapsed = std::chrono::duration<double>(
                                      std::chrono::steady_clock::now() - start)
                                      .count();
        if (onProgress)
          onProgress(progress);
        return !writeFailed;
      },
      stop);
  if (err)
    return std::move(err);
  if (writeFailed)
    return failure("writing " + options.datasetPath + " failed");
  size_t left = progress.total - progress.done;
  bool stopped = stop && stop->load();
  result.interrupted = left > 0 && stopped;
  result.missing = stopped ? 0 : left;
  return result;
}
