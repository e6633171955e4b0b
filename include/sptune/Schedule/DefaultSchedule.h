//===- DefaultSchedule.h - Heuristic schedule without a model ---*- C++ -*-===//
//
// Part of sptune. The schedule sptune picks when it has no model (MLGO's
// "heuristic" mode, the baseline every model must beat). In the spirit of
// Scorch: choose loop orders that avoid asymptotic cliffs, parallelize the
// outer dense loop, vectorize the dense inner dimension.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SCHEDULE_DEFAULTSCHEDULE_H
#define SPTUNE_SCHEDULE_DEFAULTSCHEDULE_H

#include "sptune/Matrix/MatrixStats.h"
#include "sptune/Schedule/Schedule.h"

namespace sptune {

/// The heuristic schedule for `kernel` on `target`. `stats` (may be null)
/// refines it: load-imbalanced rows get dynamic OpenMP scheduling, mostly
/// empty rows get a compressed row level. `free` is the size of the free
/// dense loop (0 = unknown).
Schedule defaultSchedule(TargetKind target, KernelType kernel,
                         const MatrixStats *stats = nullptr, int64_t free = 0);

/// The upstream MLIR sparsifier's default for comparison: CSR, the loop order
/// upstream's sort picks ((i, k, j) for SpMM and SDDMM, (i, k) for SpMV), the
/// outer dense loop parallel with OpenMP, no vectorization.
Schedule mlirDefaultSchedule(TargetKind target, KernelType kernel);

} // namespace sptune

#endif // SPTUNE_SCHEDULE_DEFAULTSCHEDULE_H
