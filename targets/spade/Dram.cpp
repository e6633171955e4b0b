//===- Dram.cpp - DRAM with bandwidth and latency limits ------------------===//

#include "spade/Dram.h"

#include <algorithm>

using namespace sptune::spade;

DramModel::DramModel(int channels, int lineCycles, int latency)
    : lineCycles(lineCycles), latency(latency),
      channelFree(size_t(std::max(channels, 1)), 0) {}

uint64_t DramModel::slot(uint64_t line, uint64_t time) {
  // Fold the high bits in so that strided streams spread over channels.
  uint64_t c = (line ^ (line >> 7) ^ (line >> 17)) % channelFree.size();
  uint64_t start = std::max(time, channelFree[c]);
  queued += start - time;
  channelFree[c] = start + uint64_t(lineCycles);
  return start + uint64_t(lineCycles);
}

uint64_t DramModel::read(uint64_t line, uint64_t time) {
  return slot(line, time) + uint64_t(latency);
}

void DramModel::write(uint64_t line, uint64_t time) { slot(line, time); }
