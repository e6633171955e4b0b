//===- Cache.cpp - Set-associative LRU cache at line granularity ----------===//

#include "spade/Cache.h"

using namespace sptune::spade;

SetAssocCache::SetAssocCache(int64_t bytes, int ways, int lineBytes)
    : numWays(ways) {
  int64_t sets = bytes / (int64_t(ways) * lineBytes);
  if (sets < 1)
    sets = 1;
  setBits = 0;
  while ((int64_t(1) << (setBits + 1)) <= sets)
    ++setBits;
  setMask = (uint64_t(1) << setBits) - 1;
  tags.assign(size_t(setMask + 1) * size_t(numWays), 0);
}

bool SetAssocCache::lookup(uint64_t line, bool write) {
  uint64_t *set = &tags[setOf(line) * numWays];
  const uint64_t key = (line + 1) << 1;
  for (int w = 0; w < numWays; ++w) {
    if ((set[w] & ~uint64_t(1)) != key)
      continue;
    uint64_t tag = set[w] | (write ? 1 : 0);
    for (int v = w; v > 0; --v)
      set[v] = set[v - 1];
    set[0] = tag;
    return true;
  }
  return false;
}

bool SetAssocCache::contains(uint64_t line) const {
  const uint64_t *set = &tags[setOf(line) * numWays];
  const uint64_t key = (line + 1) << 1;
  for (int w = 0; w < numWays; ++w)
    if ((set[w] & ~uint64_t(1)) == key)
      return true;
  return false;
}

Eviction SetAssocCache::insert(uint64_t line, bool dirty) {
  uint64_t *set = &tags[setOf(line) * numWays];
  Eviction ev;
  uint64_t last = set[numWays - 1];
  if (last != 0) {
    ev.valid = true;
    ev.dirty = last & 1;
    ev.line = lineOf(last);
  }
  for (int v = numWays - 1; v > 0; --v)
    set[v] = set[v - 1];
  set[0] = encode(line, dirty);
  return ev;
}

Eviction SetAssocCache::writeBack(uint64_t line) {
  if (lookup(line, /*write=*/true))
    return Eviction();
  return insert(line, /*dirty=*/true);
}

int64_t SetAssocCache::countDirty() const {
  int64_t n = 0;
  for (uint64_t t : tags)
    n += (t != 0 && (t & 1)) ? 1 : 0;
  return n;
}
