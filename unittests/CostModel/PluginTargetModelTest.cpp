//===- PluginTargetModelTest.cpp - A fourth target in the cost model ------===//
//
// The cost model keys its knob autoencoders by registered target name
// (FeatureLayout): a target registered after the built-in ones gets a slot in
// the models created from then on, is trained and ranked like any other, and
// the models built before keep their shape, their bytes and their scores.
//
//===----------------------------------------------------------------------===//

#include "sptune/CostModel/ConfigurationMapper.h"
#include "sptune/CostModel/FeatureSpec.h"
#include "sptune/CostModel/Model.h"
#include "sptune/CostModel/ModelFile.h"
#include "sptune/CostModel/Trainer.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Target/KnobEncoding.h"
#include "sptune/Target/ScheduleSpace.h"
#include "sptune/Target/Target.h"

#include "Support/ErrorTesting.h"
#include "Support/ToyTarget.h"
#include "Support/FeatureTesting.h"
#include "gtest/gtest.h"

#include <cmath>

using namespace sptune;

namespace {

MatrixFeatures features(const std::string &spec) {
  return test::featuresOf(spec);
}

std::vector<Schedule> toySchedules(TargetKind kind) {
  std::vector<Schedule> out;
  ProblemShape shape;
  shape.free = 64;
  test::ToySpace(kind, true).enumerate(shape, [&](const Schedule &s) {
    out.push_back(s);
    return true;
  });
  return out;
}

/// A config of these targets (ModelConfig's empty list would take every
/// registered one, which depends on what the tests before registered).
ModelConfig configOf(std::vector<std::string> targets) {
  ModelConfig c;
  c.targets = std::move(targets);
  return c;
}

/// The toy's runtimes: unrolling by 4 pays, 32-bit indices help, DCSR
/// costs a little.
double toyTime(const Schedule &s, const MatrixStats &st) {
  double unroll = s.knobs<test::ToyKnobs>().unroll == 4 ? 0.5 : 1.0;
  double doubly = s.levels.front().format == LevelFormat::Dense ? 1.0 : 1.15;
  return 1e-9 * static_cast<double>(st.nnz) * unroll * doubly *
         (s.posWidth == 32 ? 0.8 : 1.0);
}

TEST(PluginTargetModel, AFourthTargetGetsASlotAndOlderModelsKeepTheirs) {
  MatrixFeatures f = features("gen:uniform:rows=400,cols=400,nnz=4000,seed=3");
  // A model of the built-in targets, as before the plug-in is registered.
  std::string error;
  std::unique_ptr<Model> builtin =
      Model::create(configOf({"cpu", "nvvm", "spade"}), 1, &error);
  ASSERT_TRUE(builtin) << error;
  EXPECT_EQ(builtin->info().config.targets,
            (std::vector<std::string>{"cpu", "nvvm", "spade"}));
  std::string builtinBytes = builtin->serialize(&error);
  ASSERT_FALSE(builtinBytes.empty()) << error;
  // Its file lists no targets: files of the built-in targets keep the bytes
  // (and so the feature specification) they always had.
  EXPECT_EQ(builtinBytes.find("\"targets\""), std::string::npos);
  Schedule cpu = canonicalize(Schedule::csr(TargetKind::CPU, KernelType::SpMM));
  std::vector<double> cpuScores = builtin->score(f, {cpu}, 64, &error);
  ASSERT_EQ(cpuScores.size(), 1u) << error;

  const Target &toy =
      TargetRegistry::add(std::make_unique<test::ToyTarget>("toy"));
  const Target &bare =
      TargetRegistry::add(std::make_unique<test::ToyTarget>("bare", false));

  // The older model: same bytes, same scores; the toy's schedules are not
  // its to rank, and it says so.
  std::unique_ptr<Model> reloaded =
      Model::loadFromBytes(builtinBytes, "builtin.model", error);
  ASSERT_TRUE(reloaded) << error;
  EXPECT_EQ(reloaded->serialize(), builtinBytes);
  EXPECT_EQ(reloaded->score(f, {cpu}, 64), cpuScores);
  Schedule toyCsr = canonicalize(Schedule::csr(toy.kind(), KernelType::SpMM));
  error.clear();
  EXPECT_TRUE(reloaded->score(f, {toyCsr}, 64, &error).empty());
  EXPECT_NE(error.find("no knob coding for target 'toy' (built for cpu, "
                       "nvvm, spade)"),
            std::string::npos)
      << error;

  // A new model has a slot for each: the toy's own knob code, the bare
  // target's zero code, one width for all.
  std::unique_ptr<Model> four = Model::create(ModelConfig(), 1, &error);
  ASSERT_TRUE(four) << error;
  EXPECT_EQ(four->info().config.targets,
            (std::vector<std::string>{"cpu", "nvvm", "spade", "toy", "bare"}));
  FeatureLayout layout = FeatureLayout::ofRegisteredTargets();
  llvm::Expected<FeatureLayout> three =
      FeatureLayout::of({"cpu", "nvvm", "spade"});
  ASSERT_TRUE(!!three) << llvm::toString(three.takeError());
  EXPECT_EQ(layout.commonSize(), three->commonSize() + 2);
  Schedule bareCsr = canonicalize(Schedule::csr(bare.kind(), KernelType::SpMM));
  for (const Schedule &s : {cpu, toyCsr, bareCsr})
    EXPECT_EQ(four->scheduleCode(s, 64).size(),
              static_cast<size_t>(layout.commonSize() + ModelConfig().latent))
        << s.str();
  std::vector<Schedule> mixed = toySchedules(toy.kind());
  mixed.push_back(cpu);
  mixed.push_back(bareCsr);
  std::vector<double> scores = four->score(f, mixed, 64, &error);
  ASSERT_EQ(scores.size(), mixed.size()) << error;
  for (double s : scores)
    EXPECT_TRUE(std::isfinite(s));

  // Its file lists its targets and reads back to the same model.
  std::string bytes = four->serialize(&error);
  ASSERT_FALSE(bytes.empty()) << error;
  EXPECT_NE(bytes.find("\"targets\":[\"cpu\",\"nvvm\",\"spade\",\"toy\","
                       "\"bare\"]"),
            std::string::npos);
  std::unique_ptr<Model> back = Model::loadFromBytes(bytes, "four", error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->weightHash(), four->weightHash());
  EXPECT_EQ(back->score(f, mixed, 64), scores);

  // A file that names a target this build does not register is refused by
  // name, before its weights are read.
  ModelFileContents file = test::value(decodeModelFile(bytes, "model", "f"));
  std::string &config = file.sections["config"];
  config.replace(config.find("\"bare\"]"), 7, "\"nonesuch\"]");
  std::string renamed =
      encodeModelFile("model", file.featureSpecHash, file.sections);
  EXPECT_FALSE(Model::loadFromBytes(renamed, "renamed.model", error));
  EXPECT_NE(error.find("'renamed.model' was built for targets cpu, nvvm, "
                       "spade, toy, nonesuch: target 'nonesuch' is not "
                       "registered in this build"),
            std::string::npos)
      << error;
}

TEST(PluginTargetModel, AFourthTargetTrainsLikeTheOthers) {
  const Target &toy =
      TargetRegistry::add(std::make_unique<test::ToyTarget>("toy"));
  std::string error;
  std::unique_ptr<Model> m =
      Model::create(configOf({"cpu", "nvvm", "spade", "toy"}), 2, &error);
  ASSERT_TRUE(m) << error;
  std::vector<double> errs =
      test::value(pretrainAutoencoders(*m, {}, PretrainOptions()));
  ASSERT_EQ(errs.size(), 4u);
  EXPECT_LT(errs[3], 0.02); // the toy's autoencoder learned its knobs

  FeatureTable table;
  std::vector<SampleGroup> groups;
  for (int seed = 1; seed <= 8; ++seed) {
    std::string spec = "gen:uniform:rows=" + std::to_string(200 * seed) +
                       ",cols=300,nnz=" + std::to_string(1500 * seed) +
                       ",seed=" + std::to_string(seed);
    MatrixFeatures mf = features(spec);
    SampleGroup g;
    g.matrix.id = spec;
    g.matrix.source = spec;
    g.target = toy.kind();
    g.free = 64;
    for (const Schedule &s : toySchedules(toy.kind()))
      g.samples.push_back({s, toyTime(s, mf.stats)});
    table[spec] = std::move(mf);
    groups.push_back(std::move(g));
  }
  ModelEvaluation before = evaluate(*m, groups, table);
  TrainOptions o;
  o.target = toy.kind();
  o.epochs = 150;
  o.groupsPerBatch = 4;
  o.seed = 1;
  o.threads = 1;
  TrainResult r = train(*m, groups, table, o);
  ASSERT_TRUE(r.ok) << r.error;
  m->markTrained(toy.kind());
  ModelEvaluation after = evaluate(*m, groups, table);
  ASSERT_TRUE(after.pairAccuracy && before.pairAccuracy);
  EXPECT_GT(*after.pairAccuracy, 0.9) << after.summary();
  EXPECT_GT(*after.pairAccuracy, *before.pairAccuracy) << before.summary();
  EXPECT_TRUE(m->isTrainedFor(toy.kind()));
}

TEST(PluginTargetModel, ATargetOutsideTheModelIsRefusedWhenTraining) {
  std::string error;
  std::unique_ptr<Model> m =
      Model::create(configOf({"cpu", "nvvm", "spade"}), 3, &error);
  ASSERT_TRUE(m) << error;
  const Target &toy =
      TargetRegistry::add(std::make_unique<test::ToyTarget>("toy"));
  FeatureTable table;
  std::string spec = "gen:uniform:rows=300,cols=300,nnz=2000,seed=1";
  table[spec] = features(spec);
  SampleGroup g;
  g.matrix.id = spec;
  g.target = toy.kind();
  g.free = 64;
  for (const Schedule &s : toySchedules(toy.kind()))
    g.samples.push_back({s, toyTime(s, table[spec].stats)});
  TrainOptions o;
  o.target = toy.kind();
  o.epochs = 1;
  TrainResult r = train(*m, {g}, table, o);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("the model has no knob coding for target 'toy' "
                         "(built for cpu, nvvm, spade)"),
            std::string::npos)
      << r.error;
  EXPECT_TRUE(llvm::errorToBool(zeroKnobCode(*m, toy.kind())));
}

} // namespace
