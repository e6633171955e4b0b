//===- FilledValue.h - An output that starts from a fill --------*- C++ -*-===//
//
// Part of sptune. The kernels sptune writes itself in place of a linalg op
// (the fused SDDMM-SpMM, MTTKRP, the batched SpMM; targets/cpu) allocate
// their dense result: they replace an op whose output starts from a
// linalg.fill of a fresh tensor, each row starting from the fill's value.
// An output passed in by the caller would be written in place by the op,
// and a fresh result would be a second buffer the caller cannot tell is
// free after the call.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_ANALYSIS_FILLEDVALUE_H
#define SPTUNE_ANALYSIS_FILLEDVALUE_H

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

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_ANALYSIS_FILLEDVALUE_H
