//===- SpadePasses.h - Passes of the SPADE target ---------------*- C++ -*-===//

#ifndef SPTUNE_TARGETS_SPADE_SPADEPASSES_H
#define SPTUNE_TARGETS_SPADE_SPADEPASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace sptune {

#define GEN_PASS_DECL
#include "spade/SpadePasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "spade/SpadePasses.h.inc"

/// Registers `sptune-emit-spade`.
void registerSpadeTargetPasses();

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_SPADE_SPADEPASSES_H
