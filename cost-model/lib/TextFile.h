//===- TextFile.h - Writing a whole text file -------------------*- C++ -*-===//
//
// Part of sptune. The training run (metrics, scores) and the learning loop
// (its state, through a temporary file) write whole files. A write that
// fails after the file opened (a full disk) must come back as an error:
// left on the stream, raw_fd_ostream's destructor makes it a fatal one.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_LIB_TEXTFILE_H
#define SPTUNE_COSTMODEL_LIB_TEXTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace sptune {

/// Writes `text` to `path`, replacing it.
inline llvm::Error writeTextFile(const std::string &path, llvm::StringRef text) {
  auto fail = [&](const std::string &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot write '" + path + "': " + why);
  };
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec)
    return fail(ec.message());
  out << text;
  out.close();
  if (out.has_error()) {
    std::string why = out.error().message();
    out.clear_error();
    return fail(why);
  }
  return llvm::Error::success();
}

} // namespace sptune

#endif // SPTUNE_COSTMODEL_LIB_TEXTFILE_H
