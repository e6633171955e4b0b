//===- TextFile.h - Reading text inputs whole (private) ---------*- C++ -*-===//
//
// Part of sptune. What the Matrix Market and FROSTT readers and writers share:
// a file read whole into memory or written at once, an input file's
// identity, and a token quoted for a message.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_LIB_MATRIX_TEXTFILE_H
#define SPTUNE_LIB_MATRIX_TEXTFILE_H

#include "sptune/Matrix/SparseMatrix.h"

#include "llvm/Support/Error.h"

#include <string>
#include <string_view>

namespace sptune {
namespace detail {

/// Reads the regular file at `path` into `text`; false with
/// `path: message` in `error` on failure (a directory, a missing file, a read
/// error).
bool readTextFile(const std::string &path, std::string &text,
                  std::string &error);

/// Writes `text` to `path` ("-" writes to standard output); the error
/// (`path: message`) says what failed.
llvm::Error writeTextFile(const std::string &path, std::string_view text);

/// The identity of the input file `path`: its name without directories and
/// without a trailing `extension` as id, its absolute path as source.
MatrixInfo fileSourceInfo(const std::string &path, std::string_view extension);

/// A token for a message: printable, quoted, at most 40 characters.
std::string quotedToken(std::string_view token);

} // namespace detail
} // namespace sptune

#endif // SPTUNE_LIB_MATRIX_TEXTFILE_H
