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
//   sptune-collect ... --shard I/N        measure a deterministic share
//   sptune-collect merge -o OUT IN...     join shard datasets, one per key
//   sptune-collect ... --backend slurm    measure as Slurm job arrays
//   sptune-collect --run-requests FILE --task I/T --out OUT
//                                         (what a Slurm array task runs)
//
// See docs/cluster.md.
//
//===----------------------------------------------------------------------===//

#include "sptune/Collect/BackendOptions.h"
#include "sptune/Collect/Collection.h"
#include "sptune/Collect/Dataset.h"
#include "sptune/Collect/RequestFile.h"
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
    cl::ZeroOrMore);
static cl::list<std::string> kernels(cl::cat(category), "kernel",
                                     cl::desc("spmm, sddmm, spmv"),
                                     cl::CommaSeparated);
static cl::opt<int64_t> freeSize(cl::cat(category), "free",
                                 cl::desc("N of SpMM, K of SDDMM"),
                                 cl::init(64));
static cl::opt<unsigned> samples(cl::cat(category), "samples",
                                 cl::desc("Sampled schedules per matrix and "
                                          "kernel (at most 100000)"),
                                 cl::init(40));
static cl::opt<uint64_t> seed(cl::cat(category), "seed",
                              cl::desc("Sampling seed"), cl::init(1));
static cl::opt<std::string> out(cl::cat(category), "out",
                                cl::desc("Dataset (JSONL, appended)"),
                                cl::Required);
static cl::opt<unsigned> workerCount(cl::cat(category), "workers",
                                     cl::desc("Measurement worker processes "
                                              "(1 to 256; more than one "
                                              "perturbs timings)"),
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
static cl::opt<unsigned> neighbours(
    cl::cat(category), "neighbours",
    cl::desc("Also measure the target's heuristic schedule and its N-1 "
             "nearest knob settings per matrix and kernel (role "
             "\"neighbour\"; default 0 = none)"),
    cl::init(0));
static cl::opt<std::string>
    target(cl::cat(category), "target",
           cl::desc("A registered target (cpu, nvvm, spade)"), cl::init("cpu"));
static cl::opt<std::string> worker(cl::cat(category), "worker-exe",
                                   cl::desc("sptune-measure executable"));

static cl::opt<std::string>
    shard(cl::cat(category), "shard",
          cl::desc("I/N: measure share I (0-based) of N of the plan (by a "
                   "stable hash of each record key); merge the N datasets "
                   "with `sptune-collect merge`"));
static cl::opt<std::string>
    runRequests(cl::cat(category), "run-requests",
                cl::desc("Measure a request file of the Slurm backend "
                         "(with --task I/T and --out)"));
static cl::opt<std::string> task(cl::cat(category), "task",
                                 cl::desc("I/T: the share of --run-requests"));
static BackendCommandLine backendOptions(category);

/// Limits of sizes that set work and memory (documented in --help).
static constexpr unsigned kMaxWorkers = 256;
static constexpr unsigned kMaxSamples = 100000;

static std::atomic<bool> interrupted{false};

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

/// `sptune-collect merge -o OUT IN...`.
static int mergeMain(int argc, char **argv) {
  std::string output;
  std::vector<std::string> inputs;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "-o" || a == "--out" || a == "-out") && i + 1 < argc)
      output = argv[++i];
    else if (a.rfind("--out=", 0) == 0)
      output = a.substr(6);
    else if (a == "-h" || a == "--help") {
      llvm::outs() << "usage: sptune-collect merge -o OUT IN...\n"
                      "Joins datasets (e.g. shard outputs) into OUT: one "
                      "record per key, an ok record over a failed one; OUT "
                      "is written atomically and may be one of the inputs.\n";
      return 0;
    } else
      inputs.push_back(a);
  }
  if (output.empty() || inputs.empty()) {
    llvm::errs() << "usage: sptune-collect merge -o OUT IN...\n";
    return 2;
  }
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
  if (argc > 1 && llvm::StringRef(argv[1]) == "merge")
    return mergeMain(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "sptune measurement collector\n");
  registerAllTargets();
  auto fail = [](const llvm::Twine &message) {
    llvm::errs() << "sptune-collect: " << message << "\n";
    return 2;
  };
  if (!runRequests.empty()) {
    // A Slurm array task: measure one share of a request file.
    unsigned index = 0, count = 0;
    if (!parseShare(task, index, count))
      return fail("--run-requests needs --task I/T with I < T");
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    WorkerOptions w;
    w.executable = worker;
    w.timeoutSeconds = timeout;
    llvm::Expected<CollectionResult> r =
        runRequestFile(runRequests, index, count, out, w, &interrupted);
    if (!r)
      return fail(llvm::toString(r.takeError()));
    llvm::errs() << "sptune-collect: task " << index << "/" << count << ": "
                 << r->progress.done << " measured\n";
    return r->interrupted ? 130 : 0;
  }
  if (matrixInputs.empty())
    return fail("no matrices given (or: sptune-collect merge -o OUT IN...)");
  unsigned shardIndex = 0, shardCount = 1;
  if (!shard.empty() && !parseShare(shard, shardIndex, shardCount))
    return fail("--shard wants I/N with 0 <= I < N, got '" + shard + "'");

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
  options.measure.maxReps = std::max(options.measure.maxReps, minReps.getValue());
  options.measure.timeoutSeconds = timeout;
  // Checked before anything is planned or written: a value out of range made
  // a dataset of error records (or, for the timeout, of timeouts), 100,000
  // workers an abort and 4e9 samples a hang (issue 13 probe).
  if (std::string why = whyInvalid(options.measure); !why.empty())
    return fail("--min-reps, --min-seconds or --timeout out of range: " + why);
  if (freeSize < 1 || freeSize > (1 << 16))
    return fail("--free must be in [1, 65536], got " +
                std::to_string(freeSize));
  if (workerCount < 1 || workerCount > kMaxWorkers)
    return fail("--workers must be in [1, " + std::to_string(kMaxWorkers) +
                "], got " + std::to_string(workerCount));
  if (samples > kMaxSamples || modelCandidates > kMaxSamples ||
      modelTopK > kMaxSamples || neighbours > kMaxSamples)
    return fail("--samples, --model-candidates, --model-top-k and "
                "--neighbours must be at most " +
                std::to_string(kMaxSamples));
  // Baselines named on the command line must exist for the target (the
  // default list keeps those that do).
  if (!noBaselines) {
    std::vector<std::string> known = targetInfo->baselines();
    known.insert(known.begin(), "heuristic");
    for (const std::string &b : baselines)
      if (std::find(known.begin(), known.end(), b) == known.end()) {
        std::string list;
        for (const std::string &k : known)
          list += (list.empty() ? "" : ", ") + k;
        return fail("unknown baseline '" + b + "' for target '" + target +
                    "' (expected " + list + ")");
      }
  }
  planOptions.minNnz = minNnz;
  planOptions.maxNnz = maxNnz;
  planOptions.smallestFirst = !byName;
  planOptions.modelCandidates = modelCandidates;
  planOptions.modelTopK = modelTopK;
  planOptions.neighbours = neighbours;

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
  if (shardCount > 1) {
    size_t whole = plan->requests.size();
    keepShard(*plan, shardIndex, shardCount);
    llvm::errs() << "sptune-collect: shard " << shardIndex << "/"
                 << shardCount << ": " << plan->requests.size() << " of "
                 << whole << " measurements\n";
  }

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
  llvm::Expected<std::shared_ptr<MeasurementBackend>> backend =
      backendOptions.create(run.worker, out);
  if (!backend)
    return fail(llvm::toString(backend.takeError()));
  run.backend = *backend;
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
