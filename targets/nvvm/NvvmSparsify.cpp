//===- NvvmSparsify.cpp - sptune-nvvm-sparsify ----------------------------===//
//
// Upstream's sparsifier takes cuSPARSE calls, GPU code generation and the
// GPU thread count as module-wide options, and falls back to the host
// silently when it cannot offload a kernel. This pass checks the schedules
// with the GPU rules, derives those options from them (both paths on when
// the module's kernels ask for both), runs upstream's
// sparsification-and-bufferization and sparse-gpu-codegen, and then checks
// that every scheduled kernel was offloaded the way its schedule asks.
//
//===----------------------------------------------------------------------===//

#include "nvvm/NvvmKnobs.h"
#include "nvvm/NvvmLegality.h"
#include "nvvm/NvvmPasses.h"

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Support/UpstreamCrash.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/SparseTensor/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
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

/// How many cuSPARSE products `func` computes through the gpu dialect.
unsigned libraryCalls(func::FuncOp func) {
  unsigned calls = 0;
  func.walk([&](Operation *op) {
    if (isa<gpu::SpMVOp, gpu::SpMMOp, gpu::SDDMMOp>(op))
      ++calls;
  });
  return calls;
}

/// The scheduled kernels of one function, by path.
struct ScheduledKernels {
  unsigned library = 0;
  unsigned generated = 0;
  /// The block size of each generated kernel, in program order.
  llvm::SmallVector<int> threads;
};

/// Once cuSPARSE calls are on, upstream's rewrite takes every op of its
/// shapes (y = A x, C = A B, the in-place SDDMM: each with exactly three
/// operands), whatever its schedule says. A kernel scheduled for code
/// generation in such a module gets a fourth operand, a scalar its body
/// never reads: the matcher no longer takes it, and the sparsifier, which
/// only looks at what the body computes, generates the same loops.
void shieldFromLibraryRewrite(linalg::GenericOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  unsigned numInputs = op.getNumDpsInputs();
  // The output's element type where it has a zero (the value is never
  // read), else an index.
  Type elementType = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  TypedAttr zero = b.getZeroAttr(elementType);
  if (!zero) {
    elementType = b.getIndexType();
    zero = b.getIndexAttr(0);
  }
  Value unused = arith::ConstantOp::create(b, loc, zero);
  SmallVector<Value> inputs(op.getDpsInputs());
  inputs.push_back(unused);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps.insert(maps.begin() + numInputs,
              AffineMap::get(op.getNumLoops(), 0, b.getContext()));
  auto shielded = linalg::GenericOp::create(b, loc, op->getResultTypes(),
                                            inputs, op.getDpsInits(), maps,
                                            op.getIteratorTypesArray());
  shielded.getRegion().takeBody(op.getRegion());
  shielded.getBody()->insertArgument(numInputs, elementType, loc);
  shielded->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  op->replaceAllUsesWith(shielded->getResults());
  op->erase();
}

/// The launches in `func` of kernels sptune-nvvm-sparsify outlined, in
/// program order.
llvm::SmallVector<gpu::LaunchFuncOp> outlinedLaunchesOf(func::FuncOp func) {
  llvm::SmallVector<gpu::LaunchFuncOp> launches;
  func.walk([&](gpu::LaunchFuncOp launch) {
    if (outlinedKernelOf(launch))
      launches.push_back(launch);
  });
  return launches;
}

/// Gives each launch of a generated kernel in `func` the block size of the
/// scheduled kernel it comes from. Sparsification replaces each kernel in
/// place by its loops and sparse-gpu-codegen outlines each outer loop into
/// one launch, so the launches follow the kernels' program order; when their
/// number differs from the scheduled kernels' (an unscheduled kernel in the
/// same function was offloaded too), the first generated kernel's block
/// size applies to all of them.
void tagLaunchThreads(func::FuncOp func, llvm::ArrayRef<int> threads) {
  if (threads.empty())
    return;
  llvm::SmallVector<gpu::LaunchFuncOp> launches = outlinedLaunchesOf(func);
  auto tag = [&](gpu::LaunchFuncOp launch, int n) {
    launch->setAttr(
        kLaunchThreadsAttrName,
        IntegerAttr::get(IntegerType::get(func.getContext(), 32), n));
  };
  if (launches.size() == threads.size()) {
    for (auto [launch, n] : llvm::zip(launches, threads))
      tag(launch, n);
    return;
  }
  // Not one launch per scheduled kernel: the first generated kernel's block
  // size for all (the function's schedule may be a cuSPARSE kernel's).
  for (gpu::LaunchFuncOp launch : launches)
    tag(launch, threads.front());
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

    // Check the schedules and derive the module-wide settings. Kernels on
    // the cuSPARSE path and generated kernels may share a module: upstream's
    // cuSPARSE rewrite runs first, inside sparsification-and-bufferization,
    // and replaces only the ops it matches; what is left is sparsified with
    // a parallel outer loop and outlined by sparse-gpu-codegen.
    bool anyLibgen = false, anyCodegen = false;
    int scheduleThreads = 1024;
    llvm::DenseMap<Operation *, ScheduledKernels> expected;
    llvm::SmallVector<linalg::GenericOp> generated;
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
      Operation *func = op->getParentOfType<func::FuncOp>();
      if (!func) {
        op->emitError("sptune: a scheduled kernel must be inside a func.func "
                      "to be lowered for the GPU");
        ok = false;
        return;
      }
      if (gpuKnobs(*s).libgen) {
        anyLibgen = true;
        ++expected[func].library;
        return;
      }
      if (hasSeparateSparseOutput(op)) {
        op->emitError("sptune: GPU code generation offloads an SDDMM only in "
                      "the in-place (spy) form, S = S + spy(S) * (A B); a "
                      "separate sparse output is assembled by sequential "
                      "insertions on the host");
        ok = false;
        return;
      }
      if (!anyCodegen)
        scheduleThreads = gpuKnobs(*s).threads;
      anyCodegen = true;
      ++expected[func].generated;
      expected[func].threads.push_back(gpuKnobs(*s).threads);
      generated.push_back(op);
    });
    if (!ok)
      return signalPassFailure();
    // A module whose scheduled kernels all take the cuSPARSE path keeps
    // upstream's libgen setting (no parallel loops, no outlining) for its
    // unscheduled kernels too; any generated kernel turns code generation on.
    bool codegen = anyCodegen || !anyLibgen;
    if (anyLibgen)
      for (linalg::GenericOp op : generated)
        shieldFromLibraryRewrite(op);

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
        codegen ? SparseParallelizationStrategy::kDenseOuterLoop
                : SparseParallelizationStrategy::kNone;
    OpPassManager pm(ModuleOp::getOperationName());
    SparsificationOptions sparsification(parallel,
                                         SparseEmitStrategy::kFunctional,
                                         enableRuntimeLibrary);
    pm.addPass(createSparsificationAndBufferizationPass(
        getBufferizationOptionsForSparsification(/*analysisOnly=*/false),
        sparsification, /*createSparseDeallocs=*/true, enableRuntimeLibrary,
        /*enableBufferInitialization=*/false, /*vectorLength=*/0,
        /*enableVLAVectorization=*/false, /*enableSIMDIndex32=*/false,
        /*enableGPULibgen=*/anyLibgen, SparseEmitStrategy::kFunctional,
        parallel));
    pm.addPass(createStorageSpecifierToLLVMPass());
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
    if (codegen)
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
    if (threads < 0)
      for (auto &[func, want] : expected)
        tagLaunchThreads(cast<func::FuncOp>(func), want.threads);

    // Every scheduled kernel must have been offloaded the way its schedule
    // asks: as many cuSPARSE calls as kernels on that path, and the
    // generated ones launched.
    module.walk([&](func::FuncOp func) {
      scf::ParallelOp leftover;
      func.walk([&](scf::ParallelOp p) {
        if (!leftover)
          leftover = p;
      });
      bool launched = false;
      func.walk([&](gpu::LaunchFuncOp) { launched = true; });
      unsigned calls = libraryCalls(func);
      auto it = expected.find(func);
      if (it == expected.end()) {
        if (leftover)
          leftover->emitWarning("sptune: this parallel loop was not "
                                "offloaded to the GPU; it runs sequentially "
                                "on the host");
        else if (sparseFuncs.contains(func) && !launched && calls == 0)
          func.emitWarning("sptune: @")
              << func.getSymName()
              << " has sparse kernels that were not offloaded to the GPU "
                 "(no parallel outer loop); they run sequentially on the "
                 "host";
        return;
      }
      const ScheduledKernels &want = it->second;
      if (calls < want.library) {
        func.emitError("sptune: the cuSPARSE path did not match ")
            << (want.library - calls) << " of the " << want.library
            << " kernel(s) of @" << func.getSymName()
            << " scheduled for it; upstream's matcher takes C = A * B, "
               "y = A * x and the in-place S = S + spy(S) * (A B), with the "
               "sparse operand first, dense other operands, and CSR/CSC/COO "
               "(SpMM, SpMV) or CSR/BSR (SDDMM) storage";
        ok = false;
      }
      if (want.generated == 0)
        return;
      if (leftover) {
        leftover->emitError("sptune: this parallel loop of @")
            << func.getSymName()
            << " was not outlined to the GPU (sparse-gpu-codegen outlines "
               "loops from 0 to N without reductions whose outside values "
               "are scalars or buffers)";
        ok = false;
      } else if (size_t n = outlinedLaunchesOf(func).size();
                 n < want.generated) {
        func.emitError("sptune: @")
            << func.getSymName() << " launches " << n
            << " generated kernel(s) for " << want.generated
            << " scheduled for GPU code generation: the sparsifier produced "
               "no parallel outer loop for a kernel";
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
