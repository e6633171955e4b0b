//===- BenchInputsTest.cpp - Inputs and references from descriptors -------===//
//
// The generic reference (referenceOf) of the three scheduled kernels is the
// per-kernel reference of Reference.h to the bit, values and bounds, so the
// measurers check exactly what they checked before descriptors; the inputs
// follow the descriptor's operands, a transposed input is the same values
// stored transposed, and what cannot be prepared is refused.
//
//===----------------------------------------------------------------------===//

#include "sptune/Target/BenchInputs.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

using namespace sptune;

namespace {
CsrMatrix matrix() {
  CooMatrix coo;
  coo.rows = 7;
  coo.cols = 5;
  double v = 0.3;
  for (auto [r, c] : std::vector<std::pair<int, int>>{
           {0, 1}, {0, 4}, {2, 2}, {3, 0}, {5, 3}, {5, 4}, {6, 0}, {6, 2}})
    coo.add(r, c, v += 1.0 / 3.0); // not floats: f32 and f64 references differ
  return CsrMatrix::fromCoo(coo);
}

KernelSpec spec(KernelType kernel, int bits, bool transposedB = false) {
  KernelSpec s;
  s.kernel = kernel;
  s.free = 6;
  s.elementBits = bits;
  s.transposedB = transposedB;
  return s;
}

void expectSame(const ReferenceResult &got, const ReferenceResult &want) {
  ASSERT_EQ(got.values.size(), want.values.size());
  for (size_t n = 0; n < want.values.size(); ++n) {
    EXPECT_EQ(got.values[n], want.values[n]) << "#" << n;
    EXPECT_EQ(got.bounds[n], want.bounds[n]) << "#" << n;
  }
}
} // namespace

TEST(BenchInputsTest, TheGenericReferenceIsThePerKernelOneToTheBit) {
  CsrMatrix m = matrix();
  for (int bits : {32, 64}) {
    SCOPED_TRACE(bits);
    const int64_t n = 6;
    expectSame(referenceOf(benchDescriptor(spec(KernelType::SpMM, bits), m.rows,
                                           m.cols, SddmmForm::SparseOutput),
                           m, {denseInput(m.cols, n, 1)}, bits),
               referenceSpMM(m, denseInput(m.cols, n, 1), n, bits));
    expectSame(referenceOf(benchDescriptor(spec(KernelType::SpMV, bits), m.rows,
                                           m.cols, SddmmForm::SparseOutput),
                           m, {denseInput(1, m.cols, 1)}, bits),
               referenceSpMV(m, denseInput(m.cols, 1, 1), bits));
    std::vector<float> a = denseInput(m.rows, n, 2),
                       b = denseInput(n, m.cols, 3);
    expectSame(
        referenceOf(benchDescriptor(spec(KernelType::SDDMM, bits), m.rows,
                                    m.cols, SddmmForm::SparseOutput),
                    m, {a, b}, bits),
        referenceSDDMMChecksum(m, a, b, n, bits));
    // In place: the sampled product, every stored value read as 1.
    CsrMatrix ones = m;
    std::fill(ones.values.begin(), ones.values.end(), 1.0);
    expectSame(referenceOf(benchDescriptor(spec(KernelType::SDDMM, bits),
                                           m.rows, m.cols, SddmmForm::InPlace),
                           m, {a, b}, bits),
               referenceSDDMMChecksum(ones, a, b, n, bits));
  }
}

TEST(BenchInputsTest, InputsFollowTheOperandsAndTheirLayout) {
  CsrMatrix m = matrix();
  BenchInputs<double> plain, turned;
  KernelDescriptor d = benchDescriptor(spec(KernelType::SDDMM, 64), m.rows,
                                       m.cols, SddmmForm::SparseOutput);
  ASSERT_TRUE(test::succeeded(prepareBenchInputs(d, {}, m, plain)));
  ASSERT_TRUE(test::succeeded(prepareBenchInputs(d, {2}, m, turned)));
  // A (7 x 6) and B (6 x 5); a sparse output has no dense result buffer.
  ASSERT_EQ(plain.dense.size(), 2u);
  EXPECT_TRUE(plain.sparseOutput);
  EXPECT_EQ(plain.shapes[0], (std::vector<int64_t>{7, 6}));
  EXPECT_EQ(plain.shapes[1], (std::vector<int64_t>{6, 5}));
  EXPECT_EQ(turned.shapes[1], (std::vector<int64_t>{5, 6}));
  for (int64_t k = 0; k < 6; ++k)
    for (int64_t j = 0; j < 5; ++j)
      EXPECT_EQ(plain.dense[1][k * 5 + j], turned.dense[1][j * 6 + k]);
  EXPECT_EQ(plain.reference.values, turned.reference.values);
  EXPECT_EQ(plain.vals[0], m.values[0]);

  BenchInputs<float> spmm;
  ASSERT_TRUE(test::succeeded(
      prepareBenchInputs(benchDescriptor(spec(KernelType::SpMM, 32), m.rows,
                                         m.cols, SddmmForm::SparseOutput),
                         {}, m, spmm)));
  ASSERT_EQ(spmm.dense.size(), 2u); // B, then C (zeros)
  EXPECT_FALSE(spmm.sparseOutput);
  EXPECT_EQ(spmm.shapes[1], (std::vector<int64_t>{7, 6}));
  EXPECT_EQ(spmm.reference.values.size(), 42u);
  for (float c : spmm.dense[1])
    EXPECT_EQ(c, 0.0f);
}

TEST(BenchInputsTest, WhatCannotBePreparedIsRefused) {
  CsrMatrix m = matrix();
  BenchInputs<float> in;
  // A matrix of another shape than the kernel's sparse operand.
  KernelDescriptor other = benchDescriptor(spec(KernelType::SpMM, 32), 9,
                                           m.cols, SddmmForm::SparseOutput);
  std::string message;
  EXPECT_TRUE(takeErrorMessage(prepareBenchInputs(other, {}, m, in), message));
  EXPECT_NE(message.find("the matrix is 7 x 5"), std::string::npos) << message;
  // A dense operand no vector can hold.
  KernelDescriptor huge = benchDescriptor(spec(KernelType::SpMM, 32), m.rows,
                                          m.cols, SddmmForm::SparseOutput);
  huge.loops[1].size = int64_t(1) << 62;
  EXPECT_TRUE(takeErrorMessage(prepareBenchInputs(huge, {}, m, in), message));
  EXPECT_NE(message.find("too large"), std::string::npos) << message;
  // No sparse matrix at all.
  KernelDescriptor dense = other;
  dense.operands[0].kind = KernelOperand::Kind::Dense;
  EXPECT_TRUE(takeErrorMessage(prepareBenchInputs(dense, {}, m, in), message));
  EXPECT_NE(message.find("rank-2 sparse"), std::string::npos) << message;
}
