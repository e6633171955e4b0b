//===- Simulator.cpp - Cycle-level simulation of a SPADE program ----------===//

#include "spade/Simulator.h"
#include "sptune/Support/Error.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <queue>

using namespace sptune;
using namespace sptune::spade;

SpadeSimResult sptune::simulateSpade(const CsrMatrix &m, const SpadeProgram &p,
                                     const SpadeMachineConfig &machine,
                                     const SpadeSimOptions &options) {
  std::string error;
  std::optional<SpadeBoundProgram> bound =
      takeValue(bindSpadeProgram(m, p, machine), error);
  if (!bound) {
    SpadeSimResult r;
    r.status = SpadeSimStatus::Invalid;
    r.error = error;
    return r;
  }
  return simulateSpade(*bound, machine, options);
}

SpadeSimResult sptune::simulateSpade(const SpadeBoundProgram &bound,
                                     const SpadeMachineConfig &machine,
                                     const SpadeSimOptions &options) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point wallStart = Clock::now();
  const SpadeProgram &p = *bound.program;
  SpadeSimResult result;

  // Each PE's instructions, phase by phase (phases end at barriers).
  std::vector<std::vector<std::vector<int64_t>>> phases(1);
  phases[0].resize(size_t(p.pes));
  for (size_t n = 0; n < p.instrs.size(); ++n) {
    if (p.instrs[n].isBarrier()) {
      phases.emplace_back(size_t(p.pes));
      continue;
    }
    phases.back()[size_t(p.instrs[n].tile.pe)].push_back(int64_t(n));
  }

  MemorySystem memory(
      machine, BypassFlags{p.bypassSparse, p.bypassDense, p.bypassOutput});
  AddressMap map(machine.lineBytes, machine.elemBytes, p.free);
  std::vector<std::unique_ptr<ProcessingElement>> pes;
  for (int i = 0; i < p.pes; ++i)
    pes.push_back(
        std::make_unique<ProcessingElement>(i, machine, bound, map, memory));

  using Entry = std::pair<uint64_t, int>;
  uint64_t steps = 0;
  for (size_t k = 0; k < phases.size(); ++k) {
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
    for (int i = 0; i < p.pes; ++i) {
      pes[size_t(i)]->startPhase(&phases[k][size_t(i)]);
      ready.push({pes[size_t(i)]->nextTime(), i});
    }
    while (!ready.empty()) {
      int i = ready.top().second;
      ready.pop();
      uint64_t horizon =
          ready.empty() ? ~uint64_t(0) : ready.top().first + options.quantum;
      if (pes[size_t(i)]->run(horizon))
        ready.push({pes[size_t(i)]->nextTime(), i});
      if (options.maxWallSeconds > 0 && (++steps & 1023) == 0 &&
          std::chrono::duration<double>(Clock::now() - wallStart).count() >
              options.maxWallSeconds) {
        result.status = SpadeSimStatus::Timeout;
        result.error = "simulation exceeded " +
                       std::to_string(options.maxWallSeconds) + " s";
        return result;
      }
    }
    if (k + 1 == phases.size())
      break;
    uint64_t release = 0;
    for (const auto &pe : pes)
      release = std::max(release, pe->finishTime());
    release += uint64_t(machine.barrierCycles);
    for (const auto &pe : pes)
      pe->resumeAt(release);
  }

  SpadeStats &s = result.stats;
  s.pesUsed = p.pes;
  s.barriers = uint64_t(phases.size() - 1);
  s.sparseBytes = bound.tiles->storageBytes();
  double sumActive = 0, maxActive = 0;
  for (const auto &pe : pes) {
    const PeCounters &c = pe->counters();
    s.pes.push_back(c);
    s.cycles = std::max(s.cycles, pe->finishTime());
    s.tiles += c.tiles;
    s.emptyTiles += c.emptyTiles;
    s.rows += c.rows;
    s.nonzeros += c.nonzeros;
    s.macs += c.macs;
    s.requests += c.requests;
    double active = double(c.busy + c.stall);
    sumActive += active;
    maxActive = std::max(maxActive, active);
  }
  s.imbalance = sumActive > 0 ? maxActive / (sumActive / double(p.pes)) : 1.0;
  s.memory = memory.stats();
  s.seconds = double(s.cycles) / (machine.clockGHz * 1e9);
  s.wallSeconds =
      std::chrono::duration<double>(Clock::now() - wallStart).count();
  result.status = SpadeSimStatus::Ok;
  return result;
}

//===----------------------------------------------------------------------===//
// Reporting
//===----------------------------------------------------------------------===//

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string levelJson(const std::array<LevelCounters, kNumStreams> &level,
                      const LevelCounters &total) {
  std::string out = "{\"reads\": " + std::to_string(total.reads) +
                    ", \"read_hits\": " + std::to_string(total.readHits) +
                    ", \"hit_rate\": " + num(total.readHitRate()) +
                    ", \"writes\": " + std::to_string(total.writes);
  for (int s = 0; s < kNumStreams; ++s) {
    const LevelCounters &c = level[size_t(s)];
    out += std::string(", \"") + toString(Stream(s)) +
           "\": {\"reads\": " + std::to_string(c.reads) +
           ", \"read_hits\": " + std::to_string(c.readHits) +
           ", \"hit_rate\": " + num(c.readHitRate()) +
           ", \"writes\": " + std::to_string(c.writes) + "}";
  }
  return out + "}";
}

} // namespace

std::string SpadeStats::toJson(bool withWallTime) const {
  const MemoryStats &m = memory;
  std::string out = "{";
  out += "\"cycles\": " + std::to_string(cycles);
  out += ", \"seconds\": " + num(seconds);
  out += ", \"pes_used\": " + std::to_string(pesUsed);
  out += ", \"tiles\": " + std::to_string(tiles);
  out += ", \"empty_tiles\": " + std::to_string(emptyTiles);
  out += ", \"barriers\": " + std::to_string(barriers);
  out += ", \"rows\": " + std::to_string(rows);
  out += ", \"nonzeros\": " + std::to_string(nonzeros);
  out += ", \"macs\": " + std::to_string(macs);
  out += ", \"requests\": " + std::to_string(requests);
  out += ", \"imbalance\": " + num(imbalance);
  out += ", \"sparse_bytes\": " + std::to_string(sparseBytes);
  out += ", \"private\": " + levelJson(m.privateCache, m.privateTotal());
  out += ", \"llc\": " + levelJson(m.llc, m.llcTotal());
  uint64_t rd = 0, wr = 0;
  for (int s = 0; s < kNumStreams; ++s) {
    rd += m.dramReadBytes[size_t(s)];
    wr += m.dramWriteBytes[size_t(s)];
  }
  out += ", \"dram\": {\"bytes\": " + std::to_string(rd + wr) +
         ", \"read_bytes\": " + std::to_string(rd) +
         ", \"write_bytes\": " + std::to_string(wr);
  for (int s = 0; s < kNumStreams; ++s)
    out +=
        std::string(", \"") + toString(Stream(s)) +
        "\": {\"read_bytes\": " + std::to_string(m.dramReadBytes[size_t(s)]) +
        ", \"write_bytes\": " + std::to_string(m.dramWriteBytes[size_t(s)]) +
        ", \"bypassed_reads\": " + std::to_string(m.bypassedReads[size_t(s)]) +
        "}";
  out += ", \"queue_cycles\": " + std::to_string(m.dramQueueCycles) + "}";
  out += ", \"llc_queue_cycles\": " + std::to_string(m.llcQueueCycles);
  std::string busy, stall, idle, barrier;
  for (size_t i = 0; i < pes.size(); ++i) {
    const char *sep = i ? ", " : "";
    const spade::PeCounters &c = pes[i];
    busy += sep + std::to_string(c.busy);
    stall += sep + std::to_string(c.stall);
    idle += sep + std::to_string(cycles - c.busy - c.stall);
    barrier += sep + std::to_string(c.barrierWait);
  }
  out += ", \"pe_busy\": [" + busy + "], \"pe_stall\": [" + stall +
         "], \"pe_idle\": [" + idle + "], \"pe_barrier_wait\": [" + barrier +
         "]";
  if (withWallTime)
    out += ", \"wall_seconds\": " + num(wallSeconds);
  return out + "}";
}

std::string SpadeStats::summary() const {
  const MemoryStats &m = memory;
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof(buf), "cycles           %llu (%.6g s)\n",
                (unsigned long long)cycles, seconds);
  out += buf;
  std::snprintf(buf, sizeof(buf),
                "work             %d PEs, %llu tiles (+%llu empty), %llu "
                "barriers, %llu nonzeros, %llu MACs\n",
                pesUsed, (unsigned long long)tiles,
                (unsigned long long)emptyTiles, (unsigned long long)barriers,
                (unsigned long long)nonzeros, (unsigned long long)macs);
  out += buf;
  uint64_t busy = 0, stall = 0;
  for (const spade::PeCounters &c : pes) {
    busy += c.busy;
    stall += c.stall;
  }
  double total = double(cycles) * double(std::max<size_t>(pes.size(), 1));
  std::snprintf(buf, sizeof(buf),
                "PE time          busy %.1f%%, stall %.1f%%, idle %.1f%%; "
                "imbalance %.3f\n",
                total > 0 ? 100.0 * double(busy) / total : 0.0,
                total > 0 ? 100.0 * double(stall) / total : 0.0,
                total > 0 ? 100.0 * (total - double(busy + stall)) / total
                          : 0.0,
                imbalance);
  out += buf;
  auto level = [&](const char *name,
                   const std::array<LevelCounters, kNumStreams> &l,
                   const LevelCounters &t) {
    std::snprintf(buf, sizeof(buf),
                  "%-16s hit rate %.4f (sparse %.4f, dense %.4f, output "
                  "%.4f), %llu reads\n",
                  name, t.readHitRate(), l[0].readHitRate(), l[1].readHitRate(),
                  l[2].readHitRate(), (unsigned long long)t.reads);
    out += buf;
  };
  level("private cache", m.privateCache, m.privateTotal());
  level("LLC", m.llc, m.llcTotal());
  std::snprintf(buf, sizeof(buf),
                "DRAM             %llu bytes (read: sparse %llu, dense %llu, "
                "output %llu; written %llu)\n",
                (unsigned long long)m.dramBytes(),
                (unsigned long long)m.dramReadBytes[0],
                (unsigned long long)m.dramReadBytes[1],
                (unsigned long long)m.dramReadBytes[2],
                (unsigned long long)(m.dramWriteBytes[0] + m.dramWriteBytes[1] +
                                     m.dramWriteBytes[2]));
  out += buf;
  return out;
}
