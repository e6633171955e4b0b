//===- UnscheduledKernels.h - Lowering kernels without a schedule -*- C++
//-*-===//
//
// Part of sptune. Sparse kernels outside the schedule space (MTTKRP and
// batched products on 3-D tensors, dense-output products sptune does not
// recognize, ...) carry no #sptune.schedule, and upstream's sparsifier run
// with its defaults computes them on one thread without vectors: 0.23x a
// hand CSF kernel for MTTKRP (docs/results.md). The CPU target's rule for
// them, applied by sptune-cpu-sparsify:
//
//   - parallel outermost loop, where that provably cannot race: whichever
//     loop upstream's loop sort puts outermost is a parallel iterator that
//     indexes the (dense) output, so iterations write disjoint elements;
//   - 8 vector lanes where the kernel has a parallel loop that indexes no
//     sparse operand (MTTKRP's and batched SpMM's columns of the factor
//     matrices), which the sparsifier vectorizes innermost.
//
// Which loop is outermost is decided inside the sparsifier
// (sparse-reinterpret-map's topological sort), so the rule does not guess
// it: every sparse operand's levels must be visited in storage order, which
// makes the loop of level l + 1 come after the loop of level l; any loop
// that comes after no other can be put first, and each of those must be
// parallel and index the output. A sparse or missing output, an operand of
// non-permutation storage (block-sparse: its demapped kernel keeps a scratch
// buffer outside the loops), a slice, or an indexing map that is not a
// projected permutation leaves the kernel sequential.
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
  /// Why not, when `parallel` is false (for diagnostics and tests).
  std::string whyNotParallel;
  /// Vector lanes for the innermost loop (0 = scalar).
  unsigned vectorLength = 0;
};

/// The rule for `op`, a linalg op with a sparse operand and no schedule.
UnscheduledKernelRule unscheduledKernelRule(linalg::LinalgOp op);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_UNSCHEDULEDKERNELS_H
