// reorder = rcm where there is little to order or the matrix is behind a
// copy: a 1 x 1 matrix lowers without an order (no row loop may be left to
// rewrite); an argument with 32-bit storage, widened to the schedule's
// 64-bit widths by a storage copy, still names its matrix.
//
// RUN: sed 's|INPUTS|%S|g' %s | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify --sptune-cpu-visit-rows-in-order | FileCheck %s
// RUN: sed 's|INPUTS|%S|g' %s | sptune-opt --sptune-apply-schedule --sptune-lower-cpu | FileCheck %s --check-prefix=LLVM
//
// CHECK: memref.global "private" constant @__sptune_row_order : memref<8xi32> = dense<[4, 0, 6, 2, 7, 1, 5, 3]>
// CHECK-NOT: memref.global "private" constant @__sptune_row_order
// CHECK-LABEL: func.func @one_row
// CHECK-NOT: memref.get_global @__sptune_row_order
// CHECK-LABEL: func.func @widened
// CHECK: memref.get_global @__sptune_row_order : memref<8xi32>
// LLVM: llvm.func @one_row
// LLVM: llvm.func @widened

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#CSR32 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), posWidth = 32, crdWidth = 32 }>

func.func @one_row(%a: tensor<1x1xf32, #CSR> {sptune.matrix = "INPUTS/Inputs/one-row.mtx"}, %x: tensor<1xf32>, %y: tensor<1xf32>) -> tensor<1xf32> {
  %0 = linalg.matvec {sptune.kernel = #sptune.kernel<spmv, loops = [i : 1, k : 1], operands = [sparse(i, k), dense(k), out(i)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<cpu spmv, parallel = outer, reorder = rcm>}
    ins(%a, %x : tensor<1x1xf32, #CSR>, tensor<1xf32>) outs(%y : tensor<1xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

func.func @widened(%a: tensor<8x8xf32, #CSR32> {sptune.matrix = "INPUTS/../Integration/Inputs/row-order-8.mtx"}, %x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.matvec {sptune.kernel = #sptune.kernel<spmv, loops = [i : 8, k : 8], operands = [sparse(i, k), dense(k), out(i)], type = f32, encoding = #CSR32>, sptune.schedule = #sptune.schedule<cpu spmv, widths = [64, 64], parallel = outer, reorder = rcm>}
    ins(%a, %x : tensor<8x8xf32, #CSR32>, tensor<8xf32>) outs(%y : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
