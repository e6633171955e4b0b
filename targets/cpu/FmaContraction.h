//===- FmaContraction.h - Fuse multiply-adds in sparse kernels --*- C++ -*-===//
//
// The sparsifier emits `arith.mulf` then `arith.addf` without fast-math
// flags, so LLVM keeps two instructions (and two roundings) where the
// hand-written and library kernels, compiled by clang with its default
// -ffp-contract=on, get one fused multiply-add.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_FMACONTRACTION_H
#define SPTUNE_TARGETS_CPU_FMACONTRACTION_H

#include "mlir/IR/Operation.h"

namespace mlir {
namespace sptune {

/// Marks each floating-point add or subtract inside `root` whose operand is
/// a multiply used only there, and that multiply, with the `contract`
/// fast-math flag: the product may then be fused into the sum, as
/// -ffp-contract=on allows for `c += a * b` in C. Nothing else is relaxed.
/// Not when the sum's other operand is a scalar carried around a loop (a
/// serial reduction, SpMV's row sum): there the adds are the critical path
/// and a fused multiply-add is slower than the add it replaces.
/// Returns how many pairs were marked.
int64_t contractMultiplyAdds(Operation *root);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_FMACONTRACTION_H
