// sptune-autotune on SpGEMM kernels with their schedules measured: the CPU
// measurer times an SpGEMM as A A (the kernel's A matrix times itself,
// which must be square), checks its result against a double-precision
// checksum, and the fastest measured schedule is chosen. The shipped model
// has no SpGEMM feature: the heuristic ranks the candidates.
//
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="measure-top-k=3" --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s
// CHECK: remark: sptune-autotune (release, {{[0-9]+}} candidates ranked in {{.*}}, top 3 measured): chose cpu spgemm, {{.*}}; ranking: #1 score {{.*}} measured {{[0-9.]+}} ms [cpu spgemm, {{.*}}] #2 score {{.*}} measured {{[0-9.]+}} ms [cpu spgemm, {{.*}}] #3 score {{.*}} measured {{[0-9.]+}} ms [cpu spgemm, {{.*}}]{{.*}}; timed as A A (its A's matrix times itself), the matrix square; ranked by the heuristic: release model {{.*}} has no feature for kernel 'spgemm'
// A rectangular matrix is not measured: each candidate says why.
// CHECK: remark: sptune-autotune (release, {{.*}}): chose cpu spgemm, {{.*}}; ranking: #1 score {{.*}} (illegal: an SpGEMM is measured as A A, on a square matrix; this one is 12 x 9) [cpu spgemm,

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @square(%a: tensor<64x64xf64, #CSR> {sptune.matrix = "gen:rmat:rows=64,cols=64,nnz=400,seed=3"},
                  %b: tensor<64x64xf64, #CSR>) -> tensor<64x64xf64, #CSR> {
  %e = tensor.empty() : tensor<64x64xf64, #CSR>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf64, #CSR>, tensor<64x64xf64, #CSR>)
                     outs(%e : tensor<64x64xf64, #CSR>) -> tensor<64x64xf64, #CSR>
  return %r : tensor<64x64xf64, #CSR>
}

func.func @rectangular(%a: tensor<12x9xf32, #CSR> {sptune.matrix = "gen:uniform:rows=12,cols=9,nnz=30,seed=1"},
                       %b: tensor<9x7xf32, #CSR>) -> tensor<12x7xf32, #CSR> {
  %e = tensor.empty() : tensor<12x7xf32, #CSR>
  %r = linalg.matmul ins(%a, %b : tensor<12x9xf32, #CSR>, tensor<9x7xf32, #CSR>)
                     outs(%e : tensor<12x7xf32, #CSR>) -> tensor<12x7xf32, #CSR>
  return %r : tensor<12x7xf32, #CSR>
}
