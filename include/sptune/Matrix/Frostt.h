//===- Frostt.h - FROSTT tensor files (third-order) -------------*- C++ -*-===//
//
// Part of sptune. Reads third-order tensors from FROSTT files into a canonical
// CooTensor and writes them back, in the two forms in use:
//
//  - extended (what MLIR's sparse_tensor.new reads, and what sptune writes):
//    a line `3 NNZ`, a line of the three sizes, then NNZ lines `i j k value`;
//  - plain (the files of frostt.io): `i j k value` lines only; the sizes are
//    the largest coordinates.
//
// Coordinates are one-based. Lines starting with '#' or '%' and blank lines
// are skipped. Repeated coordinates are summed (CooTensor::canonicalize).
// Errors are returned, never thrown: every message about the file's contents
// has the form `path:LINE: message`.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_MATRIX_FROSTT_H
#define SPTUNE_MATRIX_FROSTT_H

#include "sptune/Matrix/CooTensor.h"

#include <string>
#include <string_view>

namespace sptune {

/// Reads the FROSTT file at `path` (either form) into a canonical tensor.
llvm::Expected<CooTensor> readFrostt(const std::string &path);

/// Same as readFrostt, parsing `text` in memory; `name` stands for the path
/// in messages.
llvm::Expected<CooTensor> parseFrostt(std::string_view text,
                                      std::string_view name);

/// The extended FROSTT text of `t`, entries in their stored order, values in
/// the shortest form that reads back to the same double. Fails on a tensor
/// that CooTensor::verify rejects.
llvm::Expected<std::string> formatFrostt(const CooTensor &t);

/// Writes `t` to `path` as extended FROSTT ("-" writes to standard output).
llvm::Error writeFrostt(const std::string &path, const CooTensor &t);

} // namespace sptune

#endif // SPTUNE_MATRIX_FROSTT_H
