//===- LearnDriver.cpp - What sptune-learn does, as a library call --------===//

#include "sptune/Collect/LearnDriver.h"
#include "sptune/Collect/Dataset.h"
#include "sptune/Collect/LiveOracle.h"
#include "sptune/Collect/WorkerProtocol.h"
#include "sptune/CostModel/ConfigurationMapper.h"
#include "sptune/CostModel/TrainingRun.h"
#include "sptune/Support/Error.h"
#include "sptune/Support/Files.h"
#include "sptune/Target/Measurer.h"
#include "sptune/Target/Target.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

using namespace sptune;

/// Removes from `groups` every problem on a matrix of `held` (the pool
/// loses the validation's and the reward set's matrices).
static void dropMatricesOf(std::vector<SampleGroup> &groups,
                           const std::vector<SampleGroup> &held) {
  std::set<std::string> ids;
  for (const SampleGroup &g : held)
    ids.insert(g.matrix.id);
  llvm::erase_if(
      groups, [&](const SampleGroup &g) { return ids.count(g.matrix.id) > 0; });
}

static int fail(const llvm::Twine &message) {
  llvm::errs() << "sptune-learn: " << message << "\n";
  return 2;
}

llvm::Expected<double> sptune::parseLearnBudget(llvm::StringRef text,
                                                double reference) {
  text = text.trim();
  double v = 0;
  if (text.consume_back("%")) {
    if (text.getAsDouble(v) || !(v > 0))
      return llvm::createStringError("bad budget '" + text.str() + "%'");
    if (!(reference > 0))
      return llvm::createStringError(
          "a percentage budget needs --reference-cost (or --replay)");
    return v / 100 * reference;
  }
  text.consume_back("s");
  if (text.getAsDouble(v) || !(v > 0))
    return llvm::createStringError("bad budget '" + text.str() +
                                   "' (seconds, or a percentage such as 5%)");
  return v;
}

/// Reads datasets into the target's groups.
static llvm::Expected<std::vector<SampleGroup>>
readGroups(const std::vector<std::string> &files, TargetKind kind) {
  DatasetReader reader;
  for (const std::string &f : files)
    if (llvm::Error e = reader.addFile(f))
      return std::move(e);
  std::vector<SampleGroup> groups = filterTarget(reader.groups(), kind);
  if (groups.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "no usable measurement for target '%s' in %s", toString(kind),
        llvm::join(files, ", ").c_str());
  if (std::string why = whyMixedElementWidths(groups); !why.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s",
                                   llvm::join(files, ", ").c_str(),
                                   why.c_str());
  return groups;
}

/// Limits of what sets work and memory (the issue 35 probe: 2^32 rounds
/// and 100,000 workers aborted, 10^9 epochs or 100,000 ensemble members
/// trained on past any timeout).
static constexpr unsigned kMaxRounds = 10000, kMaxWorkers = 256;
static constexpr int kMaxEpochs = 100000;
static constexpr size_t kMaxEnsemble = 64, kMaxSamples = 100000;

std::string sptune::whyInvalidLearnOptions(const LearnDriverOptions &o) {
  const LearnOptions &l = o.learn;
  const StrategyOptions &s = l.strategyOptions;
  auto finite = [](double x) { return std::isfinite(x); };
  if (!(o.validationFraction > 0 && o.validationFraction < 1))
    return "--validation-fraction must be in (0, 1)";
  if (!(o.rewardFraction >= 0 && o.rewardFraction < 1))
    return "--reward-fraction must be in [0, 1)";
  if (!(l.banditOptions.exploration >= 0 &&
        finite(l.banditOptions.exploration)))
    return "--bandit-c must be finite and >= 0";
  if (!(l.banditOptions.discount > 0 && l.banditOptions.discount <= 1))
    return "--discount must be in (0, 1]";
  if (o.rounds < 1 || o.rounds > kMaxRounds)
    return "--rounds must be in [1, " + std::to_string(kMaxRounds) + "]";
  if (!(o.referenceCost >= 0 && finite(o.referenceCost)))
    return "--reference-cost must be a finite number of seconds >= 0 (0: "
           "the replayed pool's cost)";
  if (l.initialEpochs < 1 || l.initialEpochs > kMaxEpochs ||
      l.roundEpochs < 1 || l.roundEpochs > kMaxEpochs)
    return "--initial-epochs and --epochs must be in [1, " +
           std::to_string(kMaxEpochs) + "]";
  if (l.lookaheadEpochs < 1 || l.lookaheadEpochs > kMaxEpochs)
    return "--lookahead-epochs must be in [1, " + std::to_string(kMaxEpochs) +
           "]";
  if (!(l.learningRate > 0 && finite(l.learningRate) &&
        l.warmLearningRate > 0 && finite(l.warmLearningRate)))
    return "--lr and --warm-lr must be finite and > 0";
  if (s.ensembleSize < 1 || s.ensembleSize > kMaxEnsemble)
    return "--ensemble must be in [1, " + std::to_string(kMaxEnsemble) + "]";
  if (s.perMatrix < 1 || s.perMatrix > kMaxSamples)
    return "--per-matrix must be in [1, " + std::to_string(kMaxSamples) + "]";
  if (!(s.farShare >= 0 && s.farShare <= 1))
    return "--far-share must be in [0, 1]";
  if (!(s.rs2Fraction > 0 && s.rs2Fraction <= 1))
    return "--rs2-fraction must be in (0, 1]";
  if (std::string why = whyNotReplaceable(l.outPath); !why.empty())
    return "--out: cannot write " + why;
  for (const std::string &k : o.kernels) {
    std::optional<KernelType> kernel = parseKernelType(k);
    if (!kernel)
      return "unknown kernel '" + k + "'";
    if (!hasKernelFeature(*kernel)) {
      // Measured on neither a matrix nor a 3-D tensor: nothing to collect.
      bool measured = whyNotMeasuredOn(*kernel, false, "").empty() ||
                      whyNotMeasuredOn(*kernel, true, "").empty();
      return "--kernel " + k + ": the cost model has no feature for '" + k +
             "' kernels (" +
             (measured ? std::string("its measurements are collected, not "
                                     "learned from")
                       : whyKernelNotMeasured(*kernel)) +
             ")";
    }
  }
  if (o.elementBits != 32 && o.elementBits != 64)
    return "--bits must be 32 (f32) or 64 (f64)";
  if (!o.replay.empty())
    return "";
  // Live measurement: checked before anything is measured (a bad value
  // made every measurement fail, then "no training data").
  if (o.workers < 1 || o.workers > kMaxWorkers)
    return "--workers must be in [1, " + std::to_string(kMaxWorkers) + "]";
  if (o.free < 1 || o.free > (1 << 16))
    return "--free must be in [1, 65536]";
  if (o.candidates > kMaxSamples)
    return "--candidates must be at most " + std::to_string(kMaxSamples);
  MeasureOptions measure;
  measure.minSeconds = o.minSeconds;
  measure.minReps = o.minReps;
  measure.maxReps = std::max(measure.maxReps, o.minReps);
  measure.timeoutSeconds = o.timeout;
  if (std::string why = whyInvalid(measure); !why.empty())
    return "--min-reps, --min-seconds or --timeout out of range: " + why;
  if (!o.workerExe.empty() && !llvm::sys::fs::can_execute(o.workerExe))
    return "--worker-exe '" + o.workerExe + "' is not an executable file";
  return "";
}

int sptune::runLearnDriver(LearnDriverOptions o,
                           const std::atomic<bool> &stop) {
  std::optional<TargetKind> kindOpt = parseTargetKind(o.target);
  if (!kindOpt)
    return fail("unknown target '" + o.target + "' (" +
                TargetRegistry::names() + ")");
  bool isReplay = !o.replay.empty();
  if (isReplay == !o.matrixInputs.empty())
    return fail(isReplay ? "give either matrices (live) or --replay, not both"
                         : "no pool: give matrices (live) or --replay "
                           "DATASET");
  if (!isReplay && o.validationData.empty())
    return fail("live learning needs --validation DATASET (fully measured "
                "validation problems)");
  if (std::string why = whyInvalidLearnOptions(o); !why.empty())
    return fail(why);
  // A kernel named twice would put every problem in the pool twice (and
  // count its measurements and their cost twice).
  std::vector<std::string> kernels;
  for (const std::string &k : o.kernels)
    if (std::find(kernels.begin(), kernels.end(), k) == kernels.end())
      kernels.push_back(k);
  o.kernels = std::move(kernels);

  LearnOptions &options = o.learn;
  options.target = *kindOpt;
  if (std::optional<BanditPolicy> p = parseBanditPolicy(o.policy))
    options.policy = *p;
  else
    return fail("unknown --policy '" + o.policy +
                "' (ucb1, thompson or hedge)");
  if (o.reward == "top1")
    options.reward = RewardMetric::Top1;
  else if (o.reward == "tau")
    options.reward = RewardMetric::Tau;
  else
    return fail("unknown --reward '" + o.reward + "' (top1 or tau)");
  if (std::optional<PortfolioReward> r = parsePortfolioReward(o.hedgeReward))
    options.hedgeReward = *r;
  else
    return fail("unknown --hedge-reward '" + o.hedgeReward +
                "' (found, learned or lookahead)");
  options.stop = &stop;
  TargetKind kind = *kindOpt;

  // The validation problems and the pool.
  LearningPool pool;
  std::vector<SampleGroup> validation, rewardSet;
  std::unique_ptr<MeasurementOracle> oracle;
  double reference = o.referenceCost;
  std::vector<std::string> warnings;
  // The fixed validation problems, when given (live learning needs them).
  if (!o.validationData.empty()) {
    llvm::Expected<std::vector<SampleGroup>> val =
        readGroups(o.validationData, kind);
    if (!val)
      return fail(llvm::toString(val.takeError()));
    validation = std::move(*val);
  }
  if (!o.rewardData.empty()) {
    llvm::Expected<std::vector<SampleGroup>> rs =
        readGroups(o.rewardData, kind);
    if (!rs)
      return fail(llvm::toString(rs.takeError()));
    rewardSet = std::move(*rs);
  }
  // One element width throughout: the validation and reward problems score
  // what the pool's measurements teach, and a live pool measures at --bits.
  std::vector<SampleGroup> fixedProblems = validation;
  fixedProblems.insert(fixedProblems.end(), rewardSet.begin(), rewardSet.end());
  if (std::string why = whyMixedElementWidths(fixedProblems); !why.empty())
    return fail("--validation and --reward-validation: " + why);
  if (!isReplay && !fixedProblems.empty() &&
      fixedProblems.front().elementBits != o.elementBits)
    return fail("the validation problems were measured with " +
                std::to_string(fixedProblems.front().elementBits) +
                "-bit elements, but the live pool measures " +
                std::to_string(o.elementBits) + "-bit ones (--bits)");
  if (isReplay) {
    llvm::Expected<std::vector<SampleGroup>> groups =
        readGroups(o.replay, kind);
    if (!groups)
      return fail(llvm::toString(groups.takeError()));
    // A replay learns the data's width; --bits (the live pool's, 32 by
    // default) is refused only where it asks for f64 and the data are not.
    if (o.elementBits == 64 && groups->front().elementBits != 64)
      return fail("--bits 64: the replayed problems were measured with " +
                  std::to_string(groups->front().elementBits) +
                  "-bit elements");
    if (!fixedProblems.empty() &&
        fixedProblems.front().elementBits != groups->front().elementBits)
      return fail("the replayed problems were measured with " +
                  std::to_string(groups->front().elementBits) +
                  "-bit elements, the validation or reward problems with " +
                  std::to_string(fixedProblems.front().elementBits) +
                  "-bit ones");
    std::vector<SampleGroup> poolGroups;
    if (!o.validationData.empty()) {
      poolGroups = std::move(*groups);
      dropMatricesOf(poolGroups, validation);
    } else {
      DatasetSplit split =
          splitByMatrix(*groups, o.validationFraction, o.splitSeed);
      for (size_t i : split.train)
        poolGroups.push_back((*groups)[i]);
      for (size_t i : split.test)
        validation.push_back((*groups)[i]);
    }
    if (!rewardSet.empty()) {
      dropMatricesOf(poolGroups, rewardSet);
    } else if (o.rewardFraction > 0) {
      // Of the pool's matrices, a share rewards the bandit (fraction of all
      // matrices: rewardFraction / (1 - validationFraction) of the pool's).
      double share = std::min(
          0.9, o.rewardFraction /
                   (o.validationData.empty() ? 1 - o.validationFraction : 1));
      DatasetSplit split = splitByMatrix(poolGroups, share, o.splitSeed + 1);
      std::vector<SampleGroup> kept;
      for (size_t i : split.train)
        kept.push_back(poolGroups[i]);
      for (size_t i : split.test)
        rewardSet.push_back(poolGroups[i]);
      poolGroups = std::move(kept);
    }
    if (poolGroups.empty())
      return fail("the pool is empty: every matrix of the replayed data is a "
                  "validation matrix");
    auto replayOracle = std::make_unique<ReplayOracle>(poolGroups, pool);
    if (!(reference > 0))
      reference = replayOracle->totalCost();
    oracle = std::move(replayOracle);
  } else {
    std::vector<std::string> sources;
    std::string error;
    if (takeErrorMessage(expandMatrixSources(o.matrixInputs, sources), error))
      return fail(error);
    LivePoolOptions live;
    live.collect.target = o.target;
    live.collect.kernels = {"spmm"};
    if (!o.kernels.empty())
      live.collect.kernels = o.kernels;
    for (const std::string &k : live.collect.kernels) {
      std::optional<KernelType> kernel = parseKernelType(k);
      if (!kernel)
        return fail("unknown kernel '" + k + "'");
      if (!hasKernelFeature(*kernel))
        return fail("--kernel " + k + ": the cost model has no feature for '" +
                    k + "' kernels");
    }
    live.collect.free = o.free;
    live.collect.elementBits = o.elementBits;
    live.collect.samples = o.candidates;
    live.collect.seed = options.seed;
    live.collect.measure.minSeconds = o.minSeconds;
    live.collect.measure.minReps = o.minReps;
    live.collect.measure.timeoutSeconds = o.timeout;
    live.maxNnz = o.maxNnz;
    CollectionRunOptions run;
    run.datasetPath =
        o.dataset.empty() ? options.stateDir + "/measurements.jsonl" : o.dataset;
    if (std::string why = whyNotPlainDatasetOutput(run.datasetPath);
        !why.empty())
      return fail("--dataset: " + why);
    run.worker.executable = o.workerExe;
    run.worker.timeoutSeconds = o.timeout;
    run.workers = o.workers;
    llvm::Expected<std::shared_ptr<MeasurementBackend>> backend =
        o.makeBackend
            ? o.makeBackend(run.worker, run.datasetPath)
            : llvm::Expected<std::shared_ptr<MeasurementBackend>>(nullptr);
    if (!backend)
      return fail(llvm::toString(backend.takeError()));
    run.backend = *backend;
    if (std::error_code ec = llvm::sys::fs::create_directories(options.stateDir))
      return fail("cannot create '" + options.stateDir + "': " + ec.message());
    // Validation and reward-set matrices never enter the pool.
    for (const SampleGroup &g : validation)
      live.excludeMatrixIds.insert(g.matrix.id);
    for (const SampleGroup &g : rewardSet)
      live.excludeMatrixIds.insert(g.matrix.id);
    if (rewardSet.empty() && o.learn.strategy == "bandit")
      warnings.push_back("no --reward-validation: the validation problems "
                         "reward the bandit, so what is reported about them "
                         "flatters it");
    auto liveOracle = std::make_unique<LiveOracle>(run);
    if (llvm::Error e = liveOracle->buildPool(sources, live, pool, warnings))
      return fail(llvm::toString(std::move(e)));
    oracle = std::move(liveOracle);
  }
  for (const std::string &w : warnings)
    llvm::errs() << "sptune-learn: warning: " << w << "\n";
  options.referenceCost = reference;

  // Round budgets.
  if (!o.budget.empty()) {
    if (!o.roundsAt.empty())
      return fail("give --budget or --rounds-at, not both");
    if (o.rounds < 1)
      return fail("--rounds must be at least 1");
    llvm::Expected<double> total = parseLearnBudget(o.budget, reference);
    if (!total)
      return fail(llvm::toString(total.takeError()));
    for (unsigned r = 1; r <= o.rounds; ++r)
      options.roundBudgets.push_back(*total * r / o.rounds);
  } else {
    if (o.roundsAt.empty())
      return fail("no budget: give --budget (with --rounds) or --rounds-at");
    for (const std::string &b : o.roundsAt) {
      llvm::Expected<double> v = parseLearnBudget(b, reference);
      if (!v)
        return fail(llvm::toString(v.takeError()));
      options.roundBudgets.push_back(*v);
    }
  }

  // Features of every pool and validation matrix.
  std::map<std::string, std::string> matrices;
  for (const PoolProblem &p : pool.problems())
    matrices.emplace(p.matrix.id, p.matrix.source);
  for (const SampleGroup &g : validation)
    matrices.emplace(g.matrix.id, g.matrix.source);
  for (const SampleGroup &g : rewardSet)
    matrices.emplace(g.matrix.id, g.matrix.source);
  std::vector<std::string> unloadable;
  bool tty = llvm::sys::Process::StandardErrIsDisplayed() && !o.quiet;
  std::map<std::string, MatrixFeatures> features = featurizeMatrices(
      matrices, unloadable,
      [&](size_t n, size_t total, const std::string &id) {
        if (tty)
          llvm::errs() << "\rfeaturizing " << n << "/" << total << " " << id
                       << "\x1b[K";
      },
      &stop);
  if (tty)
    llvm::errs() << "\r\x1b[K";
  if (stop)
    return 130;
  if (!unloadable.empty())
    return fail("cannot load matrices: " + llvm::join(unloadable, "; "));
  FeatureTable table(features.begin(), features.end());
  llvm::errs() << llvm::formatv(
      "sptune-learn: {0} pool: {1} problems, {2} candidates; validation: "
      "{3} problems; reward set: {7}; {4} rounds up to {5:f1} s{6}\n",
      oracle->name(), pool.problems().size(), pool.candidates().size(),
      validation.size(), options.roundBudgets.size(),
      options.roundBudgets.back(),
      reference > 0
          ? llvm::formatv(" ({0:f1}% of {1:f1} s)",
                          100 * options.roundBudgets.back() / reference,
                          reference)
                .str()
          : std::string(),
      rewardSet.empty() ? std::string("none (validation rewards the bandit)")
                        : std::to_string(rewardSet.size()) + " problems");

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
  if (o.beforeLoop)
    o.beforeLoop();
  llvm::Expected<LearnResult> result =
      runLearning(pool, *oracle, validation, table, options, rewardSet);
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
               << options.stateDir << "/rounds.jsonl\n";
  if (o.outcome) {
    *o.outcome = LearnDriverOutcome();
    if (!result->rounds.empty())
      o.outcome->modelTop1 = result->rounds.back().top1;
    double logSum = 0;
    for (const SampleGroup &g : validation) {
      std::optional<double> def = g.defaultTime();
      if (def && g.heuristicTime && *def > 0 && *g.heuristicTime > 0) {
        logSum += std::log(*def / *g.heuristicTime);
        ++o.outcome->problems;
      }
    }
    if (o.outcome->problems)
      o.outcome->heuristicTop1 =
          std::exp(logSum / static_cast<double>(o.outcome->problems));
  }
  return 0;
}
