//===- CpuHeuristic.h - The CPU target's model-free schedules ---*- C++ -*-===//
//
// Part of sptune. The schedule the CPU target picks without a model (MLGO's
// "heuristic" mode, the baseline every model must beat), in the spirit of
// Scorch: loop orders that avoid asymptotic cliffs, the outer dense loop in
// parallel (unless the kernel is too small to share), the dense inner
// dimension vectorized; and upstream MLIR's sparsifier default, the
// reference speedups are measured against.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_CPUHEURISTIC_H
#define SPTUNE_TARGETS_CPU_CPUHEURISTIC_H

#include "sptune/Matrix/MatrixStats.h"
#include "sptune/Schedule/Schedule.h"

namespace sptune {

/// The heuristic CPU schedule of `kernel`. `stats` (may be null) refines
/// it: load-imbalanced rows get dynamic OpenMP scheduling, mostly empty rows
/// a compressed row level, SDDMM a transposed B when it pays, and a kernel
/// with too little work to share (stored entries times `free`, against a
/// threshold per kernel shape; a batched SpMM's, whose `stats` are its
/// tensor's, tensorHeuristicStats, takes SpMM's) one thread. `free` is the
/// size of the free dense loop (0 = unknown).
Schedule cpuHeuristicSchedule(KernelType kernel, const MatrixStats *stats,
                              int64_t free);

/// The upstream MLIR sparsifier's default: CSR, the loop order upstream's
/// sort picks ((i, k, j) for SpMM and SDDMM, (i, k) for SpMV), the outer
/// dense loop parallel with OpenMP, no vectorization.
Schedule cpuMlirDefaultSchedule(KernelType kernel);

} // namespace sptune

#endif // SPTUNE_TARGETS_CPU_CPUHEURISTIC_H
