//===- CooTensor.cpp - A third-order sparse tensor as a value -------------===//

#include "sptune/Matrix/CooTensor.h"

#include "sptune/Matrix/SparseMatrix.h"
#include "sptune/Support/Error.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <tuple>

using namespace sptune;

/// The coordinates of entry `n` as a tuple (lexicographic comparison).
static std::tuple<int32_t, int32_t, int32_t> at(const CooTensor &t, size_t n) {
  return {t.coords[0][n], t.coords[1][n], t.coords[2][n]};
}

bool CooTensor::isCanonical() const {
  for (size_t n = 1, e = values.size(); n < e; ++n)
    if (!(at(*this, n - 1) < at(*this, n)))
      return false;
  return true;
}

llvm::Error CooTensor::verify() const {
  for (int m = 0; m < 3; ++m)
    if (dims[m] < 0 || dims[m] > kMaxMatrixDim)
      return makeError("mode " + std::to_string(m) + "'s size " +
                       std::to_string(dims[m]) + " is outside [0, " +
                       std::to_string(kMaxMatrixDim) + "]");
  const size_t n = values.size();
  if (coords[0].size() != n || coords[1].size() != n || coords[2].size() != n)
    return makeError("coordinate and value arrays differ in length");
  for (size_t e = 0; e < n; ++e)
    for (int m = 0; m < 3; ++m)
      if (coords[m][e] < 0 || coords[m][e] >= dims[m])
        return makeError(
            "entry " + std::to_string(e) + " at (" +
            std::to_string(coords[0][e]) + ", " + std::to_string(coords[1][e]) +
            ", " + std::to_string(coords[2][e]) + ") lies outside the " +
            std::to_string(dims[0]) + " x " + std::to_string(dims[1]) + " x " +
            std::to_string(dims[2]) + " tensor");
  return llvm::Error::success();
}

void CooTensor::canonicalize() {
  if (isCanonical())
    return;
  const size_t n = values.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // Stable: repeated coordinates are summed in their original order.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return at(*this, a) < at(*this, b);
  });
  CooTensor sorted;
  sorted.dims = dims;
  for (auto &c : sorted.coords)
    c.reserve(n);
  sorted.values.reserve(n);
  for (size_t e : order) {
    if (!sorted.values.empty() &&
        at(sorted, sorted.values.size() - 1) == at(*this, e)) {
      sorted.values.back() += values[e];
      continue;
    }
    sorted.add(coords[0][e], coords[1][e], coords[2][e], values[e]);
  }
  *this = std::move(sorted);
}
