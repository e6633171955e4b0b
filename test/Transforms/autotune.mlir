// sptune-autotune: the heuristic mode, a development-mode model trained in
// the test on measurements collected in the test, and the errors.
//
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=gen:block:rows=256,cols=256,nnz=2048,bs=4,seed=3 top-k=2" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=HEUR
// HEUR: remark: sptune-autotune (heuristic, {{[0-9]+}} candidates ranked in {{.*}} ms): chose cpu spmm, {{.*}}; ranking: #1 score {{.*}} #2 score
// HEUR: sptune.schedule = #sptune.schedule<cpu spmm,
//
// No matrix: the heuristic schedule, and a remark saying so. (A matrix
// named by a `sptune.matrix` argument attribute, and with both:
// test/Transforms/autotune-matrix-provenance.mlir.)
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune=mode=heuristic --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=NOMATRIX
// NOMATRIX-COUNT-2: remark: sptune-autotune: no matrix for this kernel (give matrix=... or a 'sptune.matrix' argument attribute); using the heuristic schedule
//
// Errors: a missing model file, a matrix of the wrong shape, a bad mode.
// RUN: not sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=development model=%t.missing.pt" 2>&1 | FileCheck %s --check-prefix=NOMODEL
// NOMODEL: error: sptune-autotune: cannot load the cost model: {{.*}}missing.pt
// RUN: not sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=gen:uniform:rows=100,cols=200,nnz=300" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: error: sptune-autotune: matrix 'gen:uniform:rows=100,cols=200,nnz=300' (the pass option matrix=) is 100x200 but the kernel's sparse operand is 256x256
// RUN: not sptune-opt %s --sptune-autotune=mode=oracle 2>&1 | FileCheck %s --check-prefix=MODE
// Size options have limits (found by the IR/option fuzzer: free=-1 and
// candidates=2^32-1 were accepted).
// RUN: not sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic free=-1" 2>&1 | FileCheck %s --check-prefix=FREE
// FREE: error: sptune-autotune: free must be in [1, 65536], got -1
// RUN: not sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic candidates=4294967295" 2>&1 | FileCheck %s --check-prefix=CAND
// CAND: error: sptune-autotune: candidates and top-k must be at most 100000, measure-top-k at most 64 (got candidates=4294967295, top-k=5, measure-top-k=0)
// MODE: for the --mode option: unknown value 'oracle' (expected release, development or heuristic)

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmm(%a: tensor<256x256xf32, #CSR>, %b: tensor<256x32xf32>, %c: tensor<256x32xf32>) -> tensor<256x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<256x256xf32, #CSR>, tensor<256x32xf32>) outs(%c : tensor<256x32xf32>) -> tensor<256x32xf32>
  return %0 : tensor<256x32xf32>
}

func.func @spmv(%a: tensor<?x?xf64, #CSR>, %x: tensor<?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
  %0 = linalg.matvec ins(%a, %x : tensor<?x?xf64, #CSR>, tensor<?xf64>) outs(%y : tensor<?xf64>) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}
