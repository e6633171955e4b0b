//===- CooTensor.h - A third-order sparse tensor as a value -----*- C++ -*-===//
//
// Part of sptune. The sparse input of the kernels over 3-D tensors (MTTKRP's
// B(i, k, l), the batched SpMM's B(b, i, k)) as a plain C++ value: read from
// FROSTT files (sptune/Matrix/Frostt.h), generated from `gen3:` specs
// (sptune/Matrix/TensorGenerators.h), described by TensorStats.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_MATRIX_COOTENSOR_H
#define SPTUNE_MATRIX_COOTENSOR_H

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <vector>

namespace sptune {

/// Coordinate list of a third-order tensor: entry n is
/// (coords[0][n], coords[1][n], coords[2][n]) -> values[n]. Each size is at
/// most kMaxMatrixDim (a kernel's dense operands grow with every mode, as a
/// matrix's do). Entries may be unsorted and may repeat until `canonicalize`.
struct CooTensor {
  std::array<int64_t, 3> dims = {0, 0, 0};
  std::array<std::vector<int32_t>, 3> coords;
  std::vector<double> values;

  int64_t nnz() const { return static_cast<int64_t>(values.size()); }
  void add(int32_t i, int32_t j, int32_t k, double v) {
    coords[0].push_back(i);
    coords[1].push_back(j);
    coords[2].push_back(k);
    values.push_back(v);
  }
  /// Sorts the entries lexicographically (mode 0 slowest) and sums repeated
  /// coordinates in their original order (deterministic). Explicit zeros are
  /// kept.
  void canonicalize();
  /// True if sorted lexicographically without repeats.
  bool isCanonical() const;
  /// Checks that the four arrays have one length, the sizes lie in
  /// [0, kMaxMatrixDim] and every coordinate within them; the error says
  /// which does not.
  llvm::Error verify() const;
};

} // namespace sptune

#endif // SPTUNE_MATRIX_COOTENSOR_H
