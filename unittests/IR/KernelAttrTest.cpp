//===- KernelAttrTest.cpp - #sptune.kernel round trips and verification ---===//

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::sptune;

namespace {
class KernelAttrTest : public ::testing::Test {
protected:
  KernelAttrTest() {
    ctx.loadDialect<SptuneDialect, sparse_tensor::SparseTensorDialect>();
  }
  Attribute parse(StringRef text) { return parseAttribute(text, &ctx); }
  MLIRContext ctx;
};

constexpr const char *kCSR =
    "#sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : "
    "compressed) }>";
} // namespace

TEST_F(KernelAttrTest, RoundTripsThroughText) {
  std::string text = std::string("#sptune.kernel<spmm, loops = [i : 8, j : ?, "
                                 "k : 4], operands = [sparse(i, k), "
                                 "dense(j, k), out(i, j)], type = f32, "
                                 "encoding = ") +
                     kCSR + ">";
  auto attr = dyn_cast_or_null<KernelAttr>(parse(text));
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getKind(), KernelKind::SpMM);
  EXPECT_EQ(attr.getLoopSize(LoopRole::J), ShapedType::kDynamic);
  EXPECT_EQ(attr.getLoopSize(LoopRole::K), 4);
  EXPECT_EQ(attr.getLoopPosition(LoopRole::K), 2);
  EXPECT_EQ(attr.getSparseOperand(), 0u);
  SmallVector<LoopRole> dense = attr.getOperandRoles(1);
  ASSERT_EQ(dense.size(), 2u);
  EXPECT_EQ(dense[0], LoopRole::J);

  std::string printed;
  llvm::raw_string_ostream os(printed);
  os << attr;
  EXPECT_EQ(parse(printed), attr) << printed;
}

TEST_F(KernelAttrTest, SparseOnTheRightKeepsOperandOrder) {
  auto attr = dyn_cast_or_null<KernelAttr>(parse(
      std::string("#sptune.kernel<spmm, loops = [j : 8, i : 8, k : 8], "
                  "operands = [dense(j, k), sparse(k, i), out(j, i)], "
                  "type = f64, encoding = ") +
      kCSR + ">"));
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getSparseOperand(), 1u);
}

TEST_F(KernelAttrTest, VerifierRejectsMissingRole) {
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  EXPECT_FALSE(parse(std::string("#sptune.kernel<spmm, loops = [i : 8, k : 8],"
                                 " operands = [sparse(i, k), dense(k), "
                                 "out(i)], type = f64, encoding = ") +
                     kCSR + ">"));
  EXPECT_FALSE(parse(std::string("#sptune.kernel<spmv, loops = [i : 8, k : 8],"
                                 " operands = [sparse(i, k), dense(k), "
                                 "out(i)], type = i32, encoding = ") +
                     kCSR + ">"));
}
