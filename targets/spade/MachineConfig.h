//===- MachineConfig.h - The simulated SPADE machine ------------*- C++ -*-===//
//
// Part of sptune. The hardware parameters of the SPADE simulator: processing
// elements, vector width, private caches, shared last-level cache, DRAM. They
// describe the machine, not the program: a program (SpadeProgram) says what to
// run, this says what it runs on. targets/spade/README.md documents every
// field, its default and why.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_MACHINECONFIG_H
#define SPTUNE_TARGETS_SPADE_MACHINECONFIG_H

#include <cstdint>
#include <string>

namespace sptune {

/// The simulated machine. Times are in PE clock cycles, sizes in bytes.
struct SpadeMachineConfig {
  /// Processing elements, each coupled to one CPU core.
  int pes = 16;
  /// PE clock, used only to turn cycles into seconds.
  double clockGHz = 1.0;
  /// Lanes of a PE's vector multiply-accumulate unit (fp32 lanes).
  int vectorLanes = 16;
  /// Bytes of one element of the dense operands and of the output.
  int elemBytes = 4;
  /// Cache line size.
  int lineBytes = 64;

  /// Private cache of each PE (the L2 of its core, as seen by the PE).
  /// Scaled down with the LLC (an eighth of the former 256 KiB) to the
  /// matrices a sweep can afford (README, "Calibration").
  int64_t privateBytes = 32 * 1024;
  int privateWays = 8;
  int privateLatency = 12;

  /// Shared, set-associative, LRU last-level cache: 32 KiB per PE, so that
  /// the dense operand of the matrices we simulate (10^4-10^6 entries) is
  /// 2-40x the LLC, as SPADE's large graphs are to its LLC (README,
  /// "Calibration").
  int64_t llcBytes = 512 * 1024;
  int llcWays = 16;
  int llcLatency = 40;
  /// LLC banks (line-interleaved); each accepts one line per `llcBankCycles`.
  int llcBanks = 16;
  int llcBankCycles = 1;

  /// DRAM: line-interleaved channels sharing `dramBytesPerCycle` of bandwidth;
  /// `dramLatency` is added to the transfer time of every line.
  int dramChannels = 4;
  int dramBytesPerCycle = 32;
  int dramLatency = 100;

  /// Outstanding line requests per PE (its load queue / MSHRs).
  int mshrs = 32;
  /// How many nonzeros a PE's access unit may run ahead of its compute unit.
  int lookahead = 32;
  /// Cycles the access unit spends decoding and starting a tile instruction.
  int tileStartCycles = 20;
  /// Compute cycles spent starting a row of a tile (pointer decode, setup).
  int rowStartCycles = 1;
  /// Cycles from the last PE arriving at a barrier to every PE resuming.
  int barrierCycles = 100;

  /// Cycles one DRAM channel is busy transferring one line.
  int dramLineCycles() const;
  /// Why the configuration is unusable (e.g. a cache too small for its
  /// associativity), or an empty string.
  std::string whyInvalid() const;
  /// One JSON object with every field.
  std::string toJson() const;
  /// Sets the field named `key` (the JSON name, e.g. "llc_bytes") from
  /// `value`. Returns an error message, or an empty string on success.
  std::string set(const std::string &key, const std::string &value);
};

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_MACHINECONFIG_H
