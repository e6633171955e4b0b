//===- Files.h - Paths sptune may read records from -------------*- C++ -*-===//
//
// Part of sptune. Readers of datasets, tuning databases, models and
// programs load the whole file or read it line by line: given /dev/zero or
// /dev/full (endless input without a line break) they grew a buffer until
// the allocator aborted. `whyNotAFile` refuses directories and devices
// before anything is read; regular files and pipes are read.
// `whyNotReplaceable` guards the writers that replace a file atomically (a
// temporary file renamed over it): renamed over a device (as root,
// /dev/full), a pipe or a directory, that replaced the node itself and
// reported success.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SUPPORT_FILES_H
#define SPTUNE_SUPPORT_FILES_H

#include "sptune/Support/Error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace sptune {

/// Why `path` cannot be read as a file ("" when it can: a regular file, a
/// pipe, or nothing there, which the caller handles).
inline std::string whyNotAFile(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return "";
  if (S_ISDIR(st.st_mode))
    return "'" + path + "' is a directory";
  if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))
    return "";
  return "'" + path + "' is not a regular file (a device or a socket)";
}

/// Why `path` cannot be replaced by renaming a new file over it ("" when it
/// can: nothing is there, or a regular file, also through a symbolic link).
inline std::string whyNotReplaceable(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode))
    return "";
  if (S_ISDIR(st.st_mode))
    return "'" + path + "' is a directory";
  return "'" + path +
         "' is not a regular file (a device, a pipe or a socket); sptune "
         "writes it through a temporary file renamed over it, which would "
         "replace the node";
}

/// Replaces the file at `path` by `bytes`: written to a temporary file next
/// to it, flushed to disk and renamed over it, so that a reader (or a kill)
/// sees the old file or the new one, never half of one. Refuses a `path`
/// that is not a regular file (whyNotReplaceable). Fails, saying what, when
/// anything fails; the temporary file is removed then. Every writer of
/// whole files that others read (models, datasets, tuning databases, the
/// learning state) goes through here.
inline llvm::Error replaceFileAtomically(const std::string &path,
                                         std::string_view bytes) {
  if (std::string why = whyNotReplaceable(path); !why.empty())
    return makeError("cannot write " + why);
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f)
    return makeError("cannot write '" + tmp + "': " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size() &&
            std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  int writeErrno = errno;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    std::remove(tmp.c_str());
    return makeError("cannot write '" + tmp +
                     "': " + std::strerror(writeErrno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    llvm::Error error = makeError("cannot rename '" + tmp + "' to '" + path +
                                  "': " + std::strerror(errno));
    std::remove(tmp.c_str());
    return error;
  }
  return llvm::Error::success();
}

} // namespace sptune

#endif // SPTUNE_SUPPORT_FILES_H
