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

/// The work before row r (stored entries, and whatever else a kernel
/// counts), built at the builder's point; non-decreasing in r over
/// [lo, hi] of the loop it measures.
using WorkBefore = function_ref<Value(OpBuilder &, Location, Value)>;

/// The first row r in [lo, hi) with workBefore(r) >= target (hi when none):
/// a binary search.
Value firstRowReaching(OpBuilder &b, Location loc, WorkBefore workBefore,
                       Value lo, Value hi, Value target);

/// The same with workBefore(r) = positions[r], `positions` any rank-1
/// integer buffer, non-decreasing.
Value firstRowReaching(OpBuilder &b, Location loc, Value positions, Value lo,
                       Value hi, Value target);

/// The OpenMP runtime's default team size as an index, at least 1
/// (omp_get_max_threads(), declared in `within`'s module when needed).
Value maxThreads(OpBuilder &b, Location loc, Operation *within);

/// An scf.parallel over `blocks` blocks of the rows [lo, hi) (`blocks`
/// an index value, at least 1), block t taking the rows whose work before
/// them lies in [w(lo) + W t / blocks, w(lo) + W (t + 1) / blocks), where
/// W = w(hi) - w(lo) (the last block also takes trailing rows of no work);
/// `block` builds the loop over a block's rows [begin, end). Nothing is
/// read when lo >= hi. Returns the scf.parallel.
scf::ParallelOp balancedRowBlocks(
    OpBuilder &b, Location loc, Value lo, Value hi, Value blocks,
    WorkBefore workBefore,
    function_ref<void(OpBuilder &, Location, Value, Value)> block);

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
