//===- FuseScales.h - A scale after a kernel folded into it -----*- C++ -*-===//
//
// Part of sptune. An attention layer scales its SDDMM's scores in an op of
// their own (`E = S ⊙ (Q Kᵀ)`, then `E / sqrt(d)`): one more pass over the
// sparse result and one more sparse tensor to build. When that is exact, the
// scale is folded into the kernel's product (a kernel "scaled by an
// invariant", docs/kernels.md), which is then tuned as one kernel.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TRANSFORMS_FUSESCALES_H
#define SPTUNE_TRANSFORMS_FUSESCALES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/Support/Error.h"

namespace mlir {
namespace sptune {

/// Folds `scale` into the kernel that produces its input, or returns an
/// error saying why not and changes nothing. `scale` must be an elementwise op (identity
/// maps, parallel loops) whose body multiplies its one input by invariant
/// factors (a constant or a value defined before the kernel; or divides by
/// a non-zero constant), of the kernel's result type. The kernel must be a
/// multiply-accumulate or an elementwise product (the matcher's bodies,
/// not the in-place sampled one, whose sums start from the stored values),
/// whose result only `scale` uses, and, when it accumulates, whose output
/// starts from nothing: a fresh sparse tensor (tensor.empty,
/// bufferization.alloc_tensor without a copy) or a dense zero (a splat
/// constant, a linalg.fill), so that c · Σ p = Σ c · p. Returns the kernel,
/// which now yields what `scale` did.
llvm::Expected<linalg::LinalgOp> fuseScaleIntoProducer(RewriterBase &rewriter,
                                                       linalg::GenericOp scale);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TRANSFORMS_FUSESCALES_H
