//===- MatrixStats.cpp - Structural statistics of a sparse matrix ---------===//
//
// One pass over the nonzeros in row order. Row statistics come from rowPtr;
// column counts, the bandwidth and the diagonal distance are accumulated per
// nonzero; nonempty b x b blocks are counted per block row with one stamp per
// block column and block size (the block row that last touched it), so each
// nonzero costs a few array updates and no hashing.
//
//===----------------------------------------------------------------------===//

#include "sptune/Matrix/MatrixStats.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace sptune;

MatrixStats sptune::computeStats(const CsrMatrix &m) {
  MatrixStats s;
  s.rows = m.rows;
  s.cols = m.cols;
  s.nnz = m.nnz();
  if (m.rows > 0 && m.cols > 0)
    s.density = static_cast<double>(s.nnz) /
                (static_cast<double>(m.rows) * static_cast<double>(m.cols));

  constexpr int kNumBlocks = static_cast<int>(MatrixStats::kBlockSizes.size());
  int shift[kNumBlocks];
  std::vector<int32_t> stamp[kNumBlocks];
  int64_t nonemptyBlocks[kNumBlocks] = {};
  for (int k = 0; k < kNumBlocks; ++k) {
    int b = MatrixStats::kBlockSizes[k];
    shift[k] = 0;
    while ((1 << shift[k]) < b)
      ++shift[k];
    stamp[k].assign(static_cast<size_t>((m.cols + b - 1) / b), -1);
  }

  std::vector<int32_t> colCount(static_cast<size_t>(m.cols), 0);
  double rowSum = 0, rowSq = 0;
  int64_t rowMin = m.rows > 0 ? INT64_MAX : 0, rowMax = 0, emptyRows = 0;
  int64_t bandwidth = 0;
  double diagSum = 0;

  for (int64_t r = 0; r < m.rows; ++r) {
    const int64_t begin = m.rowPtr[r], end = m.rowPtr[r + 1];
    const int64_t len = end - begin;
    rowSum += static_cast<double>(len);
    rowSq += static_cast<double>(len) * static_cast<double>(len);
    rowMin = std::min(rowMin, len);
    rowMax = std::max(rowMax, len);
    emptyRows += len == 0;
    int32_t blockRow[kNumBlocks];
    for (int k = 0; k < kNumBlocks; ++k)
      blockRow[k] = static_cast<int32_t>(r >> shift[k]);
    int64_t rowDiag = 0;
    for (int64_t p = begin; p < end; ++p) {
      const int32_t c = m.colIdx[p];
      ++colCount[c];
      const int64_t dist = std::abs(r - static_cast<int64_t>(c));
      bandwidth = std::max(bandwidth, dist);
      rowDiag += dist;
      for (int k = 0; k < kNumBlocks; ++k) {
        int32_t &st = stamp[k][c >> shift[k]];
        if (st != blockRow[k]) {
          st = blockRow[k];
          ++nonemptyBlocks[k];
        }
      }
    }
    diagSum += static_cast<double>(rowDiag);
  }

  if (m.rows > 0) {
    s.rowMean = rowSum / static_cast<double>(m.rows);
    s.rowStd = std::sqrt(std::max(0.0, rowSq / static_cast<double>(m.rows) -
                                           s.rowMean * s.rowMean));
  }
  s.rowMin = rowMin;
  s.rowMax = rowMax;
  s.emptyRows = emptyRows;

  if (m.cols > 0) {
    double colSq = 0;
    int64_t colMax = 0, emptyCols = 0;
    for (int32_t n : colCount) {
      colSq += static_cast<double>(n) * static_cast<double>(n);
      colMax = std::max<int64_t>(colMax, n);
      emptyCols += n == 0;
    }
    s.colMean = static_cast<double>(s.nnz) / static_cast<double>(m.cols);
    s.colStd = std::sqrt(std::max(0.0, colSq / static_cast<double>(m.cols) -
                                           s.colMean * s.colMean));
    s.colMax = colMax;
    s.emptyCols = emptyCols;
  }
  s.bandwidth = bandwidth;
  if (s.nnz > 0) {
    s.meanDiagDistance = diagSum / static_cast<double>(s.nnz);
    for (int k = 0; k < kNumBlocks; ++k) {
      double b = MatrixStats::kBlockSizes[k];
      s.blockFill[k] = static_cast<double>(s.nnz) /
                       (static_cast<double>(nonemptyBlocks[k]) * b * b);
    }
  }
  return s;
}

namespace {
void appendField(std::string &out, const char *name, double v) {
  out += out.size() > 1 ? ",\"" : "\"";
  out += name;
  out += "\":";
  char buf[32];
  // Shortest exact form; JSON has no inf/nan (cannot occur here).
  auto [q, ec] =
      std::to_chars(buf, buf + sizeof(buf), std::isfinite(v) ? v : 0.0);
  (void)ec;
  out.append(buf, q);
}
void appendField(std::string &out, const char *name, int64_t v) {
  out += out.size() > 1 ? ",\"" : "\"";
  out += name;
  out += "\":";
  char buf[24];
  auto [q, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec;
  out.append(buf, q);
}
} // namespace

std::string MatrixStats::toJson() const {
  std::string out = "{";
  appendField(out, "rows", rows);
  appendField(out, "cols", cols);
  appendField(out, "nnz", nnz);
  appendField(out, "density", density);
  appendField(out, "row_mean", rowMean);
  appendField(out, "row_std", rowStd);
  appendField(out, "row_min", rowMin);
  appendField(out, "row_max", rowMax);
  appendField(out, "empty_rows", emptyRows);
  appendField(out, "col_mean", colMean);
  appendField(out, "col_std", colStd);
  appendField(out, "col_max", colMax);
  appendField(out, "empty_cols", emptyCols);
  appendField(out, "bandwidth", bandwidth);
  appendField(out, "mean_diag_distance", meanDiagDistance);
  out += ",\"block_fill\":{";
  for (size_t k = 0; k < kBlockSizes.size(); ++k) {
    out += k ? ",\"" : "\"";
    out += std::to_string(kBlockSizes[k]);
    out += "\":";
    char buf[32];
    auto [q, ec] = std::to_chars(buf, buf + sizeof(buf), blockFill[k]);
    (void)ec;
    out.append(buf, q);
  }
  out += "}}";
  return out;
}

/// `s` as a JSON string literal.
static std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += ch;
      }
    }
  }
  return out + "\"";
}

/// printf into a std::string.
template <typename... Args>
static std::string format(const char *fmt, Args... args) {
  char buf[512];
  int n = std::snprintf(buf, sizeof(buf), fmt, args...);
  return std::string(buf, n < 0 ? 0 : std::min<size_t>(n, sizeof(buf) - 1));
}

std::string sptune::statsTableHeader(bool timing) {
  std::string out =
      format("%10s %10s %12s %10s %9s %9s %9s %10s %10s %6s %6s %6s %6s",
             "rows", "cols", "nnz", "density", "row_mean", "row_std",
             "row_max", "empty_rows", "bandwidth", "bf2", "bf4", "bf8", "bf16");
  if (timing)
    out += format(" %9s %9s", "load_s", "stats_s");
  return out + "  id\n";
}

std::string sptune::statsTableRow(const MatrixStats &stats,
                                  const std::string &id, bool timing,
                                  double loadSeconds, double statsSeconds) {
  std::string out = format(
      "%10lld %10lld %12lld %10.3g %9.2f %9.2f %9lld %10lld %10lld %6.3f "
      "%6.3f %6.3f %6.3f",
      static_cast<long long>(stats.rows), static_cast<long long>(stats.cols),
      static_cast<long long>(stats.nnz), stats.density, stats.rowMean,
      stats.rowStd, static_cast<long long>(stats.rowMax),
      static_cast<long long>(stats.emptyRows),
      static_cast<long long>(stats.bandwidth), stats.blockFill[0],
      stats.blockFill[1], stats.blockFill[2], stats.blockFill[3]);
  if (timing)
    out += format(" %9.4f %9.4f", loadSeconds, statsSeconds);
  return out + "  " + id + "\n";
}

std::string sptune::statsJsonLine(const MatrixStats &stats,
                                  const std::string &id,
                                  const std::string &source, bool timing,
                                  double loadSeconds, double statsSeconds) {
  std::string line =
      "{\"id\":" + jsonString(id) + ",\"source\":" + jsonString(source) + ",";
  line += stats.toJson().substr(1);
  if (timing) {
    line.pop_back();
    line += format(",\"load_s\":%.6f,\"stats_s\":%.6f}", loadSeconds,
                   statsSeconds);
  }
  return line + "\n";
}
