//===- CpuMeasureAsWrittenTest.cpp - The user's op is what is measured ----===//
//
// With KernelSpec::descriptor, the CPU measurer compiles the op the user
// wrote, not the canonical form of its kernel: an SpMM that reads B stored
// as N x K (B indexed (j, k)) is written, scheduled, run and checked as that
// op, with and without a schedule; the canonical SpMM reads a K x N B.
//
//===----------------------------------------------------------------------===//

#include "cpu/CpuMeasurer.h"

#include "sptune/Schedule/Schedule.h"
#include "sptune/Target/BenchModule.h"

#include "Support/DescriptorTesting.h"
#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

using namespace sptune;

namespace {
/// C(i, j) += A(i, k) * B(j, k): B is read as its transpose is stored.
KernelDescriptor spmmReadingBt() {
  using test::operand;
  using Kind = KernelOperand::Kind;
  // Sizes as the user's op has them; the measurer sizes them to the matrix.
  return test::descriptor({{"i", false, -1}, {"j", false, -1}, {"k", true, -1}},
                          {operand(Kind::Sparse, {0, 2}),
                           operand(Kind::Dense, {1, 2}),
                           operand(Kind::Output, {0, 1})},
                          KernelDescriptor::Body::MultiplyAccumulate);
}

CsrMatrix matrix() {
  CooMatrix coo;
  coo.rows = 40;
  coo.cols = 30;
  for (int r = 0; r < 40; ++r)
    for (int c = r % 3; c < 30; c += 4)
      coo.add(r, c, 0.25 + 0.01 * (r + c));
  return CsrMatrix::fromCoo(coo);
}
} // namespace

TEST(CpuMeasureAsWritten, TheBenchIsTheUsersOpSizedToTheMatrix) {
  KernelSpec spec;
  spec.kernel = KernelType::SpMM;
  spec.free = 8;
  spec.descriptor = spmmReadingBt();
  std::string text, error;
  ASSERT_TRUE(test::take(buildBenchModule(spec, 40, 30, csrEncodingText(),
                                          SddmmForm::SparseOutput),
                         text, error))
      << error;
  EXPECT_NE(text.find("affine_map<(i, j, k) -> (j, k)>"), std::string::npos)
      << text;
  EXPECT_NE(text.find("%in1: tensor<8x30xf32>"), std::string::npos) << text;
  // Without the descriptor: the canonical SpMM, B(k, j) of 30 x 8.
  spec.descriptor.reset();
  ASSERT_TRUE(test::take(buildBenchModule(spec, 40, 30, csrEncodingText(),
                                          SddmmForm::SparseOutput),
                         text, error))
      << error;
  EXPECT_NE(text.find("%in1: tensor<30x8xf32>"), std::string::npos) << text;
  // An op of another element type than the measurer feeds (f32 here) is
  // measured in the canonical form, not fed float bits as integers.
  KernelDescriptor integer = spmmReadingBt();
  for (KernelOperand &o : integer.operands)
    o.elementType = "i32";
  spec.descriptor = integer;
  ASSERT_TRUE(test::take(buildBenchModule(spec, 40, 30, csrEncodingText(),
                                          SddmmForm::SparseOutput),
                         text, error))
      << error;
  EXPECT_NE(text.find("%in1: tensor<30x8xf32>"), std::string::npos) << text;
}

TEST(CpuMeasureAsWritten, MeasuresAndChecksTheUsersOp) {
  CpuMeasurer measurer;
  CsrMatrix m = matrix();
  KernelSpec spec;
  spec.kernel = KernelType::SpMM;
  spec.free = 8;
  spec.descriptor = spmmReadingBt();
  MeasureOptions options;
  options.minSeconds = 0;
  options.minReps = 2;
  options.warmups = 1;
  Measurement upstream = measurer.measureUpstreamDefault(m, spec, options);
  EXPECT_TRUE(upstream.ok()) << upstream.reason;
  std::optional<Schedule> csr =
      llvm::expectedToOptional(parseSchedule("cpu spmm, parallel = outer"));
  ASSERT_TRUE(csr);
  Measurement scheduled = measurer.measure(m, spec, *csr, options);
  EXPECT_TRUE(scheduled.ok()) << scheduled.reason;
}
