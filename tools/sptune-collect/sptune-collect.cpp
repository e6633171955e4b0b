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
// See docs/cluster.md. The work is sptune/Collect/CollectDriver.h; the
// options bind straight to its fields.
//
//===----------------------------------------------------------------------===//

#include "sptune/Collect/BackendOptions.h"
#include "sptune/Collect/CollectDriver.h"
#include "sptune/InitAllTargets.h"
#include "sptune/Support/BoundOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <csignal>

using namespace sptune;
namespace cl = llvm::cl;

static CollectDriverOptions run;
static CollectOptions &collect = run.plan.collect;
static cl::OptionCategory category("sptune-collect options");

static BoundList matrixInputs(
    cl::cat(category), cl::Positional, cl::ZeroOrMore, at(run.matrixInputs),
    cl::desc("<matrix: .mtx file, directory, gen: spec; an MTTKRP's or a "
             "batched SpMM's 3-D tensor: .tns file, gen3: spec; @file = one "
             "per line>..."));
static cl::list<std::string> kernels(cl::cat(category), "kernel",
                                     cl::desc("spmm (default), sddmm, spmv, "
                                              "spgemm, mttkrp and batched_spmm "
                                              "(on tensors)"),
                                     cl::CommaSeparated);
static BoundOpt<int64_t> freeSize(cl::cat(category), "free", at(collect.free),
                                  cl::desc("N of SpMM and batched SpMM, K of "
                                           "SDDMM, the rank of MTTKRP (64)"));
static BoundOpt<int> elementBits(cl::cat(category), "bits",
                                 at(collect.elementBits),
                                 cl::desc("The kernels' element width: 32 "
                                          "(f32, default) or 64 (f64)"));
static BoundOpt<size_t> samples(cl::cat(category), "samples", at(collect.samples),
                           cl::desc("Sampled schedules per matrix and kernel "
                                    "(40; at most 100000)"));
static BoundOpt<uint64_t> seed(cl::cat(category), "seed", at(collect.seed),
                          cl::desc("Sampling seed"));
static BoundOpt<std::string> out(cl::cat(category), "out", at(run.out), cl::Required,
                            cl::desc("Dataset (JSONL, appended)"));
static BoundOpt<unsigned> workers(cl::cat(category), "workers", at(run.workers),
                             cl::desc("Measurement worker processes (1 to "
                                      "256; more than one perturbs timings)"));
static BoundOpt<double> timeout(cl::cat(category), "timeout", at(run.timeout),
                           cl::desc("Seconds per measurement (120)"));
static BoundOpt<double> minSeconds(cl::cat(category), "min-seconds",
                              at(run.minSeconds),
                              cl::desc("Minimum timed seconds per measurement "
                                       "(0.2)"));
static BoundOpt<int> minReps(cl::cat(category), "min-reps", at(run.minReps),
                        cl::desc("Minimum repetitions (5)"));
static BoundList baselines(
    cl::cat(category), "baselines", at(run.namedBaselines), cl::CommaSeparated,
    cl::desc("heuristic or the target's baselines (cpu: mlir-default, eigen, "
             "rsb = autotuned librsb, reference = hand-written OpenMP "
             "kernels, torch = LibTorch sparse; default: mlir-default, "
             "heuristic, eigen)"));
static BoundOpt<bool> noBaselines(cl::cat(category), "no-baselines",
                             at(run.noBaselines),
                             cl::desc("Measure sampled schedules only"));
static BoundOpt<int64_t> minNnz(cl::cat(category), "min-nnz", at(run.plan.minNnz),
                           cl::desc("Skip smaller matrices"));
static BoundOpt<int64_t> maxNnz(cl::cat(category), "max-nnz", at(run.plan.maxNnz),
                           cl::desc("Skip larger matrices"));
static BoundOpt<bool> noRetry(cl::cat(category), "no-retry", at(run.noRetry),
                         cl::desc("On resume, do not measure again what "
                                  "crashed, timed out or hit a worker error "
                                  "(by default those are retried)"));
static BoundOpt<bool> fsyncEach(cl::cat(category), "fsync", at(run.fsyncEach),
                           cl::desc("fsync after each record"));
static cl::opt<bool> byName(cl::cat(category), "by-name",
                            cl::desc("Measure matrices in name order (default: "
                                     "smallest first, for early coverage)"));
static BoundOpt<bool> spaceSize(cl::cat(category), "space-size", at(run.spaceSize),
                           cl::desc("Print the size of the legal schedule "
                                    "space per matrix and kernel, measure "
                                    "nothing"));
static BoundOpt<std::string> model(cl::cat(category), "model", at(run.modelPath),
                              cl::desc("Active learning: also measure the "
                                       "schedules this cost model ranks best "
                                       "(development mode model file)"));
static BoundOpt<size_t> modelTopK(cl::cat(category), "model-top-k",
                             at(run.plan.modelTopK),
                             cl::desc("How many of the model's best candidates "
                                      "to measure (8)"));
static BoundOpt<size_t> modelCandidates(cl::cat(category), "model-candidates",
                                   at(run.plan.modelCandidates),
                                   cl::desc("Candidates the model ranks per "
                                            "matrix (1000)"));
static BoundOpt<size_t> neighbours(
    cl::cat(category), "neighbours", at(run.plan.neighbours),
    cl::desc("Also measure the target's heuristic schedule and its N-1 "
             "nearest knob settings per matrix and kernel (role "
             "\"neighbour\"; default 0 = none)"));
static BoundOpt<std::string> target(cl::cat(category), "target", at(collect.target),
                               cl::desc("A registered target (cpu, "
                                        "nvvm, ...)"));
static BoundOpt<std::string> worker(cl::cat(category), "worker-exe",
                               at(run.workerExe),
                               cl::desc("sptune-measure executable"));
static BoundOpt<std::string> shard(
    cl::cat(category), "shard", at(run.shard),
    cl::desc("I/N: measure share I (0-based) of N of the plan (by a stable "
             "hash of each record key); merge the N datasets with "
             "`sptune-collect merge`"));
static cl::opt<std::string>
    runRequests(cl::cat(category), "run-requests",
                cl::desc("Measure a request file of the Slurm backend "
                         "(with --task I/T and --out)"));
static cl::opt<std::string> task(cl::cat(category), "task",
                                 cl::desc("I/T: the share of --run-requests"));
static BackendCommandLine backendOptions(category);

static std::atomic<bool> interrupted{false};
static void onSignal(int) { interrupted = true; }
static void catchSignals() {
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
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
  return runCollectMerge(inputs, output);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  if (argc > 1 && llvm::StringRef(argv[1]) == "merge")
    return mergeMain(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "sptune measurement collector\n");
  registerAllTargets();
  if (!runRequests.empty()) {
    catchSignals();
    return runCollectRequests(runRequests, task, run.out,
                              {run.workerExe, run.timeout},
                              interrupted);
  }
  if (!kernels.empty())
    collect.kernels.assign(kernels.begin(), kernels.end());
  run.plan.smallestFirst = !byName;
  run.makeBackend = [](const WorkerOptions &w, const std::string &dataset) {
    return backendOptions.create(w, dataset);
  };
  run.beforeMeasuring = catchSignals;
  return runCollectDriver(std::move(run), interrupted);
}
