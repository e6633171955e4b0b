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

#include "cpu/BalancedRows.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "sptune/Analysis/SparseStorage.h"
#include "sptune/Schedule/KernelDescriptor.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

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

/// Replaces `op`, whose output starts from a fill of a fresh tensor
/// (sptune/Analysis/FilledValue.h), with a call to the kernel `name`
/// (declareKernel) marked `attrName` = {parallel = `parallel`, types = the
/// types of `inputs` then of `op`'s result} and `extraMarks`, taking
/// `inputs` (read only) and then the fill's value `fillValue`; the fill and
/// its fresh tensor go where nothing else uses them.
void replaceWithKernelCall(RewriterBase &rewriter, linalg::LinalgOp op,
                           StringRef name, StringRef attrName,
                           ValueRange inputs, Value fillValue, bool parallel,
                           ArrayRef<NamedAttribute> extraMarks = {});

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

/// The element type of `types[0]`, a declared kernel's sparse operand, when
/// `types` were read (not empty), `isStorage(types[0])` holds and the type
/// is f32 or f64 (the kernels' element types); else null.
Type floatElementOf(ArrayRef<RankedTensorType> types,
                    function_ref<bool(Type)> isStorage);

/// The size of level `level` of a sparse tensor, read from its storage
/// specifier (an index).
Value levelSize(OpBuilder &b, Location loc, Value specifier, int64_t level);

/// The types sparse code generation gives the buffers of `tensor`, in its
/// order (MLIR's foreachFieldAndTypeInSparseTensor): each compressed level's
/// positions and coordinates (one coordinates buffer for a COO region's
/// levels stored as an array of structures, one per level with `soa`),
/// then the values, then the storage specifier.
SmallVector<Type> sparseBufferTypes(RankedTensorType tensor);

/// When the declaration `f` has the type `expected` after sparsification:
/// gives it an entry block for its body, its mark `attrName` and its
/// arguments' bufferization marks spent, and returns a builder at the
/// block's start. Else an error on `f` ("the `kernel` kernel's signature
/// after sparsification is ..."), and failure.
FailureOr<OpBuilder> startKernelBody(func::FuncOp f, StringRef attrName,
                                     FunctionType expected, StringRef kernel);

/// A loop over [lo, hi) calling `body` with the induction variable: an
/// scf.parallel when `parallel`, else an scf.for. Returns the loop.
Operation *rowLoop(OpBuilder &b, Location loc, Value lo, Value hi,
                   bool parallel,
                   function_ref<void(OpBuilder &, Location, Value)> body);

/// The rows [lo, hi) of a kernel whose rows differ in work, as blocks:
/// when `parallel`, one block per thread, of equal work (balancedRowBlocks;
/// `threads` blocks when > 0, the team sptune-omp-schedule gives for the
/// pipeline's `threads` option, else omp_get_max_threads() at run time,
/// declared in `within`'s module); else one block of every row. `block`
/// builds the loop over a block's rows [begin, end), which may carry what
/// a row's index would otherwise be divided for.
void rowBlocks(OpBuilder &b, Location loc, Value lo, Value hi, bool parallel,
               int threads, Operation *within, WorkBefore workBefore,
               function_ref<void(OpBuilder &, Location, Value, Value)> block);

/// The sum `init` + sum over the stored entries p in [first, end) of
/// values[p] x (the vector `loadRow` reads for coordinates[p]): a CSR row (or
/// fiber) times the dense rows it selects, one fused multiply-add per entry.
/// `rowType` is the vector type of `init` and of what `loadRow` returns.
Value scaledRowSum(OpBuilder &b, Location loc, Value first, Value end,
                   Value init, Value coordinates, Value values,
                   VectorType rowType,
                   function_ref<Value(OpBuilder &, Location, Value)> loadRow);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_KERNELOUTLINING_H
