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

#include "sptune/Collect/Collector.h"
#include "sptune/Collect/WorkerPool.h"
#include "sptune/InitAllTargets.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Schedule/DatasetSchema.h"
#include "sptune/Target/ScheduleSpace.h"
#include "sptune/Target/Target.h"
#include "sptune/Tune/ScheduleTuner.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <map>

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
              cl::desc("mlir-default, heuristic, eigen, rsb (librsb, "
                       "autotuned; default: the first three)"),
              cl::CommaSeparated);
static cl::opt<bool> noBaselines(cl::cat(category), "no-baselines",
                                 cl::desc("Measure sampled schedules only"));
static cl::opt<int64_t> minNnz(cl::cat(category), "min-nnz",
                               cl::desc("Skip smaller matrices"), cl::init(0));
static cl::opt<int64_t> maxNnz(cl::cat(category), "max-nnz",
                               cl::desc("Skip larger matrices"),
                               cl::init(INT64_MAX));
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
static cl::opt<std::string> target(cl::cat(category), "target",
                                   cl::desc("A registered target (cpu, nvvm, spade)"), cl::init("cpu"));
static cl::opt<std::string> worker(cl::cat(category), "worker-exe",
                                   cl::desc("sptune-measure executable"));

static std::atomic<bool> interrupted{false};
static void onSignal(int) { interrupted = true; }

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "sptune measurement collector\n");

  CollectOptions options;
  if (!kernels.empty())
    options.kernels.assign(kernels.begin(), kernels.end());
  for (const std::string &k : options.kernels)
    if (!parseKernelType(k)) {
      llvm::errs() << "sptune-collect: unknown kernel '" << k << "'\n";
      return 2;
    }
  options.free = freeSize;
  options.target = target;
  registerAllTargets();
  llvm::Expected<const Target &> targetInfo = TargetRegistry::get(target);
  if (!targetInfo) {
    llvm::errs() << "sptune-collect: "
                 << llvm::toString(targetInfo.takeError()) << "\n";
    return 2;
  }
  options.samples = samples;
  options.seed = seed;
  if (noBaselines)
    options.baselines.clear();
  else if (!baselines.empty())
    options.baselines.assign(baselines.begin(), baselines.end());
  options.measure.minSeconds = minSeconds;
  options.measure.minReps = minReps;
  options.measure.timeoutSeconds = timeout;

  std::vector<std::string> sources;
  std::string error;
  if (!expandMatrixSources({matrixInputs.begin(), matrixInputs.end()}, sources,
                           error)) {
    llvm::errs() << "sptune-collect: " << error << "\n";
    return 2;
  }
  if (sources.empty()) {
    llvm::errs() << "sptune-collect: no matrices\n";
    return 2;
  }

  // Plan: load each matrix once for its shape (the workers reload it).
  const ScheduleSpace &space = targetInfo->space();
  std::unique_ptr<CostModel> model;
  if (!modelPath.empty()) {
    model = createCostModel(CostModelMode::Development, modelPath, &error);
    if (!model) {
      llvm::errs() << "sptune-collect: cannot load the model: " << error
                   << "\n";
      return 2;
    }
    if (!model->supports(targetInfo->kind())) {
      llvm::errs() << "sptune-collect: " << model->description()
                   << " was not trained for target '" << target << "'\n";
      return 2;
    }
  }
  std::vector<std::pair<int64_t, std::vector<PlannedRequest>>> perMatrix;
  for (const std::string &source : sources) {
    CooMatrix coo;
    MatrixInfo info;
    if (!loadMatrix(source, coo, info, error)) {
      llvm::errs() << "sptune-collect: skipping " << source << ": " << error
                   << "\n";
      continue;
    }
    coo.canonicalize();
    if (coo.nnz() < minNnz || coo.nnz() > maxNnz)
      continue;
    if (spaceSize) {
      for (const std::string &k : options.kernels) {
        KernelType kt = *parseKernelType(k);
        ProblemShape shape{kt, coo.rows, coo.cols,
                           kt == KernelType::SpMV ? 1 : options.free,
                           coo.nnz()};
        llvm::outs() << info.id << " " << k << " " << space.size(shape) << "\n";
      }
      continue;
    }
    std::vector<PlannedRequest> requests = planMatrix(
        source, info.id, coo.rows, coo.cols, coo.nnz(), space, options);
    if (model) {
      // Active learning: the model's favourites are where its errors
      // matter; measuring them corrects its optimism (winner's curse).
      CsrMatrix csr = CsrMatrix::fromCoo(coo);
      for (const std::string &k : options.kernels) {
        KernelType kt = *parseKernelType(k);
        TuneOptions tune;
        tune.target = targetInfo->kind();
        tune.candidates = modelCandidates;
        tune.topK = modelTopK;
        tune.seed = seed + 17;
        llvm::Expected<TuneResult> ranked = tuneSchedule(
            *model, csr, kt, kt == KernelType::SpMV ? 1 : options.free, tune);
        if (!ranked) {
          llvm::errs() << "sptune-collect: model ranking failed on " << info.id
                       << ": " << llvm::toString(ranked.takeError()) << "\n";
          continue;
        }
        for (const RankedCandidate &c : ranked->top)
          requests.push_back(makeRequest(source, info.id, k,
                                         std::string(dataset::kRoleModel),
                                         c.schedule.str(), "", options));
      }
    }
    perMatrix.emplace_back(coo.nnz(), std::move(requests));
  }
  if (spaceSize)
    return 0;
  if (!byName)
    std::stable_sort(
        perMatrix.begin(), perMatrix.end(),
        [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<PlannedRequest> plan;
  for (auto &[nnz, requestsOfMatrix] : perMatrix)
    for (PlannedRequest &p : requestsOfMatrix)
      plan.push_back(std::move(p));

  size_t bad = 0;
  std::unordered_set<std::string> have = readDatasetKeys(out, &bad);
  if (bad)
    llvm::errs() << "sptune-collect: " << bad
                 << " unreadable line(s) in the dataset are ignored\n";
  std::vector<MeasureRequest> requests;
  std::vector<RecordKey> keys;
  for (PlannedRequest &p : plan) {
    if (have.count(p.key.str()))
      continue;
    p.request.id = static_cast<int64_t>(requests.size());
    requests.push_back(p.request);
    keys.push_back(p.key);
  }
  llvm::errs() << "sptune-collect: " << sources.size() << " matrices, "
               << plan.size() << " measurements planned, "
               << plan.size() - requests.size() << " already in " << out << ", "
               << requests.size() << " to do\n";
  if (requests.empty())
    return 0;

  DatasetWriter writer;
  if (!writer.open(out, fsyncEach, error)) {
    llvm::errs() << "sptune-collect: " << error << "\n";
    return 2;
  }
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);

  WorkerOptions wopts;
  wopts.executable = worker;
  wopts.timeoutSeconds = timeout;
  WorkerPool pool(wopts, workerCount);
  MachineInfo machine = MachineInfo::current();
  std::map<std::string, size_t> statuses;
  size_t done = 0;
  bool writeFailed = false;
  auto start = std::chrono::steady_clock::now();
  pool.run(requests, [&](const MeasureRequest &q, const MeasureResponse &r) {
    if (!writer.append(datasetRecord(keys[q.id], q, r, machine)))
      writeFailed = true;
    ++done;
    ++statuses[toString(r.measurement.status)];
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    double rate = done / std::max(elapsed, 1e-9);
    llvm::errs() << "\r[" << done << "/" << requests.size() << "] "
                 << llvm::format("%.1f", rate * 60) << " meas/min, ETA "
                 << llvm::format("%.0f", (requests.size() - done) / rate)
                 << " s, ok " << statuses["ok"] << ", failed "
                 << done - statuses["ok"] << "   ";
    if (interrupted || writeFailed)
      pool.stop();
  });
  llvm::errs() << "\n";
  for (auto &[status, n] : statuses)
    llvm::errs() << "  " << status << ": " << n << "\n";
  if (writeFailed) {
    llvm::errs() << "sptune-collect: writing " << out << " failed\n";
    return 1;
  }
  if (interrupted) {
    llvm::errs() << "sptune-collect: interrupted after " << done
                 << " measurements; run again to resume\n";
    return 130;
  }
  return 0;
}
