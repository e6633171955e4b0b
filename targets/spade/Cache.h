//===- Cache.h - Set-associative LRU cache at line granularity --*- C++ -*-===//
//
// Part of sptune. The cache model of the SPADE simulator: a set-associative
// cache of line addresses with true LRU replacement and dirty bits, used for
// both the private caches and the shared LLC. It tracks tags only (no data);
// the functional result is computed apart (spade/Functional.h).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_CACHE_H
#define SPTUNE_TARGETS_SPADE_CACHE_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sptune {
namespace spade {

/// A line that left the cache to make room for another.
struct Eviction {
  bool valid = false;
  bool dirty = false;
  uint64_t line = 0;
};

/// Set-associative cache with true LRU. Each set keeps its ways ordered from
/// most to least recently used, so a lookup is a short linear scan and an
/// update a move to the front. Set indices are XOR-folded line addresses (as
/// in hashed LLC slices), so power-of-two strides do not alias into one set.
class SetAssocCache {
public:
  /// `bytes` / (`ways` * `lineBytes`) must be a power of two (checked by
  /// SpadeMachineConfig::whyInvalid).
  SetAssocCache(int64_t bytes, int ways, int lineBytes);

  /// Looks `line` up. On a hit the line becomes most recently used and, if
  /// `write`, dirty.
  bool lookup(uint64_t line, bool write);
  /// Whether `line` is present; changes nothing.
  bool contains(uint64_t line) const;
  /// Inserts `line` (which must be absent) as most recently used, evicting
  /// the least recently used line of its set when the set is full.
  Eviction insert(uint64_t line, bool dirty);
  /// Marks a present `line` dirty and most recently used; inserts it dirty
  /// when absent. Returns the eviction the insertion caused, if any.
  Eviction writeBack(uint64_t line);

  /// The set `line` maps to.
  uint64_t setIndex(uint64_t line) const { return setOf(line); }
  /// Number of valid dirty lines (for statistics).
  int64_t countDirty() const;
  int64_t numSets() const { return int64_t(setMask) + 1; }
  int ways() const { return numWays; }

private:
  uint64_t setOf(uint64_t line) const {
    return (line ^ (line >> setBits) ^ (line >> (2 * setBits))) & setMask;
  }
  /// Tag encoding: 0 = invalid, else ((line + 1) << 1) | dirty.
  static uint64_t encode(uint64_t line, bool dirty) {
    return ((line + 1) << 1) | (dirty ? 1 : 0);
  }
  static uint64_t lineOf(uint64_t tag) { return (tag >> 1) - 1; }

  int numWays;
  int setBits;
  uint64_t setMask;
  std::vector<uint64_t> tags; ///< numSets x numWays, MRU first
};

} // namespace spade
} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_CACHE_H
