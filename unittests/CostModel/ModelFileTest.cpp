//===- ModelFileTest.cpp - Model encoding, save/load and file errors ------===//

#include "sptune/CostModel/ModelFile.h"
#include "cpu/CpuKnobs.h"
#include "sptune/CostModel/ConfigurationMapper.h"
#include "sptune/CostModel/FeatureSpec.h"
#include "sptune/CostModel/Model.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

#include <cstdio>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <cstring>
#include <map>

using namespace sptune;

namespace {
MatrixFeatures bandedFeatures(int rows, int band) {
  CooMatrix coo;
  coo.rows = coo.cols = rows;
  for (int r = 0; r < rows; ++r)
    for (int c = std::max(0, r - band); c <= std::min(rows - 1, r + band); ++c)
      coo.add(r, c, 1.0);
  return featurize(CsrMatrix::fromCoo(coo));
}

std::vector<Schedule> someSchedules() {
  std::vector<Schedule> out = {
      Schedule::csr(TargetKind::CPU, KernelType::SpMM),
      Schedule::dcsr(TargetKind::CPU, KernelType::SpMM),
      Schedule::bsr(TargetKind::CPU, KernelType::SpMM, 4, 4)};
  for (const Schedule &s :
       sampleKnobSettings(TargetKind::CPU, KernelType::SpMM, 20, 5))
    out.push_back(s);
  return out;
}

std::string tempPath(const std::string &name) {
  return testing::TempDir() + "/sptune-modelfile-" + name;
}

/// Offsets in the container header.
constexpr size_t kVersionAt = 8, kSpecAt = 12, kChecksumAt = 28,
                 kPayloadAt = 36;

void putU64(std::string &bytes, size_t at, uint64_t v) {
  for (int b = 0; b < 8; ++b)
    bytes[at + b] = static_cast<char>((v >> (8 * b)) & 0xff);
}

/// Recomputes the checksum after an edit, so only the edited field is wrong.
/// The layout of a new model: cpu, nvvm, spade.
const FeatureLayout &layout() {
  static const FeatureLayout l = FeatureLayout::ofRegisteredTargets();
  return l;
}

/// A model file of the built-in targets' feature specification.
std::string encode(std::string_view kind, const ModelFileSections &sections) {
  return encodeModelFile(kind, featureSpecHash(layout()), sections);
}

void reseal(std::string &bytes) {
  std::string_view checked(bytes.data() + kVersionAt, 12);
  std::string_view payload(bytes.data() + kPayloadAt,
                           bytes.size() - kPayloadAt);
  putU64(bytes, kChecksumAt, fnv1a64(payload, fnv1a64(checked)));
}
} // namespace

TEST(ModelTest, SameSeedSameWeights) {
  auto a = Model::create(ModelConfig(), 3);
  auto b = Model::create(ModelConfig(), 3);
  auto c = Model::create(ModelConfig(), 4);
  EXPECT_EQ(a->weightHash(), b->weightHash());
  EXPECT_NE(a->weightHash(), c->weightHash());
  EXPECT_GT(a->parameterCount(), 10000u);
  // A few MB at most.
  EXPECT_LT(a->serialize().size(), 2u << 20);
}

TEST(ModelTest, ScheduleCodesHaveOneWidthForAllTargets) {
  auto m = Model::create(ModelConfig(), 1);
  size_t width = layout().commonSize() + ModelConfig().latent;
  for (TargetKind t : layout().targets())
    for (KernelType k : {KernelType::SpMM, KernelType::SDDMM, KernelType::SpMV})
      EXPECT_EQ(m->scheduleCode(Schedule::csr(t, k), 64).size(), width);
}

TEST(ModelTest, DistinctSchedulesGetDistinctCodes) {
  auto m = Model::create(ModelConfig(), 1);
  std::map<std::vector<float>, std::string> seen;
  for (TargetKind t : layout().targets())
    for (const Schedule &s : sampleKnobSettings(t, KernelType::SpMM, 300, 9)) {
      std::vector<float> code = m->scheduleCode(s, 64);
      auto [it, inserted] = seen.emplace(code, s.str());
      EXPECT_TRUE(inserted || it->second == s.str())
          << s.str() << " collides with " << it->second;
    }
  EXPECT_GT(seen.size(), 100u);
}

TEST(ModelTest, EquivalentSchedulesGetEqualCodes) {
  auto m = Model::create(ModelConfig(), 1);
  Schedule a = Schedule::csr(TargetKind::SPADE, KernelType::SpMM);
  Schedule b = Schedule::dcsr(TargetKind::SPADE, KernelType::SpMM);
  cpuKnobs(b).threads = 4; // SPADE ignores CPU knobs and MLIR levels
  ASSERT_EQ(canonicalize(a), canonicalize(b));
  EXPECT_EQ(m->scheduleCode(a, 64), m->scheduleCode(b, 64));
}

TEST(ModelTest, ScoresDependOnMatrixAndSchedule) {
  auto m = Model::create(ModelConfig(), 1);
  std::vector<Schedule> s = someSchedules();
  std::vector<double> narrow = m->score(bandedFeatures(300, 1), s, 64);
  std::vector<double> wide = m->score(bandedFeatures(300, 40), s, 64);
  ASSERT_EQ(narrow.size(), s.size());
  EXPECT_NE(narrow, wide);
  EXPECT_NE(narrow[0], narrow[1]);
  // Batched scoring equals one-at-a-time scoring.
  for (size_t n = 0; n < s.size(); n += 7)
    EXPECT_NEAR(m->score(bandedFeatures(300, 1), {s[n]}, 64)[0], narrow[n],
                1e-5);
  std::string error;
  EXPECT_TRUE(m->score(MatrixFeatures(), s, 64, &error).empty());
  EXPECT_NE(error.find("wrong sizes"), std::string::npos);
}

TEST(ModelTest, CreateReportsLibTorchErrors) {
  // LibTorch throws building a layer of negative width; the model reports
  // it instead of letting the exception out.
  ModelConfig bad;
  bad.embedding = -1;
  std::string error;
  EXPECT_FALSE(Model::create(bad, 1, &error));
  EXPECT_NE(error.find("creating the model failed: "), std::string::npos)
      << error;
  EXPECT_NE(error.find("negative dimension"), std::string::npos) << error;
  // No backtrace in the message.
  EXPECT_EQ(error.find("frame #"), std::string::npos) << error;
  EXPECT_FALSE(Model::create(bad, 1)); // without an error argument too
  // The failure left no lock held nor state behind.
  auto a = Model::create(ModelConfig(), 3, &error);
  auto b = Model::create(ModelConfig(), 3);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->weightHash(), b->weightHash());
}

TEST(ModelTest, ScoringReportsLibTorchErrors) {
  auto m = Model::create(ModelConfig(), 1);
  ASSERT_TRUE(m);
  MatrixFeatures f = bandedFeatures(100, 2);
  std::vector<Schedule> mixed = {
      Schedule::csr(TargetKind::CPU, KernelType::SpMM),
      Schedule::csr(TargetKind::SPADE, KernelType::SpMM)};
  std::string error;
  ASSERT_EQ(m->score(f, mixed, 64, &error).size(), 2u) << error;
  // A configuration that no longer matches the network (ModelInfo is
  // writable): gathering the latent codes of two targets fails in LibTorch.
  m->info().config.latent += 1;
  EXPECT_TRUE(m->score(f, mixed, 64, &error).empty());
  EXPECT_NE(error.find("scoring the candidates failed: "), std::string::npos)
      << error;
  EXPECT_TRUE(m->score(f, mixed, 64).empty());
}

TEST(ModelTest, EmbeddingsAndCodesReportErrors) {
  auto m = Model::create(ModelConfig(), 1);
  ASSERT_TRUE(m);
  std::string error;
  EXPECT_TRUE(m->matrixEmbedding(MatrixFeatures(), &error).empty());
  EXPECT_NE(error.find("wrong sizes"), std::string::npos) << error;
  error.clear();
  EXPECT_EQ(m->matrixEmbedding(bandedFeatures(100, 2), &error).size(),
            static_cast<size_t>(ModelConfig().embedding));
  EXPECT_EQ(m->scheduleCode(Schedule::csr(TargetKind::CPU, KernelType::SpMM),
                            64, &error)
                .size(),
            layout().commonSize() + ModelConfig().latent);
  EXPECT_GT(m->parameterCount(&error), 0u);
  EXPECT_NE(m->weightHash(&error), 0u);
  EXPECT_FALSE(m->serialize(&error).empty());
  EXPECT_TRUE(m->clone(&error));
  EXPECT_TRUE(setModelThreads(1, &error));
  EXPECT_TRUE(error.empty()) << error;
}

TEST(ModelFileTest, SaveLoadRoundTrip) {
  auto m = Model::create(ModelConfig(), 5);
  m->markTrained(TargetKind::CPU);
  m->info().calibrated = true;
  m->info().provenance = "{\"note\": \"test\"}";
  std::string path = tempPath("roundtrip.pt"), error;
  ASSERT_TRUE(m->save(path, error)) << error;
  auto loaded = Model::load(path, error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(loaded->weightHash(), m->weightHash());
  EXPECT_TRUE(loaded->isTrainedFor(TargetKind::CPU));
  EXPECT_FALSE(loaded->isTrainedFor(TargetKind::SPADE));
  EXPECT_TRUE(loaded->info().calibrated);
  EXPECT_EQ(loaded->info().provenance, m->info().provenance);
  MatrixFeatures f = bandedFeatures(200, 3);
  EXPECT_EQ(loaded->score(f, someSchedules(), 32),
            m->score(f, someSchedules(), 32));
  EXPECT_EQ(m->clone()->weightHash(), m->weightHash());
  std::remove(path.c_str());
}

/// Saving over something that is not a regular file (a FIFO; a device like
/// /dev/full where mknod is permitted) is refused and leaves the node: the
/// rename of the temporary file replaced /dev/full as root (issue 35).
TEST(ModelFileTest, SaveRefusesNodes) {
  auto m = Model::create(ModelConfig(), 5);
  std::string fifo = tempPath("fifo"), device = tempPath("full"), error;
  std::remove(fifo.c_str());
  std::remove(device.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::vector<std::pair<std::string, mode_t>> nodes = {{fifo, S_IFIFO}};
  if (::mknod(device.c_str(), S_IFCHR | 0600, makedev(1, 7)) == 0)
    nodes.push_back({device, S_IFCHR});
  for (const auto &[path, type] : nodes) {
    EXPECT_FALSE(m->save(path, error)) << path;
    EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
    struct stat st;
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & S_IFMT, type) << path << " was replaced";
    std::remove(path.c_str());
  }
}

TEST(ModelFileTest, OtherArchitecturesRoundTrip) {
  ModelConfig c;
  c.embedding = 32;
  c.latent = 3;
  c.hidden = 48;
  auto m = Model::create(c, 2);
  std::string error;
  auto loaded = Model::loadFromBytes(m->serialize(), "small", error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(loaded->info().config.embedding, 32);
  EXPECT_EQ(loaded->weightHash(), m->weightHash());
}

TEST(ModelFileTest, SharedKnobsRoundTrip) {
  ModelConfig c;
  c.sharedKnobs = {"row-order"};
  auto m = Model::create(c, 3);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->info().config.sharedKnobs, c.sharedKnobs);
  std::string error;
  auto loaded = Model::loadFromBytes(m->serialize(), "shared", error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(loaded->info().config.sharedKnobs, c.sharedKnobs);
  EXPECT_EQ(loaded->weightHash(), m->weightHash());
  // A file without the key (every model built before it) has none.
  auto plain = Model::loadFromBytes(
      Model::create(ModelConfig(), 3)->serialize(), "plain", error);
  ASSERT_TRUE(plain) << error;
  EXPECT_TRUE(plain->info().config.sharedKnobs.empty());
  // An unknown shared knob is a clear error at creation.
  ModelConfig bad;
  bad.sharedKnobs = {"bypass"};
  error.clear();
  EXPECT_FALSE(Model::create(bad, 3, &error));
  EXPECT_NE(error.find("'bypass' is not a knob targets share"),
            std::string::npos)
      << error;
}

TEST(ModelFileTest, ClearErrors) {
  auto m = Model::create(ModelConfig(), 5);
  const std::string good = m->serialize();
  std::string error;
  auto expectError = [&](const std::string &bytes, const char *needle) {
    error.clear();
    EXPECT_FALSE(Model::loadFromBytes(bytes, "f.pt", error)) << needle;
    EXPECT_NE(error.find(needle), std::string::npos)
        << "expected '" << needle << "' in: " << error;
    EXPECT_NE(error.find("f.pt"), std::string::npos) << error;
  };

  expectError("", "not a sptune cost model file");
  expectError("hello, I am a text file", "not a sptune cost model file");
  expectError(good.substr(0, 10), "truncated");
  expectError(good.substr(0, good.size() - 100), "truncated");
  expectError(good + "trailing", "corrupt");

  std::string version = good;
  version[kVersionAt] = 99;
  expectError(version, "format version 99");

  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x5a;
  expectError(flipped, "checksum");

  std::string spec = good;
  putU64(spec, kSpecAt, featureSpecHash(layout()) ^ 1);
  reseal(spec);
  expectError(spec, "different feature specification");

  // A checkpoint is not a model.
  expectError(encode("checkpoint", {}), "checkpoint file");

  // Well-formed container, broken contents.
  expectError(encode("model", {{"config", "{}"}}), "lacks");
  expectError(encode("model", {{"config", "not json"}, {"weights", ""}}),
              "bad configuration");
  ModelFileContents decoded;
  ASSERT_TRUE(test::succeeded(
      decodeModelFile(good, "model", "good").moveInto(decoded)));
  const ModelFileSections &sections = decoded.sections;
  ModelFileSections garbage = sections;
  garbage["weights"] = "PK\x03\x04 definitely not a zip archive";
  expectError(encode("model", garbage), "unreadable weights");
  ModelFileSections resized = sections;
  std::string &config = resized["config"];
  config.replace(config.find("\"embedding\":64"), 14, "\"embedding\":32");
  expectError(encode("model", resized), "another shape");
  ModelFileSections huge = sections;
  huge["config"].replace(huge["config"].find("\"hidden\":128"), 12,
                         "\"hidden\":99999999");
  expectError(encode("model", huge), "out of range");

  // A kernel list no model can have, repeated, empty or not a list: the
  // feature specification cannot be built, said before the weights are
  // read.
  for (auto [kernels, why] : std::vector<std::pair<const char *, const char *>>{
           {"[\"spmm\",\"hadamard\"]",
            "kernel 'hadamard' has no model features"},
           {"[\"spmm\",\"spmm\"]", "kernel 'spmm' is listed twice"},
           {"[]", "'kernels' is not a non-empty list"},
           {"7", "'kernels' is not a non-empty list"},
           {"[7]", "'kernels' holds a non-string"}}) {
    ModelFileSections listed = sections;
    std::string &c = listed["config"];
    c.insert(c.rfind('}'), std::string(",\"kernels\":") + kernels);
    expectError(encode("model", listed), why);
  }

  EXPECT_FALSE(Model::load(tempPath("does-not-exist.pt"), error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
}
