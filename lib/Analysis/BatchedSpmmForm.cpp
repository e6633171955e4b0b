//===- BatchedSpmmForm.cpp - The batched SpMMs sptune tunes ---------------===//

#include "sptune/Analysis/BatchedSpmmForm.h"

#include "sptune/Analysis/KernelMatcher.h"
#include "sptune/Analysis/SparseStorage.h"

#include "mlir/Dialect/SparseTensor/IR/SparseTensorType.h"

using namespace mlir;
using namespace mlir::sptune;
namespace st = mlir::sparse_tensor;

bool mlir::sptune::isBatchedCsr(Type type) {
  if (!isPlainSparseStorage(type, 3))
    return false;
  st::SparseTensorType t(cast<RankedTensorType>(type));
  return t.isDenseLvl(0) && t.isDenseLvl(1) && t.isCompressedLvl(2) &&
         t.isUniqueLvl(2);
}

std::string mlir::sptune::whyNotKernelBatchedSpmm(linalg::LinalgOp op,
                                                  BatchedSpmmInputs *inputs) {
  ::sptune::KernelDescriptor d;
  if (std::string why =
          whyNotPlainProductOfShape(op, 2, "batched-spmm", "a batched SpMM", d);
      !why.empty())
    return why;
  const auto &ops = d.operands;
  unsigned sparse = ops[0].sparse() ? 0 : 1;
  if (!ops[sparse].sparse() || ops[1 - sparse].sparse() ||
      ops[2].kind != ::sptune::KernelOperand::Kind::Output)
    return "it does not have one sparse input and a dense output";
  const std::vector<unsigned> &bik = ops[sparse].dims;
  const std::vector<unsigned> &out = ops[2].dims;
  if (out.size() != 3 || out[0] != bik[0] || out[1] != bik[1] ||
      llvm::is_contained(bik, out[2]) ||
      ops[1 - sparse].dims != std::vector<unsigned>{bik[0], bik[2], out[2]})
    return "it does not compute C(b, i, j) += A(b, i, k) B(b, k, j) with j "
           "contiguous";
  Value a = op.getDpsInputOperand(sparse)->get();
  Value b = op.getDpsInputOperand(1 - sparse)->get();
  if (!isBatchedCsr(a.getType()) && !isOrderedCoo(a.getType(), 3))
    return "its sparse operand is neither dense batches of CSR rows nor "
           "ordered COO (a compressed level and two singleton ones, the last "
           "unique)";
  if (std::string why = whyNotKernelOperands(
          a, b, op.getDpsInitOperand(0)->get(), 3, kMaxBatchedRowBytes, "N");
      !why.empty())
    return why;
  if (inputs)
    *inputs = {sparse, 1 - sparse};
  return "";
}
