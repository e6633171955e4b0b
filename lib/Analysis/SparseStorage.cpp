//===- SparseStorage.cpp - Storage a hand-written kernel reads ------------===//

#include "sptune/Analysis/SparseStorage.h"
#include "sptune/Analysis/FilledValue.h"

#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensorType.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
namespace st = mlir::sparse_tensor;

bool mlir::sptune::isPlainSparseStorage(Type type, unsigned rank) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return false;
  st::SparseTensorType t(ranked);
  return t.hasEncoding() && !t.getEncoding().isSlice() && !t.getExplicitVal() &&
         !t.getImplicitVal() && t.getDimRank() == rank &&
         t.getLvlRank() == rank && t.isIdentity();
}

bool mlir::sptune::isOrderedCoo(Type type, unsigned rank) {
  if (rank < 2 || !isPlainSparseStorage(type, rank))
    return false;
  st::SparseTensorType t(cast<RankedTensorType>(type));
  if (!t.isCompressedLvl(0) || !t.isUniqueLvl(rank - 1))
    return false;
  for (st::Level l = 0; l < rank; ++l)
    if (!t.isOrderedLvl(l) || (l > 0 && !t.isSingletonLvl(l)))
      return false;
  // One array of structures from the first level, or one buffer per level.
  st::Level aosStart = t.getAoSCOOStart();
  return aosStart == 0 || aosStart == rank;
}

bool mlir::sptune::isCsf(Type type) {
  if (!isPlainSparseStorage(type, 3))
    return false;
  st::SparseTensorType t(cast<RankedTensorType>(type));
  auto compressed = [&](st::Level l) {
    return t.isCompressedLvl(l) && t.isUniqueLvl(l);
  };
  // Slices in order: each fills the rows of no slice before it.
  return (t.isDenseLvl(0) || (compressed(0) && t.isOrderedLvl(0))) &&
         compressed(1) && compressed(2);
}

int64_t mlir::sptune::staticRowWidth(Type type, Type element, unsigned rank,
                                     int64_t maxBytes) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || t.getEncoding() || t.getRank() != rank ||
      t.isDynamicDim(rank - 1) || t.getDimSize(rank - 1) < 1 ||
      t.getElementType() != element ||
      // Compared as elements: a huge static size must not overflow.
      t.getDimSize(rank - 1) >
          maxBytes * 8 / static_cast<int64_t>(element.getIntOrFloatBitWidth()))
    return -1;
  return t.getDimSize(rank - 1);
}

std::string mlir::sptune::whyNotKernelOperands(Value sparse, ValueRange dense,
                                               Value init, unsigned rank,
                                               int64_t maxBytes,
                                               llvm::StringRef width) {
  Type element = getElementTypeOrSelf(sparse.getType());
  if (!element.isF32() && !element.isF64())
    return "its element type is not f32 or f64";
  int64_t n = staticRowWidth(init.getType(), element, rank, maxBytes);
  if (n < 0 || llvm::any_of(dense, [&](Value v) {
        return staticRowWidth(v.getType(), element, rank, maxBytes) != n;
      }))
    return "its " + width.str() + " is dynamic, its rows above " +
           std::to_string(maxBytes) +
           " bytes, or its operands of different element types";
  Value fill = freshFillValue(init);
  if (!fill || fill.getType() != element)
    return "its output does not start from a linalg.fill of a fresh tensor";
  return "";
}
