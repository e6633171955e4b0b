//===- Files.h - Paths sptune may read records from -------------*- C++ -*-===//
//
// Part of sptune. Readers of datasets, tuning databases, models and
// programs load the whole file or read it line by line: given /dev/zero or
// /dev/full (endless input without a line break) they grew a buffer until
// the allocator aborted. `whyNotAFile` refuses directories and devices
// before anything is read; regular files and pipes are read.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SUPPORT_FILES_H
#define SPTUNE_SUPPORT_FILES_H

#include <string>
#include <sys/stat.h>

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

} // namespace sptune

#endif // SPTUNE_SUPPORT_FILES_H
