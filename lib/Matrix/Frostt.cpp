//===- Frostt.cpp - FROSTT tensor files (third-order) ---------------------===//
//
// The reader loads the whole file and parses it line by line with
// std::from_chars, so that every error names the line it was found on.
//
//===----------------------------------------------------------------------===//

#include "sptune/Matrix/Frostt.h"

#include "sptune/Matrix/SparseMatrix.h"
#include "sptune/Support/Error.h"

#include "GeneratorSupport.h"
#include "TextFile.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace sptune;
using namespace sptune::detail;

namespace {

bool isBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// The data lines of a FROSTT text: blank and comment lines skipped, each
/// line split into its whitespace-separated tokens.
class LineReader {
public:
  explicit LineReader(std::string_view text)
      : p(text.data()), end(p + text.size()) {}

  /// Moves to the next data line; false at the end of the text.
  bool next() {
    while (p != end) {
      const char *nl =
          static_cast<const char *>(std::memchr(p, '\n', size_t(end - p)));
      const char *lineEnd = nl ? nl : end;
      std::string_view lineText(p, size_t(lineEnd - p));
      p = nl ? nl + 1 : end;
      ++lineNumber;
      tokens.clear();
      size_t i = 0;
      while (i < lineText.size()) {
        while (i < lineText.size() && isBlank(lineText[i]))
          ++i;
        size_t start = i;
        while (i < lineText.size() && !isBlank(lineText[i]))
          ++i;
        if (i > start)
          tokens.push_back(lineText.substr(start, i - start));
      }
      if (tokens.empty() || tokens[0][0] == '#' || tokens[0][0] == '%')
        continue;
      return true;
    }
    return false;
  }

  int64_t line() const { return lineNumber; }
  const std::vector<std::string_view> &fields() const { return tokens; }

private:
  const char *p, *end;
  int64_t lineNumber = 0;
  std::vector<std::string_view> tokens;
};

class Parser {
public:
  Parser(std::string_view text, std::string_view name)
      : lines(text), name(name) {}

  llvm::Expected<CooTensor> parse();

private:
  llvm::Error fail(const std::string &message) const {
    return failAt(lines.line(), message);
  }
  llvm::Error failAt(int64_t line, const std::string &message) const {
    return makeError(std::string(name) + ":" + std::to_string(line) + ": " +
                     message);
  }
  /// Reads the fields of an entry line into `t` (coordinates one-based, at
  /// most `limit[m]` in mode m).
  llvm::Error addEntry(CooTensor &t, const std::array<int64_t, 3> &limit);

  LineReader lines;
  std::string_view name;
};

llvm::Error Parser::addEntry(CooTensor &t,
                             const std::array<int64_t, 3> &limit) {
  const std::vector<std::string_view> &f = lines.fields();
  if (f.size() != 4)
    return fail("expected an entry 'i j k value' (4 fields), found " +
                std::to_string(f.size()) + " fields");
  int32_t c[3];
  for (int m = 0; m < 3; ++m) {
    int64_t v = 0;
    if (!parseInt(f[m], v))
      return fail("coordinate " + quotedToken(f[m]) +
                  " is not an integer of at most 64 bits");
    if (v < 1 || v > limit[m])
      return fail("coordinate " + std::to_string(v) + " of mode " +
                  std::to_string(m) + " is outside [1, " +
                  std::to_string(limit[m]) + "]");
    c[m] = static_cast<int32_t>(v - 1);
  }
  double value = 0;
  auto [end, ec] =
      std::from_chars(f[3].data(), f[3].data() + f[3].size(), value);
  if (end != f[3].data() + f[3].size() ||
      (ec != std::errc() && ec != std::errc::result_out_of_range))
    return fail("value " + quotedToken(f[3]) + " is not a number");
  if (ec == std::errc::result_out_of_range) {
    // Below the smallest double: strtod rounds it as MLIR's reader does
    // (to 0 or a subnormal); above the largest it is infinite. (Under a
    // locale whose decimal point is not '.', strtod stops early: refused.)
    std::string token(f[3]);
    char *stop = nullptr;
    value = std::strtod(token.c_str(), &stop);
    if (stop != token.c_str() + token.size())
      return fail("value " + quotedToken(f[3]) + " is not a number");
  }
  if (!std::isfinite(value))
    return fail("value " + quotedToken(f[3]) + " is not a finite double");
  t.add(c[0], c[1], c[2], value);
  return llvm::Error::success();
}

llvm::Expected<CooTensor> Parser::parse() {
  CooTensor t;
  if (!lines.next())
    return makeError(std::string(name) + ": no entries and no header (an "
                                         "empty FROSTT file)");
  const std::array<int64_t, 3> maxDims = {kMaxMatrixDim, kMaxMatrixDim,
                                          kMaxMatrixDim};
  if (lines.fields().size() == 2) {
    // Extended: `rank nnz`, the sizes, then nnz entries.
    const int64_t headerLine = lines.line();
    int64_t rank = 0, nnz = 0;
    if (!parseInt(lines.fields()[0], rank) || !parseInt(lines.fields()[1], nnz))
      return fail("expected a header 'RANK NNZ' of two integers");
    if (rank != 3)
      return fail("a tensor of rank " + std::to_string(rank) +
                  " (only third-order tensors are read)");
    if (nnz < 0)
      return fail("a negative entry count " + std::to_string(nnz));
    if (!lines.next())
      return fail("the sizes line is missing");
    if (lines.fields().size() != 3)
      return fail("expected the three sizes, found " +
                  std::to_string(lines.fields().size()) + " fields");
    for (int m = 0; m < 3; ++m)
      if (!parseInt(lines.fields()[m], t.dims[m]) || t.dims[m] < 0 ||
          t.dims[m] > kMaxMatrixDim)
        return fail("size " + quotedToken(lines.fields()[m]) + " of mode " +
                    std::to_string(m) + " is not an integer in [0, " +
                    std::to_string(kMaxMatrixDim) + "]");
    // A header may claim more entries than the file holds: at most 2^20
    // are reserved ahead.
    for (auto &c : t.coords)
      c.reserve(size_t(std::min<int64_t>(nnz, 1 << 20)));
    int64_t read = 0;
    while (lines.next()) {
      if (read == nnz)
        return fail("more entries than the header's " + std::to_string(nnz));
      if (llvm::Error e = addEntry(t, t.dims))
        return std::move(e);
      ++read;
    }
    if (read != nnz)
      return failAt(headerLine, "the header announces " + std::to_string(nnz) +
                                    " entries, the file has " +
                                    std::to_string(read));
  } else {
    // Plain: entries only; each size is the largest coordinate.
    if (lines.fields().size() != 4)
      return fail("expected a header 'RANK NNZ' or an entry 'i j k value', "
                  "found " +
                  std::to_string(lines.fields().size()) + " fields");
    do {
      if (llvm::Error e = addEntry(t, maxDims))
        return std::move(e);
    } while (lines.next());
    for (int m = 0; m < 3; ++m)
      t.dims[m] = 1 + *std::max_element(t.coords[m].begin(), t.coords[m].end());
  }
  t.canonicalize();
  return t;
}

} // namespace

llvm::Expected<CooTensor> sptune::parseFrostt(std::string_view text,
                                              std::string_view name) {
  return Parser(text, name).parse();
}

llvm::Expected<CooTensor> sptune::readFrostt(const std::string &path) {
  std::string text, error;
  if (!readTextFile(path, text, error))
    return makeError(error);
  return parseFrostt(text, path);
}

llvm::Expected<std::string> sptune::formatFrostt(const CooTensor &t) {
  if (llvm::Error e = t.verify())
    return std::move(e);
  std::string out = "3 ";
  appendNumber(out, t.nnz());
  out += '\n';
  for (int m = 0; m < 3; ++m) {
    appendNumber(out, t.dims[m]);
    out += m < 2 ? ' ' : '\n';
  }
  out.reserve(out.size() + size_t(t.nnz()) * 40);
  for (int64_t e = 0; e < t.nnz(); ++e) {
    for (int m = 0; m < 3; ++m) {
      appendNumber(out, int64_t(t.coords[m][e]) + 1);
      out += ' ';
    }
    appendNumber(out, t.values[e]);
    out += '\n';
  }
  return out;
}

llvm::Error sptune::writeFrostt(const std::string &path, const CooTensor &t) {
  llvm::Expected<std::string> text = formatFrostt(t);
  if (!text)
    return makeError(path + ": " + llvm::toString(text.takeError()));
  return writeTextFile(path, *text);
}
