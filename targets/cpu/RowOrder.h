//===- RowOrder.h - Rows visited in a matrix-dependent order ----*- C++ -*-===//
//
// Part of sptune. `reorder = rcm` (cpu/CpuKnobs.h): the outer loop of a
// kernel over compressed rows visits the rows in reverse Cuthill-McKee order
// (sptune/Matrix/RowOrder.h) instead of storage order, so that rows reading
// the same dense rows run one after another and find them in cache. The
// storage is unchanged and every row's results land in their own place, so
// the answer is the same for any input; only the speed depends on the input
// being the matrix the order was computed for.
//
// The order is computed when the module is compiled, from the matrix the
// kernel is compiled for, and embedded as a constant (a private
// memref.global of i32): the matrix is known then (the tuner picked the
// schedule for it), and the kernel pays no run-time cost for the order. A
// run-time operand whose row count differs from the order's visits its rows
// in storage order.
//
// Three steps: embedRowOrders (before sparsification: the global, named on
// the kernel), markRowOrderFunctions (after the kernels that need it have
// functions of their own: the name on the function), and the pass
// sptune-cpu-visit-rows-in-order (after sparsification: the loop rewrite).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_ROWORDER_H
#define SPTUNE_TARGETS_CPU_ROWORDER_H

#include "sptune/Matrix/SparseMatrix.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir {
namespace sptune {

/// The discardable attribute naming (a FlatSymbolRefAttr) the memref.global
/// that holds a kernel's row order: on the kernel until sparsification, on
/// its function after markRowOrderFunctions. A unit attribute on a kernel
/// says its matrix has one row or none: nothing to order.
constexpr const char *kRowOrderAttrName = "sptune.row_order";

/// Whether `op` carries a CPU schedule with a row order other than storage
/// order.
bool wantsRowOrder(Operation *op);

/// Computes `op`'s row order from `m` (the matrix its sparse operand will
/// hold), embeds it as a private constant memref.global in `op`'s module and
/// names it on `op` (a unit mark for one row or none). Fails with a diagnostic
/// on `op` when `m` has no such order (not square) or its row count contradicts
/// the operand's static shape.
LogicalResult embedRowOrder(linalg::LinalgOp op, const ::sptune::CsrMatrix &m);

/// embedRowOrder for every kernel of `module` that wants a row order and has
/// none yet, with the matrix named by the `sptune.matrix` attribute of the
/// function argument its sparse operand comes from (through conversions),
/// else by `matrixOption` (the lowering's `matrix=`; the two must agree).
/// Fails with a diagnostic when neither names one or it cannot be loaded.
LogicalResult embedRowOrders(ModuleOp module, const std::string &matrixOption);

/// Whether `func` holds a kernel with a row order and other sparse kernels
/// too (it must then get a function of its own: the loop rewrite finds the
/// rows of one kernel per function).
bool sharesRowOrderedKernel(func::FuncOp func);

/// Names each kernel's row order on its function (a function holding one
/// sparse kernel). Fails when a kernel with a row order shares its function
/// with other sparse kernels.
LogicalResult markRowOrderFunctions(ModuleOp module);

/// Rewrites the sparsifier's loop `loop` (an scf.parallel or scf.for with one
/// induction variable, from 0, step 1, over rows whose positions its body
/// reads) so that iteration n works on row order[n] of `global`'s order when
/// the loop's trip count equals the order's length (else row n). Returns ""
/// when rewritten, else why not (the IR is unchanged).
std::string visitRowsInOrder(RewriterBase &rewriter, Operation *loop,
                             memref::GlobalOp global);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_ROWORDER_H
