//===- SparseMatrix.cpp - Plain sparse matrix containers ------------------===//

#include "sptune/Matrix/SparseMatrix.h"

#include "sptune/Support/Error.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <utility>

using namespace sptune;

bool CooMatrix::isCanonical() const {
  for (size_t i = 1, n = rowIdx.size(); i < n; ++i) {
    if (rowIdx[i - 1] > rowIdx[i])
      return false;
    if (rowIdx[i - 1] == rowIdx[i] && colIdx[i - 1] >= colIdx[i])
      return false;
  }
  return true;
}

llvm::Error CooMatrix::verify() const {
  if (rows < 0 || cols < 0)
    return makeError("negative matrix size");
  if (colIdx.size() != rowIdx.size() || values.size() != rowIdx.size())
    return makeError("row, column and value arrays differ in length");
  for (size_t i = 0, n = rowIdx.size(); i < n; ++i) {
    if (rowIdx[i] < 0 || rowIdx[i] >= rows || colIdx[i] < 0 ||
        colIdx[i] >= cols)
      return makeError(
          "entry " + std::to_string(i) + " at (" + std::to_string(rowIdx[i]) +
          ", " + std::to_string(colIdx[i]) + ") lies outside the " +
          std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
  }
  return llvm::Error::success();
}

/// Fallback for coordinates outside [0, rows): a comparison sort.
static void canonicalizeBySort(CooMatrix &m) {
  const size_t n = m.rowIdx.size();
  std::vector<size_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
    return m.rowIdx[a] != m.rowIdx[b] ? m.rowIdx[a] < m.rowIdx[b]
                                      : m.colIdx[a] < m.colIdx[b];
  });
  std::vector<int32_t> r, c;
  std::vector<double> v;
  r.reserve(n);
  c.reserve(n);
  v.reserve(n);
  for (size_t p : perm) {
    if (!r.empty() && r.back() == m.rowIdx[p] && c.back() == m.colIdx[p]) {
      v.back() += m.values[p];
      continue;
    }
    r.push_back(m.rowIdx[p]);
    c.push_back(m.colIdx[p]);
    v.push_back(m.values[p]);
  }
  m.rowIdx = std::move(r);
  m.colIdx = std::move(c);
  m.values = std::move(v);
}

void CooMatrix::canonicalize() {
  if (isCanonical())
    return;
  const size_t n = rowIdx.size();
  // Rows in range: a stable counting sort by row, then a sort of each row by
  // column; O(nnz + rows) plus short per-row sorts.
  for (int32_t r : rowIdx)
    if (r < 0 || r >= rows)
      return canonicalizeBySort(*this);

  std::vector<int64_t> start(rows + 1, 0);
  for (int32_t r : rowIdx)
    ++start[r + 1];
  for (int64_t r = 0; r < rows; ++r)
    start[r + 1] += start[r];
  std::vector<std::pair<int32_t, double>> entries(n);
  {
    std::vector<int64_t> next(start.begin(), start.end() - 1);
    for (size_t i = 0; i < n; ++i)
      entries[next[rowIdx[i]]++] = {colIdx[i], values[i]};
  }
  auto byColumn = [](const std::pair<int32_t, double> &a,
                     const std::pair<int32_t, double> &b) {
    return a.first < b.first;
  };

  size_t out = 0;
  for (int64_t r = 0; r < rows; ++r) {
    auto first = entries.begin() + start[r],
         last = entries.begin() + start[r + 1];
    if (!std::is_sorted(first, last, byColumn))
      std::stable_sort(first, last, byColumn);
    for (auto it = first; it != last; ++it) {
      if (it != first && it->first == colIdx[out - 1]) {
        values[out - 1] += it->second;
        continue;
      }
      rowIdx[out] = static_cast<int32_t>(r);
      colIdx[out] = it->first;
      values[out] = it->second;
      ++out;
    }
  }
  rowIdx.resize(out);
  colIdx.resize(out);
  values.resize(out);
}

CsrMatrix CsrMatrix::fromCoo(const CooMatrix &input) {
  if (input.isCanonical()) {
    CsrMatrix csr;
    csr.rows = input.rows;
    csr.cols = input.cols;
    csr.rowPtr.assign(input.rows + 1, 0);
    for (int32_t r : input.rowIdx)
      ++csr.rowPtr[r + 1];
    for (int64_t r = 0; r < input.rows; ++r)
      csr.rowPtr[r + 1] += csr.rowPtr[r];
    csr.colIdx = input.colIdx;
    csr.values = input.values;
    return csr;
  }
  CooMatrix coo = input;
  return fromCoo(std::move(coo));
}

CsrMatrix CsrMatrix::fromCoo(CooMatrix &&coo) {
  coo.canonicalize();
  CsrMatrix csr;
  csr.rows = coo.rows;
  csr.cols = coo.cols;
  csr.rowPtr.assign(coo.rows + 1, 0);
  for (int32_t r : coo.rowIdx)
    ++csr.rowPtr[r + 1];
  for (int64_t r = 0; r < coo.rows; ++r)
    csr.rowPtr[r + 1] += csr.rowPtr[r];
  csr.colIdx = std::move(coo.colIdx);
  csr.values = std::move(coo.values);
  coo.rowIdx.clear();
  return csr;
}

CooMatrix CsrMatrix::toCoo() const {
  CooMatrix coo;
  coo.rows = rows;
  coo.cols = cols;
  coo.rowIdx.reserve(nnz());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t p = rowPtr[r]; p < rowPtr[r + 1]; ++p)
      coo.rowIdx.push_back(static_cast<int32_t>(r));
  coo.colIdx = colIdx;
  coo.values = values;
  return coo;
}

CsrMatrix CsrMatrix::transposed() const {
  CsrMatrix t;
  t.rows = cols;
  t.cols = rows;
  t.rowPtr.assign(cols + 1, 0);
  for (int32_t c : colIdx)
    ++t.rowPtr[c + 1];
  for (int64_t c = 0; c < cols; ++c)
    t.rowPtr[c + 1] += t.rowPtr[c];
  t.colIdx.resize(nnz());
  t.values.resize(nnz());
  std::vector<int64_t> next(t.rowPtr.begin(), t.rowPtr.end() - 1);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t p = rowPtr[r]; p < rowPtr[r + 1]; ++p) {
      int64_t q = next[colIdx[p]]++;
      t.colIdx[q] = static_cast<int32_t>(r);
      t.values[q] = values[p];
    }
  return t;
}

uint64_t sptune::contentHash(const CsrMatrix &m) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t x) { h = (h ^ x) * 1099511628211ull; };
  mix(static_cast<uint64_t>(m.rows));
  mix(static_cast<uint64_t>(m.cols));
  for (int64_t p : m.rowPtr)
    mix(static_cast<uint64_t>(p));
  for (int32_t c : m.colIdx)
    mix(static_cast<uint64_t>(c));
  for (double v : m.values) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    mix(bits);
  }
  return h;
}
