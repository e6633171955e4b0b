//===- DefaultSchedule.h - Model-free schedules -----------------*- C++ -*-===//
//
// Part of sptune. Shorthands for the two schedules every target defines
// without a model (sptune/Target/Target.h): the heuristic (MLGO's
// "heuristic" mode, the baseline every model must beat) and the reference
// that runs when nobody tunes (upstream MLIR's sparsifier default on the
// CPU). Each target implements both in its own folder.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGET_DEFAULTSCHEDULE_H
#define SPTUNE_TARGET_DEFAULTSCHEDULE_H

#include "sptune/Matrix/MatrixStats.h"
#include "sptune/Schedule/Schedule.h"

namespace sptune {

/// The heuristic schedule of the registered target of kind `target`
/// (Target::heuristicSchedule). `stats` (may be null) refines it; `free` is
/// the size of the free dense loop (0 = unknown). A target that is not
/// registered gets plain CSR.
Schedule defaultSchedule(TargetKind target, KernelType kernel,
                         const MatrixStats *stats = nullptr, int64_t free = 0);

/// The registered target's untuned reference (Target::referenceSchedule):
/// on the CPU, upstream MLIR's sparsifier default — CSR, the loop order
/// upstream's sort picks ((i, k, j) for SpMM and SDDMM, (i, k) for SpMV), the
/// outer dense loop parallel with OpenMP, no vectorization. A target that is
/// not registered gets plain CSR.
Schedule referenceSchedule(TargetKind target, KernelType kernel);

} // namespace sptune

#endif // SPTUNE_TARGET_DEFAULTSCHEDULE_H
