//===- TensorBenchTest.cpp - The bench of a kernel on a 3-D tensor -------===//
//
// The tensor bench of an MTTKRP and of a batched SpMM (TensorBench.h): its
// descriptor (the user's op sized to the tensor, or the canonical one), the
// tensor's encoding, the module's entry points and conversion, and the
// reference its result is checked against.
//
//===----------------------------------------------------------------------===//

#include "sptune/Target/TensorBench.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

using namespace sptune;

namespace {

/// A spec of `kernel` with `free` columns (the rank, N) of `bits`.
KernelSpec tensorSpec(KernelType kernel, int64_t free, int bits) {
  KernelSpec spec;
  spec.kernel = kernel;
  spec.free = free;
  spec.elementBits = bits;
  return spec;
}

KernelSpec mttkrpSpec(int64_t rank, int bits) {
  return tensorSpec(KernelType::MTTKRP, rank, bits);
}

TEST(TensorBench, CanonicalDescriptorIsCsfSizedToTheTensor) {
  KernelDescriptor d = tensorBenchDescriptor(mttkrpSpec(8, 64), {3, 4, 5});
  EXPECT_EQ(d.shapeName(), "mttkrp");
  ASSERT_EQ(d.loops.size(), 4u);
  EXPECT_EQ(d.loops[0].size, 3);
  EXPECT_EQ(d.loops[1].size, 8);
  EXPECT_EQ(d.loops[2].size, 4);
  EXPECT_EQ(d.loops[3].size, 5);
  EXPECT_EQ(d.operands[0].elementType, "f64");
  EXPECT_EQ(tensorBenchEncoding(d),
            "#sparse_tensor.encoding<{ map = (d0, d1, d2) -> (d0 : "
            "compressed, d1 : compressed, d2 : compressed) }>");
}

TEST(TensorBench, TheUsersOpKeepsItsStorageAndOperandOrder) {
  KernelSpec spec = mttkrpSpec(4, 32);
  KernelDescriptor user = tensorBenchDescriptor(mttkrpSpec(16, 32), {9, 9, 9});
  // D first, then B in 32-bit COO, then C.
  std::swap(user.operands[0], user.operands[2]);
  std::swap(user.operands[1], user.operands[2]);
  user.operands[1].levels = {"compressed(nonunique)", "singleton(nonunique)",
                             "singleton"};
  user.operands[1].posWidth = user.operands[1].crdWidth = 32;
  spec.descriptor = user;
  KernelDescriptor d = tensorBenchDescriptor(spec, {3, 4, 5});
  EXPECT_TRUE(d.operands[1].sparse());
  EXPECT_EQ(d.loops[0].size, 3);
  EXPECT_EQ(d.loops[1].size, 4); // the rank
  EXPECT_EQ(tensorBenchEncoding(d),
            "#sparse_tensor.encoding<{ map = (d0, d1, d2) -> (d0 : "
            "compressed(nonunique), d1 : singleton(nonunique), d2 : "
            "singleton), posWidth = 32, crdWidth = 32 }>");
  std::string text = test::value(buildTensorBenchModule(d));
  EXPECT_NE(text.find("sparse_tensor.convert %coo : !COO to !S"),
            std::string::npos);
  EXPECT_NE(text.find("func.call @kernel(%d0, %s, %d2)"), std::string::npos)
      << text;
  // A user's op of another element type: the canonical one.
  spec.elementBits = 64;
  EXPECT_EQ(
      tensorBenchDescriptor(spec, {3, 4, 5}).operands[0].levels,
      (std::vector<std::string>{"compressed", "compressed", "compressed"}));
}

TEST(TensorBench, ModuleTimesFreshResultsAndChecksOne) {
  KernelDescriptor d = tensorBenchDescriptor(mttkrpSpec(8, 64), {3, 4, 5});
  std::string text = test::value(buildTensorBenchModule(d));
  for (const char *piece :
       {"func.func @sptune_time(%pos: memref<?xindex>, %crd: "
        "memref<?x3xindex>, %vals: memref<?xf64>",
        "func.func @sptune_check(", "sparse_tensor.assemble (%tp, %tc), %tv",
        "%fresh = linalg.fill", "bufferization.dealloc_tensor %a",
        "bufferization.materialize_in_destination %a in restrict writable "
        "%out : (tensor<3x8xf64>, memref<3x8xf64>) -> ()\n    "
        "bufferization.dealloc_tensor %a",
        "bufferization.dealloc_tensor %s : !S"})
    EXPECT_NE(text.find(piece), std::string::npos) << piece << "\n" << text;
  // B stored as the assembled COO: no conversion, nothing of the caller's
  // freed.
  d.operands[0].levels = {"compressed(nonunique)", "singleton(nonunique)",
                          "singleton"};
  text = test::value(buildTensorBenchModule(d));
  EXPECT_NE(text.find("%s = tensor.cast %coo"), std::string::npos);
  EXPECT_EQ(text.find("dealloc_tensor %s"), std::string::npos);
  // Not an MTTKRP.
  d.operands.pop_back();
  std::string message;
  std::string unused;
  EXPECT_FALSE(test::take(buildTensorBenchModule(d), unused, message));
  EXPECT_NE(message.find("a tensor bench measures MTTKRPs and batched SpMMs"),
            std::string::npos)
      << message;
}

TEST(TensorBench, ReferenceSumsEachSlicesTerms) {
  CooTensor b;
  b.dims = {2, 2, 3};
  b.add(0, 1, 2, 2.0);
  b.add(0, 0, 0, -1.0);
  b.add(1, 1, 1, 0.5);
  b.canonicalize();
  TensorBenchInputs<double> in;
  prepareTensorBenchInputs(b, KernelType::MTTKRP, 2, in);
  EXPECT_EQ(in.pos, (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(in.crd, (std::vector<int64_t>{0, 0, 0, 0, 1, 2, 1, 1, 1}));
  ASSERT_EQ(in.reference.values.size(), 4u);
  for (int64_t j = 0; j < 2; ++j) {
    const AlignedVector<double> &c = in.dense[0], &d = in.dense[1];
    double a0 =
        -1.0 * c[0 * 2 + j] * d[0 * 2 + j] + 2.0 * c[1 * 2 + j] * d[2 * 2 + j];
    double a1 = 0.5 * c[1 * 2 + j] * d[1 * 2 + j];
    EXPECT_DOUBLE_EQ(in.reference.values[j], a0);
    EXPECT_DOUBLE_EQ(in.reference.values[2 + j], a1);
    EXPECT_GT(in.reference.bounds[j], 0.0);
  }
  EXPECT_EQ(in.out.size(), 4u);
}

KernelSpec batchedSpec(int64_t n, int bits) {
  return tensorSpec(KernelType::BatchedSpMM, n, bits);
}

TEST(TensorBench, BatchedSpmmIsDenseBatchesOfCsrRows) {
  KernelDescriptor d = tensorBenchDescriptor(batchedSpec(8, 32), {2, 3, 4});
  EXPECT_EQ(d.shapeName(), "batched-spmm");
  ASSERT_EQ(d.loops.size(), 4u);
  EXPECT_EQ(d.loops[0].size, 2); // b
  EXPECT_EQ(d.loops[1].size, 3); // i
  EXPECT_EQ(d.loops[2].size, 8); // j: N
  EXPECT_EQ(d.loops[3].size, 4); // k
  EXPECT_TRUE(d.loops[3].reduction);
  EXPECT_EQ(tensorBenchEncoding(d),
            "#sparse_tensor.encoding<{ map = (d0, d1, d2) -> (d0 : dense, d1 "
            ": dense, d2 : compressed) }>");
  std::string text = test::value(buildTensorBenchModule(d));
  for (const char *piece : {"%buf1: memref<2x4x8xf32>, %times: memref<?xf64>",
                            "%buf1: memref<2x4x8xf32>, %out: memref<2x3x8xf32>",
                            "func.call @kernel(%s, %d1)",
                            "sparse_tensor.convert %coo : !COO to !S"})
    EXPECT_NE(text.find(piece), std::string::npos) << piece << "\n" << text;

  // The user's op (B first, A in COO) keeps its order and storage; its N
  // is the spec's.
  KernelSpec spec = batchedSpec(16, 32);
  KernelDescriptor user = tensorBenchDescriptor(batchedSpec(4, 32), {9, 9, 9});
  std::swap(user.operands[0], user.operands[1]);
  user.operands[1].levels = {"compressed(nonunique)", "singleton(nonunique)",
                             "singleton"};
  spec.descriptor = user;
  d = tensorBenchDescriptor(spec, {2, 3, 4});
  EXPECT_TRUE(d.operands[1].sparse());
  EXPECT_EQ(d.loops[2].size, 16);
  EXPECT_EQ(d.loops[3].size, 4);
  text = test::value(buildTensorBenchModule(d));
  EXPECT_NE(text.find("func.call @kernel(%d0, %s)"), std::string::npos) << text;
  EXPECT_NE(text.find("%s = tensor.cast %coo"), std::string::npos);
}

TEST(TensorBench, BatchedReferenceSumsEachRowsTerms) {
  // Two batches of 2 x 3 matrices: A(0, 1, 2) = 2, A(0, 1, 0) = -1,
  // A(1, 0, 1) = 0.5.
  CooTensor a;
  a.dims = {2, 2, 3};
  a.add(0, 1, 2, 2.0);
  a.add(0, 1, 0, -1.0);
  a.add(1, 0, 1, 0.5);
  a.canonicalize();
  TensorBenchInputs<double> in;
  prepareTensorBenchInputs(a, KernelType::BatchedSpMM, 2, in);
  ASSERT_EQ(in.dense.size(), 1u);
  const AlignedVector<double> &b = in.dense[0]; // B(b, k, j) at (b 3 + k) 2 + j
  ASSERT_EQ(b.size(), 12u);
  ASSERT_EQ(in.out.size(), 8u);
  ASSERT_EQ(in.reference.values.size(), 8u);
  for (int64_t j = 0; j < 2; ++j) {
    // C(0, 1, j), C(1, 0, j); the other rows are zero.
    double c01 = -1.0 * b[(0 * 3 + 0) * 2 + j] + 2.0 * b[(0 * 3 + 2) * 2 + j];
    double c10 = 0.5 * b[(1 * 3 + 1) * 2 + j];
    EXPECT_DOUBLE_EQ(in.reference.values[(0 * 2 + 1) * 2 + j], c01);
    EXPECT_DOUBLE_EQ(in.reference.values[(1 * 2 + 0) * 2 + j], c10);
    EXPECT_DOUBLE_EQ(in.reference.values[(0 * 2 + 0) * 2 + j], 0.0);
    EXPECT_DOUBLE_EQ(in.reference.values[(1 * 2 + 1) * 2 + j], 0.0);
    EXPECT_GT(in.reference.bounds[(0 * 2 + 1) * 2 + j], 0.0);
  }
}

} // namespace
