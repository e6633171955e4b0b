//===- CpuTarget.h - The CPU target's registration --------------*- C++ -*-===//
//
// Part of sptune. Target "cpu": LLVM + OpenMP through the MLIR sparsifier.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_CPUTARGET_H
#define SPTUNE_TARGETS_CPU_CPUTARGET_H

namespace sptune {

/// Registers target "cpu" (schedule space, heuristic, MLIR default,
/// lowering through sptune-lower-cpu). Idempotent.
void registerCpuTarget();

/// Registers the CPU measurer (JIT bench, MLIR default, Eigen and librsb
/// baselines) with the target registry. Only tools that measure link it.
void registerCpuMeasurer();

} // namespace sptune

#endif // SPTUNE_TARGETS_CPU_CPUTARGET_H
