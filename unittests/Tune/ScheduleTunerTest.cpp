//===- ScheduleTunerTest.cpp - Ranking, measuring and the heuristic guard -===//

#include "sptune/Tune/ScheduleTuner.h"
#include "cpu/CpuKnobs.h"
#include "nvvm/NvvmKnobs.h"

#include "sptune/Collect/WorkerCandidateMeasurer.h"
#include "sptune/Config.h"
#include "sptune/CostModel/MatrixFeatures.h"
#include "sptune/CostModel/Model.h"
#include "sptune/CostModel/Trainer.h"
#include "sptune/InitAllTargets.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Schedule/ScheduleGrammar.h"
#include "sptune/Support/Error.h"
#include "sptune/Target/DefaultSchedule.h"
#include "sptune/Target/ScheduleSpace.h"
#include "sptune/Target/Target.h"

#include "llvm/Support/FileSystem.h"
#include "Support/ErrorTesting.h"
#include "Support/ToyTarget.h"
#include "gtest/gtest.h"

#include <set>

#include <algorithm>
#include <numeric>

using namespace sptune;

namespace {

/// A model that ranks the candidates in their given order except the
/// heuristic schedule, which it ranks last: the case the guard is for.
class HeuristicLastModel : public CostModel {
public:
  HeuristicLastModel() : CostModel(CostModelMode::Development, "test") {}
  std::string description() const override { return "heuristic last"; }
  bool supports(TargetKind target) const override {
    return target == TargetKind::CPU;
  }
  llvm::Expected<Ranking> rank(const MatrixFeatures &features,
                               const std::vector<Schedule> &candidates,
                               TargetKind target, int64_t free) const override {
    std::string heuristic = defaultSchedule(target, candidates.front().kernel,
                                            &features.stats, free)
                                .str();
    Ranking r;
    for (size_t i = 0; i < candidates.size(); ++i)
      r.scores.push_back(
          candidates[i].str() == heuristic ? -1e9 : -static_cast<double>(i));
    r.order.resize(candidates.size());
    std::iota(r.order.begin(), r.order.end(), 0);
    std::stable_sort(r.order.begin(), r.order.end(), [&](size_t a, size_t b) {
      return r.scores[a] > r.scores[b];
    });
    return r;
  }
};

/// HeuristicLastModel with a guard that gives one fixed verdict (or fails),
/// and remembers what it was asked.
class GuardedModel : public HeuristicLastModel {
public:
  std::optional<GuardVerdict> verdict;
  bool fail = false;
  mutable std::vector<std::pair<std::string, std::string>> asked;
  llvm::Expected<std::optional<GuardVerdict>>
  judgeOverHeuristic(const MatrixFeatures &, const Schedule &pick,
                     const Schedule &heuristic, int64_t) const override {
    asked.push_back({pick.str(), heuristic.str()});
    if (fail)
      return makeError("the guard failed");
    return verdict;
  }
};

const char *kMatrix = "gen:uniform:rows=64,cols=64,nnz=400,seed=9";

CsrMatrix load() {
  CooMatrix coo;
  MatrixInfo info;
  EXPECT_TRUE(test::succeeded(loadMatrix(kMatrix, coo, info)));
  return CsrMatrix::fromCoo(coo);
}

/// Measures in sptune-measure workers of this build.
CandidateMeasurer &workers() {
  static WorkerCandidateMeasurer measurer(
      {std::string(SPTUNE_BINARY_DIR) + "/bin/sptune-measure", 120});
  return measurer;
}

TuneOptions measuring(size_t k) {
  registerAllTargets();
  TuneOptions o;
  o.candidates = 40;
  o.topK = 3;
  o.measureTopK = k;
  o.matrixSource = kMatrix;
  o.measure.minSeconds = 0;
  o.measure.minReps = 3;
  o.measurer = &workers();
  return o;
}

TEST(ScheduleTuner, MeasuresTheHeuristicTheModelRankedLast) {
  CsrMatrix m = load();
  HeuristicLastModel model;
  auto result = tuneSchedule(model, m, KernelType::SpMM, 16, measuring(2));
  ASSERT_TRUE(!!result) << llvm::toString(result.takeError());
  // Top 3 reported; the heuristic, ranked last, appended as the guard.
  ASSERT_EQ(result->top.size(), 4u);
  const RankedCandidate &guard = result->top.back();
  EXPECT_TRUE(guard.guard);
  EXPECT_EQ(guard.rank, result->numCandidates);
  MatrixFeatures features = featurize(m);
  EXPECT_EQ(
      guard.schedule.str(),
      defaultSchedule(TargetKind::CPU, KernelType::SpMM, &features.stats, 16)
          .str());
  // Measured: the top 2 and the guard, not #3.
  EXPECT_TRUE(result->top[0].seconds) << result->top[0].measureStatus;
  EXPECT_TRUE(result->top[1].seconds) << result->top[1].measureStatus;
  EXPECT_FALSE(result->top[2].seconds);
  ASSERT_TRUE(guard.seconds) << guard.measureStatus;
  // The choice is the fastest measured one.
  double best = std::min(
      {*result->top[0].seconds, *result->top[1].seconds, *guard.seconds});
  auto chosen = std::find_if(result->top.begin(), result->top.end(),
                             [&](const RankedCandidate &c) {
                               return c.schedule.str() == result->chosen.str();
                             });
  ASSERT_NE(chosen, result->top.end());
  EXPECT_EQ(*chosen->seconds, best);
}

TEST(ScheduleTuner, GuardCanBeTurnedOffAndIsNotNeededWithoutMeasuring) {
  CsrMatrix m = load();
  HeuristicLastModel model;
  TuneOptions off = measuring(1);
  off.measureHeuristic = false;
  auto result = tuneSchedule(model, m, KernelType::SpMM, 16, off);
  ASSERT_TRUE(!!result) << llvm::toString(result.takeError());
  EXPECT_EQ(result->top.size(), 3u);
  EXPECT_TRUE(std::none_of(result->top.begin(), result->top.end(),
                           [](const RankedCandidate &c) { return c.guard; }));
  EXPECT_EQ(result->chosen.str(), result->top.front().schedule.str());

  auto unmeasured = tuneSchedule(model, m, KernelType::SpMM, 16, measuring(0));
  ASSERT_TRUE(!!unmeasured) << llvm::toString(unmeasured.takeError());
  EXPECT_FALSE(unmeasured->measured);
  EXPECT_EQ(unmeasured->top.size(), 3u);
  EXPECT_EQ(unmeasured->top.back().rank, 3u);
}

/// Records what it is asked to measure; every schedule "runs" in 1 ms.
class RecordingMeasurer : public CandidateMeasurer {
public:
  std::vector<Measurement> measure(const std::string &source,
                                   const KernelSpec &kernel,
                                   const std::vector<Schedule> &schedules,
                                   const MeasureOptions &) override {
    sources.push_back(source);
    specs.push_back(kernel);
    std::vector<Measurement> out(schedules.size());
    for (Measurement &m : out) {
      m.status = MeasureStatus::Ok;
      m.medianSeconds = 1e-3;
    }
    return out;
  }
  std::vector<std::string> sources;
  std::vector<KernelSpec> specs;
};

// The measured kernel is the tuned op's: its element width and B's
// transposition reach the measurer (an f64 op was timed in f32).
TEST(ScheduleTuner, MeasuresTheKernelTheOpComputes) {
  CsrMatrix m = load();
  HeuristicLastModel model;
  RecordingMeasurer recorder;
  TuneOptions o = measuring(1);
  o.measurer = &recorder;
  o.elementBits = 64;
  o.transposedB = true;
  auto result = tuneSchedule(model, m, KernelType::SDDMM, 12, o);
  ASSERT_TRUE(!!result) << llvm::toString(result.takeError());
  ASSERT_EQ(recorder.specs.size(), 1u);
  const KernelSpec &spec = recorder.specs.front();
  EXPECT_EQ(spec.kernel, KernelType::SDDMM);
  EXPECT_EQ(spec.free, 12);
  EXPECT_EQ(spec.elementBits, 64);
  EXPECT_TRUE(spec.transposedB);
  EXPECT_EQ(recorder.sources.front(), kMatrix);
}

TEST(ScheduleTuner, AnUntrustedPickGivesWayToTheHeuristic) {
  CsrMatrix m = load();
  MatrixFeatures features = featurize(m);
  std::string heuristic =
      defaultSchedule(TargetKind::CPU, KernelType::SpMM, &features.stats, 16)
          .str();
  GuardedModel model;
  model.verdict = guardVerdict({0.05, -0.02, 0.10}, 1.0);
  ASSERT_FALSE(model.verdict->trusted());
  auto kept = tuneSchedule(model, m, KernelType::SpMM, 16, measuring(0));
  ASSERT_TRUE(!!kept) << llvm::toString(kept.takeError());
  // Asked once, about the model's pick (not the heuristic, ranked last).
  ASSERT_EQ(model.asked.size(), 1u);
  EXPECT_NE(model.asked[0].first, heuristic);
  EXPECT_EQ(model.asked[0].second, heuristic);
  EXPECT_TRUE(kept->keptHeuristic());
  EXPECT_EQ(kept->chosen.str(), heuristic);
  // First, with the model's own (lowest) score; the pick comes second.
  EXPECT_EQ(kept->top[0].schedule.str(), heuristic);
  EXPECT_EQ(kept->top[0].score, -1e9);
  EXPECT_EQ(kept->top[1].schedule.str(), model.asked[0].first);

  model.verdict = guardVerdict({0.30, 0.25, 0.35}, 1.0);
  ASSERT_TRUE(model.verdict->trusted());
  auto trusted = tuneSchedule(model, m, KernelType::SpMM, 16, measuring(0));
  ASSERT_TRUE(!!trusted) << llvm::toString(trusted.takeError());
  EXPECT_FALSE(trusted->keptHeuristic());
  ASSERT_TRUE(trusted->modelGuard);
  EXPECT_EQ(trusted->chosen.str(), model.asked[0].first);

  // Turned off, or no guard: the model's pick, and the guard is not asked.
  model.verdict = guardVerdict({0.05, -0.02, 0.10}, 1.0);
  model.asked.clear();
  TuneOptions off = measuring(0);
  off.useModelGuard = false;
  auto unguarded = tuneSchedule(model, m, KernelType::SpMM, 16, off);
  ASSERT_TRUE(!!unguarded) << llvm::toString(unguarded.takeError());
  EXPECT_TRUE(model.asked.empty());
  EXPECT_FALSE(unguarded->modelGuard);
  EXPECT_NE(unguarded->chosen.str(), heuristic);
  HeuristicLastModel plain;
  auto alone = tuneSchedule(plain, m, KernelType::SpMM, 16, measuring(0));
  ASSERT_TRUE(!!alone) << llvm::toString(alone.takeError());
  EXPECT_FALSE(alone->modelGuard);
  EXPECT_EQ(alone->chosen.str(), unguarded->chosen.str());

  // A failing guard fails the tuning, saying so.
  model.fail = true;
  auto failed = tuneSchedule(model, m, KernelType::SpMM, 16, measuring(0));
  ASSERT_FALSE(!!failed);
  EXPECT_EQ(llvm::toString(failed.takeError()), "the guard failed");
}

TEST(ScheduleTuner, MeasuringWithoutAMeasurerIsAnError) {
  CsrMatrix m = load();
  HeuristicLastModel model;
  TuneOptions o = measuring(2);
  o.measurer = nullptr;
  auto result = tuneSchedule(model, m, KernelType::SpMM, 16, o);
  ASSERT_FALSE(!!result);
  EXPECT_NE(llvm::toString(result.takeError()).find("needs a measurer"),
            std::string::npos);
}

/// Every built-in target tunes through the registry: the heuristic model
/// ranks each target's own candidates, its heuristic first; a model trained
/// for the CPU only falls back to the heuristic elsewhere and says so.
TEST(ScheduleTuner, TunesEveryBuiltInTarget) {
  registerAllTargets();
  CsrMatrix m = load();
  std::string error;
  std::unique_ptr<CostModel> heuristic =
      takeValue(createCostModel(CostModelMode::Heuristic, ""), error)
          .value_or(nullptr);
  ASSERT_TRUE(heuristic) << error;
  HeuristicLastModel cpuOnly;
  MatrixFeatures features = featurize(m);
  for (TargetKind kind : {TargetKind::CPU, TargetKind::NVVM, TargetKind::SPADE}) {
    SCOPED_TRACE(toString(kind));
    TuneOptions o = measuring(0);
    o.target = kind;
    auto result = tuneSchedule(*heuristic, m, KernelType::SpMM, 16, o);
    ASSERT_TRUE(!!result) << llvm::toString(result.takeError());
    EXPECT_EQ(result->chosen.target, kind);
    EXPECT_EQ(result->chosen,
              TargetRegistry::lookup(kind)->heuristicSchedule(
                  KernelType::SpMM, &features.stats, 16));
    EXPECT_GT(result->numCandidates, 2u);
    EXPECT_TRUE(result->fallbackReason.empty());

    auto fallback = tuneSchedule(cpuOnly, m, KernelType::SpMM, 16, o);
    ASSERT_TRUE(!!fallback) << llvm::toString(fallback.takeError());
    EXPECT_EQ(fallback->fallbackReason.empty(), kind == TargetKind::CPU);
    EXPECT_EQ(fallback->chosen.target, kind);
  }
}

/// Tuning NVVM with a model trained for NVVM: the model ranks (no
/// heuristic fallback). There is no GPU to measure NVVM here, so the model
/// learns a synthetic cost (cuSPARSE fastest, then more threads); this tests
/// the path, not the GPU.
TEST(ScheduleTuner, TunesNvvmWithAModelTrainedForIt) {
  registerAllTargets();
  const Target &nvvm = *TargetRegistry::lookup(TargetKind::NVVM);
  FeatureTable features;
  std::vector<SampleGroup> groups;
  for (int n = 0; n < 6; ++n) {
    std::string spec = "gen:uniform:rows=" + std::to_string(128 << (n % 3)) +
                       ",density=0.02,seed=" + std::to_string(n + 1);
    CooMatrix coo;
    MatrixInfo info;
    ASSERT_TRUE(test::succeeded(loadMatrix(spec, coo, info)));
    CsrMatrix m = CsrMatrix::fromCoo(coo);
    features[info.id] = featurize(m);
    SampleGroup g;
    g.matrix.id = info.id;
    g.matrix.source = spec;
    g.kernel = KernelType::SpMM;
    g.free = 16;
    g.target = TargetKind::NVVM;
    ProblemShape shape{KernelType::SpMM, m.rows, m.cols, 16, m.nnz()};
    for (const Schedule &s : nvvm.space().sample(shape, 40, n + 1)) {
      double work = static_cast<double>(m.nnz()) * 16e-9;
      double t = gpuKnobs(s).libgen ? work * 0.3 : work * 1024.0 / gpuKnobs(s).threads;
      g.samples.push_back({s, t});
    }
    groups.push_back(std::move(g));
  }
  std::string error;
  std::unique_ptr<Model> model = Model::create(ModelConfig(), 1, &error);
  ASSERT_TRUE(model) << error;
  TrainOptions options;
  options.target = TargetKind::NVVM;
  options.epochs = 20;
  options.groupsPerBatch = 3;
  options.seed = 1;
  options.threads = 1;
  TrainResult trained = train(*model, groups, features, options);
  ASSERT_TRUE(trained.ok) << trained.error;
  std::string path = testing::TempDir() + "/sptune-nvvm-model.pt";
  ASSERT_TRUE(model->save(path, error)) << error;
  std::unique_ptr<CostModel> costModel =
      takeValue(createCostModel(CostModelMode::Development, path), error)
          .value_or(nullptr);
  ASSERT_TRUE(costModel) << error;
  EXPECT_TRUE(costModel->supports(TargetKind::NVVM));
  EXPECT_FALSE(costModel->supports(TargetKind::CPU));

  CsrMatrix m = load();
  TuneOptions o = measuring(0);
  o.target = TargetKind::NVVM;
  auto result = tuneSchedule(*costModel, m, KernelType::SpMM, 16, o);
  ASSERT_TRUE(!!result) << llvm::toString(result.takeError());
  EXPECT_TRUE(result->fallbackReason.empty()) << result->fallbackReason;
  EXPECT_EQ(result->chosen.target, TargetKind::NVVM);
  EXPECT_EQ(nvvm.whyIllegal(result->chosen), "");
  // What it learned: the library path ranks first.
  EXPECT_TRUE(gpuKnobs(result->chosen).libgen) << result->chosen.str();
  llvm::sys::fs::remove(path);
}

TEST(ScheduleTuner, UnregisteredTargetIsAnError) {
  CsrMatrix m = load();
  HeuristicLastModel model;
  TuneOptions o = measuring(0);
  o.target = addTargetKind("never-registered");
  auto result = tuneSchedule(model, m, KernelType::SpMM, 16, o);
  ASSERT_FALSE(!!result);
  EXPECT_NE(llvm::toString(result.takeError())
                .find("target 'never-registered' is not registered"),
            std::string::npos);
}

TEST(ScheduleTuner, RanksTheHeuristicsKnobNeighbourhood) {
  registerAllTargets();
  CsrMatrix m = load();
  std::string error;
  std::unique_ptr<CostModel> heuristic =
      takeValue(createCostModel(CostModelMode::Heuristic, ""), error)
          .value_or(nullptr);
  ASSERT_TRUE(heuristic) << error;
  MatrixFeatures features = featurize(m);
  Schedule h = defaultSchedule(TargetKind::CPU, KernelType::SDDMM,
                               &features.stats, 16);
  TuneOptions o = measuring(0);
  o.candidates = 0; // only the heuristic, the reference and the neighbours
  o.neighbours = 64;
  o.topK = 100;
  auto result = tuneSchedule(*heuristic, m, KernelType::SDDMM, 16, o);
  ASSERT_TRUE(!!result) << llvm::toString(result.takeError());
  EXPECT_GT(result->numCandidates, 20u);
  // The neighbours keep the heuristic's storage and loop order and vary its
  // knobs, dense layouts and widths included.
  std::set<uint8_t> layouts;
  std::set<int> widths;
  for (const RankedCandidate &c : result->top) {
    if (c.schedule.levels != h.levels || c.schedule.loopOrder != h.loopOrder)
      continue;
    layouts.insert(c.schedule.denseTransposed);
    widths.insert(c.schedule.crdWidth);
  }
  EXPECT_EQ(layouts.size(), 4u);
  EXPECT_EQ(widths.size(), 2u);
}

// The CPU knob encoding has no feature for rows balanced by stored entries
// (omp = balanced): the tuner gives every candidate that runs OpenMP's
// static schedule over rows that can be balanced the heuristic's rule
// instead, but the heuristic and the reference, unless told not to
// (collection).
TEST(ScheduleTuner, KnobsTheModelCannotSeeFollowTheTargetsRule) {
  CsrMatrix m = load();
  HeuristicLastModel model;
  TuneOptions o = measuring(0);
  o.candidates = 200;
  o.topK = 1000;
  auto count = [&](const TuneResult &r, OmpScheduleKind kind) {
    size_t n = 0;
    for (const RankedCandidate &c : r.top)
      n += cpuKnobs(c.schedule).parallel == ParallelKind::Outer &&
           cpuKnobs(c.schedule).omp == kind &&
           whyNotBalanceable(c.schedule).empty();
    return n;
  };
  for (KernelType k : {KernelType::SpMM, KernelType::SpMV}) {
    SCOPED_TRACE(toString(k));
    auto ruled = tuneSchedule(model, m, k, 16, o);
    ASSERT_TRUE(!!ruled) << llvm::toString(ruled.takeError());
    TuneOptions unruled = o;
    unruled.unseenKnobsByRule = false;
    auto raw = tuneSchedule(model, m, k, 16, unruled);
    ASSERT_TRUE(!!raw) << llvm::toString(raw.takeError());
    EXPECT_GT(count(*raw, OmpScheduleKind::Static), 1u);
    EXPECT_EQ(count(*ruled, OmpScheduleKind::Static), 1u) << "the reference";
    EXPECT_GT(count(*ruled, OmpScheduleKind::Balanced),
              count(*raw, OmpScheduleKind::Balanced));
    // Nothing else changes, and no candidate is ranked twice.
    std::set<std::string> names;
    for (const RankedCandidate &c : ruled->top)
      EXPECT_TRUE(names.insert(c.schedule.str()).second) << c.schedule.str();
    EXPECT_LE(ruled->numCandidates, raw->numCandidates);
    for (const RankedCandidate &c : ruled->top)
      if (cpuKnobs(c.schedule).omp != OmpScheduleKind::Balanced)
        EXPECT_TRUE(std::any_of(
            raw->top.begin(), raw->top.end(),
            [&](const RankedCandidate &r) { return r.schedule == c.schedule; }))
            << c.schedule.str();
    // The untuned reference (MLIR's default: static over CSR rows) is a
    // baseline, not a candidate to improve: it stays as it is, the one
    // static candidate left.
    Schedule reference = referenceSchedule(TargetKind::CPU, k);
    ASSERT_EQ(cpuKnobs(reference).omp, OmpScheduleKind::Static);
    EXPECT_TRUE(std::any_of(
        ruled->top.begin(), ruled->top.end(),
        [&](const RankedCandidate &c) { return c.schedule == reference; }));
  }

  // Where the op cannot take the heuristic, the reference stands in for it
  // (what the guard and the measured top-k compare against) unchanged: the
  // model here ranks candidates in order, the stand-in first.
  MatrixFeatures features = featurize(m);
  Schedule heuristic =
      defaultSchedule(TargetKind::CPU, KernelType::SpMM, &features.stats, 16);
  Schedule reference = referenceSchedule(TargetKind::CPU, KernelType::SpMM);
  o.applicable = [&](const Schedule &s) {
    return s == heuristic ? std::string("not this one") : std::string();
  };
  auto standIn = tuneSchedule(model, m, KernelType::SpMM, 16, o);
  ASSERT_TRUE(!!standIn) << llvm::toString(standIn.takeError());
  EXPECT_EQ(standIn->chosen, reference) << standIn->chosen.str();
}

/// A fourth target (Support/ToyTarget.h), added the way a new target folder
/// would add itself: a Target subclass, its knob block, its space, and one
/// registration line.
TEST(ScheduleTuner, AToyTargetPlugsInWithOneRegistrationLine) {
  const Target &toy = TargetRegistry::add(std::make_unique<test::ToyTarget>());
  EXPECT_EQ(TargetRegistry::lookup("toy"), &toy);
  EXPECT_EQ(TargetRegistry::lookup(toy.kind()), &toy);
  // Its schedules print and parse under its name, its knob block after the
  // shared part; the values layer knows nothing of the toy.
  Schedule h = toy.heuristicSchedule(KernelType::SpMM, nullptr, 16);
  EXPECT_EQ(h.str().rfind("toy spmm, levels = [i : compressed", 0), 0u)
      << h.str();
  EXPECT_NE(h.str().find("tile = 0, unroll = 4"), std::string::npos)
      << h.str();
  std::optional<Schedule> parsed =
      llvm::expectedToOptional(parseSchedule(h.str()));
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, h);
  EXPECT_EQ(parsed->knobs<test::ToyKnobs>().unroll, 4);
  // Its knobs are checked and canonicalized by the toy; other targets'
  // knobs are not its own.
  std::string why;
  std::optional<Schedule> three =
      takeValue(parseSchedule("toy spmm, unroll = 3"), why);
  ASSERT_TRUE(three) << why;
  EXPECT_EQ(whyIllegal(*three), "unroll must be 1, 2 or 4");
  EXPECT_FALSE(takeValue(parseSchedule("toy spmm, vl = 8"), why));
  EXPECT_NE(why.find("key 'vl' does not apply to target 'toy'"),
            std::string::npos)
      << why;
  std::optional<Schedule> spmv =
      takeValue(parseSchedule("toy spmv, unroll = 4"), why);
  ASSERT_TRUE(spmv) << why;
  EXPECT_EQ(canonicalize(*spmv),
            *llvm::expectedToOptional(parseSchedule("toy spmv")));

  CsrMatrix m = load();
  std::string error;
  std::unique_ptr<CostModel> heuristic =
      takeValue(createCostModel(CostModelMode::Heuristic, ""), error)
          .value_or(nullptr);
  ASSERT_TRUE(heuristic) << error;
  TuneOptions o = measuring(0);
  o.target = toy.kind();
  o.topK = 10;
  auto result = tuneSchedule(*heuristic, m, KernelType::SpMM, 16, o);
  ASSERT_TRUE(!!result) << llvm::toString(result.takeError());
  // Its eight schedules, and the heuristic's knob neighbour unroll = 2,
  // which its knob encoding's sampler draws.
  EXPECT_EQ(result->numCandidates, 9u);
  EXPECT_EQ(result->chosen, h);
  std::set<int> unrolls;
  for (const RankedCandidate &c : result->top) {
    EXPECT_EQ(c.schedule.target, toy.kind());
    unrolls.insert(c.schedule.knobs<test::ToyKnobs>().unroll);
  }
  EXPECT_EQ(unrolls, (std::set<int>{1, 2, 4}));

  // Its legality applies: no SDDMM candidate survives.
  auto sddmm = tuneSchedule(*heuristic, m, KernelType::SDDMM, 16, o);
  ASSERT_FALSE(!!sddmm);
  EXPECT_NE(llvm::toString(sddmm.takeError())
                .find("no applicable candidate schedule for target 'toy'"),
            std::string::npos);

  // It has no measurer: measuring it is a clear error, not a crash.
  auto measurer = TargetRegistry::createMeasurer(toy.kind());
  ASSERT_FALSE(!!measurer);
  EXPECT_NE(llvm::toString(measurer.takeError())
                .find("no measurer for target 'toy'"),
            std::string::npos);
}

} // namespace
