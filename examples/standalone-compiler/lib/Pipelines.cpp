//===- Pipelines.cpp - standalone-tune-cpu --------------------------------===//
//
// sptune's passes composed from C++: extract the kernels, autotune them for
// the CPU target, count them (this project's pass), apply the schedules and
// lower to the LLVM dialect with sptune's CPU pipeline.
//
//===----------------------------------------------------------------------===//

#include "standalone/Passes.h"

#include "sptune/Transforms/Passes.h"

#include "cpu/CpuPasses.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {
struct TuneCpuOptions : public PassPipelineOptions<TuneCpuOptions> {
  Option<std::string> matrix{
      *this, "matrix",
      llvm::cl::desc("The matrix of every kernel: .mtx path or gen: spec")};
  Option<::sptune::CostModelMode> mode{
      *this, "mode", llvm::cl::desc("sptune-autotune's cost model mode"),
      llvm::cl::init(::sptune::CostModelMode::Heuristic),
      llvm::cl::values(
          clEnumValN(::sptune::CostModelMode::Release, "release",
                     "the model shipped with sptune (or `model`)"),
          clEnumValN(::sptune::CostModelMode::Development, "development",
                     "the `model` file"),
          clEnumValN(::sptune::CostModelMode::Heuristic, "heuristic",
                     "no model"))};
  Option<std::string> model{*this, "model",
                            llvm::cl::desc("Cost model file (optional)")};
};

void buildTuneCpuPipeline(OpPassManager &pm, const TuneCpuOptions &options) {
  pm.addPass(mlir::sptune::createExtractKernels());
  mlir::sptune::AutotuneOptions autotune;
  autotune.target = "cpu";
  autotune.mode = options.mode;
  autotune.modelPath = options.model;
  autotune.matrix = options.matrix;
  pm.addPass(mlir::sptune::createAutotune(autotune));
  pm.addPass(standalone::createCountSparseKernels());
  pm.addPass(mlir::sptune::createApplySchedule());
  mlir::sptune::buildCpuLoweringPipeline(pm, mlir::sptune::CpuLoweringOptions());
}
} // namespace

void standalone::registerStandalonePipelines() {
  PassPipelineRegistration<TuneCpuOptions>(
      "standalone-tune-cpu",
      "Autotune the sparse kernels for the CPU with sptune, count them, and "
      "lower to the LLVM dialect",
      buildTuneCpuPipeline);
}
