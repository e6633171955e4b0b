//===- CollectDriver.cpp - What sptune-collect does, as a library call ----===//

#include "sptune/Collect/CollectDriver.h"
#include "sptune/Collect/Dataset.h"
#include "sptune/Collect/RequestFile.h"
#include "sptune/CostModel/CostModel.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Matrix/MeasuredOperand.h"
#include "sptune/Support/Error.h"
#include "sptune/Target/Measurer.h"
#include "sptune/Target/ScheduleSpace.h"
#include "sptune/Target/Target.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace sptune;

/// Limits of sizes that set work and memory (documented in --help).
static constexpr unsigned kMaxWorkers = 256;
static constexpr size_t kMaxSamples = 100000;

static int fail(const llvm::Twine &message) {
  llvm::errs() << "sptune-collect: " << message << "\n";
  return 2;
}

/// Parses "I/N" with I < N.
static bool parseShare(const std::string &text, unsigned &index,
                       unsigned &count) {
  size_t slash = text.find('/');
  if (slash == std::string::npos)
    return false;
  llvm::StringRef i(text.data(), slash), n(text.data() + slash + 1,
                                           text.size() - slash - 1);
  return !i.getAsInteger(10, index) && !n.getAsInteger(10, count) &&
         count > 0 && index < count;
}

int sptune::runCollectMerge(const std::vector<std::string> &inputs,
                            const std::string &output) {
  MergeSummary summary;
  if (llvm::Error e = mergeDatasets(inputs, output, summary)) {
    llvm::errs() << "sptune-collect merge: " << llvm::toString(std::move(e))
                 << "\n";
    return 1;
  }
  llvm::errs() << "sptune-collect merge: " << inputs.size() << " file(s), "
               << summary.lines << " lines -> " << summary.records
               << " records in " << output << " (" << summary.duplicates
               << " duplicate(s) dropped, " << summary.replaced
               << " failed record(s) replaced by ok ones, "
               << summary.unreadable << " unreadable line(s))\n";
  return 0;
}

int sptune::runCollectRequests(const std::string &requests,
                               const std::string &task, const std::string &out,
                               const WorkerOptions &worker,
                               const std::atomic<bool> &stop) {
  unsigned index = 0, count = 0;
  if (!parseShare(task, index, count))
    return fail("--run-requests needs --task I/T with I < T");
  llvm::Expected<CollectionResult> r =
      runRequestFile(requests, index, count, out, worker, &stop);
  if (!r)
    return fail(llvm::toString(r.takeError()));
  llvm::errs() << "sptune-collect: task " << index << "/" << count << ": "
               << r->progress.done << " measured\n";
  return r->interrupted ? 130 : r->missing ? 1 : 0;
}

/// Prints the size of the legal schedule space per matrix and kernel.
static int printSpaceSizes(const std::vector<std::string> &sources,
                           const ScheduleSpace &space,
                           const CollectionPlanOptions &plan) {
  const CollectOptions &options = plan.collect;
  for (const std::string &source : sources) {
    MeasuredOperand operand;
    std::string error;
    if (takeErrorMessage(loadMeasuredOperand(source, operand), error)) {
      llvm::errs() << "sptune-collect: skipping " << source << ": " << error
                   << "\n";
      continue;
    }
    if (operand.nnz < plan.minNnz || operand.nnz > plan.maxNnz)
      continue;
    for (const std::string &k : options.kernels) {
      KernelType kt = *parseKernelType(k);
      if (!whyNotMeasuredOn(kt, operand.isTensor(), operand.info.id).empty())
        continue;
      ProblemShape shape{kt, operand.rows, operand.cols,
                         Schedule::freeLoopSize(kt, options.free), operand.nnz};
      llvm::outs() << operand.info.id << " " << k << " " << space.size(shape)
                   << "\n";
    }
  }
  return 0;
}

/// Checks the options and fills in what they imply; an empty string when
/// they are fine, else the message.
static std::string prepare(CollectDriverOptions &o, const Target &target) {
  CollectOptions &options = o.plan.collect;
  // A kernel named twice planned every measurement twice: the second copy
  // of a key never completed, and the run ended as "interrupted".
  std::vector<std::string> kernels;
  for (const std::string &k : options.kernels)
    if (std::find(kernels.begin(), kernels.end(), k) == kernels.end())
      kernels.push_back(k);
  options.kernels = std::move(kernels);
  if (o.noBaselines)
    options.baselines.clear();
  else if (!o.namedBaselines.empty())
    options.baselines = o.namedBaselines;
  options.measure.minSeconds = o.minSeconds;
  options.measure.minReps = o.minReps;
  options.measure.maxReps = std::max(options.measure.maxReps, o.minReps);
  options.measure.timeoutSeconds = o.timeout;
  // Checked before anything is planned or written: a value out of range made
  // a dataset of error records (or, for the timeout, of timeouts), 100,000
  // workers an abort and 4e9 samples a hang (issue 13 probe).
  if (std::string why = whyInvalid(options.measure); !why.empty())
    return "--min-reps, --min-seconds or --timeout out of range: " + why;
  if (options.free < 1 || options.free > (1 << 16))
    return "--free must be in [1, 65536], got " + std::to_string(options.free);
  if (options.elementBits != 32 && options.elementBits != 64)
    return "--bits must be 32 (f32) or 64 (f64), got " +
           std::to_string(options.elementBits);
  if (o.workers < 1 || o.workers > kMaxWorkers)
    return "--workers must be in [1, " + std::to_string(kMaxWorkers) +
           "], got " + std::to_string(o.workers);
  if (options.samples > kMaxSamples || o.plan.modelCandidates > kMaxSamples ||
      o.plan.modelTopK > kMaxSamples || o.plan.neighbours > kMaxSamples)
    return "--samples, --model-candidates, --model-top-k and --neighbours "
           "must be at most " +
           std::to_string(kMaxSamples);
  // Baselines named on the command line must exist for the target (the
  // default list keeps those that do).
  if (o.noBaselines)
    return "";
  std::vector<std::string> known = target.baselines();
  known.insert(known.begin(), "heuristic");
  for (const std::string &b : o.namedBaselines)
    if (std::find(known.begin(), known.end(), b) == known.end()) {
      std::string list;
      for (const std::string &k : known)
        list += (list.empty() ? "" : ", ") + k;
      return "unknown baseline '" + b + "' for target '" + options.target +
             "' (expected " + list + ")";
    }
  return "";
}

int sptune::runCollectDriver(CollectDriverOptions o,
                             const std::atomic<bool> &stop) {
  if (o.matrixInputs.empty())
    return fail("no matrices given (or: sptune-collect merge -o OUT IN...)");
  unsigned shardIndex = 0, shardCount = 1;
  if (!o.shard.empty() && !parseShare(o.shard, shardIndex, shardCount))
    return fail("--shard wants I/N with 0 <= I < N, got '" + o.shard + "'");
  for (const std::string &k : o.plan.collect.kernels) {
    std::optional<KernelType> kernel = parseKernelType(k);
    if (!kernel)
      return fail("unknown kernel '" + k + "'");
    // A kernel measured on neither a matrix nor a 3-D tensor (none of the
    // built-in kinds since the batched SpMM is measured on tensors; kept for
    // kinds that may be) is refused before anything is read.
    if (!whyNotMeasuredOn(*kernel, false, "").empty() &&
        !whyNotMeasuredOn(*kernel, true, "").empty())
      return fail("--kernel " + k + ": " + whyKernelNotMeasured(*kernel));
  }
  // Before anything is read or measured.
  if (std::string why = whyNotPlainDatasetOutput(o.out); !why.empty())
    return fail("--out: " + why);
  llvm::Expected<const Target &> target =
      TargetRegistry::get(o.plan.collect.target);
  if (!target)
    return fail(llvm::toString(target.takeError()));
  if (std::string why = prepare(o, *target); !why.empty())
    return fail(why);

  std::vector<std::string> sources;
  std::string error;
  if (takeErrorMessage(expandMatrixSources(o.matrixInputs, sources), error))
    return fail(error);
  if (sources.empty())
    return fail("no matrices");
  if (o.spaceSize)
    return printSpaceSizes(sources, target->space(), o.plan);

  std::unique_ptr<CostModel> model;
  if (!o.modelPath.empty()) {
    model = takeValue(createCostModel(CostModelMode::Development, o.modelPath),
                      error)
                .value_or(nullptr);
    if (!model)
      return fail("cannot load the model: " + error);
    o.plan.model = model.get();
  }
  llvm::Expected<CollectionPlan> plan = planCollection(sources, o.plan);
  if (!plan)
    return fail(llvm::toString(plan.takeError()));
  for (const std::string &warning : plan->warnings)
    llvm::errs() << "sptune-collect: " << warning << "\n";
  // Every matrix unreadable is a failed run, not an empty dataset.
  size_t unreadable = std::count_if(
      plan->warnings.begin(), plan->warnings.end(), [](const std::string &w) {
        return llvm::StringRef(w).starts_with("skipping ");
      });
  if (plan->matrices == 0 && unreadable == sources.size()) {
    llvm::errs() << "sptune-collect: none of the " << sources.size()
                 << " matrices could be loaded\n";
    return 1;
  }
  if (plan->matrices == 0 && unreadable + plan->unsuited == sources.size() &&
      plan->unsuited > 0) {
    llvm::errs() << "sptune-collect: no kernel given is measured on these "
                    "sources (an MTTKRP and a batched SpMM on 3-D tensors, "
                    "the others on "
                    "matrices)\n";
    return 1;
  }
  if (shardCount > 1) {
    size_t whole = plan->requests.size();
    keepShard(*plan, shardIndex, shardCount);
    llvm::errs() << "sptune-collect: shard " << shardIndex << "/"
                 << shardCount << ": " << plan->requests.size() << " of "
                 << whole << " measurements\n";
  }

  PendingRequests pending = pendingRequests(*plan, o.out, !o.noRetry);
  if (pending.unreadableLines)
    llvm::errs() << "sptune-collect: " << pending.unreadableLines
                 << " unreadable line(s) in the dataset are ignored\n";
  llvm::errs() << "sptune-collect: " << sources.size() << " matrices, "
               << plan->requests.size() << " measurements planned, "
               << pending.alreadyDone << " already in " << o.out << ", "
               << pending.requests.size() << " to do\n";
  if (pending.requests.empty())
    return 0;

  if (o.beforeMeasuring)
    o.beforeMeasuring();
  CollectionRunOptions run;
  run.datasetPath = o.out;
  run.fsyncEach = o.fsyncEach;
  run.worker.executable = o.workerExe;
  run.worker.timeoutSeconds = o.timeout;
  run.workers = o.workers;
  if (o.makeBackend) {
    llvm::Expected<std::shared_ptr<MeasurementBackend>> backend =
        o.makeBackend(run.worker, o.out);
    if (!backend)
      return fail(llvm::toString(backend.takeError()));
    run.backend = *backend;
  }
  llvm::Expected<CollectionResult> result = measureIntoDataset(
      pending, run,
      [](const CollectionProgress &p) {
        double rate = p.done / std::max(p.secondsElapsed, 1e-9);
        size_t ok = p.statuses.count("ok") ? p.statuses.at("ok") : 0;
        llvm::errs() << "\r[" << p.done << "/" << p.total << "] "
                     << llvm::format("%.1f", rate * 60) << " meas/min, ETA "
                     << llvm::format("%.0f", (p.total - p.done) / rate)
                     << " s, ok " << ok << ", failed " << p.done - ok << "   ";
      },
      &stop);
  llvm::errs() << "\n";
  if (!result) {
    llvm::errs() << "sptune-collect: " << llvm::toString(result.takeError())
                 << "\n";
    return 1;
  }
  if (result->recordedMeanwhile)
    llvm::errs() << "sptune-collect: " << result->recordedMeanwhile
                 << " pending measurement(s) were recorded by another "
                    "collector on '"
                 << o.out << "' meanwhile; not measured again\n";
  for (auto &[status, n] : result->progress.statuses)
    llvm::errs() << "  " << status << ": " << n << "\n";
  if (result->interrupted) {
    llvm::errs() << "sptune-collect: interrupted after "
                 << result->progress.done
                 << " measurements; run again to resume\n";
    return 130;
  }
  if (result->missing) {
    llvm::errs() << "sptune-collect: " << result->missing << " of "
                 << result->progress.total
                 << " measurements did not come back (the backend gave up on "
                    "them; see its log); run again to retry them\n";
    return 1;
  }
  // Nothing measured at all is a broken setup (worker path, timeout,
  // matrices), not a dataset: say so with the exit status.
  const auto &statuses = result->progress.statuses;
  if (result->progress.done > 0 && !statuses.count("ok")) {
    llvm::errs() << "sptune-collect: none of the " << result->progress.done
                 << " measurements succeeded; check the worker (--worker-exe), "
                    "the timeout and the matrices\n";
    return 1;
  }
  return 0;
}
