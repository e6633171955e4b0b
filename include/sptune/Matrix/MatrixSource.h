//===- MatrixSource.h - Load a matrix from a file or a spec -----*- C++ -*-===//
//
// Part of sptune. One entry point for every tool that takes "a matrix": a
// Matrix Market path or a `gen:` generator spec, as stored in datasets'
// `matrix.source`.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_MATRIX_MATRIXSOURCE_H
#define SPTUNE_MATRIX_MATRIXSOURCE_H

#include "sptune/Matrix/SparseMatrix.h"

#include <string>

namespace sptune {

/// Loads `source` into `m` (canonical COO) and fills `info`:
///  - `gen:<kind>:...` is parsed and generated; id and source are the
///    canonical spec (so equal matrices get equal ids however the spec was
///    written);
///  - anything else is read as a Matrix Market file; id is the file name
///    without directories and without a trailing `.mtx`, source the absolute
///    path.
/// Fails with a message (for files `path:LINE: message`), leaving `m` empty.
llvm::Error loadMatrix(const std::string &source, CooMatrix &m,
                       MatrixInfo &info);

/// Whether two matrix sources name the same matrix: the same text, the
/// same file under two paths, or two spellings of one generator spec (a
/// `gen:` spec, or a `gen3:` spec of a 3-D tensor).
bool sameMatrixSource(const std::string &a, const std::string &b);

} // namespace sptune

#endif // SPTUNE_MATRIX_MATRIXSOURCE_H
