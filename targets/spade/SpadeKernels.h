//===- SpadeKernels.h - The kernels SPADE runs ------------------*- C++ -*-===//
//
// Part of sptune. SPADE's processing elements have two modes: SpMM
// (C += A B, A sparse) and SDDMM (X = S ⊙ (A B), S sparse). Every other
// kernel stays on the host: schedules, the schedule space, programs and
// their text form ask spadeRunsKernel; the simulator asks spadeSamples which
// mode a program runs. Both read the kernel's shape (productShape).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_SPADEKERNELS_H
#define SPTUNE_TARGETS_SPADE_SPADEKERNELS_H

#include "sptune/Schedule/KernelTypes.h"

namespace sptune {

/// Whether SPADE's processing elements run `kernel`: a matrix-matrix
/// product (SpMM) or a sampled one (SDDMM).
inline bool spadeRunsKernel(KernelType kernel) {
  ProductShape shape = productShape(kernel);
  return shape == ProductShape::MatrixMatrix ||
         shape == ProductShape::SampledMatrixMatrix;
}

/// Whether `kernel` is SPADE's sampled product (SDDMM): its output is the
/// sparse operand's entries, not a dense matrix.
inline bool spadeSamples(KernelType kernel) {
  return productShape(kernel) == ProductShape::SampledMatrixMatrix;
}

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_SPADEKERNELS_H
