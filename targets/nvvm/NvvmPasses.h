//===- NvvmPasses.h - Passes and pipeline of the NVVM target ----*- C++ -*-===//

#ifndef SPTUNE_TARGETS_NVVM_NVVMPASSES_H
#define SPTUNE_TARGETS_NVVM_NVVMPASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace sptune {

#define GEN_PASS_DECL
#include "nvvm/NvvmPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "nvvm/NvvmPasses.h.inc"

/// The unit attribute sptune-nvvm-sparsify puts on the `gpu.func` kernels it
/// outlined. sptune-nvvm-copy-back and sptune-nvvm-launch-config act on the
/// launches of those kernels only: a user's own GPU code in the same module
/// passes through as written. sptune-nvvm-launch-config, the last of them,
/// removes it.
inline constexpr llvm::StringLiteral kOutlinedKernelAttrName =
    "sptune.outlined";

/// The block size (an i32 attribute) sptune-nvvm-sparsify puts on the launch
/// of each generated kernel when it can tell which scheduled kernel the
/// launch comes from, so that kernels sharing a function keep their own
/// `threads`; sptune-nvvm-launch-config applies and removes it.
inline constexpr llvm::StringLiteral kLaunchThreadsAttrName = "sptune.threads";

/// The `gpu.func` kernel `launch` calls if sptune-nvvm-sparsify outlined it,
/// else null (a user's kernel, or one already lowered to `llvm.func`).
gpu::GPUFuncOp outlinedKernelOf(gpu::LaunchFuncOp launch);

/// Options of the `sptune-lower-nvvm` pipeline.
struct NvvmLoweringOptions : public PassPipelineOptions<NvvmLoweringOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("GPU architecture (sm_XX)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("PTX features (+ptxXY)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("isa (PTX, no CUDA needed), bin (cubin) or fatbin; bin "
                     "and fatbin need ptxas"),
      llvm::cl::init("isa")};
  PassOptions::Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit root for ptxas (default: search)"),
      llvm::cl::init("")};
  PassOptions::Option<int> threads{
      *this, "threads",
      llvm::cl::desc("Threads per block (-1 = from the schedules)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int> blocks{
      *this, "blocks",
      llvm::cl::desc("Blocks per launch (-1 = cover the outer loop)"),
      llvm::cl::init(-1)};
  PassOptions::Option<bool> enableRuntimeLibrary{
      *this, "enable-runtime-library",
      llvm::cl::desc("Use MLIR's sparse runtime library for sparse tensors"),
      llvm::cl::init(false)};
};

/// Adds the NVVM lowering (scheduled sparse kernels to GPU kernels or
/// cuSPARSE calls, host code in the LLVM dialect, device code serialized in a
/// gpu.binary) to `pm`, which must run on builtin.module.
void buildNvvmLoweringPipeline(OpPassManager &pm,
                               const NvvmLoweringOptions &options);

/// Registers the NVVM target's passes and the `sptune-lower-nvvm` pipeline.
void registerNvvmTargetPasses();

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_NVVM_NVVMPASSES_H
