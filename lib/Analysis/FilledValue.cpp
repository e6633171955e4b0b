//===- FilledValue.cpp - An output that starts from a fill ----------------===//

#include "sptune/Analysis/FilledValue.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

Value mlir::sptune::filledValue(Value v) {
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    return fill.getInputs()[0];
  auto generic = v.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic->getNumResults() != 1)
    return {};
  Value scalar = generic.getDpsInputOperand(0)->get();
  Block *body = generic.getBody();
  if (isa<ShapedType>(scalar.getType()) ||
      body->getTerminator()->getOperand(0) != body->getArgument(0))
    return {};
  return scalar;
}

Value mlir::sptune::freshFillValue(Value init) {
  Value value = filledValue(init);
  if (!value)
    return {};
  Operation *fresh = cast<DestinationStyleOpInterface>(init.getDefiningOp())
                         .getDpsInits()[0]
                         .getDefiningOp();
  auto alloc = dyn_cast_or_null<bufferization::AllocTensorOp>(fresh);
  if (!fresh || !(isa<tensor::EmptyOp>(fresh) || (alloc && !alloc.getCopy())))
    return {};
  return value;
}
