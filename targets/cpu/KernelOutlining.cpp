//===- KernelOutlining.cpp - A kernel moved into its own function ---------===//

#include "cpu/KernelOutlining.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;

FailureOr<func::FuncOp> mlir::sptune::outlineKernel(linalg::LinalgOp op,
                                                    StringRef name) {
  auto parent = op->getParentOfType<func::FuncOp>();
  auto module = parent ? parent->getParentOfType<ModuleOp>() : ModuleOp();
  if (!module || SymbolTable(module).lookup(name))
    return failure();
  // The ops that move: the kernel, after the allocations of its outputs
  // that nothing else uses.
  SmallVector<Operation *> moved;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    Operation *def = init.get().getDefiningOp();
    if (def && isa<tensor::EmptyOp, bufferization::AllocTensorOp>(def) &&
        def->hasOneUse())
      moved.push_back(def);
  }
  moved.push_back(op);
  // Their inputs, in first-use order.
  llvm::SetVector<Value> inputs;
  for (Operation *m : moved) {
    for (Value v : m->getOperands())
      if (!llvm::is_contained(moved, v.getDefiningOp()))
        inputs.insert(v);
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(m->getRegions(), above);
    for (Value v : above)
      inputs.insert(v);
  }

  OpBuilder b(op->getContext());
  b.setInsertionPointAfter(parent);
  auto type = FunctionType::get(op->getContext(),
                                TypeRange(ValueRange(inputs.getArrayRef())),
                                op->getResultTypes());
  auto outlined = func::FuncOp::create(b, op->getLoc(), name, type);
  outlined.setPrivate();
  Block *entry = outlined.addEntryBlock();
  IRMapping map;
  for (auto [v, arg] : llvm::zip(inputs, entry->getArguments()))
    map.map(v, arg);
  b.setInsertionPointToStart(entry);
  Operation *clone = nullptr;
  for (Operation *m : moved)
    clone = b.clone(*m, map);
  func::ReturnOp::create(b, op->getLoc(), clone->getResults());

  b.setInsertionPoint(op);
  auto call = func::CallOp::create(b, op->getLoc(), outlined,
                                   ValueRange(inputs.getArrayRef()));
  op->replaceAllUsesWith(call.getResults());
  for (Operation *m : llvm::reverse(moved))
    m->erase();
  return outlined;
}
