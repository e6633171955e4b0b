//===- SpgemmForm.cpp - The sparse x sparse products sptune tunes ---------===//

#include "sptune/Analysis/SpgemmForm.h"

#include "sptune/Analysis/KernelMatcher.h"

#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensorType.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::sptune;
namespace st = mlir::sparse_tensor;

std::string mlir::sptune::whyNotPlainCsr(Type type, unsigned minWidth) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !st::getSparseTensorEncoding(tensor))
    return "it is not a sparse tensor";
  st::SparseTensorType stt(tensor);
  if (stt.getLvlRank() != 2 || stt.getDimRank() != 2 || !stt.isIdentity() ||
      stt.getEncoding().isSlice() || !stt.isDenseLvl(0) ||
      !stt.isCompressedLvl(1) || !stt.isOrderedLvl(1) || !stt.isUniqueLvl(1))
    return "it is not stored as CSR ([dense, compressed], rows first)";
  // The kernel reads every stored value from the values buffer.
  if (stt.getExplicitVal() || stt.getImplicitVal())
    return "its encoding declares an explicit or implicit value";
  auto narrow = [&](unsigned w) { return w != 0 && w < minWidth; };
  if (narrow(stt.getPosWidth()) || narrow(stt.getCrdWidth()))
    return "its positions or coordinates are narrower than " +
           std::to_string(minWidth) + " bits";
  return "";
}

/// The loop each dimension of operand `n` of `op` is indexed by, or an
/// empty list when its indexing map is not a projected permutation.
static SmallVector<unsigned, 2> loopsOf(linalg::LinalgOp op, unsigned n) {
  SmallVector<unsigned, 2> loops;
  for (AffineExpr e : op.getIndexingMapsArray()[n].getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim)
      return {};
    loops.push_back(dim.getPosition());
  }
  return loops;
}

int mlir::sptune::spgemmLeftFactor(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 3)
    return -1;
  SmallVector<unsigned, 2> out = loopsOf(op, 2);
  if (out.size() != 2)
    return -1;
  for (int a = 0; a < 2; ++a) {
    SmallVector<unsigned, 2> left = loopsOf(op, a);
    SmallVector<unsigned, 2> right = loopsOf(op, 1 - a);
    if (left.size() == 2 && right.size() == 2 && left[0] == out[0] &&
        right[1] == out[1] && left[1] == right[0] && left[1] != out[0] &&
        left[1] != out[1] && out[0] != out[1] &&
        op.getIteratorTypesArray()[left[1]] == utils::IteratorType::reduction)
      return a;
  }
  return -1;
}

std::string mlir::sptune::whyNotRowWiseSpgemm(linalg::LinalgOp op) {
  ::sptune::KernelDescriptor d;
  if (std::string why = whyNotPlainProductOfShape(
          op, 2, "spgemm", "a sparse x sparse product", d);
      !why.empty())
    return why;
  if (spgemmLeftFactor(op) < 0)
    return "it is not C(i, j) += A(i, k) * B(k, j)";
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  if (!isa<FloatType, IntegerType>(element))
    return "its element type is not an integer or float type";
  for (unsigned n = 0; n < 3; ++n) {
    Type type = op->getOperand(n).getType();
    if (getElementTypeOrSelf(type) != element)
      return "its operands' element types differ";
    if (std::string why = whyNotPlainCsr(type, n == 2 ? 32 : 0); !why.empty())
      return (n == 2 ? "its result: " : "operand #" + std::to_string(n) + ": ") +
             why;
  }
  if (!op.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>())
    return "its result is not a fresh tensor (its init is no tensor.empty)";
  return "";
}
