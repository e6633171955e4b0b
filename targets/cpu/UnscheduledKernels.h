//===- UnscheduledKernels.h - Lowering kernels without a schedule -*- C++
//-*-===//
//
// Part of sptune. Sparse kernels outside the schedule space (batched
// products and MTTKRPs sptune's kernels do not compute, dense-output
// products sptune does not recognize, ...) carry no
// #sptune.schedule, and upstream's sparsifier run
// with its defaults computes them on one thread without vectors: 0.23x a
// hand CSF kernel for MTTKRP (docs/results.md). The CPU target's rule for
// them, applied by sptune-cpu-sparsify:
//
//   - parallel outermost loop, where that provably cannot race: whichever
//     loop upstream's loop sort puts outermost is a parallel iterator that
//     indexes the (dense) output, so iterations write disjoint elements;
//   - and then 8 vector lanes, where a parallel loop indexes no sparse
//     operand and is the innermost dimension of every dense operand it
//     indexes (MTTKRP's and batched SpMM's columns of the factor matrices),
//     which upstream's loop sort puts innermost in those kernels.
//
// Which loop is outermost is decided inside the sparsifier
// (sparse-reinterpret-map's topological sort), so the rule does not guess
// it: every sparse operand's levels must be visited in storage order, which
// makes the loop of level l + 1 come after the loop of level l; any loop
// that comes after no other can be put first, and each of those must be
// parallel and index the output. Sequential and scalar: a sparse output or
// several outputs; an operand of non-permutation storage (block-sparse: its
// demapped kernel keeps a scratch buffer outside the loops) or a slice; an
// indexing map that is not a projected permutation; level orders that
// conflict (upstream then reorders an operand, and any loop may come
// first); in a kernel of two inputs and only parallel loops, a dense input
// computed by a linalg op (upstream's pre-sparsification rewrite may fuse
// it in, and the fused kernel's loops are sorted anew).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_UNSCHEDULEDKERNELS_H
#define SPTUNE_TARGETS_CPU_UNSCHEDULEDKERNELS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <string>

namespace mlir {
namespace sptune {

/// The sparsifier settings the CPU target's rule gives a sparse kernel
/// without a schedule.
struct UnscheduledKernelRule {
  /// Parallelize the outermost loop (any storage).
  bool parallel = false;
  /// Why not, when `parallel` is false (named by sptune-cpu-sparsify's
  /// warning when it costs a scheduled kernel its settings).
  std::string whyNotParallel;
  /// Vector lanes for the innermost loop (0 = scalar; 0 when not parallel).
  unsigned vectorLength = 0;
};

/// The rule for `op`, a linalg op with a sparse operand and no schedule.
UnscheduledKernelRule unscheduledKernelRule(linalg::LinalgOp op);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_UNSCHEDULEDKERNELS_H
