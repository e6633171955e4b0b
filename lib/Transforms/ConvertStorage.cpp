//===- ConvertStorage.cpp - Sparse storage conversions that widen ---------===//

#include "sptune/Transforms/ConvertStorage.h"
#include "sptune/Analysis/ScheduleMapping.h"
#include "sptune/IR/SptuneDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::sptune;

/// A tensor.empty of `type` whose dynamic sizes are those of `like`.
static Value emptyOfShape(OpBuilder &b, Location loc, RankedTensorType type,
                          Value like) {
  SmallVector<Value> dynamicSizes;
  for (unsigned d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, like, d));
  return tensor::EmptyOp::create(b, loc, type, dynamicSizes);
}

/// `sparse` copied into the same levels with index-width positions and
/// coordinates: an elementwise linalg.generic whose body is an identity
/// sparse_tensor.unary (an identity yield would be rewritten back into the
/// sparse_tensor.convert this avoids). The sparsifier's loads of positions
/// and coordinates zero-extend, and the output is written in the order the
/// input is stored, so the insertions stay in order.
static Value copyToIndexWidths(OpBuilder &b, Location loc, Value sparse) {
  auto type = cast<RankedTensorType>(sparse.getType());
  auto enc = sparse_tensor::getSparseTensorEncoding(type);
  auto wideType = RankedTensorType::get(type.getShape(), type.getElementType(),
                                        enc.withoutBitWidths());
  Value init = emptyOfShape(b, loc, wideType, sparse);
  unsigned rank = type.getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  Type elementType = type.getElementType();
  auto copy = linalg::GenericOp::create(
      b, loc, TypeRange{wideType}, ValueRange{sparse}, ValueRange{init},
      ArrayRef<AffineMap>{identity, identity},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        auto unary =
            sparse_tensor::UnaryOp::create(nb, l, elementType, args[0]);
        {
          OpBuilder::InsertionGuard guard(nb);
          Block *present = nb.createBlock(&unary.getPresentRegion(), {},
                                          elementType, {l});
          sparse_tensor::YieldOp::create(nb, l, present->getArgument(0));
          // The absent region stays empty: nothing where nothing is stored.
        }
        linalg::YieldOp::create(nb, l, unary.getResult());
      });
  copy->setAttr(SptuneDialect::kStorageCopyAttrName, b.getUnitAttr());
  return copy.getResult(0);
}

Value mlir::sptune::convertSparseStorage(OpBuilder &b, Location loc,
                                         Value sparse, RankedTensorType type) {
  auto from = sparse_tensor::getSparseTensorEncoding(sparse.getType());
  auto to = sparse_tensor::getSparseTensorEncoding(type);
  if (hasNarrowWidths(from)) {
    Value wide = copyToIndexWidths(b, loc, sparse);
    if (wide.getType() == type)
      return wide;
    Value converted = convertSparseStorage(b, loc, wide, type);
    bufferization::DeallocTensorOp::create(b, loc, wide);
    return converted;
  }
  // Narrowing into other levels fails to compile in MLIR 22.1 (blocked
  // storage into 16-bit CSR: "failed to legalize unresolved
  // materialization"); into the same levels it works: change the levels at
  // index width first.
  if (hasNarrowWidths(to) &&
      (!from || from.withoutBitWidths() != to.withoutBitWidths())) {
    auto wideType = RankedTensorType::get(type.getShape(),
                                          type.getElementType(),
                                          to.withoutBitWidths());
    Value wide = sparse_tensor::ConvertOp::create(b, loc, wideType, sparse);
    Value narrowed = sparse_tensor::ConvertOp::create(b, loc, type, wide);
    bufferization::DeallocTensorOp::create(b, loc, wide);
    return narrowed;
  }
  return sparse_tensor::ConvertOp::create(b, loc, type, sparse);
}

Value mlir::sptune::keepEntriesOf(OpBuilder &b, Location loc, Value values,
                                  Value pattern) {
  auto type = cast<RankedTensorType>(values.getType());
  Value init = emptyOfShape(b, loc, type, values);
  unsigned rank = type.getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  Type elementType = type.getElementType();
  auto kept = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{pattern, values}, ValueRange{init},
      ArrayRef<AffineMap>{identity, identity, identity},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        auto binary = sparse_tensor::BinaryOp::create(nb, l, elementType,
                                                      args[0], args[1]);
        {
          OpBuilder::InsertionGuard guard(nb);
          Block *overlap = nb.createBlock(&binary.getOverlapRegion(), {},
                                          {elementType, elementType}, {l, l});
          sparse_tensor::YieldOp::create(nb, l, overlap->getArgument(1));
          // The left and right regions stay empty: nothing is stored where
          // only one of the two has an entry.
        }
        linalg::YieldOp::create(nb, l, binary.getResult());
      });
  kept->setAttr(SptuneDialect::kStorageCopyAttrName, b.getUnitAttr());
  return kept.getResult(0);
}
