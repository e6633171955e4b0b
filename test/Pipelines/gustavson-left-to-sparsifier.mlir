// Sparse x sparse products sptune's Gustavson kernel does not compute are
// left to the sparsifier: a product in a module nested in the one the pass
// runs on (the kernel is defined among the top module's functions, so a
// call there would name a function never defined), and one whose operand
// declares its values (explicitVal) rather than storing them (the kernel
// reads every value from the values buffer).
//
// RUN: sptune-opt %s --linalg-generalize-named-ops --sptune-cpu-sparsify | FileCheck %s

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#ONES = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), explicitVal = 1.0 : f64 }>

// The top module's product: the kernel, declared and defined at the top.
// CHECK-LABEL: module {
// CHECK: func.func private @sptune_gustavson_spgemm(
// CHECK-SAME: attributes {sptune.gustavson_kernel}
// CHECK-LABEL: func.func @top(
// CHECK: call @sptune_gustavson_spgemm(
func.func @top(%a: tensor<5x4xf64, #CSR>, %b: tensor<4x6xf64, #CSR>) -> tensor<5x6xf64, #CSR> {
  %e = tensor.empty() : tensor<5x6xf64, #CSR>
  %r = linalg.matmul ins(%a, %b : tensor<5x4xf64, #CSR>, tensor<4x6xf64, #CSR>)
                     outs(%e : tensor<5x6xf64, #CSR>) -> tensor<5x6xf64, #CSR>
  return %r : tensor<5x6xf64, #CSR>
}

// CHECK-LABEL: func.func @declared_values(
// CHECK-NOT: call @sptune_gustavson_spgemm
// CHECK: return
func.func @declared_values(%a: tensor<5x4xf64, #ONES>, %b: tensor<4x6xf64, #CSR>) -> tensor<5x6xf64, #CSR> {
  %e = tensor.empty() : tensor<5x6xf64, #CSR>
  %r = linalg.matmul ins(%a, %b : tensor<5x4xf64, #ONES>, tensor<4x6xf64, #CSR>)
                     outs(%e : tensor<5x6xf64, #CSR>) -> tensor<5x6xf64, #CSR>
  return %r : tensor<5x6xf64, #CSR>
}

// CHECK-LABEL: module @nested {
// CHECK-NOT: sptune_gustavson_spgemm
// CHECK: func.func @inner(
// CHECK-NOT: sptune_gustavson_spgemm
// CHECK: return
module @nested {
  func.func @inner(%a: tensor<5x4xf64, #CSR>, %b: tensor<4x6xf64, #CSR>) -> tensor<5x6xf64, #CSR> {
    %e = tensor.empty() : tensor<5x6xf64, #CSR>
    %r = linalg.matmul ins(%a, %b : tensor<5x4xf64, #CSR>, tensor<4x6xf64, #CSR>)
                       outs(%e : tensor<5x6xf64, #CSR>) -> tensor<5x6xf64, #CSR>
    return %r : tensor<5x6xf64, #CSR>
  }
}
