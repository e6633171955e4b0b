//===- LearnTest.cpp - The active-learning driver's pieces ----------------===//
//
// The pool (deduplication, outcomes, cost estimates, training groups), the
// replay oracle, the strategy bandit (UCB1, Thompson, its JSON state), every
// selection strategy through `createStrategy`, and whole `runLearning` runs
// on a small synthetic dataset: generated matrices x {SpMM, SDDMM} x a few
// CPU schedules whose runtimes are a known function of the schedule (more
// threads and longer vectors are faster), so that the model has something
// to learn. Epochs are tiny: the point is the driver, not the model.
//
//===----------------------------------------------------------------------===//

#include "cpu/CpuKnobs.h"
#include "sptune/Learn/LearningLoop.h"
#include "sptune/Learn/LearningPool.h"
#include "sptune/Learn/MeasurementOracle.h"
#include "sptune/Learn/SelectionStrategy.h"
#include "sptune/Learn/StrategyBandit.h"
#include "sptune/Learn/StrategyPortfolio.h"
#include "sptune/Target/DefaultSchedule.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <set>

using namespace sptune;

namespace {

//===----------------------------------------------------------------------===//
// Synthetic data
//===----------------------------------------------------------------------===//

/// Distinct canonical CPU schedules of `kernel`: CSR and DCSR, serial or
/// parallel, no vectors or 8 lanes, and the MLIR default.
std::vector<Schedule> cpuSchedules(KernelType kernel) {
  std::vector<Schedule> out;
  auto add = [&](const Schedule &s) {
    Schedule c = canonicalize(s);
    if (std::find(out.begin(), out.end(), c) == out.end())
      out.push_back(c);
  };
  add(referenceSchedule(TargetKind::CPU, kernel));
  for (Schedule base : {Schedule::csr(TargetKind::CPU, kernel),
                        Schedule::dcsr(TargetKind::CPU, kernel)})
    for (int k = 0; k < 6; ++k) {
      Schedule s = base;
      cpuKnobs(s).parallel = k & 1 ? ParallelKind::Outer : ParallelKind::None;
      cpuKnobs(s).vectorLength = (k >> 1) == 0 ? 0 : (k >> 1) == 1 ? 4 : 8;
      add(s);
    }
  return out;
}

/// Runtime under the synthetic machine: parallel and vectorized is faster,
/// DCSR pays for empty rows less, SDDMM is dearer.
double syntheticTime(const Schedule &s, const MatrixFeatures &f,
                     KernelType kernel) {
  const MatrixStats &st = f.stats;
  double empty =
      static_cast<double>(st.emptyRows) / static_cast<double>(st.rows);
  double format =
      s.levels[0].format == LevelFormat::Compressed ? 1.2 : 1.0 + 1.5 * empty;
  double knobs = (cpuKnobs(s).parallel == ParallelKind::Outer ? 0.5 : 1.0) *
                 (cpuKnobs(s).vectorLength == 8   ? 0.7
                  : cpuKnobs(s).vectorLength == 4 ? 0.85
                                            : 1.0);
  double noise = 1.0 + 0.02 * std::sin(static_cast<double>(s.hash() % 1000));
  return 1e-8 * static_cast<double>(st.nnz) *
         (kernel == KernelType::SDDMM ? 1.5 : 1.0) * format * knobs * noise;
}

/// What measuring costs: a compile and a few repetitions.
double syntheticCost(const Schedule &s) {
  return 0.3 + 0.05 * static_cast<double>(s.hash() % 5);
}

struct Synthetic {
  FeatureTable features;
  std::vector<SampleGroup> pool, validation;
};

const char *const kPoolMatrices[] = {
    "gen:uniform:rows=64,cols=64,nnz=256,seed=1",
    "gen:uniform:rows=96,cols=96,nnz=120,seed=2",
    "gen:banded:rows=64,cols=64,nnz=300,bw=4,seed=3",
    "gen:uniform:rows=128,cols=128,nnz=600,seed=4",
};
const char *const kValidationMatrices[] = {
    "gen:uniform:rows=80,cols=80,nnz=200,seed=5",
    "gen:banded:rows=96,cols=96,nnz=400,bw=6,seed=6",
};

SampleGroup makeGroup(const std::string &id, const MatrixFeatures &f,
                      KernelType kernel) {
  SampleGroup g;
  g.matrix = {id, id, f.stats.rows, f.stats.cols, f.stats.nnz};
  g.kernel = kernel;
  g.free = 16;
  g.target = TargetKind::CPU;
  Schedule def = canonicalize(referenceSchedule(TargetKind::CPU, kernel));
  for (const Schedule &s : cpuSchedules(kernel)) {
    MeasuredSchedule m;
    m.schedule = s;
    m.time = syntheticTime(s, f, kernel);
    m.cost = syntheticCost(s);
    m.isMlirDefault = s == def;
    if (m.isMlirDefault)
      g.mlirDefaultTime = m.time;
    g.samples.push_back(m);
  }
  std::sort(g.samples.begin(), g.samples.end(),
            [](const MeasuredSchedule &a, const MeasuredSchedule &b) {
              return a.schedule.str() < b.schedule.str();
            });
  return g;
}

const Synthetic &synthetic() {
  static const Synthetic *d = [] {
    auto *s = new Synthetic;
    std::map<std::string, std::string> sources;
    for (const char *m : kPoolMatrices)
      sources[m] = m;
    for (const char *m : kValidationMatrices)
      sources[m] = m;
    std::vector<std::string> unloadable;
    std::map<std::string, MatrixFeatures> f =
        featurizeMatrices(sources, unloadable);
    EXPECT_TRUE(unloadable.empty());
    s->features.insert(f.begin(), f.end());
    for (KernelType k : {KernelType::SpMM, KernelType::SDDMM}) {
      for (const char *m : kPoolMatrices)
        s->pool.push_back(makeGroup(m, s->features.at(m), k));
      for (const char *m : kValidationMatrices)
        s->validation.push_back(makeGroup(m, s->features.at(m), k));
    }
    return s;
  }();
  return *d;
}

/// A model trained briefly on `groups` (like the driver's first round, with
/// fewer pretraining steps).
std::unique_ptr<Model> quickModel(const std::vector<SampleGroup> &groups,
                                  uint64_t seed, int epochs = 3) {
  std::string error;
  std::unique_ptr<Model> m = Model::create(ModelConfig(), seed, &error);
  EXPECT_TRUE(m) << error;
  if (!m)
    return nullptr;
  PretrainOptions pre;
  pre.steps = 40;
  pre.sampledPerTarget = 256;
  pre.seed = seed;
  EXPECT_TRUE(test::succeeded(pretrainAutoencoders(*m, {}, pre).takeError()));
  TrainOptions t;
  t.epochs = epochs;
  t.seed = seed;
  t.threads = 1;
  TrainResult r = train(*m, groups, synthetic().features, t);
  EXPECT_TRUE(r.ok) << r.error;
  return m;
}

std::string errorText(llvm::Error e) { return llvm::toString(std::move(e)); }

template <typename T> std::string errorText(llvm::Expected<T> &e) {
  EXPECT_FALSE(static_cast<bool>(e));
  return e ? std::string() : llvm::toString(e.takeError());
}

/// A fresh temporary directory, removed by the destructor.
struct TempDir {
  llvm::SmallString<256> path;
  TempDir() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("sptune-learn", path));
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string operator/(llvm::StringRef name) const {
    llvm::SmallString<256> p(path);
    llvm::sys::path::append(p, name);
    return std::string(p.str());
  }
};

std::string readFile(const std::string &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> b =
      llvm::MemoryBuffer::getFile(path);
  return b ? (*b)->getBuffer().str() : std::string();
}

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(text).split(parts, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef p : parts)
    out.push_back(p.str());
  return out;
}

/// rounds.jsonl without the wall-clock fields (select_s, measure_s,
/// train_s), which differ between two runs of the same thing.
std::vector<std::string> roundsWithoutTimes(const std::string &path) {
  std::vector<std::string> out;
  for (const std::string &line : lines(readFile(path))) {
    llvm::Expected<llvm::json::Value> v = llvm::json::parse(line);
    if (!v) {
      ADD_FAILURE() << "bad rounds.jsonl line: " << line << ": "
                    << llvm::toString(v.takeError());
      continue;
    }
    llvm::json::Object *o = v->getAsObject();
    EXPECT_TRUE(o);
    if (!o)
      continue;
    for (const char *k : {"select_s", "measure_s", "train_s"}) {
      EXPECT_TRUE(o->get(k)) << k << " missing in " << line;
      o->erase(k);
    }
    std::string s;
    llvm::raw_string_ostream(s) << *v;
    out.push_back(s);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// LearningPool
//===----------------------------------------------------------------------===//

PoolProblem problem(const std::string &id, KernelType kernel,
                    int64_t free = 16) {
  return {MatrixRef{id, id, 8, 8, 16}, kernel, free, TargetKind::CPU};
}

TEST(LearningPoolTest, AddCandidateDedupsCanonicalSchedules) {
  LearningPool pool;
  size_t a = pool.addProblem(problem("a", KernelType::SpMM));
  size_t b = pool.addProblem(problem("b", KernelType::SpMM));
  Schedule csr = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
  size_t c0 = pool.addCandidate(a, csr);
  EXPECT_EQ(pool.addCandidate(a, csr), c0);
  // COO cannot run in parallel: its parallel variant canonicalizes to the
  // serial one and is the same candidate.
  Schedule coo = Schedule::coo(TargetKind::CPU, KernelType::SpMM);
  Schedule cooParallel = coo;
  cpuKnobs(cooParallel).parallel = ParallelKind::Outer;
  ASSERT_EQ(canonicalize(coo), canonicalize(cooParallel));
  size_t c1 = pool.addCandidate(a, coo);
  EXPECT_NE(c1, c0);
  EXPECT_EQ(pool.addCandidate(a, cooParallel), c1);
  // The same schedule in another problem is another candidate.
  size_t c2 = pool.addCandidate(b, csr);
  EXPECT_NE(c2, c0);
  ASSERT_EQ(pool.candidates().size(), 3u);
  EXPECT_EQ(pool.candidatesOf(a), (std::vector<size_t>{c0, c1}));
  EXPECT_EQ(pool.candidatesOf(b), (std::vector<size_t>{c2}));
  EXPECT_EQ(pool.candidates()[c1].schedule, canonicalize(coo));
  EXPECT_EQ(pool.candidates()[c2].problem, b);
  EXPECT_EQ(pool.matrixIds(), (std::vector<std::string>{"a", "b"}));
  // Baseline marks accumulate.
  pool.markBaseline(c0, true, false);
  pool.markBaseline(c0, false, true);
  EXPECT_TRUE(pool.candidates()[c0].isMlirDefault);
  EXPECT_TRUE(pool.candidates()[c0].isHeuristic);
  EXPECT_FALSE(pool.candidates()[c1].isMlirDefault);
}

/// One SpMM problem "a" with the CPU schedules as candidates; returns
/// their indices.
std::vector<size_t> addSpmmProblem(LearningPool &pool) {
  size_t p = pool.addProblem(problem("a", KernelType::SpMM));
  std::vector<size_t> c;
  for (const Schedule &s : cpuSchedules(KernelType::SpMM))
    c.push_back(pool.addCandidate(p, s));
  return c;
}

TEST(LearningPoolTest, RecordUnmeasuredSpentAndCount) {
  LearningPool pool;
  std::vector<size_t> c = addSpmmProblem(pool);
  ASSERT_GE(c.size(), 4u);
  EXPECT_EQ(pool.unmeasured(), c);
  EXPECT_EQ(pool.measuredCount(), 0u);
  EXPECT_EQ(pool.spent(), 0);

  pool.record(c[1], {true, 1e-3, 0.5});
  pool.record(c[3], {false, 0, 2.0}); // failed: paid for, not timed
  EXPECT_TRUE(pool.isMeasured(c[1]));
  EXPECT_TRUE(pool.isMeasured(c[3]));
  EXPECT_FALSE(pool.isMeasured(c[0]));
  EXPECT_EQ(pool.measuredCount(), 2u);
  EXPECT_DOUBLE_EQ(pool.spent(), 2.5);
  std::vector<size_t> open = pool.unmeasured();
  EXPECT_EQ(open.size(), c.size() - 2);
  EXPECT_TRUE(std::is_sorted(open.begin(), open.end()));
  EXPECT_EQ(std::count(open.begin(), open.end(), c[1]), 0);
  EXPECT_EQ(std::count(open.begin(), open.end(), c[3]), 0);
  ASSERT_TRUE(pool.outcome(c[1]).has_value());
  EXPECT_DOUBLE_EQ(pool.outcome(c[1])->time, 1e-3);
  EXPECT_FALSE(pool.outcome(c[3])->ok);

  // Recording again replaces the outcome: counted once, its cost replaced.
  pool.record(c[1], {true, 2e-3, 0.25});
  EXPECT_EQ(pool.measuredCount(), 2u);
  EXPECT_DOUBLE_EQ(pool.spent(), 2.25);
  EXPECT_DOUBLE_EQ(pool.outcome(c[1])->time, 2e-3);
}

// A checkpoint lists the measured candidates in the order they were
// recorded, so that resuming sums their costs in the same order: in another
// order the cumulative cost (and the bandit's rewards from it) differed in
// the last bit from an uninterrupted run's (probe, issue 35).
TEST(LearningPoolTest, RecordingInRecordOrderGivesTheSameSpentToTheBit) {
  LearningPool live;
  std::vector<size_t> c = addSpmmProblem(live);
  ASSERT_GE(c.size(), 3u);
  const double cost[] = {0.355292064, 1.7101241, 1.551171776};
  for (size_t n : {2, 0, 1})
    live.record(c[n], {true, 1e-3, cost[n]});
  EXPECT_EQ(live.recordOrder(), (std::vector<size_t>{c[2], c[0], c[1]}));

  auto replayed = [&](const std::vector<size_t> &order) {
    LearningPool pool;
    addSpmmProblem(pool);
    for (size_t n : order)
      pool.record(n, *live.outcome(n));
    return pool.spent();
  };
  EXPECT_EQ(replayed(live.recordOrder()), live.spent()); // bit for bit
  // Index order, as checkpoints listed them: another sum.
  EXPECT_NE(replayed({c[0], c[1], c[2]}), live.spent());
}

TEST(LearningPoolTest, EstimatedCostFallsBackFromProblemToMatrixToPool) {
  LearningPool pool;
  Schedule s0 = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
  Schedule s1 = Schedule::dcsr(TargetKind::CPU, KernelType::SpMM);
  Schedule d0 = Schedule::csr(TargetKind::CPU, KernelType::SDDMM);
  Schedule d1 = Schedule::dcsr(TargetKind::CPU, KernelType::SDDMM);
  size_t aSpmm = pool.addProblem(problem("a", KernelType::SpMM));
  size_t aSddmm = pool.addProblem(problem("a", KernelType::SDDMM));
  size_t aWide = pool.addProblem(problem("a", KernelType::SpMM, 64));
  size_t bSpmm = pool.addProblem(problem("b", KernelType::SpMM));
  size_t cSpmm = pool.addProblem(problem("c", KernelType::SpMM));
  size_t a0 = pool.addCandidate(aSpmm, s0), a1 = pool.addCandidate(aSpmm, s1);
  size_t ad0 = pool.addCandidate(aSddmm, d0),
         ad1 = pool.addCandidate(aSddmm, d1);
  size_t aw = pool.addCandidate(aWide, s0);
  size_t b0 = pool.addCandidate(bSpmm, s0), b1 = pool.addCandidate(bSpmm, s1);
  size_t c0 = pool.addCandidate(cSpmm, s0);

  // Nothing paid yet: the prior.
  EXPECT_DOUBLE_EQ(pool.estimatedCost(a0), 1.0);
  EXPECT_DOUBLE_EQ(pool.estimatedCost(a0, 7.0), 7.0);

  // One measurement of b: b's problem, and the pool mean for the others.
  pool.record(b0, {true, 1e-3, 10.0});
  EXPECT_DOUBLE_EQ(pool.estimatedCost(b1, 7.0), 10.0);
  EXPECT_DOUBLE_EQ(pool.estimatedCost(a0, 7.0), 10.0);

  // a's SpMM and SDDMM problems paid 2 and 6 (the failure counts: it was
  // paid for); a's third problem has nothing: a's matrix mean, 4.
  pool.record(a0, {true, 1e-3, 2.0});
  pool.record(ad0, {false, 0, 6.0});
  EXPECT_DOUBLE_EQ(pool.estimatedCost(a1), 2.0);
  EXPECT_DOUBLE_EQ(pool.estimatedCost(ad1), 6.0);
  EXPECT_DOUBLE_EQ(pool.estimatedCost(aw), 4.0);
  // c has no measurement of its matrix: the pool mean, 18 / 3.
  EXPECT_DOUBLE_EQ(pool.estimatedCost(c0, 7.0), 6.0);
  // Problem means, not the candidate's own cost, once measured.
  EXPECT_DOUBLE_EQ(pool.estimatedCost(b0), 10.0);
}

TEST(LearningPoolTest, MeasuredGroupsCarryBaselinesAndLeaveOutFailures) {
  LearningPool pool;
  size_t p = pool.addProblem(problem("a", KernelType::SpMM));
  size_t failedOnly = pool.addProblem(problem("b", KernelType::SpMM));
  size_t untouched = pool.addProblem(problem("c", KernelType::SpMM));
  std::vector<Schedule> s = cpuSchedules(KernelType::SpMM);
  ASSERT_GE(s.size(), 5u);
  size_t def = pool.addCandidate(p, s[0]);
  size_t heur = pool.addCandidate(p, s[1]);
  size_t fail = pool.addCandidate(p, s[2]);
  size_t plain = pool.addCandidate(p, s[3]);
  pool.addCandidate(p, s[4]); // never measured
  pool.markBaseline(def, true, false);
  pool.markBaseline(heur, false, true);
  size_t bFail = pool.addCandidate(failedOnly, s[0]);
  pool.addCandidate(untouched, s[0]);

  pool.record(def, {true, 4e-3, 0.5});
  pool.record(heur, {true, 2e-3, 0.5});
  pool.record(fail, {false, 0, 3.0});
  pool.record(plain, {true, 1e-3, 0.7});
  pool.record(bFail, {false, 0, 1.0});

  std::vector<SampleGroup> groups = pool.measuredGroups();
  ASSERT_EQ(groups.size(), 1u) << "problems with only failures or nothing "
                                  "measured are left out";
  const SampleGroup &g = groups[0];
  EXPECT_EQ(g.key(), pool.problems()[p].key());
  EXPECT_EQ(g.matrix.id, "a");
  EXPECT_EQ(g.free, 16);
  ASSERT_EQ(g.samples.size(), 3u);
  ASSERT_TRUE(g.mlirDefaultTime.has_value());
  EXPECT_DOUBLE_EQ(*g.mlirDefaultTime, 4e-3);
  ASSERT_TRUE(g.heuristicTime.has_value());
  EXPECT_DOUBLE_EQ(*g.heuristicTime, 2e-3);
  std::set<std::string> kept;
  for (const MeasuredSchedule &m : g.samples) {
    kept.insert(m.schedule.str());
    EXPECT_GT(m.time, 0);
  }
  EXPECT_EQ(kept.count(s[2].str()), 0u) << "the failed candidate";
  EXPECT_TRUE(
      std::is_sorted(g.samples.begin(), g.samples.end(),
                     [](const MeasuredSchedule &a, const MeasuredSchedule &b) {
                       return a.schedule.str() < b.schedule.str();
                     }));
  for (const MeasuredSchedule &m : g.samples)
    if (m.schedule == pool.candidates()[plain].schedule) {
      EXPECT_DOUBLE_EQ(m.cost, 0.7);
    }

  // Without marked baselines, no baseline times.
  LearningPool other;
  size_t q = other.addProblem(problem("a", KernelType::SpMM));
  other.record(other.addCandidate(q, s[0]), {true, 1e-3, 0.1});
  ASSERT_EQ(other.measuredGroups().size(), 1u);
  EXPECT_FALSE(other.measuredGroups()[0].mlirDefaultTime.has_value());
  EXPECT_FALSE(other.measuredGroups()[0].heuristicTime.has_value());

  // An f64 problem is keyed apart (a state of f32 measurements never
  // resumes as f64 ones) and its measured group keeps the width.
  PoolProblem wide = problem("a", KernelType::SpMM);
  wide.elementBits = 64;
  size_t w = other.addProblem(wide);
  EXPECT_EQ(other.problems()[q].key(), "a|spmm|16|cpu");
  EXPECT_EQ(other.problems()[w].key(), "a|spmm|16|cpu|64-bit");
  other.record(other.addCandidate(w, s[0]), {true, 2e-3, 0.1});
  std::vector<SampleGroup> both = other.measuredGroups();
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].elementBits, 32);
  EXPECT_EQ(both[1].elementBits, 64);
  EXPECT_EQ(both[1].key(), other.problems()[w].key());
}

TEST(LearningPoolTest, FeaturizeMatricesLeavesOutUnloadable) {
  std::map<std::string, std::string> sources = {
      {"ok", "gen:uniform:rows=32,cols=32,nnz=64,seed=1"},
      {"missing", "/nonexistent/matrix.mtx"},
      {"nosource", ""}};
  std::vector<std::string> unloadable;
  std::vector<std::string> seen;
  std::map<std::string, MatrixFeatures> f = featurizeMatrices(
      sources, unloadable, [&](size_t n, size_t total, const std::string &id) {
        EXPECT_EQ(total, 3u);
        EXPECT_EQ(n, seen.size() + 1);
        seen.push_back(id);
      });
  EXPECT_EQ(f.size(), 1u);
  ASSERT_TRUE(f.count("ok"));
  EXPECT_EQ(f["ok"].stats.nnz, 64);
  EXPECT_EQ(seen.size(), 3u);
  ASSERT_EQ(unloadable.size(), 2u);
  std::string all = unloadable[0] + "; " + unloadable[1];
  EXPECT_NE(all.find("missing"), std::string::npos) << all;
  EXPECT_NE(all.find("no source recorded"), std::string::npos) << all;

  std::atomic<bool> stop{true};
  std::vector<std::string> none;
  EXPECT_TRUE(featurizeMatrices(sources, none, nullptr, &stop).empty());
}

//===----------------------------------------------------------------------===//
// ReplayOracle
//===----------------------------------------------------------------------===//

TEST(ReplayOracleTest, BuildsThePoolAndRevealsStoredTimesAndCosts) {
  const Synthetic &d = synthetic();
  std::vector<SampleGroup> groups = {d.pool[0], d.pool[5]};
  LearningPool pool;
  ReplayOracle oracle(groups, pool);
  EXPECT_EQ(oracle.name(), "replay");
  ASSERT_EQ(pool.problems().size(), 2u);
  EXPECT_EQ(pool.problems()[0].key(), groups[0].key());
  EXPECT_EQ(pool.problems()[1].key(), groups[1].key());
  EXPECT_EQ(pool.problems()[1].matrix.source, groups[1].matrix.source);
  ASSERT_EQ(pool.candidates().size(),
            groups[0].samples.size() + groups[1].samples.size());
  EXPECT_EQ(pool.measuredCount(), 0u) << "nothing is revealed up front";

  double total = 0;
  size_t defaults = 0;
  for (size_t p = 0; p < groups.size(); ++p)
    for (size_t n = 0; n < groups[p].samples.size(); ++n) {
      const MeasuredSchedule &m = groups[p].samples[n];
      total += m.cost;
      size_t c = pool.candidatesOf(p)[n];
      EXPECT_EQ(pool.candidates()[c].schedule, m.schedule);
      EXPECT_EQ(pool.candidates()[c].isMlirDefault, m.isMlirDefault);
      defaults += pool.candidates()[c].isMlirDefault;
    }
  EXPECT_EQ(defaults, 2u);
  EXPECT_NEAR(oracle.totalCost(), total, 1e-9);

  std::vector<size_t> chosen = {pool.candidatesOf(1)[2],
                                pool.candidatesOf(0)[0]};
  std::vector<OracleProgress> progress;
  auto outcomes = oracle.measure(
      pool, chosen, [&](const OracleProgress &p) { progress.push_back(p); },
      nullptr);
  ASSERT_TRUE(static_cast<bool>(outcomes)) << errorText(outcomes.takeError());
  ASSERT_EQ(outcomes->size(), 2u);
  ASSERT_TRUE((*outcomes)[0].has_value());
  ASSERT_TRUE((*outcomes)[1].has_value());
  EXPECT_TRUE((*outcomes)[0]->ok);
  EXPECT_DOUBLE_EQ((*outcomes)[0]->time, groups[1].samples[2].time);
  EXPECT_DOUBLE_EQ((*outcomes)[0]->cost, groups[1].samples[2].cost);
  EXPECT_DOUBLE_EQ((*outcomes)[1]->time, groups[0].samples[0].time);
  EXPECT_DOUBLE_EQ((*outcomes)[1]->cost, groups[0].samples[0].cost);
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.back().done, 2u);
  EXPECT_EQ(progress.back().total, 2u);
  // The oracle does not record: the driver does.
  EXPECT_EQ(pool.measuredCount(), 0u);

  // A stop request leaves every outcome empty (measured by a later run).
  std::atomic<bool> stop{true};
  auto stopped = oracle.measure(pool, chosen, nullptr, &stop);
  ASSERT_TRUE(static_cast<bool>(stopped)) << errorText(stopped.takeError());
  ASSERT_EQ(stopped->size(), 2u);
  EXPECT_FALSE((*stopped)[0].has_value());
  EXPECT_FALSE((*stopped)[1].has_value());

  // A candidate the dataset does not have is an error, not a crash.
  auto bad =
      oracle.measure(pool, {pool.candidates().size() + 3}, nullptr, nullptr);
  EXPECT_NE(errorText(bad).find("not in the replayed dataset"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// StrategyBandit
//===----------------------------------------------------------------------===//

TEST(StrategyBanditTest, PolicyNames) {
  EXPECT_EQ(parseBanditPolicy("ucb1"), BanditPolicy::UCB1);
  EXPECT_EQ(parseBanditPolicy("thompson"), BanditPolicy::Thompson);
  EXPECT_EQ(parseBanditPolicy("hedge"), BanditPolicy::Hedge);
  EXPECT_FALSE(parseBanditPolicy("greedy").has_value());
  EXPECT_STREQ(toString(BanditPolicy::UCB1), "ucb1");
  EXPECT_STREQ(toString(BanditPolicy::Thompson), "thompson");
  EXPECT_STREQ(toString(BanditPolicy::Hedge), "hedge");
}

TEST(StrategyBanditTest, Ucb1PlaysEveryArmFirstThenTheBestAndStillExplores) {
  StrategyBandit bandit(BanditPolicy::UCB1, {"a", "b", "c"});
  // Arm 1 is clearly the best; rewards are fixed per arm.
  auto reward = [](size_t arm) {
    return arm == 1 ? 1.0 : arm == 0 ? 0.1 : 0.0;
  };
  for (size_t expected = 0; expected < 3; ++expected) {
    size_t arm = bandit.choose(expected);
    EXPECT_EQ(arm, expected) << "untried arms first, in order";
    bandit.update(arm, reward(arm));
  }
  EXPECT_EQ(bandit.choose(7), 1u) << "the higher mean after one pull each";
  for (int t = 0; t < 60; ++t) {
    size_t arm = bandit.choose(static_cast<uint64_t>(t));
    bandit.update(arm, reward(arm));
  }
  EXPECT_GT(bandit.pulls(1), bandit.pulls(0) + bandit.pulls(2));
  EXPECT_GE(bandit.pulls(0), 2u) << "a starved arm is tried again";
  EXPECT_GE(bandit.pulls(2), 2u) << "a starved arm is tried again";
  EXPECT_EQ(bandit.pulls(0) + bandit.pulls(1) + bandit.pulls(2), 63u);
  EXPECT_DOUBLE_EQ(bandit.meanReward(1), 1.0);
  EXPECT_DOUBLE_EQ(bandit.meanReward(2), 0.0);

  // UCB1 is deterministic: the seed does not matter.
  EXPECT_EQ(bandit.choose(1), bandit.choose(12345));
}

TEST(StrategyBanditTest, Ucb1IgnoresTheScaleOfRewards) {
  // Rewards rescaled by the smallest and largest seen: multiplying every
  // reward by 1000 plays the same arms.
  StrategyBandit small(BanditPolicy::UCB1, {"a", "b"}),
      large(BanditPolicy::UCB1, {"a", "b"});
  for (int t = 0; t < 20; ++t) {
    size_t a = small.choose(0), b = large.choose(0);
    ASSERT_EQ(a, b) << "round " << t;
    double r = a == 0 ? 0.002 : -0.001;
    small.update(a, r);
    large.update(b, r * 1000);
  }
}

TEST(StrategyBanditTest, NonFiniteRewardsCountAsZero) {
  StrategyBandit bandit(BanditPolicy::UCB1, {"a"});
  bandit.update(0, std::nan(""));
  bandit.update(0, INFINITY);
  ASSERT_EQ(bandit.pulls(0), 2u);
  EXPECT_EQ(bandit.rewards(0), (std::vector<double>{0.0, 0.0}));
  EXPECT_DOUBLE_EQ(bandit.meanReward(0), 0.0);
}

TEST(StrategyBanditTest, ThompsonIsDeterministicAndPrefersAClearlyBetterArm) {
  StrategyBandit bandit(BanditPolicy::Thompson, {"worse", "better"});
  for (double r : {0.0, 0.1, -0.1})
    bandit.update(0, r);
  for (double r : {1.0, 1.1, 0.9})
    bandit.update(1, r);
  StrategyBandit copy(BanditPolicy::Thompson, {"worse", "better"});
  ASSERT_FALSE(static_cast<bool>(copy.restore(bandit.toJson())));
  size_t better = 0;
  const int seeds = 400;
  std::set<size_t> chosen;
  for (int s = 1; s <= seeds; ++s) {
    size_t arm = bandit.choose(static_cast<uint64_t>(s));
    EXPECT_EQ(arm, bandit.choose(static_cast<uint64_t>(s)));
    EXPECT_EQ(arm, copy.choose(static_cast<uint64_t>(s)));
    better += arm == 1;
  }
  EXPECT_GT(better, seeds * 9 / 10);

  // Untried arms are sampled from the prior: each is chosen for some seed.
  StrategyBandit fresh(BanditPolicy::Thompson, {"a", "b", "c"});
  for (int s = 1; s <= 100; ++s)
    chosen.insert(fresh.choose(static_cast<uint64_t>(s)));
  EXPECT_EQ(chosen.size(), 3u);
}

TEST(StrategyBanditTest, StateRoundTripsAndRejectsOtherArmsOrPolicy) {
  for (BanditPolicy policy : {BanditPolicy::UCB1, BanditPolicy::Thompson}) {
    StrategyBandit a(policy, {"random", "exploitation", "diversity"});
    a.update(0, 0.25);
    a.update(1, -0.5);
    a.update(1, 1.5);
    StrategyBandit b(policy, {"random", "exploitation", "diversity"});
    llvm::Error e = b.restore(a.toJson());
    ASSERT_FALSE(static_cast<bool>(e)) << errorText(std::move(e));
    for (size_t arm = 0; arm < 3; ++arm) {
      EXPECT_EQ(b.rewards(arm), a.rewards(arm));
      EXPECT_EQ(b.pulls(arm), a.pulls(arm));
    }
    for (uint64_t seed = 0; seed < 20; ++seed)
      EXPECT_EQ(a.choose(seed), b.choose(seed));
    // Through text, as the checkpoint stores it.
    std::string text;
    llvm::raw_string_ostream(text) << a.toJson();
    llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
    ASSERT_TRUE(static_cast<bool>(parsed));
    StrategyBandit c(policy, {"random", "exploitation", "diversity"});
    ASSERT_FALSE(static_cast<bool>(c.restore(*parsed)));
    EXPECT_EQ(c.rewards(1), a.rewards(1));

    BanditPolicy otherPolicy = policy == BanditPolicy::UCB1
                                   ? BanditPolicy::Thompson
                                   : BanditPolicy::UCB1;
    StrategyBandit wrongPolicy(otherPolicy,
                               {"random", "exploitation", "diversity"});
    std::string msg = errorText(wrongPolicy.restore(a.toJson()));
    EXPECT_NE(msg.find("another policy"), std::string::npos) << msg;
    EXPECT_EQ(wrongPolicy.pulls(0), 0u) << "a failed restore changes nothing";

    StrategyBandit fewer(policy, {"random", "exploitation"});
    msg = errorText(fewer.restore(a.toJson()));
    EXPECT_NE(msg.find("other arms"), std::string::npos) << msg;
    StrategyBandit renamed(policy, {"random", "exploration", "diversity"});
    msg = errorText(renamed.restore(a.toJson()));
    EXPECT_NE(msg.find("other arms"), std::string::npos) << msg;
    EXPECT_EQ(renamed.pulls(0), 0u) << "a failed restore changes nothing";
    StrategyBandit reordered(policy, {"exploitation", "random", "diversity"});
    msg = errorText(reordered.restore(a.toJson()));
    EXPECT_NE(msg.find("other arms"), std::string::npos) << msg;

    msg = errorText(b.restore(llvm::json::Value(3)));
    EXPECT_NE(msg.find("bandit state"), std::string::npos) << msg;
  }
}

TEST(StrategyBanditTest, DiscountingFollowsAnArmWhoseValueChanged) {
  // Arm a paid well early and poorly since; arm b steadily in between. The
  // plain mean still prefers a; a discounted one (and its UCB index, with a
  // small exploration constant) prefers b.
  auto feed = [](StrategyBandit &bandit) {
    for (int t = 0; t < 4; ++t)
      bandit.update(0, 1.0);
    for (int t = 0; t < 3; ++t) {
      bandit.update(1, 0.5);
      bandit.update(0, 0.0);
    }
  };
  BanditOptions plain{/*exploration=*/0.05, /*discount=*/1.0};
  BanditOptions discounted{/*exploration=*/0.05, /*discount=*/0.5};
  for (BanditPolicy policy : {BanditPolicy::UCB1, BanditPolicy::Thompson}) {
    StrategyBandit a(policy, {"a", "b"}, plain);
    StrategyBandit b(policy, {"a", "b"}, discounted);
    feed(a);
    feed(b);
    EXPECT_NEAR(a.meanReward(0), 4.0 / 7.0, 1e-12);
    EXPECT_DOUBLE_EQ(a.weight(0), 7.0);
    EXPECT_LT(b.meanReward(0), 0.1) << "old rewards weigh little";
    EXPECT_DOUBLE_EQ(b.meanReward(1), 0.5);
    EXPECT_LT(b.weight(0), 2.0);
    if (policy == BanditPolicy::UCB1) {
      EXPECT_EQ(a.choose(0), 0u);
      EXPECT_EQ(b.choose(0), 1u);
    } else {
      int bWins = 0;
      for (uint64_t seed = 1; seed <= 200; ++seed)
        bWins += b.choose(seed) == 1;
      EXPECT_GT(bWins, 150);
    }
    // The state keeps the order of the updates: a restored bandit
    // discounts the same.
    StrategyBandit c(policy, {"a", "b"}, discounted);
    ASSERT_FALSE(static_cast<bool>(c.restore(b.toJson())));
    EXPECT_DOUBLE_EQ(c.meanReward(0), b.meanReward(0));
    for (uint64_t seed = 0; seed < 10; ++seed)
      EXPECT_EQ(c.choose(seed), b.choose(seed));
  }
}

TEST(StrategyBanditTest, ExplainsItsChoiceAndRejectsABadUpdateOrder) {
  StrategyBandit bandit(BanditPolicy::UCB1, {"exploitation", "random"});
  BanditChoice first = bandit.decide(1);
  EXPECT_EQ(first.arm, 0u);
  EXPECT_EQ(first.reason, "ucb1: first play of exploitation");
  bandit.update(0, 0.4);
  bandit.update(1, 0.1);
  BanditChoice c = bandit.decide(1);
  EXPECT_EQ(c.arm, 0u);
  EXPECT_NE(c.reason.find("exploitation 1.00+"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("random 0.00+"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("-> exploitation"), std::string::npos) << c.reason;

  llvm::json::Value state = bandit.toJson();
  llvm::json::Object *o = state.getAsObject();
  (*o)["order"] = llvm::json::Array{0, 0};
  StrategyBandit other(BanditPolicy::UCB1, {"exploitation", "random"});
  std::string msg = errorText(other.restore(state));
  EXPECT_NE(msg.find("does not match the rewards"), std::string::npos) << msg;
  (*o)["order"] = llvm::json::Array{0, 7};
  msg = errorText(other.restore(state));
  EXPECT_NE(msg.find("names no arm"), std::string::npos) << msg;
  // A state from before discounting (no order) still restores.
  o->erase("order");
  ASSERT_FALSE(static_cast<bool>(other.restore(state)));
  EXPECT_EQ(other.pulls(0) + other.pulls(1), 2u);
}

//===----------------------------------------------------------------------===//
// Selection strategies
//===----------------------------------------------------------------------===//

/// A replayed pool with the first three candidates of every problem
/// measured, and a model trained briefly on them.
struct StrategyFixture {
  LearningPool pool;
  std::unique_ptr<ReplayOracle> oracle;
  std::unique_ptr<Model> model;
  StrategyFixture() {
    const Synthetic &d = synthetic();
    oracle = std::make_unique<ReplayOracle>(d.pool, pool);
    std::vector<size_t> first;
    for (size_t p = 0; p < pool.problems().size(); ++p)
      for (size_t n = 0; n < 3; ++n)
        first.push_back(pool.candidatesOf(p)[n]);
    auto outcomes = oracle->measure(pool, first, nullptr, nullptr);
    EXPECT_TRUE(static_cast<bool>(outcomes));
    if (outcomes)
      for (size_t n = 0; n < first.size(); ++n)
        pool.record(first[n], *(*outcomes)[n]);
    model = quickModel(pool.measuredGroups(), 3);
  }
};

StrategyFixture &strategyFixture() {
  static StrategyFixture *f = new StrategyFixture;
  return *f;
}

SelectionContext contextFor(StrategyFixture &f, uint64_t seed,
                            bool withModel = true) {
  SelectionContext ctx{f.pool,
                       synthetic().features,
                       withModel ? f.model.get() : nullptr,
                       seed,
                       {}};
  const Model *base = f.model.get();
  const LearningPool *pool = &f.pool;
  ctx.trainEnsembleMember =
      [base, pool](uint64_t s) -> llvm::Expected<std::unique_ptr<Model>> {
    std::string error;
    std::unique_ptr<Model> m = base->clone(&error);
    if (!m)
      return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
    std::vector<SampleGroup> groups = pool->measuredGroups();
    std::mt19937_64 rng(s);
    std::vector<SampleGroup> boot;
    for (size_t n = 0; n < groups.size(); ++n)
      boot.push_back(groups[rng() % groups.size()]);
    TrainOptions t;
    t.epochs = 1;
    t.seed = s;
    t.threads = 1;
    TrainResult r = train(*m, boot, synthetic().features, t);
    if (!r.ok)
      return llvm::createStringError(llvm::inconvertibleErrorCode(), r.error);
    return std::move(m);
  };
  return ctx;
}

std::vector<size_t> rankOrFail(SelectionStrategy &s,
                               const SelectionContext &ctx) {
  llvm::Expected<std::vector<size_t>> r = s.rank(ctx);
  if (!r) {
    ADD_FAILURE() << s.name() << ": " << llvm::toString(r.takeError());
    return {};
  }
  return *r;
}

TEST(SelectionStrategyTest, NamesAndCreation) {
  EXPECT_EQ(strategyNames(), (std::vector<std::string>{
                                 "random", "rs2", "diversity", "uncertainty",
                                 "exploitation", "exploration"}));
  for (const std::string &name : strategyNames()) {
    auto s = createStrategy(name);
    ASSERT_TRUE(static_cast<bool>(s)) << name;
    EXPECT_EQ((*s)->name(), name);
    bool modelBased = name == "uncertainty" || name == "exploitation" ||
                      name == "exploration";
    EXPECT_EQ((*s)->needsModel(), modelBased) << name;
    if (name != "rs2") {
      EXPECT_EQ((*s)->epochFraction(), 1.0) << name;
    }
  }
  StrategyOptions o;
  o.rs2Fraction = 0.25;
  auto rs2 = createStrategy("rs2", o);
  ASSERT_TRUE(static_cast<bool>(rs2));
  EXPECT_DOUBLE_EQ((*rs2)->epochFraction(), 0.25);
  o.rs2Fraction = 1.0;
  EXPECT_DOUBLE_EQ((*createStrategy("rs2", o))->epochFraction(), 1.0);
}

TEST(SelectionStrategyTest, RejectsUnknownNamesAndBadOptions) {
  auto unknown = createStrategy("greedy");
  std::string msg = errorText(unknown);
  EXPECT_NE(msg.find("unknown selection strategy 'greedy'"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("random, rs2, diversity, uncertainty, exploitation, "
                     "exploration"),
            std::string::npos)
      << msg;
  auto bandit = createStrategy("bandit");
  EXPECT_NE(errorText(bandit).find("unknown selection strategy"),
            std::string::npos)
      << "bandit is the driver's, not a strategy";
  auto empty = createStrategy("");
  EXPECT_NE(errorText(empty).find("unknown selection strategy ''"),
            std::string::npos);

  struct Bad {
    const char *name;
    StrategyOptions options;
    const char *message;
  };
  std::vector<Bad> bad;
  StrategyOptions o;
  o.rs2Fraction = 0;
  bad.push_back({"rs2", o, "rs2: the fraction of problems per epoch"});
  o.rs2Fraction = 1.5;
  bad.push_back({"rs2", o, "(0, 1]"});
  o.rs2Fraction = std::nan("");
  bad.push_back({"rs2", o, "(0, 1]"});
  o = StrategyOptions();
  o.perMatrix = 0;
  bad.push_back({"diversity", o, "diversity: at least one schedule"});
  o = StrategyOptions();
  o.ensembleSize = 1;
  bad.push_back({"uncertainty", o, "at least 2 models"});
  o = StrategyOptions();
  o.farShare = -0.1;
  bad.push_back({"exploration", o, "[0, 1]"});
  o.farShare = 1.5;
  bad.push_back({"exploration", o, "exploration: the far share"});
  for (Bad &b : bad) {
    auto s = createStrategy(b.name, b.options);
    msg = errorText(s);
    EXPECT_NE(msg.find(b.message), std::string::npos) << b.name << ": " << msg;
  }
  // Options of other strategies do not matter.
  o = StrategyOptions();
  o.ensembleSize = 0;
  EXPECT_TRUE(static_cast<bool>(createStrategy("random", o)));
}

TEST(SelectionStrategyTest, EveryStrategyRanksExactlyTheUnmeasured) {
  StrategyFixture &f = strategyFixture();
  std::vector<size_t> open = f.pool.unmeasured();
  ASSERT_FALSE(open.empty());
  ASSERT_LT(open.size(), f.pool.candidates().size());
  for (const std::string &name : strategyNames()) {
    SCOPED_TRACE(name);
    auto s = createStrategy(name);
    ASSERT_TRUE(static_cast<bool>(s));
    std::vector<size_t> a = rankOrFail(**s, contextFor(f, 11));
    std::vector<size_t> sorted = a;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, open) << "a permutation of the unmeasured candidates";
    // Deterministic for the seed (a fresh strategy object, too).
    EXPECT_EQ(rankOrFail(**s, contextFor(f, 11)), a);
    auto again = createStrategy(name);
    EXPECT_EQ(rankOrFail(**again, contextFor(f, 11)), a);
    if (name == "random" || name == "rs2" || name == "diversity") {
      EXPECT_NE(rankOrFail(**s, contextFor(f, 12)), a)
          << "another seed, another order";
    }
  }
}

TEST(SelectionStrategyTest, AMixTakesItsShareFromTheOtherRanking) {
  StrategyFixture &f = strategyFixture();
  std::vector<size_t> open = f.pool.unmeasured();
  auto mix = createStrategy("random+diversity@0.25");
  ASSERT_TRUE(static_cast<bool>(mix)) << errorText(mix.takeError());
  EXPECT_EQ((*mix)->name(), "random+diversity@0.25");
  EXPECT_FALSE((*mix)->needsModel());
  auto withModel = createStrategy("exploitation+random");
  ASSERT_TRUE(static_cast<bool>(withModel));
  EXPECT_EQ((*withModel)->name(), "exploitation+random@0.25");
  EXPECT_TRUE((*withModel)->needsModel());

  std::vector<size_t> mixed = rankOrFail(**mix, contextFor(f, 3, false));
  std::vector<size_t> sorted = mixed;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, open) << "a permutation of the unmeasured candidates";
  EXPECT_EQ(rankOrFail(**mix, contextFor(f, 3, false)), mixed);
  // Picks 1-3 are the main ranking's first three; of the first 8, 6 come
  // from the main ranking's first 6 and 2 from the other's.
  auto random = createStrategy("random");
  std::vector<size_t> main = rankOrFail(**random, contextFor(f, 3, false));
  ASSERT_GE(mixed.size(), 8u);
  EXPECT_EQ(std::vector<size_t>(mixed.begin(), mixed.begin() + 3),
            std::vector<size_t>(main.begin(), main.begin() + 3));
  size_t fromMain = 0;
  for (size_t n = 0; n < 8; ++n)
    fromMain +=
        std::find(main.begin(), main.begin() + 6, mixed[n]) != main.begin() + 6;
  EXPECT_EQ(fromMain, 6u);

  for (const char *bad :
       {"random+", "+random", "random+nope", "a+b+c", "random+rs2@1",
        "random+rs2@0", "random+rs2@x", "random+rs2@0.5@0.5"}) {
    auto s = createStrategy(bad);
    EXPECT_FALSE(errorText(s).empty()) << bad;
  }
  auto share2 = createStrategy("random+rs2@2");
  EXPECT_NE(errorText(share2).find("(0, 1)"), std::string::npos);
}

TEST(SelectionStrategyTest, ModelFreeStrategiesRankWithoutAModel) {
  StrategyFixture &f = strategyFixture();
  std::vector<size_t> open = f.pool.unmeasured();
  for (const char *name : {"random", "rs2", "diversity"}) {
    SCOPED_TRACE(name);
    auto s = createStrategy(name);
    ASSERT_TRUE(static_cast<bool>(s));
    std::vector<size_t> a = rankOrFail(**s, contextFor(f, 5, false));
    std::sort(a.begin(), a.end());
    EXPECT_EQ(a, open);
  }
  // Random and rs2 do not draw the same order for the same seed.
  auto random = createStrategy("random"), rs2 = createStrategy("rs2");
  EXPECT_NE(rankOrFail(**random, contextFor(f, 5, false)),
            rankOrFail(**rs2, contextFor(f, 5, false)));
}

TEST(SelectionStrategyTest, ModelBasedStrategiesFailCleanlyWithoutAModel) {
  StrategyFixture &f = strategyFixture();
  for (const char *name : {"uncertainty", "exploitation", "exploration"}) {
    auto s = createStrategy(name);
    ASSERT_TRUE(static_cast<bool>(s));
    llvm::Expected<std::vector<size_t>> r = (*s)->rank(contextFor(f, 1, false));
    std::string msg = errorText(r);
    EXPECT_NE(msg.find(std::string(name) + " needs a model"), std::string::npos)
        << msg;
  }
  // Uncertainty also needs a way to train its ensemble.
  auto u = createStrategy("uncertainty");
  SelectionContext ctx = contextFor(f, 1);
  ctx.trainEnsembleMember = nullptr;
  llvm::Expected<std::vector<size_t>> r = (*u)->rank(ctx);
  std::string msg = errorText(r);
  EXPECT_NE(msg.find("ensemble"), std::string::npos) << msg;
  // An ensemble member that cannot be trained is the strategy's error.
  ctx.trainEnsembleMember =
      [](uint64_t) -> llvm::Expected<std::unique_ptr<Model>> {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "member training broke");
  };
  r = (*u)->rank(ctx);
  msg = errorText(r);
  EXPECT_NE(msg.find("member training broke"), std::string::npos) << msg;
}

TEST(SelectionStrategyTest, StrategiesNeedFeaturesOfThePoolsMatrices) {
  StrategyFixture &f = strategyFixture();
  FeatureTable none;
  for (const std::string &name :
       {std::string("diversity"), std::string("exploitation")}) {
    auto s = createStrategy(name);
    SelectionContext ctx{f.pool, none, f.model.get(), 1, {}};
    llvm::Expected<std::vector<size_t>> r = (*s)->rank(ctx);
    std::string msg = errorText(r);
    EXPECT_NE(msg.find("no features for matrix"), std::string::npos)
        << name << ": " << msg;
  }
}

TEST(SelectionStrategyTest, ExploitationTakesEveryProblemsFavouriteFirst) {
  StrategyFixture &f = strategyFixture();
  const LearningPool &pool = f.pool;
  auto s = createStrategy("exploitation");
  ASSERT_TRUE(static_cast<bool>(s));
  for (uint64_t seed : {1u, 2u}) {
    std::vector<size_t> order = rankOrFail(**s, contextFor(f, seed));
    // Each candidate's rank within its problem (by the model's score).
    std::vector<size_t> depth(pool.candidates().size(), 0);
    size_t problemsOpen = 0;
    for (size_t p = 0; p < pool.problems().size(); ++p) {
      std::vector<size_t> open;
      for (size_t c : pool.candidatesOf(p))
        if (!pool.isMeasured(c))
          open.push_back(c);
      if (open.empty())
        continue;
      ++problemsOpen;
      std::vector<Schedule> schedules;
      for (size_t c : open)
        schedules.push_back(pool.candidates()[c].schedule);
      std::vector<double> scores =
          f.model->score(synthetic().features.at(pool.problems()[p].matrix.id),
                         schedules, pool.problems()[p].free);
      ASSERT_EQ(scores.size(), open.size());
      for (size_t n = 0; n < open.size(); ++n)
        for (size_t m = 0; m < open.size(); ++m)
          if (scores[m] > scores[n] || (scores[m] == scores[n] && m < n))
            ++depth[open[n]];
    }
    ASSERT_EQ(order.size(), pool.unmeasured().size());
    // The first `problemsOpen` entries are each problem's favourite; depths
    // never decrease along the order.
    for (size_t i = 0; i < problemsOpen; ++i)
      EXPECT_EQ(depth[order[i]], 0u) << "position " << i;
    for (size_t i = 1; i < order.size(); ++i)
      EXPECT_LE(depth[order[i - 1]], depth[order[i]]) << "position " << i;
  }
}

TEST(SelectionStrategyTest, DiversityStartsWithUnmeasuredMatrices) {
  // Measure only matrix 0's problems: the first picks come from matrices
  // nothing was measured of.
  const Synthetic &d = synthetic();
  LearningPool pool;
  ReplayOracle oracle(d.pool, pool);
  std::string measuredMatrix = pool.problems()[0].matrix.id;
  for (size_t c = 0; c < pool.candidates().size(); ++c)
    if (pool.problems()[pool.candidates()[c].problem].matrix.id ==
            measuredMatrix &&
        c % 2 == 0)
      pool.record(c, {true, 1e-3, 0.5});
  StrategyOptions o;
  o.perMatrix = 2;
  auto s = createStrategy("diversity", o);
  ASSERT_TRUE(static_cast<bool>(s));
  SelectionContext ctx{pool, d.features, nullptr, 4, {}};
  std::vector<size_t> order = rankOrFail(**s, ctx);
  ASSERT_EQ(order.size(), pool.unmeasured().size());
  size_t others = pool.matrixIds().size() - 1;
  // The first pass: `perMatrix` candidates of each unmeasured matrix, each
  // matrix once, before the measured one.
  std::vector<std::string> firstPass;
  for (size_t i = 0; i < others * o.perMatrix; ++i)
    firstPass.push_back(
        pool.problems()[pool.candidates()[order[i]].problem].matrix.id);
  for (const std::string &id : firstPass)
    EXPECT_NE(id, measuredMatrix);
  std::set<std::string> distinct(firstPass.begin(), firstPass.end());
  EXPECT_EQ(distinct.size(), others);
}

//===----------------------------------------------------------------------===//
// runLearning
//===----------------------------------------------------------------------===//

/// Options of a quick replay run: three rounds at 20%, 50% and 100% of the
/// pool's cost.
LearnOptions quickLearnOptions(const std::string &stateDir, double total) {
  LearnOptions o;
  o.strategy = "random";
  o.roundBudgets = {0.2 * total, 0.5 * total, total};
  o.referenceCost = total;
  o.seed = 1;
  o.initialEpochs = 2;
  o.roundEpochs = 1;
  o.torchThreads = 1;
  o.stateDir = stateDir;
  return o;
}

/// One replay run on a fresh pool, as `sptune-learn --replay` does it.
struct ReplayRun {
  LearningPool pool;
  std::unique_ptr<ReplayOracle> oracle;
  std::vector<std::string> messages;
  ReplayRun() {
    oracle = std::make_unique<ReplayOracle>(synthetic().pool, pool);
  }
  double total() const { return oracle->totalCost(); }
  llvm::Expected<LearnResult> run(LearnOptions o) {
    o.onMessage = [this](llvm::StringRef m) { messages.push_back(m.str()); };
    return runLearning(pool, *oracle, synthetic().validation,
                       synthetic().features, o);
  }
  bool said(llvm::StringRef text) const {
    for (const std::string &m : messages)
      if (llvm::StringRef(m).contains(text))
        return true;
    return false;
  }
};

void expectSameRounds(const std::vector<RoundRecord> &a,
                      const std::vector<RoundRecord> &b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t n = 0; n < a.size(); ++n) {
    SCOPED_TRACE("round " + std::to_string(n + 1));
    EXPECT_EQ(a[n].round, b[n].round);
    EXPECT_EQ(a[n].strategy, b[n].strategy);
    EXPECT_EQ(a[n].arm, b[n].arm);
    EXPECT_EQ(a[n].measured, b[n].measured);
    EXPECT_EQ(a[n].totalMeasured, b[n].totalMeasured);
    EXPECT_EQ(a[n].problems, b[n].problems);
    EXPECT_DOUBLE_EQ(a[n].cost, b[n].cost);
    EXPECT_DOUBLE_EQ(a[n].cumulativeCost, b[n].cumulativeCost);
    EXPECT_EQ(a[n].top1, b[n].top1);
    EXPECT_EQ(a[n].tau, b[n].tau);
    EXPECT_EQ(a[n].reward, b[n].reward);
  }
}

TEST(LearningLoopTest, ReplayRunsEveryRoundAndCheckpoints) {
  TempDir dir;
  ReplayRun r;
  LearnOptions o = quickLearnOptions(dir / "state", r.total());
  llvm::Expected<LearnResult> res = r.run(o);
  ASSERT_TRUE(static_cast<bool>(res)) << errorText(res.takeError());
  EXPECT_EQ(res->resumedAfter, 0);
  EXPECT_FALSE(res->interrupted);
  ASSERT_EQ(res->rounds.size(), 3u);
  double previous = 0;
  size_t measured = 0;
  for (size_t n = 0; n < res->rounds.size(); ++n) {
    const RoundRecord &rec = res->rounds[n];
    SCOPED_TRACE("round " + std::to_string(n + 1));
    EXPECT_EQ(rec.round, static_cast<int>(n + 1));
    EXPECT_EQ(rec.strategy, "random");
    EXPECT_TRUE(rec.arm.empty());
    EXPECT_GT(rec.measured, 0u);
    EXPECT_EQ(rec.failed, 0u);
    measured += rec.measured;
    EXPECT_EQ(rec.totalMeasured, measured);
    EXPECT_GE(rec.cumulativeCost, previous) << "cumulative cost decreased";
    EXPECT_NEAR(rec.cost, rec.cumulativeCost - previous, 1e-9);
    // Each round spends its budget to within a measurement (candidates
    // cost at most 0.5 s), the last one all of it (or empties the pool).
    if (n + 1 == res->rounds.size())
      EXPECT_TRUE(rec.cumulativeCost >= 0.999 * o.roundBudgets[n] ||
                  rec.totalMeasured == r.pool.candidates().size())
          << rec.cumulativeCost << " < " << o.roundBudgets[n];
    else
      EXPECT_NEAR(rec.cumulativeCost, o.roundBudgets[n], 0.5);
    EXPECT_GT(rec.problems, 0u);
    EXPECT_TRUE(rec.top1.has_value());
    EXPECT_TRUE(rec.oracle.has_value());
    EXPECT_FALSE(rec.reward.has_value()) << "no bandit, no reward";
    previous = rec.cumulativeCost;
  }
  // The last round spends the whole pool (100%).
  EXPECT_TRUE(res->rounds.back().cumulativeCost >= 0.999 * r.total() ||
              res->poolExhausted);
  EXPECT_EQ(r.pool.measuredCount(), res->rounds.back().totalMeasured);
  EXPECT_NEAR(r.pool.spent(), res->rounds.back().cumulativeCost, 1e-9);

  // The state directory: state, log, final model (and only the last
  // round's model is kept).
  EXPECT_TRUE(llvm::sys::fs::exists(dir / "state/state.json"));
  EXPECT_TRUE(llvm::sys::fs::exists(dir / "state/model-round3.pt"));
  EXPECT_FALSE(llvm::sys::fs::exists(dir / "state/model-round1.pt"));
  EXPECT_FALSE(llvm::sys::fs::exists(dir / "state/model-round2.pt"));
  EXPECT_EQ(res->modelPath, dir / "state/final.pt");
  std::string error;
  std::unique_ptr<Model> final = Model::load(res->modelPath, error);
  ASSERT_TRUE(final) << error;
  EXPECT_TRUE(final->isTrainedFor(TargetKind::CPU));
  EXPECT_NE(final->info().provenance.find("\"oracle\":\"replay\""),
            std::string::npos)
      << final->info().provenance;
  std::vector<std::string> log = lines(readFile(dir / "state/rounds.jsonl"));
  ASSERT_EQ(log.size(), 3u);
  for (size_t n = 0; n < 3; ++n)
    EXPECT_EQ(log[n], res->rounds[n].json());
  // Every round was announced.
  EXPECT_TRUE(r.said("round 1/3 [random]"));
  EXPECT_TRUE(r.said("round 3/3 [random]"));
  EXPECT_TRUE(r.said("% of"));
}

TEST(LearningLoopTest, SameSeedSameRoundsAndResumingAFinishedRunDoesNothing) {
  TempDir dir;
  ReplayRun first;
  LearnOptions o = quickLearnOptions(dir / "a", first.total());
  o.outPath = dir / "a-final.pt";
  llvm::Expected<LearnResult> a = first.run(o);
  ASSERT_TRUE(static_cast<bool>(a)) << errorText(a.takeError());
  EXPECT_EQ(a->modelPath, dir / "a-final.pt");
  EXPECT_TRUE(llvm::sys::fs::exists(dir / "a-final.pt"));
  EXPECT_FALSE(llvm::sys::fs::exists(dir / "a/final.pt"));

  // The same seed in another directory: the same rounds.
  ReplayRun second;
  llvm::Expected<LearnResult> b =
      second.run(quickLearnOptions(dir / "b", second.total()));
  ASSERT_TRUE(static_cast<bool>(b)) << errorText(b.takeError());
  expectSameRounds(a->rounds, b->rounds);
  EXPECT_EQ(roundsWithoutTimes(dir / "a/rounds.jsonl"),
            roundsWithoutTimes(dir / "b/rounds.jsonl"));

  // Another seed: other choices.
  ReplayRun third;
  LearnOptions other = quickLearnOptions(dir / "c", third.total());
  other.seed = 2;
  llvm::Expected<LearnResult> c = third.run(other);
  ASSERT_TRUE(static_cast<bool>(c)) << errorText(c.takeError());
  EXPECT_NE(roundsWithoutTimes(dir / "a/rounds.jsonl"),
            roundsWithoutTimes(dir / "c/rounds.jsonl"));

  // Running the first again resumes after its last round: nothing to do.
  ReplayRun again;
  llvm::Expected<LearnResult> d = again.run(o);
  ASSERT_TRUE(static_cast<bool>(d)) << errorText(d.takeError());
  EXPECT_EQ(d->resumedAfter, 3);
  expectSameRounds(a->rounds, d->rounds);
  EXPECT_EQ(again.pool.measuredCount(), first.pool.measuredCount());
  EXPECT_DOUBLE_EQ(again.pool.spent(), first.pool.spent());
  EXPECT_TRUE(again.said("resuming after round 3 of 3"));
  EXPECT_FALSE(again.said("round 1/3"));
  // The log is whole lines, one per round.
  std::string log = readFile(dir / "a/rounds.jsonl");
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 3);
  EXPECT_EQ(log.back(), '\n');
  EXPECT_TRUE(llvm::sys::fs::exists(dir / "a-final.pt"));
}

// A kill between the last round's two checkpoint writes (state.json, then
// rounds.jsonl) leaves a log one round short; resuming the finished run has
// nothing to measure but rewrites the log from the state.
TEST(LearningLoopTest, ResumingAFinishedRunRepairsALaggingRoundLog) {
  TempDir dir;
  ReplayRun first;
  LearnOptions o = quickLearnOptions(dir / "s", first.total());
  llvm::Expected<LearnResult> a = first.run(o);
  ASSERT_TRUE(static_cast<bool>(a)) << errorText(a.takeError());
  std::string log = readFile(dir / "s/rounds.jsonl");
  std::vector<std::string> all = lines(log);
  ASSERT_EQ(all.size(), 3u);
  std::ofstream(dir / "s/rounds.jsonl") << all[0] << "\n" << all[1] << "\n";
  ReplayRun again;
  llvm::Expected<LearnResult> b = again.run(o);
  ASSERT_TRUE(static_cast<bool>(b)) << errorText(b.takeError());
  EXPECT_EQ(b->resumedAfter, 3);
  EXPECT_EQ(readFile(dir / "s/rounds.jsonl"), log);
}

// A round whose budget the previous round already spent (a round overshoots
// by up to a batch planned with the 1 s prior, or by one candidate) measures
// nothing; it is logged (without reward) and the later rounds run: it is not
// an exhausted pool.
TEST(LearningLoopTest, ARoundWhoseBudgetIsAlreadySpentDoesNotEndTheRun) {
  TempDir dir;
  ReplayRun r;
  LearnOptions o = quickLearnOptions(dir / "s", r.total());
  // Candidates cost 0.3 to 0.5 s: round 1 measures one and overshoots 0.2 s.
  o.roundBudgets = {0.1, 0.2, r.total()};
  llvm::Expected<LearnResult> res = r.run(o);
  ASSERT_TRUE(static_cast<bool>(res)) << errorText(res.takeError());
  EXPECT_FALSE(res->poolExhausted);
  EXPECT_EQ(res->rounds.size(), 3u);
  EXPECT_TRUE(r.pool.unmeasured().empty());
  EXPECT_FALSE(r.said("nothing left to measure"));
}

TEST(LearningLoopTest, AnInterruptedRunResumesToTheSameRounds) {
  TempDir dir;
  ReplayRun straight;
  llvm::Expected<LearnResult> full =
      straight.run(quickLearnOptions(dir / "straight", straight.total()));
  ASSERT_TRUE(static_cast<bool>(full)) << errorText(full.takeError());

  // Stop after round 1's checkpoint.
  std::atomic<bool> stop{false};
  ReplayRun cut;
  LearnOptions o = quickLearnOptions(dir / "cut", cut.total());
  o.stop = &stop;
  o.onMessage = nullptr;
  LearnOptions withStop = o;
  llvm::Expected<LearnResult> part = [&] {
    withStop.onMessage = [&](llvm::StringRef m) {
      if (m.starts_with("round 1/"))
        stop = true;
    };
    return runLearning(cut.pool, *cut.oracle, synthetic().validation,
                       synthetic().features, withStop);
  }();
  ASSERT_TRUE(static_cast<bool>(part)) << errorText(part.takeError());
  EXPECT_TRUE(part->interrupted);
  ASSERT_EQ(part->rounds.size(), 1u);
  EXPECT_EQ(lines(readFile(dir / "cut/rounds.jsonl")).size(), 1u);
  EXPECT_FALSE(llvm::sys::fs::exists(dir / "cut/final.pt"));

  // Stopped in the middle of a round's measurements: nothing of the round
  // is kept (replay reveals it again).
  stop = false;
  ReplayRun resumed;
  llvm::Expected<LearnResult> rest = resumed.run(o);
  ASSERT_TRUE(static_cast<bool>(rest)) << errorText(rest.takeError());
  EXPECT_FALSE(rest->interrupted);
  EXPECT_EQ(rest->resumedAfter, 1);
  EXPECT_TRUE(resumed.said("resuming after round 1 of 3"));
  expectSameRounds(full->rounds, rest->rounds);
  EXPECT_EQ(roundsWithoutTimes(dir / "straight/rounds.jsonl"),
            roundsWithoutTimes(dir / "cut/rounds.jsonl"));
}

/// A bandit of `policy` over `arms`, four rounds ending at 15%, 30%, 45%
/// and 60% of the pool's cost.
LearnOptions fourRoundBandit(const std::string &stateDir, double total,
                             BanditPolicy policy,
                             std::vector<std::string> arms) {
  LearnOptions o = quickLearnOptions(stateDir, total);
  o.strategy = "bandit";
  o.policy = policy;
  o.arms = std::move(arms);
  o.roundBudgets = {0.15 * total, 0.3 * total, 0.45 * total, 0.6 * total};
  return o;
}

TEST(LearningLoopTest, BanditPlaysItsArmsAndCheckpointsItsState) {
  TempDir dir;
  ReplayRun r;
  LearnOptions o = fourRoundBandit(dir / "s", r.total(), BanditPolicy::UCB1,
                                   {"exploitation", "uncertainty"});
  o.strategyOptions.ensembleSize = 2;
  llvm::Expected<LearnResult> res = r.run(o);
  ASSERT_TRUE(static_cast<bool>(res)) << errorText(res.takeError());
  ASSERT_EQ(res->rounds.size(), 4u);
  // Round 1 has no model: uniform, no arm. Then UCB1 plays each arm once,
  // in order, and each is rewarded.
  EXPECT_EQ(res->rounds[0].strategy, "bandit");
  EXPECT_EQ(res->rounds[0].arm, "");
  EXPECT_FALSE(res->rounds[0].reward.has_value());
  EXPECT_EQ(res->rounds[1].arm, "exploitation");
  EXPECT_EQ(res->rounds[2].arm, "uncertainty");
  EXPECT_FALSE(res->rounds[3].arm.empty());
  for (size_t n = 1; n < 4; ++n)
    EXPECT_TRUE(res->rounds[n].reward.has_value()) << n;
  EXPECT_TRUE(r.said("round 1/4 [random]"));
  EXPECT_TRUE(r.said("round 2/4 [exploitation]"));

  std::string state = readFile(dir / "s/state.json");
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(state);
  ASSERT_TRUE(static_cast<bool>(v)) << llvm::toString(v.takeError());
  const llvm::json::Object *bandit = v->getAsObject()->getObject("bandit");
  ASSERT_TRUE(bandit);
  StrategyBandit restored(BanditPolicy::UCB1, o.arms);
  llvm::Error e = restored.restore(*v->getAsObject()->get("bandit"));
  ASSERT_FALSE(static_cast<bool>(e)) << errorText(std::move(e));
  EXPECT_EQ(restored.pulls(0) + restored.pulls(1), 3u);
  EXPECT_EQ(restored.rewards(0).front(), *res->rounds[1].reward);

  // Resuming the finished bandit run restores it and does nothing more.
  ReplayRun again;
  llvm::Expected<LearnResult> d = again.run(o);
  ASSERT_TRUE(static_cast<bool>(d)) << errorText(d.takeError());
  EXPECT_EQ(d->resumedAfter, 4);
  expectSameRounds(res->rounds, d->rounds);

  // The same state directory with another policy is another run.
  ReplayRun thompson;
  LearnOptions ts = o;
  ts.policy = BanditPolicy::Thompson;
  llvm::Expected<LearnResult> refused = thompson.run(ts);
  std::string msg = errorText(refused);
  EXPECT_NE(msg.find("holds the state of another run"), std::string::npos)
      << msg;
}

TEST(LearningLoopTest, HedgeSharesEveryRoundAmongItsArmsAndCheckpoints) {
  TempDir dir;
  ReplayRun r;
  LearnOptions o = fourRoundBandit(dir / "s", r.total(), BanditPolicy::Hedge,
                                   {"exploitation", "random"});
  o.hedgeRate = 2;
  llvm::Expected<LearnResult> res = r.run(o);
  ASSERT_TRUE(static_cast<bool>(res)) << errorText(res.takeError());
  ASSERT_EQ(res->rounds.size(), 4u);
  // Round 1 has no model: uniform. Then every round is shared, and the log
  // says how and what each arm's measurements found.
  EXPECT_EQ(res->rounds[0].arm, "");
  EXPECT_TRUE(r.said("round 1/4 [random]"));
  EXPECT_TRUE(r.said("round 2/4 [hedge]"));
  EXPECT_EQ(res->rounds[1].armReason.rfind(
                "hedge shares: exploitation 0.50, random 0.50; rewards", 0),
            0u)
      << res->rounds[1].armReason;
  for (size_t n = 1; n < 4; ++n) {
    EXPECT_EQ(res->rounds[n].arm, "hedge");
    EXPECT_FALSE(res->rounds[n].reward.has_value())
        << "per-arm rewards are in the reason and the state";
  }
  // Rounds 2 and 3 rewarded at least one arm (problems measured before),
  // so round 4's shares have moved off the even split.
  EXPECT_EQ(res->rounds[3].armReason.find(
                "hedge shares: exploitation 0.50, random 0.50"),
            std::string::npos)
      << res->rounds[3].armReason;

  std::string state = readFile(dir / "s/state.json");
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(state);
  ASSERT_TRUE(static_cast<bool>(v)) << llvm::toString(v.takeError());
  EXPECT_EQ(v->getAsObject()->get("bandit"), nullptr);
  const llvm::json::Value *saved = v->getAsObject()->get("portfolio");
  ASSERT_TRUE(saved);
  StrategyPortfolio restored(o.arms);
  llvm::Error e = restored.restore(*saved);
  ASSERT_FALSE(static_cast<bool>(e)) << errorText(std::move(e));
  EXPECT_EQ(restored.rounds(), 3u);

  // Deterministic: the same run elsewhere gives the same rounds; resuming
  // the finished one does nothing more.
  TempDir dir2;
  ReplayRun same;
  LearnOptions o2 = o;
  o2.stateDir = dir2 / "s";
  llvm::Expected<LearnResult> again = same.run(o2);
  ASSERT_TRUE(static_cast<bool>(again)) << errorText(again.takeError());
  expectSameRounds(res->rounds, again->rounds);
  for (size_t n = 0; n < 4; ++n)
    EXPECT_EQ(res->rounds[n].armReason, again->rounds[n].armReason);
  ReplayRun resumed;
  llvm::Expected<LearnResult> d = resumed.run(o);
  ASSERT_TRUE(static_cast<bool>(d)) << errorText(d.takeError());
  EXPECT_EQ(d->resumedAfter, 4);
  expectSameRounds(res->rounds, d->rounds);

  // Stopped after round 3's checkpoint and resumed: round 4 has the same
  // shares (restored from the state) and the same rounds as the straight
  // run.
  std::atomic<bool> stop{false};
  TempDir dir3;
  ReplayRun cut;
  LearnOptions withStop = o;
  withStop.stateDir = dir3 / "s";
  withStop.stop = &stop;
  withStop.onMessage = [&](llvm::StringRef m) {
    if (m.starts_with("round 3/"))
      stop = true;
  };
  llvm::Expected<LearnResult> part =
      runLearning(cut.pool, *cut.oracle, synthetic().validation,
                  synthetic().features, withStop);
  ASSERT_TRUE(static_cast<bool>(part)) << errorText(part.takeError());
  EXPECT_TRUE(part->interrupted);
  ASSERT_EQ(part->rounds.size(), 3u);
  stop = false;
  ReplayRun rest;
  LearnOptions restOptions = o;
  restOptions.stateDir = dir3 / "s";
  llvm::Expected<LearnResult> finished = rest.run(restOptions);
  ASSERT_TRUE(static_cast<bool>(finished)) << errorText(finished.takeError());
  EXPECT_EQ(finished->resumedAfter, 3);
  expectSameRounds(res->rounds, finished->rounds);
  for (size_t n = 0; n < 4; ++n)
    EXPECT_EQ(res->rounds[n].armReason, finished->rounds[n].armReason) << n;

  // Another rate is another run; a floor the arms cannot all keep is
  // refused.
  ReplayRun otherRate;
  LearnOptions o3 = o;
  o3.hedgeRate = 1;
  llvm::Expected<LearnResult> refused = otherRate.run(o3);
  EXPECT_NE(errorText(refused).find("holds the state of another run"),
            std::string::npos);
  TempDir dir4;
  ReplayRun badFloor;
  LearnOptions o4 = o;
  o4.stateDir = dir4 / "s";
  o4.hedgeMinShare = 0.5;
  llvm::Expected<LearnResult> badRun = badFloor.run(o4);
  EXPECT_NE(errorText(badRun).find("smallest share"), std::string::npos);
}

TEST(LearningLoopTest, ARewardSetApartFromTheValidationRewardsTheBandit) {
  // Validation: the first validation matrix's problems; reward set: the
  // second's.
  std::vector<SampleGroup> validation, rewardSet;
  for (const SampleGroup &g : synthetic().validation)
    (g.matrix.id == kValidationMatrices[0] ? validation : rewardSet)
        .push_back(g);
  ASSERT_FALSE(validation.empty());
  ASSERT_FALSE(rewardSet.empty());
  TempDir dir;
  LearningPool pool;
  ReplayOracle oracle(synthetic().pool, pool);
  double t = oracle.totalCost();
  LearnOptions o = quickLearnOptions(dir / "s", t);
  o.strategy = "bandit";
  o.arms = {"random", "exploitation+random@0.5"};
  o.banditOptions.discount = 0.7;
  o.roundBudgets = {0.15 * t, 0.3 * t, 0.45 * t, 0.6 * t};
  llvm::Expected<LearnResult> res =
      runLearning(pool, oracle, validation, synthetic().features, o, rewardSet);
  ASSERT_TRUE(static_cast<bool>(res)) << errorText(res.takeError());
  ASSERT_EQ(res->rounds.size(), 4u);
  EXPECT_EQ(res->rounds[2].arm, "exploitation+random@0.5");
  for (size_t n = 1; n < 4; ++n) {
    const RoundRecord &r = res->rounds[n], &prev = res->rounds[n - 1];
    SCOPED_TRACE("round " + std::to_string(n + 1));
    ASSERT_TRUE(r.rewardTop1 && prev.rewardTop1 && r.reward);
    // The reward is the reward set's gain, not the validation's.
    double logCost = std::log(r.cumulativeCost / (r.cumulativeCost - r.cost));
    EXPECT_NEAR(*r.reward,
                (std::log(*r.rewardTop1) - std::log(*prev.rewardTop1)) /
                    std::max(logCost, 1e-6),
                1e-9);
    EXPECT_FALSE(r.armReason.empty());
    std::string json = r.json();
    EXPECT_NE(json.find("\"reward_set\":{"), std::string::npos) << json;
    EXPECT_NE(json.find("\"arm_reason\":\"ucb1"), std::string::npos) << json;
  }
  // Without a reward set, the same choices report the same validation
  // figures (round 2 is UCB1's first play of arm 0 either way) and no
  // reward-set figures.
  TempDir dir2;
  LearningPool pool2;
  ReplayOracle oracle2(synthetic().pool, pool2);
  LearnOptions o2 = o;
  o2.stateDir = dir2 / "s";
  llvm::Expected<LearnResult> noRewardSet =
      runLearning(pool2, oracle2, validation, synthetic().features, o2);
  ASSERT_TRUE(static_cast<bool>(noRewardSet))
      << errorText(noRewardSet.takeError());
  EXPECT_EQ(noRewardSet->rounds[1].top1, res->rounds[1].top1);
  EXPECT_FALSE(noRewardSet->rounds[1].rewardTop1.has_value());

  // The reward set may not share a matrix with the validation problems.
  TempDir dir3;
  LearningPool pool3;
  ReplayOracle oracle3(synthetic().pool, pool3);
  LearnOptions o3 = o;
  o3.stateDir = dir3 / "s";
  llvm::Expected<LearnResult> overlap = runLearning(
      pool3, oracle3, validation, synthetic().features, o3, validation);
  std::string msg = errorText(overlap);
  EXPECT_NE(msg.find("in both the validation and the reward set"),
            std::string::npos)
      << msg;
}

TEST(LearningLoopTest, ModelBasedStrategyStartsUniformAndExhaustsThePool) {
  TempDir dir;
  ReplayRun r;
  LearnOptions o = quickLearnOptions(dir / "s", r.total());
  o.strategy = "exploitation";
  // More than the pool costs: the last rounds find nothing left.
  o.roundBudgets = {0.5 * r.total(), 1.5 * r.total(), 2 * r.total()};
  llvm::Expected<LearnResult> res = r.run(o);
  ASSERT_TRUE(static_cast<bool>(res)) << errorText(res.takeError());
  EXPECT_TRUE(res->poolExhausted);
  ASSERT_EQ(res->rounds.size(), 2u);
  EXPECT_EQ(res->rounds[1].totalMeasured, r.pool.candidates().size());
  EXPECT_TRUE(r.pool.unmeasured().empty());
  EXPECT_NEAR(res->rounds[1].cumulativeCost, r.total(), 1e-6);
  // No model yet in round 1: it chooses as random does with the same seed.
  ReplayRun uniform;
  LearnOptions random = quickLearnOptions(dir / "random", uniform.total());
  random.roundBudgets = o.roundBudgets;
  llvm::Expected<LearnResult> u = uniform.run(random);
  ASSERT_TRUE(static_cast<bool>(u)) << errorText(u.takeError());
  ASSERT_GE(u->rounds.size(), 1u);
  EXPECT_EQ(res->rounds[0].measured, u->rounds[0].measured);
  EXPECT_DOUBLE_EQ(res->rounds[0].cost, u->rounds[0].cost);
  EXPECT_EQ(res->rounds[0].strategy, "exploitation");
  EXPECT_TRUE(res->rounds[0].arm.empty());
  EXPECT_TRUE(r.said("round 1/3 ["));
  EXPECT_TRUE(r.said("round 2/3 [exploitation]"));
  EXPECT_TRUE(r.said("nothing left to measure"));
  EXPECT_TRUE(llvm::sys::fs::exists(res->modelPath));
}

TEST(LearningLoopTest, RefusesTheStateOfAnotherRun) {
  TempDir dir;
  ReplayRun first;
  LearnOptions o = quickLearnOptions(dir / "s", first.total());
  o.roundBudgets.resize(1);
  llvm::Expected<LearnResult> a = first.run(o);
  ASSERT_TRUE(static_cast<bool>(a)) << errorText(a.takeError());

  auto refusedWith = [&](LearnOptions changed) {
    ReplayRun r;
    llvm::Expected<LearnResult> res = r.run(changed);
    return errorText(res);
  };
  LearnOptions seed = o;
  seed.seed = 2;
  std::string msg = refusedWith(seed);
  EXPECT_NE(msg.find("holds the state of another run"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find(dir / "s"), std::string::npos) << msg;
  LearnOptions budgets = o;
  budgets.roundBudgets = {o.roundBudgets[0] * 2};
  msg = refusedWith(budgets);
  EXPECT_NE(msg.find("holds the state of another run"), std::string::npos)
      << msg;
  LearnOptions strategy = o;
  strategy.strategy = "rs2";
  msg = refusedWith(strategy);
  EXPECT_NE(msg.find("holds the state of another run"), std::string::npos)
      << msg;

  // Another pool (half the replayed groups).
  {
    LearningPool pool;
    std::vector<SampleGroup> half(synthetic().pool.begin(),
                                  synthetic().pool.begin() + 4);
    ReplayOracle oracle(half, pool);
    llvm::Expected<LearnResult> res = runLearning(
        pool, oracle, synthetic().validation, synthetic().features, o);
    msg = errorText(res);
    EXPECT_NE(msg.find("holds the state of another run"), std::string::npos)
        << msg;
  }

  // A corrupt state file is named, not trusted.
  {
    std::ofstream(dir / "s/state.json") << "{\"fingerprint\": ";
    msg = refusedWith(o);
    EXPECT_NE(msg.find("state.json' is corrupt"), std::string::npos) << msg;
    std::ofstream(dir / "s/state.json") << "[1, 2]";
    msg = refusedWith(o);
    EXPECT_NE(msg.find("is corrupt: not an object"), std::string::npos) << msg;
  }
}

TEST(LearningLoopTest, InvalidOptionsFailWithMessages) {
  TempDir dir;
  auto failsWith = [&](const LearnOptions &o, const std::string &expected) {
    ReplayRun r;
    llvm::Expected<LearnResult> res = r.run(o);
    std::string msg = errorText(res);
    EXPECT_NE(msg.find(expected), std::string::npos)
        << "expected '" << expected << "' in: " << msg;
  };
  ReplayRun probe;
  LearnOptions good = quickLearnOptions(dir / "s", probe.total());

  LearnOptions o = good;
  o.stateDir.clear();
  failsWith(o, "a state directory is required");
  o = good;
  o.roundBudgets = {};
  failsWith(o, "no round budgets");
  o = good;
  o.roundBudgets = {2.0, 1.0};
  failsWith(o, "round budgets must be positive and increasing");
  o.roundBudgets = {1.0, 1.0};
  failsWith(o, "round budgets must be positive and increasing");
  o.roundBudgets = {0.0, 1.0};
  failsWith(o, "round budgets must be positive and increasing");
  o = good;
  o.strategy = "greedy";
  failsWith(o, "unknown selection strategy 'greedy'");
  failsWith(o, "'bandit'");
  o = good;
  o.strategy = "bandit";
  o.arms = {};
  failsWith(o, "the bandit needs at least one arm");
  o.arms = {"random", "greedy"};
  failsWith(o, "unknown selection strategy 'greedy'");
  o = good;
  o.strategy = "bandit";
  o.banditOptions.discount = 0;
  failsWith(o, "the bandit's discount must be in (0, 1]");
  o.banditOptions = {std::nan(""), 1.0};
  failsWith(o, "exploration constant must be finite and >= 0");
  o = good;
  o.initialEpochs = 0;
  failsWith(o, "epochs must be at least 1");
  o = good;
  o.strategy = "rs2";
  o.strategyOptions.rs2Fraction = 2;
  failsWith(o, "rs2: the fraction");

  // No validation problems, an empty pool, missing features.
  {
    ReplayRun r;
    llvm::Expected<LearnResult> res =
        runLearning(r.pool, *r.oracle, {}, synthetic().features, good);
    std::string msg = errorText(res);
    EXPECT_NE(msg.find("no validation problems"), std::string::npos) << msg;
  }
  {
    LearningPool empty;
    ReplayOracle oracle({}, empty);
    llvm::Expected<LearnResult> res = runLearning(
        empty, oracle, synthetic().validation, synthetic().features, good);
    std::string msg = errorText(res);
    EXPECT_NE(msg.find("the pool is empty"), std::string::npos) << msg;
  }
  {
    ReplayRun r;
    FeatureTable partial = synthetic().features;
    partial.erase(kValidationMatrices[0]);
    llvm::Expected<LearnResult> res =
        runLearning(r.pool, *r.oracle, synthetic().validation, partial, good);
    std::string msg = errorText(res);
    EXPECT_NE(msg.find("no features for validation matrix"), std::string::npos)
        << msg;
  }
  // Nothing was written for invalid options.
  EXPECT_FALSE(llvm::sys::fs::exists(dir / "s/state.json"));
}

/// A Hedge run rewarded by what the model learns (`reward`: learned or
/// lookahead), whose rounds log `logged`: logged, kept in the state,
/// deterministic per seed, another reward's state refused, and the
/// refusals both rewards share.
void checkRewardForWhatIsLearned(PortfolioReward reward,
                                 const std::string &logged) {
  // Validation: the first validation matrix's problems; reward set: the
  // second's.
  std::vector<SampleGroup> validation, rewardSet;
  for (const SampleGroup &g : synthetic().validation)
    (g.matrix.id == kValidationMatrices[0] ? validation : rewardSet)
        .push_back(g);
  auto runWith = [&](const std::string &stateDir, const LearnOptions &base,
                     const std::vector<SampleGroup> &rewards) {
    LearningPool pool;
    ReplayOracle oracle(synthetic().pool, pool);
    double t = oracle.totalCost();
    LearnOptions o = base;
    o.stateDir = stateDir;
    o.roundBudgets = {0.15 * t, 0.3 * t, 0.45 * t, 0.6 * t};
    return runLearning(pool, oracle, validation, synthetic().features, o,
                       rewards);
  };
  TempDir dir;
  LearnOptions o = quickLearnOptions(dir / "unused", 1);
  o.strategy = "bandit";
  o.policy = BanditPolicy::Hedge;
  o.arms = {"exploitation", "random"};
  o.hedgeRate = 2;
  o.hedgeReward = reward;
  o.lookaheadEpochs = 2;
  llvm::Expected<LearnResult> res = runWith(dir / "a", o, rewardSet);
  ASSERT_TRUE(static_cast<bool>(res)) << errorText(res.takeError());
  ASSERT_EQ(res->rounds.size(), 4u);
  for (size_t n = 1; n < 4; ++n) {
    SCOPED_TRACE("round " + std::to_string(n + 1));
    EXPECT_EQ(res->rounds[n].arm, "hedge");
    EXPECT_NE(res->rounds[n].armReason.find("rewards (" + logged +
                                            "): exploitation "),
              std::string::npos)
        << res->rounds[n].armReason;
  }
  // The rewards moved the shares away from equal, and the state keeps them.
  std::string state = readFile(dir / "a/state.json");
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(state);
  ASSERT_TRUE(static_cast<bool>(v)) << llvm::toString(v.takeError());
  StrategyPortfolio restored(o.arms, {o.hedgeRate, o.hedgeMinShare, 1.0});
  llvm::Error e = restored.restore(*v->getAsObject()->get("portfolio"));
  ASSERT_FALSE(static_cast<bool>(e)) << errorText(std::move(e));
  EXPECT_EQ(restored.rounds(), 3u);
  EXPECT_NE(restored.shares()[0], restored.shares()[1]);

  // Deterministic per seed.
  llvm::Expected<LearnResult> again = runWith(dir / "b", o, rewardSet);
  ASSERT_TRUE(static_cast<bool>(again)) << errorText(again.takeError());
  expectSameRounds(res->rounds, again->rounds);
  for (size_t n = 0; n < 4; ++n)
    EXPECT_EQ(res->rounds[n].armReason, again->rounds[n].armReason) << n;

  // The same run rewarded for what the arms found is another run: its state
  // is refused.
  LearnOptions found = o;
  found.hedgeReward = PortfolioReward::Found;
  llvm::Expected<LearnResult> other = runWith(dir / "a", found, rewardSet);
  std::string msg = errorText(other);
  EXPECT_NE(msg.find("holds the state of another run"), std::string::npos)
      << msg;

  // It needs a reward set to learn toward, and the Hedge policy.
  std::string name = std::string("the ") + toString(reward) + " reward";
  llvm::Expected<LearnResult> noRewardSet = runWith(dir / "c", o, {});
  msg = errorText(noRewardSet);
  EXPECT_NE(msg.find(name + " needs a reward set"), std::string::npos) << msg;
  LearnOptions ucb = o;
  ucb.policy = BanditPolicy::UCB1;
  llvm::Expected<LearnResult> notHedge = runWith(dir / "d", ucb, rewardSet);
  msg = errorText(notHedge);
  EXPECT_NE(msg.find(name + " is the Hedge policy's"), std::string::npos)
      << msg;
  // It differentiates the model that trains next, which retraining from
  // scratch discards.
  LearnOptions retrain = o;
  retrain.retrain = true;
  llvm::Expected<LearnResult> fresh = runWith(dir / "e", retrain, rewardSet);
  msg = errorText(fresh);
  EXPECT_NE(msg.find("retraining from scratch would not"), std::string::npos)
      << msg;
}

} // namespace

TEST(LearningLoopTest, HedgeLearnedRewardPaysWhatTheModelLearnsFromEachArm) {
  checkRewardForWhatIsLearned(
      PortfolioReward::Learned,
      "first-order fall of the reward set's loss per second");
}

TEST(LearningLoopTest, HedgeLookaheadRewardPaysWhatTheModelLearnsFromEachArm) {
  checkRewardForWhatIsLearned(PortfolioReward::Lookahead,
                              "log gain of the reward set's top-1 after a "
                              "lookahead training, per second");
  // Its epochs are part of the run (another number is another run), and
  // there must be some.
  std::vector<SampleGroup> validation, rewardSet;
  for (const SampleGroup &g : synthetic().validation)
    (g.matrix.id == kValidationMatrices[0] ? validation : rewardSet)
        .push_back(g);
  TempDir dir;
  LearnOptions o = quickLearnOptions(dir / "s", 1);
  o.strategy = "bandit";
  o.policy = BanditPolicy::Hedge;
  o.arms = {"exploitation", "random"};
  o.hedgeReward = PortfolioReward::Lookahead;
  o.lookaheadEpochs = 1;
  auto run = [&](const LearnOptions &opts) {
    LearningPool pool;
    ReplayOracle oracle(synthetic().pool, pool);
    LearnOptions withBudgets = opts;
    withBudgets.roundBudgets = {0.2 * oracle.totalCost(),
                                0.4 * oracle.totalCost()};
    return runLearning(pool, oracle, validation, synthetic().features,
                       withBudgets, rewardSet);
  };
  llvm::Expected<LearnResult> first = run(o);
  ASSERT_TRUE(static_cast<bool>(first)) << errorText(first.takeError());
  LearnOptions longer = o;
  longer.lookaheadEpochs = 2;
  llvm::Expected<LearnResult> other = run(longer);
  std::string msg = errorText(other);
  EXPECT_NE(msg.find("holds the state of another run"), std::string::npos)
      << msg;
  LearnOptions none = o;
  none.stateDir = dir / "t";
  none.lookaheadEpochs = 0;
  llvm::Expected<LearnResult> noEpochs = run(none);
  msg = errorText(noEpochs);
  EXPECT_NE(msg.find("the lookahead reward needs at least one epoch"),
            std::string::npos)
      << msg;
}
