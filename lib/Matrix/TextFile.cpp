//===- TextFile.cpp - Reading text inputs whole ---------------------------===//

#include "TextFile.h"

#include "sptune/Support/Error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>

bool sptune::detail::readTextFile(const std::string &path, std::string &text,
                                  std::string &error) {
  // fopen opens a directory too, and its "size" is not a size.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    error = path + ": not a regular file" +
            (S_ISDIR(st.st_mode) ? " (a directory)" : "");
    return false;
  }
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  text.clear();
  if (std::fseek(f, 0, SEEK_END) == 0) {
    long size = std::ftell(f);
    if (size > 0)
      text.reserve(static_cast<size_t>(size));
    std::fseek(f, 0, SEEK_SET);
  }
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0)
    text.append(buffer, n);
  bool failed = std::ferror(f);
  int savedErrno = errno;
  std::fclose(f);
  if (failed) {
    error = path + ": read error: " + std::strerror(savedErrno);
    return false;
  }
  return true;
}

llvm::Error sptune::detail::writeTextFile(const std::string &path,
                                          std::string_view text) {
  const bool toStdout = path == "-";
  FILE *f = toStdout ? stdout : std::fopen(path.c_str(), "wb");
  if (!f)
    return makeError(path +
                     ": cannot open for writing: " + std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int savedErrno = errno;
  ok = (toStdout ? std::fflush(f) : std::fclose(f)) == 0 && ok;
  if (!ok)
    return makeError(path + ": write error: " +
                     std::strerror(savedErrno ? savedErrno : errno));
  return llvm::Error::success();
}

sptune::MatrixInfo sptune::detail::fileSourceInfo(const std::string &path,
                                                  std::string_view extension) {
  namespace fs = std::filesystem;
  std::string name = fs::path(path).filename().string();
  if (name.size() > extension.size() &&
      std::string_view(name).substr(name.size() - extension.size()) ==
          extension)
    name.resize(name.size() - extension.size());
  MatrixInfo info;
  info.id = name;
  std::error_code ec;
  fs::path absolute = fs::absolute(fs::path(path), ec);
  info.source = ec ? path : absolute.lexically_normal().string();
  return info;
}

std::string sptune::detail::quotedToken(std::string_view token) {
  std::string out = "'";
  for (size_t i = 0; i < token.size() && i < 40; ++i) {
    unsigned char c = static_cast<unsigned char>(token[i]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  if (token.size() > 40)
    out += "...";
  return out + "'";
}
