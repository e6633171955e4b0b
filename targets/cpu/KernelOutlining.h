//===- KernelOutlining.h - A kernel moved into its own function -*- C++ -*-===//
//
// Part of sptune. MLIR's sparsifier takes its parallelization and vector
// length per module; sptune-cpu-sparsify gives each function its own. Two
// scheduled kernels of one function that ask for different settings get
// theirs when each is moved into a function of its own first: this file.
// So do the kernels sptune writes itself on a sparse tensor's buffers (the
// fused SDDMM-SpMM, the factored MTTKRP, the batched SpMM): the op becomes
// a call to a declared function, given its body after sparsification; what
// they share is here too.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_KERNELOUTLINING_H
#define SPTUNE_TARGETS_CPU_KERNELOUTLINING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "sptune/Schedule/KernelDescriptor.h"

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

/// The mark {parallel = `parallel`, types = `types`}.
DictionaryAttr kernelMarks(Builder &b, bool parallel, TypeRange types);

/// Calls `define` on each declaration of `module` that carries the mark
/// `attrName`, with the mark's `parallel` and `types` when it has the form
/// {parallel = bool, types = [...]} with `count` ranked tensor types, else
/// with no types (`define` then reports the error). Fails when a `define`
/// fails.
LogicalResult defineDeclaredKernels(
    ModuleOp module, StringRef attrName, size_t count,
    function_ref<LogicalResult(func::FuncOp, bool parallel,
                               ArrayRef<RankedTensorType> types)>
        define);

/// Whether `type` is sparse storage a kernel sptune writes itself can read
/// from its buffers: rank `rank`, levels in dimension order, not a slice
/// (whose buffers are its parent's), its stored values the values (no
/// explicit or implicit value in the encoding). The level types are the
/// caller's to check.
bool isPlainSparseStorage(Type type, unsigned rank);

/// N when `type` is a dense tensor of rank `rank` and element type
/// `element` whose innermost dimension is static, N, with rows of at most
/// `maxBytes`; else -1.
int64_t staticRowWidth(Type type, Type element, unsigned rank,
                       int64_t maxBytes);

/// The descriptor of `op` when it has no schedule and is `what`: of the
/// shape `shape` (KernelDescriptor::shapeName) with a plain
/// multiply-accumulate body (no invariant factor), `inputs` inputs and one
/// result; else an error saying why.
llvm::Expected<::sptune::KernelDescriptor>
describedPlainKernel(linalg::LinalgOp op, StringRef shape, StringRef what,
                     unsigned inputs);

/// Gives the declaration `f` an entry block for its body, its mark
/// `attrName` and its arguments' bufferization marks spent; the builder is
/// at the block's start.
OpBuilder startKernelBody(func::FuncOp f, StringRef attrName);

/// A loop over [lo, hi) calling `body` with the induction variable: an
/// scf.parallel when `parallel`, else an scf.for. Returns the loop.
Operation *rowLoop(OpBuilder &b, Location loc, Value lo, Value hi,
                   bool parallel,
                   function_ref<void(OpBuilder &, Location, Value)> body);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_KERNELOUTLINING_H
