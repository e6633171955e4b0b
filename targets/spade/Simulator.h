//===- Simulator.h - Cycle-level simulation of a SPADE program --*- C++ -*-===//
//
// Part of sptune. Runs a bound SPADE program on the simulated machine: the PEs
// advance in global time order (the PE with the earliest next request goes
// next, for at most a short quantum), sharing the LLC and DRAM; at a barrier
// every PE waits for the last one. Deterministic: the same program, matrix
// and machine give the same statistics, bit for bit.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_SIMULATOR_H
#define SPTUNE_TARGETS_SPADE_SIMULATOR_H

#include "spade/BoundProgram.h"
#include "spade/MemorySystem.h"
#include "spade/ProcessingElement.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sptune {

struct SpadeSimOptions {
  /// Give up (status Timeout) after this much wall-clock time; 0 = never.
  double maxWallSeconds = 0;
  /// How far (cycles) one PE may run past the next PE before yielding:
  /// bounds how much out of time order the shared LLC and DRAM see requests.
  uint64_t quantum = 32;
};

struct SpadeStats {
  uint64_t cycles = 0;
  double seconds = 0;
  int pesUsed = 0;
  uint64_t tiles = 0, emptyTiles = 0, barriers = 0;
  uint64_t rows = 0, nonzeros = 0, macs = 0, requests = 0;
  std::vector<spade::PeCounters> pes;
  spade::MemoryStats memory;
  /// max / mean over the used PEs of busy + stall cycles (1 = balanced).
  double imbalance = 1;
  /// Bytes of the tiled sparse operand.
  uint64_t sparseBytes = 0;
  /// Wall-clock seconds the simulation took.
  double wallSeconds = 0;

  /// One JSON object: cycles, time, work, per-level hit rates (total and per
  /// stream), DRAM bytes, imbalance, per-PE busy/stall/idle cycles, and
  /// (if `withWallTime`) the wall-clock time, the one nondeterministic field.
  std::string toJson(bool withWallTime = true) const;
  /// A human-readable multi-line summary.
  std::string summary() const;
};

enum class SpadeSimStatus { Ok, Invalid, Timeout };

struct SpadeSimResult {
  SpadeSimStatus status = SpadeSimStatus::Invalid;
  std::string error;
  SpadeStats stats;
  bool ok() const { return status == SpadeSimStatus::Ok; }
};

/// Simulates a bound program on `machine` (which it was bound for).
SpadeSimResult simulateSpade(const SpadeBoundProgram &bound,
                             const SpadeMachineConfig &machine,
                             const SpadeSimOptions &options = {});

/// Binds and simulates.
SpadeSimResult simulateSpade(const CsrMatrix &m, const SpadeProgram &p,
                             const SpadeMachineConfig &machine,
                             const SpadeSimOptions &options = {});

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_SIMULATOR_H
