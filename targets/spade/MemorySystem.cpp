//===- MemorySystem.cpp - Private caches, shared LLC, DRAM ----------------===//

#include "spade/MemorySystem.h"

#include <algorithm>

using namespace sptune::spade;

const char *sptune::spade::toString(Stream s) {
  switch (s) {
  case Stream::Sparse:
    return "sparse";
  case Stream::Dense:
    return "dense";
  case Stream::Output:
    return "output";
  }
  return "?";
}

Stream sptune::spade::streamOf(uint64_t line) {
  switch (Region(line >> kRegionShift)) {
  case Region::Sparse:
    return Stream::Sparse;
  case Region::DenseA:
  case Region::DenseB:
    return Stream::Dense;
  case Region::Output:
    return Stream::Output;
  }
  return Stream::Dense;
}

LevelCounters MemoryStats::privateTotal() const {
  LevelCounters t;
  for (const LevelCounters &c : privateCache) {
    t.reads += c.reads;
    t.readHits += c.readHits;
    t.writes += c.writes;
    t.writeHits += c.writeHits;
  }
  return t;
}

LevelCounters MemoryStats::llcTotal() const {
  LevelCounters t;
  for (const LevelCounters &c : llc) {
    t.reads += c.reads;
    t.readHits += c.readHits;
    t.writes += c.writes;
    t.writeHits += c.writeHits;
  }
  return t;
}

uint64_t MemoryStats::dramBytes() const {
  uint64_t n = 0;
  for (int s = 0; s < kNumStreams; ++s)
    n += dramReadBytes[s] + dramWriteBytes[s];
  return n;
}

MemorySystem::MemorySystem(const SpadeMachineConfig &config, BypassFlags bypass)
    : config(config), bypass(bypass),
      llc(config.llcBytes, config.llcWays, config.lineBytes),
      bankFree(size_t(config.llcBanks), 0),
      dram(config.dramChannels, config.dramLineCycles(), config.dramLatency) {
  privateCaches.reserve(size_t(config.pes));
  for (int p = 0; p < config.pes; ++p)
    privateCaches.emplace_back(config.privateBytes, config.privateWays,
                               config.lineBytes);
}

uint64_t MemorySystem::llcSlot(uint64_t line, uint64_t time) {
  uint64_t b = (line ^ (line >> 11)) % bankFree.size();
  uint64_t start = std::max(time, bankFree[b]);
  counters.llcQueueCycles += start - time;
  bankFree[b] = start + uint64_t(config.llcBankCycles);
  return start;
}

void MemorySystem::evictFromLlc(const Eviction &ev, uint64_t time) {
  if (!ev.valid || !ev.dirty)
    return;
  dram.write(ev.line, time);
  counters.dramWriteBytes[int(streamOf(ev.line))] += config.lineBytes;
}

void MemorySystem::writeBackToLlc(uint64_t line, uint64_t time) {
  uint64_t start = llcSlot(line, time);
  LevelCounters &l = counters.llc[int(streamOf(line))];
  ++l.writes;
  if (llc.contains(line))
    ++l.writeHits;
  evictFromLlc(llc.writeBack(line), start);
}

uint64_t MemorySystem::read(int pe, uint64_t line, uint64_t time) {
  const Stream s = streamOf(line);
  const int si = int(s);
  if (bypass.of(s)) {
    // The bypass path: no private lookup, an LLC probe that leaves the LRU
    // order alone, no allocation anywhere.
    ++counters.bypassedReads[si];
    uint64_t start = llcSlot(line, time);
    LevelCounters &l = counters.llc[si];
    ++l.reads;
    if (llc.contains(line)) {
      ++l.readHits;
      return start + uint64_t(config.llcLatency);
    }
    counters.dramReadBytes[si] += config.lineBytes;
    return dram.read(line, start + uint64_t(config.llcLatency));
  }

  SetAssocCache &priv = privateCaches[size_t(pe)];
  LevelCounters &p = counters.privateCache[si];
  ++p.reads;
  const uint64_t afterPrivate = time + uint64_t(config.privateLatency);
  if (priv.lookup(line, /*write=*/false)) {
    ++p.readHits;
    return afterPrivate;
  }
  uint64_t start = llcSlot(line, afterPrivate);
  LevelCounters &l = counters.llc[si];
  ++l.reads;
  uint64_t done;
  if (llc.lookup(line, /*write=*/false)) {
    ++l.readHits;
    done = start + uint64_t(config.llcLatency);
  } else {
    counters.dramReadBytes[si] += config.lineBytes;
    done = dram.read(line, start + uint64_t(config.llcLatency));
    evictFromLlc(llc.insert(line, /*dirty=*/false), start);
  }
  Eviction ev = priv.insert(line, /*dirty=*/false);
  if (ev.valid && ev.dirty)
    writeBackToLlc(ev.line, afterPrivate);
  return done;
}

void MemorySystem::write(int pe, uint64_t line, uint64_t time) {
  const Stream s = streamOf(line);
  const int si = int(s);
  if (bypass.of(s)) {
    dram.write(line, time);
    counters.dramWriteBytes[si] += config.lineBytes;
    return;
  }
  SetAssocCache &priv = privateCaches[size_t(pe)];
  LevelCounters &p = counters.privateCache[si];
  ++p.writes;
  if (priv.lookup(line, /*write=*/true)) {
    ++p.writeHits;
    return;
  }
  Eviction ev = priv.insert(line, /*dirty=*/true);
  if (ev.valid && ev.dirty)
    writeBackToLlc(ev.line, time + uint64_t(config.privateLatency));
}

MemoryStats MemorySystem::stats() const {
  MemoryStats s = counters;
  s.dramQueueCycles = dram.queueCycles();
  return s;
}
