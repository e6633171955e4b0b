// More blocks than rows: sptune's Gustavson kernel with 8 blocks on a product
// of one row gives 7 blocks no rows, and those allocate no workspace. With
// the dense workspace pinned, a block's workspace takes 2^28 x 17 bytes
// (4.5 GB of address space); one fits under an 8 GB address-space limit,
// eight would not (the program would say it ran out of memory and exit with
// status 1, as test cpu-spgemm-wide.mlir shows for a workspace that does not
// fit at all). Results against the hand-computed product below, in one pass
// and in two.
//
// RUN: sptune-opt %s --sptune-lower-cpu="gustavson-accumulator=dense threads=8" -o %t.one.mlir
// RUN: bash -c "ulimit -v 8000000 && mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib %t.one.mlir" | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu="gustavson-accumulator=dense threads=8 gustavson-one-pass-bytes=0" -o %t.two.mlir
// RUN: bash -c "ulimit -v 8000000 && mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib %t.two.mlir" | FileCheck %s
//
// Row 0 = 1 B(0, :) + 2 B(1, :) + 3 B(2, :).
// CHECK:      ---- Sparse Tensor ----
// CHECK-NEXT: nse = 4
// CHECK-NEXT: dim = ( 1, 268435456 )
// CHECK-NEXT: lvl = ( 1, 268435456 )
// CHECK-NEXT: pos[1] : ( 0, 4 )
// CHECK-NEXT: crd[1] : ( 0, 7, 200000000, 268435455 )
// CHECK-NEXT: values : ( 15, 5, 8, 19 )
// CHECK-NEXT: ----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
func.func @spgemm_one_row(%a: tensor<1x3xf64, #CSR>, %b: tensor<3x268435456xf64, #CSR>) -> tensor<1x268435456xf64, #CSR> {
  %e = tensor.empty() : tensor<1x268435456xf64, #CSR>
  %r = linalg.matmul ins(%a, %b : tensor<1x3xf64, #CSR>, tensor<3x268435456xf64, #CSR>)
                     outs(%e : tensor<1x268435456xf64, #CSR>) -> tensor<1x268435456xf64, #CSR>
  return %r : tensor<1x268435456xf64, #CSR>
}
func.func @main() {
  %da = arith.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf64>
  %a = sparse_tensor.convert %da : tensor<1x3xf64> to tensor<1x3xf64, #CSR>
  %sb = arith.constant sparse<[[0, 268435455], [0, 7], [1, 7], [1, 200000000], [2, 0], [2, 268435455]], [1.0, -3.0, 4.0, 4.0, 5.0, 6.0]> : tensor<3x268435456xf64>
  %b = sparse_tensor.convert %sb : tensor<3x268435456xf64> to tensor<3x268435456xf64, #CSR>
  %c = call @spgemm_one_row(%a, %b) : (tensor<1x3xf64, #CSR>, tensor<3x268435456xf64, #CSR>) -> tensor<1x268435456xf64, #CSR>
  sparse_tensor.print %c : tensor<1x268435456xf64, #CSR>
  return
}
