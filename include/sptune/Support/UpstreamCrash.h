//===- UpstreamCrash.h - Contain crashes of upstream MLIR code --*- C++ -*-===//
//
// Part of sptune. Debian's MLIR 22.1 is built without assertions: on input
// it does not support, upstream code (e.g. the sparsifier on a sampled
// kernel whose `absent` region yields a value) can segfault instead of
// failing. sptune's lowering passes run the upstream pipelines they nest
// through `runContainingCrashes`, so that such a crash becomes an error on
// the module and a non-zero exit, not a dead sptune-opt.
//
// The crash is recovered with llvm::CrashRecoveryContext on the calling
// thread; the IR it left behind is not trusted again (the pass fails, and
// nothing is printed). Crashes in threads of a parallel nested pipeline are
// not contained. sptune-opt itself runs the whole command line's passes
// under one more recovery context (tools/sptune-opt), for upstream passes
// named there directly.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SUPPORT_UPSTREAMCRASH_H
#define SPTUNE_SUPPORT_UPSTREAMCRASH_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/CrashRecoveryContext.h"

namespace sptune {

/// Runs `body` (which calls upstream MLIR code on `op`); if it crashes,
/// emits an error on `op` naming `what` and returns failure.
inline mlir::LogicalResult
runContainingCrashes(mlir::Operation *op, llvm::StringRef what,
                     llvm::function_ref<mlir::LogicalResult()> body) {
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext context;
  mlir::LogicalResult result = mlir::failure();
  if (context.RunSafely([&] { result = body(); }))
    return result;
  // At the location only: the op itself may be left half-built.
  mlir::emitError(op->getLoc()) << what
                  << " crashed in upstream MLIR code (signal "
                  << context.RetCode - 128
                  << "): MLIR 22.1 does not handle this input (a kernel form "
                     "or encoding its sparsifier does not support); the "
                     "module was not lowered";
  return mlir::failure();
}

} // namespace sptune

#endif // SPTUNE_SUPPORT_UPSTREAMCRASH_H
