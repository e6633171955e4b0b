//===- KernelFunctionTest.cpp - Descriptors written as linalg, read back --===//
//
// A descriptor printed as linalg (KernelFunction.h) and read back by the
// matcher (describeKernel) is the same descriptor: what the measurers compile
// is the kernel the descriptor describes, for every shape the descriptor
// names, not only the three sptune schedules. The bench modules built from
// descriptors parse, and have the entry points their outputs call for.
//
//===----------------------------------------------------------------------===//

#include "sptune/Target/BenchModule.h"
#include "sptune/Target/JitBench.h"
#include "sptune/Target/KernelFunction.h"

#include "sptune/Analysis/KernelMatcher.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "Support/DescriptorTesting.h"
#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

using namespace sptune;

namespace {
using Kind = KernelOperand::Kind;
using Body = KernelDescriptor::Body;

using test::descriptor;
using test::operand;

/// The #sparse_tensor.encoding of `o`'s levels, identity-mapped.
std::string encodingOf(const KernelOperand &o) {
  std::string dims, levels;
  for (size_t l = 0; l < o.levels.size(); ++l) {
    std::string d = "d" + std::to_string(l);
    dims += (l ? ", " : "") + d;
    levels += (l ? ", " : "") + d + " : " + o.levels[l];
  }
  return "#sparse_tensor.encoding<{ map = (" + dims + ") -> (" + levels +
         ") }>";
}

class KernelFunctionTest : public ::testing::Test {
protected:
  KernelFunctionTest()
      : ctx(createJitContext([](mlir::DialectRegistry &) {})) {}

  /// Prints `d`, parses it in a module defining !S, and describes the one
  /// linalg op found.
  KernelDescriptor roundTrip(const KernelDescriptor &d) {
    std::string fn;
    std::string error;
    EXPECT_TRUE(test::take(printKernelFunction(d), fn, error)) << error;
    const KernelOperand *sparse = nullptr;
    for (const KernelOperand &o : d.operands)
      if (o.sparse())
        sparse = &o;
    std::string shape;
    for (unsigned loop : sparse->dims)
      shape += std::to_string(d.loops[loop].size) + "x";
    std::string text = "!S = tensor<" + shape + sparse->elementType + ", " +
                       encodingOf(*sparse) + ">\nmodule {\n" + fn + "}\n";
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(text, ctx.get());
    EXPECT_TRUE(module) << text;
    KernelDescriptor back;
    if (!module)
      return back;
    int ops = 0;
    module->walk([&](mlir::linalg::GenericOp op) {
      ++ops;
      EXPECT_TRUE(test::take(mlir::sptune::describeKernel(op), back, error))
          << error;
    });
    EXPECT_EQ(ops, 1) << text;
    return back;
  }

  std::unique_ptr<mlir::MLIRContext> ctx;
};

KernelSpec spec(KernelType kernel, int bits = 32) {
  KernelSpec s;
  s.kernel = kernel;
  s.free = 8;
  s.elementBits = bits;
  return s;
}
} // namespace

TEST_F(KernelFunctionTest, TheScheduledKernelsReadBackAsWritten) {
  struct Case {
    KernelSpec spec;
    SddmmForm form;
    const char *shape;
  } cases[] = {
      {spec(KernelType::SpMM), SddmmForm::SparseOutput, "spmm"},
      {spec(KernelType::SpMV, 64), SddmmForm::SparseOutput, "spmv"},
      {spec(KernelType::SDDMM), SddmmForm::SparseOutput, "sddmm"},
      {spec(KernelType::SDDMM, 64), SddmmForm::InPlace, "sddmm"},
  };
  for (const Case &c : cases) {
    KernelDescriptor d = benchDescriptor(c.spec, 6, 5, c.form);
    KernelDescriptor back = roundTrip(d);
    EXPECT_EQ(back.str(), d.str());
    EXPECT_EQ(back.shapeName(), c.shape);
  }
}

TEST_F(KernelFunctionTest, ShapesSptuneDoesNotScheduleReadBackToo) {
  KernelDescriptor elementwise =
      descriptor({{"i", false, 4}, {"j", false, 6}},
                 {operand(Kind::Sparse, {0, 1}), operand(Kind::Dense, {0, 1}),
                  operand(Kind::SparseOutput, {0, 1})},
                 Body::ElementwiseProduct);
  KernelDescriptor mttkrp = descriptor(
      {{"i", false, 4}, {"j", false, 3}, {"k", true, 5}, {"l", true, 2}},
      {operand(Kind::Sparse, {0, 2, 3}), operand(Kind::Dense, {2, 1}),
       operand(Kind::Dense, {3, 1}), operand(Kind::Output, {0, 1})},
      Body::MultiplyAccumulate);
  KernelDescriptor batched = descriptor(
      {{"i", false, 2}, {"j", false, 4}, {"k", false, 3}, {"l", true, 5}},
      {operand(Kind::Sparse, {0, 1, 3}, "f64"),
       operand(Kind::Dense, {0, 3, 2}, "f64"),
       operand(Kind::Output, {0, 1, 2}, "f64")},
      Body::MultiplyAccumulate);
  for (auto [d, shape] :
       {std::pair{elementwise, "sparse-elementwise"},
        std::pair{mttkrp, "mttkrp"}, std::pair{batched, "batched-spmm"}}) {
    KernelDescriptor back = roundTrip(d);
    EXPECT_EQ(back.str(), d.str());
    EXPECT_EQ(back.shapeName(), shape);
  }
}

TEST_F(KernelFunctionTest, IntegerKernelsUseIntegerArithmetic) {
  KernelDescriptor d = descriptor({{"i", false, 3}, {"j", true, 4}},
                                  {operand(Kind::Sparse, {0, 1}, "i32"),
                                   operand(Kind::Dense, {1}, "i32"),
                                   operand(Kind::Output, {0}, "i32")},
                                  Body::MultiplyAccumulate);
  std::string fn, error;
  ASSERT_TRUE(test::take(printKernelFunction(d), fn, error)) << error;
  EXPECT_NE(fn.find("arith.muli"), std::string::npos);
  EXPECT_EQ(fn.find("arith.mulf"), std::string::npos);
  EXPECT_EQ(roundTrip(d).str(), d.str());
}

TEST_F(KernelFunctionTest, ATransposedInputIsTurnedBackBeforeTheProduct) {
  KernelDescriptor d =
      benchDescriptor(spec(KernelType::SDDMM), 6, 5, SddmmForm::SparseOutput);
  KernelFunctionOptions options;
  options.transposedInputs = {2};
  std::string fn, error;
  ASSERT_TRUE(test::take(printKernelFunction(d, options), fn, error)) << error;
  // B(k, j) is 8 x 5; the function takes B^T, 5 x 8.
  EXPECT_NE(fn.find("%in2: tensor<5x8xf32>"), std::string::npos) << fn;
  EXPECT_NE(fn.find("linalg.transpose ins(%in2 : tensor<5x8xf32>)"),
            std::string::npos)
      << fn;
}

TEST_F(KernelFunctionTest, WhatCannotBeWrittenIsRefusedWithTheReason) {
  KernelDescriptor spmm =
      benchDescriptor(spec(KernelType::SpMM), 6, 5, SddmmForm::SparseOutput);
  auto refusal = [](const KernelDescriptor &d,
                    const KernelFunctionOptions &options = {}) {
    std::string message;
    takeErrorMessage(printKernelFunction(d, options).takeError(), message);
    return message;
  };
  KernelDescriptor dynamic = spmm;
  dynamic.loops[1].size = -1;
  EXPECT_NE(refusal(dynamic).find("loop j has a dynamic size"),
            std::string::npos);
  KernelDescriptor other = spmm;
  other.body = Body::Other;
  EXPECT_NE(refusal(other).find("body"), std::string::npos);
  KernelDescriptor spgemm = spmm;
  spgemm.operands[1] = operand(Kind::Sparse, {2, 1});
  EXPECT_NE(refusal(spgemm).find("different shapes"), std::string::npos);
  KernelFunctionOptions transposeSparse;
  transposeSparse.transposedInputs = {0};
  EXPECT_NE(refusal(spmm, transposeSparse).find("operand #0"),
            std::string::npos);
  KernelDescriptor outOfRange = spmm;
  outOfRange.operands[1].dims = {2, 7};
  EXPECT_NE(refusal(outOfRange).find("indexes a loop it lacks"),
            std::string::npos);
}

TEST_F(KernelFunctionTest, BenchModulesHaveTheEntryPointsTheirOutputsNeed) {
  KernelDescriptor elementwise =
      descriptor({{"i", false, 4}, {"j", false, 6}},
                 {operand(Kind::Sparse, {0, 1}), operand(Kind::Dense, {0, 1}),
                  operand(Kind::SparseOutput, {0, 1})},
                 Body::ElementwiseProduct);
  KernelDescriptor spmv =
      benchDescriptor(spec(KernelType::SpMV), 4, 6, SddmmForm::SparseOutput);
  for (auto [d, check] :
       {std::pair{elementwise, true}, std::pair{spmv, false}}) {
    std::string text, error;
    ASSERT_TRUE(test::take(buildBenchModule(d, csrEncodingText()), text, error))
        << error;
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(text, ctx.get());
    ASSERT_TRUE(module) << text;
    EXPECT_TRUE(module->lookupSymbol<mlir::func::FuncOp>("kernel"));
    EXPECT_TRUE(module->lookupSymbol<mlir::func::FuncOp>("sptune_time"));
    EXPECT_EQ(static_cast<bool>(
                  module->lookupSymbol<mlir::func::FuncOp>("sptune_check")),
              check);
  }
  // A kernel without a sparse matrix has nothing to assemble.
  KernelDescriptor dense = spmv;
  dense.operands[0] = operand(Kind::Dense, {0, 1});
  std::string message;
  takeErrorMessage(buildBenchModule(dense, csrEncodingText()).takeError(),
                   message);
  EXPECT_NE(message.find("no rank-2 sparse operand"), std::string::npos);
}
