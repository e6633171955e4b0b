//===- ReferenceBaseline.h - The hand-written kernels -----------*- C++ -*-===//
//
// Part of sptune. The `reference` baseline: SpMM, SDDMM and SpMV as an HPC
// engineer writes them in thirty lines of C++ with OpenMP, compiled with
// -O3 -march=native -fopenmp — the bar a tuned kernel has to clear, and the
// only baseline SDDMM has (no packaged CPU library implements it).
//   SpMM  C(i,:) += A(i,k) * B(k,:) over CSR rows, dense rows contiguous;
//   SpMV  y(i) = sum_k A(i,k) x(k) over CSR rows;
//   SDDMM X(i,j) = S(i,j) * dot(A(i,:), Bt(j,:)) over S's stored entries,
//         with B given transposed (both dot operands contiguous); the
//         transposition is not timed (it is in the details).
// Rows are distributed with OpenMP dynamic scheduling (chunk 64). Inputs,
// result check and repetition policy are those of the JIT measurements.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_REFERENCEBASELINE_H
#define SPTUNE_TARGETS_CPU_REFERENCEBASELINE_H

#include "sptune/Target/Measurer.h"

namespace sptune {

Measurement measureReference(const CsrMatrix &matrix, const KernelSpec &spec,
                             const MeasureOptions &options);

} // namespace sptune

#endif // SPTUNE_TARGETS_CPU_REFERENCEBASELINE_H
