// Release mode: the model compiled into sptune's cost model library, and the
// model file installed with sptune (<prefix>/share/sptune/models,
// Sptune_MODELS_DIR) named explicitly.
//
// REQUIRES: sptune-torch
// RUN: standalone-opt %s --sptune-extract-kernels --sptune-autotune="mode=release matrix=gen:rmat:rows=512,cols=512,nnz=3000,seed=2 top-k=2" --standalone-count-sparse-kernels --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s
// RUN: standalone-opt %s --sptune-extract-kernels --sptune-autotune="mode=release model=%sptune_models/cpu-default.pt matrix=gen:rmat:rows=512,cols=512,nnz=3000,seed=2 top-k=2" --standalone-count-sparse-kernels --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s
// CHECK: remark: sptune-autotune (release, {{[0-9]+}} candidates ranked in {{.*}}): chose cpu spmv
// CHECK: module attributes {standalone.sparse_kernels = {kernels = 1 : i64, scheduled = 1 : i64, spmv = 1 : i64}}
// CHECK: linalg.matvec {{{.*}}sptune.schedule = #sptune.schedule<cpu spmv

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmv(%a: tensor<512x512xf64, #CSR>, %x: tensor<512xf64>, %y: tensor<512xf64>) -> tensor<512xf64> {
  %0 = linalg.matvec ins(%a, %x : tensor<512x512xf64, #CSR>, tensor<512xf64>) outs(%y : tensor<512xf64>) -> tensor<512xf64>
  return %0 : tensor<512xf64>
}
