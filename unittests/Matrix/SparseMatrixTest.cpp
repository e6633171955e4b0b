//===- SparseMatrixTest.cpp - COO/CSR containers --------------------------===//

#include "sptune/Matrix/SparseMatrix.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

using namespace sptune;

namespace {

CooMatrix make(int64_t rows, int64_t cols,
               std::initializer_list<std::tuple<int32_t, int32_t, double>> e) {
  CooMatrix m;
  m.rows = rows;
  m.cols = cols;
  for (auto [r, c, v] : e)
    m.add(r, c, v);
  return m;
}

TEST(SparseMatrix, CanonicalizeSortsAndSumsDuplicates) {
  CooMatrix m = make(3, 3,
                     {{2, 1, 1.0},
                      {0, 2, 2.0},
                      {0, 0, 3.0},
                      {2, 1, 4.0},
                      {0, 2, -2.0},
                      {1, 1, 0.0}});
  EXPECT_FALSE(m.isCanonical());
  m.canonicalize();
  EXPECT_TRUE(m.isCanonical());
  ASSERT_EQ(m.nnz(), 4);
  EXPECT_EQ(m.rowIdx, (std::vector<int32_t>{0, 0, 1, 2}));
  EXPECT_EQ(m.colIdx, (std::vector<int32_t>{0, 2, 1, 1}));
  // (0, 2) sums to an explicit zero and (1, 1) is one: both stay stored.
  EXPECT_EQ(m.values, (std::vector<double>{3.0, 0.0, 0.0, 5.0}));
}

TEST(SparseMatrix, CanonicalizeOutOfRangeRowsFallsBackToSort) {
  // Rows beyond `rows` (an invalid matrix) must not crash canonicalize.
  CooMatrix m = make(1, 5, {{3, 1, 1.0}, {0, 4, 2.0}, {3, 1, 1.0}});
  m.canonicalize();
  EXPECT_EQ(m.rowIdx, (std::vector<int32_t>{0, 3}));
  EXPECT_EQ(m.values, (std::vector<double>{2.0, 2.0}));
  std::string error;
  EXPECT_FALSE(test::ok(m.verify(), error));
  EXPECT_NE(error.find("outside the 1 x 5 matrix"), std::string::npos) << error;
}

TEST(SparseMatrix, VerifyChecksLengths) {
  CooMatrix m = make(2, 2, {{0, 0, 1.0}});
  std::string error;
  EXPECT_TRUE(test::ok(m.verify(), error));
  m.values.push_back(2.0);
  EXPECT_FALSE(test::ok(m.verify(), error));
  EXPECT_NE(error.find("differ in length"), std::string::npos);
}

TEST(SparseMatrix, CsrFromCooAndBack) {
  CooMatrix m = make(
      4, 3, {{3, 2, 6.0}, {0, 1, 1.0}, {0, 0, 2.0}, {3, 0, 5.0}, {0, 1, 1.0}});
  CsrMatrix csr = CsrMatrix::fromCoo(m);
  EXPECT_EQ(csr.rows, 4);
  EXPECT_EQ(csr.cols, 3);
  EXPECT_EQ(csr.rowPtr, (std::vector<int64_t>{0, 2, 2, 2, 4}));
  EXPECT_EQ(csr.colIdx, (std::vector<int32_t>{0, 1, 0, 2}));
  EXPECT_EQ(csr.values, (std::vector<double>{2.0, 2.0, 5.0, 6.0}));
  EXPECT_EQ(csr.rowLength(0), 2);
  EXPECT_EQ(csr.rowLength(1), 0);

  CooMatrix back = csr.toCoo();
  EXPECT_EQ(back.rowIdx, (std::vector<int32_t>{0, 0, 3, 3}));
  EXPECT_EQ(back.colIdx, csr.colIdx);
  EXPECT_EQ(back.values, csr.values);

  // The rvalue overload gives the same matrix.
  CsrMatrix moved = CsrMatrix::fromCoo(CooMatrix(m));
  EXPECT_EQ(moved.rowPtr, csr.rowPtr);
  EXPECT_EQ(moved.colIdx, csr.colIdx);
  EXPECT_EQ(moved.values, csr.values);
}

TEST(SparseMatrix, Transposed) {
  CooMatrix m = make(2, 3, {{0, 2, 1.0}, {1, 0, 2.0}, {1, 2, 3.0}});
  CsrMatrix t = CsrMatrix::fromCoo(m).transposed();
  EXPECT_EQ(t.rows, 3);
  EXPECT_EQ(t.cols, 2);
  EXPECT_EQ(t.rowPtr, (std::vector<int64_t>{0, 1, 1, 3}));
  EXPECT_EQ(t.colIdx, (std::vector<int32_t>{1, 0, 1}));
  EXPECT_EQ(t.values, (std::vector<double>{2.0, 1.0, 3.0}));

  CsrMatrix tt = t.transposed();
  CsrMatrix orig = CsrMatrix::fromCoo(m);
  EXPECT_EQ(tt.rowPtr, orig.rowPtr);
  EXPECT_EQ(tt.colIdx, orig.colIdx);
  EXPECT_EQ(tt.values, orig.values);
}

TEST(SparseMatrix, EmptyMatrices) {
  CooMatrix m;
  m.rows = 3;
  m.cols = 0;
  CsrMatrix csr = CsrMatrix::fromCoo(m);
  EXPECT_EQ(csr.rowPtr, (std::vector<int64_t>{0, 0, 0, 0}));
  CsrMatrix t = csr.transposed();
  EXPECT_EQ(t.rows, 0);
  EXPECT_EQ(t.rowPtr, (std::vector<int64_t>{0}));
}

} // namespace
