//===- CpuKnobs.h - The CPU target's own part of a schedule -----*- C++ -*-===//
//
// Part of sptune. OpenMP parallelization of the outer loop (threads,
// schedule kind, chunk) and vectorization (vector length, 32-bit SIMD
// indices): the knob block of `cpu` schedules, printed after the shared
// part as `parallel = outer, threads = 0, omp = dynamic, chunk = 16, vl = 8,
// simd32 = false`.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_CPUKNOBS_H
#define SPTUNE_TARGETS_CPU_CPUKNOBS_H

#include "sptune/Schedule/Schedule.h"

namespace sptune {

enum class ParallelKind : uint8_t { None, Outer };
/// Balanced: one block of rows per thread, cut where the sparse operand's
/// stored entries (not its rows) are split evenly (sptune-balance-rows).
enum class OmpScheduleKind : uint8_t { Static, Dynamic, Balanced };

/// "none", "outer".
const char *toString(ParallelKind);
/// "static", "dynamic", "balanced".
const char *toString(OmpScheduleKind);

/// The most threads a schedule (and the lowering passes' `threads`
/// override) may ask for.
constexpr int kMaxCpuThreads = 1024;

/// Why a lowering pass's `threads` option cannot be used ("" when it can):
/// -1 (each function's schedule decides) or a count in [0, kMaxCpuThreads].
std::string whyBadThreadsOption(int threads);

struct CpuKnobs : KnobValuesOf<CpuKnobs> {
  static char ID;
  ParallelKind parallel = ParallelKind::None;
  int threads = 0; ///< 0 = the OpenMP default (all hardware threads)
  OmpScheduleKind omp = OmpScheduleKind::Static;
  int chunk = 0;        ///< 0 = the runtime's default chunk
  int vectorLength = 0; ///< 0 = no vectorization; else 4, 8 or 16
  bool simdIndex32 = false;
  bool operator==(const CpuKnobs &) const;
};

/// The CPU knobs of `s` (the defaults when it sets none).
inline const CpuKnobs &cpuKnobs(const Schedule &s) {
  return s.knobs<CpuKnobs>();
}
inline CpuKnobs &cpuKnobs(Schedule &s) { return s.knobs<CpuKnobs>(); }

/// Why `s` cannot split its outer loop's rows by stored entries (omp =
/// balanced), or "" when it can: it needs a parallel outer loop over a
/// dense level whose next level is compressed, and no chunk.
std::string whyNotBalanceable(const Schedule &s);

/// How the values layer prints, parses, checks and canonicalizes them.
const TargetKnobs &cpuTargetKnobs();

} // namespace sptune

#endif // SPTUNE_TARGETS_CPU_CPUKNOBS_H
