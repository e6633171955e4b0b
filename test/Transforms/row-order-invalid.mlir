// reorder = rcm computes the row order when the module is compiled, from the
// matrix the kernel is compiled for: without one, with one that has no such
// order (not square), one of another size, or two that disagree, the
// lowering stops with a diagnostic.
//
// RUN: sed 's|INPUTS|%S|g' %s | sptune-opt -split-input-file --sptune-apply-schedule --sptune-cpu-sparsify -verify-diagnostics
// RUN: sed 's|MATRIX|%S/../Integration/Inputs/row-order-8.mtx|' %S/Inputs/row-order-option.mlir | not sptune-opt --sptune-apply-schedule --sptune-cpu-sparsify=matrix=%S/../Integration/Inputs/spgemm-7x5.mtx 2>&1 | FileCheck %s --check-prefix=DISAGREE
// DISAGREE: error: sptune: reorder = rcm: the lowering's matrix='{{.*}}spgemm-7x5.mtx' and the 'sptune.matrix' attribute of the kernel's sparse argument ('{{.*}}row-order-8.mtx') name different matrices
// RUN: sed 's| {sptune.matrix = "MATRIX"}||' %S/Inputs/row-order-option.mlir | not sptune-opt --sptune-apply-schedule --sptune-cpu-sparsify=matrix=%S/no-such-matrix.mtx 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: sptune: reorder = rcm: cannot load the matrix '{{.*}}no-such-matrix.mtx'
// The row loop rewrite alone, on a function whose attribute names no order.
// RUN: not sptune-opt %S/Inputs/row-order-option.mlir --sptune-cpu-visit-rows-in-order 2>&1 | FileCheck %s --check-prefix=NOGLOBAL
// NOGLOBAL: error: sptune: 'sptune.row_order' names no rank-1 i32 memref.global

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @no_matrix(%a: tensor<8x8xf32, #CSR>, %x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sptune: reorder = rcm computes the order of the rows when the module is compiled, from the matrix the kernel is compiled for: name it with a 'sptune.matrix' attribute on the sparse argument or sptune-lower-cpu's matrix= option}}
  %0 = linalg.matvec {sptune.kernel = #sptune.kernel<spmv, loops = [i : 8, k : 8], operands = [sparse(i, k), dense(k), out(i)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<cpu spmv, reorder = rcm>}
    ins(%a, %x : tensor<8x8xf32, #CSR>, tensor<8xf32>) outs(%y : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @not_square(%a: tensor<7x5xf32, #CSR> {sptune.matrix = "INPUTS/../Integration/Inputs/spgemm-7x5.mtx"}, %x: tensor<5xf32>, %y: tensor<7xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{sptune: reorder = rcm cannot order this kernel's rows: the matrix is not square (7 x 5): reverse Cuthill-McKee orders the graph of a square matrix}}
  %0 = linalg.matvec {sptune.kernel = #sptune.kernel<spmv, loops = [i : 7, k : 5], operands = [sparse(i, k), dense(k), out(i)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<cpu spmv, reorder = rcm>}
    ins(%a, %x : tensor<7x5xf32, #CSR>, tensor<5xf32>) outs(%y : tensor<7xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @other_size(%a: tensor<10x10xf32, #CSR> {sptune.matrix = "INPUTS/../Integration/Inputs/row-order-8.mtx"}, %x: tensor<10xf32>, %y: tensor<10xf32>) -> tensor<10xf32> {
  // expected-error @+1 {{sptune: reorder = rcm: the matrix the order is computed from is 8 x 8, the kernel's sparse operand 'tensor<10x10xf32, #sparse_tensor.encoding}}
  %0 = linalg.matvec {sptune.kernel = #sptune.kernel<spmv, loops = [i : 10, k : 10], operands = [sparse(i, k), dense(k), out(i)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<cpu spmv, reorder = rcm>}
    ins(%a, %x : tensor<10x10xf32, #CSR>, tensor<10xf32>) outs(%y : tensor<10xf32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}
