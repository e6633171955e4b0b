//===- MatrixSourceTest.cpp - loadMatrix from files and specs -------------===//

#include "sptune/Matrix/MatrixSource.h"

#include "sptune/Matrix/Generators.h"
#include "sptune/Matrix/MatrixMarket.h"

#include "TestUtil.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

#include <filesystem>

using namespace sptune;
using sptune::test::TempDir;

namespace {

TEST(MatrixSource, GeneratorSpecGetsCanonicalId) {
  CooMatrix m;
  MatrixInfo info;
  std::string error;
  ASSERT_TRUE(
      test::ok(loadMatrix("gen:banded:density=0.05,rows=100", m, info), error))
      << error;
  EXPECT_EQ(info.id, "gen:banded:rows=100,cols=100,nnz=500,bw=8,seed=1");
  EXPECT_EQ(info.source, info.id);
  EXPECT_EQ(m.nnz(), 500);

  // Loading the canonical id again gives the same matrix.
  CooMatrix again;
  MatrixInfo info2;
  ASSERT_TRUE(test::ok(loadMatrix(info.id, again, info2), error)) << error;
  EXPECT_EQ(info2.id, info.id);
  EXPECT_EQ(again.colIdx, m.colIdx);
  EXPECT_EQ(again.values, m.values);
}

TEST(MatrixSource, FileGetsStemAndAbsolutePath) {
  TempDir dir;
  std::string path =
      dir.write("small_one.mtx", "%%MatrixMarket matrix coordinate real "
                                 "general\n2 2 1\n2 1 5\n");
  CooMatrix m;
  MatrixInfo info;
  std::string error;
  ASSERT_TRUE(test::ok(loadMatrix(path, m, info), error)) << error;
  EXPECT_EQ(info.id, "small_one");
  EXPECT_TRUE(std::filesystem::path(info.source).is_absolute());
  EXPECT_EQ(std::filesystem::path(info.source).filename(), "small_one.mtx");
  EXPECT_EQ(m.nnz(), 1);
}

TEST(MatrixSource, GenerateWriteLoad) {
  TempDir dir;
  GenSpec spec;
  std::string error;
  ASSERT_TRUE(test::take(parseGenSpec("gen:rmat:rows=500,nnz=3000,seed=9"),
                         spec, error));
  CooMatrix generated;
  ASSERT_TRUE(test::take(generate(spec), generated, error)) << error;
  std::string path = dir.file("rmat.mtx");
  ASSERT_TRUE(test::ok(writeMatrixMarket(path, generated), error)) << error;
  CooMatrix loaded;
  MatrixInfo info;
  ASSERT_TRUE(test::ok(loadMatrix(path, loaded, info), error)) << error;
  EXPECT_EQ(loaded.rowIdx, generated.rowIdx);
  EXPECT_EQ(loaded.colIdx, generated.colIdx);
  EXPECT_EQ(loaded.values, generated.values);
}

TEST(MatrixSource, Errors) {
  TempDir dir;
  CooMatrix m;
  MatrixInfo info;
  std::string error;
  EXPECT_FALSE(test::ok(loadMatrix("gen:nope:rows=1", m, info), error));
  EXPECT_NE(error.find("unknown kind 'nope'"), std::string::npos) << error;

  std::string bad = dir.write("bad.mtx", "%%MatrixMarket matrix coordinate "
                                         "real general\n2 2 1\n3 1 1\n");
  EXPECT_FALSE(test::ok(loadMatrix(bad, m, info), error));
  EXPECT_EQ(error.rfind(bad + ":3: row index '3' out of range", 0), 0u)
      << error;
  EXPECT_EQ(m.nnz(), 0);
  EXPECT_TRUE(info.id.empty());

  EXPECT_FALSE(test::ok(loadMatrix(dir.file("missing.mtx"), m, info), error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
}

} // namespace
