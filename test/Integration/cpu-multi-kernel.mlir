// A module with a scheduled kernel (parallel, vectorized) next to a sparse
// kernel sptune did not schedule (block-sparse storage, upstream's
// defaults), in another function: the scheduled one keeps its settings (the
// module is sparsified once per setting), the unscheduled one must not
// inherit the other's parallel loops (it would race), and both give the
// same numbers run after run.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// DEFINE: %{lower} = sptune-opt %s --sptune-apply-schedule --sptune-lower-cpu
// RUN: %{lower} 2>&1 >/dev/null | count 0
// RUN: %{lower} 2>/dev/null | FileCheck %s --check-prefix=IR
// RUN: %{lower} 2>/dev/null | %{run} | FileCheck %s
// RUN: %{lower} 2>/dev/null | %{run} | FileCheck %s
// RUN: %{lower} 2>/dev/null | %{run} | FileCheck %s
//
// IR-LABEL: llvm.func @scheduled
// IR:       omp.parallel
// IR-LABEL: llvm.func @unscheduled
// IR-NOT:   omp.parallel
// IR:       llvm.return
// CHECK:      ( ( 3, 3, 3, 3 ), ( 0, 0, 0, 0 ), ( 8, 8, 8, 8 ), ( 18, 18, 18, 18 ), ( 0, 0, 0, 0 ), ( 10, 10, 10, 10 ), ( 1, 1, 1, 1 ), ( 7, 7, 7, 7 ) )
// CHECK-NEXT: ( ( 3, 3, 3, 3 ), ( 0, 0, 0, 0 ), ( 8, 8, 8, 8 ), ( 18, 18, 18, 18 ), ( 0, 0, 0, 0 ), ( 10, 10, 10, 10 ), ( 1, 1, 1, 1 ), ( 7, 7, 7, 7 ) )

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#BSR = #sparse_tensor.encoding<{ map = (i, j) -> (i floordiv 2 : dense, j floordiv 2 : compressed, i mod 2 : dense, j mod 2 : dense) }>

module {
  func.func @scheduled(%a: tensor<8x8xf32, #CSR>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = linalg.matmul {
        sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
        sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer, omp = dynamic, chunk = 1, vl = 4>}
      ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }

  func.func @unscheduled(%a: tensor<8x8xf32, #BSR>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32, #BSR>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %d = arith.constant dense<[[1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0, 0.0, 5.0, 0.0, 0.0], [4.0, 0.0, 0.0, 6.0, 0.0, 0.0, 0.0, 8.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 9.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 4.0]]> : tensor<8x8xf32>
    %b = arith.constant dense<1.0> : tensor<8x4xf32>
    %c = arith.constant dense<0.0> : tensor<8x4xf32>
    %a1 = sparse_tensor.convert %d : tensor<8x8xf32> to tensor<8x8xf32, #CSR>
    %a2 = sparse_tensor.convert %d : tensor<8x8xf32> to tensor<8x8xf32, #BSR>
    %r1 = call @scheduled(%a1, %b, %c) : (tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %r2 = call @unscheduled(%a2, %b, %c) : (tensor<8x8xf32, #BSR>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %v1 = vector.transfer_read %r1[%c0, %c0], %z : tensor<8x4xf32>, vector<8x4xf32>
    %v2 = vector.transfer_read %r2[%c0, %c0], %z : tensor<8x4xf32>, vector<8x4xf32>
    vector.print %v1 : vector<8x4xf32>
    vector.print %v2 : vector<8x4xf32>
    return
  }
}
