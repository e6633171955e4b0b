//===- ScheduleSpace.h - A target's space of schedules ----------*- C++ -*-===//
//
// Part of sptune. Each target describes the schedules it can run for a kernel:
// enumerate, sample uniformly with a seed, check membership. Plain C++ so the
// collector, the trainer and the simulator use it without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGET_SCHEDULESPACE_H
#define SPTUNE_TARGET_SCHEDULESPACE_H

#include "sptune/Schedule/Schedule.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace sptune {

/// The problem a space is asked about: which kernel, on what sparse operand.
struct ProblemShape {
  KernelType kernel = kDefaultKernelType;
  int64_t rows = 0; ///< size of the sparse operand's row role (0 = unknown)
  int64_t cols = 0; ///< size of its column role (0 = unknown)
  int64_t free = 0; ///< size of the free dense loop (N of SpMM, K of SDDMM)
  int64_t nnz = 0;  ///< stored entries of the sparse operand (0 = unknown)
};

class ScheduleSpace {
public:
  virtual ~ScheduleSpace();
  virtual TargetKind target() const = 0;

  /// Calls `fn` on every canonical, legal schedule of the space for `shape`,
  /// each once, in a deterministic order; stops early when `fn` returns false.
  virtual void enumerate(const ProblemShape &shape,
                         const std::function<bool(const Schedule &)> &fn) const = 0;

  /// Draws up to `count` distinct legal schedules uniformly at random from the
  /// space (fewer if the space is smaller), deterministically for a seed.
  virtual std::vector<Schedule> sample(const ProblemShape &shape, size_t count,
                                       uint64_t seed) const;

  /// Number of legal schedules for `shape`.
  virtual uint64_t size(const ProblemShape &shape) const;

  /// Whether `s` (after canonicalization) belongs to the space.
  virtual bool contains(const ProblemShape &shape, const Schedule &s) const;

  /// Whether `s` makes sense for a free dense loop of `free` iterations
  /// (0 = unknown): the CPU space refuses more vector lanes than an
  /// innermost free loop has. The tuner applies it to every candidate,
  /// sampled or not; the space's own schedules all pass.
  virtual bool fitsFreeSize(const Schedule &s, int64_t free) const;

  /// Whether `s` makes sense on the machine this process runs on: the CPU
  /// space refuses more OpenMP threads than the process may run on at once
  /// (oversubscription, which a model trained elsewhere may still rank
  /// first). The tuner applies it to every candidate; collection does not
  /// (measurements of such schedules teach a model what they cost).
  virtual bool fitsThisMachine(const Schedule &s) const;
};

} // namespace sptune

#endif // SPTUNE_TARGET_SCHEDULESPACE_H
