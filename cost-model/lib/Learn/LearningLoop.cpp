//===- LearningLoop.cpp - The active-learning driver ----------------------===//
//
// Part of sptune. Rounds of select, measure, train, evaluate, checkpoint
// (see LearningLoop.h); nothing here calls LibTorch directly.
//
//===----------------------------------------------------------------------===//

#include "sptune/Learn/LearningLoop.h"
#include "sptune/CostModel/CostModel.h"
#include "sptune/Learn/LearnedRewards.h"

#include "sptune/Support/Files.h"
#include "sptune/Support/Json.h"

#include "StrategySupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <set>
#include <random>

using namespace sptune;
using namespace sptune::learn;
namespace json = llvm::json;

namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

json::Value optional(std::optional<double> v) {
  return v ? json::Value(*v) : json::Value(nullptr);
}

std::string nowUtc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

json::Object recordObject(const RoundRecord &r) {
  return json::Object{
      {"round", r.round},
      {"strategy", r.strategy},
      {"arm", r.arm.empty() ? json::Value(nullptr) : json::Value(r.arm)},
      {"measured", static_cast<int64_t>(r.measured)},
      {"failed", static_cast<int64_t>(r.failed)},
      {"total_measured", static_cast<int64_t>(r.totalMeasured)},
      {"problems", static_cast<int64_t>(r.problems)},
      {"cost_s", r.cost},
      {"cumulative_cost_s", r.cumulativeCost},
      {"select_s", r.selectSeconds},
      {"measure_s", r.measureSeconds},
      {"train_s", r.trainSeconds},
      {"validation", json::Object{{"top1_speedup", optional(r.top1)},
                                  {"top5_speedup", optional(r.top5)},
                                  {"oracle_speedup", optional(r.oracle)},
                                  {"kendall_tau", r.tau}}},
      {"reward_set",
       r.rewardTop1 || r.rewardTau
           ? json::Value(json::Object{{"top1_speedup", optional(r.rewardTop1)},
                                      {"kendall_tau", optional(r.rewardTau)}})
           : json::Value(nullptr)},
      {"arm_reason",
       r.armReason.empty() ? json::Value(nullptr) : json::Value(r.armReason)},
      {"reward", optional(r.reward)}};
}

std::optional<RoundRecord> recordFromJson(const json::Value &v) {
  const json::Object *o = v.getAsObject();
  if (!o)
    return std::nullopt;
  RoundRecord r;
  r.round = static_cast<int>(o->getInteger("round").value_or(-1));
  if (auto s = o->getString("strategy"))
    r.strategy = s->str();
  if (auto s = o->getString("arm"))
    r.arm = s->str();
  r.measured = static_cast<size_t>(o->getInteger("measured").value_or(0));
  r.failed = static_cast<size_t>(o->getInteger("failed").value_or(0));
  r.totalMeasured =
      static_cast<size_t>(o->getInteger("total_measured").value_or(0));
  r.problems = static_cast<size_t>(o->getInteger("problems").value_or(0));
  r.cost = o->getNumber("cost_s").value_or(0);
  r.cumulativeCost = o->getNumber("cumulative_cost_s").value_or(0);
  r.selectSeconds = o->getNumber("select_s").value_or(0);
  r.measureSeconds = o->getNumber("measure_s").value_or(0);
  r.trainSeconds = o->getNumber("train_s").value_or(0);
  if (const json::Object *val = o->getObject("validation")) {
    r.top1 = val->getNumber("top1_speedup");
    r.top5 = val->getNumber("top5_speedup");
    r.oracle = val->getNumber("oracle_speedup");
    r.tau = val->getNumber("kendall_tau").value_or(0);
  }
  if (const json::Object *rs = o->getObject("reward_set")) {
    r.rewardTop1 = rs->getNumber("top1_speedup");
    r.rewardTau = rs->getNumber("kendall_tau");
  }
  if (auto s = o->getString("arm_reason"))
    r.armReason = s->str();
  r.reward = o->getNumber("reward");
  if (r.round < 0)
    return std::nullopt;
  return r;
}

/// The format version of state.json.
constexpr int64_t kStateVersion = 1;

/// Writes `text` to `path` through a temporary file and a rename, so that a
/// kill leaves either the old or the new file.
llvm::Error writeAtomically(const std::string &path, llvm::StringRef text) {
  return replaceFileAtomically(path,
                               std::string_view(text.data(), text.size()));
}

/// "<problem key>|<schedule>": a candidate's name in the state file.
std::string candidateName(const LearningPool &pool, size_t c) {
  const PoolCandidate &pc = pool.candidates()[c];
  return pool.problems()[pc.problem].key() + "|" + pc.schedule.str();
}

/// What a state directory must agree with to be resumed.
std::string fingerprint(const LearningPool &pool, const LearnOptions &o,
                        size_t rewardSetSize) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](llvm::StringRef s) {
    for (char ch : s) {
      h ^= static_cast<unsigned char>(ch);
      h *= 1099511628211ull;
    }
    h ^= 0xff;
    h *= 1099511628211ull;
  };
  for (size_t c = 0; c < pool.candidates().size(); ++c)
    mix(candidateName(pool, c));
  mix(toString(o.target));
  mix(o.strategy);
  if (o.strategy == "bandit") {
    mix(toString(o.policy));
    for (const std::string &a : o.arms)
      mix(a);
    if (o.policy == BanditPolicy::Hedge)
      mix(llvm::formatv("hedge {0:e6} {1:e6}", o.hedgeRate, o.hedgeMinShare)
              .str());
    // Mixed in only when not the first reward, so that states from before
    // it still resume.
    if (o.policy == BanditPolicy::Hedge &&
        o.hedgeReward != PortfolioReward::Found)
      mix(std::string("hedge reward ") + toString(o.hedgeReward));
    if (o.policy == BanditPolicy::Hedge &&
        o.hedgeReward == PortfolioReward::Lookahead)
      mix("lookahead epochs " + std::to_string(o.lookaheadEpochs));
  }
  mix(std::to_string(o.seed));
  for (double b : o.roundBudgets)
    mix(llvm::formatv("{0:e6}", b).str());
  mix(llvm::formatv("{0},{1},{2},{3}", o.initialEpochs, o.roundEpochs,
                    o.retrain, static_cast<int>(o.reward))
          .str());
  const StrategyOptions &so = o.strategyOptions;
  mix(llvm::formatv("{0},{1},{2:e6},{3:e6},{4:e6},{5:e6},{6:e6},{7:e6}",
                    so.perMatrix, so.ensembleSize, so.farShare, so.rs2Fraction,
                    // Hedge has no exploration constant (its rate and floor
                    // are mixed above).
                    o.policy == BanditPolicy::Hedge && o.strategy == "bandit"
                        ? 0.0
                        : o.banditOptions.exploration,
                    o.regressionWeight, o.learningRate, o.warmLearningRate)
          .str());
  // Mixed in only when set, so that states from before them still resume.
  if (o.banditOptions.discount != 1.0)
    mix(llvm::formatv("discount {0:e6}", o.banditOptions.discount).str());
  if (rewardSetSize)
    mix("reward set " + std::to_string(rewardSetSize));
  if (!o.baseModelBytes.empty())
    mix("base " + modelIdentity(o.baseModelBytes) + " " +
        toString(o.baseFreeze));
  return llvm::utohexstr(h, /*LowerCase=*/true);
}

/// Batches of measurements per round at most (each re-estimates costs).
constexpr int kMaxBatches = 12;

class Driver {
public:
  Driver(LearningPool &pool, MeasurementOracle &oracle,
         const std::vector<SampleGroup> &validation,
         const std::vector<SampleGroup> &rewardSet,
         const FeatureTable &features, const LearnOptions &o)
      : pool(pool), oracle(oracle), validation(validation),
        rewardSet(rewardSet), features(features), o(o) {}

  llvm::Expected<LearnResult> run();

private:
  void note(const llvm::Twine &text) const {
    if (o.onMessage)
      o.onMessage(text.str());
  }
  bool stopRequested() const { return o.stop && o.stop->load(); }
  std::string statePath() const { return o.stateDir + "/state.json"; }
  std::string modelPath(int round) const {
    return o.stateDir + "/model-round" + std::to_string(round) + ".pt";
  }

  llvm::Error checkOptions() const;
  llvm::Error loadState();
  llvm::Error saveState(int round, const std::string &modelFile);
  /// How a round trains (warm: from a model), also what the portfolio's
  /// learned reward differentiates.
  TrainOptions trainOptions(bool warm, int epochs, uint64_t seed,
                            double epochFraction) const;
  llvm::Expected<std::unique_ptr<Model>> trainModel(const Model *warm,
                                                    int epochs, uint64_t seed,
                                                    double epochFraction,
                                                    bool bootstrap);
  /// The reward's metric of a round: on the reward set when there is one.
  double metricOf(const RoundRecord &r) const {
    bool separate = !rewardSet.empty();
    if (o.reward == RewardMetric::Tau)
      return separate ? r.rewardTau.value_or(0) : r.tau;
    std::optional<double> top1 = separate ? r.rewardTop1 : r.top1;
    return top1 ? std::log(*top1) : 0.0;
  }

  LearningPool &pool;
  MeasurementOracle &oracle;
  const std::vector<SampleGroup> &validation;
  const std::vector<SampleGroup> &rewardSet;

  /// The kernels of the pool, the validation problems and the reward set.
  std::vector<KernelType> kernels() const {
    std::vector<KernelType> out;
    for (const PoolCandidate &c : pool.candidates())
      out.push_back(c.schedule.kernel);
    for (const std::vector<SampleGroup> *groups : {&validation, &rewardSet})
      for (const SampleGroup &g : *groups)
        out.push_back(g.kernel);
    return out;
  }
  const FeatureTable &features;
  const LearnOptions &o;

  std::optional<StrategyBandit> bandit;
  std::optional<StrategyPortfolio> portfolio;
  bool portfolioMode() const {
    return o.strategy == "bandit" && o.policy == BanditPolicy::Hedge;
  }
  /// Hedge: every arm ranks, the round takes each arm's share.
  llvm::Expected<MergedRanking> portfolioRanking(const SelectionContext &ctx);
  std::unique_ptr<Model> model;
  std::vector<const MatrixFeatures *> poolMatrices;
  LearnResult result;
  int roundsDone = 0;
};

llvm::Error Driver::checkOptions() const {
  if (o.stateDir.empty())
    return failure("a state directory is required (checkpoints, resume)");
  if (o.roundBudgets.empty())
    return failure("no round budgets given");
  for (size_t n = 0; n < o.roundBudgets.size(); ++n)
    if (!(o.roundBudgets[n] > 0) ||
        (n && !(o.roundBudgets[n] > o.roundBudgets[n - 1])))
      return failure("round budgets must be positive and increasing");
  if (o.initialEpochs < 1 || o.roundEpochs < 1)
    return failure("epochs must be at least 1");
  if (!o.baseModelBytes.empty() && o.retrain)
    return failure("a base model is fine-tuned every round; retraining from "
                   "scratch would discard it");
  if (!(o.learningRate > 0) || !(o.warmLearningRate > 0))
    return failure("learning rates must be positive");
  if (o.strategy == "bandit") {
    if (o.arms.empty())
      return failure("the bandit needs at least one arm");
    for (const std::string &a : o.arms)
      if (llvm::Expected<std::unique_ptr<SelectionStrategy>> s =
              createStrategy(a, o.strategyOptions);
          !s)
        return s.takeError();
  } else if (llvm::Expected<std::unique_ptr<SelectionStrategy>> s =
                 createStrategy(o.strategy, o.strategyOptions);
             !s) {
    return llvm::joinErrors(
        s.takeError(), failure("(or 'bandit' for a bandit over strategies)"));
  }
  if (!(o.banditOptions.exploration >= 0 &&
        std::isfinite(o.banditOptions.exploration)))
    return failure("the bandit's exploration constant must be finite and "
                   ">= 0");
  if (!(o.banditOptions.discount > 0 && o.banditOptions.discount <= 1))
    return failure("the bandit's discount must be in (0, 1]");
  if (rewardsWhatIsLearned(o.hedgeReward)) {
    std::string what =
        std::string("the ") + toString(o.hedgeReward) + " reward";
    if (!portfolioMode())
      return failure(what + " is the Hedge policy's (--strategy bandit "
                            "--policy hedge)");
    if (o.retrain)
      return failure(what + " asks what the model that trains on the round "
                            "next learns from it; retraining from scratch "
                            "would not train that model");
    if (rewardSet.empty())
      return failure(what + " needs a reward set (problems apart from the "
                            "validation's) to learn toward");
    if (o.hedgeReward == PortfolioReward::Lookahead && o.lookaheadEpochs < 1)
      return failure("the lookahead reward needs at least one epoch "
                     "(--lookahead-epochs)");
  }
  if (portfolioMode())
    if (std::string why = StrategyPortfolio::whyInvalid(
            {o.hedgeRate, o.hedgeMinShare, o.banditOptions.discount},
            o.arms.size());
        !why.empty())
      return failure(why);
  if (validation.empty())
    return failure("no validation problems");
  std::set<std::string> validationIds;
  for (const SampleGroup &g : validation)
    validationIds.insert(g.matrix.id);
  for (const SampleGroup &g : rewardSet)
    if (validationIds.count(g.matrix.id))
      return failure("matrix '" + g.matrix.id +
                     "' is in both the validation and the reward set (the "
                     "reward set must be apart from what is reported)");
  if (pool.candidates().empty())
    return failure("the pool is empty");
  return llvm::Error::success();
}

llvm::Error Driver::loadState() {
  if (!llvm::sys::fs::exists(statePath()))
    return llvm::Error::success();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buf =
      llvm::MemoryBuffer::getFile(statePath());
  if (!buf)
    return failure("cannot read '" + statePath() +
                   "': " + buf.getError().message());
  llvm::Expected<json::Value> v = parseJson((*buf)->getBuffer());
  if (!v)
    return failure("'" + statePath() + "' is corrupt: " +
                   llvm::toString(v.takeError()));
  const json::Object *s = v->getAsObject();
  if (!s)
    return failure("'" + statePath() + "' is corrupt: not an object");
  // A state of another format was resumed as if it were this one (issue 35).
  std::optional<int64_t> version = s->getInteger("version");
  if (version != kStateVersion)
    return failure("'" + statePath() + "' is a state of format version " +
                   (version ? std::to_string(*version) : "(none)") +
                   "; this sptune-learn writes version " +
                   std::to_string(kStateVersion) +
                   ": use a new state directory");
  std::optional<llvm::StringRef> fp = s->getString("fingerprint");
  if (!fp || *fp != fingerprint(pool, o, rewardSet.size()))
    return failure("'" + o.stateDir +
                   "' holds the state of another run (other pool, strategy, "
                   "seed, budgets or training options); use a new state "
                   "directory");
  std::map<std::string, size_t> byName;
  for (size_t c = 0; c < pool.candidates().size(); ++c)
    byName[candidateName(pool, c)] = c;
  const json::Array *measured = s->getArray("measured");
  const json::Array *rounds = s->getArray("rounds");
  std::optional<llvm::StringRef> modelFile = s->getString("model");
  if (!measured || !rounds || !modelFile)
    return failure("'" + statePath() + "' is corrupt: fields missing");
  for (const json::Value &m : *measured) {
    const json::Object *mo = m.getAsObject();
    std::optional<llvm::StringRef> name =
        mo ? mo->getString("candidate") : std::nullopt;
    auto it = name ? byName.find(name->str()) : byName.end();
    if (it == byName.end())
      return failure("'" + statePath() +
                     "' is corrupt: an unknown measured candidate");
    MeasuredOutcome out;
    out.ok = mo->getBoolean("ok").value_or(false);
    out.time = mo->getNumber("time").value_or(0);
    out.cost = mo->getNumber("cost").value_or(0);
    pool.record(it->second, out);
  }
  for (const json::Value &r : *rounds) {
    std::optional<RoundRecord> rec = recordFromJson(r);
    if (!rec)
      return failure("'" + statePath() + "' is corrupt: a bad round record");
    result.rounds.push_back(*rec);
  }
  if (bandit)
    if (const json::Value *b = s->get("bandit"))
      if (llvm::Error e = bandit->restore(*b))
        return e;
  if (portfolio)
    if (const json::Value *b = s->get("portfolio"))
      if (llvm::Error e = portfolio->restore(*b))
        return e;
  std::string error;
  model = Model::load(o.stateDir + "/" + modelFile->str(), error);
  if (!model)
    return failure("cannot resume: " + error);
  roundsDone = static_cast<int>(result.rounds.size());
  result.resumedAfter = roundsDone;
  // The log is derived from the state; a kill between the two writes of a
  // checkpoint leaves it a round short: rewrite it.
  std::string log;
  for (const RoundRecord &r : result.rounds)
    log += r.json() + "\n";
  if (llvm::Error e = writeAtomically(o.stateDir + "/rounds.jsonl", log))
    return e;
  note(llvm::formatv("resuming after round {0} of {1} from '{2}' ({3} "
                     "measurements, {4:f1} s of measurement)",
                     roundsDone, o.roundBudgets.size(), o.stateDir,
                     pool.measuredCount(), pool.spent()));
  return llvm::Error::success();
}

llvm::Error Driver::saveState(int round, const std::string &modelFile) {
  // In the order they were recorded: resuming records them again in this
  // order, which sums their costs as this run did.
  json::Array measured;
  for (size_t c : pool.recordOrder()) {
    const MeasuredOutcome &m = *pool.outcome(c);
    measured.push_back(json::Object{{"candidate", candidateName(pool, c)},
                                    {"ok", m.ok},
                                    {"time", m.time},
                                    {"cost", m.cost}});
  }
  json::Array rounds;
  std::string log;
  for (const RoundRecord &r : result.rounds) {
    rounds.push_back(recordObject(r));
    log += r.json() + "\n";
  }
  json::Object state{{"version", kStateVersion},
                     {"fingerprint", fingerprint(pool, o, rewardSet.size())},
                     {"round", round},
                     {"model", llvm::sys::path::filename(modelFile).str()},
                     {"measured", std::move(measured)},
                     {"rounds", std::move(rounds)},
                     {"time", nowUtc()}};
  if (bandit)
    state["bandit"] = bandit->toJson();
  if (portfolio)
    state["portfolio"] = portfolio->toJson();
  std::string text;
  llvm::raw_string_ostream(text) << json::Value(std::move(state)) << "\n";
  if (llvm::Error e = writeAtomically(statePath(), text))
    return e;
  // The log is derived from the state: rewritten whole, never half a round.
  return writeAtomically(o.stateDir + "/rounds.jsonl", log);
}

TrainOptions Driver::trainOptions(bool warm, int epochs, uint64_t seed,
                                  double epochFraction) const {
  TrainOptions t;
  t.target = o.target;
  // From a base: fine-tune it, in its own feature standardization.
  t.finetune = warm && !o.baseModelBytes.empty();
  t.finetuneFreeze = o.baseFreeze;
  t.epochs = std::max(
      1, static_cast<int>(std::lround(epochs / std::max(epochFraction, 1e-3))));
  t.epochGroupFraction = epochFraction;
  t.seed = seed;
  t.threads = o.torchThreads;
  t.learningRate = warm ? o.warmLearningRate : o.learningRate;
  t.regressionWeight = o.regressionWeight;
  t.validateEvery = 1 << 30;
  t.normalizationMatrices = &poolMatrices;
  t.stop = o.stop;
  return t;
}

llvm::Expected<std::unique_ptr<Model>>
Driver::trainModel(const Model *warm, int epochs, uint64_t seed,
                   double epochFraction, bool bootstrap) {
  std::string error;
  std::unique_ptr<Model> m;
  if (warm) {
    m = warm->clone(&error);
    if (!m)
      return failure(error);
  } else {
    std::vector<Schedule> schedules;
    for (const PoolCandidate &c : pool.candidates())
      schedules.push_back(c.schedule);
    ModelConfig config;
    config.kernels = modelKernelsFor(kernels());
    m = Model::create(config, seed, &error);
    if (!m)
      return failure(error);
    PretrainOptions pre;
    pre.seed = seed;
    if (llvm::Error e = pretrainAutoencoders(*m, schedules, pre).takeError())
      return std::move(e);
  }
  std::vector<SampleGroup> groups = pool.measuredGroups();
  if (bootstrap) {
    std::mt19937_64 rng(seed);
    std::vector<SampleGroup> resampled;
    for (size_t n = 0; n < groups.size(); ++n)
      resampled.push_back(groups[rng() % groups.size()]);
    groups = std::move(resampled);
  }
  TrainResult r = train(*m, groups, features,
                        trainOptions(warm, epochs, seed, epochFraction));
  if (!r.ok)
    return failure("training failed: " + r.error);
  if (r.interrupted)
    return failure("interrupted");
  m->markTrained(o.target);
  m->info().calibrated = o.regressionWeight > 0;
  return std::move(m);
}

llvm::Expected<MergedRanking>
Driver::portfolioRanking(const SelectionContext &ctx) {
  std::vector<std::vector<size_t>> rankings;
  for (size_t a = 0; a < o.arms.size(); ++a) {
    std::unique_ptr<SelectionStrategy> s =
        cantFail(createStrategy(o.arms[a], o.strategyOptions));
    SelectionContext armCtx = ctx;
    // Each arm its own stream (two random arms would otherwise agree).
    armCtx.seed = ctx.seed + 0x51ED27ull * (a + 1);
    llvm::Expected<std::vector<size_t>> r = s->rank(armCtx);
    if (!r)
      return r.takeError();
    rankings.push_back(std::move(*r));
  }
  return StrategyPortfolio::merge(rankings, portfolio->shares());
}

llvm::Expected<LearnResult> Driver::run() {
  if (llvm::Error e = checkOptions())
    return std::move(e);
  if (std::error_code ec = llvm::sys::fs::create_directories(o.stateDir))
    return failure("cannot create the state directory '" + o.stateDir +
                   "': " + ec.message());
  for (const std::string &id : pool.matrixIds()) {
    auto f = features.find(id);
    if (f == features.end())
      return failure("no features for matrix '" + id + "'");
    poolMatrices.push_back(&f->second);
  }
  for (const SampleGroup &g : validation)
    if (!features.count(g.matrix.id))
      return failure("no features for validation matrix '" + g.matrix.id +
                     "'");
  for (const SampleGroup &g : rewardSet)
    if (auto f = features.find(g.matrix.id);
        f == features.end() ||
        (rewardsWhatIsLearned(o.hedgeReward) && !f->second.isWellFormed()))
      return failure("no features for reward-set matrix '" + g.matrix.id + "'");
  if (portfolioMode())
    portfolio.emplace(o.arms, PortfolioOptions{o.hedgeRate, o.hedgeMinShare,
                                               o.banditOptions.discount});
  else if (o.strategy == "bandit")
    bandit.emplace(o.policy, o.arms, o.banditOptions);
  if (llvm::Error e = loadState())
    return std::move(e);
  if (!model && !o.baseModelBytes.empty()) {
    std::string error;
    model = Model::loadFromBytes(o.baseModelBytes, o.baseModelName, error);
    if (!model)
      return failure("the base model: " + error);
    if (!model->isTrainedFor(o.target))
      return failure("the base model '" + o.baseModelName +
                     "' was not trained for target '" + toString(o.target) +
                     "'");
    for (KernelType k : kernels())
      if (!model->hasKernel(k))
        return failure("the base model '" + o.baseModelName +
                       "' has no feature for kernel '" + toString(k) +
                       "' (learn it from no data: without a base model; or "
                       "leave its problems out: --kernel live, "
                       "`python3 -m sptune.filter_dataset --drop-kernel` on "
                       "replayed data)");
    note("starting from the base model '" + o.baseModelName + "' (" +
         modelIdentity(o.baseModelBytes) + ")");
  }

  int rounds = static_cast<int>(o.roundBudgets.size());
  for (int round = roundsDone + 1; round <= rounds; ++round) {
    if (stopRequested()) {
      result.interrupted = true;
      return std::move(result);
    }
    double target = o.roundBudgets[static_cast<size_t>(round - 1)];
    uint64_t roundSeed = o.seed * 0x9E3779B97F4A7C15ull + round;
    RoundRecord rec;
    rec.round = round;
    rec.strategy = o.strategy;

    // 1. The round's strategy.
    std::unique_ptr<SelectionStrategy> strategy;
    std::optional<size_t> arm;
    std::string name = o.strategy;
    if (portfolio) {
      name = "random";
      if (model) {
        name = "hedge";
        rec.arm = "hedge";
        rec.armReason = portfolio->describe();
      }
    } else if (bandit) {
      name = "random";
      if (model) {
        BanditChoice choice = bandit->decide(roundSeed);
        arm = choice.arm;
        name = bandit->arms()[*arm];
        rec.arm = name;
        rec.armReason = std::move(choice.reason);
      }
    }
    if (name != "hedge")
      strategy = cantFail(createStrategy(name, o.strategyOptions));
    std::unique_ptr<SelectionStrategy> trainingStrategy =
        cantFail(createStrategy(bandit || portfolio ? "random" : o.strategy,
                                o.strategyOptions));
    if (strategy && strategy->needsModel() && !model) {
      strategy = cantFail(createStrategy("random", o.strategyOptions));
      name = strategy->name();
    }

    // 2. Select and measure until the round's budget is spent.
    Clock::time_point t0 = Clock::now();
    SelectionContext ctx{pool, features, model.get(), roundSeed, {}};
    ctx.trainEnsembleMember =
        [&](uint64_t seed) -> llvm::Expected<std::unique_ptr<Model>> {
      return trainModel(model.get(), std::max(2, o.roundEpochs / 2), seed, 1.0,
                        /*bootstrap=*/true);
    };
    // Hedge: which arm each candidate of the round came from, and each
    // problem's best measured time before the round (what an arm's
    // measurements are rewarded for beating).
    std::vector<size_t> armOf;
    std::vector<double> bestBefore;
    llvm::Expected<std::vector<size_t>> ranked = std::vector<size_t>();
    if (strategy) {
      ranked = strategy->rank(ctx);
    } else {
      llvm::Expected<MergedRanking> merged = portfolioRanking(ctx);
      if (!merged)
        return merged.takeError();
      armOf.assign(pool.candidates().size(), o.arms.size());
      for (size_t n = 0; n < merged->candidates.size(); ++n)
        armOf[merged->candidates[n]] = merged->arms[n];
      ranked = std::move(merged->candidates);
      bestBefore = bestMeasuredTimes(pool);
    }
    if (!ranked)
      return ranked.takeError();
    rec.selectSeconds = secondsSince(t0);
    double before = pool.spent();
    std::vector<size_t> measuredThisRound;
    size_t next = 0;
    t0 = Clock::now();
    for (int batch = 0; batch < kMaxBatches && pool.spent() < target * 0.999;
         ++batch) {
      std::vector<size_t> chosen;
      double planned = pool.spent();
      // Costs are estimates (what this problem, matrix or the pool cost so
      // far); a candidate of a matrix not measured yet may cost several
      // times the pool's mean. So a batch plans half of what is left of the
      // round's budget, and the last batches the rest: an error of the
      // estimates costs at most a fraction of the remaining budget.
      double left = target - pool.spent();
      double typical = pool.measuredCount()
                           ? pool.spent() / static_cast<double>(
                                                pool.measuredCount())
                           : 1.0;
      double batchTarget = batch + 1 == kMaxBatches || left < 4 * typical
                               ? target
                               : pool.spent() + left / 2;
      // Candidates are taken while the round's spending stays nearest its
      // budget (a candidate is in when at least half its expected cost
      // fits), so a round ends within about half a measurement of its
      // budget instead of always above it; a round below its budget
      // measures at least one, and the last round spends its whole budget.
      for (; next < ranked->size(); ++next) {
        size_t c = (*ranked)[next];
        if (pool.isMeasured(c))
          continue;
        double cost = pool.estimatedCost(c);
        bool fits = batchTarget < target ? planned < batchTarget
                    : round == rounds    ? planned < target
                                         : planned + cost / 2 < target;
        bool first = chosen.empty() && rec.measured == 0 &&
                     pool.spent() < target;
        if (!fits && !first)
          break;
        chosen.push_back(c);
        planned += cost;
      }
      if (chosen.empty())
        break;
      llvm::Expected<std::vector<std::optional<MeasuredOutcome>>> outcomes =
          oracle.measure(pool, chosen,
                         [&](const OracleProgress &p) {
                           if (o.onMeasureProgress)
                             o.onMeasureProgress(round, rounds, p, pool.spent(),
                                                 o.roundBudgets.back());
                         },
                         o.stop);
      if (!outcomes)
        return outcomes.takeError();
      for (size_t n = 0; n < chosen.size(); ++n)
        if (const std::optional<MeasuredOutcome> &m = (*outcomes)[n]) {
          pool.record(chosen[n], *m);
          ++rec.measured;
          if (!m->ok)
            ++rec.failed;
          measuredThisRound.push_back(chosen[n]);
        }
      if (stopRequested()) {
        // What was measured is in the oracle's dataset (live) or free to
        // reveal again (replay): the round is redone on resume.
        result.interrupted = true;
        return std::move(result);
      }
    }
    rec.measureSeconds = secondsSince(t0);
    rec.cost = pool.spent() - before;
    rec.cumulativeCost = pool.spent();
    rec.totalMeasured = pool.measuredCount();
    if (rec.measured == 0 && pool.unmeasured().empty()) {
      result.poolExhausted = true;
      note(llvm::formatv("round {0}: nothing left to measure; stopping",
                         round));
      break;
    }

    // Hedge's learned reward: what the model that chose the round would take
    // from each arm's measurements, before it trains on them.
    std::optional<std::vector<std::optional<double>>> learned;
    if (portfolio && !armOf.empty() && model &&
        rewardsWhatIsLearned(o.hedgeReward)) {
      t0 = Clock::now();
      bool warm = !o.retrain;
      bool ahead = o.hedgeReward == PortfolioReward::Lookahead;
      int epochs =
          ahead ? o.lookaheadEpochs : (warm ? o.roundEpochs : o.initialEpochs);
      llvm::Expected<std::vector<std::optional<double>>> r =
          (ahead ? lookaheadRewards : learnedRewards)(
              *model, pool, measuredThisRound, armOf, o.arms.size(), rewardSet,
              features,
              trainOptions(warm, epochs, roundSeed,
                           trainingStrategy->epochFraction()));
      if (!r) {
        if (stopRequested()) {
          llvm::consumeError(r.takeError());
          result.interrupted = true;
          return std::move(result);
        }
        return r.takeError();
      }
      learned = std::move(*r);
      rec.selectSeconds += secondsSince(t0);
    }

    // 3. Train.
    t0 = Clock::now();
    bool fresh = !model || o.retrain;
    llvm::Expected<std::unique_ptr<Model>> trained = trainModel(
        fresh ? nullptr : model.get(),
        fresh ? o.initialEpochs : o.roundEpochs, roundSeed,
        trainingStrategy->epochFraction(), /*bootstrap=*/false);
    if (!trained) {
      if (stopRequested()) {
        llvm::consumeError(trained.takeError());
        result.interrupted = true;
        return std::move(result);
      }
      return trained.takeError();
    }
    model = std::move(*trained);
    rec.trainSeconds = secondsSince(t0);
    rec.problems = pool.measuredGroups().size();

    // 4. Evaluate, reward.
    auto evaluateOn = [&](const std::vector<SampleGroup> &groups,
                          const char *what) -> llvm::Expected<ModelEvaluation> {
      ModelEvaluation eval = evaluate(*model, groups, features);
      if (eval.failedGroups)
        return failure(llvm::Twine("the model failed to score ") + what +
                       " problems: " + eval.firstError);
      return eval;
    };
    llvm::Expected<ModelEvaluation> eval = evaluateOn(validation, "validation");
    if (!eval)
      return eval.takeError();
    rec.top1 = eval->top1;
    rec.top5 = eval->top5;
    rec.oracle = eval->oracle;
    rec.tau = eval->tau;
    if (!rewardSet.empty()) {
      llvm::Expected<ModelEvaluation> rewardEval =
          evaluateOn(rewardSet, "reward-set");
      if (!rewardEval)
        return rewardEval.takeError();
      rec.rewardTop1 = rewardEval->top1;
      rec.rewardTau = rewardEval->tau;
    }
    if (arm && !result.rounds.empty() && rec.measured > 0) {
      double gain = metricOf(rec) - metricOf(result.rounds.back());
      // Per unit of log cost: learning curves are close to linear in the
      // logarithm of the data, so a gain per unit of log cost is comparable
      // between early rounds (big gains, cheap) and late ones; per unit of
      // plain cost would credit whichever arms happened to play first.
      double before = std::max(rec.cumulativeCost - rec.cost, 1e-9);
      double logCost = std::log(std::max(rec.cumulativeCost, before * (1 + 1e-9)) /
                                before);
      rec.reward = gain / std::max(logCost, 1e-6);
      bandit->update(*arm, *rec.reward);
    }
    if (portfolio && !armOf.empty()) {
      std::vector<std::optional<double>> rewards =
          learned ? *learned
                  : improvementRewards(pool, bestBefore, measuredThisRound,
                                       armOf, o.arms.size());
      std::string text;
      for (size_t a = 0; a < o.arms.size(); ++a) {
        text += llvm::formatv("{0}{1} {2}", a ? ", " : "", o.arms[a],
                              rewards[a]
                                  ? llvm::formatv("{0:e2}", *rewards[a]).str()
                                  : std::string("-"))
                    .str();
      }
      portfolio->update(rewards);
      const char *what =
          !learned ? "log gain of best times per second"
          : o.hedgeReward == PortfolioReward::Lookahead
              ? "log gain of the reward set's top-1 after a lookahead "
                "training, per second"
              : "first-order fall of the reward set's loss per second";
      rec.armReason += std::string("; rewards (") + what + "): " + text;
    }

    // 5. Checkpoint: the model first, then the state that names it.
    std::string file = modelPath(round);
    std::string error;
    if (!model->save(file, error))
      return failure(error);
    result.rounds.push_back(rec);
    if (llvm::Error e = saveState(round, file))
      return std::move(e);
    if (round > 1)
      llvm::sys::fs::remove(modelPath(round - 1));
    roundsDone = round;
    std::string budget =
        o.referenceCost > 0
            ? llvm::formatv(" ({0:f1}% of {1:f0} s)",
                            100 * rec.cumulativeCost / o.referenceCost,
                            o.referenceCost)
                  .str()
            : std::string();
    note(llvm::formatv(
        "round {0}/{1} [{2}]: measured {3} ({4} failed) for {5:f1} s; total "
        "{6} measurements, {7:f1} s{8}; validation top-1 {9}, tau {10:f3}; "
        "select {11:f1} s, train {12:f1} s",
        round, rounds, rec.arm.empty() ? name : rec.arm, rec.measured,
        rec.failed, rec.cost, rec.totalMeasured, rec.cumulativeCost, budget,
        rec.top1 ? llvm::formatv("{0:f3}x", *rec.top1).str() : "n/a",
        rec.tau, rec.selectSeconds, rec.trainSeconds));
  }

  if (!model)
    return failure("nothing was trained (the pool had nothing to measure)");
  std::string final = o.outPath.empty() ? o.stateDir + "/final.pt" : o.outPath;
  // Resumed after the last round: the final model is there already, and
  // writing it again would change its bytes (the time in its provenance),
  // hence its identity, which the tuning database keys decisions by.
  if (result.resumedAfter == rounds && llvm::sys::fs::exists(final)) {
    result.modelPath = final;
    return std::move(result);
  }
  // Provenance and the final model.
  json::Object prov{
      {"tool", o.toolName},
      {"oracle", oracle.name()},
      {"strategy", o.strategy},
      {"seed", static_cast<int64_t>(o.seed)},
      {"rounds", static_cast<int64_t>(result.rounds.size())},
      {"measurements", static_cast<int64_t>(pool.measuredCount())},
      {"measurement_s", pool.spent()},
      {"warm_start", !o.retrain},
      {"base", o.baseModelName},
      {"base_identity", o.baseModelBytes.empty()
                            ? std::string()
                            : modelIdentity(o.baseModelBytes)},
      {"time", nowUtc()}};
  if (bandit || portfolio)
    prov["policy"] = toString(o.policy);
  if (!result.rounds.empty())
    prov["validation"] = recordObject(result.rounds.back())["validation"];
  std::string text;
  llvm::raw_string_ostream(text) << json::Value(std::move(prov));
  model->info().provenance = text;
  std::string error;
  if (!model->save(final, error))
    return failure(error);
  result.modelPath = final;
  return std::move(result);
}

} // namespace

std::string RoundRecord::json() const {
  std::string s;
  llvm::raw_string_ostream(s) << json::Value(recordObject(*this));
  return s;
}

llvm::Expected<LearnResult>
sptune::runLearning(LearningPool &pool, MeasurementOracle &oracle,
                    const std::vector<SampleGroup> &validation,
                    const FeatureTable &features, const LearnOptions &options,
                    const std::vector<SampleGroup> &rewardSet) {
  Driver driver(pool, oracle, validation, rewardSet, features, options);
  return driver.run();
}
