//===- Functional.h - Numeric execution of a SPADE program ------*- C++ -*-===//
//
// Part of sptune. The functional side of the simulator: executes a bound
// program's tile instructions on actual values (phase by phase, each PE's
// tiles in order, honouring the row order and the accumulate flags), and
// computes the reference result directly from the CSR matrix, so that a
// program that misses entries, counts them twice or overwrites partial sums
// is caught. Values are computed in double precision: the check is about the
// program's dataflow, not about fp32 rounding.
//
//   SpMM:  C (rows x N)  = A * B,        B dense cols x N
//   SDDMM: X (nnz)       = S .* (A * B), A dense rows x K, B dense K x cols
//          (stored transposed, cols x K); X in the CSR order of S.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_FUNCTIONAL_H
#define SPTUNE_TARGETS_SPADE_FUNCTIONAL_H

#include "spade/BoundProgram.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sptune {

/// Dense operands, row-major: `b` is cols x free (SpMM's B; SDDMM's B
/// transposed), `a` is rows x free (SDDMM only, else empty).
struct SpadeDenseInputs {
  int64_t free = 0;
  std::vector<double> a;
  std::vector<double> b;
};

/// Deterministic pseudo-random dense operands in [-1, 1) for `kernel`.
SpadeDenseInputs makeSpadeInputs(const CsrMatrix &m, KernelType kernel,
                                 int64_t free, uint64_t seed = 1);

/// Runs the bound program on values. SpMM: rows x free output, row-major;
/// SDDMM: one value per stored entry of the matrix, in CSR order.
std::vector<double> runSpadeFunctional(const SpadeBoundProgram &bound,
                                       const SpadeDenseInputs &in);

/// The reference result, and in `scale` (same shape) the sum of the
/// magnitudes of the products behind each element (the yardstick for
/// rounding differences).
std::vector<double> spadeReference(const CsrMatrix &m, KernelType kernel,
                                   const SpadeDenseInputs &in,
                                   std::vector<double> *scale = nullptr);

/// Empty when every |got - ref| <= tolerance * max(scale, tiny); else a
/// message naming the worst element and how many differ.
std::string compareSpadeResults(const std::vector<double> &got,
                                const std::vector<double> &ref,
                                const std::vector<double> &scale,
                                double tolerance, KernelType kernel,
                                int64_t free);

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_FUNCTIONAL_H
