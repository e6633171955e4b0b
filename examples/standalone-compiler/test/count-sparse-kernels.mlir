// standalone-count-sparse-kernels: nothing to count before sptune's
// extraction; after it, one kernel of each kind, none scheduled yet.
//
// RUN: standalone-opt %s --standalone-count-sparse-kernels | FileCheck %s --check-prefix=NONE
// NONE: module attributes {standalone.sparse_kernels = {kernels = 0 : i64, scheduled = 0 : i64}}
//
// RUN: standalone-opt %s --sptune-extract-kernels=remarks=false --standalone-count-sparse-kernels=remarks=true --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=EXTRACTED
// EXTRACTED: remark: standalone: spmm kernel, not scheduled yet
// EXTRACTED: remark: standalone: spmv kernel, not scheduled yet
// EXTRACTED: module attributes {standalone.sparse_kernels = {kernels = 2 : i64, scheduled = 0 : i64, spmm = 1 : i64, spmv = 1 : i64}}
// EXTRACTED-LABEL: func.func @spmm
// EXTRACTED: linalg.matmul {sptune.kernel = #sptune.kernel<spmm,
// EXTRACTED-LABEL: func.func @spmv
// EXTRACTED: linalg.matvec {sptune.kernel = #sptune.kernel<spmv,

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmm(%a: tensor<256x256xf32, #CSR>, %b: tensor<256x32xf32>, %c: tensor<256x32xf32>) -> tensor<256x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<256x256xf32, #CSR>, tensor<256x32xf32>) outs(%c : tensor<256x32xf32>) -> tensor<256x32xf32>
  return %0 : tensor<256x32xf32>
}

func.func @spmv(%a: tensor<?x?xf64, #CSR>, %x: tensor<?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
  %0 = linalg.matvec ins(%a, %x : tensor<?x?xf64, #CSR>, tensor<?xf64>) outs(%y : tensor<?xf64>) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}
