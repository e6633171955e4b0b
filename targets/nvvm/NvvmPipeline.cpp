//===- NvvmPipeline.cpp - The sptune-lower-nvvm pipeline ------------------===//
//
// The GPU half of upstream's sparsifier pipeline (SparseTensorPipelines.cpp
// with gpu-triple set), with sptune's passes where upstream is module-wide,
// silent or wrong: schedule-driven sparsification with offload checks, the
// canonical form for the cuSPARSE matcher, the copy-back of kernel outputs,
// launch sizes from the schedules, and a checked serialization.
//
//===----------------------------------------------------------------------===//

#include "nvvm/NvvmPasses.h"
#include "sptune/Lowering/Passes.h"
#include "sptune/Target/Target.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/Regex.h"

using namespace mlir;
using namespace mlir::sptune;

void mlir::sptune::buildNvvmLoweringPipeline(OpPassManager &pm,
                                             const NvvmLoweringOptions &opts) {
  // Sparse tensors are lowered in host code only.
  pm.addPass(createCheckSparseInHostCode());
  // The host code's sparse_tensor.new reads through the same runtime as the
  // CPU's, which checks a file's shape with `assert` only.
  pm.addPass(createCheckSparseReads());
  pm.addNestedPass<func::FuncOp>(createLinalgGeneralizeNamedOpsPass());
  pm.addPass(createNvvmLibgenForm());

  NvvmSparsifyOptions sparsify;
  sparsify.threads = opts.threads;
  sparsify.enableRuntimeLibrary = opts.enableRuntimeLibrary;
  pm.addPass(createNvvmSparsify(sparsify));
  pm.addPass(createNvvmCopyBack());
  NvvmLaunchConfigOptions launch;
  launch.threads = opts.threads;
  launch.blocks = opts.blocks;
  pm.addPass(createNvvmLaunchConfig(launch));

  // Device code: the outlined kernels to NVVM.
  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createSCFToControlFlowPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());

  // Host code, as upstream (convert-vector-to-llvm repeated on purpose).
  ConvertVectorToLLVMPassOptions vectorOpts;
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass());
  pm.addNestedPass<func::FuncOp>(memref::createExpandReallocPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addNestedPass<func::FuncOp>(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass(vectorOpts));
  pm.addNestedPass<func::FuncOp>(createConvertComplexToStandardPass());
  pm.addNestedPass<func::FuncOp>(arith::createArithExpandOpsPass());
  pm.addNestedPass<func::FuncOp>(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertComplexToLibm());
  pm.addPass(createConvertVectorToLLVMPass(vectorOpts));

  // The GPU target, the launches and memory ops to mgpu* calls, and the
  // device code to PTX (or cubin/fatbin).
  GpuNVVMAttachTargetOptions target;
  target.triple = "nvptx64-nvidia-cuda";
  target.chip = opts.chip;
  target.features = opts.features;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createGpuToLLVMConversionPass());
  NvvmToBinaryOptions binary;
  binary.format = opts.format;
  binary.cudaPath = opts.cudaPath;
  pm.addPass(createNvvmToBinary(binary));

  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::sptune::registerNvvmTargetPasses() {
  registerSptuneNvvmPasses();
  registerSptuneLoweringPasses();
  ::sptune::TargetRegistry::addLowering(
      ::sptune::TargetKind::NVVM, [](OpPassManager &pm) {
        buildNvvmLoweringPipeline(pm, NvvmLoweringOptions());
      });
  // As PassPipelineRegistration<NvvmLoweringOptions>, with the chip checked
  // when the pipeline is built: upstream's NVVM target attribute segfaults
  // on an empty chip before sptune-nvvm-to-binary could check it (issue 13
  // probe: --sptune-lower-nvvm=chip=).
  registerPassPipeline(
      "sptune-lower-nvvm",
      "Lower scheduled sparse kernels to the GPU: sparse GPU code generation "
      "with the schedules' thread counts, or cuSPARSE calls (libgen), host "
      "code in the LLVM dialect calling the mgpu* runtime, device code in a "
      "gpu.binary (PTX by default; cubin/fatbin with ptxas)",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        NvvmLoweringOptions options;
        if (failed(options.parseFromString(optionsText)))
          return failure();
        if (!llvm::Regex("^sm_[0-9]{2,3}[af]?$").match(options.chip))
          return errorHandler("sptune-lower-nvvm: unknown chip '" +
                              options.chip +
                              "' (expected sm_XY, e.g. sm_80, sm_90a)");
        buildNvvmLoweringPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optionsHandler) {
        optionsHandler(NvvmLoweringOptions());
      });
}
