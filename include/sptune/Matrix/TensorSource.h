//===- TensorSource.h - Load a 3-D tensor from a file or a spec -*- C++ -*-===//
//
// Part of sptune. One entry point for every tool that takes "a tensor": a
// FROSTT file or a `gen3:` generator spec, as `sptune.matrix` attributes,
// benches and datasets name it.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_MATRIX_TENSORSOURCE_H
#define SPTUNE_MATRIX_TENSORSOURCE_H

#include "sptune/Matrix/CooTensor.h"
#include "sptune/Matrix/SparseMatrix.h"

#include <string>
#include <string_view>

namespace sptune {

/// Whether `source` names a tensor rather than a matrix: a `gen3:` spec or
/// a path ending in `.tns` (FROSTT's extension).
bool isTensorSource(std::string_view source);

/// Loads `source` into `t` (canonical) and fills `info`:
///  - `gen3:<kind>:...` is parsed and generated; id and source are the
///    canonical spec;
///  - anything else is read as a FROSTT file; id is the file name without
///    directories (`.tns` kept, so that it never equals the id of a matrix
///    `foo.mtx` beside `foo.tns`), source the absolute path.
/// Fails with a message (for files `path:LINE: message`), leaving `t` empty.
llvm::Error loadTensor(const std::string &source, CooTensor &t,
                       MatrixInfo &info);

} // namespace sptune

#endif // SPTUNE_MATRIX_TENSORSOURCE_H
