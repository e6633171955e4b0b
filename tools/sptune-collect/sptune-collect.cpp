//===- sptune-collect.cpp - Collect measurements into a dataset -----------===//
//
//   sptune-collect DIR_OR_FILES_OR_SPECS... --kernel spmm,sddmm
//                  --samples 40 --out samples.jsonl [--workers 1]
//
// Measures the baselines and M sampled schedules per matrix in worker
// processes and appends one record per measurement to the dataset
// (docs/dataset.md). Kill it and run it again: records already in the
// dataset are not measured again, and nothing reported is lost.
//
//===----------------------------------------------------------------------===//

#include "sptune/Collect/Collection.h"
#include "sptune/InitAllTargets.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Target/ScheduleSpace.h"
#include "sptune/Target/Target.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <csignal>

using namespace sptune;
namespace cl = llvm::cl;

static cl::OptionCategory category("sptune-collect options");

static cl::list<std::string> matrixInputs(
    cl::cat(category), cl::Positional,
    cl::desc(
        "<matrix: .mtx file, directory, gen: spec; @file = one per line>..."),
    cl::OneOrMore);
static cl::list<std::string> kernels(cl::cat(category), "kernel",
                                     cl::desc("spmm, sddmm, spmv"),
                                     cl::CommaSeparated);
static cl::opt<int64_t> freeSize(cl::cat(category), "free",
                                 cl::desc("N of SpMM, K of SDDMM"),
                                 cl::init(64));
static cl::opt<unsigned> samples(cl::cat(category), "samples",
                                 cl::desc("Sampled schedules per matrix and "
                                          "kernel"),
                                 cl::init(40));
static cl::opt<uint64_t> seed(cl::cat(category), "seed",
                              cl::desc("Sampling seed"), cl::init(1));
static cl::opt<std::string> out(cl::cat(category), "out",
                                cl::desc("Dataset (JSONL, appended)"),
                                cl::Required);
static cl::opt<unsigned> workerCount(cl::cat(category), "workers",
                                     cl::desc("Measurement worker processes "
                                              "(more than one perturbs "
                                              "timings)"),
                                     cl::init(1));
static cl::opt<double> timeout(cl::cat(category), "timeout",
                               cl::desc("Seconds per measurement"),
                               cl::init(120));
static cl::opt<double> minSeconds(cl::cat(category), "min-seconds",
                                  cl::desc("Minimum timed seconds per "
                                           "measurement"),
                                  cl::init(0.2));
static cl::opt<int> minReps(cl::cat(category), "min-reps",
                            cl::desc("Minimum repetitions"), cl::init(5));
static cl::list<std::string>
    baselines(cl::cat(category), "baselines",
              cl::desc("heuristic or the target's baselines (cpu: "
                       "mlir-default, eigen, rsb = autotuned librsb, reference "
                       "= hand-written OpenMP kernels, torch = LibTorch sparse; "
                       "default: mlir-default, "
                       "heuristic, eigen)"),
              cl::CommaSeparated);
static cl::opt<bool> noBaselines(cl::cat(category), "no-baselines",
                                 cl::desc("Measure sampled schedules only"));
static cl::opt<int64_t> minNnz(cl::cat(category), "min-nnz",
                               cl::desc("Skip smaller matrices"), cl::init(0));
static cl::opt<int64_t> maxNnz(cl::cat(category), "max-nnz",
                               cl::desc("Skip larger matrices"),
                               cl::init(INT64_MAX));
static cl::opt<bool> noRetry(
    cl::cat(category), "no-retry",
    cl::desc("On resume, do not measure again what crashed, timed out or hit "
             "a worker error (by default those are retried)"));
static cl::opt<bool> fsyncEach(cl::cat(category), "fsync",
                               cl::desc("fsync after each record"));
static cl::opt<bool> byName(cl::cat(category), "by-name",
                            cl::desc("Measure matrices in name order (default: "
                                     "smallest first, for early coverage)"));
static cl::opt<bool> spaceSize(cl::cat(category), "space-size",
                               cl::desc("Print the size of the legal "
                                        "schedule space per matrix and "
                                        "kernel, measure nothing"));
static cl::opt<std::string>
    modelPath(cl::cat(category), "model",
              cl::desc("Active learning: also measure the schedules "
                       "this cost model ranks best (development "
                       "mode model file)"));
static cl::opt<unsigned> modelTopK(cl::cat(category), "model-top-k",
                                   cl::desc("How many of the model's best "
                                            "candidates to measure"),
                                   cl::init(8));
static cl::opt<unsigned> modelCandidates(cl::cat(category), "model-candidates",
                                         cl::desc("Candidates the model ranks "
                                                  "per matrix"),
                                         cl::init(1000));
static cl::opt<std::string>
    target(cl::cat(category), "target",
           cl::desc("A registered target (cpu, nvvm, spade)"), cl::init("cpu"));
static cl::opt<std::string> worker(cl::cat(category), "worker-exe",
                                   cl::desc("sptune-measure executable"));

static std::atomic<bool> interrupted{false};
static void onSignal(int) { interrupted = true; }

/// Prints the size of the legal schedule space per matrix and kernel.
static int printSpaceSizes(const std::vector<std::string> &sources,
                           const ScheduleSpace &space,
                           const CollectOptions &options) {
  for (const std::string &source : sources) {
    CooMatrix coo;
    MatrixInfo info;
    std::string error;
    if (!loadMatrix(source, coo, info, error)) {
      llvm::errs() << "sptune-collect: skipping " << source << ": " << error
                   << "\n";
      continue;
    }
    coo.canonicalize();
    if (coo.nnz() < minNnz || coo.nnz() > maxNnz)
      continue;
    for (const std::string &k : options.kernels) {
      KernelType kt = *parseKernelType(k);
      ProblemShape shape{kt, coo.rows, coo.cols,
                         kt == KernelType::SpMV ? 1 : options.free, coo.nnz()};
      llvm::outs() << info.id << " " << k << " " << space.size(shape) << "\n";
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "sptune measurement collector\n");
  registerAllTargets();
  auto fail = [](const llvm::Twine &message) {
    llvm::errs() << "sptune-collect: " << message << "\n";
    return 2;
  };

  CollectionPlanOptions planOptions;
  CollectOptions &options = planOptions.collect;
  if (!kernels.empty())
    options.kernels.assign(kernels.begin(), kernels.end());
  for (const std::string &k : options.kernels)
    if (!parseKernelType(k))
      return fail("unknown kernel '" + k + "'");
  options.free = freeSize;
  options.target = target;
  llvm::Expected<const Target &> targetInfo = TargetRegistry::get(target);
  if (!targetInfo)
    return fail(llvm::toString(targetInfo.takeError()));
  options.samples = samples;
  options.seed = seed;
  if (noBaselines)
    options.baselines.clear();
  else if (!baselines.empty())
    options.baselines.assign(baselines.begin(), baselines.end());
  options.measure.minSeconds = minSeconds;
  options.measure.minReps = minReps;
  options.measure.timeoutSeconds = timeout;
  planOptions.minNnz = minNnz;
  planOptions.maxNnz = maxNnz;
  planOptions.smallestFirst = !byName;
  planOptions.modelCandidates = modelCandidates;
  planOptions.modelTopK = modelTopK;

  std::vector<std::string> sources;
  std::string error;
  if (!expandMatrixSources({matrixInputs.begin(), matrixInputs.end()}, sources,
                           error))
    return fail(error);
  if (sources.empty())
    return fail("no matrices");
  if (spaceSize)
    return printSpaceSizes(sources, targetInfo->space(), options);

  std::unique_ptr<CostModel> model;
  if (!modelPath.empty()) {
    model = createCostModel(CostModelMode::Development, modelPath, &error);
    if (!model)
      return fail("cannot load the model: " + error);
    planOptions.model = model.get();
  }
  llvm::Expected<CollectionPlan> plan = planCollection(sources, planOptions);
  if (!plan)
    return fail(llvm::toString(plan.takeError()));
  for (const std::string &warning : plan->warnings)
    llvm::errs() << "sptune-collect: " << warning << "\n";

  PendingRequests pending = pendingRequests(*plan, out, !noRetry);
  if (pending.unreadableLines)
    llvm::errs() << "sptune-collect: " << pending.unreadableLines
                 << " unreadable line(s) in the dataset are ignored\n";
  llvm::errs() << "sptune-collect: " << sources.size() << " matrices, "
               << plan->requests.size() << " measurements planned, "
               << pending.alreadyDone << " already in " << out << ", "
               << pending.requests.size() << " to do\n";
  if (pending.requests.empty())
    return 0;

  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  CollectionRunOptions run;
  run.datasetPath = out;
  run.fsyncEach = fsyncEach;
  run.worker.executable = worker;
  run.worker.timeoutSeconds = timeout;
  run.workers = workerCount;
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
      &interrupted);
  llvm::errs() << "\n";
  if (!result) {
    llvm::errs() << "sptune-collect: " << llvm::toString(result.takeError())
                 << "\n";
    return 1;
  }
  for (auto &[status, n] : result->progress.statuses)
    llvm::errs() << "  " << status << ": " << n << "\n";
  if (result->interrupted) {
    llvm::errs() << "sptune-collect: interrupted after "
                 << result->progress.done
                 << " measurements; run again to resume\n";
    return 130;
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
