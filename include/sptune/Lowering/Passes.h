//===- Passes.h - Passes several targets' lowerings share -------*- C++ -*-===//
//
// Part of sptune. sptune-check-sparse-reads, which the CPU and NVVM lowering
// pipelines run first.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_LOWERING_PASSES_H
#define SPTUNE_LOWERING_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace sptune {

#define GEN_PASS_DECL
#include "sptune/Lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sptune/Lowering/Passes.h.inc"

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_LOWERING_PASSES_H
