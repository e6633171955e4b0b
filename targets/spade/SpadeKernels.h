//===- SpadeKernels.h - The kernels SPADE runs ----------------*- C++ -*-===//
//
// Part of sptune. SPADE's processing elements have two modes: SpMM
// (C += A B, A sparse) and SDDMM (X = S ⊙ (A B), S sparse). Every other
// kernel stays on the host: schedules, the schedule space, programs and
// their text form all ask this one question.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_SPADEKERNELS_H
#define SPTUNE_TARGETS_SPADE_SPADEKERNELS_H

#include "sptune/Schedule/Vocabulary.h"

namespace sptune {

/// Whether SPADE's processing elements run `kernel` (SpMM or SDDMM).
inline bool spadeRunsKernel(KernelType kernel) {
  return kernel == KernelType::SpMM || kernel == KernelType::SDDMM;
}

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_SPADEKERNELS_H
