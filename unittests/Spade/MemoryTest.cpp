//===- MemoryTest.cpp - SPADE cache, DRAM and memory system models --------===//

#include "spade/Cache.h"
#include "spade/SpadeKnobs.h"
#include "spade/Dram.h"
#include "spade/MemorySystem.h"
#include "spade/RowOrder.h"

#include "SpadeTestMatrices.h"

#include "gtest/gtest.h"

using namespace sptune;
using namespace sptune::spade;

namespace {

/// `count` other lines that map to the same set of `c` as `line`.
std::vector<uint64_t> sameSet(const SetAssocCache &c, uint64_t line,
                              size_t count) {
  std::vector<uint64_t> out;
  for (uint64_t x = line + 1; out.size() < count; ++x)
    if (c.setIndex(x) == c.setIndex(line))
      out.push_back(x);
  return out;
}

} // namespace

TEST(SpadeCache, HitsAfterFillAndEvictsTheLeastRecentlyUsed) {
  SetAssocCache c(4 * 1024, 4, 64); // 16 sets x 4 ways
  EXPECT_EQ(c.numSets(), 16);
  const uint64_t a = 1000;
  std::vector<uint64_t> same = sameSet(c, a, 4);
  EXPECT_FALSE(c.lookup(a, false));
  EXPECT_FALSE(c.insert(a, false).valid);
  EXPECT_TRUE(c.lookup(a, false));
  for (int n = 0; n < 3; ++n)
    EXPECT_FALSE(c.insert(same[size_t(n)], false).valid);
  // Touch `a`: same[0] is now the least recently used.
  EXPECT_TRUE(c.lookup(a, false));
  Eviction ev = c.insert(same[3], false);
  ASSERT_TRUE(ev.valid);
  EXPECT_EQ(ev.line, same[0]);
  EXPECT_FALSE(ev.dirty);
  EXPECT_TRUE(c.contains(a));
  EXPECT_FALSE(c.contains(same[0]));
}

TEST(SpadeCache, DirtyLinesComeBackDirty) {
  SetAssocCache c(4 * 1024, 4, 64);
  const uint64_t a = 77;
  std::vector<uint64_t> same = sameSet(c, a, 4);
  c.insert(a, false);
  EXPECT_TRUE(c.lookup(a, /*write=*/true));
  EXPECT_EQ(c.countDirty(), 1);
  for (int n = 0; n < 3; ++n)
    c.insert(same[size_t(n)], false);
  Eviction ev = c.insert(same[3], false);
  ASSERT_TRUE(ev.valid);
  EXPECT_EQ(ev.line, a);
  EXPECT_TRUE(ev.dirty);
  EXPECT_EQ(c.countDirty(), 0);
}

TEST(SpadeDram, BandwidthAndLatency) {
  // One channel, 8 cycles per line, 100 cycles latency.
  DramModel d(1, 8, 100);
  EXPECT_EQ(d.read(1, 0), 108u);
  EXPECT_EQ(d.read(2, 0), 116u); // queued behind the first
  EXPECT_EQ(d.read(3, 1000), 1108u);
  EXPECT_EQ(d.queueCycles(), 8u);
  // n back-to-back reads take n transfer slots.
  DramModel e(1, 8, 100);
  uint64_t last = 0;
  for (int n = 0; n < 100; ++n)
    last = e.read(uint64_t(n), 0);
  EXPECT_EQ(last, 100u * 8u + 100u);
}

TEST(SpadeMemorySystem, LevelsAndBypass) {
  SpadeMachineConfig cfg;
  cfg.pes = 2;
  const uint64_t b = regionBase(Region::DenseB) + 5;
  MemorySystem mem(cfg, BypassFlags{});
  uint64_t first = mem.read(0, b, 0);
  EXPECT_GE(first,
            uint64_t(cfg.privateLatency + cfg.llcLatency + cfg.dramLatency));
  EXPECT_EQ(mem.read(0, b, 10000), 10000u + cfg.privateLatency);
  // Another PE misses its private cache and hits the LLC.
  EXPECT_EQ(mem.read(1, b, 20000),
            20000u + cfg.privateLatency + cfg.llcLatency);
  MemoryStats s = mem.stats();
  EXPECT_EQ(s.privateCache[int(Stream::Dense)].reads, 3u);
  EXPECT_EQ(s.privateCache[int(Stream::Dense)].readHits, 1u);
  EXPECT_EQ(s.llc[int(Stream::Dense)].reads, 2u);
  EXPECT_EQ(s.llc[int(Stream::Dense)].readHits, 1u);
  EXPECT_EQ(s.dramReadBytes[int(Stream::Dense)], uint64_t(cfg.lineBytes));

  // A bypassed stream never allocates: every read goes to DRAM.
  MemorySystem bypass(cfg, BypassFlags{true, false, false});
  const uint64_t sp = regionBase(Region::Sparse) + 9;
  bypass.read(0, sp, 0);
  bypass.read(0, sp, 10000);
  MemoryStats t = bypass.stats();
  EXPECT_EQ(t.privateCache[int(Stream::Sparse)].reads, 0u);
  EXPECT_EQ(t.bypassedReads[int(Stream::Sparse)], 2u);
  EXPECT_EQ(t.dramReadBytes[int(Stream::Sparse)], 2u * cfg.lineBytes);
  // Bypassed output writes go straight to DRAM.
  MemorySystem out(cfg, BypassFlags{false, false, true});
  out.write(0, regionBase(Region::Output), 0);
  EXPECT_EQ(out.stats().dramWriteBytes[int(Stream::Output)],
            uint64_t(cfg.lineBytes));
}

TEST(SpadeMemorySystem, DirtyOutputIsWrittenBackOnEviction) {
  SpadeMachineConfig cfg;
  cfg.pes = 1;
  cfg.privateBytes = 4 * 1024;
  cfg.privateWays = 4;
  cfg.llcBytes = 16 * 1024;
  cfg.llcWays = 4;
  MemorySystem mem(cfg, BypassFlags{});
  // Write 64 KiB of output through 20 KiB of caches: most of it must reach
  // DRAM, and nothing is read from DRAM (whole-line writes do not fetch).
  for (uint64_t n = 0; n < 1024; ++n)
    mem.write(0, regionBase(Region::Output) + n, n);
  MemoryStats s = mem.stats();
  EXPECT_EQ(s.dramReadBytes[int(Stream::Output)], 0u);
  EXPECT_GE(s.dramWriteBytes[int(Stream::Output)], (1024u - 320u) * 64u);
  EXPECT_LE(s.dramWriteBytes[int(Stream::Output)], 1024u * 64u);
}

TEST(SpadeRowOrder, LengthAndSimilarity) {
  using namespace sptune::spadetest;
  CsrMatrix m = makeMatrix(6, 100, 1, [](int64_t r, Rng &) {
    // Rows 0, 2, 4 share one column set; rows 1, 3, 5 another.
    std::vector<int64_t> c =
        r % 2 ? std::vector<int64_t>{50, 60, 70} : std::vector<int64_t>{1, 2};
    if (r == 5)
      c.push_back(80);
    return c;
  });
  EXPECT_EQ(computeRowOrder(m, RowReorder::None),
            (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(computeRowOrder(m, RowReorder::ByLength),
            (std::vector<int32_t>{5, 1, 3, 0, 2, 4}));
  std::vector<int32_t> sim = computeRowOrder(m, RowReorder::BySimilarity);
  ASSERT_EQ(sim.size(), 6u);
  // Equal column sets end up adjacent.
  auto pos = [&](int32_t row) {
    return std::find(sim.begin(), sim.end(), row) - sim.begin();
  };
  EXPECT_EQ(std::abs(pos(0) - pos(2)) + std::abs(pos(2) - pos(4)), 2);
  EXPECT_EQ(std::abs(pos(1) - pos(3)), 1);
}
