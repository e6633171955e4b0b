//===- NvvmKnobs.h - The NVVM target's own part of a schedule ---*- C++ -*-===//
//
// Part of sptune. MLIR's sparse GPU code generation (threads per block) or
// the cuSPARSE library path: the knob block of `nvvm` schedules, printed as
// `threads = 1024, libgen = false`.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_NVVM_NVVMKNOBS_H
#define SPTUNE_TARGETS_NVVM_NVVMKNOBS_H

#include "sptune/Schedule/Schedule.h"

namespace sptune {

struct GpuKnobs : KnobValuesOf<GpuKnobs> {
  static char ID;
  int threads = 1024;  ///< threads per block of sparse-gpu-codegen
  bool libgen = false; ///< cuSPARSE through enable-gpu-libgen
  bool operator==(const GpuKnobs &) const;
};

/// The NVVM knobs of `s` (the defaults when it sets none).
inline const GpuKnobs &gpuKnobs(const Schedule &s) {
  return s.knobs<GpuKnobs>();
}
inline GpuKnobs &gpuKnobs(Schedule &s) { return s.knobs<GpuKnobs>(); }

/// How the values layer prints, parses, checks and canonicalizes them.
const TargetKnobs &nvvmTargetKnobs();

} // namespace sptune

#endif // SPTUNE_TARGETS_NVVM_NVVMKNOBS_H
