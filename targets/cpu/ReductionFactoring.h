//===- ReductionFactoring.h - A reduction's invariant, once -----*- C++ -*-===//
//
// The sparsifier's SDDMM (the sampled product updating a copy of S in place)
// computes, for each stored entry p, X(p) = sum_k (S(p) * A(i,k)) * B(k,j):
// two multiplies per term, one of them by a value the loop over k does not
// change. Factored, the loop computes sum_k A(i,k) * B(k,j) and S(p)
// multiplies the sum once; the dot product then has the form LLVM vectorizes
// best (one fused multiply-add per term).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_REDUCTIONFACTORING_H
#define SPTUNE_TARGETS_CPU_REDUCTIONFACTORING_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace sptune {

/// For each scalar floating-point sum that `loop` carries, `acc + t` with `t`
/// a product (of single-use multiplies) whose factors include values `loop`
/// does not change: computes the product of the other factors in the loop,
/// from zero, and after it `init + invariant * sum`. An invariant factor is a
/// value defined outside `loop` or, when the loop writes no memory, a load
/// inside it whose buffer and indices are (moved before the loop). Where the
/// loop is not known to run (a dynamic trip count), the moved loads and the
/// result are guarded by whether it does: with no iteration the result stays
/// `init` and nothing is loaded. Only for sums and products marked
/// `reassoc`; the new operations get the fast-math flags
/// the old ones all had. Factoring is exact up to rounding, but for the sign
/// of a zero result (LLVM would also ask for `nsz`): sptune takes that
/// freedom where the schedule asked for reassociation (a vector length).
/// Returns how many sums were factored.
int64_t factorReductionInvariants(RewriterBase &rewriter, scf::ForOp loop);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_REDUCTIONFACTORING_H
