//===- UnscheduledKernelsTest.cpp - The rule for kernels without a schedule
//===//
//
// The CPU target parallelizes a kernel without a schedule only when every
// loop the sparsifier may put outermost is parallel and indexes the dense
// output, and vectorizes it only when a parallel loop indexes no sparse
// operand (cpu/UnscheduledKernels.h). test/Pipelines/cpu-unscheduled-rule.mlir
// checks the lowered code; this checks the decisions and their reasons.
//
//===----------------------------------------------------------------------===//

#include "cpu/UnscheduledKernels.h"

#include "sptune/Target/JitBench.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <string>

namespace {

class UnscheduledKernelsTest : public ::testing::Test {
protected:
  UnscheduledKernelsTest()
      : ctx(sptune::createJitContext([](mlir::DialectRegistry &) {})) {}

  /// The rule for the one linalg op of `text`.
  mlir::sptune::UnscheduledKernelRule ruleOf(const std::string &text) {
    module = mlir::parseSourceString<mlir::ModuleOp>(text, ctx.get());
    EXPECT_TRUE(module) << text;
    mlir::sptune::UnscheduledKernelRule rule;
    int ops = 0;
    if (module)
      module->walk([&](mlir::linalg::LinalgOp op) {
        ++ops;
        rule = mlir::sptune::unscheduledKernelRule(op);
      });
    EXPECT_EQ(ops, 1) << text;
    return rule;
  }

  std::unique_ptr<mlir::MLIRContext> ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// A generic op over `loops` with the inputs' and output's maps and types.
std::string generic(const std::string &encodings, const std::string &maps,
                    const std::string &iterators, const std::string &ins,
                    const std::string &insTypes, const std::string &outType,
                    unsigned numInputs) {
  std::string args;
  for (unsigned n = 0; n <= numInputs; ++n)
    args += (n ? ", %a" : "%a") + std::to_string(n) + ": f64";
  return encodings + "\nfunc.func @f(" + ins + ", %out: " + outType + ") -> " +
         outType + " {\n  %r = linalg.generic {indexing_maps = [" + maps +
         "], iterator_types = [" + iterators + "]} ins(" +
         [&] {
           std::string names;
           for (unsigned n = 0; n < numInputs; ++n)
             names += (n ? ", %in" : "%in") + std::to_string(n);
           return names;
         }() +
         " : " + insTypes + ") outs(%out : " + outType + ") {\n  ^bb0(" + args +
         "):\n    linalg.yield %a0 : f64\n  } -> " + outType +
         "\n  return %r : " + outType + "\n}\n";
}

TEST_F(UnscheduledKernelsTest, MttkrpOnCsfIsParallelAndVectorized) {
  auto rule = ruleOf(generic(
      "#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, "
      "k : compressed, l : compressed) }>",
      "affine_map<(i, j, k, l) -> (i, k, l)>, affine_map<(i, j, k, l) -> (k, "
      "j)>, affine_map<(i, j, k, l) -> (l, j)>, affine_map<(i, j, k, l) -> "
      "(i, j)>",
      "\"parallel\", \"parallel\", \"reduction\", \"reduction\"",
      "%in0: tensor<?x?x?xf64, #CSF>, %in1: tensor<?x8xf64>, %in2: "
      "tensor<?x8xf64>",
      "tensor<?x?x?xf64, #CSF>, tensor<?x8xf64>, tensor<?x8xf64>",
      "tensor<?x8xf64>", 3));
  EXPECT_TRUE(rule.parallel) << rule.whyNotParallel;
  EXPECT_EQ(rule.vectorLength, 8u);
}

TEST_F(UnscheduledKernelsTest, SpmvOnCsrIsParallelButScalar) {
  // No loop indexes only dense operands: the innermost one is the sparse
  // row, which the rule leaves scalar.
  auto rule = ruleOf(generic(
      "#CSR = #sparse_tensor.encoding<{ map = (i, k) -> (i : dense, k : "
      "compressed) }>",
      "affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>, "
      "affine_map<(i, k) -> (i)>",
      "\"parallel\", \"reduction\"",
      "%in0: tensor<?x?xf64, #CSR>, %in1: tensor<?xf64>",
      "tensor<?x?xf64, #CSR>, tensor<?xf64>", "tensor<?xf64>", 2));
  EXPECT_TRUE(rule.parallel) << rule.whyNotParallel;
  EXPECT_EQ(rule.vectorLength, 0u);
}

TEST_F(UnscheduledKernelsTest, AReductionThatMayComeFirstIsSequential) {
  // SpMV on CSC: the column loop k holds level 0.
  auto rule = ruleOf(generic(
      "#CSC = #sparse_tensor.encoding<{ map = (i, k) -> (k : dense, i : "
      "compressed) }>",
      "affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>, "
      "affine_map<(i, k) -> (i)>",
      "\"parallel\", \"reduction\"",
      "%in0: tensor<?x?xf64, #CSC>, %in1: tensor<?xf64>",
      "tensor<?x?xf64, #CSC>, tensor<?xf64>", "tensor<?xf64>", 2));
  EXPECT_FALSE(rule.parallel);
  EXPECT_EQ(rule.vectorLength, 0u);
  EXPECT_NE(rule.whyNotParallel.find("loop d1, which may be put outermost, "
                                     "is a reduction"),
            std::string::npos)
      << rule.whyNotParallel;
  // A dense reduction no level orders may come first as well: the sum of
  // B(i, k) x(k) over a sparse vector of rows.
  rule = ruleOf(generic(
      "#SV = #sparse_tensor.encoding<{ map = (i) -> (i : compressed) }>",
      "affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i, k)>, "
      "affine_map<(i, k) -> (i)>",
      "\"parallel\", \"reduction\"",
      "%in0: tensor<?xf64, #SV>, %in1: tensor<?x?xf64>",
      "tensor<?xf64, #SV>, tensor<?x?xf64>", "tensor<?xf64>", 2));
  EXPECT_FALSE(rule.parallel);
  EXPECT_NE(rule.whyNotParallel.find("loop d1"), std::string::npos)
      << rule.whyNotParallel;
}

TEST_F(UnscheduledKernelsTest, ConflictingLevelOrdersAreSequential) {
  // y(i) = sum_j A(i, j) B(j, i), both CSR: A orders i before j, B j before
  // i. Upstream converts one operand and may put the reduction j first.
  auto rule = ruleOf(generic(
      "#CSR = #sparse_tensor.encoding<{ map = (i, k) -> (i : dense, k : "
      "compressed) }>",
      "affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>, "
      "affine_map<(i, j) -> (i)>",
      "\"parallel\", \"reduction\"",
      "%in0: tensor<8x8xf64, #CSR>, %in1: tensor<8x8xf64, #CSR>",
      "tensor<8x8xf64, #CSR>, tensor<8x8xf64, #CSR>", "tensor<8xf64>", 2));
  EXPECT_FALSE(rule.parallel);
  EXPECT_NE(rule.whyNotParallel.find("level orders conflict"),
            std::string::npos)
      << rule.whyNotParallel;
}

TEST_F(UnscheduledKernelsTest, ADenseInputUpstreamMayFuseIsSequential) {
  // X = S * T with T computed by a linalg op in the same function: the
  // sparsifier may fuse T's sum of products in and sort the loops anew.
  module = mlir::parseSourceString<mlir::ModuleOp>(
      "#CSR = #sparse_tensor.encoding<{ map = (i, k) -> (i : dense, k : "
      "compressed) }>\n"
      "func.func @f(%s: tensor<8x8xf64, #CSR>, %a: tensor<8x8xf64>, %b: "
      "tensor<8x8xf64>, %t0: tensor<8x8xf64>, %x: tensor<8x8xf64>) -> "
      "tensor<8x8xf64> {\n"
      "  %t = linalg.matmul ins(%a, %b : tensor<8x8xf64>, tensor<8x8xf64>) "
      "outs(%t0 : tensor<8x8xf64>) -> tensor<8x8xf64>\n"
      "  %r = linalg.mul ins(%s, %t : tensor<8x8xf64, #CSR>, "
      "tensor<8x8xf64>) outs(%x : tensor<8x8xf64>) -> tensor<8x8xf64>\n"
      "  return %r : tensor<8x8xf64>\n}\n",
      ctx.get());
  ASSERT_TRUE(module);
  mlir::sptune::UnscheduledKernelRule rule;
  module->walk([&](mlir::linalg::MulOp op) {
    rule = mlir::sptune::unscheduledKernelRule(
        mlir::cast<mlir::linalg::LinalgOp>(op.getOperation()));
  });
  EXPECT_FALSE(rule.parallel);
  EXPECT_NE(rule.whyNotParallel.find("upstream may fuse"), std::string::npos)
      << rule.whyNotParallel;
}

TEST_F(UnscheduledKernelsTest, AReductionKernelKeepsItsComputedInputs) {
  // SpMM of a B computed in the same function (multi-head attention's
  // H W): upstream fuses producers only into kernels of parallel loops.
  module = mlir::parseSourceString<mlir::ModuleOp>(
      "#CSR = #sparse_tensor.encoding<{ map = (i, k) -> (i : dense, k : "
      "compressed) }>\n"
      "func.func @f(%a: tensor<8x8xf64, #CSR>, %h: tensor<8x8xf64>, %w: "
      "tensor<8x8xf64>, %b0: tensor<8x8xf64>, %c: tensor<8x8xf64>) -> "
      "tensor<8x8xf64> {\n"
      "  %b = linalg.matmul ins(%h, %w : tensor<8x8xf64>, tensor<8x8xf64>) "
      "outs(%b0 : tensor<8x8xf64>) -> tensor<8x8xf64>\n"
      "  %r = linalg.matmul ins(%a, %b : tensor<8x8xf64, #CSR>, "
      "tensor<8x8xf64>) outs(%c : tensor<8x8xf64>) -> tensor<8x8xf64>\n"
      "  return %r : tensor<8x8xf64>\n}\n",
      ctx.get());
  ASSERT_TRUE(module);
  mlir::sptune::UnscheduledKernelRule rule;
  int sparseOps = 0;
  module->walk([&](mlir::linalg::MatmulOp op) {
    if (!mlir::sparse_tensor::getSparseTensorEncoding(
            op.getDpsInputs()[0].getType()))
      return;
    ++sparseOps;
    rule = mlir::sptune::unscheduledKernelRule(
        mlir::cast<mlir::linalg::LinalgOp>(op.getOperation()));
  });
  EXPECT_EQ(sparseOps, 1);
  EXPECT_TRUE(rule.parallel) << rule.whyNotParallel;
  EXPECT_EQ(rule.vectorLength, 8u);
}

TEST_F(UnscheduledKernelsTest, NoVectorsWhereTheDenseLoopIsNotInnermost) {
  // C(i, j) = sum_k A(i, k) B(j, k): j indexes no sparse operand but is
  // B's outer dimension; upstream puts the sparse k innermost.
  auto rule = ruleOf(generic(
      "#CSR = #sparse_tensor.encoding<{ map = (i, k) -> (i : dense, k : "
      "compressed) }>",
      "affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, "
      "affine_map<(i, j, k) -> (i, j)>",
      "\"parallel\", \"parallel\", \"reduction\"",
      "%in0: tensor<8x8xf64, #CSR>, %in1: tensor<16x8xf64>",
      "tensor<8x8xf64, #CSR>, tensor<16x8xf64>", "tensor<8x16xf64>", 2));
  EXPECT_TRUE(rule.parallel) << rule.whyNotParallel;
  EXPECT_EQ(rule.vectorLength, 0u);
}

TEST_F(UnscheduledKernelsTest, SparseOutputsBlocksAndAffineMapsAreSequential) {
  auto rule = ruleOf(generic(
      "#SV = #sparse_tensor.encoding<{ map = (i) -> (i : compressed) }>",
      "affine_map<(i) -> (i)>, affine_map<(i) -> (i)>", "\"parallel\"",
      "%in0: tensor<?xf64>", "tensor<?xf64>", "tensor<?xf64, #SV>", 1));
  EXPECT_FALSE(rule.parallel);
  EXPECT_NE(rule.whyNotParallel.find("output is sparse"), std::string::npos)
      << rule.whyNotParallel;

  rule = ruleOf(generic(
      "#BSR = #sparse_tensor.encoding<{ map = (i, j) -> (i floordiv 2 : "
      "dense, j floordiv 2 : compressed, i mod 2 : dense, j mod 2 : dense) "
      "}>",
      "affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>",
      "\"parallel\", \"parallel\"", "%in0: tensor<8x8xf64, #BSR>",
      "tensor<8x8xf64, #BSR>", "tensor<8x8xf64>", 1));
  EXPECT_FALSE(rule.parallel);
  EXPECT_NE(rule.whyNotParallel.find("stored in blocks"), std::string::npos)
      << rule.whyNotParallel;

  rule = ruleOf(generic(
      "#CSR = #sparse_tensor.encoding<{ map = (i, k) -> (i : dense, k : "
      "compressed) }>",
      "affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i + k)>",
      "\"parallel\", \"parallel\"", "%in0: tensor<8x8xf64, #CSR>",
      "tensor<8x8xf64, #CSR>", "tensor<16xf64>", 1));
  EXPECT_FALSE(rule.parallel);
  EXPECT_NE(rule.whyNotParallel.find("projected permutation"),
            std::string::npos)
      << rule.whyNotParallel;
}

} // namespace
