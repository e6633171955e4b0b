//===- TensorGeneratorsTest.cpp - Seeded synthetic 3-D tensors ------------===//

#include "sptune/Matrix/TensorGenerators.h"
#include "sptune/Matrix/TensorSource.h"
#include "sptune/Matrix/TensorStats.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

using namespace sptune;

namespace {

std::string parseError(const std::string &spec) {
  llvm::Expected<TensorGenSpec> s = parseTensorGenSpec(spec);
  if (s)
    return "";
  return llvm::toString(s.takeError());
}

TEST(TensorGeneratorsTest, SpecsPrintBackCanonically) {
  TensorGenSpec s =
      test::value(parseTensorGenSpec("gen3:powerlaw:nnz=100,dims=10x20x30"));
  EXPECT_EQ(s.kind, TensorGenKind::PowerLaw);
  EXPECT_EQ(s.dims, (std::array<int64_t, 3>{10, 20, 30}));
  EXPECT_EQ(s.str(), "gen3:powerlaw:dims=10x20x30,nnz=100,seed=1");
  EXPECT_EQ(test::value(parseTensorGenSpec(s.str())), s);
  EXPECT_TRUE(isTensorSource("gen3:uniform:dims=1x1x2,nnz=1"));
  EXPECT_TRUE(isTensorSource("/data/nell-2.tns"));
  EXPECT_FALSE(isTensorSource("gen:uniform:rows=4,nnz=2"));
  EXPECT_FALSE(isTensorSource("m.mtx"));
}

TEST(TensorGeneratorsTest, RejectsBadSpecs) {
  EXPECT_NE(parseError("gen:uniform:rows=4,nnz=2").find("expected 'gen3:"),
            std::string::npos);
  EXPECT_NE(
      parseError("gen3:zipf:dims=2x2x2,nnz=1").find("unknown kind 'zipf'"),
      std::string::npos);
  EXPECT_NE(parseError("gen3:uniform:dims=2x2,nnz=1").find("three sizes"),
            std::string::npos);
  EXPECT_NE(parseError("gen3:uniform:dims=2x2x2x2,nnz=1").find("three sizes"),
            std::string::npos);
  EXPECT_NE(parseError("gen3:uniform:dims=0x2x2,nnz=1").find("each size"),
            std::string::npos);
  EXPECT_NE(parseError("gen3:uniform:dims=2x2x2,nnz=5").find("exceeds half"),
            std::string::npos);
  EXPECT_NE(parseError("gen3:uniform:dims=2x2x2").find("missing key 'nnz'"),
            std::string::npos);
  EXPECT_NE(parseError("gen3:uniform:dims=2x2x2,nnz=1,nnz=1").find("twice"),
            std::string::npos);
  EXPECT_NE(parseError("gen3:uniform:dims=2x2x2,nnz=1,").find("stray"),
            std::string::npos);
  EXPECT_NE(
      parseError("gen3:uniform:dims=2x2x2,nnz=1,seed=-1").find("non-negative"),
      std::string::npos);
  EXPECT_NE(parseError("gen3:uniform:dims=134217728x134217728x1024,nnz=1")
                .find("2^62 cells"),
            std::string::npos);
  EXPECT_NE(
      parseError("gen3:uniform:dims=2x2x2,nnz=1,rows=3").find("unknown key"),
      std::string::npos);
}

TEST(TensorGeneratorsTest,
     GeneratesExactlyTheEntriesAskedForDeterministically) {
  for (const char *text :
       {"gen3:uniform:dims=50x40x30,nnz=3000,seed=7",
        "gen3:uniform:dims=4x4x4,nnz=32,seed=2", // selection sampling
        "gen3:powerlaw:dims=300x200x100,nnz=5000,seed=3"}) {
    TensorGenSpec spec = test::value(parseTensorGenSpec(text));
    CooTensor a = test::value(generateTensor(spec));
    CooTensor b = test::value(generateTensor(spec));
    EXPECT_EQ(a.nnz(), spec.nnz) << text;
    EXPECT_TRUE(a.isCanonical()) << text;
    EXPECT_TRUE(test::succeeded(a.verify())) << text;
    EXPECT_EQ(a.coords, b.coords) << text;
    EXPECT_EQ(a.values, b.values) << text;
    for (double v : a.values)
      ASSERT_TRUE(v > 0 && v <= 1) << text;
  }
  CooTensor other = test::value(generateTensor(test::value(
      parseTensorGenSpec("gen3:uniform:dims=50x40x30,nnz=3000,seed=8"))));
  CooTensor first = test::value(generateTensor(test::value(
      parseTensorGenSpec("gen3:uniform:dims=50x40x30,nnz=3000,seed=7"))));
  EXPECT_NE(first.coords, other.coords);
}

TEST(TensorGeneratorsTest, PowerLawConcentratesEntries) {
  const char *dims = "dims=2000x2000x2000,nnz=40000,seed=5";
  CooTensor uniform = test::value(generateTensor(
      test::value(parseTensorGenSpec(std::string("gen3:uniform:") + dims))));
  CooTensor skewed = test::value(generateTensor(
      test::value(parseTensorGenSpec(std::string("gen3:powerlaw:") + dims))));
  TensorStats u = computeTensorStats(uniform), p = computeTensorStats(skewed);
  // u^3 puts a fifth of the draws on the first 1/125 of each mode.
  EXPECT_GT(p.entriesPerSlice.max, 10 * u.entriesPerSlice.max);
  EXPECT_GT(p.entriesPerSlice.stddev, 10 * u.entriesPerSlice.stddev);
  EXPECT_GT(p.entriesPerFiber.mean, u.entriesPerFiber.mean);
}

TEST(TensorGeneratorsTest, LoadTensorNamesGeneratedTensorsBySpec) {
  CooTensor t;
  MatrixInfo info;
  ASSERT_TRUE(
      test::succeeded(loadTensor("gen3:uniform:nnz=10,dims=5x5x5", t, info)));
  EXPECT_EQ(info.id, "gen3:uniform:dims=5x5x5,nnz=10,seed=1");
  EXPECT_EQ(info.source, info.id);
  EXPECT_EQ(t.nnz(), 10);
  EXPECT_TRUE(test::failed(loadTensor("gen3:uniform:dims=5x5x5", t, info)));
  EXPECT_EQ(t.nnz(), 0);
}

} // namespace
