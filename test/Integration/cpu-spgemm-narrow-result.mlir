// A product stored in a C narrower than its operands: 32-bit positions and
// coordinates under 64-bit inputs. Where C's coordinates hold B's columns
// (2^32 columns, the last 2^32 - 1 stored; or 2^32 + 1 columns, only small
// ones stored) the kernel's result is the hand-computed one; where B stores
// column 2^32, the program says so and exits with status 1, rather than
// store wrapped coordinates. (C's positions get the same check against the
// product's entries, which no test here can reach: it takes 2^32 of
// them.)
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sptune-lower-cpu -o %t.mlir
// RUN: env OMP_NUM_THREADS=2 %{run} %t.mlir | FileCheck %s
// RUN: not env OMP_NUM_THREADS=2 %{run} -e too_wide %t.mlir | FileCheck %s --check-prefix=WIDE
// RUN: sptune-opt %s --linalg-generalize-named-ops --sptune-cpu-sparsify | FileCheck %s --check-prefix=IR
//
// (sparse_tensor.print shows 32-bit coordinates as signed: 4294967295 is
// -1, 4000000000 is -294967296.)
// CHECK:      ---- Sparse Tensor ----
// CHECK-NEXT: nse = 4
// CHECK-NEXT: dim = ( 2, 4294967296 )
// CHECK-NEXT: lvl = ( 2, 4294967296 )
// CHECK-NEXT: pos[1] : ( 0, 2, 4 )
// CHECK-NEXT: crd[1] : ( 7, -1, 7, -294967296 )
// CHECK-NEXT: values : ( 4, 1, 6, 12 )
// CHECK-NEXT: ----
//
// CHECK:      ---- Sparse Tensor ----
// CHECK-NEXT: nse = 3
// CHECK-NEXT: dim = ( 2, 4294967297 )
// CHECK-NEXT: lvl = ( 2, 4294967297 )
// CHECK-NEXT: pos[1] : ( 0, 2, 3 )
// CHECK-NEXT: crd[1] : ( 5, 7, 7 )
// CHECK-NEXT: values : ( 1, 4, 6 )
// CHECK-NEXT: ----
//
// WIDE: sptune: the SpGEMM kernel cannot store B's columns in C's coordinates' width; B's largest column is 4294967296
// WIDE-NOT: Sparse Tensor
//
// IR-LABEL: func.func private @sptune_gustavson_spgemm(
// B's largest coordinate, against what C's coordinates hold.
// IR: arith.maxui
// IR: %[[OUTSIDE:.+]] = arith.cmpi ugt, %[[WIDEST:.+]], %c4294967295 : index
// IR-NEXT: scf.if %[[OUTSIDE]] {
// IR-NEXT: vector.print str "sptune: the SpGEMM kernel cannot store B's columns in C's coordinates' width; B's largest column is "
// IR-NEXT: vector.print %[[WIDEST]] : index
// IR-NEXT: func.call @exit(
// IR: %[[OVER:.+]] = arith.cmpi ugt, %[[ENTRIES:.+]], %c4294967295 : index
// IR-NEXT: scf.if %[[OVER]] {
// IR-NEXT: vector.print str "sptune: the SpGEMM kernel's product has more entries than C's positions' width holds: "
// IR-NEXT: vector.print %[[ENTRIES]] : index
// IR-NEXT: func.call @exit(

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#CSR32 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), posWidth = 32, crdWidth = 32 }>
func.func @narrow(%a: tensor<2x3xf64, #CSR>, %b: tensor<3x4294967296xf64, #CSR>) -> tensor<2x4294967296xf64, #CSR32> {
  %e = tensor.empty() : tensor<2x4294967296xf64, #CSR32>
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf64, #CSR>, tensor<3x4294967296xf64, #CSR>)
                     outs(%e : tensor<2x4294967296xf64, #CSR32>) -> tensor<2x4294967296xf64, #CSR32>
  return %r : tensor<2x4294967296xf64, #CSR32>
}
func.func @wider(%a: tensor<2x3xf64, #CSR>, %b: tensor<3x4294967297xf64, #CSR>) -> tensor<2x4294967297xf64, #CSR32> {
  %e = tensor.empty() : tensor<2x4294967297xf64, #CSR32>
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf64, #CSR>, tensor<3x4294967297xf64, #CSR>)
                     outs(%e : tensor<2x4294967297xf64, #CSR32>) -> tensor<2x4294967297xf64, #CSR32>
  return %r : tensor<2x4294967297xf64, #CSR32>
}
func.func @main() {
  %da = arith.constant dense<[[1.0, 2.0, 0.0], [0.0, 3.0, 4.0]]> : tensor<2x3xf64>
  %a = sparse_tensor.convert %da : tensor<2x3xf64> to tensor<2x3xf64, #CSR>
  %sb = arith.constant sparse<[[0, 4294967295], [1, 7], [2, 4000000000]], [1.0, 2.0, 3.0]> : tensor<3x4294967296xf64>
  %b = sparse_tensor.convert %sb : tensor<3x4294967296xf64> to tensor<3x4294967296xf64, #CSR>
  %c = call @narrow(%a, %b) : (tensor<2x3xf64, #CSR>, tensor<3x4294967296xf64, #CSR>) -> tensor<2x4294967296xf64, #CSR32>
  sparse_tensor.print %c : tensor<2x4294967296xf64, #CSR32>
  %sw = arith.constant sparse<[[0, 5], [1, 7]], [1.0, 2.0]> : tensor<3x4294967297xf64>
  %w = sparse_tensor.convert %sw : tensor<3x4294967297xf64> to tensor<3x4294967297xf64, #CSR>
  %cw = call @wider(%a, %w) : (tensor<2x3xf64, #CSR>, tensor<3x4294967297xf64, #CSR>) -> tensor<2x4294967297xf64, #CSR32>
  sparse_tensor.print %cw : tensor<2x4294967297xf64, #CSR32>
  return
}
func.func @too_wide() {
  %da = arith.constant dense<[[1.0, 2.0, 0.0], [0.0, 3.0, 4.0]]> : tensor<2x3xf64>
  %a = sparse_tensor.convert %da : tensor<2x3xf64> to tensor<2x3xf64, #CSR>
  %sb = arith.constant sparse<[[0, 5], [1, 4294967296]], [1.0, 2.0]> : tensor<3x4294967297xf64>
  %b = sparse_tensor.convert %sb : tensor<3x4294967297xf64> to tensor<3x4294967297xf64, #CSR>
  %c = call @wider(%a, %b) : (tensor<2x3xf64, #CSR>, tensor<3x4294967297xf64, #CSR>) -> tensor<2x4294967297xf64, #CSR32>
  sparse_tensor.print %c : tensor<2x4294967297xf64, #CSR32>
  return
}
