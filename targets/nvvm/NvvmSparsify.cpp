//===- NvvmSparsify.cpp - sptune-nvvm-sparsify ----------------------------===//
//
// Upstream's sparsifier takes GPU code generation versus cuSPARSE calls and
// the GPU thread count as module-wide options, and falls back to the host
// silently when it cannot offload a kernel. This pass checks the schedules
// with the GPU rules, derives those options from them, runs upstream's
// sparsification-and-bufferization and sparse-gpu-codegen, and then checks
// that every scheduled kernel was offloaded.
//
//===----------------------------------------------------------------------===//

#include "nvvm/NvvmKnobs.h"
#include "nvvm/NvvmLegality.h"
#include "nvvm/NvvmPasses.h"

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Support/UpstreamCrash.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/SparseTensor/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_NVVMSPARSIFY
#include "nvvm/NvvmPasses.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;

namespace {

/// The schedule an op or function carries, if any.
std::optional<::sptune::Schedule> scheduleOf(Operation *op) {
  auto attr = dyn_cast_or_null<ScheduleAttr>(
      op->getAttr(SptuneDialect::kScheduleAttrName));
  if (!attr)
    return std::nullopt;
  return attr.getSchedule();
}

/// Whether `op` writes a sparse output while also reading a sparse input:
/// an SDDMM with a separate sparse result, which the sparsifier assembles
/// with sequential insertions (never a parallel loop).
bool hasSeparateSparseOutput(linalg::GenericOp op) {
  auto sparse = [](Value v) {
    return static_cast<bool>(sparse_tensor::getSparseTensorEncoding(v.getType()));
  };
  bool sparseOut = llvm::any_of(op.getDpsInits(), sparse);
  bool sparseIn = llvm::any_of(op.getDpsInputs(), sparse);
  return sparseOut && sparseIn;
}

/// `@module::@kernel` of a `gpu.func` in a `gpu.module`.
std::string qualifiedName(gpu::GPUFuncOp kernel) {
  auto parent = kernel->getParentOfType<gpu::GPUModuleOp>();
  return ((parent ? parent.getName() : StringRef()) + "::" + kernel.getName())
      .str();
}

/// The qualified names of the `gpu.func` kernels in `module`.
llvm::StringSet<> kernelNames(ModuleOp module) {
  llvm::StringSet<> names;
  module.walk([&](gpu::GPUFuncOp kernel) {
    if (kernel.isKernel())
      names.insert(qualifiedName(kernel));
  });
  return names;
}

/// Whether `func` calls cuSPARSE through the gpu dialect.
bool hasLibraryCall(func::FuncOp func) {
  bool found = false;
  func.walk([&](Operation *op) {
    if (isa<gpu::SpMVOp, gpu::SpMMOp, gpu::SDDMMOp>(op))
      found = true;
  });
  return found;
}

struct NvvmSparsifyPass
    : public mlir::sptune::impl::NvvmSparsifyBase<NvvmSparsifyPass> {
  using NvvmSparsifyBase::NvvmSparsifyBase;

  /// The nested pipeline runs dynamically: its dialects must be loaded
  /// before this pass starts.
  void getDependentDialects(DialectRegistry &registry) const override {
    NvvmSparsifyBase::getDependentDialects(registry);
    createSparsificationAndBufferizationPass()->getDependentDialects(registry);
    createSparseGPUCodegenPass()->getDependentDialects(registry);
    createStorageSpecifierToLLVMPass()->getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (threads != -1 && (threads < 1 || threads > 1024)) {
      module.emitError("sptune-nvvm-sparsify: threads must be -1 (from the "
                       "schedules) or in [1, 1024], not ")
          << static_cast<int>(threads);
      return signalPassFailure();
    }

    // A schedule sptune-apply-schedule has not applied (the op still
    // carries its #sptune.kernel) would be silently ignored (issue 13 probe).
    bool ok = true;
    module.walk([&](linalg::LinalgOp op) {
      if (scheduleOf(op) && op->hasAttr(SptuneDialect::kKernelAttrName)) {
        op->emitError("sptune: this kernel's schedule was not applied; run "
                      "sptune-apply-schedule before lowering");
        ok = false;
      }
    });
    if (!ok)
      return signalPassFailure();

    // Check the schedules and derive the module-wide settings.
    Operation *firstLibgen = nullptr, *firstCodegen = nullptr;
    int scheduleThreads = 1024;
    module.walk([&](linalg::GenericOp op) {
      std::optional<::sptune::Schedule> s = scheduleOf(op);
      if (!s)
        return;
      std::string why = ::sptune::whyIllegalForNvvm(*s, enableRuntimeLibrary);
      if (!why.empty()) {
        op->emitError("sptune: the nvvm target cannot run this schedule: ")
            << why;
        ok = false;
        return;
      }
      if (!gpuKnobs(*s).libgen && hasSeparateSparseOutput(op)) {
        op->emitError("sptune: GPU code generation offloads an SDDMM only in "
                      "the in-place (spy) form, S = S + spy(S) * (A B); a "
                      "separate sparse output is assembled by sequential "
                      "insertions on the host");
        ok = false;
        return;
      }
      Operation *&first = gpuKnobs(*s).libgen ? firstLibgen : firstCodegen;
      Operation *other = gpuKnobs(*s).libgen ? firstCodegen : firstLibgen;
      if (other) {
        op->emitError("sptune: this kernel asks for ")
            << (gpuKnobs(*s).libgen ? "the cuSPARSE path" : "GPU code generation")
            << " and the kernel at " << other->getLoc() << " for "
            << (gpuKnobs(*s).libgen ? "GPU code generation" : "the cuSPARSE path")
            << "; the sparsifier takes one mode per module";
        ok = false;
        return;
      }
      if (!first) {
        first = op;
        if (!gpuKnobs(*s).libgen)
          scheduleThreads = gpuKnobs(*s).threads;
      }
    });
    if (!ok)
      return signalPassFailure();
    bool libgen = firstLibgen != nullptr;

    // Functions holding sparse kernels, to check afterwards.
    llvm::SmallPtrSet<Operation *, 8> sparseFuncs;
    module.walk([&](linalg::LinalgOp op) {
      if (llvm::any_of(op->getOperandTypes(), [](Type t) {
            return static_cast<bool>(sparse_tensor::getSparseTensorEncoding(t));
          }))
        if (auto func = op->getParentOfType<func::FuncOp>())
          sparseFuncs.insert(func);
    });

    // Upstream's sparsifier with GPU settings (SparseTensorPipelines.cpp).
    SparseParallelizationStrategy parallel =
        libgen ? SparseParallelizationStrategy::kNone
               : SparseParallelizationStrategy::kDenseOuterLoop;
    OpPassManager pm(ModuleOp::getOperationName());
    SparsificationOptions sparsification(parallel,
                                         SparseEmitStrategy::kFunctional,
                                         enableRuntimeLibrary);
    pm.addPass(createSparsificationAndBufferizationPass(
        getBufferizationOptionsForSparsification(/*analysisOnly=*/false),
        sparsification, /*createSparseDeallocs=*/true, enableRuntimeLibrary,
        /*enableBufferInitialization=*/false, /*vectorLength=*/0,
        /*enableVLAVectorization=*/false, /*enableSIMDIndex32=*/false,
        /*enableGPULibgen=*/libgen, SparseEmitStrategy::kFunctional,
        parallel));
    pm.addPass(createStorageSpecifierToLLVMPass());
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
    if (!libgen)
      pm.addPass(createSparseGPUCodegenPass(
          threads > 0 ? threads : scheduleThreads, enableRuntimeLibrary));
    // The kernels already there are the user's: only those outlined here
    // get the marker the later passes act on.
    llvm::StringSet<> existing = kernelNames(module);
    if (failed(::sptune::runContainingCrashes(
            module, "sptune-lower-nvvm: sparsification",
            [&] { return runPipeline(pm, module); })))
      return signalPassFailure();
    module.walk([&](gpu::GPUFuncOp kernel) {
      if (kernel.isKernel() && !existing.contains(qualifiedName(kernel)))
        kernel->setAttr(kOutlinedKernelAttrName, UnitAttr::get(&getContext()));
    });

    // Every scheduled function must have been offloaded.
    module.walk([&](func::FuncOp func) {
      std::optional<::sptune::Schedule> s = scheduleOf(func);
      scf::ParallelOp leftover;
      func.walk([&](scf::ParallelOp p) {
        if (!leftover)
          leftover = p;
      });
      bool launched = false;
      func.walk([&](gpu::LaunchFuncOp) { launched = true; });
      if (!s || s->target != ::sptune::TargetKind::NVVM) {
        if (leftover)
          leftover->emitWarning("sptune: this parallel loop was not "
                                "offloaded to the GPU; it runs sequentially "
                                "on the host");
        else if (sparseFuncs.contains(func) && !launched &&
                 !hasLibraryCall(func))
          func.emitWarning("sptune: @")
              << func.getSymName()
              << " has sparse kernels that were not offloaded to the GPU "
                 "(no parallel outer loop); they run sequentially on the "
                 "host";
        return;
      }
      if (gpuKnobs(*s).libgen) {
        if (!hasLibraryCall(func)) {
          func.emitError("sptune: the cuSPARSE path did not match the kernel "
                         "of @")
              << func.getSymName()
              << "; upstream's matcher takes C = A * B, y = A * x and the "
                 "in-place S = S + spy(S) * (A B), with the sparse operand "
                 "first, dense other operands, and CSR/CSC/COO (SpMM, SpMV) "
                 "or CSR/BSR (SDDMM) storage";
          ok = false;
        }
        return;
      }
      if (leftover) {
        leftover->emitError("sptune: this parallel loop of @")
            << func.getSymName()
            << " was not outlined to the GPU (sparse-gpu-codegen outlines "
               "loops from 0 to N without reductions whose outside values "
               "are scalars or buffers)";
        ok = false;
      } else if (!launched) {
        func.emitError("sptune: @")
            << func.getSymName()
            << " was not offloaded to the GPU: the sparsifier produced no "
               "parallel outer loop for its kernel";
        ok = false;
      }
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace

gpu::GPUFuncOp mlir::sptune::outlinedKernelOf(gpu::LaunchFuncOp launch) {
  auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      launch, launch.getKernel());
  if (!kernel || !kernel->hasAttr(kOutlinedKernelAttrName))
    return {};
  return kernel;
}
