//===- BenchInputs.h - A bench module's inputs and reference ----*- C++ -*-===//
//
// Part of sptune. What the JIT measurers feed a bench module (BenchModule.h)
// and check its result against, derived from the kernel's descriptor like
// the module itself: the matrix as CSR buffers, every dense operand the
// entry points take (deterministic values, denseInput of Reference.h), and
// the double-precision reference result with per-value error bounds: the
// dense output, or the weighted checksum of a sparse output.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGET_BENCHINPUTS_H
#define SPTUNE_TARGET_BENCHINPUTS_H

#include "sptune/Matrix/Reference.h"
#include "sptune/Schedule/KernelDescriptor.h"
#include "sptune/Support/AlignedVector.h"
#include "sptune/Target/BenchModule.h"
#include "sptune/Target/Measurer.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace sptune {

/// The inputs of one (matrix, kernel) in the element type T, and the
/// reference result they must produce.
template <typename T> struct BenchInputs {
  std::vector<int64_t> pos, crd;
  std::vector<T> vals; ///< zeros for an in-place sampled output
  /// The dense operands the entry points take, in their order: the dense
  /// inputs in operand order (a transposed input as its transpose), then a
  /// dense output (zeros). On cache lines, as Eigen's are.
  std::vector<AlignedVector<T>> dense;
  /// The shape each of `dense` is passed with, outermost first.
  std::vector<std::vector<int64_t>> shapes;
  /// The result is a sparse output, checked by @sptune_check's checksum;
  /// otherwise it is the last of `dense`.
  bool sparseOutput = false;
  ReferenceResult reference;
};

/// Fills `in` for the kernel `d` on the matrix `m`, the rank-2 sparse
/// operand of `d` (its loops' sizes are m's). The k-th of n dense inputs
/// holds denseInput(..., n + k), its shape flattened to rows x last; the
/// reference reads the matrix's values at T's precision. Fails when `d` has
/// no rank-2 sparse operand, m does not fit it, or a dense operand would
/// exceed the sizes a vector holds.
template <typename T>
llvm::Error prepareBenchInputs(const KernelDescriptor &d,
                               const std::set<unsigned> &transposedInputs,
                               const CsrMatrix &m, BenchInputs<T> &in);

/// The reference of `d` on `m` with `dense` (the logical dense inputs in
/// operand order, row-major in their own dims): for a dense output, every
/// value with a bound of |terms| times (terms + 1); for a sparse output,
/// sum_ij X_ij w(i, j) over m's entries (checksumWeight); for two sparse
/// inputs, the checksum of m m (referenceSpGEMMChecksum). A sparse input
/// reads m's values as a `valueBits` kernel does; an in-place sampled output
/// (no sparse input) is the product on m's pattern, every value 1.
ReferenceResult referenceOf(const KernelDescriptor &d, const CsrMatrix &m,
                            const std::vector<std::vector<float>> &dense,
                            int valueBits);

/// The inputs of the last (matrix, kernel), per element type. Measurers see
/// one matrix many times; the matrix is identified by content because callers
/// reuse one CsrMatrix object for different matrices.
class BenchInputCache {
public:
  explicit BenchInputCache(SddmmForm sddmm) : sddmm(sddmm) {}
  /// The inputs of benchDescriptor(spec, m.rows, m.cols, sddmm), prepared
  /// when (m, spec) is not the last pair asked for.
  template <typename T>
  llvm::Expected<BenchInputs<T> &> get(const CsrMatrix &m,
                                       const KernelSpec &spec);

private:
  SddmmForm sddmm;
  /// What f32 and f64 hold, each its own: asked for the other type with the
  /// same key, the cache once returned inputs never prepared.
  std::string f32Key, f64Key;
  BenchInputs<float> f32;
  BenchInputs<double> f64;
};

} // namespace sptune

#endif // SPTUNE_TARGET_BENCHINPUTS_H
