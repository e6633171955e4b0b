//===- NvvmLaunchConfig.cpp - sptune-nvvm-launch-config -------------------===//
//
// sparse-gpu-codegen outlines the outermost parallel loop `for i in [0, N)`
// into a kernel that runs `for (r = blockIdx.x * blockDim.x + threadIdx.x;
// r < N; r += blockDim.x * gridDim.x)` and launches it with one block of
// num-threads threads. Any grid is correct for that loop; this pass sizes it
// to ceil(N / threads) blocks (or a fixed count) and sets the block size of
// each launch from the schedule of the kernel it comes from (or, where
// sptune-nvvm-sparsify could not tell, of the function it is in). Launches of
// the user's own kernels (not outlined by sptune-nvvm-sparsify) keep their
// sizes.
//
//===----------------------------------------------------------------------===//

#include "nvvm/NvvmPasses.h"
#include "nvvm/NvvmKnobs.h"

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_NVVMLAUNCHCONFIG
#include "nvvm/NvvmPasses.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;

namespace {

/// The largest grid x dimension CUDA accepts.
constexpr int64_t kMaxGridX = 2147483647;

/// The upper bound N of the kernel's grid-stride loop as a host value before
/// `launch`, or null when the kernel is not of that form.
Value hostTripCount(OpBuilder &b, gpu::LaunchFuncOp launch,
                    gpu::GPUFuncOp kernel) {
  if (kernel.getBody().empty())
    return {};
  scf::ForOp loop;
  for (Operation &op : kernel.getBody().front()) {
    if (auto f = dyn_cast<scf::ForOp>(op)) {
      if (loop)
        return {}; // more than one loop: not sparse-gpu-codegen's form
      loop = f;
    }
  }
  if (!loop || !loop.getUpperBound().getType().isIndex())
    return {};
  Value upper = loop.getUpperBound();
  if (auto arg = dyn_cast<BlockArgument>(upper)) {
    if (arg.getOwner() != &kernel.getBody().front())
      return {};
    return launch.getKernelOperand(arg.getArgNumber());
  }
  if (auto c = upper.getDefiningOp<arith::ConstantIndexOp>())
    return arith::ConstantIndexOp::create(b, launch.getLoc(), c.value());
  return {};
}

struct NvvmLaunchConfigPass
    : public mlir::sptune::impl::NvvmLaunchConfigBase<NvvmLaunchConfigPass> {
  using NvvmLaunchConfigBase::NvvmLaunchConfigBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (threads != -1 && (threads < 1 || threads > 1024)) {
      module.emitError("sptune-nvvm-launch-config: threads must be -1 (from "
                       "the schedules) or in [1, 1024], not ")
          << static_cast<int>(threads);
      return signalPassFailure();
    }
    if (blocks == 0 || blocks < -1 || blocks > kMaxGridX) {
      module.emitError("sptune-nvvm-launch-config: blocks must be -1 (cover "
                       "the outer loop) or in [1, 2^31 - 1], not ")
          << static_cast<int>(blocks);
      return signalPassFailure();
    }
    bool ok = true;
    module.walk([&](func::FuncOp func) {
      auto attr = dyn_cast_or_null<ScheduleAttr>(
          func->getAttr(SptuneDialect::kScheduleAttrName));
      int perBlock = threads;
      if (perBlock < 0 && attr &&
          attr.getSchedule().target == ::sptune::TargetKind::NVVM)
        perBlock = gpuKnobs(attr.getSchedule()).threads;
      func.walk([&](gpu::LaunchFuncOp launch) {
        int own = perBlock;
        if (auto n = launch->getAttrOfType<IntegerAttr>(kLaunchThreadsAttrName))
          own = threads < 0 ? static_cast<int>(n.getInt()) : perBlock;
        launch->removeAttr(kLaunchThreadsAttrName);
        ok &= succeeded(configure(launch, own));
      });
      // The schedule is consumed: the lowered module does not depend on
      // sptune.
      func->removeAttr(SptuneDialect::kScheduleAttrName);
    });
    module.walk([](gpu::GPUFuncOp kernel) {
      kernel->removeAttr(kOutlinedKernelAttrName);
    });
    if (!ok)
      signalPassFailure();
  }

  /// Sets block and grid sizes of `launch`; `perBlock` < 0 keeps the block
  /// size sparse-gpu-codegen chose.
  LogicalResult configure(gpu::LaunchFuncOp launch, int perBlock) {
    if (!launch.getGridSizeX().getType().isIndex())
      return launch.emitError("sptune-nvvm-launch-config: run before the "
                              "launch is lowered to LLVM");
    gpu::GPUFuncOp kernel = outlinedKernelOf(launch);
    if (!kernel)
      return success(); // the user's own GPU code: as written
    OpBuilder b(launch);
    Location loc = launch.getLoc();
    Value blockSize = launch.getBlockSizeX();
    if (perBlock > 0) {
      blockSize = arith::ConstantIndexOp::create(b, loc, perBlock);
      launch.getBlockSizeXMutable().assign(blockSize);
    }
    Value grid;
    if (blocks > 0) {
      grid = arith::ConstantIndexOp::create(b, loc, blocks);
    } else {
      Value n = hostTripCount(b, launch, kernel);
      if (!n) {
        launch.emitWarning("sptune-nvvm-launch-config: the kernel is not a "
                           "grid-stride loop over [0, N); keeping its grid");
        return success();
      }
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      Value max = arith::ConstantIndexOp::create(b, loc, kMaxGridX);
      Value cover = arith::CeilDivUIOp::create(b, loc, n, blockSize);
      grid = arith::MinUIOp::create(
          b, loc, arith::MaxUIOp::create(b, loc, cover, one), max);
    }
    launch.getGridSizeXMutable().assign(grid);
    return success();
  }
};
} // namespace
