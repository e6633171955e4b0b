//===- NvvmTarget.h - The NVVM target's registration ------------*- C++ -*-===//
//
// Part of sptune. Target "nvvm": GPU kernels through MLIR's sparse GPU code
// generation or cuSPARSE, serialized to PTX.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_NVVM_NVVMTARGET_H
#define SPTUNE_TARGETS_NVVM_NVVMTARGET_H

namespace sptune {

/// Registers target "nvvm" (schedule space, heuristic, GPU legality,
/// lowering through sptune-lower-nvvm). Idempotent.
void registerNvvmTarget();

/// Registers the GPU measurer (JIT bench against the CUDA runtime, cuSPARSE
/// baseline). Exists only in builds with CUDA (SPTUNE_HAVE_CUDA).
void registerNvvmMeasurer();

} // namespace sptune

#endif // SPTUNE_TARGETS_NVVM_NVVMTARGET_H
