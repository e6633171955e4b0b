//===- ScheduleMapping.h - From a Schedule to MLIR constructs ---*- C++ -*-===//
//
// Part of sptune. The analysis side of sptune-apply-schedule: what a
// schedule means for one kernel op in MLIR terms — the sparse encoding of the
// scheduled storage, and the permutation of the (level-space) loops that
// realizes the scheduled loop order. No rewriting here.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_ANALYSIS_SCHEDULEMAPPING_H
#define SPTUNE_ANALYSIS_SCHEDULEMAPPING_H

#include "sptune/IR/SptuneAttrs.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SparseTensor/Transforms/Passes.h"
#include <string>

namespace mlir {
namespace sptune {

/// Whether the kernel's sparse operand stores its dimensions in the
/// non-canonical order (the sparse operand on the right: A(k,i)).
bool isSparseOperandTransposed(KernelAttr kernel);

/// Why `schedule` cannot be applied to `kernel` (kind mismatch, orientation,
/// static sizes the block sizes do not divide, unsupported kernel forms), or
/// an empty string.
std::string whyNotApplicable(KernelAttr kernel,
                             const ::sptune::Schedule &schedule);

/// The op operand that is the schedule's dense operand `n`
/// (`Schedule::denseOperands(kind)[n]`, found by the roles indexing it), or
/// -1 when the kernel has none (e.g. SpMM's output when it is sparse).
int denseOperandIndex(KernelAttr kernel, unsigned n);

/// Whether `kernel` is an elementwise product (a kind defined by its form,
/// e.g. sparse ⊙ dense) whose result is stored sparse, like its sparse
/// input.
bool isElementwiseIntoSparse(KernelAttr kernel);

/// Whether a kernel with `schedule` is computed in place on a copy of its
/// sparse input rather than into a fresh sparse output: an SDDMM into a
/// separate, materializing sparse output (`sparse_out` initialized by
/// tensor.empty) with the reduction loop innermost, or an elementwise
/// product into sparse storage (isElementwiseIntoSparse), on the CPU, with
/// row-major unblocked storage. In place, MLIR's sparsifier writes the
/// values of the copy at their positions — parallel loops are allowed (the
/// sparsifier never parallelizes insertions into a fresh output) — and an
/// SDDMM's reduction over contiguous rows of A and B^T vectorizes.
bool usesCopiedSampleForm(KernelAttr kernel,
                          const ::sptune::Schedule &schedule,
                          bool outputIsFresh);

/// Whether `enc` stores positions or coordinates narrower than 32 bits
/// (which MLIR 22.1's sparse_tensor.convert sign-extends when widening).
bool hasNarrowWidths(sparse_tensor::SparseTensorEncodingAttr enc);

/// The #sparse_tensor.encoding of the scheduled storage for the kernel's
/// sparse operand (levels as floordiv/mod of the operand's dimensions).
/// Where the operand stores 8- or 16-bit positions or coordinates and the
/// schedule keeps its levels, the operand's own encoding (its widths win
/// over the schedule's 32 or 64: nothing is converted; a schedule that
/// changes the levels converts through convertSparseStorage). An SpGEMM's is
/// its A's own encoding, an MTTKRP's its B's (their schedules convert
/// nothing).
sparse_tensor::SparseTensorEncodingAttr
buildScheduledEncoding(KernelAttr kernel, const ::sptune::Schedule &schedule);

/// For a linalg.generic in level space (after sparse-reinterpret-map), whose
/// input `sparseOperand` is the scheduled sparse operand: the interchange
/// vector (new loop n = old loop vector[n]) that puts the loops in the
/// schedule's order. Fails, saying why, when the loops cannot be matched.
llvm::Expected<SmallVector<unsigned>>
scheduledInterchange(linalg::GenericOp levelSpaceOp, unsigned sparseOperand,
                     const ::sptune::Schedule &schedule);

/// Position of the schedule's free loop among the loops of `levelSpaceOp`
/// (the loop the sparse operand does not index), or -1 (SpMV).
int freeLoopPosition(linalg::GenericOp levelSpaceOp, unsigned sparseOperand);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_ANALYSIS_SCHEDULEMAPPING_H
