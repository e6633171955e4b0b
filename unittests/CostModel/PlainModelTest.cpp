//===- PlainModelTest.cpp - Release scoring without LibTorch --------------===//
//
// The plain C++ forward pass scores what the LibTorch model scores: the
// shipped models and ablated ones, on generated matrices of several shapes,
// every kernel and free size, on hundreds of sampled schedules of each
// target; and a model file without plain weights, or with broken ones, is
// refused with a message.
//
//===----------------------------------------------------------------------===//

#include "sptune/CostModel/PlainModel.h"

#include "sptune/CostModel/ConfigurationMapper.h"
#include "sptune/CostModel/EmbeddedModels.h"
#include "sptune/CostModel/FeatureSpec.h"
#include "sptune/CostModel/Model.h"
#include "sptune/CostModel/ModelFile.h"
#include "sptune/CostModel/TrainingRun.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Target/DefaultSchedule.h"

#include "Support/FeatureTesting.h"
#include "Support/SpgemmTesting.h"
#include "gtest/gtest.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>

using namespace sptune;

namespace {

MatrixFeatures features(const std::string &spec) {
  return test::featuresOf(spec);
}

const std::vector<std::string> &matrixSpecs() {
  static const std::vector<std::string> specs = {
      "gen:uniform:rows=3000,cols=3000,nnz=30000,seed=1",
      "gen:banded:rows=4000,cols=4000,nnz=40000,bw=16,seed=2",
      "gen:clustered:rows=5000,cols=5000,nnz=60000,group=8,seed=3",
      "gen:block:rows=2048,cols=2048,nnz=40000,bs=8,seed=7",
      "gen:rmat:rows=4096,nnz=50000,seed=4",
      "gen:uniform:rows=200,cols=9000,nnz=20000,seed=5",
      "gen:banded:rows=64,cols=64,nnz=300,bw=4,seed=6"};
  return specs;
}

/// The largest |plain - torch| / max(1, |torch|) over `m`'s problems, with
/// the top-1 pick checked equal; `problems` counts what was compared.
double compare(const Model &torchModel, const PlainModel &plain,
               TargetKind target, size_t &problems, size_t &scores) {
  double worst = 0;
  for (const std::string &spec : matrixSpecs()) {
    MatrixFeatures f = features(spec);
    for (KernelType kernel :
         {KernelType::SpMM, KernelType::SDDMM, KernelType::SpMV})
      for (int64_t free : {16, 64, 256}) {
        if (kernel == KernelType::SpMV && free != 16)
          continue;
        int64_t n = kernel == KernelType::SpMV ? 1 : free;
        std::vector<Schedule> candidates =
            sampleKnobSettings(target, kernel, 200, 7 + problems);
        candidates.push_back(defaultSchedule(target, kernel, &f.stats, n));
        std::string error;
        std::vector<double> expected =
            torchModel.score(f, candidates, n, &error);
        if (expected.size() != candidates.size()) {
          ADD_FAILURE() << error;
          return 1;
        }
        llvm::Expected<std::vector<double>> got = plain.score(f, candidates, n);
        if (!got) {
          ADD_FAILURE() << llvm::toString(got.takeError());
          return 1;
        }
        if (got->size() != expected.size()) {
          ADD_FAILURE() << "plain scores " << got->size() << " of "
                        << expected.size();
          return 1;
        }
        for (size_t c = 0; c < expected.size(); ++c)
          worst = std::max(worst, std::fabs((*got)[c] - expected[c]) /
                                      std::max(1.0, std::fabs(expected[c])));
        auto top = [](const std::vector<double> &s) {
          return std::max_element(s.begin(), s.end()) - s.begin();
        };
        // The same pick unless two candidates tie to float rounding.
        if (top(*got) != top(expected)) {
          EXPECT_NEAR(expected[top(*got)], expected[top(expected)], 1e-5)
              << spec << " " << toString(kernel) << " free " << n;
        }
        ++problems;
        scores += expected.size();
      }
  }
  return worst;
}

std::string withPlainWeights(const Model &model) {
  std::string error;
  std::string bytes = model.serialize(&error);
  EXPECT_FALSE(bytes.empty()) << error;
  return bytes;
}

} // namespace

TEST(PlainModel, ScoresTheShippedModelsAsLibTorchDoes) {
  for (TargetKind target : {TargetKind::CPU, TargetKind::SPADE}) {
    // Both targets ship a model (cost-model/models), always embedded.
    EmbeddedModel shipped = embeddedReleaseModel(target);
    ASSERT_FALSE(shipped.empty()) << toString(target);
    std::string error;
    std::unique_ptr<Model> model = Model::loadFromBytes(
        std::string(shipped.bytes), std::string(shipped.name), error);
    ASSERT_TRUE(model) << error;
    llvm::Expected<std::unique_ptr<PlainModel>> plain =
        PlainModel::loadFromBytes(withPlainWeights(*model),
                                  std::string(shipped.name));
    ASSERT_TRUE(static_cast<bool>(plain)) << llvm::toString(plain.takeError());
    EXPECT_EQ((*plain)->info().trainedTargets, model->info().trainedTargets);
    size_t problems = 0, scores = 0;
    double worst = compare(*model, **plain, target, problems, scores);
    std::cout << shipped.name << ": " << scores << " scores on " << problems
              << " problems, largest difference " << worst
              << " (relative, of max(1, |score|))\n";
    EXPECT_LE(worst, 1e-5) << shipped.name;
  }
}

TEST(PlainModel, ScoresAblatedModelsAsLibTorchDoes) {
  // Every ablation changes the forward pass: zeroed common features, direct
  // knob layers instead of autoencoders, zeroed small images.
  ModelConfig config;
  config.noConfigMapper = config.noAutoencoder = config.singleScale = true;
  std::string error;
  std::unique_ptr<Model> model = Model::create(config, 3, &error);
  ASSERT_TRUE(model) << error;
  llvm::Expected<std::unique_ptr<PlainModel>> plain =
      PlainModel::loadFromBytes(withPlainWeights(*model), "ablated");
  ASSERT_TRUE(static_cast<bool>(plain)) << llvm::toString(plain.takeError());
  size_t problems = 0, scores = 0;
  EXPECT_LE(compare(*model, **plain, TargetKind::CPU, problems, scores), 1e-5);
  EXPECT_EQ(problems, matrixSpecs().size() * 7);
}

TEST(PlainModel, ScoresSpgemmModelsAsLibTorchDoes) {
  // A model created for SpGEMM lists its kernels in the file, keeps them on
  // loading, and both forward passes see the SpGEMM choices alike; a model
  // of the default kernels refuses SpGEMM candidates in both.
  ModelConfig config;
  config.kernels = modelKernelsFor({KernelType::SpGEMM});
  std::string error;
  std::unique_ptr<Model> model = Model::create(config, 5, &error);
  ASSERT_TRUE(model) << error;
  EXPECT_TRUE(model->hasKernel(KernelType::SpGEMM));
  std::string bytes = withPlainWeights(*model);
  std::unique_ptr<Model> back = Model::loadFromBytes(bytes, "spgemm.pt", error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->info().config.kernels, config.kernels);
  llvm::Expected<std::unique_ptr<PlainModel>> plain =
      PlainModel::loadFromBytes(bytes, "spgemm.pt");
  ASSERT_TRUE(static_cast<bool>(plain)) << llvm::toString(plain.takeError());
  EXPECT_TRUE((*plain)->hasKernel(KernelType::SpGEMM));

  std::vector<Schedule> candidates = test::cpuSpgemmKnobGrid();
  for (const std::string &spec : matrixSpecs()) {
    MatrixFeatures f = features(spec);
    std::vector<double> expected = back->score(f, candidates, 0, &error);
    ASSERT_EQ(expected.size(), candidates.size()) << error;
    llvm::Expected<std::vector<double>> got = (*plain)->score(f, candidates, 0);
    ASSERT_TRUE(static_cast<bool>(got)) << llvm::toString(got.takeError());
    for (size_t c = 0; c < expected.size(); ++c)
      EXPECT_NEAR((*got)[c], expected[c],
                  1e-5 * std::max(1.0, std::fabs(expected[c])));
    // Untrained, yet the choices reach the score: not all alike.
    EXPECT_NE(*std::min_element(expected.begin(), expected.end()),
              *std::max_element(expected.begin(), expected.end()));
  }

  std::unique_ptr<Model> plainKernels = Model::create(ModelConfig(), 5, &error);
  ASSERT_TRUE(plainKernels) << error;
  EXPECT_FALSE(plainKernels->hasKernel(KernelType::SpGEMM));
  MatrixFeatures f = features(matrixSpecs().front());
  EXPECT_TRUE(plainKernels->score(f, candidates, 0, &error).empty());
  EXPECT_NE(error.find("no feature for kernel 'spgemm' (built for spmm, "
                       "sddmm, spmv)"),
            std::string::npos)
      << error;
  llvm::Expected<std::unique_ptr<PlainModel>> defaultPlain =
      PlainModel::loadFromBytes(withPlainWeights(*plainKernels), "default.pt");
  ASSERT_TRUE(static_cast<bool>(defaultPlain))
      << llvm::toString(defaultPlain.takeError());
  llvm::Expected<std::vector<double>> refused =
      (*defaultPlain)->score(f, candidates, 0);
  ASSERT_FALSE(static_cast<bool>(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("kernel 'spgemm'"),
            std::string::npos);
}

TEST(PlainModel, RefusesAFileWithoutPlainWeights) {
  std::string error;
  std::unique_ptr<Model> model = Model::create(ModelConfig(), 1, &error);
  ASSERT_TRUE(model) << error;
  ModelFileContents file =
      cantFail(decodeModelFile(withPlainWeights(*model), "model", "m"));
  file.sections.erase(kPlainWeightsSection);
  llvm::Expected<std::unique_ptr<PlainModel>> plain = PlainModel::loadFromBytes(
      encodeModelFile("model", file.featureSpecHash, file.sections), "old.pt");
  ASSERT_FALSE(static_cast<bool>(plain));
  EXPECT_NE(llvm::toString(plain.takeError())
                .find("'old.pt' has no plain "
                      "weights"),
            std::string::npos);
}

TEST(PlainModel, RefusesBrokenPlainWeights) {
  std::string error;
  std::unique_ptr<Model> model = Model::create(ModelConfig(), 1, &error);
  ASSERT_TRUE(model) << error;
  ModelFileContents file =
      cantFail(decodeModelFile(withPlainWeights(*model), "model", "m"));
  PlainArrays arrays =
      cantFail(decodePlainWeights(file.sections.at(kPlainWeightsSection)));
  auto load = [&](const PlainArrays &changed) {
    ModelFileSections sections = file.sections;
    sections[kPlainWeightsSection] = encodePlainWeights(changed);
    llvm::Expected<std::unique_ptr<PlainModel>> plain =
        PlainModel::loadFromBytes(
            encodeModelFile("model", file.featureSpecHash, sections), "m.pt");
    return plain ? std::string() : llvm::toString(plain.takeError());
  };
  EXPECT_EQ(load(arrays), "");
  PlainArrays missing = arrays;
  missing.erase("p1.weight");
  EXPECT_EQ(load(missing), "'m.pt' lacks the weights 'p1.weight'");
  PlainArrays reshaped = arrays;
  reshaped["s2.bias"].shape = {
      1, static_cast<int64_t>(reshaped["s2.bias"].values.size())};
  EXPECT_EQ(load(reshaped), "'m.pt' has weights 's2.bias' of another shape "
                            "than its configuration implies");
  PlainArrays nan = arrays;
  nan["vec_std"].values[3] = std::nanf("");
  EXPECT_NE(load(nan).find("array 'vec_std' has a non-finite value"),
            std::string::npos);

  // The section itself: every truncation is an error, never a crash.
  std::string bytes = encodePlainWeights(arrays);
  for (size_t size : {size_t(0), size_t(10), size_t(25), size_t(30),
                      bytes.size() / 2, bytes.size() - 1}) {
    llvm::Expected<PlainArrays> cut = decodePlainWeights(bytes.substr(0, size));
    EXPECT_FALSE(static_cast<bool>(cut)) << size;
    llvm::consumeError(cut.takeError());
  }
  std::string newer = bytes;
  newer[21] = 2; // the version's low byte
  llvm::Expected<PlainArrays> other = decodePlainWeights(newer);
  ASSERT_FALSE(static_cast<bool>(other));
  EXPECT_EQ(llvm::toString(other.takeError()),
            "plain weights: layout version 2, this build reads 1");
  llvm::Expected<PlainArrays> trailing = decodePlainWeights(bytes + "x");
  ASSERT_FALSE(static_cast<bool>(trailing));
  EXPECT_EQ(llvm::toString(trailing.takeError()),
            "plain weights: 1 bytes after the last array");
}

TEST(PlainModel, UpgradeAddsThePlainWeightsOfAnOlderFile) {
  std::string error;
  std::unique_ptr<Model> model = Model::create(ModelConfig(), 2, &error);
  ASSERT_TRUE(model) << error;
  ModelFileContents file =
      cantFail(decodeModelFile(withPlainWeights(*model), "model", "m"));
  file.sections.erase(kPlainWeightsSection);
  std::string dir = testing::TempDir();
  std::string old = dir + "/sptune-plain-old.pt",
              upgraded = dir + "/sptune-plain-upgraded.pt";
  {
    std::ofstream out(old, std::ios::binary);
    out << encodeModelFile("model", file.featureSpecHash, file.sections);
  }
  llvm::Expected<std::unique_ptr<PlainModel>> before = PlainModel::load(old);
  ASSERT_FALSE(static_cast<bool>(before));
  EXPECT_NE(llvm::toString(before.takeError()).find("sptune-train --upgrade"),
            std::string::npos);

  TrainingRunOptions options;
  options.upgradeModel = old;
  EXPECT_EQ(llvm::toString(upgradeModelFile(options)),
            "--upgrade needs --out (the file to write)");
  options.outPath = upgraded;
  // Options that would shape a model are refused, not ignored.
  llvm::sys::fs::remove(upgraded);
  options.sharedKnobs = "row-order";
  EXPECT_EQ(llvm::toString(upgradeModelFile(options)),
            "--shared-knobs does not combine with --upgrade (an upgraded "
            "model keeps the configuration recorded in its file)");
  EXPECT_FALSE(llvm::sys::fs::exists(upgraded));
  options.sharedKnobs.clear();
  options.ablations = "single-scale";
  EXPECT_NE(llvm::toString(upgradeModelFile(options)).find("--ablate "),
            std::string::npos);
  options.ablations.clear();
  ASSERT_FALSE(static_cast<bool>(upgradeModelFile(options)));
  llvm::Expected<std::unique_ptr<PlainModel>> after =
      PlainModel::load(upgraded);
  ASSERT_TRUE(static_cast<bool>(after)) << llvm::toString(after.takeError());
  // The LibTorch sections are kept as they were.
  ModelFileContents written = cantFail(
      decodeModelFile(cantFail(readFileBytes(upgraded)), "model", upgraded));
  EXPECT_EQ(written.sections.at("config"), file.sections.at("config"));
  EXPECT_EQ(written.sections.at("weights"), file.sections.at("weights"));
}
