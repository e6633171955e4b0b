//===- ProductShapeTest.cpp - What a kernel type computes -----------------===//
//
// productShape reads a kernel type's shape off its properties: the built-in
// types have theirs, a type added with one of their forms has it too, and
// any other form is Other. A binary of its own: the types it adds stay
// registered for the rest of the process.
//
//===----------------------------------------------------------------------===//

#include "sptune/Schedule/KernelDescriptor.h"
#include "sptune/Schedule/KernelTypes.h"

#include "Support/ToyKernel.h"
#include "gtest/gtest.h"

using namespace sptune;

namespace {

using Kind = KernelOperand::Kind;
using Body = KernelDescriptor::Body;

constexpr auto operand = test::formOperand;

/// Loops i, j, k (by role), k a reduction when `reduces`.
KernelDescriptor form(size_t loops, bool reduces, Body body,
                      std::vector<KernelOperand> operands) {
  KernelDescriptor d;
  const char *names[] = {"i", "j", "k"};
  for (size_t n = 0; n < loops; ++n)
    d.loops.push_back({names[n], reduces && n == 2, -1});
  if (loops == 2 && reduces) // SpMV's loops are i and k
    d.loops = {{"i", false, -1}, {"k", true, -1}};
  d.operands = std::move(operands);
  d.body = body;
  return d;
}

ProductShape shapeOfAdded(const std::string &name, const KernelDescriptor &d) {
  llvm::Expected<KernelType> k = addKernelType(name, d);
  if (!k) {
    ADD_FAILURE() << llvm::toString(k.takeError());
    return ProductShape::Other;
  }
  return productShape(*k);
}

TEST(ProductShape, BuiltInTypesHaveTheirs) {
  EXPECT_EQ(productShape(*parseKernelType("spmm")), ProductShape::MatrixMatrix);
  EXPECT_EQ(productShape(*parseKernelType("sddmm")),
            ProductShape::SampledMatrixMatrix);
  EXPECT_EQ(productShape(*parseKernelType("spmv")), ProductShape::MatrixVector);
  EXPECT_EQ(productShape(*parseKernelType("hadamard")),
            ProductShape::Elementwise);
  for (const char *name : {"spmm", "sddmm", "spmv"})
    EXPECT_TRUE(hasMatrixProductShape(*parseKernelType(name))) << name;
  EXPECT_FALSE(hasMatrixProductShape(*parseKernelType("hadamard")));
  // SpGEMM's second sparse input is no dense operand a library baseline or
  // a simulator could be handed.
  EXPECT_EQ(productShape(KernelType::SpGEMM), ProductShape::Other);
  EXPECT_EQ(parseKernelType("spgemm"), KernelType::SpGEMM);
  EXPECT_TRUE(isBuiltinKernelType(KernelType::SpGEMM));
  // MTTKRP's sparse operand is a 3-D tensor.
  EXPECT_EQ(productShape(KernelType::MTTKRP), ProductShape::Other);
  EXPECT_EQ(parseKernelType("mttkrp"), KernelType::MTTKRP);
  EXPECT_TRUE(isBuiltinKernelType(KernelType::MTTKRP));
  EXPECT_FALSE(hasMatrixProductShape(KernelType::MTTKRP));
  // So is the batched SpMM's; the batch loop is the role `b`.
  EXPECT_EQ(productShape(KernelType::BatchedSpMM), ProductShape::Other);
  EXPECT_EQ(parseKernelType("batched_spmm"), KernelType::BatchedSpMM);
  EXPECT_TRUE(isBuiltinKernelType(KernelType::BatchedSpMM));
  EXPECT_FALSE(hasMatrixProductShape(KernelType::BatchedSpMM));
  EXPECT_EQ(parseRole("b"), Role::B);
  EXPECT_STREQ(toString(Role::B), "b");
  for (KernelType k :
       {KernelType::SpGEMM, KernelType::MTTKRP, KernelType::BatchedSpMM})
    EXPECT_TRUE(keepsOperandStorage(k)) << toString(k);
  for (KernelType k : {KernelType::SpMM, KernelType::SDDMM, KernelType::SpMV,
                       KernelType::Hadamard})
    EXPECT_FALSE(keepsOperandStorage(k)) << toString(k);
}

TEST(ProductShape, AddedTypesOfTheFormsHaveThem) {
  // C(i,j) += B(k,j) * A(i,k), the dense input first: an SpMM all the same.
  KernelDescriptor spmm =
      form(3, true, Body::MultiplyAccumulate,
           {operand(Kind::Dense, {2, 1}), operand(Kind::Sparse, {0, 2}),
            operand(Kind::Output, {0, 1})});
  EXPECT_EQ(shapeOfAdded("my_spmm", spmm), ProductShape::MatrixMatrix);
  // y(i) += A(i,k) * x(k).
  KernelDescriptor spmv =
      form(2, true, Body::MultiplyAccumulate,
           {operand(Kind::Sparse, {0, 1}), operand(Kind::Dense, {1}),
            operand(Kind::Output, {0})});
  EXPECT_EQ(shapeOfAdded("my_spmv", spmv), ProductShape::MatrixVector);
}

TEST(ProductShape, OtherFormsAreOther) {
  // C(i,j) += A(i,k) * B(j,k): SpMM's roles, but B transposed — a library's
  // SpMM would read B the wrong way round.
  KernelDescriptor transposed =
      form(3, true, Body::MultiplyAccumulate,
           {operand(Kind::Sparse, {0, 2}), operand(Kind::Dense, {1, 2}),
            operand(Kind::Output, {0, 1})});
  EXPECT_EQ(shapeOfAdded("spmm_bt", transposed), ProductShape::Other);
  // C(i,j) += A(i,k) * B(k,j) * d(k): a third input.
  KernelDescriptor scaled =
      form(3, true, Body::MultiplyAccumulate,
           {operand(Kind::Sparse, {0, 2}), operand(Kind::Dense, {2, 1}),
            operand(Kind::Dense, {2}), operand(Kind::Output, {0, 1})});
  EXPECT_EQ(shapeOfAdded("spmm_scaled", scaled), ProductShape::Other);
  // y(i) += A(i,k) * x(i): SpMV's roles, but the vector read along the rows
  // (a row scaling summed) — no SpMV library computes it.
  KernelDescriptor rowVector =
      form(2, true, Body::MultiplyAccumulate,
           {operand(Kind::Sparse, {0, 1}), operand(Kind::Dense, {0}),
            operand(Kind::Output, {0})});
  EXPECT_EQ(shapeOfAdded("row_sum_scaled", rowVector), ProductShape::Other);
  // O(k,j) += S(i,j) * A(i,k): dense operands oriented like SDDMM's A and B,
  // but a form's output is dense — never the sampled product.
  KernelDescriptor notSampled =
      form(3, true, Body::MultiplyAccumulate,
           {operand(Kind::Sparse, {0, 1}), operand(Kind::Dense, {0, 2}),
            operand(Kind::Output, {2, 1})});
  llvm::Expected<KernelType> added = addKernelType("not_sddmm", notSampled);
  if (added)
    EXPECT_EQ(productShape(*added), ProductShape::Other);
  else
    llvm::consumeError(added.takeError()); // refused outright: fine too
  // C(i,j) = A(i,j) * x(j): the toy kernel, an elementwise product with a
  // vector.
  EXPECT_EQ(shapeOfAdded("colscale", test::columnScaleForm()),
            ProductShape::Other);
  EXPECT_FALSE(hasMatrixProductShape(*parseKernelType("colscale")));
}

} // namespace
