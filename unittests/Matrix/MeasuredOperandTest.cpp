//===- MeasuredOperandTest.cpp - The sparse operand a measurement names ---===//

#include "sptune/Matrix/MeasuredOperand.h"

#include "gtest/gtest.h"

using namespace sptune;

namespace {

/// Slice 0: fibers (0,0) of 3 entries and (0,2) of 1; slice 3: (3,1) of 2.
CooTensor threeFibers() {
  CooTensor t;
  t.dims = {4, 3, 5};
  t.add(0, 0, 0, 1);
  t.add(0, 0, 1, 2);
  t.add(0, 0, 4, 3);
  t.add(0, 2, 4, 4);
  t.add(3, 1, 0, 5);
  t.add(3, 1, 2, 6);
  return t;
}

TEST(MeasuredOperandTest, FiberMatrixHoldsEachFibersEntryCount) {
  CsrMatrix m = fiberMatrix(threeFibers());
  EXPECT_EQ(m.rows, 4);
  EXPECT_EQ(m.cols, 3);
  EXPECT_EQ(m.rowPtr, (std::vector<int64_t>{0, 2, 2, 2, 3}));
  EXPECT_EQ(m.colIdx, (std::vector<int32_t>{0, 2, 1}));
  EXPECT_EQ(m.values, (std::vector<double>{3, 1, 2}));
  CooTensor empty;
  empty.dims = {2, 2, 2};
  CsrMatrix none = fiberMatrix(empty);
  EXPECT_EQ(none.nnz(), 0);
  EXPECT_EQ(none.rowPtr, (std::vector<int64_t>{0, 0, 0}));
}

TEST(MeasuredOperandTest, HeuristicStatsCountATensorsEntries) {
  // The fiber matrix's statistics, with the tensor's 6 entries as nnz (its
  // 3 fibers are the fiber matrix's).
  MatrixStats stats = tensorHeuristicStats(threeFibers());
  EXPECT_EQ(stats.nnz, 6);
  EXPECT_EQ(stats.rows, 4);
  EXPECT_EQ(stats.cols, 3);
  EXPECT_EQ(stats.emptyRows, 2);
  MeasuredOperand tensor;
  tensor.tensor = threeFibers();
  tensor.matrix = fiberMatrix(*tensor.tensor);
  EXPECT_EQ(heuristicStats(tensor).nnz, 6);
  // A matrix's own statistics.
  MeasuredOperand matrix;
  matrix.matrix = fiberMatrix(threeFibers());
  EXPECT_EQ(heuristicStats(matrix).nnz, 3);
}

TEST(MeasuredOperandTest, TensorContentHashSeesSizesPatternAndValues) {
  CooTensor t = threeFibers();
  uint64_t h = tensorContentHash(t);
  EXPECT_EQ(h, tensorContentHash(threeFibers()));
  CooTensor other = threeFibers();
  other.values[2] = 7;
  EXPECT_NE(tensorContentHash(other), h);
  other = threeFibers();
  other.coords[2][1] = 3;
  EXPECT_NE(tensorContentHash(other), h);
  other = threeFibers();
  other.dims[2] = 6;
  EXPECT_NE(tensorContentHash(other), h);
}

TEST(MeasuredOperandTest, LoadsTensorsAndMatrices) {
  MeasuredOperand tensor;
  llvm::Error e =
      loadMeasuredOperand("gen3:uniform:dims=20x30x40,nnz=500,seed=3", tensor);
  ASSERT_FALSE(static_cast<bool>(e)) << llvm::toString(std::move(e));
  ASSERT_TRUE(tensor.isTensor());
  EXPECT_EQ(tensor.info.id, "gen3:uniform:dims=20x30x40,nnz=500,seed=3");
  EXPECT_EQ(tensor.rows, 20);
  EXPECT_EQ(tensor.cols, 30);
  EXPECT_EQ(tensor.nnz, 500);
  EXPECT_EQ(tensor.contentHash, tensorContentHash(*tensor.tensor));
  EXPECT_EQ(tensor.matrix.rows, 20);
  EXPECT_EQ(tensor.matrix.cols, 30);
  double entries = 0;
  for (double v : tensor.matrix.values)
    entries += v;
  EXPECT_EQ(entries, 500);

  MeasuredOperand matrix;
  e = loadMeasuredOperand("gen:uniform:rows=50,cols=40,nnz=300,seed=2", matrix);
  ASSERT_FALSE(static_cast<bool>(e)) << llvm::toString(std::move(e));
  EXPECT_FALSE(matrix.isTensor());
  EXPECT_EQ(matrix.rows, 50);
  EXPECT_EQ(matrix.cols, 40);
  EXPECT_EQ(matrix.nnz, 300);
  EXPECT_EQ(matrix.contentHash, contentHash(matrix.matrix));

  MeasuredOperand bad;
  e = loadMeasuredOperand("gen3:uniform:dims=20x30,nnz=5", bad);
  ASSERT_TRUE(static_cast<bool>(e));
  llvm::consumeError(std::move(e));
  EXPECT_FALSE(bad.isTensor());
  e = loadMeasuredOperand("/nonexistent/t.tns", bad);
  ASSERT_TRUE(static_cast<bool>(e));
  EXPECT_NE(llvm::toString(std::move(e)).find("/nonexistent/t.tns"),
            std::string::npos);
}

} // namespace
