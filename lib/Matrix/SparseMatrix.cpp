//===- SparseMatrix.cpp - Plain sparse matrix containers ------------------===//

#include "sptune/Matrix/SparseMatrix.h"

#include <algorithm>
#include <numeric>

using namespace sptune;

void CooMatrix::canonicalize() {
  const size_t n = rowIdx.size();
  std::vector<size_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
    return rowIdx[a] != rowIdx[b] ? rowIdx[a] < rowIdx[b]
                                  : colIdx[a] < colIdx[b];
  });
  std::vector<int32_t> r, c;
  std::vector<double> v;
  r.reserve(n);
  c.reserve(n);
  v.reserve(n);
  for (size_t p : perm) {
    if (!r.empty() && r.back() == rowIdx[p] && c.back() == colIdx[p]) {
      v.back() += values[p];
      continue;
    }
    r.push_back(rowIdx[p]);
    c.push_back(colIdx[p]);
    v.push_back(values[p]);
  }
  rowIdx = std::move(r);
  colIdx = std::move(c);
  values = std::move(v);
}

CsrMatrix CsrMatrix::fromCoo(const CooMatrix &input) {
  CooMatrix coo = input;
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
