//===- KernelOutlining.h - A kernel moved into its own function -*- C++ -*-===//
//
// Part of sptune. MLIR's sparsifier takes its parallelization and vector
// length per module; sptune-cpu-sparsify gives each function its own. Two
// scheduled kernels of one function that ask for different settings get
// theirs when each is moved into a function of its own first: this file.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_KERNELOUTLINING_H
#define SPTUNE_TARGETS_CPU_KERNELOUTLINING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir {
namespace sptune {

/// Moves `op` into a new private function `name`, placed after the function
/// holding it, and replaces it with a call. The function's arguments are
/// the values the op uses (operands, and values its body uses from above);
/// its results, the op's. An output operand made by a `tensor.empty` or
/// `bufferization.alloc_tensor` used only by `op` moves with it (the
/// sparsifier materializes a sparse output only from one of those). Fails
/// when `name` is taken.
FailureOr<func::FuncOp> outlineKernel(linalg::LinalgOp op, StringRef name);

/// The kernels sptune writes itself on a sparse tensor's buffers (the fused
/// SDDMM-SpMM, the factored MTTKRP, the batched SpMM) replace an op with a
/// call to a declared function, defined after sparsification: the private
/// function `name` of type `type` carrying `attrs` in `module` (renamed
/// when the name is taken, placed first), its first `readOnly` arguments
/// marked `bufferization.access = "read"`. A declaration of that type with
/// those attributes is reused.
func::FuncOp declareKernel(ModuleOp module, Location loc, StringRef name,
                           FunctionType type, ArrayRef<NamedAttribute> attrs,
                           unsigned readOnly);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_KERNELOUTLINING_H
