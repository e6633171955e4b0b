//===- MeasuredOperand.h - The operand a measurement names ------*- C++ -*-===//
//
// Part of sptune. A dataset record, a learning pool's problem and a training
// run name the sparse operand of a measured kernel by its source: a matrix
// (`.mtx`, `gen:`) for SpMM, SDDMM, SpMV and SpGEMM, or a 3-D tensor
// (`.tns`, `gen3:`) for MTTKRP and the batched SpMM. One loader gives what
// they need of either:
// identity, the sizes records carry, a content hash for record keys, and a
// matrix for statistics and features (a tensor's fiber matrix).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_MATRIX_MEASUREDOPERAND_H
#define SPTUNE_MATRIX_MEASUREDOPERAND_H

#include "sptune/Matrix/CooTensor.h"
#include "sptune/Matrix/MatrixStats.h"
#include "sptune/Matrix/SparseMatrix.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace sptune {

struct MeasuredOperand {
  MatrixInfo info;
  /// The matrix (canonical), or the tensor's fiber matrix (fiberMatrix).
  CsrMatrix matrix;
  /// The tensor (canonical), when the source names one.
  std::optional<CooTensor> tensor;
  /// What a record says of its size: a matrix's rows, columns and entries;
  /// a tensor's first two sizes and its entries (the third is in its
  /// source).
  int64_t rows = 0, cols = 0, nnz = 0;
  /// contentHash of the matrix, or tensorContentHash of the tensor.
  uint64_t contentHash = 0;

  bool isTensor() const { return tensor.has_value(); }
};

/// Loads `source` (loadMatrix's or loadTensor's sources, told apart by
/// isTensorSource) into `out`. Fails with the loader's message.
llvm::Error loadMeasuredOperand(const std::string &source,
                                MeasuredOperand &out);

/// 64-bit FNV-1a hash of a canonical tensor's sizes, coordinates and values.
uint64_t tensorContentHash(const CooTensor &t);

/// The fiber matrix of a canonical 3-D tensor: dims[0] x dims[1], one entry
/// (i, j) per fiber (i, j, :) holding the fiber's entry count. It is the
/// pattern of CSF's first two levels, what an MTTKRP over the tensor walks
/// before its innermost loop.
CsrMatrix fiberMatrix(const CooTensor &t);

/// The statistics a target's heuristic reads of a 3-D tensor (its `stats`
/// for a kernel measured on one): its fiber matrix's, but with the tensor's
/// stored entries as nnz, which a kernel's work is counted in (a batched
/// SpMM's threshold of one thread, CpuHeuristic.cpp).
MatrixStats tensorHeuristicStats(const CooTensor &t);

/// The statistics a target's heuristic reads of `operand`: a matrix's own,
/// a tensor's tensorHeuristicStats.
MatrixStats heuristicStats(const MeasuredOperand &operand);

} // namespace sptune

#endif // SPTUNE_MATRIX_MEASUREDOPERAND_H
