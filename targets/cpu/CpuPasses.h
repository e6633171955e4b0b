//===- CpuPasses.h - Passes and pipeline of the CPU target ------*- C++ -*-===//

#ifndef SPTUNE_TARGETS_CPU_CPUPASSES_H
#define SPTUNE_TARGETS_CPU_CPUPASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace sptune {

#define GEN_PASS_DECL
#include "cpu/CpuPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "cpu/CpuPasses.h.inc"

/// Options of the `sptune-lower-cpu` pipeline. "auto"/-1 take the value from
/// the #sptune.schedule attributes.
struct CpuLoweringOptions : public PassPipelineOptions<CpuLoweringOptions> {
  PassOptions::Option<std::string> parallelization{
      *this, "parallelization",
      llvm::cl::desc("auto, none, dense-outer-loop, any-storage-outer-loop"),
      llvm::cl::init("auto")};
  PassOptions::Option<int> vectorLength{
      *this, "vl", llvm::cl::desc("Vector length (-1 = from the schedules)"),
      llvm::cl::init(-1)};
  PassOptions::Option<std::string> simdIndex32{
      *this, "simd32", llvm::cl::desc("auto, true or false"),
      llvm::cl::init("auto")};
  PassOptions::Option<int> threads{
      *this, "threads",
      llvm::cl::desc("OpenMP threads (-1 = from the schedules, 0 = default)"),
      llvm::cl::init(-1)};
  PassOptions::Option<bool> enableRuntimeLibrary{
      *this, "enable-runtime-library",
      llvm::cl::desc("Use the sparse runtime library instead of codegen"),
      llvm::cl::init(false)};
};

/// Adds the CPU lowering (scheduled sparse kernels to the LLVM dialect with
/// OpenMP) to `pm`, which must run on builtin.module.
void buildCpuLoweringPipeline(OpPassManager &pm,
                              const CpuLoweringOptions &options);

/// Registers the CPU target's passes and the `sptune-lower-cpu` pipeline.
void registerCpuTargetPasses();

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_CPUPASSES_H
