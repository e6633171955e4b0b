//===- FilledOutput.h - An output that starts from a fill -------*- C++ -*-===//
//
// Part of sptune. The kernels sptune writes itself in place of a linalg op
// (the fused SDDMM-SpMM, the factored MTTKRP) allocate their dense result:
// they replace an op whose output starts from a linalg.fill of a fresh
// tensor, each row starting from the fill's value. An output passed in by
// the caller would be written in place by the op, and a fresh result would
// be a second buffer the caller cannot tell is free after the call.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_FILLEDOUTPUT_H
#define SPTUNE_TARGETS_CPU_FILLEDOUTPUT_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Value.h"

namespace mlir {
namespace sptune {

/// The value `v` is filled with when it is a linalg.fill's result, or the
/// generic the fill is generalized into (a scalar input yielded as it is);
/// null otherwise.
Value filledValue(Value v);

/// The value `init` is filled with when it is such a fill of a fresh tensor
/// (`tensor.empty`, or `bufferization.alloc_tensor` without a copy); null
/// otherwise.
Value freshFillValue(Value init);

/// Erases `fill` (such a fill, whose op was replaced) and the fresh tensor
/// it fills, where nothing else uses them.
void eraseUnusedFill(RewriterBase &rewriter, Operation *fill);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_FILLEDOUTPUT_H
