//===- MatrixMarket.cpp - Matrix Market reader and writer -----------------===//
//
// The reader loads the whole file into memory and parses it in one pass with
// std::from_chars, counting lines as it goes so that every error names the
// line it was found on.
//
//===----------------------------------------------------------------------===//

#include "sptune/Matrix/MatrixMarket.h"

#include "sptune/Support/Error.h"

#include "TextFile.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace sptune;

namespace {

constexpr int64_t kMaxDim = kMaxMatrixDim;

bool isBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

char toLower(char c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

std::string lowered(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), toLower);
  return out;
}

/// One-pass Matrix Market parser over an in-memory buffer.
class Parser {
public:
  Parser(std::string_view text, std::string_view name, std::string &error)
      : begin(text.data()), p(text.data()), end(text.data() + text.size()),
        name(name), error(error) {}

  bool parse(CooMatrix &out, MatrixMarketHeader &header);

private:
  bool fail(int64_t atLine, const std::string &message) {
    error = std::string(name) + ":" + std::to_string(atLine) + ": " + message;
    return false;
  }
  bool fail(const std::string &message) { return fail(line, message); }
  /// The last line of the file (for errors found at its end).
  int64_t lastLine() const {
    return (end != begin && end[-1] == '\n') ? line - 1 : line;
  }

  bool atLineEnd() const { return p == end || *p == '\n'; }
  void skipBlanks() {
    while (p != end && isBlank(*p))
      ++p;
  }
  /// Moves past the end of the current line.
  void skipLine() {
    const void *nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (!nl) {
      p = end;
      return;
    }
    p = static_cast<const char *>(nl) + 1;
    ++line;
  }
  /// The whitespace-delimited token starting at `at`.
  std::string_view tokenAt(const char *at) const {
    const char *q = at;
    while (q != end && !isBlank(*q) && *q != '\n')
      ++q;
    return std::string_view(at, static_cast<size_t>(q - at));
  }
  /// The rest of the current line from `at`, without the line break.
  std::string_view restOfLine(const char *at) const {
    const char *q = at;
    while (q != end && *q != '\n')
      ++q;
    while (q != at && isBlank(q[-1]))
      --q;
    return std::string_view(at, static_cast<size_t>(q - at));
  }
  /// True if the character after a number ends its token.
  bool endsToken(const char *q) const {
    return q == end || isBlank(*q) || *q == '\n';
  }

  bool parseBanner(MatrixMarketHeader &header);
  bool parseSizeLine(int64_t &rows, int64_t &cols, int64_t &entries);
  bool parseIndex(const char *what, int64_t limit, int32_t &out);
  bool parseValue(MatrixMarketField field, double &out);

  const char *begin, *p, *end;
  int64_t line = 1;
  std::string_view name;
  std::string &error;
};

} // namespace

bool Parser::parseBanner(MatrixMarketHeader &header) {
  static constexpr std::string_view kBanner = "%%MatrixMarket";
  static constexpr const char *kExpected =
      "expected '%%MatrixMarket matrix coordinate <real|integer|pattern> "
      "<general|symmetric|skew-symmetric>'";
  if (p == end)
    return fail("empty file: missing '%%MatrixMarket' banner");
  std::string_view first = restOfLine(p);
  if (first.size() < kBanner.size() ||
      lowered(first.substr(0, kBanner.size())) != lowered(kBanner))
    return fail("missing '%%MatrixMarket' banner on the first line (found " +
                detail::quotedToken(first) + ")");
  p += kBanner.size();
  std::string tokens[4];
  for (std::string &tok : tokens) {
    skipBlanks();
    if (atLineEnd())
      return fail(std::string("incomplete banner: ") + kExpected);
    std::string_view t = tokenAt(p);
    tok = lowered(t);
    p += t.size();
  }
  skipBlanks();
  if (!atLineEnd())
    return fail("unexpected text after the banner: " +
                detail::quotedToken(tokenAt(p)));

  if (tokens[0] != "matrix")
    return fail("unsupported object " + detail::quotedToken(tokens[0]) +
                " (only 'matrix' is supported)");
  if (tokens[1] == "array")
    return fail("unsupported format 'array' (only sparse 'coordinate' files "
                "are supported)");
  if (tokens[1] != "coordinate")
    return fail("unknown format " + detail::quotedToken(tokens[1]) + ": " +
                kExpected);
  if (tokens[2] == "real")
    header.field = MatrixMarketField::Real;
  else if (tokens[2] == "integer")
    header.field = MatrixMarketField::Integer;
  else if (tokens[2] == "pattern")
    header.field = MatrixMarketField::Pattern;
  else if (tokens[2] == "complex")
    return fail("unsupported field 'complex' (expected real, integer or "
                "pattern)");
  else
    return fail("unknown field " + detail::quotedToken(tokens[2]) +
                " (expected real, integer or pattern)");
  if (tokens[3] == "general")
    header.symmetry = MatrixMarketSymmetry::General;
  else if (tokens[3] == "symmetric")
    header.symmetry = MatrixMarketSymmetry::Symmetric;
  else if (tokens[3] == "skew-symmetric")
    header.symmetry = MatrixMarketSymmetry::SkewSymmetric;
  else if (tokens[3] == "hermitian")
    return fail("unsupported symmetry 'hermitian' (expected general, "
                "symmetric or skew-symmetric)");
  else
    return fail("unknown symmetry " + detail::quotedToken(tokens[3]) +
                " (expected general, symmetric or skew-symmetric)");
  skipLine();
  return true;
}

bool Parser::parseSizeLine(int64_t &rows, int64_t &cols, int64_t &entries) {
  const char *lineStart = p;
  auto bad = [&]() {
    return fail("bad size line " + detail::quotedToken(restOfLine(lineStart)) +
                ": expected 'rows cols entries' (three non-negative "
                "integers)");
  };
  int64_t *fields[3] = {&rows, &cols, &entries};
  for (int64_t *f : fields) {
    skipBlanks();
    if (atLineEnd())
      return bad();
    if (*p == '+')
      ++p;
    auto [q, ec] = std::from_chars(p, end, *f);
    if (ec == std::errc::result_out_of_range && endsToken(q))
      return fail("size " + detail::quotedToken(tokenAt(p)) + " is too large");
    if (ec != std::errc() || !endsToken(q) || *f < 0)
      return bad();
    p = q;
  }
  skipBlanks();
  if (!atLineEnd())
    return fail("unexpected text after the size line: " +
                detail::quotedToken(tokenAt(p)));
  if (rows > kMaxDim || cols > kMaxDim)
    return fail("matrix too large: " + std::to_string(rows) + " x " +
                std::to_string(cols) + " (at most " + std::to_string(kMaxDim) +
                " rows and columns)");
  return true;
}

bool Parser::parseIndex(const char *what, int64_t limit, int32_t &out) {
  skipBlanks();
  if (atLineEnd())
    return fail(std::string("missing ") + what);
  const char *tok = p;
  const char *digits = (*p == '+') ? p + 1 : p;
  int64_t v = 0;
  auto [q, ec] = std::from_chars(digits, end, v);
  if ((ec != std::errc() && ec != std::errc::result_out_of_range) ||
      !endsToken(q))
    return fail(std::string("expected an integer ") + what + ", found " +
                detail::quotedToken(tokenAt(tok)));
  if (ec == std::errc::result_out_of_range || v < 1 || v > limit)
    return fail(std::string(what) + " " + detail::quotedToken(tokenAt(tok)) +
                " out of range [1, " + std::to_string(limit) + "]");
  out = static_cast<int32_t>(v - 1);
  p = q;
  return true;
}

bool Parser::parseValue(MatrixMarketField field, double &out) {
  skipBlanks();
  if (atLineEnd())
    return fail("missing value");
  const char *tok = p;
  const char *num = p;
  if (*num == '+' && num + 1 != end &&
      ((num[1] >= '0' && num[1] <= '9') || num[1] == '.'))
    ++num;
  if (field == MatrixMarketField::Integer) {
    int64_t v = 0;
    auto [q, ec] = std::from_chars(num, end, v);
    if (ec == std::errc::result_out_of_range && endsToken(q))
      return fail("integer value " + detail::quotedToken(tokenAt(tok)) +
                  " out of range");
    if (ec != std::errc() || !endsToken(q))
      return fail("expected an integer value, found " +
                  detail::quotedToken(tokenAt(tok)));
    out = static_cast<double>(v);
    p = q;
    return true;
  }
  auto [q, ec] = std::from_chars(num, end, out);
  if ((ec == std::errc() && !endsToken(q) && (*q == 'd' || *q == 'D')) ||
      ec == std::errc::result_out_of_range) {
    // Fortran exponents (1.0D+00) and values beyond the double range: copy
    // the token, fix the exponent letter, and let strtod decide (it
    // underflows to zero and overflows to infinity).
    std::string copy(tokenAt(num));
    for (char &c : copy)
      if (c == 'd' || c == 'D')
        c = 'e';
    char *stop = nullptr;
    errno = 0;
    out = std::strtod(copy.c_str(), &stop);
    if (stop != copy.c_str() + copy.size())
      return fail("expected a real value, found " +
                  detail::quotedToken(tokenAt(tok)));
    if (std::isinf(out))
      return fail("value " + detail::quotedToken(tokenAt(tok)) +
                  " out of range");
    p = num + copy.size();
    return true;
  }
  if (ec != std::errc() || !endsToken(q))
    return fail("expected a real value, found " +
                detail::quotedToken(tokenAt(tok)));
  if (!std::isfinite(out))
    return fail("non-finite value " + detail::quotedToken(tokenAt(tok)));
  p = q;
  return true;
}

bool Parser::parse(CooMatrix &out, MatrixMarketHeader &header) {
  if (!parseBanner(header))
    return false;

  // Comments and blank lines, then the size line.
  for (;;) {
    skipBlanks();
    if (p == end)
      return fail(lastLine(), "missing size line 'rows cols entries' (the "
                              "file ends before it)");
    if (*p == '\n') {
      skipLine();
      continue;
    }
    if (*p == '%') {
      skipLine();
      continue;
    }
    break;
  }
  int64_t rows = 0, cols = 0, declared = 0;
  if (!parseSizeLine(rows, cols, declared))
    return false;
  const bool symmetric = header.symmetry != MatrixMarketSymmetry::General;
  if (symmetric && rows != cols)
    return fail(std::string(header.symmetry == MatrixMarketSymmetry::Symmetric
                                ? "symmetric"
                                : "skew-symmetric") +
                " matrix must be square, but the size line says " +
                std::to_string(rows) + " x " + std::to_string(cols));
  skipLine();
  header.storedEntries = declared;

  out.rows = rows;
  out.cols = cols;
  // Every entry takes at least 4 bytes ("1 1\n"): do not trust a huge count.
  int64_t reserve = std::min<int64_t>(declared, (end - p) / 4 + 1);
  if (symmetric)
    reserve *= 2;
  out.rowIdx.reserve(reserve);
  out.colIdx.reserve(reserve);
  out.values.reserve(reserve);

  const MatrixMarketField field = header.field;
  const double mirrorSign =
      header.symmetry == MatrixMarketSymmetry::SkewSymmetric ? -1.0 : 1.0;
  int64_t seen = 0;
  // For symmetric files: the first line with an entry strictly below and
  // strictly above the diagonal. Storing both triangles would double count.
  int64_t lowerLine = 0, upperLine = 0;
  while (p != end) {
    skipBlanks();
    if (p == end)
      break;
    if (*p == '\n' || *p == '%') {
      skipLine();
      continue;
    }
    if (seen == declared)
      return fail("more entries than the " + std::to_string(declared) +
                  " declared in the size line");
    int32_t r = 0, c = 0;
    double v = 1.0;
    if (!parseIndex("row index", rows, r) ||
        !parseIndex("column index", cols, c))
      return false;
    if (field != MatrixMarketField::Pattern && !parseValue(field, v))
      return false;
    skipBlanks();
    if (!atLineEnd())
      return fail("unexpected text after the entry: " +
                  detail::quotedToken(tokenAt(p)));
    ++seen;
    out.add(r, c, v);
    if (symmetric && r != c) {
      out.add(c, r, mirrorSign * v);
      int64_t &mine = r > c ? lowerLine : upperLine;
      if (!mine)
        mine = line;
      if (lowerLine && upperLine)
        return fail(
            "symmetric file stores entries on both sides of the diagonal "
            "(below on line " +
            std::to_string(lowerLine) + ", above on line " +
            std::to_string(upperLine) + "); only one triangle may be stored");
    } else if (r == c &&
               header.symmetry == MatrixMarketSymmetry::SkewSymmetric) {
      return fail("diagonal entry (" + std::to_string(r + 1) + ", " +
                  std::to_string(c + 1) +
                  ") in a skew-symmetric matrix (its diagonal is zero and "
                  "must not be stored)");
    }
    if (p != end)
      ++p, ++line; // the '\n'
  }
  if (seen < declared) {
    return fail(lastLine(), "file ends after " + std::to_string(seen) +
                                " of the " + std::to_string(declared) +
                                " entries declared in the size line");
  }
  out.canonicalize();
  return true;
}

llvm::Expected<CooMatrix>
sptune::parseMatrixMarket(std::string_view text, std::string_view name,
                          MatrixMarketHeader *header) {
  CooMatrix out;
  MatrixMarketHeader local;
  std::string error;
  Parser parser(text, name, error);
  if (!parser.parse(out, header ? *header : local))
    return makeError(error);
  return out;
}

llvm::Expected<CooMatrix> sptune::readMatrixMarket(const std::string &path,
                                                   MatrixMarketHeader *header) {
  std::string text, error;
  if (!detail::readTextFile(path, text, error))
    return makeError(error);
  return parseMatrixMarket(text, path, header);
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

namespace {
template <typename T> void appendNumber(std::string &s, T v) {
  char buf[32];
  auto [q, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec;
  s.append(buf, q);
}
} // namespace

llvm::Expected<std::string>
sptune::formatMatrixMarket(const CooMatrix &m,
                           const MatrixMarketWriteOptions &options) {
  if (llvm::Error invalid = m.verify())
    return std::move(invalid);
  std::string text;
  text.reserve(64 + static_cast<size_t>(m.nnz()) * 32);
  text += "%%MatrixMarket matrix coordinate ";
  text += options.field == MatrixMarketField::Real      ? "real"
          : options.field == MatrixMarketField::Integer ? "integer"
                                                        : "pattern";
  text += " general\n";
  for (const std::string &comment : options.comments) {
    text += '%';
    for (char c : comment)
      text += (c == '\n' || c == '\r') ? ' ' : c;
    text += '\n';
  }
  appendNumber(text, m.rows);
  text += ' ';
  appendNumber(text, m.cols);
  text += ' ';
  appendNumber(text, m.nnz());
  text += '\n';
  for (int64_t i = 0, n = m.nnz(); i < n; ++i) {
    appendNumber(text, m.rowIdx[i] + 1);
    text += ' ';
    appendNumber(text, m.colIdx[i] + 1);
    double v = m.values[i];
    if (options.field == MatrixMarketField::Real) {
      if (!std::isfinite(v))
        return makeError("entry " + std::to_string(i) +
                         " has a non-finite value");
      text += ' ';
      appendNumber(text, v);
    } else if (options.field == MatrixMarketField::Integer) {
      if (!(std::trunc(v) == v && std::fabs(v) < 0x1.0p63))
        return makeError("entry " + std::to_string(i) +
                         " has a value that is not an integer");
      text += ' ';
      appendNumber(text, static_cast<int64_t>(v));
    }
    text += '\n';
  }
  return text;
}

llvm::Error sptune::writeMatrixMarket(const std::string &path,
                                      const CooMatrix &m,
                                      const MatrixMarketWriteOptions &options) {
  llvm::Expected<std::string> text = formatMatrixMarket(m, options);
  if (!text)
    return makeError(path + ": " + llvm::toString(text.takeError()));
  return detail::writeTextFile(path, *text);
}
