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

TEST_F(KernelAttrTest, SpMVHasNoJLoop) {
  auto attr = dyn_cast_or_null<KernelAttr>(
      parse(std::string("#sptune.kernel<spmv, loops = [k : ?, i : 8], "
                        "operands = [sparse(i, k), dense(k), out(i)], "
                        "type = f32, encoding = ") +
            kCSR + ">"));
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getLoopPosition(LoopRole::I), 1);
  EXPECT_EQ(attr.getLoopPosition(LoopRole::J), -1);
  EXPECT_EQ(attr.getLoopSize(LoopRole::J), ShapedType::kDynamic);
  EXPECT_EQ(attr.getLoopSize(LoopRole::K), ShapedType::kDynamic);
  EXPECT_EQ(attr.getLoopSize(LoopRole::I), 8);
  EXPECT_EQ(attr.getOperandRoles(1).size(), 1u);
  EXPECT_EQ(attr.getOperandRoles(2).front(), LoopRole::I);
}

TEST_F(KernelAttrTest, InPlaceSDDMMSamplesThroughItsOutput) {
  auto attr = dyn_cast_or_null<KernelAttr>(
      parse(std::string("#sptune.kernel<sddmm, loops = [i : 4, j : 6, k : 4], "
                        "operands = [dense(i, k), dense(k, j), "
                        "sparse_out(i, j)], type = f64, encoding = ") +
            kCSR + ">"));
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getNumOperands(), 3u);
  EXPECT_EQ(attr.getSparseOperand(), 2u);
  EXPECT_EQ(attr.getOperandKinds()[2], OperandKind::SparseOut);
}

TEST_F(KernelAttrTest, SampledSDDMMPrefersTheSparseInput) {
  auto attr = dyn_cast_or_null<KernelAttr>(
      parse(std::string("#sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 8], "
                        "operands = [dense(i, k), dense(k, j), sparse(i, j), "
                        "sparse_out(i, j)], type = f64, encoding = ") +
            kCSR + ">"));
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getSparseOperand(), 2u);
}

namespace {
/// Parses `text` and returns the first diagnostic's message, or "" when the
/// text parsed.
std::string parseError(MLIRContext &ctx, StringRef text) {
  std::string message;
  ScopedDiagnosticHandler capture(&ctx, [&](Diagnostic &diag) {
    if (message.empty())
      message = diag.str();
    return success();
  });
  if (parseAttribute(text, &ctx))
    return "";
  return message;
}
} // namespace

TEST_F(KernelAttrTest, VerifierRejectsMissingRole) {
  EXPECT_EQ(parseError(ctx, std::string("#sptune.kernel<spmm, loops = [i : 8, "
                                        "k : 8], operands = [sparse(i, k), "
                                        "dense(k), out(i)], type = f64, "
                                        "encoding = ") +
                                kCSR + ">"),
            "'spmm' kernel needs one loop per role (i, j, k), got (i, k)");
}

TEST_F(KernelAttrTest, VerifierRejectsOddWidthIntegerElementType) {
  EXPECT_EQ(parseError(ctx, std::string("#sptune.kernel<spmv, loops = [i : 8, "
                                        "k : 8], operands = [sparse(i, k), "
                                        "dense(k), out(i)], type = i4, "
                                        "encoding = ") +
                                kCSR + ">"),
            "element type must be f16, bf16, f32, f64, i8, i16, i32 or i64, "
            "got 'i4'");
}

TEST_F(KernelAttrTest, AcceptsHalfPrecisionAndNarrowIntegers) {
  for (const char *type : {"f16", "bf16", "i8", "i16"})
    EXPECT_EQ(parseError(ctx, std::string("#sptune.kernel<spmv, loops = [i : "
                                          "8, k : 8], operands = [sparse(i, "
                                          "k), dense(k), out(i)], type = ") +
                                  type + ", encoding = " + kCSR + ">"),
              "")
        << type;
}

TEST_F(KernelAttrTest, VerifierRejectsSwappedRoles) {
  // The sparse operand of an SpMM reads (i, k); (i, j) belongs to an SDDMM.
  EXPECT_EQ(parseError(ctx, std::string("#sptune.kernel<spmm, loops = [i : 8, "
                                        "j : 8, k : 8], operands = [sparse(i, "
                                        "j), dense(j, k), out(i, k)], type = "
                                        "f64, encoding = ") +
                                kCSR + ">"),
            "operand #0 sparse(i, j) does not fit a 'spmm' kernel");
}

TEST_F(KernelAttrTest, GetCheckedRejectsMismatchedLengths) {
  // Only reachable from C++: the parser always pairs roles and sizes.
  std::string message;
  ScopedDiagnosticHandler capture(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto csr = cast<sparse_tensor::SparseTensorEncodingAttr>(parse(kCSR));
  SmallVector<LoopRole> roles = {LoopRole::I, LoopRole::K};
  SmallVector<int64_t> sizes = {8};
  SmallVector<OperandKind> kinds = {OperandKind::Sparse, OperandKind::Dense,
                                    OperandKind::Out};
  SmallVector<LoopRole> dims = {LoopRole::I, LoopRole::K, LoopRole::K,
                                LoopRole::I};
  SmallVector<int64_t> ranks = {2, 1, 1};
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(&ctx)); };
  KernelAttr attr = KernelAttr::getChecked(
      llvm::function_ref<InFlightDiagnostic()>(emitError), &ctx,
      KernelKind::SpMV, ArrayRef<LoopRole>(roles), ArrayRef<int64_t>(sizes),
      ArrayRef<OperandKind>(kinds), ArrayRef<LoopRole>(dims),
      ArrayRef<int64_t>(ranks), Type(Float64Type::get(&ctx)), csr);
  EXPECT_FALSE(attr);
  EXPECT_EQ(message, "loop roles and loop sizes differ in length");

  sizes.push_back(8);
  attr = KernelAttr::getChecked(
      llvm::function_ref<InFlightDiagnostic()>(emitError), &ctx,
      KernelKind::SpMV, ArrayRef<LoopRole>(roles), ArrayRef<int64_t>(sizes),
      ArrayRef<OperandKind>(kinds), ArrayRef<LoopRole>(dims),
      ArrayRef<int64_t>(ranks), Type(Float64Type::get(&ctx)), csr);
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getSparseOperand(), 0u);
}
