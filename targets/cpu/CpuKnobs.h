//===- CpuKnobs.h - The CPU target's own part of a schedule -----*- C++ -*-===//
//
// Part of sptune. OpenMP parallelization of the outer loop (threads,
// schedule kind, chunk) and vectorization (vector length, 32-bit SIMD
// indices): the knob block of `cpu` schedules, printed after the shared
// part as `parallel = outer, threads = 0, omp = dynamic, chunk = 16, vl = 8,
// simd32 = false`; and the SpGEMM kernel's accumulator and passes.
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

/// The order in which the outer loop visits the sparse operand's rows:
/// as stored, or reverse Cuthill-McKee (sptune/Matrix/RowOrder.h), which
/// puts rows that share columns next to each other so that the dense rows
/// they read stay in cache. The rows keep their storage and the results
/// their places; the order is computed, when the module is compiled, from
/// the matrix the kernel is compiled for (cpu/RowOrder.h).
enum class RowOrderKind : uint8_t { Natural, Rcm };

/// Where the SpGEMM kernel (cpu/GustavsonSpgemm.h) keeps a row's sums: a
/// dense workspace over C's columns or a hash table sized by the rows; auto
/// leaves it to the lowering's gustavson-accumulator option, whose default,
/// auto, decides when the kernel runs (dense unless its workspaces pass
/// 1 GiB and the tables would be smaller).
enum class SpgemmAccumulator : uint8_t { Auto, Dense, Hash };

/// How the SpGEMM kernel finds C's positions: in one pass into C's buffers
/// allocated with a slot per product (then moved down into place), in two
/// (count each row's columns, then compute into place), or auto (one pass
/// when those buffers fit the lowering's gustavson-one-pass-bytes budget,
/// 1 GiB by default).
enum class SpgemmPasses : uint8_t { Auto, One, Two };

/// How the MTTKRP kernel (cpu/FactoredMttkrp.h) sums a slice of B: per
/// fiber, the fiber's sum of B D times C once (factored, SPLATT's), or
/// B(i, k, l) C(k, :) D(l, :) added per entry (entry-wise); auto leaves it
/// to the lowering's mttkrp-form option, whose default, auto, decides when
/// the kernel runs (entry-wise over COO, and over CSF whose typical entry's
/// fiber holds fewer than 8 entries). Also the lowering option's values.
enum class MttkrpForm : uint8_t { Auto, Factored, EntryWise };

/// "none", "outer".
const char *toString(ParallelKind);
/// "none", "rcm".
const char *toString(RowOrderKind);
/// "static", "dynamic", "balanced".
const char *toString(OmpScheduleKind);
/// "auto", "dense", "hash".
const char *toString(SpgemmAccumulator);
/// "auto", "one", "two".
const char *toString(SpgemmPasses);
/// "auto", "factored", "entry_wise" (as a schedule prints it).
const char *toString(MttkrpForm);

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
  /// Printed as `reorder = rcm` when not natural (left out otherwise, so
  /// that schedules without it print as they did before the knob).
  RowOrderKind rowOrder = RowOrderKind::Natural;
  /// SpGEMM only (printed as `accumulator = hash`, `passes = two` when not
  /// auto; an SpGEMM kernel takes none of the knobs above but `parallel`
  /// and `threads`: its rows are cut into one block of equal work per
  /// thread).
  SpgemmAccumulator accumulator = SpgemmAccumulator::Auto;
  SpgemmPasses passes = SpgemmPasses::Auto;
  /// MTTKRP only (printed as `form = factored` when not auto; an MTTKRP
  /// kernel takes none of the knobs above but `parallel` and `threads`: its
  /// slices are cut into one block of equal work per thread).
  MttkrpForm form = MttkrpForm::Auto;
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

/// Why `s` cannot visit its rows in another order (reorder = rcm), or ""
/// when it can: the outer loop must walk the rows of the output, densely
/// and one by one (a dense outer level over a loop of the output, not the
/// reduction, outermost), and omp = balanced, which cuts the rows by their
/// stored entries in storage order, is not combined with it.
std::string whyNotReorderable(const Schedule &s);

/// How the values layer prints, parses, checks and canonicalizes them.
const TargetKnobs &cpuTargetKnobs();

} // namespace sptune

#endif // SPTUNE_TARGETS_CPU_CPUKNOBS_H
