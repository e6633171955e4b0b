//===- SparseInHostCode.cpp - sptune-check-sparse-in-host-code ------------===//
//
// Sparse tensors are lowered in host code only; one inside a gpu.module is
// refused with the op and the module named, before the sparsifier fails on
// it with an internal conversion error.
//
//===----------------------------------------------------------------------===//

#include "sptune/Lowering/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_CHECKSPARSEINHOSTCODE
#include "sptune/Lowering/Passes.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;

namespace {

/// Whether `op` takes or yields a value of a sparse tensor type.
bool touchesSparseTensor(Operation *op) {
  auto sparse = [](Type t) {
    return static_cast<bool>(sparse_tensor::getSparseTensorEncoding(t));
  };
  if (llvm::any_of(op->getOperandTypes(), sparse) ||
      llvm::any_of(op->getResultTypes(), sparse))
    return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (llvm::any_of(block.getArgumentTypes(), sparse))
        return true;
  return false;
}

struct CheckSparseInHostCodePass
    : public mlir::sptune::impl::CheckSparseInHostCodeBase<
          CheckSparseInHostCodePass> {
  using CheckSparseInHostCodeBase::CheckSparseInHostCodeBase;

  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](gpu::GPUModuleOp device) {
      // The first op per GPU module: one error each is enough to act on.
      device.walk([&](Operation *op) {
        if (!touchesSparseTensor(op))
          return WalkResult::advance();
        op->emitError("sptune: a sparse tensor in device code (gpu.module @")
            << device.getName()
            << "); sparse kernels are compiled from host functions: write "
               "the kernel in a func.func outside the gpu.module, and the "
               "NVVM target outlines it to the GPU";
        ok = false;
        return WalkResult::interrupt();
      });
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
