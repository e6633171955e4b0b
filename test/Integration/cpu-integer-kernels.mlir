// Integer SpMV and SpMM (graph analytics): recognized, scheduled by the
// heuristic or by explicit schedules (parallel, vectorized), executed;
// hand-computed values.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule | FileCheck %s --check-prefix=IR
// RUN: sptune-opt %s --sptune-extract-kernels | FileCheck %s --check-prefix=KERNEL
//
// KERNEL: sptune.kernel = #sptune.kernel<spmv, {{.*}} type = i32
// KERNEL: sptune.kernel = #sptune.kernel<spmm, {{.*}} type = i64
// IR-COUNT-2: sptune.schedule = #sptune.schedule<cpu
//
// CHECK: ( 7, 0, 12, 31, 0, 10 )
// CHECK: ( ( 3, 6, 9 ), ( 0, 0, 0 ), ( 4, 8, 12 ), ( 17, 34, 51 ), ( 0, 0, 0 ), ( 5, 10, 15 ) )

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

module {
  func.func @spmv(%a: tensor<6x6xi32, #CSR>, %x: tensor<6xi32>, %y: tensor<6xi32>) -> tensor<6xi32> {
    %0 = linalg.matvec ins(%a, %x : tensor<6x6xi32, #CSR>, tensor<6xi32>) outs(%y : tensor<6xi32>) -> tensor<6xi32>
    return %0 : tensor<6xi32>
  }

  func.func @spmm(%a: tensor<6x6xi64, #CSR>, %b: tensor<6x3xi64>, %c: tensor<6x3xi64>) -> tensor<6x3xi64> {
    %0 = linalg.matmul ins(%a, %b : tensor<6x6xi64, #CSR>, tensor<6x3xi64>) outs(%c : tensor<6x3xi64>) -> tensor<6x3xi64>
    return %0 : tensor<6x3xi64>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %d = arith.constant dense<[[1, 0, 2, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 4, 0, 0, 0, 0], [3, 0, 0, 7, 0, 1], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 5, 0]]> : tensor<6x6xi32>
    %s = sparse_tensor.convert %d : tensor<6x6xi32> to tensor<6x6xi32, #CSR>
    %x = arith.constant dense<[1, 3, 3, 4, 2, 0]> : tensor<6xi32>
    %y0 = arith.constant dense<0> : tensor<6xi32>
    %y = call @spmv(%s, %x, %y0) : (tensor<6x6xi32, #CSR>, tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
    %zi = arith.constant 0 : i32
    %yv = vector.transfer_read %y[%c0], %zi : tensor<6xi32>, vector<6xi32>
    vector.print %yv : vector<6xi32>

    %dl = arith.extsi %d : tensor<6x6xi32> to tensor<6x6xi64>
    %sl = sparse_tensor.convert %dl : tensor<6x6xi64> to tensor<6x6xi64, #CSR>
    %b = arith.constant dense<[[1, 2, 3], [1, 2, 3], [1, 2, 3], [2, 4, 6], [1, 2, 3], [0, 0, 0]]> : tensor<6x3xi64>
    %c0t = arith.constant dense<0> : tensor<6x3xi64>
    %c = call @spmm(%sl, %b, %c0t) : (tensor<6x6xi64, #CSR>, tensor<6x3xi64>, tensor<6x3xi64>) -> tensor<6x3xi64>
    %zl = arith.constant 0 : i64
    %cv = vector.transfer_read %c[%c0, %c0], %zl : tensor<6x3xi64>, vector<6x3xi64>
    vector.print %cv : vector<6x3xi64>
    return
  }
}
