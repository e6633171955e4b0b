//===- MachineDescriptor.cpp - What a measurement's machine is ------------===//

#include "sptune/Machine/MachineDescriptor.h"
#include "sptune/Schedule/DatasetSchema.h"
#include "sptune/Support/Error.h"
#include "sptune/Support/HostCpu.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <new>
#include <thread>
#include <type_traits>
#include <vector>

#include <unistd.h>

using namespace sptune;

std::optional<uint64_t> sptune::parseCacheSize(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.remove_suffix(1);
  if (text.empty())
    return std::nullopt;
  uint64_t unit = 1;
  switch (text.back()) {
  case 'K':
    unit = 1024;
    break;
  case 'M':
    unit = 1024 * 1024;
    break;
  case 'G':
    unit = 1024ull * 1024 * 1024;
    break;
  default:
    break;
  }
  if (unit != 1)
    text.remove_suffix(1);
  if (text.empty() || text.size() > 12)
    return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value * unit;
}

static std::string readFirstLine(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

/// A sysconf cache size (glibc reads CPUID), or 0.
static uint64_t sysconfBytes(int name) {
  long v = sysconf(name);
  return v > 0 ? static_cast<uint64_t>(v) : 0;
}

/// Cache sizes of CPU 0 from /sys/devices/system/cpu/cpu0/cache/index*, or,
/// where a VM's kernel exposes none, from sysconf (CPUID's view: a VM may
/// be shown its host's whole L3).
static void readCaches(MachineDescriptor &m) {
  int llcLevel = 0;
  for (int index = 0; index < 16; ++index) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::string levelText = readFirstLine(dir + "/level");
    if (levelText.empty())
      break;
    std::string type = readFirstLine(dir + "/type");
    std::optional<uint64_t> size = parseCacheSize(readFirstLine(dir + "/size"));
    if (!size || type == "Instruction")
      continue;
    int level = std::atoi(levelText.c_str());
    if (level == 1)
      m.l1dBytes = *size;
    else if (level == 2)
      m.l2Bytes = *size;
    if (level >= llcLevel) {
      llcLevel = level;
      m.llcBytes = *size;
    }
  }
  if (llcLevel > 0)
    return;
#ifdef _SC_LEVEL1_DCACHE_SIZE
  m.l1dBytes = sysconfBytes(_SC_LEVEL1_DCACHE_SIZE);
  m.l2Bytes = sysconfBytes(_SC_LEVEL2_CACHE_SIZE);
  m.llcBytes = sysconfBytes(_SC_LEVEL3_CACHE_SIZE);
  if (m.llcBytes == 0)
    m.llcBytes = m.l2Bytes;
#endif
}

static unsigned widestSimdBits() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return 512;
  if (__builtin_cpu_supports("avx"))
    return 256;
  if (__builtin_cpu_supports("sse2"))
    return 128;
  return 0;
#elif defined(__aarch64__)
  return 128; // NEON; SVE's width is not probed
#else
  return 0;
#endif
}

static unsigned usableCores() {
  if (int allowed = allowedCpuCount(); allowed > 0)
    return static_cast<unsigned>(allowed);
  return std::max(1u, std::thread::hardware_concurrency());
}

/// 49152 -> "48 KiB", 1048576 -> "1 MiB".
static std::string binarySize(uint64_t bytes) {
  if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0)
    return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

std::string sptune::summary(const MachineDescriptor &m) {
  std::vector<std::string> parts;
  if (m.cores)
    parts.push_back(std::to_string(m.cores) + " cores");
  if (m.simdBits)
    parts.push_back(std::to_string(m.simdBits) + "-bit SIMD");
  if (m.l1dBytes)
    parts.push_back("L1d " + binarySize(m.l1dBytes));
  if (m.l2Bytes)
    parts.push_back("L2 " + binarySize(m.l2Bytes));
  if (m.llcBytes)
    parts.push_back("LLC " + binarySize(m.llcBytes));
  if (m.bandwidthGBs > 0) {
    char gbs[32];
    std::snprintf(gbs, sizeof(gbs), "%.1f GB/s", m.bandwidthGBs);
    parts.push_back(gbs);
  }
  if (m.forkJoinMicros > 0) {
    char us[40];
    std::snprintf(us, sizeof(us), "fork-join %.1f us", m.forkJoinMicros);
    parts.push_back(us);
  }
  std::string out;
  for (const std::string &p : parts)
    out += (out.empty() ? "" : ", ") + p;
  return out;
}

MachineDescriptor sptune::probeMachine() {
  MachineDescriptor m;
  m.cpu = hostCpuName();
  m.cores = usableCores();
  m.simdBits = widestSimdBits();
  readCaches(m);
  return m;
}

llvm::Expected<double> sptune::measureTriadBandwidth(unsigned threads,
                                                     uint64_t bytesPerArray,
                                                     unsigned reps) {
  threads = std::max(1u, threads);
  size_t n = static_cast<size_t>(bytesPerArray / sizeof(double));
  if (n < threads)
    return makeError("measureTriadBandwidth: arrays of " +
                     std::to_string(bytesPerArray) + " bytes are too small");
  std::unique_ptr<double[]> a(new (std::nothrow) double[n]),
      b(new (std::nothrow) double[n]), c(new (std::nothrow) double[n]);
  if (!a || !b || !c)
    return makeError("measureTriadBandwidth: cannot allocate 3 x " +
                     std::to_string(bytesPerArray) + " bytes");
  // Each thread touches, then updates, its own contiguous share (first
  // touch places the pages near the thread that uses them).
  auto pass = [&](bool init) {
    std::vector<std::thread> team;
    for (unsigned t = 0; t < threads; ++t)
      team.emplace_back([&, t] {
        size_t lo = n * t / threads, hi = n * (t + 1) / threads;
        double *pa = a.get(), *pb = b.get(), *pc = c.get();
        if (init) {
          for (size_t i = lo; i < hi; ++i) {
            pa[i] = 0.0;
            pb[i] = 1.0;
            pc[i] = 2.0;
          }
          return;
        }
        for (size_t i = lo; i < hi; ++i)
          pa[i] = pb[i] + 3.0 * pc[i];
      });
    for (std::thread &t : team)
      t.join();
  };
  pass(/*init=*/true);
  double best = 0;
  for (unsigned r = 0; r < std::max(1u, reps); ++r) {
    auto start = std::chrono::steady_clock::now();
    pass(/*init=*/false);
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    if (seconds > 0)
      best = std::max(best, 3.0 * static_cast<double>(n * sizeof(double)) /
                                seconds / 1e9);
  }
  // The result is read so that the passes cannot be dropped.
  if (a[n / 2] != 7.0)
    return makeError("measureTriadBandwidth: wrong triad result");
  return best;
}

const MachineDescriptor &sptune::thisMachine() {
  static const MachineDescriptor machine = [] {
    MachineDescriptor m = probeMachine();
    // Four times the last-level cache per array, so that the triad streams
    // from memory; at least 32 MiB (unknown or small caches), at most
    // 256 MiB (three times a 260 MiB LLC in all; about a second) and an
    // eighth of the memory available. A VM shown its host's whole L3 (the
    // AMD EPYC VM: 508 MiB) gets the cap.
    uint64_t available = sysconfBytes(_SC_AVPHYS_PAGES) *
                         std::max<uint64_t>(1, sysconfBytes(_SC_PAGESIZE));
    uint64_t perArray = std::clamp<uint64_t>(4 * m.llcBytes, 32ull << 20,
                                             256ull << 20);
    if (available > 0)
      perArray = std::max<uint64_t>(std::min(perArray, available / 8),
                                    1ull << 20);
    if (llvm::Expected<double> gbs = measureTriadBandwidth(m.cores, perArray))
      m.bandwidthGBs = *gbs;
    else
      llvm::consumeError(gbs.takeError()); // left unmeasured (0)
    if (llvm::Expected<double> us = measureForkJoinMicros(m.cores))
      m.forkJoinMicros = *us;
    else
      llvm::consumeError(us.takeError()); // left unmeasured (0)
    return m;
  }();
  return machine;
}

namespace key = dataset::machine_field;

llvm::json::Object sptune::toJson(const MachineDescriptor &m) {
  return llvm::json::Object{
      {key::kCpu, m.cpu},
      {key::kCores, static_cast<int64_t>(m.cores)},
      {key::kSimdBits, static_cast<int64_t>(m.simdBits)},
      {key::kL1dBytes, static_cast<int64_t>(m.l1dBytes)},
      {key::kL2Bytes, static_cast<int64_t>(m.l2Bytes)},
      {key::kLlcBytes, static_cast<int64_t>(m.llcBytes)},
      {key::kBandwidthGBs, m.bandwidthGBs},
      {key::kForkJoinMicros, m.forkJoinMicros}};
}

/// Reads the non-negative number `name` of `o` into `out` when present: an
/// integer for an integral `T` (a count, a size), any number otherwise (a
/// measure).
template <typename T>
static llvm::Error readNonNegative(const llvm::json::Object &o,
                                   const char *name, T &out) {
  const llvm::json::Value *v = o.get(name);
  if (!v)
    return llvm::Error::success();
  if constexpr (std::is_floating_point_v<T>) {
    std::optional<double> d = v->getAsNumber();
    if (!d || *d < 0)
      return makeError(std::string("machine: '") + name +
                       "' is not a non-negative number");
    out = *d;
  } else {
    std::optional<int64_t> i = v->getAsInteger();
    if (!i || *i < 0)
      return makeError(std::string("machine: '") + name +
                       "' is not a non-negative integer");
    out = static_cast<T>(*i);
  }
  return llvm::Error::success();
}

llvm::Expected<MachineDescriptor>
sptune::machineFromJson(const llvm::json::Object &o) {
  MachineDescriptor m;
  if (const llvm::json::Value *cpu = o.get(key::kCpu)) {
    std::optional<llvm::StringRef> s = cpu->getAsString();
    if (!s)
      return makeError("machine: 'cpu' is not a string");
    m.cpu = s->str();
  }
  if (llvm::Error e = readNonNegative(o, key::kCores, m.cores))
    return std::move(e);
  if (llvm::Error e = readNonNegative(o, key::kSimdBits, m.simdBits))
    return std::move(e);
  if (llvm::Error e = readNonNegative(o, key::kL1dBytes, m.l1dBytes))
    return std::move(e);
  if (llvm::Error e = readNonNegative(o, key::kL2Bytes, m.l2Bytes))
    return std::move(e);
  if (llvm::Error e = readNonNegative(o, key::kLlcBytes, m.llcBytes))
    return std::move(e);
  if (llvm::Error e = readNonNegative(o, key::kBandwidthGBs, m.bandwidthGBs))
    return std::move(e);
  if (llvm::Error e =
          readNonNegative(o, key::kForkJoinMicros, m.forkJoinMicros))
    return std::move(e);
  return m;
}
