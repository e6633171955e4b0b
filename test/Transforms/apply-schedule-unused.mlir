// A kernel whose result nobody uses computes nothing. sptune-apply-schedule
// erased it half-way and failed with "sptune: lost the kernel while mapping
// it to level space", where mlir-opt --sparsifier compiles the function
// (issue 35). It is erased, with a remark, and the function compiles.
//
// RUN: sptune-opt %s --sptune-apply-schedule -verify-diagnostics | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen:uniform:rows=64,cols=64,nnz=300" --sptune-apply-schedule --sptune-lower-cpu 2>/dev/null | FileCheck %s --check-prefix=LOWERED

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CHECK-LABEL: func.func @unused_spmm
// CHECK-NOT:     linalg
// CHECK:         return %arg2
// LOWERED:     llvm.func @unused_spmm
func.func @unused_spmm(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x16xf32>,
                       %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  // expected-remark @+1 {{sptune: the kernel's result is unused; erased it instead of applying the schedule}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 16, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x16xf32>)
    outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %c : tensor<64x16xf32>
}
