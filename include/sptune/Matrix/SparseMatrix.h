//===- SparseMatrix.h - Plain sparse matrix containers ----------*- C++ -*-===//
//
// Part of sptune. COO and CSR matrices as plain C++ values (no MLIR, no torch),
// shared by the reader, the generators, the featurizer, the measurers and the
// accelerator simulator.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_MATRIX_SPARSEMATRIX_H
#define SPTUNE_MATRIX_SPARSEMATRIX_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sptune {

/// The largest row or column count sptune reads or generates (2^27): a CSR
/// row-pointer array of that many rows takes 1 GiB and every dense operand
/// grows with it, so larger sizes are refused with a message instead of
/// exhausting memory (coordinates are 32-bit in any case).
constexpr int64_t kMaxMatrixDim = int64_t(1) << 27;

/// Coordinate list. Entries may be unsorted and may repeat until
/// `canonicalize`.
struct CooMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<int32_t> rowIdx;
  std::vector<int32_t> colIdx;
  std::vector<double> values;

  int64_t nnz() const { return static_cast<int64_t>(rowIdx.size()); }
  void add(int32_t r, int32_t c, double v) {
    rowIdx.push_back(r);
    colIdx.push_back(c);
    values.push_back(v);
  }
  /// Sorts row-major and sums duplicates. Explicit zeros are kept (they are
  /// stored entries, as in SuiteSparse files that store them). Duplicates are
  /// summed in their original order, so the result is deterministic.
  void canonicalize();
  /// True if sorted row-major without duplicates.
  bool isCanonical() const;
  /// Checks that the three arrays have one length and every coordinate lies
  /// in [0, rows) x [0, cols); the error says which does not.
  llvm::Error verify() const;
};

/// Compressed sparse rows with sorted, unique column indices.
struct CsrMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<int64_t> rowPtr; // rows + 1 entries
  std::vector<int32_t> colIdx;
  std::vector<double> values;

  int64_t nnz() const { return static_cast<int64_t>(colIdx.size()); }
  int64_t rowLength(int64_t r) const { return rowPtr[r + 1] - rowPtr[r]; }

  /// Builds from a COO matrix (canonicalizing a copy when needed). The COO
  /// matrix must be valid (see CooMatrix::verify).
  static CsrMatrix fromCoo(const CooMatrix &coo);
  /// Same, consuming the COO matrix (no copy of the coordinates).
  static CsrMatrix fromCoo(CooMatrix &&coo);
  CooMatrix toCoo() const;
  CsrMatrix transposed() const;
};

/// A 64-bit FNV-1a hash of the shape, pattern and values: identifies a matrix
/// by content (callers reuse one CsrMatrix object for different matrices).
uint64_t contentHash(const CsrMatrix &m);

/// Identity and provenance of a matrix, carried into datasets.
struct MatrixInfo {
  /// Stable identifier: file stem for files, generator spec for synthetic ones.
  std::string id;
  /// Where it came from: a path, or "gen:<spec>".
  std::string source;
};

} // namespace sptune

#endif // SPTUNE_MATRIX_SPARSEMATRIX_H
