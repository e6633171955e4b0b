//===- Passes.h - standalone-compiler's own passes --------------*- C++ -*-===//

#ifndef STANDALONE_PASSES_H
#define STANDALONE_PASSES_H

#include "mlir/Pass/Pass.h"

#include <string>

namespace standalone {

#define GEN_PASS_DECL
#include "standalone/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "standalone/Passes.h.inc"

/// Registers `standalone-tune-cpu`: sptune's extraction, autotuning and
/// schedule application, this project's kernel count, and sptune's CPU
/// lowering, as one pipeline.
void registerStandalonePipelines();

} // namespace standalone

#endif // STANDALONE_PASSES_H
