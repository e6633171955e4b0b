//===- InitAll.h - Register everything sptune provides ----------*- C++ -*-===//
//
// Part of sptune. For tools and for users linking the pass library into their
// own MLIR compiler: one call registers sptune's dialect, passes and
// pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_INITALL_H
#define SPTUNE_INITALL_H

namespace mlir {
class DialectRegistry;
namespace sptune {

/// Adds the sptune dialect (and what it depends on) to `registry`.
void registerAllSptuneDialects(DialectRegistry &registry);

/// Registers sptune's passes and pipelines with the global pass registry,
/// and the built-in targets (sptune::registerAllTargets()).
void registerAllSptunePasses();

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_INITALL_H
