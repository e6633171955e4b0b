//===- ProcessingElement.cpp - Timing model of one SPADE PE ---------------===//

#include "spade/ProcessingElement.h"

#include "spade/SpadeKernels.h"

#include <algorithm>

using namespace sptune;
using namespace sptune::spade;

ProcessingElement::ProcessingElement(int id, const SpadeMachineConfig &machine,
                                     const SpadeBoundProgram &bound,
                                     const AddressMap &map,
                                     MemorySystem &memory)
    : id(id), machine(machine), bound(bound), matrix(*bound.matrix),
      tiles(*bound.tiles), map(map), memory(memory),
      sddmm(spadeSamples(bound.program->kernel)),
      entryBytes(uint64_t(TileIndex::kIndexBytes + machine.elemBytes)),
      look(size_t(machine.lookahead), 0) {
  pending.reserve(64);
}

void ProcessingElement::startPhase(const std::vector<int64_t> *instrs) {
  phase = instrs;
  next = 0;
}

uint64_t ProcessingElement::nextTime() const {
  // The next read waits for a free issue cycle, a free MSHR and, for a new
  // unit, for the compute unit to be within `lookahead` nonzeros.
  uint64_t bound = unit == Unit::None ? lookBound() : unitEarliest;
  return std::max({issueT, bound, slotFree()});
}

void ProcessingElement::resumeAt(uint64_t time) {
  if (time > computeT) {
    stats.barrierWait += time - computeT;
    computeT = time;
  }
  issueT = std::max(issueT, time);
}

void ProcessingElement::issuePending() {
  const Pending &p = pending[pendingPos++];
  uint64_t t = std::max(issueT, unitEarliest);
  // Retire the reads that are back by then; if all MSHRs stay busy, wait
  // for the first one to return.
  while (!inflight.empty() && inflight.top() <= t)
    inflight.pop();
  if (inflight.size() >= size_t(machine.mshrs)) {
    t = std::max(t, inflight.top());
    inflight.pop();
  }
  uint64_t done = memory.read(id, p.line, t);
  inflight.push(done);
  issueT = t + 1;
  ++stats.requests;
  uint64_t &ready = p.row ? unitRowReady : unitReady;
  ready = std::max(ready, done);
}

void ProcessingElement::queueSparse(uint64_t bytes) {
  const uint64_t end = sparseByte + bytes;
  const uint64_t last = (end - 1) / map.lineBytes;
  for (uint64_t l = sparseLine; l <= last; ++l)
    pending.push_back({map.line(Region::Sparse, l * map.lineBytes), false});
  sparseLine = std::max(sparseLine, last + 1);
  sparseByte = end;
}

void ProcessingElement::compute(uint64_t ready, uint64_t cycles) {
  uint64_t start = std::max(computeT, ready);
  stats.stall += start - computeT;
  stats.busy += cycles;
  computeT = start + cycles;
}

bool ProcessingElement::beginNextTile() {
  while (next < phase->size()) {
    int64_t n = (*phase)[next++];
    int32_t t = tiles.tileOf(size_t(n));
    if (tiles.nnz(t) == 0) {
      // The host skips tiles without entries (their count is in the tiled
      // storage's tile table).
      ++stats.emptyTiles;
      continue;
    }
    tile = &bound.program->instrs[size_t(n)].tile;
    accumulate = tiles.accumulates(size_t(n));
    seg = tiles.segmentsBegin(t);
    segEnd = tiles.segmentsEnd(t);
    inSegment = false;
    sparseByte = tiles.storageOffset(t);
    sparseLine = sparseByte / map.lineBytes;
    outEntry = tiles.entryOffset(t);
    outLine = 0;
    freeWidth = uint64_t(tile->freeEnd - tile->freeBegin);
    macCycles = (freeWidth + uint64_t(machine.vectorLanes) - 1) /
                uint64_t(machine.vectorLanes);
    issueT += uint64_t(machine.tileStartCycles);
    ++stats.tiles;
    inTile = true;
    return true;
  }
  return false;
}

void ProcessingElement::prepareSegment() {
  pending.clear();
  pendingPos = 0;
  unit = Unit::Segment;
  unitEarliest = lookBound();
  unitReady = unitRowReady = 0;
  queueSparse(TileIndex::kHeaderBytes);
  if (sddmm || accumulate) {
    // SDDMM reads the row of A once per row of the tile; an accumulating
    // SpMM tile reads the partial row of C it adds into.
    uint64_t first, count;
    map.rowLines(sddmm ? Region::DenseA : Region::Output, seg->row,
                 tile->freeBegin, tile->freeEnd, first, count);
    for (uint64_t l = 0; l < count; ++l)
      pending.push_back({first + l, true});
  }
}

void ProcessingElement::finishSegment() {
  rowReady = unitRowReady;
  compute(unitReady, uint64_t(machine.rowStartCycles));
  entry = 0;
  inSegment = true;
  ++stats.rows;
}

void ProcessingElement::prepareNonzero() {
  pending.clear();
  pendingPos = 0;
  unit = Unit::Nonzero;
  unitEarliest = lookBound();
  unitReady = unitRowReady = 0;
  queueSparse(entryBytes);
  const int64_t idx = seg->begin + entry;
  uint64_t first, count;
  map.rowLines(Region::DenseB, matrix.colIdx[size_t(idx)], tile->freeBegin,
               tile->freeEnd, first, count);
  for (uint64_t l = 0; l < count; ++l)
    pending.push_back({first + l, false});
  if (sddmm) {
    uint64_t line =
        map.line(Region::Output, uint64_t(outEntry) * map.elemBytes) + 1;
    if (line != outLine) {
      // Leaving an output line: write it back once full; an accumulating
      // strip reads the partial values of the next one.
      if (outLine)
        memory.write(id, outLine - 1, issueT);
      if (accumulate)
        pending.push_back({line - 1, false});
      outLine = line;
    }
    ++outEntry;
  }
}

void ProcessingElement::finishNonzero() {
  if (sddmm)
    compute(std::max(unitReady, rowReady), macCycles + 1);
  else
    compute(unitReady, macCycles);
  look[size_t(units % look.size())] = computeT;
  ++units;
  ++entry;
  ++stats.nonzeros;
  stats.macs += freeWidth;
}

void ProcessingElement::endSegment() {
  if (!sddmm) {
    if (accumulate)
      compute(rowReady, macCycles);
    uint64_t first, count;
    map.rowLines(Region::Output, seg->row, tile->freeBegin, tile->freeEnd,
                 first, count);
    for (uint64_t l = 0; l < count; ++l)
      memory.write(id, first + l, issueT);
  }
  ++seg;
  inSegment = false;
}

void ProcessingElement::endTile() {
  if (sddmm && outLine)
    memory.write(id, outLine - 1, issueT);
  outLine = 0;
  inTile = false;
}

bool ProcessingElement::run(uint64_t horizon) {
  while (true) {
    // Issue the current unit's reads in time order with the other PEs.
    while (pendingPos < pending.size()) {
      if (nextTime() > horizon)
        return true;
      issuePending();
    }
    if (unit == Unit::Segment) {
      unit = Unit::None;
      finishSegment();
    } else if (unit == Unit::Nonzero) {
      unit = Unit::None;
      finishNonzero();
      if (entry == seg->length)
        endSegment();
    }
    if (!inTile && !beginNextTile()) {
      stats.finish = computeT;
      return false;
    }
    if (inSegment) {
      prepareNonzero();
      continue;
    }
    if (seg == segEnd) {
      endTile();
      continue;
    }
    prepareSegment();
  }
}
