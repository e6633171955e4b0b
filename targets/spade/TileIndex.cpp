//===- TileIndex.cpp - The tiled sparse operand of a program --------------===//

#include "spade/TileIndex.h"

#include "spade/SpadeKernels.h"

#include <algorithm>
#include <unordered_map>

using namespace sptune;
using namespace sptune::spade;

namespace {

using TileKey = TileIndex::TileKey;

struct TileKeyHash {
  size_t operator()(const TileKey &k) const {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int64_t v : {k.r0, k.r1, k.c0, k.c1}) {
      h ^= uint64_t(v);
      h *= 0x100000001b3ULL;
      h ^= h >> 29;
    }
    return size_t(h);
  }
};

/// Calls `emit(tile, pos, row, begin, length)` for every nonempty row of every
/// tile in `group` (tiles sharing one row range, sorted by column range), in
/// row-position order within each tile.
template <typename Emit>
void forEachSegment(const CsrMatrix &m, const std::vector<int32_t> &order,
                    const std::vector<TileKey> &keys,
                    const std::vector<int32_t> &group, Emit emit) {
  const TileKey &first = keys[size_t(group.front())];
  const int32_t *cols = m.colIdx.data();
  bool disjoint = true;
  for (size_t g = 1; g < group.size(); ++g)
    if (keys[size_t(group[g - 1])].c1 > keys[size_t(group[g])].c0)
      disjoint = false;

  if (!disjoint) {
    // Overlapping column ranges (legal, if unusual): search each tile apart.
    for (int32_t t : group) {
      const TileKey &k = keys[size_t(t)];
      for (int64_t pos = k.r0; pos < k.r1; ++pos) {
        int32_t row = order[size_t(pos)];
        const int32_t *b = cols + m.rowPtr[row], *e = cols + m.rowPtr[row + 1];
        const int32_t *lo = std::lower_bound(b, e, int32_t(k.c0));
        const int32_t *hi = std::lower_bound(lo, e, int32_t(k.c1));
        if (hi > lo)
          emit(t, int32_t(pos), row, int64_t(lo - cols), int64_t(hi - lo));
      }
    }
    return;
  }

  std::vector<int64_t> c1s;
  c1s.reserve(group.size());
  for (int32_t t : group)
    c1s.push_back(keys[size_t(t)].c1);
  for (int64_t pos = first.r0; pos < first.r1; ++pos) {
    int32_t row = order[size_t(pos)];
    const int32_t *it = cols + m.rowPtr[row], *e = cols + m.rowPtr[row + 1];
    size_t j = 0;
    while (it < e) {
      // The first tile whose range ends after this column.
      if (c1s[j] <= *it) {
        j = size_t(
            std::upper_bound(c1s.begin() + long(j), c1s.end(), int64_t(*it)) -
            c1s.begin());
        if (j == group.size())
          break;
      }
      const TileKey &k = keys[size_t(group[j])];
      if (*it < k.c0) {
        it = std::lower_bound(it, e, int32_t(k.c0));
        continue;
      }
      const int32_t *stop = std::lower_bound(it, e, int32_t(k.c1));
      emit(group[j], int32_t(pos), row, int64_t(it - cols), int64_t(stop - it));
      it = stop;
      if (++j == group.size())
        break;
    }
  }
}

} // namespace

TileIndex::TileIndex(const CsrMatrix &m, const std::vector<int32_t> &order,
                     const SpadeProgram &p, int elemBytes) {
  // Distinct tiles, numbered in order of first appearance.
  std::unordered_map<TileKey, int32_t, TileKeyHash> ids;
  std::vector<TileKey> keys;
  instrTile.assign(p.instrs.size(), -1);
  for (size_t n = 0; n < p.instrs.size(); ++n) {
    const SpadeInstr &i = p.instrs[n];
    if (i.isBarrier())
      continue;
    TileKey k{i.tile.rowBegin, i.tile.rowEnd, i.tile.colBegin, i.tile.colEnd};
    auto [it, inserted] = ids.emplace(k, int32_t(keys.size()));
    if (inserted)
      keys.push_back(k);
    instrTile[n] = it->second;
  }
  const size_t numTiles = keys.size();

  // Group tiles by row range, each group sorted by column range.
  std::vector<int32_t> sorted(numTiles);
  for (size_t t = 0; t < numTiles; ++t)
    sorted[t] = int32_t(t);
  std::sort(sorted.begin(), sorted.end(), [&](int32_t a, int32_t b) {
    const TileKey &x = keys[size_t(a)], &y = keys[size_t(b)];
    if (x.r0 != y.r0)
      return x.r0 < y.r0;
    if (x.r1 != y.r1)
      return x.r1 < y.r1;
    return x.c0 != y.c0 ? x.c0 < y.c0 : x.c1 < y.c1;
  });
  std::vector<std::vector<int32_t>> groups;
  for (size_t n = 0; n < numTiles; ++n) {
    const TileKey &k = keys[size_t(sorted[n])];
    if (n == 0 || k.r0 != keys[size_t(sorted[n - 1])].r0 ||
        k.r1 != keys[size_t(sorted[n - 1])].r1)
      groups.emplace_back();
    groups.back().push_back(sorted[n]);
  }

  // Pass 1: count segments and entries per tile.
  std::vector<int64_t> segCount(numTiles, 0);
  nnzOf.assign(numTiles, 0);
  for (const std::vector<int32_t> &g : groups)
    forEachSegment(m, order, keys, g,
                   [&](int32_t t, int32_t, int32_t, int64_t, int64_t len) {
                     ++segCount[size_t(t)];
                     nnzOf[size_t(t)] += len;
                   });
  segOffset.assign(numTiles + 1, 0);
  storage.assign(numTiles, 0);
  entries.assign(numTiles, 0);
  int64_t entryCursor = 0;
  for (size_t t = 0; t < numTiles; ++t) {
    segOffset[t + 1] = segOffset[t] + segCount[t];
    storage[t] = totalStorage;
    entries[t] = entryCursor;
    totalStorage += uint64_t(segCount[t]) * kHeaderBytes +
                    uint64_t(nnzOf[t]) * uint64_t(kIndexBytes + elemBytes);
    entryCursor += nnzOf[t];
  }

  // Pass 2: fill.
  segs.resize(size_t(segOffset[numTiles]));
  std::vector<int64_t> cursor(segOffset.begin(), segOffset.end() - 1);
  for (const std::vector<int32_t> &g : groups)
    forEachSegment(
        m, order, keys, g,
        [&](int32_t t, int32_t pos, int32_t row, int64_t begin, int64_t len) {
          segs[size_t(cursor[size_t(t)]++)] = Segment{pos, row, begin, len};
        });
  decideAccumulation(p, keys);
}

void TileIndex::decideAccumulation(const SpadeProgram &p,
                                   const std::vector<TileKey> &keys) {
  accumulate.assign(p.instrs.size(), 0);
  for (size_t n = 0; n < p.instrs.size(); ++n)
    if (!p.instrs[n].isBarrier())
      accumulate[n] = p.instrs[n].tile.accumulate;

  // A tile's output footprint is its rows x its free range (SpMM: rows of C)
  // or its rows x its columns (SDDMM: entries of X). Elision is exact if the
  // row ranges are disjoint and, per row range, the second ranges are
  // disjoint or equal: then footprints overlap iff they are equal.
  const bool sddmm = spadeSamples(p.kernel);
  using Range = std::pair<int64_t, int64_t>;
  auto second = [&](const SpadeTile &t) {
    return sddmm ? Range(t.colBegin, t.colEnd) : Range(t.freeBegin, t.freeEnd);
  };
  std::vector<Range> rowRanges;
  for (const TileKey &k : keys)
    rowRanges.push_back({k.r0, k.r1});
  std::sort(rowRanges.begin(), rowRanges.end());
  rowRanges.erase(std::unique(rowRanges.begin(), rowRanges.end()),
                  rowRanges.end());
  for (size_t i = 1; i < rowRanges.size(); ++i)
    if (rowRanges[i].first < rowRanges[i - 1].second)
      return;
  auto groupOf = [&](const SpadeTile &t) {
    return size_t(std::lower_bound(rowRanges.begin(), rowRanges.end(),
                                   Range(t.rowBegin, t.rowEnd)) -
                  rowRanges.begin());
  };
  std::vector<std::vector<Range>> seconds(rowRanges.size());
  for (const SpadeInstr &i : p.instrs)
    if (!i.isBarrier())
      seconds[groupOf(i.tile)].push_back(second(i.tile));
  for (std::vector<Range> &f : seconds) {
    std::sort(f.begin(), f.end());
    f.erase(std::unique(f.begin(), f.end()), f.end());
    for (size_t i = 1; i < f.size(); ++i)
      if (f[i].first < f[i - 1].second)
        return;
  }
  // The first nonempty tile of each footprint, in program order, has no
  // partial output to add to.
  std::vector<std::vector<uint8_t>> seen(seconds.size());
  for (size_t g = 0; g < seconds.size(); ++g)
    seen[g].assign(seconds[g].size(), 0);
  for (size_t n = 0; n < p.instrs.size(); ++n) {
    if (p.instrs[n].isBarrier() || nnzOf[size_t(instrTile[n])] == 0)
      continue;
    const SpadeTile &t = p.instrs[n].tile;
    const size_t g = groupOf(t);
    const size_t f = size_t(
        std::lower_bound(seconds[g].begin(), seconds[g].end(), second(t)) -
        seconds[g].begin());
    if (!seen[g][f]) {
      seen[g][f] = 1;
      accumulate[n] = 0;
    }
  }
}
