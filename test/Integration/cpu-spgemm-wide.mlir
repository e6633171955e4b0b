// A product with 2^32 columns: sptune's Gustavson kernel with `auto` takes
// the hash accumulator here (a dense workspace would take 2^32 x 17 bytes
// per block; GustavsonSpgemm.h), and the result is the hand-computed one
// below. Upstream's sparsifier expands a row over every column and is not
// run. Columns at both ends of the range, one past 2^31, and a column that
// two products of each row share.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sptune-lower-cpu | env OMP_NUM_THREADS=1 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu | env OMP_NUM_THREADS=4 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=gustavson-one-pass-bytes=0 | env OMP_NUM_THREADS=2 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=gustavson-accumulator=hash | env OMP_NUM_THREADS=3 %{run} | FileCheck %s
//
// The dense workspace forced: 2^32 x 17 bytes per block cannot be
// allocated under an 8 GB address-space limit, and the program says so and
// exits with status 1 instead of writing through a null pointer.
// RUN: sptune-opt %s --sptune-lower-cpu=gustavson-accumulator=dense -o %t.dense.mlir
// RUN: not bash -c "ulimit -v 8000000 && OMP_NUM_THREADS=2 mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib %t.dense.mlir" | FileCheck %s --check-prefix=OOM
// OOM: sptune: the SpGEMM kernel ran out of memory allocating this many bytes (a dense workspace, asked for by gustavson-accumulator=dense or a schedule's accumulator = dense, takes 9-17 bytes per column of C per thread, and auto or hash may take less; one pass, by passes = one, allocates C with a coordinate and a value per product): {{[0-9]+}}
// OOM-NOT: Sparse Tensor
//
// Row 0 = 1 B(0, :) + 2 B(1, :); row 1 = 3 B(1, :) + 4 B(2, :).
// CHECK:      ---- Sparse Tensor ----
// CHECK-NEXT: nse = 7
// CHECK-NEXT: dim = ( 2, 4294967296 )
// CHECK-NEXT: lvl = ( 2, 4294967296 )
// CHECK-NEXT: pos[1] : ( 0, 3, 7 )
// CHECK-NEXT: crd[1] : ( 7, 4000000000, 4294967295, 0, 7, 4000000000, 4294967295 )
// CHECK-NEXT: values : ( 8, 8, 1, 20, 9, 12, 24 )
// CHECK-NEXT: ----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
func.func @spgemm_huge(%a: tensor<2x3xf64, #CSR>, %b: tensor<3x4294967296xf64, #CSR>) -> tensor<2x4294967296xf64, #CSR> {
  %e = tensor.empty() : tensor<2x4294967296xf64, #CSR>
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf64, #CSR>, tensor<3x4294967296xf64, #CSR>)
                     outs(%e : tensor<2x4294967296xf64, #CSR>) -> tensor<2x4294967296xf64, #CSR>
  return %r : tensor<2x4294967296xf64, #CSR>
}
func.func @main() {
  %da = arith.constant dense<[[1.0, 2.0, 0.0], [0.0, 3.0, 4.0]]> : tensor<2x3xf64>
  %a = sparse_tensor.convert %da : tensor<2x3xf64> to tensor<2x3xf64, #CSR>
  %sb = arith.constant sparse<[[0, 4294967295], [0, 7], [1, 7], [1, 4000000000], [2, 0], [2, 4294967295]], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<3x4294967296xf64>
  %b = sparse_tensor.convert %sb : tensor<3x4294967296xf64> to tensor<3x4294967296xf64, #CSR>
  %c = call @spgemm_huge(%a, %b) : (tensor<2x3xf64, #CSR>, tensor<3x4294967296xf64, #CSR>) -> tensor<2x4294967296xf64, #CSR>
  sparse_tensor.print %c : tensor<2x4294967296xf64, #CSR>
  return
}
