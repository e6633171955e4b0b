//===- TrainerTest.cpp - Training learns a known ranking ------------------===//
//
// A synthetic dataset whose runtimes are a known function of the matrix
// structure and the schedule: the best format differs by matrix family
// (CSR for uniform matrices, DCSR for mostly empty rows, 4x4 BSR for block
// matrices), parallelism and vectorization always help. The model has to
// learn it well enough to pick the best schedule on held-out matrices.
//
//===----------------------------------------------------------------------===//

#include "sptune/CostModel/Trainer.h"
#include "spade/SpadeKnobs.h"
#include "cpu/CpuKnobs.h"
#include "sptune/CostModel/ConfigurationMapper.h"
#include "sptune/CostModel/FeatureSpec.h"
#include "sptune/CostModel/ModelFile.h"
#include "sptune/Matrix/MatrixSource.h"

#include "llvm/Support/FileSystem.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace sptune;

namespace {
/// Runtime of a CPU SpMM schedule under the synthetic machine.
double syntheticCpuTime(const Schedule &s, const MatrixStats &st) {
  double empty =
      static_cast<double>(st.emptyRows) / static_cast<double>(st.rows);
  double fill4 = st.blockFill[1];
  double format;
  const auto &l = s.levels;
  if (s.splitRow == 4 && s.splitCol == 4)
    format = 1.0 / (2.5 * fill4);
  else if (l[0].format == LevelFormat::CompressedNU)
    format = 1.3;
  else if (l[0].dim.role != Role::I)
    format = 1.6;
  else if (l[0].format == LevelFormat::Compressed)
    format = 1.1;
  else
    format = 1.0 + 2.0 * empty;
  double knobs = (cpuKnobs(s).parallel == ParallelKind::Outer ? 0.55 : 1.0) *
                 (cpuKnobs(s).vectorLength == 8 ? 0.85 : 1.0);
  // Deterministic "measurement noise" of +-2%.
  double noise = 1.0 + 0.02 * std::sin(static_cast<double>(s.hash() % 1000));
  return 1e-9 * static_cast<double>(st.nnz) * 64 * format * knobs * noise;
}

/// Runtime of a SPADE schedule: bypassing the sparse stream pays off unless
/// the matrix is blocked, reordering by length helps skewed rows, 32-row
/// panels beat 8-row ones.
double syntheticSpadeTime(const Schedule &s, const MatrixStats &st) {
  double blocked = st.blockFill[1] > 0.5 ? 1.0 : 0.0;
  double t = static_cast<double>(st.nnz) * 1e-9;
  t *= spadeKnobs(s).bypassSparse ? (blocked ? 1.4 : 0.6) : 1.0;
  t *= spadeKnobs(s).reorder == RowReorder::ByLength ? 0.8 : 1.0;
  t *= s.splitRow == 32 ? 0.7 : 1.0;
  return t;
}

std::vector<Schedule> cpuCandidates() {
  std::vector<Schedule> out;
  for (Schedule base : {Schedule::csr(TargetKind::CPU, KernelType::SpMM),
                        Schedule::dcsr(TargetKind::CPU, KernelType::SpMM),
                        Schedule::csc(TargetKind::CPU, KernelType::SpMM),
                        Schedule::coo(TargetKind::CPU, KernelType::SpMM),
                        Schedule::bsr(TargetKind::CPU, KernelType::SpMM, 4, 4)})
    for (int k = 0; k < 4; ++k) {
      Schedule s = base;
      cpuKnobs(s).parallel = k & 1 ? ParallelKind::Outer : ParallelKind::None;
      cpuKnobs(s).vectorLength = k & 2 ? 8 : 0;
      s = canonicalize(s);
      // COO cannot run in parallel: its parallel variant is the serial one.
      if (std::find(out.begin(), out.end(), s) == out.end())
        out.push_back(s);
    }
  return out;
}

std::vector<Schedule> spadeCandidates() {
  std::vector<Schedule> out;
  for (const Schedule &k :
       sampleKnobSettings(TargetKind::SPADE, KernelType::SpMM, 12, 4))
    for (int64_t panel : {8, 32}) {
      Schedule s = k;
      s.splitRow = panel;
      out.push_back(canonicalize(s));
    }
  return out;
}

struct Synthetic {
  FeatureTable features;
  std::vector<SampleGroup> train, test, spadeTrain, spadeTest;
};

/// Adds matrix `spec` and its group of `target` to `groups`.
void addGroup(Synthetic &d, const std::string &spec, TargetKind target,
              std::vector<SampleGroup> &groups) {
  CooMatrix coo;
  MatrixInfo info;
  ASSERT_TRUE(test::succeeded(loadMatrix(spec, coo, info)));
  if (!d.features.count(info.id))
    d.features[info.id] = featurize(CsrMatrix::fromCoo(coo));
  const MatrixStats &st = d.features[info.id].stats;
  SampleGroup g;
  g.matrix.id = info.id;
  g.matrix.source = info.source;
  g.kernel = KernelType::SpMM;
  g.free = 64;
  g.target = target;
  for (const Schedule &s :
       target == TargetKind::CPU ? cpuCandidates() : spadeCandidates())
    g.samples.push_back({s, target == TargetKind::CPU
                                ? syntheticCpuTime(s, st)
                                : syntheticSpadeTime(s, st)});
  if (target == TargetKind::CPU)
    g.mlirDefaultTime = syntheticCpuTime(
        canonicalize(Schedule::csr(TargetKind::CPU, KernelType::SpMM)), st);
  groups.push_back(std::move(g));
}

std::string familySpec(int family, int n) {
  std::string seed = ",seed=" + std::to_string(n + 1);
  int rows = 512 << (n % 3);
  std::string r = std::to_string(rows);
  switch (family) {
  case 0: // uniform
    return "gen:uniform:rows=" + r + ",density=0.01" + seed;
  case 1: // mostly empty rows
    return "gen:uniform:rows=" + r + ",nnz=" + std::to_string(rows / 8) + seed;
  default: // dense 4x4 blocks
    return "gen:block:rows=" + r + ",density=0.02,bs=4,fill=1" + seed;
  }
}

const Synthetic &synthetic() {
  static Synthetic *d = [] {
    auto *s = new Synthetic;
    for (int family = 0; family < 3; ++family)
      for (int n = 0; n < 12; ++n) {
        bool held = n >= 8;
        addGroup(*s, familySpec(family, n), TargetKind::CPU,
                 held ? s->test : s->train);
        if (n < 3 || held)
          addGroup(*s, familySpec(family, n), TargetKind::SPADE,
                   held ? s->spadeTest : s->spadeTrain);
      }
    return s;
  }();
  return *d;
}

TrainOptions quickOptions() {
  TrainOptions o;
  o.epochs = 50;
  o.groupsPerBatch = 4;
  o.seed = 1;
  o.threads = 1;
  return o;
}

/// The CPU model trained once for the whole suite.
Model &trainedModel() {
  static std::unique_ptr<Model> model = [] {
    const Synthetic &d = synthetic();
    auto m = Model::create(ModelConfig(), 1);
    test::value(pretrainAutoencoders(*m, {}, PretrainOptions()));
    TrainResult r = train(*m, d.train, d.features, quickOptions());
    EXPECT_TRUE(r.ok) << r.error;
    return m;
  }();
  return *model;
}

size_t oracleHits(const Model &m, const std::vector<SampleGroup> &groups,
                  const FeatureTable &features) {
  size_t hits = 0;
  for (const SampleGroup &g : groups) {
    std::vector<Schedule> s;
    size_t best = 0;
    for (size_t n = 0; n < g.samples.size(); ++n) {
      s.push_back(g.samples[n].schedule);
      if (g.samples[n].time < g.samples[best].time)
        best = n;
    }
    std::vector<double> scores = m.score(features.at(g.matrix.id), s, g.free);
    hits += orderByScore(scores)[0] == best;
  }
  return hits;
}

std::string tempDir(const std::string &name) {
  std::string dir = testing::TempDir() + "/sptune-trainer-" + name;
  llvm::sys::fs::remove_directories(dir);
  return dir;
}
} // namespace

TEST(TrainerTest, LearnsTheBestScheduleOnHeldOutMatrices) {
  const Synthetic &d = synthetic();
  auto untrained = Model::create(ModelConfig(), 1);
  untrained->markTrained(TargetKind::CPU);
  EvaluationReport before = evaluate(*untrained, d.test, d.features);
  Model &m = trainedModel();
  EvaluationReport after = evaluate(m, d.test, d.features);
  EXPECT_EQ(after.groups, d.test.size());
  EXPECT_GT(after.tau, 0.7) << after.summary();
  EXPECT_GT(after.tau, before.tau + 0.3) << before.summary();
  EXPECT_GT(*after.pairAccuracy, 0.85) << after.summary();
  // Picks the oracle's schedule on nearly every held-out matrix, and so
  // nearly reaches the oracle's speedup.
  EXPECT_GE(oracleHits(m, d.test, d.features), d.test.size() - 2);
  EXPECT_GT(*after.top1, 0.9 * *after.oracle) << after.summary();
  EXPECT_GE(*after.top5, *after.top1);
  // Calibrated: predicted runtimes within a reasonable error.
  ASSERT_TRUE(after.mape);
  EXPECT_LT(*after.medianApe, 0.3) << after.summary();
  EXPECT_TRUE(m.isTrainedFor(TargetKind::CPU));
  EXPECT_TRUE(m.info().calibrated);
}

TEST(TrainerTest, RankingOnlyModelStillRanks) {
  const Synthetic &d = synthetic();
  auto m = Model::create(ModelConfig(), 2);
  TrainOptions o = quickOptions();
  o.regressionWeight = 0;
  o.epochs = 30;
  ASSERT_TRUE(train(*m, d.train, d.features, o).ok);
  EvaluationReport r = evaluate(*m, d.test, d.features);
  EXPECT_FALSE(m->info().calibrated);
  EXPECT_FALSE(r.mape); // no runtimes predicted
  EXPECT_GT(r.tau, 0.6) << r.summary();
}

TEST(TrainerTest, DeterministicForASeed) {
  const Synthetic &d = synthetic();
  TrainOptions o = quickOptions();
  o.epochs = 3;
  auto a = Model::create(ModelConfig(), 7), b = Model::create(ModelConfig(), 7);
  ASSERT_TRUE(train(*a, d.train, d.features, o).ok);
  ASSERT_TRUE(train(*b, d.train, d.features, o).ok);
  EXPECT_EQ(a->weightHash(), b->weightHash());
  o.seed = 2;
  auto c = Model::create(ModelConfig(), 7);
  ASSERT_TRUE(train(*c, d.train, d.features, o).ok);
  EXPECT_NE(a->weightHash(), c->weightHash());
}

TEST(TrainerTest, ResumesFromCheckpointToTheSameWeights) {
  const Synthetic &d = synthetic();
  TrainOptions o = quickOptions();
  o.epochs = 4;
  auto straight = Model::create(ModelConfig(), 3);
  ASSERT_TRUE(train(*straight, d.train, d.features, o).ok);

  o.checkpointDir = tempDir("resume");
  o.stopAfterEpoch = 2;
  auto first = Model::create(ModelConfig(), 3);
  TrainResult r1 = train(*first, d.train, d.features, o);
  ASSERT_TRUE(r1.ok) << r1.error;
  EXPECT_TRUE(r1.interrupted);
  EXPECT_EQ(r1.epochs, 2);

  // A fresh process would start from a fresh model and find the checkpoint.
  o.stopAfterEpoch = 0;
  int epochsSeen = 0;
  o.onEpoch = [&](const EpochReport &) { ++epochsSeen; };
  auto resumed = Model::create(ModelConfig(), 3);
  TrainResult r2 = train(*resumed, d.train, d.features, o);
  ASSERT_TRUE(r2.ok) << r2.error;
  EXPECT_EQ(r2.resumedFrom, 2);
  EXPECT_EQ(r2.epochs, 4);
  EXPECT_EQ(epochsSeen, 2);
  EXPECT_EQ(r2.history.size(), 4u);
  EXPECT_EQ(resumed->weightHash(), straight->weightHash());

  // Other options: the checkpoint is refused, not silently mixed in.
  o.learningRate *= 2;
  auto other = Model::create(ModelConfig(), 3);
  TrainResult r3 = train(*other, d.train, d.features, o);
  EXPECT_FALSE(r3.ok);
  EXPECT_NE(r3.error.find("another training run"), std::string::npos)
      << r3.error;
  llvm::sys::fs::remove_directories(o.checkpointDir);
}

TEST(TrainerTest, StopFlagInterrupts) {
  const Synthetic &d = synthetic();
  TrainOptions o = quickOptions();
  std::atomic<bool> stop{false};
  o.stop = &stop;
  int steps = 0;
  o.onProgress = [&](const TrainProgress &p) {
    EXPECT_GT(p.samplesPerSecond, 0);
    EXPECT_GE(p.etaSeconds, 0);
    if (++steps == 3)
      stop = true;
  };
  auto m = Model::create(ModelConfig(), 3);
  TrainResult r = train(*m, d.train, d.features, o);
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(steps, 3);
}

TEST(TrainerTest, FinetuneLearnsANewTargetWithAFrozenMatrixEncoder) {
  const Synthetic &d = synthetic();
  std::unique_ptr<Model> m = trainedModel().clone();
  ASSERT_TRUE(m);
  const MatrixFeatures &probe = d.features.begin()->second;
  std::vector<float> embeddingBefore = m->matrixEmbedding(probe);
  m->markTrained(TargetKind::SPADE); // so that evaluate scores it
  EvaluationReport before = evaluate(*m, d.spadeTest, d.features);

  TrainOptions o = quickOptions();
  o.target = TargetKind::SPADE;
  o.epochs = 60;
  o.regressionWeight = 0;
  TrainResult r = finetune(*m, d.spadeTrain, d.features, o);
  ASSERT_TRUE(r.ok) << r.error;
  EvaluationReport after = evaluate(*m, d.spadeTest, d.features);
  EXPECT_EQ(m->matrixEmbedding(probe), embeddingBefore);
  EXPECT_TRUE(m->isTrainedFor(TargetKind::SPADE));
  EXPECT_TRUE(m->isTrainedFor(TargetKind::CPU));
  // Few samples (9 matrices), yet it learns the SPADE knobs.
  EXPECT_GT(*after.pairAccuracy, 0.8) << after.summary();
  EXPECT_GT(*after.pairAccuracy, *before.pairAccuracy + 0.15)
      << before.summary();
}

TEST(TrainerTest, PretrainingReducesReconstructionError) {
  auto m = Model::create(ModelConfig(), 1);
  PretrainOptions none;
  none.steps = 0;
  std::vector<double> before = test::value(pretrainAutoencoders(*m, {}, none));
  std::vector<double> after =
      test::value(pretrainAutoencoders(*m, {}, PretrainOptions()));
  const std::vector<std::string> &targets = m->info().config.targets;
  ASSERT_EQ(targets, (std::vector<std::string>{"cpu", "nvvm", "spade"}));
  ASSERT_EQ(before.size(), targets.size());
  for (size_t t = 0; t < before.size(); ++t) {
    EXPECT_LT(after[t], 0.5 * before[t]) << targets[t];
    EXPECT_LT(after[t], 0.02) << targets[t];
  }
}

TEST(TrainerTest, PretrainingLeavesOutKernelsTheModelLacks) {
  // Fine-tuning a model of the default kernels may pre-train its knob
  // autoencoder on data holding SpGEMM schedules: they are not the
  // model's, and mapping them would abort.
  auto m = Model::create(ModelConfig(), 1);
  ASSERT_TRUE(m);
  Schedule spgemm = Schedule::csr(TargetKind::CPU, KernelType::SpGEMM);
  PretrainOptions quick;
  quick.steps = 5;
  EXPECT_EQ(test::value(pretrainAutoencoders(*m, {spgemm}, quick)).size(),
            m->info().config.targets.size());
  // A layout without SpMM samples settings of a kernel it has.
  ModelConfig only;
  only.kernels = {"spgemm"};
  auto s = Model::create(only, 1);
  ASSERT_TRUE(s);
  EXPECT_EQ(test::value(pretrainAutoencoders(*s, {spgemm}, quick)).size(),
            s->info().config.targets.size());
}

TEST(TrainerTest, ClearErrors) {
  const Synthetic &d = synthetic();
  auto m = Model::create(ModelConfig(), 1);
  TrainResult empty = train(*m, {}, d.features, quickOptions());
  EXPECT_FALSE(empty.ok);
  EXPECT_NE(empty.error.find("no training data"), std::string::npos);

  TrainResult noFeatures = train(*m, d.train, FeatureTable(), quickOptions());
  EXPECT_FALSE(noFeatures.ok);
  EXPECT_NE(noFeatures.error.find("no features for matrix"), std::string::npos);

  TrainOptions bad = quickOptions();
  bad.epochs = 0;
  EXPECT_FALSE(train(*m, d.train, d.features, bad).ok);

  TrainOptions nvvm = quickOptions();
  nvvm.target = TargetKind::NVVM;
  TrainResult none = train(*m, d.train, d.features, nvvm);
  EXPECT_FALSE(none.ok);
  EXPECT_NE(none.error.find("'nvvm'"), std::string::npos) << none.error;

  TrainOptions spade = quickOptions();
  spade.target = TargetKind::SPADE;
  TrainResult untrainedBase = finetune(*m, d.spadeTrain, d.features, spade);
  EXPECT_FALSE(untrainedBase.ok);
  EXPECT_NE(untrainedBase.error.find("trained base model"), std::string::npos)
      << untrainedBase.error;

  // SpGEMM samples need a model created for SpGEMM (modelKernelsFor).
  std::vector<SampleGroup> spgemm(d.train.begin(), d.train.begin() + 2);
  for (SampleGroup &g : spgemm) {
    g.kernel = KernelType::SpGEMM;
    for (MeasuredSchedule &s : g.samples)
      s.schedule = Schedule::csr(TargetKind::CPU, KernelType::SpGEMM);
  }
  TrainResult noKernel = train(*m, spgemm, d.features, quickOptions());
  EXPECT_FALSE(noKernel.ok);
  EXPECT_NE(noKernel.error.find("the model has no feature for kernel 'spgemm' "
                                "(built for spmm, sddmm, spmv)"),
            std::string::npos)
      << noKernel.error;
}

TEST(TrainerTest, LibTorchErrorsAreReportedNotThrown) {
  const Synthetic &d = synthetic();
  auto m = Model::create(ModelConfig(), 1);
  ASSERT_TRUE(m);
  // Adam refuses a negative learning rate by throwing.
  PretrainOptions pre;
  pre.steps = 1;
  pre.learningRate = -1;
  std::string error;
  EXPECT_FALSE(test::ok(pretrainAutoencoders(*m, {}, pre).takeError(), error));
  EXPECT_NE(error.find("pre-training the knob autoencoders failed: "),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("Invalid learning rate"), std::string::npos) << error;
  EXPECT_TRUE(test::failed(pretrainAutoencoders(*m, {}, pre).takeError()));

  // ... and a negative weight decay.
  TrainOptions o = quickOptions();
  o.epochs = 1;
  o.weightDecay = -1;
  TrainResult r = train(*m, d.train, d.features, o);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("training failed: "), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("Invalid weight_decay"), std::string::npos) << r.error;
}

TEST(TrainerTest, EvaluateCountsGroupsItFailedToScore) {
  const Synthetic &d = synthetic();
  auto m = Model::create(ModelConfig(), 1);
  ASSERT_TRUE(m);
  m->markTrained(TargetKind::CPU);
  ModelEvaluation all = evaluate(*m, d.test, d.features);
  EXPECT_EQ(all.groups, d.test.size());
  EXPECT_EQ(all.failedGroups, 0u);
  EXPECT_TRUE(all.firstError.empty());

  // Malformed features for one matrix: that group fails, the rest count.
  FeatureTable broken = d.features;
  broken[d.test[1].matrix.id] = MatrixFeatures();
  ModelEvaluation r = evaluate(*m, d.test, broken);
  EXPECT_EQ(r.groups, d.test.size() - 1);
  EXPECT_EQ(r.failedGroups, 1u);
  EXPECT_NE(r.firstError.find(d.test[1].key()), std::string::npos)
      << r.firstError;
  EXPECT_NE(r.firstError.find("wrong sizes"), std::string::npos)
      << r.firstError;

  // A group of a kernel the model has no feature for is left out and
  // counted, not failed.
  std::vector<SampleGroup> withSpgemm = d.test;
  withSpgemm[0].kernel = KernelType::SpGEMM;
  for (MeasuredSchedule &s : withSpgemm[0].samples)
    s.schedule = Schedule::csr(TargetKind::CPU, KernelType::SpGEMM);
  ModelEvaluation u = evaluate(*m, withSpgemm, d.features);
  EXPECT_EQ(u.groups, d.test.size() - 1);
  EXPECT_EQ(u.unmodeledGroups, 1u);
  EXPECT_EQ(u.failedGroups, 0u);

  // A LibTorch error while scoring (the configuration no longer matches the
  // network, and the group mixes two targets' schedules).
  std::vector<SampleGroup> mixed = {d.test[0]};
  mixed[0].samples.push_back(
      {Schedule::csr(TargetKind::SPADE, KernelType::SpMM), 1e-3});
  EXPECT_EQ(evaluate(*m, mixed, d.features).failedGroups, 0u);
  m->info().config.latent += 1;
  ModelEvaluation t = evaluate(*m, mixed, d.features);
  EXPECT_EQ(t.groups, 0u);
  EXPECT_EQ(t.failedGroups, 1u);
  EXPECT_NE(t.firstError.find("scoring the candidates failed: "),
            std::string::npos)
      << t.firstError;
}

TEST(TrainerTest, DivergedModelsAreNeitherWrittenNorUsed) {
  const Synthetic &d = synthetic();
  auto m = Model::create(ModelConfig(), 1);
  ASSERT_TRUE(m);
  TrainOptions o = quickOptions();
  o.epochs = 3;
  o.learningRate = 1e12; // diverges: NaN weights
  TrainResult r = train(*m, d.train, d.features, o);
  std::string error;
  std::string path = tempDir("diverged") + ".pt";
  EXPECT_FALSE(m->save(path, error));
  EXPECT_NE(error.find("non-finite weights"), std::string::npos) << error;
  EXPECT_FALSE(llvm::sys::fs::exists(path));
}

//===----------------------------------------------------------------------===//
// Ablations and fine-tuning alternatives (issue 17)
//===----------------------------------------------------------------------===//

namespace {
/// Builds a model with `ablations`, trains it a little (CPU), writes and
/// reads it back; returns the loaded copy (null on failure).
std::unique_ptr<Model> trainAndRoundTrip(const std::string &ablations,
                                         std::unique_ptr<Model> *trained) {
  const Synthetic &d = synthetic();
  ModelConfig c;
  std::string error;
  EXPECT_FALSE(static_cast<bool>(parseAblationList(ablations, c)));
  auto m = Model::create(c, 4);
  EXPECT_TRUE(m);
  if (!m)
    return nullptr;
  EXPECT_EQ(test::value(pretrainAutoencoders(*m, {}, PretrainOptions())).size(),
            m->info().config.targets.size());
  TrainOptions o = quickOptions();
  o.epochs = 2;
  TrainResult r = train(*m, d.train, d.features, o);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.epochs, 2);
  if (c.noAutoencoder)
    for (const EpochReport &e : r.history)
      EXPECT_EQ(e.reconstructionLoss, 0.0);
  std::string path = tempDir("ablate") + ".pt";
  EXPECT_TRUE(m->save(path, error)) << error;
  auto loaded = Model::load(path, error);
  EXPECT_TRUE(loaded) << error;
  std::remove(path.c_str());
  *trained = std::move(m);
  return loaded;
}
} // namespace

TEST(AblationTest, ParsesAndPrintsTheList) {
  ModelConfig c;
  EXPECT_FALSE(static_cast<bool>(parseAblationList("", c)));
  EXPECT_FALSE(c.hasAblations());
  EXPECT_EQ(ablationList(c), "");
  ASSERT_FALSE(static_cast<bool>(
      parseAblationList("single-scale, no-config-mapper,single-scale", c)));
  EXPECT_TRUE(c.singleScale && c.noConfigMapper && !c.noAutoencoder);
  EXPECT_EQ(ablationList(c), "no-config-mapper,single-scale");
  ModelConfig before = c;
  std::string error =
      llvm::toString(parseAblationList("no-config-mapper,multi-scale", c));
  EXPECT_NE(error.find("'multi-scale'"), std::string::npos) << error;
  EXPECT_NE(error.find("no-autoencoder"), std::string::npos) << error;
  EXPECT_EQ(ablationList(c), ablationList(before)); // unchanged on error
}

TEST(AblationTest, UnablatedModelFilesAreUnchanged) {
  // No "ablations" key: the files of models without ablations (and so the
  // shipped ones and their hashes) stay what they were.
  auto m = Model::create(ModelConfig(), 5);
  EXPECT_EQ(m->serialize().find("ablations"), std::string::npos);
  ModelConfig c;
  c.singleScale = true;
  auto a = Model::create(c, 5);
  EXPECT_NE(a->serialize().find("ablations"), std::string::npos);
  // Same shapes: only no-autoencoder adds (its direct layers).
  EXPECT_EQ(a->parameterCount(), m->parameterCount());
  ModelConfig n;
  n.noAutoencoder = true;
  size_t direct = 0;
  FeatureLayout layout = FeatureLayout::ofRegisteredTargets();
  for (TargetKind t : layout.targets())
    direct += static_cast<size_t>(knobFeatureSize(t) + 1) * 6;
  EXPECT_EQ(Model::create(n, 5)->parameterCount(),
            m->parameterCount() + direct);
}

TEST(AblationTest, EachAblationTrainsAndRoundTrips) {
  const Synthetic &d = synthetic();
  for (std::string list :
       {"no-config-mapper", "no-autoencoder", "single-scale",
        "no-config-mapper,no-autoencoder,single-scale"}) {
    SCOPED_TRACE(list);
    std::unique_ptr<Model> trained;
    std::unique_ptr<Model> loaded = trainAndRoundTrip(list, &trained);
    ASSERT_TRUE(loaded && trained);
    EXPECT_EQ(ablationList(loaded->info().config), list);
    EXPECT_EQ(loaded->weightHash(), trained->weightHash());
    const SampleGroup &g = d.test.front();
    std::vector<Schedule> s;
    for (const MeasuredSchedule &m : g.samples)
      s.push_back(m.schedule);
    const MatrixFeatures &f = d.features.at(g.matrix.id);
    std::vector<double> a = trained->score(f, s, g.free),
                        b = loaded->score(f, s, g.free);
    ASSERT_EQ(a.size(), s.size());
    EXPECT_EQ(a, b);
    for (double x : a)
      EXPECT_TRUE(std::isfinite(x));
  }
}

TEST(AblationTest, EachAblationRemovesWhatItSays) {
  const Synthetic &d = synthetic();
  const MatrixFeatures &f = d.features.begin()->second;
  // single-scale: the 32 and 64 images do not matter, the 128 one does.
  {
    ModelConfig c;
    c.singleScale = true;
    auto m = Model::create(c, 6), full = Model::create(ModelConfig(), 6);
    MatrixFeatures g = f;
    for (float &x : g.images[0])
      x = 1.0f - x;
    for (float &x : g.images[1])
      x = 1.0f - x;
    EXPECT_EQ(m->matrixEmbedding(g), m->matrixEmbedding(f));
    EXPECT_NE(full->matrixEmbedding(g), full->matrixEmbedding(f));
    for (float &x : g.images[2])
      x = 1.0f - x;
    EXPECT_NE(m->matrixEmbedding(g), m->matrixEmbedding(f));
  }
  // no-config-mapper: schedules that differ only in their common features
  // (the format) score the same; the knobs still matter.
  {
    ModelConfig c;
    c.noConfigMapper = true;
    auto m = Model::create(c, 6);
    Schedule a = canonicalize(Schedule::csr(TargetKind::CPU, KernelType::SpMM));
    Schedule b = canonicalize(Schedule::dcsr(TargetKind::CPU, KernelType::SpMM));
    Schedule v = a;
    cpuKnobs(v).vectorLength = 8;
    v = canonicalize(v);
    std::vector<double> s = m->score(f, {a, b, v}, 64);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0], s[1]);
    EXPECT_NE(s[0], s[2]);
    auto full = Model::create(ModelConfig(), 6);
    std::vector<double> t = full->score(f, {a, b}, 64);
    EXPECT_NE(t[0], t[1]);
  }
}

TEST(FinetuneFreezeTest, FreezesWhatItSays) {
  const Synthetic &d = synthetic();
  const MatrixFeatures &probe = d.features.begin()->second;
  std::vector<float> embedding = trainedModel().matrixEmbedding(probe);
  std::vector<uint64_t> hashes;
  for (FinetuneFreeze freeze : {FinetuneFreeze::Encoders,
                                FinetuneFreeze::Matrix, FinetuneFreeze::None}) {
    SCOPED_TRACE(toString(freeze));
    EXPECT_EQ(parseFinetuneFreeze(toString(freeze)), freeze);
    std::unique_ptr<Model> m = trainedModel().clone();
    TrainOptions o = quickOptions();
    o.target = TargetKind::SPADE;
    o.epochs = 3;
    o.finetuneFreeze = freeze;
    TrainResult r = finetune(*m, d.spadeTrain, d.features, o);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_TRUE(m->isTrainedFor(TargetKind::SPADE));
    if (freeze == FinetuneFreeze::None)
      EXPECT_NE(m->matrixEmbedding(probe), embedding);
    else
      EXPECT_EQ(m->matrixEmbedding(probe), embedding);
    hashes.push_back(m->weightHash());
  }
  EXPECT_NE(hashes[0], hashes[1]);
  EXPECT_NE(hashes[1], hashes[2]);
  EXPECT_FALSE(parseFinetuneFreeze("all"));
  // --finetune-schedule-encoder is the same as Matrix.
  std::unique_ptr<Model> m = trainedModel().clone();
  TrainOptions o = quickOptions();
  o.target = TargetKind::SPADE;
  o.epochs = 3;
  o.finetuneScheduleEncoder = true;
  ASSERT_TRUE(finetune(*m, d.spadeTrain, d.features, o).ok);
  EXPECT_EQ(m->weightHash(), hashes[1]);
}

TEST(FinetuneFreezeTest, AblatedModelsFinetune) {
  // no-autoencoder: fine-tuning trains the target's direct layer.
  const Synthetic &d = synthetic();
  std::unique_ptr<Model> base;
  ASSERT_TRUE(trainAndRoundTrip("no-autoencoder", &base));
  uint64_t before = base->weightHash();
  TrainOptions o = quickOptions();
  o.target = TargetKind::SPADE;
  o.epochs = 2;
  TrainResult r = finetune(*base, d.spadeTrain, d.features, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(base->weightHash(), before);
  EXPECT_TRUE(base->info().config.noAutoencoder);
}

TEST(FinetuneFreezeTest, PretrainingOneTargetAgainLeavesTheOthers) {
  std::unique_ptr<Model> m = trainedModel().clone();
  const MatrixFeatures &f = synthetic().features.begin()->second;
  Schedule cpu = canonicalize(Schedule::csr(TargetKind::CPU, KernelType::SpMM));
  std::vector<double> cpuScores = m->score(f, {cpu}, 64);
  std::vector<float> spadeCode =
      m->scheduleCode(spadeCandidates().front(), 64);
  PretrainOptions o;
  o.only = TargetKind::SPADE;
  o.reinitialize = true;
  o.steps = 50;
  std::vector<double> errs = test::value(pretrainAutoencoders(*m, {}, o));
  ASSERT_EQ(errs.size(), 3u); // cpu, nvvm, spade
  EXPECT_EQ(errs[static_cast<size_t>(TargetKind::CPU)], 0.0);
  EXPECT_GT(errs[static_cast<size_t>(TargetKind::SPADE)], 0.0);
  EXPECT_EQ(m->score(f, {cpu}, 64), cpuScores);
  EXPECT_NE(m->scheduleCode(spadeCandidates().front(), 64), spadeCode);
  // Deterministic for a seed.
  std::unique_ptr<Model> again = trainedModel().clone();
  test::value(pretrainAutoencoders(*again, {}, o));
  EXPECT_EQ(again->weightHash(), m->weightHash());
}

TEST(TrainerTest, TrainingLeavesTheOtherTargetsKnobCodesAlone) {
  // A CPU run's batches hold no SPADE schedule: SPADE's pre-trained knob
  // code must come out as it went in. (Adam, given only the weight decay as
  // their gradient, used to walk those weights to zero: ~1e-11 codes.)
  const Synthetic &d = synthetic();
  auto m = Model::create(ModelConfig(), 1);
  test::value(pretrainAutoencoders(*m, {}, PretrainOptions()));
  std::vector<float> before = m->scheduleCode(spadeCandidates().front(), 64);
  TrainResult r = train(*m, d.train, d.features, quickOptions());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(m->scheduleCode(spadeCandidates().front(), 64), before);
  double norm = 0;
  for (size_t n = before.size() - 6; n < before.size(); ++n)
    norm += std::abs(before[n]);
  EXPECT_GT(norm, 1e-3);
}

TEST(TrainerTest, ZeroKnobCodeZeroesOnlyThatTargetsCode) {
  // Every SPADE setting codes to zero; the CPU code and scores are kept;
  // fine-tuning from there learns a code that tells settings apart again.
  std::unique_ptr<Model> m = trainedModel().clone();
  const MatrixFeatures &f = synthetic().features.begin()->second;
  Schedule cpu = canonicalize(Schedule::csr(TargetKind::CPU, KernelType::SpMM));
  std::vector<double> cpuScores = m->score(f, {cpu}, 64);
  ASSERT_TRUE(test::succeeded(zeroKnobCode(*m, TargetKind::SPADE)));
  std::vector<Schedule> spade = spadeCandidates();
  ASSERT_GE(spade.size(), 2u);
  size_t width = m->scheduleCode(spade[0], 64).size();
  for (const Schedule &s : {spade[0], spade[1]}) {
    std::vector<float> code = m->scheduleCode(s, 64);
    for (size_t n = width - static_cast<size_t>(m->info().config.latent);
         n < width; ++n)
      EXPECT_EQ(code[n], 0.0f);
  }
  EXPECT_EQ(m->score(f, {cpu}, 64), cpuScores);
  TrainOptions o = quickOptions();
  o.target = TargetKind::SPADE;
  o.epochs = 5;
  o.finetuneFreeze = FinetuneFreeze::None;
  ASSERT_TRUE(finetune(*m, synthetic().spadeTrain, synthetic().features, o).ok);
  EXPECT_NE(m->scheduleCode(spade[0], 64), m->scheduleCode(spade[1], 64));
}

namespace {
double dot(const std::vector<float> &a, const std::vector<float> &b) {
  double s = 0;
  for (size_t n = 0; n < a.size(); ++n)
    s += static_cast<double>(a[n]) * b[n];
  return s;
}
} // namespace

TEST(TrainerTest, LossGradientFocusesOnSamplesAndLeavesTheModelAlone) {
  const Synthetic &d = synthetic();
  auto m = Model::create(ModelConfig(), 5);
  test::value(pretrainAutoencoders(*m, {}, PretrainOptions()));
  TrainOptions o = quickOptions();
  o.epochs = 2;
  ASSERT_TRUE(train(*m, d.train, d.features, o).ok);
  uint64_t weights = m->weightHash();

  std::vector<float> all =
      test::value(lossGradient(*m, d.train, d.features, o));
  ASSERT_FALSE(all.empty());
  EXPECT_GT(dot(all, all), 0);
  EXPECT_EQ(m->weightHash(), weights);

  // Every sample in focus: the whole loss, the same gradient.
  std::vector<std::vector<bool>> every, none;
  for (const SampleGroup &g : d.train) {
    every.emplace_back(g.samples.size(), true);
    none.emplace_back(g.samples.size(), false);
  }
  std::vector<float> focused =
      test::value(lossGradient(*m, d.train, d.features, o, &every));
  ASSERT_EQ(focused.size(), all.size());
  for (size_t n = 0; n < all.size(); ++n)
    ASSERT_NEAR(focused[n], all[n], 1e-5 * (1 + std::fabs(all[n]))) << n;
  // Nothing in focus: nothing to learn.
  std::vector<float> nothing =
      test::value(lossGradient(*m, d.train, d.features, o, &none));
  ASSERT_EQ(nothing.size(), all.size());
  EXPECT_EQ(dot(nothing, nothing), 0);
  // Each problem weighs the same and problems add up: the gradient over two
  // groups is the sum of each one's (a mean over the pairs of both would
  // weigh the larger group more).
  ASSERT_GE(d.train.size(), 2u);
  const SampleGroup &first = d.train[0], &second = d.train[1];
  std::vector<float> g0 = test::value(lossGradient(*m, {first}, d.features, o));
  std::vector<float> g1 =
      test::value(lossGradient(*m, {second}, d.features, o));
  std::vector<float> both =
      test::value(lossGradient(*m, {first, second}, d.features, o));
  ASSERT_EQ(g0.size(), all.size());
  ASSERT_EQ(both.size(), all.size());
  for (size_t n = 0; n < all.size(); ++n)
    ASSERT_NEAR(both[n], g0[n] + g1[n], 1e-5 * (1 + std::fabs(both[n]))) << n;
  // A focus picks its group's samples, also after a group of another target
  // (which the gradient skips): all of the second group in focus, none of
  // the first, is the second group's gradient.
  ASSERT_FALSE(d.spadeTrain.empty());
  std::vector<SampleGroup> mixed = {d.spadeTrain[0], first, second};
  std::vector<std::vector<bool>> onlySecond = {
      std::vector<bool>(d.spadeTrain[0].samples.size(), true),
      std::vector<bool>(first.samples.size(), false),
      std::vector<bool>(second.samples.size(), true)};
  std::vector<float> picked =
      test::value(lossGradient(*m, mixed, d.features, o, &onlySecond));
  ASSERT_EQ(picked.size(), all.size());
  for (size_t n = 0; n < all.size(); ++n)
    ASSERT_NEAR(picked[n], g1[n], 1e-5 * (1 + std::fabs(g1[n]))) << n;
  // One sample in focus adds less than its whole group, and not nothing.
  std::vector<std::vector<bool>> oneSample = {
      std::vector<bool>(d.spadeTrain[0].samples.size(), false),
      std::vector<bool>(first.samples.size(), false),
      std::vector<bool>(second.samples.size(), false)};
  oneSample[2][0] = true;
  std::vector<float> single =
      test::value(lossGradient(*m, mixed, d.features, o, &oneSample));
  EXPECT_GT(dot(single, single), 0);
  EXPECT_LT(dot(single, single), dot(g1, g1));

  // What the training matrices teach holds on the held-out ones: a step
  // along the training gradient lowers the held-out loss (first order).
  std::vector<float> heldOut =
      test::value(lossGradient(*m, d.test, d.features, o));
  EXPECT_GT(dot(all, heldOut), 0);

  // A focus of another shape is refused.
  none.pop_back();
  std::string msg = llvm::toString(
      lossGradient(*m, d.train, d.features, o, &none).takeError());
  EXPECT_NE(msg.find("the focus has"), std::string::npos) << msg;
}
