//===- BalancedRows.h - Row blocks of equal stored entries ------*- C++ -*-===//
//
// OpenMP's static schedule gives each thread as many rows; with skewed row
// lengths one thread gets most of the stored entries (on 2 cores, the first
// half of email-Enron's rows holds 83% of them) and the other waits. The
// dynamic schedule balances, but pays a dispatch per chunk, which SpMV's
// cheap rows cannot afford. These functions cut the parallel loop over the
// rows of compressed storage into one block per thread, at the rows where
// the positions array reaches each thread's share of the entries (a binary
// search per block, O(threads log rows)), in the spirit of merge-path
// partitions without splitting a row.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_BALANCEDROWS_H
#define SPTUNE_TARGETS_CPU_BALANCEDROWS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir {
namespace sptune {

/// The mark the sparsifier's loop emitter puts on the loops it emits.
constexpr const char *kSparsifierLoopAttrName = "Emitted from";

/// The positions array of the rows `loop` walks with induction variable
/// `row`: a rank-1 integer buffer defined outside the loop that its body
/// loads at the row and at the next row, as the sparsifier emits for a
/// dense level above a compressed one. Null when there is none.
Value rowPositionsOf(Operation *loop, Value row);

/// `positions[i]` as an index (positions are unsigned: zero-extended); as
/// well a coordinate of a coordinates buffer, unsigned too.
Value loadPosition(OpBuilder &b, Location loc, Value positions, Value i);

/// [positions[i], positions[i + 1]): the stored entries below position i
/// of the level above, as indices.
std::pair<Value, Value> loadPositionRange(OpBuilder &b, Location loc,
                                          Value positions, Value i);

/// The first row r in [lo, hi) with positions[r] >= target (hi when none):
/// a binary search, `positions` (any rank-1 integer buffer) being
/// non-decreasing.
Value firstRowReaching(OpBuilder &b, Location loc, Value positions, Value lo,
                       Value hi, Value target);

/// The OpenMP runtime's default team size as an index, at least 1
/// (omp_get_max_threads(), declared in `within`'s module when needed).
Value maxThreads(OpBuilder &b, Location loc, Operation *within);

/// Rewrites `loop` (a one-dimensional scf.parallel over rows with unit step
/// and no reductions, whose body reads a positions array at the row and the
/// next row, as the sparsifier emits for a dense level above a compressed
/// one) into an scf.parallel over `threads` blocks (0: omp_get_max_threads()
/// at run time), each an scf.for over its rows. Returns "" when rewritten,
/// else why not (the IR is unchanged).
std::string balanceRowsByEntries(RewriterBase &rewriter, scf::ParallelOp loop,
                                 int threads);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_BALANCEDROWS_H
