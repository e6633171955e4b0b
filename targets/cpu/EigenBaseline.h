//===- EigenBaseline.h - The Eigen baseline ---------------------*- C++ -*-===//
//
// Part of sptune. Eigen's sparse x dense product (row-major CSR times a
// row-major dense matrix, OpenMP-parallel over rows inside Eigen) measured
// like the JIT kernels: same inputs, same check, same repetition policy.
// SDDMM has no Eigen counterpart and reports `illegal`.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_EIGENBASELINE_H
#define SPTUNE_TARGETS_CPU_EIGENBASELINE_H

#include "sptune/Target/Measurer.h"

namespace sptune {

Measurement measureEigen(const CsrMatrix &matrix, const KernelSpec &spec,
                         const MeasureOptions &options);

/// Threads Eigen uses (its OpenMP runtime's default).
int eigenThreads();

} // namespace sptune

#endif // SPTUNE_TARGETS_CPU_EIGENBASELINE_H
