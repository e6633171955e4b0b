//===- SampledAggregation.h - An SDDMM and its SpMM in one pass -*- C++ -*-===//
//
// An attention layer's two sparse kernels, E = S ⊙ (A B) (SDDMM: a score
// per stored entry of S) then Y = E H (SpMM: the rows of H summed with the
// scores), each run as its schedule says, are two loops over S's rows: the
// SDDMM fills a copy of S with the scores, the SpMM reads them back. When E
// feeds nothing else, sptune computes both in one loop over the rows
// (FusedMM, Rahman et al., IPDPS 2021): for each stored (i, j) the score
//
//   s = S(i, j) (A(i, :) · B^T(j, :)) f,   then   Y(i, :) += s H(j, :),
//
// f the product of both kernels' invariant factors (a folded scale), with
// A's row and Y's row in vector registers across the row and the rows of
// B^T and H a few entries ahead prefetched. E is never stored: no copy of
// S, no second pass over it, one fork-join instead of two.
//
// The pair is fused when (else both run as scheduled, and
// whyNotSampledAggregation says why):
//   - both carry CPU schedules, neither visits its rows in another order,
//     they are in one block, and E's only uses are the SpMM and
//     bufferization.dealloc_tensor (E converted to other formats for the
//     SpMM counts as E; of S and its conversions for the SDDMM, the kernel
//     reads the one furthest back that is CSR, and the conversions after it
//     go);
//   - the SDDMM has the in-place form sptune-apply-schedule gives it (its
//     output a copy of S) and reads A(i, k) and B^T(j, k) with k
//     contiguous (layout [a : k, b : k]: the schedule stores B transposed),
//     K static;
//   - the SpMM reads E as its sparse operand, H(j, n) and Y(i, n) with n
//     contiguous, N static, Y starting from a linalg.fill of a fresh tensor
//     (the kernel allocates Y, each row's sums starting from the fill's
//     value);
//   - one element type, f32 or f64, and rows of A and Y of at most
//     kMaxFusedRowBytes;
//   - the two schedules agree on `parallel` and `threads` (the fused loop
//     takes the SDDMM's OpenMP knobs; it is vectorized over whole rows of
//     A and Y whatever either schedule's `vl`).
//
// The pair is replaced, before sparsification, by a call to a declared
// function (one per signature, schedule and parallelism in the module),
// whose body is written on the buffers that code generation gives its
// arguments (defineSampledAggregationKernels). The function carries the
// SDDMM's schedule, so its OpenMP knobs (threads, schedule kind and chunk,
// rows balanced by stored entries) apply to the fused row loop as to the
// SDDMM's own.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_SAMPLEDAGGREGATION_H
#define SPTUNE_TARGETS_CPU_SAMPLEDAGGREGATION_H

#include "sptune/Analysis/KernelMatcher.h"
#include "sptune/IR/SptuneAttrs.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace sptune {

/// The widest A row (K) and Y row (N) the fused kernel keeps in vector
/// registers, in bytes: 128 f32 or 64 f64 each, 16 of the 32 AVX-512
/// registers for both (AVX2's 16 spill some); wider pairs run as two
/// kernels.
constexpr int64_t kMaxFusedRowBytes = 512;

/// The attribute that marks a declared fused kernel: a dictionary
/// {types = [S, A, B^T, H, Y], parallel = bool}.
constexpr const char *kSampledAggregationAttrName =
    "sptune.sampled_aggregation";

/// An SDDMM and the SpMM that consumes its result, as the fused kernel
/// reads them.
struct SampledAggregation {
  linalg::LinalgOp sddmm, spmm;
  ScheduleAttr schedule; ///< the SDDMM's
  Value sample;          ///< S, the tensor the SDDMM's output copies
  Value a, bt;           ///< A(i, k), B^T(j, k)
  Value h, init;         ///< H(j, n), Y's initial value (i, n): a fill
  Value fillValue;       ///< the value Y's fill writes
  /// Both products' invariant factors (the SDDMM's first).
  SmallVector<InvariantFactor> factors;
  /// The sparse_tensor.converts that give E the SpMM's format (levels or
  /// widths), first to last (E is never stored: they go too).
  SmallVector<Operation *> conversions;
};

/// Why `sddmm` and the op that consumes its result cannot run as one fused
/// kernel (the file header's conditions), or "" when they can, with `pair`
/// filled in.
std::string whyNotSampledAggregation(linalg::LinalgOp sddmm,
                                     SampledAggregation &pair);

/// Replaces `pair` with a call to a declared fused kernel that computes Y
/// (the SpMM's result); E's deallocations go, deallocations of the call's
/// operands between the two kernels move after it, S's copy and Y's fill go
/// where nothing else uses them. `parallel`: the row loop
/// runs in parallel (else in one thread).
void outlineSampledAggregation(RewriterBase &rewriter,
                               const SampledAggregation &pair, bool parallel);

/// After the sparsifier's code generation: gives every declared fused
/// kernel of `module` its body on the buffers its signature now has. Fails
/// (with an error on the function) when the signature is not the one code
/// generation gives (a CSR tensor's buffers, then the dense operands'
/// memrefs and the scale).
LogicalResult defineSampledAggregationKernels(ModuleOp module);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_SAMPLEDAGGREGATION_H
