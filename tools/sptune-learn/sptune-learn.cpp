//===- sptune-learn.cpp - The active-learning driver ----------------------===//
//
//   sptune-learn MATRICES... --kernel spmm,sddmm --validation VAL.jsonl
//                --budget 300 --rounds 6 --state DIR --out model.pt
//   sptune-learn --replay DATA.jsonl... --rounds-at 1%,2%,5%,10%
//                --strategy bandit --policy thompson --state DIR
//
// Rounds of: a selection strategy (or a bandit's choice of one) picks what to
// measure within the round's budget, the collector measures it (or a replayed
// dataset reveals it), the model is updated and evaluated on fixed
// validation problems. Checkpointed every round: kill it and run the same
// command to resume. See docs/active-learning.md.
//
//===----------------------------------------------------------------------===//

#include "sptune/Collect/BackendOptions.h"
#include "sptune/Collect/LiveOracle.h"
#include "sptune/CostModel/TrainingRun.h"
#include "sptune/InitAllTargets.h"
#include "sptune/Learn/LearningLoop.h"
#include "sptune/Target/Target.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <csignal>
#include <set>

using namespace sptune;
namespace cl = llvm::cl;

static cl::OptionCategory category("sptune-learn options");

static cl::list<std::string>
    matrixInputs(cl::cat(category), cl::Positional,
                 cl::desc("<live pool: .mtx files, directories, gen: specs, "
                          "@file = one per line>..."));
static cl::list<std::string>
    replay(cl::cat(category), "replay",
           cl::desc("Replay these measured datasets (JSONL) instead of "
                    "measuring: choosing a sample reveals its stored time and "
                    "charges its recorded measurement cost"),
           cl::CommaSeparated);
static cl::list<std::string> validationData(
    cl::cat(category), "validation",
    cl::desc("Datasets of the fixed validation problems (their matrices "
             "leave the pool); replay default: a matrix split of the "
             "replayed data"),
    cl::CommaSeparated);
static cl::opt<double> validationFraction(
    cl::cat(category), "validation-fraction",
    cl::desc("Replay without --validation: fraction of the matrices held "
             "out for validation"),
    cl::init(0.2));
static cl::opt<uint64_t> splitSeed(cl::cat(category), "split-seed",
                                   cl::desc("Seed of that split (keep it "
                                            "fixed to compare strategies)"),
                                   cl::init(1));
static cl::opt<std::string> target(cl::cat(category), "target",
                                   cl::desc("cpu, nvvm or spade"),
                                   cl::init("cpu"));
static cl::list<std::string> kernels(cl::cat(category), "kernel",
                                     cl::desc("Live: spmm, sddmm, spmv "
                                              "(default spmm)"),
                                     cl::CommaSeparated);
static cl::opt<int64_t> freeSize(cl::cat(category), "free",
                                 cl::desc("Live: N of SpMM, K of SDDMM"),
                                 cl::init(64));
static cl::opt<unsigned> candidates(cl::cat(category), "candidates",
                                    cl::desc("Live: schedules sampled per "
                                             "problem into the pool (besides "
                                             "the reference and heuristic)"),
                                    cl::init(60));
static cl::opt<int64_t> maxNnz(cl::cat(category), "max-nnz",
                               cl::desc("Live: skip larger matrices"),
                               cl::init(INT64_MAX));
static cl::opt<std::string> strategy(
    cl::cat(category), "strategy",
    cl::desc("bandit (default), random, rs2, diversity, uncertainty, "
             "exploitation or exploration"),
    cl::init("bandit"));
static cl::opt<std::string> policy(cl::cat(category), "policy",
                                   cl::desc("The bandit's policy: ucb1 or "
                                            "thompson"),
                                   cl::init("ucb1"));
static cl::list<std::string> arms(cl::cat(category), "arms",
                                  cl::desc("The bandit's strategies (default: "
                                           "all but rs2)"),
                                  cl::CommaSeparated);
static cl::opt<std::string> reward(cl::cat(category), "reward",
                                   cl::desc("The bandit's reward: gain in "
                                            "validation top1 (log speedup) or "
                                            "tau, per unit of cost"),
                                   cl::init("top1"));
static cl::list<std::string> roundsAt(
    cl::cat(category), "rounds-at",
    cl::desc("Cumulative budget at the end of each round: seconds (\"90\", "
             "\"90s\") or a percentage of the reference cost (\"5%\")"),
    cl::CommaSeparated);
static cl::opt<std::string> budget(
    cl::cat(category), "budget",
    cl::desc("Total budget (seconds or a percentage), split into --rounds "
             "equal rounds (instead of --rounds-at)"));
static cl::opt<unsigned> rounds(cl::cat(category), "rounds",
                                cl::desc("Rounds with --budget"), cl::init(6));
static cl::opt<double> referenceCost(
    cl::cat(category), "reference-cost",
    cl::desc("Seconds that are 100% (replay default: the replayed pool's "
             "whole measurement cost)"),
    cl::init(0));
static cl::opt<uint64_t> seed(cl::cat(category), "seed", cl::desc("Seed"),
                              cl::init(1));
static cl::opt<int> initialEpochs(cl::cat(category), "initial-epochs",
                                  cl::desc("Epochs of the first round's fresh "
                                           "model"),
                                  cl::init(30));
static cl::opt<int> roundEpochs(cl::cat(category), "epochs",
                                cl::desc("Epochs of each later round (warm "
                                         "start)"),
                                cl::init(10));
static cl::opt<double> learningRate(cl::cat(category), "lr",
                                    cl::desc("Learning rate of a fresh model"),
                                    cl::init(2e-3));
static cl::opt<double> warmLearningRate(cl::cat(category), "warm-lr",
                                        cl::desc("Learning rate of the warm-"
                                                 "started rounds"),
                                        cl::init(1e-3));
static cl::opt<bool> retrain(cl::cat(category), "retrain",
                             cl::desc("Train from scratch every round "
                                      "(--initial-epochs) instead of warm "
                                      "starting"));
static cl::opt<unsigned> ensemble(cl::cat(category), "ensemble",
                                  cl::desc("uncertainty: models in the "
                                           "ensemble"),
                                  cl::init(4));
static cl::opt<unsigned> perMatrix(cl::cat(category), "per-matrix",
                                   cl::desc("diversity: schedules per chosen "
                                            "matrix and pass"),
                                   cl::init(4));
static cl::opt<double> farShare(cl::cat(category), "far-share",
                                cl::desc("exploration: share of picks far "
                                         "from what was measured"),
                                cl::init(0.3));
static cl::opt<double> rs2Fraction(cl::cat(category), "rs2-fraction",
                                   cl::desc("rs2: fraction of the problems "
                                            "per epoch"),
                                   cl::init(0.5));
static cl::opt<std::string> stateDir(cl::cat(category), "state",
                                     cl::desc("State directory (checkpoints, "
                                              "rounds.jsonl; resumed from)"),
                                     cl::Required);
static cl::opt<std::string> out(cl::cat(category), "out",
                                cl::desc("The final model (default: "
                                         "STATE/final.pt)"));
static cl::opt<std::string> dataset(cl::cat(category), "dataset",
                                    cl::desc("Live: where measurements are "
                                             "appended (default: "
                                             "STATE/measurements.jsonl)"));
static cl::opt<unsigned> workerCount(cl::cat(category), "workers",
                                     cl::desc("Live: measurement workers"),
                                     cl::init(1));
static cl::opt<double> timeout(cl::cat(category), "timeout",
                               cl::desc("Live: seconds per measurement"),
                               cl::init(60));
static cl::opt<double> minSeconds(cl::cat(category), "min-seconds",
                                  cl::desc("Live: minimum timed seconds per "
                                           "measurement"),
                                  cl::init(0.05));
static cl::opt<int> minReps(cl::cat(category), "min-reps",
                            cl::desc("Live: minimum repetitions"), cl::init(3));
static cl::opt<std::string> worker(cl::cat(category), "worker-exe",
                                   cl::desc("Live: sptune-measure executable"));
static cl::opt<bool> quiet(cl::cat(category), "quiet",
                           cl::desc("No progress line"));
/// Live: --backend local|slurm and --slurm-* (docs/cluster.md).
static BackendCommandLine backendOptions(category);

static std::atomic<bool> interrupted{false};
static void onSignal(int) { interrupted = true; }

static int fail(const llvm::Twine &message) {
  llvm::errs() << "sptune-learn: " << message << "\n";
  return 2;
}

/// "5%" -> 0.05 * reference, "90" / "90s" -> 90.
static std::optional<double> parseBudget(llvm::StringRef text,
                                         double reference,
                                         std::string &error) {
  text = text.trim();
  double v = 0;
  if (text.consume_back("%")) {
    if (text.getAsDouble(v) || !(v > 0)) {
      error = "bad budget '" + text.str() + "%'";
      return std::nullopt;
    }
    if (!(reference > 0)) {
      error = "a percentage budget needs --reference-cost (or --replay)";
      return std::nullopt;
    }
    return v / 100 * reference;
  }
  text.consume_back("s");
  if (text.getAsDouble(v) || !(v > 0)) {
    error = "bad budget '" + text.str() +
            "' (seconds, or a percentage such as 5%)";
    return std::nullopt;
  }
  return v;
}

/// Reads datasets into the target's groups.
static llvm::Expected<std::vector<SampleGroup>>
readGroups(const std::vector<std::string> &files, TargetKind kind) {
  DatasetReader reader;
  for (const std::string &f : files) {
    std::string error;
    if (!reader.addFile(f, error))
      return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
  }
  std::vector<SampleGroup> groups = filterTarget(reader.groups(), kind);
  if (groups.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "no usable measurement for target '%s' in %s", toString(kind),
        llvm::join(files, ", ").c_str());
  return groups;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "sptune active-learning driver\n");
  registerAllTargets();

  std::optional<TargetKind> kind = parseTargetKind(target);
  if (!kind)
    return fail("unknown target '" + target + "' (cpu, nvvm or spade)");
  bool isReplay = !replay.empty();
  if (isReplay == !matrixInputs.empty())
    return fail(isReplay ? "give either matrices (live) or --replay, not both"
                         : "no pool: give matrices (live) or --replay "
                           "DATASET");
  if (!isReplay && validationData.empty())
    return fail("live learning needs --validation DATASET (fully measured "
                "validation problems)");
  if (!(validationFraction > 0 && validationFraction < 1))
    return fail("--validation-fraction must be in (0, 1)");

  LearnOptions options;
  options.target = *kind;
  options.strategy = strategy;
  if (std::optional<BanditPolicy> p = parseBanditPolicy(policy))
    options.policy = *p;
  else
    return fail("unknown --policy '" + policy + "' (ucb1 or thompson)");
  if (!arms.empty())
    options.arms.assign(arms.begin(), arms.end());
  if (reward == "top1")
    options.reward = RewardMetric::Top1;
  else if (reward == "tau")
    options.reward = RewardMetric::Tau;
  else
    return fail("unknown --reward '" + reward + "' (top1 or tau)");
  options.strategyOptions.ensembleSize = ensemble;
  options.strategyOptions.perMatrix = perMatrix;
  options.strategyOptions.farShare = farShare;
  options.strategyOptions.rs2Fraction = rs2Fraction;
  options.seed = seed;
  options.initialEpochs = initialEpochs;
  options.roundEpochs = roundEpochs;
  options.retrain = retrain;
  options.learningRate = learningRate;
  options.warmLearningRate = warmLearningRate;
  options.stateDir = stateDir;
  options.outPath = out;
  options.stop = &interrupted;

  // The validation problems and the pool.
  LearningPool pool;
  std::vector<SampleGroup> validation;
  std::unique_ptr<MeasurementOracle> oracle;
  double reference = referenceCost;
  std::vector<std::string> warnings;
  if (isReplay) {
    llvm::Expected<std::vector<SampleGroup>> groups =
        readGroups({replay.begin(), replay.end()}, *kind);
    if (!groups)
      return fail(llvm::toString(groups.takeError()));
    std::vector<SampleGroup> poolGroups;
    if (!validationData.empty()) {
      llvm::Expected<std::vector<SampleGroup>> val =
          readGroups({validationData.begin(), validationData.end()}, *kind);
      if (!val)
        return fail(llvm::toString(val.takeError()));
      validation = std::move(*val);
      std::set<std::string> held;
      for (const SampleGroup &g : validation)
        held.insert(g.matrix.id);
      for (SampleGroup &g : *groups)
        if (!held.count(g.matrix.id))
          poolGroups.push_back(std::move(g));
    } else {
      DatasetSplit split =
          splitByMatrix(*groups, validationFraction, splitSeed);
      for (size_t i : split.train)
        poolGroups.push_back((*groups)[i]);
      for (size_t i : split.test)
        validation.push_back((*groups)[i]);
    }
    auto replayOracle = std::make_unique<ReplayOracle>(poolGroups, pool);
    if (!(reference > 0))
      reference = replayOracle->totalCost();
    oracle = std::move(replayOracle);
  } else {
    llvm::Expected<std::vector<SampleGroup>> val =
        readGroups({validationData.begin(), validationData.end()}, *kind);
    if (!val)
      return fail(llvm::toString(val.takeError()));
    validation = std::move(*val);
    std::vector<std::string> sources;
    std::string error;
    if (!expandMatrixSources({matrixInputs.begin(), matrixInputs.end()},
                             sources, error))
      return fail(error);
    LivePoolOptions live;
    live.collect.target = target;
    live.collect.kernels = {"spmm"};
    if (!kernels.empty())
      live.collect.kernels.assign(kernels.begin(), kernels.end());
    for (const std::string &k : live.collect.kernels)
      if (!parseKernelType(k))
        return fail("unknown kernel '" + k + "'");
    live.collect.free = freeSize;
    live.collect.samples = candidates;
    live.collect.seed = seed;
    live.collect.measure.minSeconds = minSeconds;
    live.collect.measure.minReps = minReps;
    live.collect.measure.timeoutSeconds = timeout;
    live.maxNnz = maxNnz;
    CollectionRunOptions run;
    run.datasetPath =
        dataset.empty() ? stateDir + "/measurements.jsonl" : dataset;
    run.worker.executable = worker;
    run.worker.timeoutSeconds = timeout;
    run.workers = workerCount;
    llvm::Expected<std::shared_ptr<MeasurementBackend>> backend =
        backendOptions.create(run.worker, run.datasetPath);
    if (!backend)
      return fail(llvm::toString(backend.takeError()));
    run.backend = *backend;
    if (std::error_code ec = llvm::sys::fs::create_directories(stateDir))
      return fail("cannot create '" + stateDir + "': " + ec.message());
    // Validation matrices never enter the pool.
    for (const SampleGroup &g : validation)
      live.excludeMatrixIds.insert(g.matrix.id);
    auto liveOracle = std::make_unique<LiveOracle>(run);
    if (llvm::Error e = liveOracle->buildPool(sources, live, pool, warnings))
      return fail(llvm::toString(std::move(e)));
    oracle = std::move(liveOracle);
  }
  for (const std::string &w : warnings)
    llvm::errs() << "sptune-learn: warning: " << w << "\n";
  options.referenceCost = reference;

  // Round budgets.
  std::string error;
  if (!budget.empty()) {
    if (!roundsAt.empty())
      return fail("give --budget or --rounds-at, not both");
    if (rounds < 1)
      return fail("--rounds must be at least 1");
    std::optional<double> total = parseBudget(budget, reference, error);
    if (!total)
      return fail(error);
    for (unsigned r = 1; r <= rounds; ++r)
      options.roundBudgets.push_back(*total * r / rounds);
  } else {
    if (roundsAt.empty())
      return fail("no budget: give --budget (with --rounds) or --rounds-at");
    for (const std::string &b : roundsAt) {
      std::optional<double> v = parseBudget(b, reference, error);
      if (!v)
        return fail(error);
      options.roundBudgets.push_back(*v);
    }
  }

  // Features of every pool and validation matrix.
  std::map<std::string, std::string> matrices;
  for (const PoolProblem &p : pool.problems())
    matrices.emplace(p.matrix.id, p.matrix.source);
  for (const SampleGroup &g : validation)
    matrices.emplace(g.matrix.id, g.matrix.source);
  std::vector<std::string> unloadable;
  bool tty = llvm::sys::Process::StandardErrIsDisplayed() && !quiet;
  std::map<std::string, MatrixFeatures> features = featurizeMatrices(
      matrices, unloadable,
      [&](size_t n, size_t total, const std::string &id) {
        if (tty)
          llvm::errs() << "\rfeaturizing " << n << "/" << total << " " << id
                       << "\x1b[K";
      },
      &interrupted);
  if (tty)
    llvm::errs() << "\r\x1b[K";
  if (interrupted)
    return 130;
  if (!unloadable.empty())
    return fail("cannot load matrices: " + llvm::join(unloadable, "; "));
  FeatureTable table(features.begin(), features.end());
  llvm::errs() << llvm::formatv(
      "sptune-learn: {0} pool: {1} problems, {2} candidates; validation: "
      "{3} problems; {4} rounds up to {5:f1} s{6}\n",
      oracle->name(), pool.problems().size(), pool.candidates().size(),
      validation.size(), options.roundBudgets.size(),
      options.roundBudgets.back(),
      reference > 0 ? llvm::formatv(" ({0:f1}% of {1:f1} s)",
                                    100 * options.roundBudgets.back() /
                                        reference,
                                    reference)
                          .str()
                    : std::string());

  auto begin = std::chrono::steady_clock::now();
  options.onMessage = [&](llvm::StringRef line) {
    if (tty)
      llvm::errs() << "\r\x1b[K";
    llvm::errs() << "sptune-learn: " << line << "\n";
  };
  options.onMeasureProgress = [&](int round, int total,
                                  const OracleProgress &p, double spent,
                                  double budget) {
    if (!tty || !p.total)
      return;
    double rate = p.done / std::max(p.secondsElapsed, 1e-9);
    // The batch's own measurements are not in `spent` until it returns:
    // scale its elapsed time into the remaining budget.
    double left = std::max(0.0, budget - spent - p.secondsElapsed);
    llvm::errs() << "\rround " << round << "/" << total << ": measured "
                 << p.done << "/" << p.total << ", "
                 << llvm::format("%.1f", rate * 60) << "/min; budget "
                 << formatDuration(spent + p.secondsElapsed) << " of "
                 << formatDuration(budget) << ", ETA "
                 << formatDuration(left) << " of measurement"
                 << ", elapsed "
                 << formatDuration(std::chrono::duration<double>(
                                       std::chrono::steady_clock::now() - begin)
                                       .count())
                 << "\x1b[K";
  };
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  llvm::Expected<LearnResult> result =
      runLearning(pool, *oracle, validation, table, options);
  if (tty)
    llvm::errs() << "\r\x1b[K";
  if (!result)
    return fail(llvm::toString(result.takeError()));
  if (result->interrupted) {
    llvm::errs() << "sptune-learn: interrupted after round "
                 << result->rounds.size() << "; run the same command to "
                 << "resume\n";
    return 130;
  }
  llvm::errs() << "sptune-learn: wrote " << result->modelPath << " and "
               << stateDir << "/rounds.jsonl\n";
  return 0;
}
