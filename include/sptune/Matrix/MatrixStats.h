//===- MatrixStats.h - Structural statistics of a sparse matrix -*- C++ -*-===//
//
// Part of sptune. Scalar structure of a sparsity pattern, computed in one pass
// over the nonzeros: printed by `sptune-matrix stats`, stored in datasets and
// used as the scalar part of the cost model's features.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_MATRIX_MATRIXSTATS_H
#define SPTUNE_MATRIX_MATRIXSTATS_H

#include "sptune/Matrix/SparseMatrix.h"

#include <array>
#include <cstdint>
#include <string>

namespace sptune {

struct MatrixStats {
  int64_t rows = 0, cols = 0, nnz = 0;
  double density = 0;
  // Row lengths (nonzeros per row).
  double rowMean = 0, rowStd = 0;
  int64_t rowMin = 0, rowMax = 0, emptyRows = 0;
  // Column lengths.
  double colMean = 0, colStd = 0;
  int64_t colMax = 0, emptyCols = 0;
  /// max |r - c| over the nonzeros.
  int64_t bandwidth = 0;
  /// mean |r - c| over the nonzeros.
  double meanDiagDistance = 0;
  /// Block sizes of `blockFill`.
  static constexpr std::array<int, 4> kBlockSizes = {2, 4, 8, 16};
  /// For b in kBlockSizes: nnz / (number of nonempty b x b blocks * b * b),
  /// i.e. how dense the nonempty aligned blocks are (1 = perfectly blocked).
  std::array<double, 4> blockFill = {0, 0, 0, 0};

  /// One JSON object with the fields above (snake_case names).
  std::string toJson() const;
};

MatrixStats computeStats(const CsrMatrix &m);

/// How `sptune-matrix stats` prints statistics: the table's header line,
/// one matrix's row of it, or one matrix's JSON object (its id, source and
/// `toJson`'s fields). With `timing`, the seconds of loading and of
/// `computeStats` are added (columns load_s, stats_s). Each ends in "\n".
std::string statsTableHeader(bool timing);
std::string statsTableRow(const MatrixStats &stats, const std::string &id,
                          bool timing, double loadSeconds, double statsSeconds);
std::string statsJsonLine(const MatrixStats &stats, const std::string &id,
                          const std::string &source, bool timing,
                          double loadSeconds, double statsSeconds);

} // namespace sptune

#endif // SPTUNE_MATRIX_MATRIXSTATS_H
