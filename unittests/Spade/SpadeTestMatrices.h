//===- SpadeTestMatrices.h - Small matrices for the SPADE tests -*- C++ -*-===//
//
// Part of sptune. Deterministic sparse matrices with the structures the SPADE
// tests need (uniform, power-law, blocked, shared columns, empty rows,
// rectangular), generated in code so the tests need no files.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_UNITTESTS_SPADE_SPADETESTMATRICES_H
#define SPTUNE_UNITTESTS_SPADE_SPADETESTMATRICES_H

#include "sptune/Matrix/SparseMatrix.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace sptune {
namespace spadetest {

/// A small deterministic generator (splitmix64).
class Rng {
public:
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t x = (state += 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  int64_t below(int64_t n) { return int64_t(next() % uint64_t(n)); }
  double value() { return double(next() >> 11) / 9007199254740992.0 * 2 - 1; }

private:
  uint64_t state;
};

/// A rows x cols matrix whose row r has the columns `colsOf(r)` (duplicates
/// are merged), with random values.
inline CsrMatrix
makeMatrix(int64_t rows, int64_t cols, uint64_t seed,
           const std::function<std::vector<int64_t>(int64_t, Rng &)> &colsOf) {
  Rng rng(seed);
  CooMatrix coo;
  coo.rows = rows;
  coo.cols = cols;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c : colsOf(r, rng))
      coo.add(int32_t(r), int32_t(c), rng.value());
  return CsrMatrix::fromCoo(coo);
}

/// `perRow` uniformly random columns in every row.
inline CsrMatrix uniformMatrix(int64_t rows, int64_t cols, int64_t perRow,
                               uint64_t seed = 1) {
  return makeMatrix(rows, cols, seed, [&](int64_t, Rng &rng) {
    std::vector<int64_t> c;
    for (int64_t n = 0; n < perRow; ++n)
      c.push_back(rng.below(cols));
    return c;
  });
}

/// Row r has about scale / (r + 1) entries (at least 1): a few very long
/// rows at the top, as in power-law graphs.
inline CsrMatrix powerLawMatrix(int64_t rows, int64_t cols, int64_t scale,
                                uint64_t seed = 2) {
  return makeMatrix(rows, cols, seed, [&](int64_t r, Rng &rng) {
    int64_t len = std::max<int64_t>(1, std::min(cols, scale / (r + 1)));
    std::vector<int64_t> c;
    for (int64_t n = 0; n < len; ++n)
      c.push_back(rng.below(cols));
    return c;
  });
}

/// Dense bs x bs blocks on a random block pattern (`blocksPerRow` per block
/// row).
inline CsrMatrix blockedMatrix(int64_t blockRows, int64_t blockCols, int64_t bs,
                               int64_t blocksPerRow, uint64_t seed = 3) {
  Rng pick(seed + 100);
  std::vector<std::vector<int64_t>> blocks(static_cast<size_t>(blockRows));
  for (auto &b : blocks)
    for (int64_t n = 0; n < blocksPerRow; ++n)
      b.push_back(pick.below(blockCols));
  return makeMatrix(blockRows * bs, blockCols * bs, seed,
                    [&](int64_t r, Rng &) {
                      std::vector<int64_t> c;
                      for (int64_t b : blocks[size_t(r / bs)])
                        for (int64_t x = 0; x < bs; ++x)
                          c.push_back(b * bs + x);
                      return c;
                    });
}

} // namespace spadetest
} // namespace sptune

#endif // SPTUNE_UNITTESTS_SPADE_SPADETESTMATRICES_H
