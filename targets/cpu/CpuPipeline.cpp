//===- CpuPipeline.cpp - The sptune-lower-cpu pipeline --------------------===//
//
// Upstream's sparsifier pipeline (mlir/lib/Dialect/SparseTensor/Pipelines),
// with the schedule's settings fed to sparsification and OpenMP conversion
// (with the schedule's threads, kind and chunk) inserted before the lowering
// to LLVM.
//
//===----------------------------------------------------------------------===//

#include "cpu/CpuPasses.h"
#include "sptune/Lowering/Passes.h"
#include "sptune/Target/Target.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/SparseTensor/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::sptune;

void mlir::sptune::buildCpuLoweringPipeline(OpPassManager &pm,
                                            const CpuLoweringOptions &opts) {
  // Sparse tensors are lowered in host code only.
  pm.addPass(createCheckSparseInHostCode());
  // The runtime checks a read file's shape with `assert` only.
  pm.addPass(createCheckSparseReads());
  pm.addNestedPass<func::FuncOp>(createLinalgGeneralizeNamedOpsPass());

  CpuSparsifyOptions sparsify;
  sparsify.parallelization = opts.parallelization;
  sparsify.vectorLength = opts.vectorLength;
  sparsify.simdIndex32 = opts.simdIndex32;
  sparsify.enableRuntimeLibrary = opts.enableRuntimeLibrary;
  sparsify.gustavsonSpgemm = opts.gustavsonSpgemm;
  sparsify.fuseSddmmSpmm = opts.fuseSddmmSpmm;
  sparsify.factoredMttkrp = opts.factoredMttkrp;
  sparsify.batchedRowsSpmm = opts.batchedRowsSpmm;
  sparsify.gustavsonOnePassBytes = opts.gustavsonOnePassBytes;
  sparsify.gustavsonAccumulator = opts.gustavsonAccumulator;
  sparsify.mttkrpForm = opts.mttkrpForm;
  sparsify.threads = opts.threads;
  sparsify.matrix = opts.matrix;
  sparsify.parallelizeUnscheduled = opts.parallelizeUnscheduled;
  pm.addPass(createCpuSparsify(sparsify));
  pm.addPass(createStorageSpecifierToLLVMPass());
  // CSE first: bufferizing a parallel layout change leaves a copy of each
  // panel onto an identical view of itself, which folds away once the two
  // views are one value.
  pm.addNestedPass<func::FuncOp>(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  // What the sparsifier leaves to LLVM but LLVM cannot do: the row of C that
  // SpMM accumulates into stays in registers, and multiply-adds fuse.
  pm.addNestedPass<func::FuncOp>(createCpuPromoteAccumulators());
  // SDDMM's dot products: the stored value multiplies each sum once, and
  // several entries' sums run interleaved (independent chains).
  pm.addNestedPass<func::FuncOp>(createCpuFactorReductions());
  CpuJamReductionsOptions jam;
  jam.factor = opts.reductionJam;
  pm.addNestedPass<func::FuncOp>(createCpuJamReductions(jam));
  pm.addNestedPass<func::FuncOp>(createCpuContractFma());
#if defined(__linux__)
  // The buffers a kernel allocates per call, on transparent huge pages.
  CpuHugePageBuffersOptions hugePages;
  hugePages.minBytes = opts.hugePageMinBytes;
  // 0 is off; a negative size reaches the pass, which refuses it.
  if (hugePages.minBytes != 0)
    pm.addPass(createCpuHugePageBuffers(hugePages));
#endif
  // omp = balanced: one block of rows per thread, cut by stored entries.
  CpuBalanceRowsOptions balance;
  balance.threads = opts.threads;
  pm.addPass(createCpuBalanceRows(balance));
  // reorder = rcm: the rows visited in the order sptune-cpu-sparsify
  // embedded.
  pm.addPass(createCpuVisitRowsInOrder());

  // scf.parallel (and the scf.forall of layout changes) -> omp.parallel +
  // omp.wsloop, then the schedule's knobs.
  pm.addPass(createForallToParallelLoopPass());
  pm.addPass(createConvertSCFToOpenMPPass());
  CpuOmpScheduleOptions omp;
  omp.threads = opts.threads;
  pm.addPass(createCpuOmpSchedule(omp));
  // Inlines the memref.alloca_scope that scf-to-openmp leaves, which would
  // otherwise hold several blocks after scf-to-cf.
  pm.addPass(createCanonicalizerPass());

  ConvertVectorToLLVMPassOptions vectorOpts;
  vectorOpts.reassociateFPReductions = true;
  pm.addPass(memref::createExpandReallocPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass());
  pm.addNestedPass<func::FuncOp>(memref::createExpandReallocPass());
  pm.addNestedPass<func::FuncOp>(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertVectorToLLVMPass(vectorOpts));
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addNestedPass<func::FuncOp>(createConvertComplexToStandardPass());
  pm.addNestedPass<func::FuncOp>(arith::createArithExpandOpsPass());
  pm.addNestedPass<func::FuncOp>(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass(vectorOpts));
  pm.addPass(createConvertComplexToLLVMPass());
  pm.addPass(createConvertVectorToLLVMPass(vectorOpts));
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::sptune::registerCpuTargetPasses() {
  registerSptuneCpuPasses();
  registerSptuneLoweringPasses();
  ::sptune::TargetRegistry::addLowering(
      ::sptune::TargetKind::CPU, [](OpPassManager &pm) {
        buildCpuLoweringPipeline(pm, CpuLoweringOptions());
      });
  PassPipelineRegistration<CpuLoweringOptions>(
      "sptune-lower-cpu",
      "Lower scheduled sparse kernels to LLVM with OpenMP: sparsify with the "
      "schedules' parallelization and vector length, convert parallel loops "
      "to OpenMP with their threads, schedule kind and chunk",
      buildCpuLoweringPipeline);
}
