//===- RowOrder.h - Row reordering of the sparse operand --------*- C++ -*-===//
//
// Part of sptune. SPADE may reorder the rows of the sparse operand before it
// is tiled. The order is a deterministic function of the matrix, so a program
// only names the kind of reordering and the simulator recomputes it.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_ROWORDER_H
#define SPTUNE_TARGETS_SPADE_ROWORDER_H

#include "sptune/Matrix/SparseMatrix.h"
#include "spade/SpadeKnobs.h"
#include "sptune/Schedule/Schedule.h"

#include <cstdint>
#include <vector>

namespace sptune {
namespace spade {

/// The row at each position: order[pos] = original row index.
///  - None: the identity.
///  - ByLength: rows by decreasing number of stored entries (ties by index),
///    so row panels hold rows of similar length.
///  - BySimilarity: rows grouped by a two-value MinHash signature of their
///    column sets (rows with equal signatures share most columns, since two
///    rows agree on one MinHash value with probability = their Jaccard
///    similarity), ties by index; empty rows last.
std::vector<int32_t> computeRowOrder(const CsrMatrix &m, RowReorder kind);

} // namespace spade
} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_ROWORDER_H
