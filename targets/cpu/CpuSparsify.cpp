//===- CpuSparsify.cpp - sptune-cpu-sparsify ------------------------------===//
//
// Upstream's sparsifier takes its parallelization strategy and vector length
// as module-wide options; this pass reads them off the schedules and runs the
// upstream sparsification-and-bufferization mini-pipeline with them.
//
//===----------------------------------------------------------------------===//

#include "cpu/CpuPasses.h"

#include "sptune/Analysis/ScheduleMapping.h"
#include "sptune/IR/SptuneDialect.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SparseTensor/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_CPUSPARSIFY
#include "cpu/CpuPasses.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;

namespace {
/// The module-wide sparsifier settings a schedule asks for.
struct SparsifierSettings {
  SparseParallelizationStrategy parallelization =
      SparseParallelizationStrategy::kNone;
  unsigned vectorLength = 0;
  bool simdIndex32 = false;
  bool operator!=(const SparsifierSettings &o) const {
    return parallelization != o.parallelization ||
           vectorLength != o.vectorLength || simdIndex32 != o.simdIndex32;
  }
};

SparsifierSettings settingsFor(const ::sptune::Schedule &s) {
  SparsifierSettings out;
  out.parallelization = parallelizationStrategy(s);
  if (s.target == ::sptune::TargetKind::CPU) {
    out.vectorLength = s.cpu.vectorLength;
    out.simdIndex32 = s.cpu.simdIndex32;
  }
  return out;
}

SparseParallelizationStrategy toStrategy(ParallelizationChoice c) {
  switch (c) {
  case ParallelizationChoice::DenseOuterLoop:
    return SparseParallelizationStrategy::kDenseOuterLoop;
  case ParallelizationChoice::AnyStorageOuterLoop:
    return SparseParallelizationStrategy::kAnyStorageOuterLoop;
  case ParallelizationChoice::Auto:
  case ParallelizationChoice::None:
    break;
  }
  return SparseParallelizationStrategy::kNone;
}

struct CpuSparsifyPass
    : public mlir::sptune::impl::CpuSparsifyBase<CpuSparsifyPass> {
  using CpuSparsifyBase::CpuSparsifyBase;

  /// The nested pipeline runs dynamically: its dialects must be loaded
  /// before this pass starts.
  void getDependentDialects(DialectRegistry &registry) const override {
    CpuSparsifyBase::getDependentDialects(registry);
    createSparsificationAndBufferizationPass()->getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The vector lengths the schedules may ask for (whyIllegal), or -1.
    if (vectorLength != -1 && vectorLength != 0 && vectorLength != 4 &&
        vectorLength != 8 && vectorLength != 16) {
      module.emitError("sptune-cpu-sparsify: vl must be -1 (from the "
                       "schedules), 0, 4, 8 or 16, got ")
          << vectorLength;
      return signalPassFailure();
    }
    // Settings from the first scheduled kernel; warn about disagreements.
    std::optional<SparsifierSettings> settings;
    Operation *first = nullptr;
    module->walk([&](linalg::GenericOp op) {
      auto attr = dyn_cast_or_null<ScheduleAttr>(
          op->getAttr(SptuneDialect::kScheduleAttrName));
      if (!attr)
        return;
      SparsifierSettings s = settingsFor(attr.getSchedule());
      if (!settings) {
        settings = s;
        first = op;
      } else if (*settings != s) {
        op->emitWarning("sptune: this kernel's schedule asks for other "
                        "sparsifier settings than the kernel at ")
            << first->getLoc()
            << "; the sparsifier takes one setting per module, that "
               "kernel's is used";
      }
    });
    SparsifierSettings use = settings.value_or(SparsifierSettings());
    if (parallelization != ParallelizationChoice::Auto)
      use.parallelization = toStrategy(parallelization);
    if (vectorLength >= 0)
      use.vectorLength = vectorLength;
    if (simdIndex32 != Simd32Choice::Auto)
      use.simdIndex32 = simdIndex32 == Simd32Choice::On;

    OpPassManager pm(ModuleOp::getOperationName());
    SparsificationOptions sparsification(use.parallelization,
                                         SparseEmitStrategy::kFunctional,
                                         enableRuntimeLibrary);
    pm.addPass(createSparsificationAndBufferizationPass(
        getBufferizationOptionsForSparsification(/*analysisOnly=*/false),
        sparsification, /*createSparseDeallocs=*/true, enableRuntimeLibrary,
        /*enableBufferInitialization=*/false, use.vectorLength,
        /*enableVLAVectorization=*/false, use.simdIndex32,
        /*enableGPULibgen=*/false, SparseEmitStrategy::kFunctional,
        use.parallelization));
    if (failed(runPipeline(pm, module)))
      return signalPassFailure();
  }
};
} // namespace
