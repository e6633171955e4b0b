//===- MachineConfig.cpp - Parameters of the simulated SPADE machine ------===//

#include "spade/MachineConfig.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

using namespace sptune;

namespace {

/// One integer field of MachineConfig, by its JSON name.
struct IntField {
  const char *name;
  int SpadeMachineConfig::*intMember;
  int64_t SpadeMachineConfig::*longMember;
};

const IntField kIntFields[] = {
    {"pes", &SpadeMachineConfig::pes, nullptr},
    {"vector_lanes", &SpadeMachineConfig::vectorLanes, nullptr},
    {"elem_bytes", &SpadeMachineConfig::elemBytes, nullptr},
    {"line_bytes", &SpadeMachineConfig::lineBytes, nullptr},
    {"private_bytes", nullptr, &SpadeMachineConfig::privateBytes},
    {"private_ways", &SpadeMachineConfig::privateWays, nullptr},
    {"private_latency", &SpadeMachineConfig::privateLatency, nullptr},
    {"llc_bytes", nullptr, &SpadeMachineConfig::llcBytes},
    {"llc_ways", &SpadeMachineConfig::llcWays, nullptr},
    {"llc_latency", &SpadeMachineConfig::llcLatency, nullptr},
    {"llc_banks", &SpadeMachineConfig::llcBanks, nullptr},
    {"llc_bank_cycles", &SpadeMachineConfig::llcBankCycles, nullptr},
    {"dram_channels", &SpadeMachineConfig::dramChannels, nullptr},
    {"dram_bytes_per_cycle", &SpadeMachineConfig::dramBytesPerCycle, nullptr},
    {"dram_latency", &SpadeMachineConfig::dramLatency, nullptr},
    {"mshrs", &SpadeMachineConfig::mshrs, nullptr},
    {"lookahead", &SpadeMachineConfig::lookahead, nullptr},
    {"tile_start_cycles", &SpadeMachineConfig::tileStartCycles, nullptr},
    {"row_start_cycles", &SpadeMachineConfig::rowStartCycles, nullptr},
    {"barrier_cycles", &SpadeMachineConfig::barrierCycles, nullptr},
};

bool isPowerOfTwo(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

std::string checkCache(const char *name, int64_t bytes, int ways,
                       int lineBytes) {
  if (ways < 1 || ways > 64)
    return std::string(name) + " associativity must be in [1, 64]";
  if (bytes < int64_t(ways) * lineBytes ||
      bytes % (int64_t(ways) * lineBytes) != 0)
    return std::string(name) +
           " size must be a positive multiple of ways * line size";
  if (!isPowerOfTwo(bytes / (int64_t(ways) * lineBytes)))
    return std::string(name) + " must have a power-of-two number of sets";
  return "";
}

constexpr int64_t kMaxSimulatedCacheBytes = int64_t(1) << 30;

} // namespace

int SpadeMachineConfig::dramLineCycles() const {
  // Each channel gets an equal share of the bandwidth; round up so that the
  // configured bandwidth is never exceeded.
  int64_t perChannel = int64_t(lineBytes) * dramChannels;
  return int((perChannel + dramBytesPerCycle - 1) / dramBytesPerCycle);
}

std::string SpadeMachineConfig::whyInvalid() const {
  if (pes < 1 || pes > 4096)
    return "PE count must be in [1, 4096]";
  if (!(clockGHz >= 1e-3 && clockGHz <= 1e3))
    return "clock must be in [0.001, 1000] GHz";
  if (vectorLanes < 1 || vectorLanes > 1024)
    return "vector lanes must be in [1, 1024]";
  if (elemBytes != 4 && elemBytes != 8)
    return "element size must be 4 or 8 bytes";
  if (!isPowerOfTwo(lineBytes) || lineBytes < elemBytes || lineBytes > 4096)
    return "line size must be a power of two in [element size, 4096]";
  if (std::string why =
          checkCache("private cache", privateBytes, privateWays, lineBytes);
      !why.empty())
    return why;
  if (std::string why = checkCache("LLC", llcBytes, llcWays, lineBytes);
      !why.empty())
    return why;
  // The simulator keeps a tag per line of every cache: bound what that
  // allocates (a 1 TiB LLC aborted on std::bad_alloc; issue 13 probe).
  if (llcBytes > kMaxSimulatedCacheBytes ||
      privateBytes > kMaxSimulatedCacheBytes / pes)
    return "simulated caches must hold at most 1 GiB: the LLC, and the "
           "private caches of all PEs together";
  if (llcBanks < 1 || llcBanks > 1024)
    return "LLC banks must be in [1, 1024]";
  if (dramChannels < 1 || dramChannels > 1024)
    return "DRAM channels must be in [1, 1024]";
  if (dramBytesPerCycle < 1)
    return "DRAM bandwidth must be at least 1 byte per cycle";
  if (mshrs < 1 || mshrs > 4096)
    return "MSHRs must be in [1, 4096]";
  if (lookahead < 1 || lookahead > 1 << 20)
    return "lookahead must be in [1, 2^20]";
  for (int v : {privateLatency, llcLatency, llcBankCycles, dramLatency,
                tileStartCycles, rowStartCycles, barrierCycles})
    if (v < 0 || v > 1000000)
      return "latencies and cycle counts must be in [0, 10^6]";
  return "";
}

std::string SpadeMachineConfig::toJson() const {
  std::ostringstream os;
  os << "{";
  for (const IntField &f : kIntFields) {
    os << "\"" << f.name << "\": ";
    if (f.intMember)
      os << this->*f.intMember;
    else
      os << this->*f.longMember;
    os << ", ";
  }
  os << "\"clock_ghz\": " << clockGHz << "}";
  return os.str();
}

std::string SpadeMachineConfig::set(const std::string &key,
                                    const std::string &value) {
  errno = 0;
  char *end = nullptr;
  if (key == "clock_ghz") {
    double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end || errno || !(v >= 1e-3 && v <= 1e3))
      return "machine parameter 'clock_ghz' needs a number in [0.001, 1000] "
             "GHz, got '" +
             value + "'";
    clockGHz = v;
    return "";
  }
  for (const IntField &f : kIntFields) {
    if (key != f.name)
      continue;
    long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end || errno)
      return "machine parameter '" + key + "' needs an integer, got '" + value +
             "'";
    if (f.intMember) {
      if (v < -(1LL << 31) || v >= (1LL << 31))
        return "machine parameter '" + key + "' is out of range";
      this->*f.intMember = int(v);
    } else {
      this->*f.longMember = v;
    }
    return "";
  }
  std::string known;
  for (const IntField &f : kIntFields)
    known += std::string(known.empty() ? "" : ", ") + f.name;
  return "unknown machine parameter '" + key + "' (known: " + known +
         ", clock_ghz)";
}
