//===- MatrixMarket.h - Matrix Market reader and writer ---------*- C++ -*-===//
//
// Part of sptune. Reads `%%MatrixMarket matrix coordinate` files with field
// real, integer or pattern and symmetry general, symmetric or skew-symmetric
// into a canonical CooMatrix, and writes COO matrices back. Errors are
// returned, never thrown: every message about the file's contents has the
// form `path:LINE: message`.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_MATRIX_MATRIXMARKET_H
#define SPTUNE_MATRIX_MATRIXMARKET_H

#include "sptune/Matrix/SparseMatrix.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sptune {

enum class MatrixMarketField { Real, Integer, Pattern };
enum class MatrixMarketSymmetry { General, Symmetric, SkewSymmetric };

/// What the banner and the size line of a file said.
struct MatrixMarketHeader {
  MatrixMarketField field = MatrixMarketField::Real;
  MatrixMarketSymmetry symmetry = MatrixMarketSymmetry::General;
  /// Entries stored in the file (before symmetric expansion).
  int64_t storedEntries = 0;
};

/// Reads the Matrix Market file at `path` into `out` (canonical: sorted
/// row-major, duplicates summed, explicit zeros kept). Symmetric and
/// skew-symmetric files are expanded to both triangles (an entry (i, j) also
/// gives (j, i), negated for skew-symmetric); pattern entries get the value
/// 1.0. Fails with `path:LINE: message` (or `path: message` when the file
/// cannot be read).
llvm::Expected<CooMatrix>
readMatrixMarket(const std::string &path, MatrixMarketHeader *header = nullptr);

/// Same as readMatrixMarket, parsing `text` in memory; `name` stands for the
/// path in messages.
llvm::Expected<CooMatrix>
parseMatrixMarket(std::string_view text, std::string_view name,
                  MatrixMarketHeader *header = nullptr);

struct MatrixMarketWriteOptions {
  /// Real writes the shortest text that reads back to the same double;
  /// Integer requires integral values; Pattern drops the values.
  MatrixMarketField field = MatrixMarketField::Real;
  /// Comment lines written after the banner (without the leading '%').
  std::vector<std::string> comments;
};

/// Formats `m` as a `coordinate ... general` Matrix Market text, entries in
/// the stored order. Fails on an invalid matrix or a non-integral value with
/// the Integer field.
llvm::Expected<std::string>
formatMatrixMarket(const CooMatrix &m,
                   const MatrixMarketWriteOptions &options = {});

/// Writes `m` to `path` ("-" writes to standard output).
llvm::Error writeMatrixMarket(const std::string &path, const CooMatrix &m,
                              const MatrixMarketWriteOptions &options = {});

} // namespace sptune

#endif // SPTUNE_MATRIX_MATRIXMARKET_H
