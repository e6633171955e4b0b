// The heuristic runs a kernel in one thread when it does too little work to
// share (docs/targets.md: stored entries times N below 65,536 for SpMM,
// stored entries below 6,144 for SpMV), and in parallel above.
//
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=gen:uniform:rows=64,nnz=300,seed=1" --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=TINY
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=gen:uniform:rows=4096,nnz=20000,seed=1" --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=LARGE
//
// TINY-LABEL: func.func @spmm(
// TINY: sptune.schedule = #sptune.schedule<cpu spmm, {{.*}}parallel = none, threads = 0, omp = static, chunk = 0, vl = 16
// TINY-LABEL: func.func @spmv(
// TINY: sptune.schedule = #sptune.schedule<cpu spmv, {{.*}}parallel = none
// LARGE-LABEL: func.func @spmm(
// LARGE: sptune.schedule = #sptune.schedule<cpu spmm, {{.*}}parallel = outer
// LARGE-LABEL: func.func @spmv(
// LARGE: sptune.schedule = #sptune.schedule<cpu spmv, {{.*}}parallel = outer

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmm(%a: tensor<?x?xf32, #CSR>, %b: tensor<?x64xf32>, %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?x64xf32>) outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

func.func @spmv(%a: tensor<?x?xf32, #CSR>, %x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = linalg.matvec ins(%a, %x : tensor<?x?xf32, #CSR>, tensor<?xf32>) outs(%y : tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
