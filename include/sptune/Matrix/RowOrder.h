//===- RowOrder.h - Orders in which to visit a matrix's rows ----*- C++ -*-===//
//
// Part of sptune. A kernel that walks a sparse matrix row by row (SpMM,
// SDDMM, SpMV over compressed rows) reads the dense rows its entries' columns
// name. Visiting rows that name nearby columns one after another keeps those
// dense rows in cache. These functions compute such a visiting order; the
// rows keep their storage and the results their places.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_MATRIX_ROWORDER_H
#define SPTUNE_MATRIX_ROWORDER_H

#include "sptune/Matrix/SparseMatrix.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sptune {

/// Why `m`'s rows cannot be put in reverse Cuthill-McKee order ("" when they
/// can): the order is one of the graph whose vertices are both rows and
/// columns, so the matrix must be square; and its rows are numbered with
/// 32 bits.
std::string whyNoReverseCuthillMcKee(const CsrMatrix &m);

/// The reverse Cuthill-McKee order of `m`'s rows: a permutation `order`
/// of [0, rows), row `order[n]` visited n-th. The graph is that of the
/// symmetrized pattern (an edge i - j for each stored (i, j) or (j, i),
/// self-loops ignored); each connected component is walked breadth first
/// from an unvisited vertex of lowest degree, a vertex's unvisited
/// neighbours queued by ascending degree (ties by number), and the whole
/// order reversed. Deterministic. O(nnz log(max degree)) time, O(nnz) memory.
/// `m` must satisfy whyNoReverseCuthillMcKee.
std::vector<int32_t> reverseCuthillMcKee(const CsrMatrix &m);

} // namespace sptune

#endif // SPTUNE_MATRIX_ROWORDER_H
