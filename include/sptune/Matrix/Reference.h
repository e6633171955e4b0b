//===- Reference.h - Reference results of the kernels -----------*- C++ -*-===//
//
// Part of sptune. Double-precision reference results of SpMM, SpMV, SDDMM and
// SpGEMM,
// with per-entry error bounds, and the deterministic dense inputs every
// measurer uses, so that all targets are checked against the same numbers.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_MATRIX_REFERENCE_H
#define SPTUNE_MATRIX_REFERENCE_H

#include "sptune/Matrix/SparseMatrix.h"

#include <cstdint>
#include <vector>

namespace sptune {

/// Deterministic dense values in [-1, 1) for a rows x cols row-major matrix.
std::vector<float> denseInput(int64_t rows, int64_t cols, uint64_t seed);

/// The weight of entry (i, j) in sampled-output checksums, in (0, 1].
inline double checksumWeight(int64_t i, int64_t j) {
  return static_cast<double>((i * 7919 + j * 104729) % 1024 + 1) / 1024.0;
}

/// A reference result: values and, per value, a bound on the rounding error a
/// correct float computation may make (sum of |products| times a factor).
struct ReferenceResult {
  std::vector<double> values;
  std::vector<double> bounds;
};

/// The references read A's (S's) stored values as a kernel of `valueBits`-bit
/// elements does: rounded to float for 32 (beyond float range: infinities),
/// as stored for 64.
///
/// C = A * B with B k x n row-major; C is rows x n row-major.
ReferenceResult referenceSpMM(const CsrMatrix &a, const std::vector<float> &b,
                              int64_t n, int valueBits = 32);
/// y = A * x.
ReferenceResult referenceSpMV(const CsrMatrix &a, const std::vector<float> &x,
                              int valueBits = 32);
/// The checksum of X = S .* (A * B) over S's stored entries,
/// sum_ij X_ij * w(i,j) (one value, with its bound). A is rows x k row-major,
/// B is k x cols row-major.
ReferenceResult referenceSDDMMChecksum(const CsrMatrix &s,
                                       const std::vector<float> &a,
                                       const std::vector<float> &b, int64_t k,
                                       int valueBits = 32);

/// The checksum of C = A * B (both sparse; A's columns are B's rows) over
/// C's entries, sum_ij C_ij * w(i,j) (with its bound), then C's entries and
/// its entries in row-major order, twice the same exact count (a bench's
/// check counts the entries it reads and those after the previous one, so
/// that a duplicate or out-of-order entry is a mismatch). Every (i, j) that
/// some product reaches is an entry, a sum that cancels to zero too (it
/// adds nothing).
ReferenceResult referenceSpGEMMChecksum(const CsrMatrix &a, const CsrMatrix &b,
                                        int valueBits = 32);

/// A stored value as a kernel of `valueBits`-bit elements reads it: rounded
/// to float for 32 bits (a value beyond float range becomes an infinity),
/// as stored for 64.
double valueAt(double stored, int valueBits);

/// The `valueBits` of a kernel computing in T (float or double).
template <typename T>
constexpr int kValueBits = sizeof(T) == sizeof(double) ? 64 : 32;

/// Compares `got` with `ref`: every |got - ref| <= tolerance * bound + tiny,
/// or equal (equal infinities), or NaN where the reference is NaN.
/// Returns the index of the first mismatch, or -1.
int64_t firstMismatch(const ReferenceResult &ref, const double *got,
                      double tolerance);

} // namespace sptune

#endif // SPTUNE_MATRIX_REFERENCE_H
