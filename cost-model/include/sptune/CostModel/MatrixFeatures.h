//===- MatrixFeatures.h - Features of a sparsity pattern --------*- C++ -*-===//
//
// Part of sptune. What the cost model sees of a matrix: multi-scale density
// images (WACO), log-binned row/column degree histograms and log-scaled scalar
// statistics. Plain C++ (no torch): the pass featurizes a matrix and hands
// the result to `CostModel::rank`.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_MATRIXFEATURES_H
#define SPTUNE_COSTMODEL_MATRIXFEATURES_H

#include "sptune/Matrix/MatrixStats.h"
#include "sptune/Matrix/MeasuredOperand.h"
#include "sptune/Matrix/SparseMatrix.h"

#include <array>
#include <string>
#include <vector>

namespace sptune {

struct MatrixFeatures {
  /// Side lengths of the square density images, smallest first.
  static constexpr std::array<int, 3> kImageSizes = {32, 64, 128};
  /// Bins of the degree histograms: bin 0 holds empty rows (columns), bin
  /// b >= 1 lengths in [2^(b-1), 2^b); the last bin is open-ended.
  static constexpr int kHistBins = 24;
  /// Number of entries of `scalars` (see `scalarFeatureNames`).
  static constexpr int kNumScalars = 24;

  /// images[s] is kImageSizes[s]^2 values, row-major: cell (y, x) covers rows
  /// [y*rows/S, (y+1)*rows/S) and columns [x*cols/S, (x+1)*cols/S). Values are
  /// log(1 + count) divided by the largest one, so in [0, 1] (all zero for an
  /// empty matrix).
  std::array<std::vector<float>, 3> images;
  /// Fraction of rows (columns) per log2 degree bin; sums to 1 when the
  /// matrix has rows (columns).
  std::vector<float> rowHist, colHist;
  /// Log-scaled scalar statistics, in `scalarFeatureNames` order.
  std::vector<float> scalars;
  /// The raw statistics the scalars came from (the heuristic uses them).
  MatrixStats stats;

  /// Width of `vector()`.
  static constexpr int kVectorSize = 2 * kHistBins + kNumScalars;
  /// The non-image features as one vector: row histogram, column histogram,
  /// scalars.
  std::vector<float> vector() const;
  /// Whether every array has the size this build expects.
  bool isWellFormed() const;
};

/// Names of `MatrixFeatures::scalars`, in order.
const std::vector<std::string> &scalarFeatureNames();

/// Histogram bin of a row or column with `length` nonzeros.
int degreeBin(int64_t length);

/// Featurizes `m`'s sparsity pattern (values are ignored) with one pass over
/// its nonzeros, plus `computeStats` for the scalar statistics.
MatrixFeatures featurize(const CsrMatrix &m);
/// The same with statistics the caller already has (must be `m`'s).
MatrixFeatures featurize(const CsrMatrix &m, const MatrixStats &stats);

/// What the cost model sees of the 3-D tensor of an MTTKRP or a batched
/// SpMM (its batches the slices, its rows the fibers), in the
/// same arrays as a matrix's: the images, row histogram and statistics of
/// its fiber matrix (slices x fibers, sptune/Matrix/MeasuredOperand.h), the
/// histogram of entries per fiber in place of the column histogram, and the
/// tensor's entries, third size and typical fiber length in place of the
/// three diagonal scalars (tensorScalarFeatureNames). A model tells the two
/// apart by its kernel feature.
MatrixFeatures featurizeTensor(const CooTensor &t);
/// scalarFeatureNames with the three a tensor's features replace.
const std::vector<std::string> &tensorScalarFeatureNames();
/// featurizeTensor of a tensor operand, featurize of a matrix.
MatrixFeatures featurizeOperand(const MeasuredOperand &operand);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_MATRIXFEATURES_H
