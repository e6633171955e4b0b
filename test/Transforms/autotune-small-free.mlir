// SpMM with N = 1 and N = 3 columns: no candidate vectorizes the innermost
// free loop j with more lanes than it has iterations (16 lanes for one
// column were chosen before, issue 33); vectorizing a sparse innermost loop
// stays allowed. Release model and heuristic.
//
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen:rmat:rows=2048,nnz=20000,seed=4 top-k=8" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=gen:rmat:rows=2048,nnz=20000,seed=4 top-k=8" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s
//
// CHECK-COUNT-2: remark: sptune-autotune
// CHECK-NOT: {{order = \[[^]]*, j\], widths = \[[0-9]+, [0-9]+\], (layout = \[[^]]*\], )?tile = [0-9]+, parallel = [a-z]+, threads = [0-9]+, omp = [a-z]+, chunk = [0-9]+, vl = (4|8|16)}}
// CHECK: sptune.schedule = #sptune.schedule<cpu spmm
// CHECK-NOT: {{order = \[[^]]*, j\], widths = \[[0-9]+, [0-9]+\], (layout = \[[^]]*\], )?tile = [0-9]+, parallel = [a-z]+, threads = [0-9]+, omp = [a-z]+, chunk = [0-9]+, vl = (4|8|16)}}

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmm1(%a: tensor<?x?xf32, #CSR>, %b: tensor<?x1xf32>, %c: tensor<?x1xf32>) -> tensor<?x1xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?x1xf32>) outs(%c : tensor<?x1xf32>) -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

func.func @spmm3(%a: tensor<?x?xf32, #CSR>, %b: tensor<?x3xf32>, %c: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?x3xf32>) outs(%c : tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
