//===- RowOrder.cpp - Row reordering of the sparse operand ----------------===//

#include "spade/RowOrder.h"
#include "spade/SpadeKnobs.h"

#include <algorithm>
#include <numeric>

using namespace sptune;

/// A fixed 64-bit mixer (splitmix64's finalizer): deterministic everywhere.
static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::vector<int32_t> spade::computeRowOrder(const CsrMatrix &m,
                                            RowReorder kind) {
  std::vector<int32_t> order(size_t(m.rows));
  std::iota(order.begin(), order.end(), 0);
  switch (kind) {
  case RowReorder::None:
    break;
  case RowReorder::ByLength:
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return m.rowLength(a) > m.rowLength(b);
    });
    break;
  case RowReorder::BySimilarity: {
    struct Sig {
      uint64_t h1, h2;
    };
    std::vector<Sig> sig(size_t(m.rows));
    for (int64_t r = 0; r < m.rows; ++r) {
      uint64_t h1 = ~uint64_t(0), h2 = ~uint64_t(0);
      for (int64_t n = m.rowPtr[r]; n < m.rowPtr[r + 1]; ++n) {
        uint64_t c = uint64_t(uint32_t(m.colIdx[n]));
        h1 = std::min(h1, mix(c));
        h2 = std::min(h2, mix(c ^ 0x5bd1e9955bd1e995ULL));
      }
      sig[size_t(r)] = {h1, h2};
    }
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      const Sig &x = sig[size_t(a)], &y = sig[size_t(b)];
      return x.h1 != y.h1 ? x.h1 < y.h1 : x.h2 < y.h2;
    });
    break;
  }
  }
  return order;
}
