//===- ReductionJam.h - Interleave independent reductions -------*- C++ -*-===//
//
// The sparsifier's SDDMM computes one dot product per stored entry, each a
// loop over k that carries its sum: LLVM vectorizes it, but every entry ends
// in a horizontal reduction and the loop is one dependence chain, so the
// cores wait on latency. Unrolling the loop over the entries and jamming the
// copies into one loop over k (four dot products of the same row of A at
// once) gives independent chains, which read the same row of A.
// Upstream's scf unroll-and-jam needs a constant trip count; a row's stored
// entries have none, so the remainder runs in the original loop.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_REDUCTIONJAM_H
#define SPTUNE_TARGETS_CPU_REDUCTIONJAM_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir {
namespace sptune {

/// The unroll-and-jam factor of the CPU pipeline (sptune-jam-reductions'
/// default): four dot products in flight, measured best of 2, 4 and 8 on
/// SDDMM (docs/results.md).
constexpr unsigned kDefaultReductionJam = 4;
/// The largest factor accepted: each copy of the loop body is code.
constexpr unsigned kMaxReductionJam = 16;

/// What jamReductionLoop did: whether `outer` was rewritten, or why not.
struct ReductionJam {
  bool jammed = false;
  std::string whyNot;
};

/// Unrolls `outer` by `factor` and jams the copies of the one loop nested in
/// it, which carries values (a reduction), into one loop carrying `factor`
/// times as many: `scf.for %p = lo to hi { pre(p); r = scf.for %k (acc) {
/// body(p, k, acc) }; post(p, r) }` becomes a main loop over p in steps of
/// `factor` with pre, body and post copied once per p, then the original
/// loop over the remaining entries. Legal when `outer` has step 1, an
/// `index` induction variable compared signed, and carries nothing; the
/// inner loop's bounds do not depend on it; the inner loop nests no region
/// and `outer` none but it and branches (`scf.if`) without loops; the inner
/// loop does not write memory; and
/// each write of `outer` (scalar `memref.store`s) is indexed by its
/// induction variable itself, through a buffer value defined outside it, to
/// a buffer that `outer` reads only at those same indices, so iterations
/// touch disjoint memory and may be reordered.
/// As in sptune-promote-accumulators, a function's distinct arguments are
/// distinct buffers.
ReductionJam jamReductionLoop(RewriterBase &rewriter, scf::ForOp outer,
                              unsigned factor);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_REDUCTIONJAM_H
