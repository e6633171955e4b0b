//===- InitAllTargets.h - Register sptune's targets -------------*- C++ -*-===//
//
// Part of sptune. The registration of the targets that ship with sptune:
// each folder of targets/ registers itself in its CMakeLists.txt
// (sptune_register_target), and CMake writes these functions from what the
// folders registered. Tools call them at start-up;
// `registerAllSptunePasses()` calls `registerAllTargets()` and
// `registerAllTargetPasses()` too, so a downstream compiler that registers
// sptune's passes has the targets.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_INITALLTARGETS_H
#define SPTUNE_INITALLTARGETS_H

namespace sptune {

/// Registers every built-in target with the TargetRegistry (library
/// SptuneTargets: descriptions only, no measurement stack). Idempotent.
void registerAllTargets();

/// Registers every built-in target's lowering passes with MLIR's pass
/// registry (library SptuneTargetPasses).
void registerAllTargetPasses();

/// Registers the measurers of every built-in target that this build has
/// (library SptuneMeasurers: JIT benches, library baselines, the
/// simulator; NVVM only with CUDA). For tools that measure. Also registers
/// the targets.
void registerAllMeasurers();

} // namespace sptune

#endif // SPTUNE_INITALLTARGETS_H
