//===- ProcessingElement.h - Timing model of one SPADE PE -------*- C++ -*-===//
//
// Part of sptune. One PE executes its tile instructions in order. It is a
// decoupled access/execute engine:
//  - the access unit walks the tile (row headers, entries) and issues one
//    line request per cycle for the sparse stream, the gathered dense rows and
//    the partial outputs, with at most `mshrs` requests in flight and at most
//    `lookahead` nonzeros ahead of the compute unit;
//  - the compute unit consumes nonzeros in order, each once all its lines
//    have arrived: ceil(w / lanes) vector multiply-accumulates for a free
//    range of w elements (plus one cycle to scale and emit an SDDMM value);
//    at the end of a row an SpMM tile adds into the partial row of C when it
//    accumulates, and writes the row back (posted writes, issued at the
//    access unit's current cycle so that the shared LLC and DRAM see them
//    in time order).
// The simulator interleaves PEs read by read (run() yields as soon as the
// PE's next read lies past the horizon), so the shared resources see the
// requests of all PEs within a short quantum of their time order.
// Cycles in which the compute unit waits for data are stall cycles, cycles it
// computes are busy cycles.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_PROCESSINGELEMENT_H
#define SPTUNE_TARGETS_SPADE_PROCESSINGELEMENT_H

#include "spade/AddressMap.h"
#include "spade/BoundProgram.h"
#include "spade/MemorySystem.h"

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace sptune {
namespace spade {

/// What one PE did.
struct PeCounters {
  uint64_t busy = 0;        ///< compute cycles
  uint64_t stall = 0;       ///< cycles the compute unit waited for data
  uint64_t barrierWait = 0; ///< cycles waiting at barriers
  uint64_t finish = 0;      ///< cycle the PE finished its last tile
  uint64_t tiles = 0, emptyTiles = 0, rows = 0, nonzeros = 0;
  uint64_t requests = 0; ///< line reads issued
  uint64_t macs = 0;     ///< scalar multiply-accumulates
};

class ProcessingElement {
public:
  ProcessingElement(int id, const SpadeMachineConfig &machine,
                    const SpadeBoundProgram &bound, const AddressMap &map,
                    MemorySystem &memory);

  /// Gives the PE the instructions (indices into the program) it runs until
  /// the next barrier.
  void startPhase(const std::vector<int64_t> *instrs);
  /// Runs until the PE's next request would be issued after `horizon`
  /// (returns true) or the phase's work is done (returns false).
  bool run(uint64_t horizon);
  /// Cycle at which the PE would issue its next request.
  uint64_t nextTime() const;
  /// Cycle at which the PE finished its current work.
  uint64_t finishTime() const { return computeT; }
  /// Resumes after a barrier released at `time`.
  void resumeAt(uint64_t time);

  const PeCounters &counters() const { return stats; }

private:
  /// A line read waiting to be issued; `row` marks the row operand (A of
  /// SDDMM, partial C of an accumulating SpMM tile) of a row start.
  struct Pending {
    uint64_t line;
    bool row;
  };

  bool beginNextTile();
  /// Queue the reads of the next row start / nonzero (then `finish*`).
  void prepareSegment();
  void prepareNonzero();
  /// Account the compute of the unit whose reads were all issued.
  void finishSegment();
  void finishNonzero();
  void endSegment();
  void endTile();
  /// Issues the next pending read.
  void issuePending();
  /// Queues the sparse-stream lines up to `bytes` further.
  void queueSparse(uint64_t bytes);
  /// The compute unit runs `cycles` once `ready`.
  void compute(uint64_t ready, uint64_t cycles);
  uint64_t lookBound() const { return look[size_t(units % look.size())]; }
  /// Cycle an MSHR is free: now if fewer than `mshrs` reads are in flight,
  /// else when the earliest of them returns.
  uint64_t slotFree() const {
    return inflight.size() < size_t(machine.mshrs) ? 0 : inflight.top();
  }

  const int id;
  const SpadeMachineConfig &machine;
  const SpadeBoundProgram &bound;
  const CsrMatrix &matrix;
  const TileIndex &tiles;
  const AddressMap &map;
  MemorySystem &memory;
  const bool sddmm;
  const uint64_t entryBytes;

  // Program position.
  const std::vector<int64_t> *phase = nullptr;
  size_t next = 0;
  bool inTile = false;
  const SpadeTile *tile = nullptr;
  bool accumulate = false; ///< the tile adds into the partial output
  const Segment *seg = nullptr, *segEnd = nullptr;
  int64_t entry = 0; ///< next entry of the current segment
  bool inSegment = false;
  uint64_t sparseByte = 0; ///< next byte of the tiled storage to read
  uint64_t sparseLine = 0; ///< first sparse line not yet requested
  int64_t outEntry = 0;    ///< SDDMM: tiled index of the next output
  uint64_t outLine = 0;    ///< SDDMM: output line being filled (+1; 0 none)
  uint64_t freeWidth = 0, macCycles = 0;

  // The unit (row start or nonzero) whose reads are being issued.
  enum class Unit { None, Segment, Nonzero };
  Unit unit = Unit::None;
  std::vector<Pending> pending;
  size_t pendingPos = 0;
  uint64_t unitEarliest = 0; ///< lookahead bound of the unit
  uint64_t unitReady = 0;    ///< arrival of the unit's main operands
  uint64_t unitRowReady = 0; ///< arrival of its row operand

  // Timing.
  uint64_t issueT = 0;   ///< next cycle the access unit may issue
  uint64_t computeT = 0; ///< cycle the compute unit becomes free
  uint64_t rowReady = 0; ///< arrival of the row's A row / partial C row
  /// Arrival cycles of the reads in flight (min-heap, at most `mshrs`).
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>>
      inflight;
  std::vector<uint64_t> look; ///< compute end of the last nonzeros
  uint64_t units = 0;

  PeCounters stats;
};

} // namespace spade
} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_PROCESSINGELEMENT_H
