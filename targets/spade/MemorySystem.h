//===- MemorySystem.h - Private caches, shared LLC, DRAM --------*- C++ -*-===//
//
// Part of sptune. The memory hierarchy of the SPADE simulator: one private
// cache per PE, a shared banked LLC, DRAM. Requests are whole cache lines.
// Addresses carry the stream they belong to (sparse tiles, dense input rows,
// output) so that bypassing and statistics work per stream.
//
// Policies (see targets/spade/README.md):
//  - reads allocate in the private cache and in the LLC (non-inclusive);
//  - writes are write-back, write-allocate without fetch (a PE always writes
//    whole lines), posted: they never stall a PE;
//  - a bypassed stream never allocates: its reads probe the LLC without
//    touching its LRU order and go to DRAM on a miss; its writes go straight
//    to DRAM;
//  - dirty private victims are written back into the LLC, dirty LLC victims
//    to DRAM; lines still dirty at the end stay in the caches.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_MEMORYSYSTEM_H
#define SPTUNE_TARGETS_SPADE_MEMORYSYSTEM_H

#include "spade/Cache.h"
#include "spade/Dram.h"
#include "spade/MachineConfig.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sptune {
namespace spade {

/// The data streams of a SPADE kernel.
enum class Stream : uint8_t {
  Sparse = 0, ///< tile headers, coordinates and values of the sparse operand
  Dense = 1,  ///< dense input rows (B of SpMM; A and B of SDDMM)
  Output = 2, ///< rows of C (SpMM) or values of X (SDDMM)
};
constexpr int kNumStreams = 3;
const char *toString(Stream s);

/// Address regions. A line address is (region << kRegionShift) | line index,
/// so regions never alias and the stream of a line is known from its address.
enum class Region : uint8_t { Sparse = 0, DenseB = 1, DenseA = 2, Output = 3 };
constexpr int kRegionShift = 44;
inline uint64_t regionBase(Region r) { return uint64_t(r) << kRegionShift; }
Stream streamOf(uint64_t line);

/// Which streams bypass the caches.
struct BypassFlags {
  bool sparse = false, dense = false, output = false;
  bool of(Stream s) const {
    return s == Stream::Sparse ? sparse : s == Stream::Dense ? dense : output;
  }
};

/// Access counters of one cache level for one stream.
struct LevelCounters {
  uint64_t reads = 0, readHits = 0;
  uint64_t writes = 0, writeHits = 0;
  double readHitRate() const {
    return reads ? double(readHits) / double(reads) : 0.0;
  }
};

struct MemoryStats {
  std::array<LevelCounters, kNumStreams> privateCache{};
  std::array<LevelCounters, kNumStreams> llc{};
  std::array<uint64_t, kNumStreams> dramReadBytes{};
  std::array<uint64_t, kNumStreams> dramWriteBytes{};
  /// Reads that bypassed the caches, per stream.
  std::array<uint64_t, kNumStreams> bypassedReads{};
  /// Cycles requests waited for a busy LLC bank / DRAM channel.
  uint64_t llcQueueCycles = 0, dramQueueCycles = 0;

  LevelCounters privateTotal() const;
  LevelCounters llcTotal() const;
  uint64_t dramBytes() const;
};

class MemorySystem {
public:
  /// `config` must be valid (SpadeMachineConfig::whyInvalid).
  MemorySystem(const SpadeMachineConfig &config, BypassFlags bypass);

  /// A line read by PE `pe` issued at cycle `time`; returns the cycle the
  /// line is available to the PE.
  uint64_t read(int pe, uint64_t line, uint64_t time);
  /// A posted whole-line write by PE `pe` at cycle `time`.
  void write(int pe, uint64_t line, uint64_t time);

  MemoryStats stats() const;

private:
  /// Cycle a request reaching the LLC at `time` is served by its bank.
  uint64_t llcSlot(uint64_t line, uint64_t time);
  /// Places a dirty line evicted from a private cache into the LLC.
  void writeBackToLlc(uint64_t line, uint64_t time);
  /// Handles a line evicted from the LLC.
  void evictFromLlc(const Eviction &ev, uint64_t time);

  SpadeMachineConfig config;
  BypassFlags bypass;
  std::vector<SetAssocCache> privateCaches;
  SetAssocCache llc;
  std::vector<uint64_t> bankFree;
  DramModel dram;
  MemoryStats counters;
};

} // namespace spade
} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_MEMORYSYSTEM_H
