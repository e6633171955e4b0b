//===- MatrixStatsTest.cpp - Structural statistics ------------------------===//

#include "sptune/Matrix/MatrixStats.h"

#include "sptune/Matrix/Generators.h"

#include "Support/ErrorTesting.h"
#include "TestUtil.h"
#include "gtest/gtest.h"

#include <cmath>
#include <set>
#include <utility>

using namespace sptune;

namespace {

using test::csrOf;

TEST(MatrixStats, HandComputed) {
  // x x . .
  // . x . .
  // . . . .
  // x . . x
  MatrixStats s =
      computeStats(csrOf(4, 4, {{0, 0}, {0, 1}, {1, 1}, {3, 0}, {3, 3}}));
  EXPECT_EQ(s.rows, 4);
  EXPECT_EQ(s.cols, 4);
  EXPECT_EQ(s.nnz, 5);
  EXPECT_DOUBLE_EQ(s.density, 5.0 / 16.0);
  // Row lengths 2 1 0 2.
  EXPECT_DOUBLE_EQ(s.rowMean, 1.25);
  EXPECT_NEAR(s.rowStd, std::sqrt(0.6875), 1e-12);
  EXPECT_EQ(s.rowMin, 0);
  EXPECT_EQ(s.rowMax, 2);
  EXPECT_EQ(s.emptyRows, 1);
  // Column lengths 2 2 0 1.
  EXPECT_DOUBLE_EQ(s.colMean, 1.25);
  EXPECT_NEAR(s.colStd, std::sqrt(0.6875), 1e-12);
  EXPECT_EQ(s.colMax, 2);
  EXPECT_EQ(s.emptyCols, 1);
  // |r - c|: 0 1 0 3 0.
  EXPECT_EQ(s.bandwidth, 3);
  EXPECT_DOUBLE_EQ(s.meanDiagDistance, 0.8);
  // 2x2 blocks: {(0,0),(0,1),(1,1)}, {(3,0)}, {(3,3)} -> 3 blocks.
  EXPECT_DOUBLE_EQ(s.blockFill[0], 5.0 / 12.0);
  EXPECT_DOUBLE_EQ(s.blockFill[1], 5.0 / 16.0);
  EXPECT_DOUBLE_EQ(s.blockFill[2], 5.0 / 64.0);
  EXPECT_DOUBLE_EQ(s.blockFill[3], 5.0 / 256.0);
}

TEST(MatrixStats, RectangularBlocks) {
  // 3 x 10: entries in column blocks 0 and 4 (2x2), one 4x4 block each side
  // of column 4.
  MatrixStats s = computeStats(csrOf(3, 10, {{0, 0}, {1, 1}, {2, 8}, {2, 9}}));
  EXPECT_EQ(s.rowMin, 1);
  EXPECT_EQ(s.emptyCols, 6);
  EXPECT_EQ(s.bandwidth, 7);
  EXPECT_DOUBLE_EQ(s.blockFill[0], 4.0 / (2 * 4));  // blocks (0,0), (1,4)
  EXPECT_DOUBLE_EQ(s.blockFill[1], 4.0 / (2 * 16)); // (0,0), (0,2)
  EXPECT_DOUBLE_EQ(s.blockFill[2], 4.0 / (2 * 64)); // (0,0), (0,1)
  EXPECT_DOUBLE_EQ(s.blockFill[3], 4.0 / 256);
}

TEST(MatrixStats, DenseIsPerfectlyBlocked) {
  CooMatrix m;
  m.rows = m.cols = 32;
  for (int32_t r = 0; r < 32; ++r)
    for (int32_t c = 0; c < 32; ++c)
      m.add(r, c, 1.0);
  MatrixStats s = computeStats(CsrMatrix::fromCoo(m));
  EXPECT_DOUBLE_EQ(s.density, 1.0);
  EXPECT_DOUBLE_EQ(s.rowStd, 0.0);
  for (double f : s.blockFill)
    EXPECT_DOUBLE_EQ(f, 1.0);
}

TEST(MatrixStats, EmptyMatrices) {
  for (auto [rows, cols] :
       {std::pair<int64_t, int64_t>{0, 0}, {3, 0}, {0, 3}, {5, 7}}) {
    MatrixStats s = computeStats(csrOf(rows, cols, {}));
    EXPECT_EQ(s.nnz, 0);
    EXPECT_EQ(s.density, 0.0);
    EXPECT_EQ(s.rowMin, 0);
    EXPECT_EQ(s.emptyRows, rows);
    EXPECT_EQ(s.emptyCols, cols);
    for (double f : s.blockFill)
      EXPECT_EQ(f, 0.0);
    std::string json = s.toJson();
    EXPECT_EQ(json.find("nan"), std::string::npos) << json;
  }
}

/// The one-pass block count against a set of block coordinates.
TEST(MatrixStats, BlockFillMatchesBruteForce) {
  for (const char *spec : {"gen:uniform:rows=1001,cols=777,nnz=20000,seed=5",
                           "gen:rmat:rows=1000,cols=999,nnz=8000,seed=5",
                           "gen:block:rows=999,cols=1003,nnz=9000,bs=3"}) {
    SCOPED_TRACE(spec);
    llvm::Expected<GenSpec> g = parseGenSpec(spec);
    ASSERT_TRUE(test::succeeded(g));
    llvm::Expected<CooMatrix> coo = generate(*g);
    ASSERT_TRUE(test::succeeded(coo));
    MatrixStats s = computeStats(CsrMatrix::fromCoo(*coo));
    for (size_t k = 0; k < MatrixStats::kBlockSizes.size(); ++k) {
      int b = MatrixStats::kBlockSizes[k];
      std::set<std::pair<int32_t, int32_t>> blocks;
      for (int64_t i = 0; i < coo->nnz(); ++i)
        blocks.insert({coo->rowIdx[i] / b, coo->colIdx[i] / b});
      EXPECT_DOUBLE_EQ(s.blockFill[k],
                       static_cast<double>(coo->nnz()) /
                           (static_cast<double>(blocks.size()) * b * b))
          << "b = " << b;
    }
  }
}

TEST(MatrixStats, Json) {
  MatrixStats s = computeStats(csrOf(2, 3, {{0, 0}, {1, 2}}));
  EXPECT_EQ(s.toJson(),
            "{\"rows\":2,\"cols\":3,\"nnz\":2,\"density\":0.3333333333333333,"
            "\"row_mean\":1,\"row_std\":0,\"row_min\":1,\"row_max\":1,"
            "\"empty_rows\":0,\"col_mean\":0.6666666666666666,"
            "\"col_std\":0.4714045207910317,\"col_max\":1,\"empty_cols\":1,"
            "\"bandwidth\":1,\"mean_diag_distance\":0.5,"
            "\"block_fill\":{\"2\":0.25,\"4\":0.125,\"8\":0.03125,"
            "\"16\":0.0078125}}");
}

/// `sptune-matrix stats` lines: columns under their headers, JSON that
/// escapes the id and adds the timings when asked.
TEST(MatrixStats, PrintedLines) {
  MatrixStats s = computeStats(csrOf(2, 3, {{0, 0}, {1, 2}}));
  std::string header = statsTableHeader(false), row = statsTableRow(s, "m", false, 0, 0);
  EXPECT_EQ(header.substr(header.size() - 5), "  id\n");
  EXPECT_EQ(row.substr(row.size() - 4), "  m\n");
  // Right-aligned columns: "rows" ends where the row count ends.
  EXPECT_EQ(header.find("rows") + 4, row.find("2 ") + 1);
  EXPECT_EQ(statsTableHeader(true).size(), header.size() + 20);
  EXPECT_NE(statsTableRow(s, "m", true, 1.5, 0.25).find("1.5000    0.2500"),
            std::string::npos);

  std::string json = statsJsonLine(s, "a\"b", "src\n", false, 0, 0);
  EXPECT_EQ(json.rfind("{\"id\":\"a\\\"b\",\"source\":\"src\\n\",\"rows\":2,", 0),
            0u)
      << json;
  EXPECT_EQ(json.back(), '\n');
  std::string timed = statsJsonLine(s, "m", "m", true, 1.5, 0.25);
  EXPECT_NE(timed.find(",\"load_s\":1.500000,\"stats_s\":0.250000}\n"),
            std::string::npos)
      << timed;
}

} // namespace
