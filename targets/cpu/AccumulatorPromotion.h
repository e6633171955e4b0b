//===- AccumulatorPromotion.h - Accumulators in registers -------*- C++ -*-===//
//
// The sparsifier's SpMM with the free loop innermost (order [i, k, j]) reads,
// updates and writes back the same row of C for every stored entry of the
// row: C(i, j:j+vl) lives in memory across the loop over k. Nothing below
// MLIR can keep it in registers, because LLVM cannot prove that C and B do not
// overlap. These functions do it at the scf + vector level, where the
// kernel's operands are still distinct buffers.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_ACCUMULATORPROMOTION_H
#define SPTUNE_TARGETS_CPU_ACCUMULATORPROMOTION_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir {
namespace sptune {

/// The most iterations a fixed-trip vector loop may have to be unrolled into
/// its enclosing loop for promotion (64 columns at 4 lanes).
constexpr int64_t kMaxAccumulatorUnroll = 16;

/// Promotes the vectors that `loop` loads and stores at positions invariant
/// in `loop` (directly, or in a nested fixed-trip vector loop over the free
/// dimension, which is unrolled first) to loop-carried values: one load
/// before the loop, one store after it. Legal when every other access to
/// that memory in the loop is one of those loads and stores, the promoted
/// positions do not overlap, nothing else in the loop writes memory and
/// every buffer the loop reads has a different root than the promoted one.
///
/// Function arguments are distinct roots: the kernel's operands are distinct
/// tensors (its output is updated in place, its inputs only read), which is
/// what the sparsifier's own code already assumes.
///
/// What promoteLoopAccumulators did: the number of promoted vectors, or 0
/// and why not (the loop has none or is not legal; the IR is unchanged).
struct AccumulatorPromotion {
  int64_t promoted = 0;
  std::string whyNot;
};

AccumulatorPromotion promoteLoopAccumulators(RewriterBase &rewriter,
                                             scf::ForOp loop);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_ACCUMULATORPROMOTION_H
