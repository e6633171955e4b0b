//===- RsbBaseline.h - librsb, the second library baseline ------*- C++ -*-===//
//
// Part of sptune. librsb (Debian `librsb-dev`) stores a sparse matrix as a
// recursive quad-tree of CSR/COO leaf blocks and multiplies it with a dense
// block of vectors in parallel over the leaves. It is the other library an
// HPC user would compare a tuned SpMM/SpMV with. Measured like the JIT
// kernels and Eigen: same inputs, same check, same repetition policy.
// SDDMM has no librsb counterpart and reports `illegal`.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_RSBBASELINE_H
#define SPTUNE_TARGETS_CPU_RSBBASELINE_H

#include "sptune/Target/Measurer.h"

namespace sptune {

/// Measures librsb's product for `spec` (SpMM: rsb_spmm with N row-major
/// right-hand sides; SpMV: rsb_spmv) after librsb's own autotuner
/// (rsb_tune_spmm: leaf-block layout and thread count) has tuned the matrix
/// for it, as librsb's users do; the tuning time goes to the details, not
/// into the measured time.
Measurement measureRsb(const CsrMatrix &matrix, const KernelSpec &spec,
                       const MeasureOptions &options);

} // namespace sptune

#endif // SPTUNE_TARGETS_CPU_RSBBASELINE_H
