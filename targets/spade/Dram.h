//===- Dram.h - DRAM with bandwidth and latency limits ----------*- C++ -*-===//
//
// Part of sptune. The DRAM model of the SPADE simulator: line-interleaved
// channels, each a first-come-first-served server that is busy for a fixed
// number of cycles per line (the bandwidth limit), plus a fixed access
// latency. Reads return their completion cycle; writes (write-backs and
// bypassed stores) occupy a channel and return nothing.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_DRAM_H
#define SPTUNE_TARGETS_SPADE_DRAM_H

#include <cstdint>
#include <vector>

namespace sptune {
namespace spade {

class DramModel {
public:
  /// `lineCycles`: cycles one channel needs per line; `latency`: cycles
  /// added to every read after its transfer slot.
  DramModel(int channels, int lineCycles, int latency);

  /// A line read arriving at `time`; returns the cycle its data is back.
  uint64_t read(uint64_t line, uint64_t time);
  /// A line write arriving at `time`: takes a transfer slot.
  void write(uint64_t line, uint64_t time);

  /// Cycles the channels spent waiting for an earlier transfer (queueing).
  uint64_t queueCycles() const { return queued; }

private:
  uint64_t slot(uint64_t line, uint64_t time);

  int lineCycles;
  int latency;
  std::vector<uint64_t> channelFree;
  uint64_t queued = 0;
};

} // namespace spade
} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_DRAM_H
