//===- NvvmCopyBack.cpp - sptune-nvvm-copy-back ---------------------------===//
//
// sparse-gpu-codegen (mlir 22.1, genParametersOut) copies the *first* buffer
// argument of an outlined kernel back to the host, assuming it is the output.
// The arguments are collected in the order the kernel body uses them, so the
// first is normally the positions array of the sparse operand: the positions
// come back unchanged and the real output (C of an SpMM, the values of an
// in-place SDDMM) is freed on the device without being copied. Reproduced
// with `mlir-opt --sparse-gpu-codegen` on a CSR SpMM.
//
// It also frees the other buffers on fresh streams with no dependency on the
// kernel, i.e. possibly while the kernel still reads them.
//
// This pass derives from each kernel's body which buffer arguments it writes
// and makes every launch copy exactly those back, from the device buffer to
// the host buffer it was uploaded from, after the launch and before the
// device buffer is freed; and it orders every free of a kernel buffer after
// the launch. Launches of kernels sptune-nvvm-sparsify did not outline (the
// user's own GPU code) are left as written.
//
//===----------------------------------------------------------------------===//

#include "nvvm/NvvmPasses.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_NVVMCOPYBACK
#include "nvvm/NvvmPasses.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;

namespace {

/// Whether the kernel may write through `buffer` (a memref argument or a
/// view of one). Users without a memory-effect interface count as writers.
bool mayWrite(Value buffer) {
  for (Operation *user : buffer.getUsers()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(user);
        view && view.getViewSource() == buffer) {
      for (Value result : user->getResults())
        if (mayWrite(result))
          return true;
      continue;
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    if (!effects) {
      if (isPure(user))
        continue;
      return true;
    }
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffectsOnValue(buffer, list);
    for (const MemoryEffects::EffectInstance &e : list)
      if (isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect()))
        return true;
  }
  return false;
}

/// The `gpu.wait async` (a stream of its own) that `free` alone depends on,
/// or null. Upstream frees every buffer but the first that way.
gpu::WaitOp ownStream(gpu::DeallocOp free) {
  if (free.getAsyncDependencies().size() != 1)
    return {};
  Value dep = free.getAsyncDependencies()[0];
  auto wait = dep.getDefiningOp<gpu::WaitOp>();
  if (!wait || !wait.getAsyncToken() || !dep.hasOneUse())
    return {};
  return wait;
}

/// The device buffer `dev` of a launch and the host-side ops around it.
struct Transfer {
  gpu::MemcpyOp upload;   ///< host -> dev before the launch
  gpu::MemcpyOp download; ///< dev -> host after the launch
  gpu::DeallocOp dealloc; ///< after the launch
};

Transfer findTransfers(gpu::LaunchFuncOp launch, Value dev) {
  Transfer t;
  for (Operation *user : dev.getUsers()) {
    if (user->getBlock() != launch->getBlock())
      continue;
    bool after = launch->isBeforeInBlock(user);
    if (auto copy = dyn_cast<gpu::MemcpyOp>(user)) {
      if (copy.getDst() == dev && !after)
        t.upload = copy;
      else if (copy.getSrc() == dev && after && !t.download)
        t.download = copy;
    } else if (auto free = dyn_cast<gpu::DeallocOp>(user)) {
      if (after && !t.dealloc)
        t.dealloc = free;
    }
  }
  return t;
}

struct NvvmCopyBackPass
    : public mlir::sptune::impl::NvvmCopyBackBase<NvvmCopyBackPass> {
  using NvvmCopyBackBase::NvvmCopyBackBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp l) { launches.push_back(l); });
    bool ok = true;
    for (gpu::LaunchFuncOp launch : launches)
      ok &= succeeded(fix(launch));
    if (!ok)
      signalPassFailure();
  }

  static LogicalResult unexpected(gpu::LaunchFuncOp launch, unsigned n) {
    return launch.emitError("sptune-nvvm-copy-back: the host code around "
                            "the launch is not the asynchronous "
                            "alloc/copy/launch/free chain of "
                            "sparse-gpu-codegen (kernel argument #")
           << n << ")";
  }

  LogicalResult fix(gpu::LaunchFuncOp launch) {
    gpu::GPUFuncOp kernel = outlinedKernelOf(launch);
    if (!kernel)
      return success(); // the user's own GPU code: as written
    if (kernel.getNumArguments() != launch.getNumKernelOperands())
      return launch.emitError("sptune-nvvm-copy-back: the launch and the "
                              "kernel disagree on the arguments");
    IRRewriter rewriter(launch.getContext());
    // gpu-to-llvm maps each async token to a stream and destroys the stream
    // of every token a blocking gpu.wait takes; so exactly one chain may
    // continue on the launch's stream, and every other op ordered after the
    // launch starts from a `gpu.wait async [launch]` of its own.
    Value token = launch.getAsyncToken();
    for (auto [n, dev] : llvm::enumerate(launch.getKernelOperands())) {
      if (!isa<MemRefType>(dev.getType()))
        continue;
      Transfer t = findTransfers(launch, dev);
      if (!t.upload)
        continue; // not a buffer sparse-gpu-codegen uploaded
      if (!token || !t.dealloc || !t.dealloc.getAsyncToken())
        return unexpected(launch, n);
      bool written = mayWrite(kernel.getArgument(n));
      if (!written && t.download &&
          t.download.getAsyncDependencies().size() == 1 &&
          t.download.getAsyncToken()) {
        // A copy of data the kernel only reads: drop it; what waited for
        // it (the free) waits for the launch, on the launch's stream.
        rewriter.replaceAllUsesWith(t.download.getAsyncToken(),
                                    t.download.getAsyncDependencies()[0]);
        rewriter.eraseOp(t.download);
        continue;
      }
      if (t.download)
        continue; // already copied back (and freed) after the launch
      gpu::WaitOp stream = ownStream(t.dealloc);
      if (!stream)
        return unexpected(launch, n);
      if (!written) {
        // Free only after the launch.
        if (!llvm::is_contained(stream.getAsyncDependencies(), token))
          rewriter.modifyOpInPlace(stream, [&] {
            stream.getAsyncDependenciesMutable().append(token);
          });
        continue;
      }
      // Copy back on a stream that waits for the launch, then free there.
      rewriter.setInsertionPoint(t.dealloc);
      Location loc = launch.getLoc();
      Value after = gpu::WaitOp::create(rewriter, loc, token.getType(),
                                        ValueRange{token})
                        .getAsyncToken();
      auto copy = gpu::MemcpyOp::create(rewriter, loc, token.getType(),
                                        ValueRange{after}, t.upload.getSrc(),
                                        dev);
      rewriter.modifyOpInPlace(t.dealloc, [&] {
        t.dealloc.getAsyncDependenciesMutable().assign(copy.getAsyncToken());
      });
      rewriter.eraseOp(stream);
    }
    return success();
  }
};
} // namespace
