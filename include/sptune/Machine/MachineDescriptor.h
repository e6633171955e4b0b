//===- MachineDescriptor.h - What a measurement's machine is ----*- C++ -*-===//
//
// Part of sptune. The facts about a CPU that decide which sparse schedule is
// fastest on it, recorded with every measurement (the dataset's "machine"
// object, sptune/Collect/Dataset.h) so that a model can one day be given the
// machine as well as the matrix (issue 31): cores this process may use, the
// widest SIMD registers, the L1 data, L2 and last-level cache sizes, and the
// memory bandwidth all cores reach (a STREAM triad over arrays four times the
// last-level cache, at most 256 MiB each), and what an empty OpenMP
// parallel region costs in the runtime the CPU kernels use (LLVM's libomp).
// Plain C++, LLVM Support and libomp; the bandwidth is measured with
// std::thread.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_MACHINE_MACHINEDESCRIPTOR_H
#define SPTUNE_MACHINE_MACHINEDESCRIPTOR_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sptune {

struct MachineDescriptor {
  /// /proc/cpuinfo's "model name" (sptune/Support/HostCpu.h).
  std::string cpu;
  /// CPUs this process may run on (its affinity mask), what OpenMP uses.
  unsigned cores = 0;
  /// Width of the widest vector registers the CPU supports: 512 (AVX-512F),
  /// 256 (AVX / AVX2), 128 (SSE2, NEON); 0 where unknown.
  unsigned simdBits = 0;
  /// Cache sizes of CPU 0 in bytes (0: unknown): the L1 data cache, the L2,
  /// and the last level (the highest level that holds data; on a CPU whose
  /// L3 is split between core complexes, one complex's share).
  uint64_t l1dBytes = 0, l2Bytes = 0, llcBytes = 0;
  /// STREAM triad bandwidth with one thread per core, GB/s (10^9 bytes);
  /// 0 when not measured.
  double bandwidthGBs = 0;
  /// An empty OpenMP parallel region with one thread per core (fork,
  /// barrier, join) in libomp, microseconds (median); 0 when not measured.
  /// What a parallel loop costs beyond its work: it decides whether small
  /// kernels should run in parallel at all.
  double forkJoinMicros = 0;
};

/// The static facts of this machine (everything but the bandwidth and the
/// fork-join cost): cheap, reads /proc and /sys.
MachineDescriptor probeMachine();

/// `probeMachine()` with the bandwidth and the fork-join cost measured, once
/// per process (the first call takes a fraction of a second and must not
/// run beside measurements; later calls return the same value).
const MachineDescriptor &thisMachine();

/// The triad bandwidth in GB/s of `threads` threads over three arrays of
/// doubles of `bytesPerArray` bytes each, best of `reps` passes after one
/// that touches the pages. Errors when the arrays cannot be allocated.
llvm::Expected<double> measureTriadBandwidth(unsigned threads,
                                             uint64_t bytesPerArray,
                                             unsigned reps = 3);

/// The median time of `reps` empty OpenMP parallel regions of `threads`
/// threads, in microseconds, after ten that start the runtime's threads.
/// Errors when the regions do not run.
llvm::Expected<double> measureForkJoinMicros(unsigned threads,
                                             unsigned reps = 1000);

/// What is known of `m` besides its CPU's name, for people: "2 cores,
/// 512-bit SIMD, L1d 48 KiB, L2 1 MiB, LLC 508 MiB, 45.6 GB/s, fork-join
/// 2.1 us" (unknown parts left out; empty when nothing is known).
std::string summary(const MachineDescriptor &m);

/// A sysfs cache size ("32K", "1024K", "32M", "512") in bytes, or nullopt.
std::optional<uint64_t> parseCacheSize(std::string_view text);

/// {"cpu": ..., "cores": 2, "simd_bits": 256, "l1d_bytes": 32768,
///  "l2_bytes": ..., "llc_bytes": ..., "bandwidth_gbs": 12.3,
///  "fork_join_us": 2.1}
/// (the dataset record's "machine" object adds "host").
llvm::json::Object toJson(const MachineDescriptor &m);

/// Reads toJson's keys from `o`; a key that is absent (records written
/// before the descriptor existed carry cpu and cores only) keeps its
/// unknown value, one of the wrong type or a negative number is an error.
llvm::Expected<MachineDescriptor>
machineFromJson(const llvm::json::Object &o);

} // namespace sptune

#endif // SPTUNE_MACHINE_MACHINEDESCRIPTOR_H
