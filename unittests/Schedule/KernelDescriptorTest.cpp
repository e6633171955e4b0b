//===- KernelDescriptorTest.cpp - Kernel shapes from descriptors ----------===//

#include "sptune/Schedule/KernelDescriptor.h"
#include "sptune/Schedule/KernelTypes.h"

#include "gtest/gtest.h"

using namespace sptune;

namespace {

using Kind = KernelOperand::Kind;
using Body = KernelDescriptor::Body;

KernelOperand operand(Kind kind, std::vector<unsigned> dims) {
  KernelOperand o;
  o.kind = kind;
  o.elementType = "f32";
  o.dims = std::move(dims);
  if (o.sparse())
    o.levels = std::vector<std::string>(o.dims.size(), "compressed");
  return o;
}

/// Loops named i, j, k, ... with the given reduction flags.
KernelDescriptor withLoops(std::vector<bool> reductions, Body body) {
  KernelDescriptor d;
  const char *names = "ijklm";
  for (size_t n = 0; n < reductions.size(); ++n)
    d.loops.push_back({std::string(1, names[n]), reductions[n], 8});
  d.body = body;
  return d;
}

TEST(KernelDescriptor, NamesTheShapesSptuneKnows) {
  // C(i,j) += A(i,k) B(k,j), A sparse.
  KernelDescriptor spmm = withLoops({false, false, true}, Body::MultiplyAccumulate);
  spmm.operands = {operand(Kind::Sparse, {0, 2}), operand(Kind::Dense, {2, 1}),
                   operand(Kind::Output, {0, 1})};
  EXPECT_EQ(spmm.shapeName(), "spmm");
  EXPECT_EQ(spmm.str(), "loops (i par 8, j par 8, k red 8); A(i, k) sparse "
                        "f32 [compressed, compressed], B(k, j) f32 -> C(i, j) "
                        "f32; multiply-accumulate");
  // Dense x sparse is an SpMM too.
  KernelDescriptor dxs = spmm;
  std::swap(dxs.operands[0].kind, dxs.operands[1].kind);
  EXPECT_EQ(dxs.shapeName(), "spmm");
  // Both inputs sparse: an SpGEMM.
  KernelDescriptor spgemm = spmm;
  spgemm.operands[1].kind = Kind::Sparse;
  spgemm.operands[2].kind = Kind::SparseOutput;
  EXPECT_EQ(spgemm.shapeName(), "spgemm");
  // y(i) += A(i,k) x(k).
  KernelDescriptor spmv = withLoops({false, true}, Body::MultiplyAccumulate);
  spmv.operands = {operand(Kind::Sparse, {0, 1}), operand(Kind::Dense, {1}),
                   operand(Kind::Output, {0})};
  EXPECT_EQ(spmv.shapeName(), "spmv");
  // SDDMM: S(i,j) sampled by the output itself (upstream's spy form), or a
  // third sparse input indexed like the output.
  KernelDescriptor spy =
      withLoops({false, false, true}, Body::SampledMultiplyAccumulate);
  spy.operands = {operand(Kind::Dense, {0, 2}), operand(Kind::Dense, {2, 1}),
                  operand(Kind::SparseOutput, {0, 1})};
  EXPECT_EQ(spy.shapeName(), "sddmm");
  KernelDescriptor sddmm =
      withLoops({false, false, true}, Body::MultiplyAccumulate);
  sddmm.operands = {operand(Kind::Sparse, {0, 1}), operand(Kind::Dense, {0, 2}),
                    operand(Kind::Dense, {2, 1}), operand(Kind::Output, {0, 1})};
  EXPECT_EQ(sddmm.shapeName(), "sddmm");
  // A sparse input not indexed like the output is no sampling.
  sddmm.operands[0].dims = {0, 2};
  EXPECT_EQ(sddmm.shapeName(), "");
  // MTTKRP: D(i,j) += X(i,k,l) B(k,j) C(l,j).
  KernelDescriptor mttkrp =
      withLoops({false, false, true, true}, Body::MultiplyAccumulate);
  mttkrp.operands = {operand(Kind::Sparse, {0, 2, 3}),
                     operand(Kind::Dense, {2, 1}), operand(Kind::Dense, {3, 1}),
                     operand(Kind::Output, {0, 1})};
  EXPECT_EQ(mttkrp.shapeName(), "mttkrp");
  // Batched SpMM: C(b,i,j) += A(b,i,k) B(b,k,j).
  KernelDescriptor batched =
      withLoops({false, false, false, true}, Body::MultiplyAccumulate);
  batched.operands = {operand(Kind::Sparse, {0, 1, 3}),
                      operand(Kind::Dense, {0, 3, 2}),
                      operand(Kind::Output, {0, 1, 2})};
  EXPECT_EQ(batched.shapeName(), "batched-spmm");
  // Sparse (.) dense, no reduction.
  KernelDescriptor ew = withLoops({false, false}, Body::ElementwiseProduct);
  ew.operands = {operand(Kind::Sparse, {0, 1}), operand(Kind::Dense, {0, 1}),
                 operand(Kind::Output, {0, 1})};
  EXPECT_EQ(ew.shapeName(), "sparse-elementwise");
}

TEST(KernelDescriptor, OtherBodiesAndShapesHaveNoName) {
  KernelDescriptor d = withLoops({false, false, true}, Body::Other);
  d.operands = {operand(Kind::Sparse, {0, 2}), operand(Kind::Dense, {2, 1}),
                operand(Kind::Output, {0, 1})};
  EXPECT_EQ(d.shapeName(), "");
  EXPECT_NE(d.str().find("; other"), std::string::npos);
  // Two reductions and two inputs: no known shape.
  KernelDescriptor two =
      withLoops({false, true, true}, Body::MultiplyAccumulate);
  two.operands = {operand(Kind::Sparse, {0, 1, 2}), operand(Kind::Dense, {1, 2}),
                  operand(Kind::Output, {0})};
  EXPECT_EQ(two.shapeName(), "");
  EXPECT_EQ(KernelDescriptor().shapeName(), "");
  // Dynamic sizes print as '?'.
  d.loops[0].size = -1;
  EXPECT_EQ(d.str().rfind("loops (i par ?, ", 0), 0u) << d.str();
}

} // namespace

TEST(KernelDescriptor, RoundTripsThroughJson) {
  KernelDescriptor mttkrp =
      withLoops({false, false, true, true}, Body::MultiplyAccumulate);
  mttkrp.operands = {operand(Kind::Sparse, {0, 2, 3}),
                     operand(Kind::Dense, {2, 1}), operand(Kind::Dense, {3, 1}),
                     operand(Kind::Output, {0, 1})};
  mttkrp.operands[0].levels = {"dense", "compressed(nonunique)", "singleton"};
  mttkrp.operands[0].posWidth = 32;
  mttkrp.operands[0].crdWidth = 16;
  mttkrp.loops[1].size = -1;
  KernelDescriptor sampled =
      withLoops({false, false, true}, Body::SampledMultiplyAccumulate);
  sampled.operands = {operand(Kind::Dense, {0, 2}),
                      operand(Kind::Dense, {2, 1}),
                      operand(Kind::SparseOutput, {0, 1})};
  KernelDescriptor scaled = sampled;
  scaled.scaled = true;
  for (const KernelDescriptor &d : {mttkrp, sampled, scaled}) {
    llvm::Expected<KernelDescriptor> back = descriptorFromJson(toJson(d));
    ASSERT_TRUE(!!back) << llvm::toString(back.takeError());
    EXPECT_EQ(back->str(), d.str());
    EXPECT_EQ(back->scaled, d.scaled);
    EXPECT_EQ(back->shapeName(), d.shapeName());
  }
  // A scale is part of the description, not of the shape.
  EXPECT_NE(scaled.str(), sampled.str());
  EXPECT_EQ(scaled.shapeName(), "sddmm");
  // "scaled" is written only when true, and must be a boolean.
  EXPECT_EQ(toJson(sampled).getAsObject()->get("scaled"), nullptr);
  llvm::json::Value notBool = toJson(scaled);
  (*notBool.getAsObject())["scaled"] = "yes";
  llvm::Expected<KernelDescriptor> refusedScale = descriptorFromJson(notBool);
  ASSERT_FALSE(!!refusedScale);
  EXPECT_NE(llvm::toString(refusedScale.takeError()).find("'scaled' must be"),
            std::string::npos);
  // A width MLIR has not, a level that is not a level name.
  llvm::json::Value bad = toJson(mttkrp);
  (*(*bad.getAsObject()->getArray("operands"))[0].getAsObject())["pos_width"] =
      12;
  llvm::Expected<KernelDescriptor> refused = descriptorFromJson(bad);
  ASSERT_FALSE(!!refused);
  EXPECT_NE(llvm::toString(refused.takeError()).find("a width other than"),
            std::string::npos);
  bad = toJson(mttkrp);
  (*(*bad.getAsObject()->getArray("operands"))[0].getAsObject())["levels"] =
      llvm::json::Array{"dense}>"};
  refused = descriptorFromJson(bad);
  ASSERT_FALSE(!!refused);
  EXPECT_NE(llvm::toString(refused.takeError()).find("bad level"),
            std::string::npos);
}

namespace {
KernelDescriptor elementwise(std::vector<Kind> kinds) {
  KernelDescriptor d = withLoops({false, false}, Body::ElementwiseProduct);
  for (Kind k : kinds)
    d.operands.push_back(operand(k, {0, 1}));
  return d;
}
} // namespace

TEST(KernelTypeForms, AProductMatchesWhateverTheOrderOfItsInputs) {
  // The sparse ⊙ dense product, as its form has it and with its inputs
  // swapped (dense ⊙ sparse, as an unfused sampled matmul writes it).
  for (auto kinds : {std::vector<Kind>{Kind::Sparse, Kind::Dense, Kind::Output},
                     std::vector<Kind>{Kind::Dense, Kind::Sparse, Kind::Output}}) {
    std::optional<KernelTypeMatch> m = matchKernelTypeByForm(elementwise(kinds));
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->type, KernelType::Hadamard);
    EXPECT_EQ(m->loopRoles, (std::vector<Role>{Role::I, Role::J}));
  }
  // Its loops transposed for one operand: no longer elementwise.
  KernelDescriptor transposed =
      elementwise({Kind::Dense, Kind::Sparse, Kind::Output});
  transposed.operands[0].dims = {1, 0};
  EXPECT_FALSE(matchKernelTypeByForm(transposed).has_value());
  // A sparse result is the same product stored like its sparse input.
  std::optional<KernelTypeMatch> intoSparse = matchKernelTypeByForm(
      elementwise({Kind::Dense, Kind::Sparse, Kind::SparseOutput}));
  ASSERT_TRUE(intoSparse.has_value());
  EXPECT_EQ(intoSparse->type, KernelType::Hadamard);
  // Only for an elementwise product: a multiply-accumulate's form keeps
  // its dense output.
  KernelDescriptor spmmIntoSparse = withLoops({false, false, true},
                                              Body::MultiplyAccumulate);
  spmmIntoSparse.operands = {operand(Kind::Sparse, {0, 2}),
                             operand(Kind::Dense, {2, 1}),
                             operand(Kind::SparseOutput, {0, 1})};
  EXPECT_FALSE(matchKernelTypeByForm(spmmIntoSparse).has_value());
  // Nor is a sum.
  KernelDescriptor other = elementwise({Kind::Sparse, Kind::Dense, Kind::Output});
  other.body = Body::Other;
  EXPECT_FALSE(matchKernelTypeByForm(other).has_value());
}
