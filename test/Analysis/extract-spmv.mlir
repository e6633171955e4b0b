// RUN: sptune-opt %s --sptune-extract-kernels -split-input-file -verify-diagnostics | FileCheck %s

// SpMV y(i) += A(i,k) * x(k) with A sparse. `i` is the free dimension of the
// sparse matrix, `k` the reduction. No remark is expected in this file.

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CHECK: #[[CSR:.+]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
// CHECK-LABEL: func.func @matvec_static_f64
// CHECK: linalg.matvec {sptune.kernel = #sptune.kernel<spmv, loops = [i : 8, k : 4], operands = [sparse(i, k), dense(k), out(i)], type = f64, encoding = #[[CSR]]>}
func.func @matvec_static_f64(%a: tensor<8x4xf64, #CSR>, %x: tensor<4xf64>,
                             %y: tensor<8xf64>) -> tensor<8xf64> {
  %0 = linalg.matvec ins(%a, %x : tensor<8x4xf64, #CSR>, tensor<4xf64>)
                     outs(%y : tensor<8xf64>) -> tensor<8xf64>
  return %0 : tensor<8xf64>
}

// -----

#DCSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed, j : compressed) }>

// CHECK: #[[DCSR:.+]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : compressed, d1 : compressed) }>
// CHECK-LABEL: func.func @matvec_dynamic_f32
// CHECK: linalg.matvec {sptune.kernel = #sptune.kernel<spmv, loops = [i : ?, k : ?], operands = [sparse(i, k), dense(k), out(i)], type = f32, encoding = #[[DCSR]]>}
func.func @matvec_dynamic_f32(%a: tensor<?x?xf32, #DCSR>, %x: tensor<?xf32>,
                              %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = linalg.matvec ins(%a, %x : tensor<?x?xf32, #DCSR>, tensor<?xf32>)
                     outs(%y : tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// The generic form, accumulator on the right.
#spmv = {
  indexing_maps = [affine_map<(i, k) -> (i, k)>,
                   affine_map<(i, k) -> (k)>,
                   affine_map<(i, k) -> (i)>],
  iterator_types = ["parallel", "reduction"]
}
// CHECK-LABEL: func.func @generic_ik
// CHECK: sptune.kernel = #sptune.kernel<spmv, loops = [i : ?, k : 32], operands = [sparse(i, k), dense(k), out(i)], type = f32,
func.func @generic_ik(%a: tensor<?x?xf32, #CSR>, %x: tensor<32xf32>,
                      %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = linalg.generic #spmv
      ins(%a, %x : tensor<?x?xf32, #CSR>, tensor<32xf32>)
      outs(%y : tensor<?xf32>) {
  ^bb0(%av: f32, %xv: f32, %yv: f32):
    %p = arith.mulf %av, %xv : f32
    %s = arith.addf %p, %yv : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Loop order (k, i): reduction outermost.
#spmv_ki = {
  indexing_maps = [affine_map<(k, i) -> (i, k)>,
                   affine_map<(k, i) -> (k)>,
                   affine_map<(k, i) -> (i)>],
  iterator_types = ["reduction", "parallel"]
}
// CHECK-LABEL: func.func @generic_ki
// CHECK: sptune.kernel = #sptune.kernel<spmv, loops = [k : 4, i : 8], operands = [sparse(i, k), dense(k), out(i)], type = f64,
func.func @generic_ki(%a: tensor<8x4xf64, #CSR>, %x: tensor<4xf64>,
                      %y: tensor<8xf64>) -> tensor<8xf64> {
  %0 = linalg.generic #spmv_ki
      ins(%a, %x : tensor<8x4xf64, #CSR>, tensor<4xf64>)
      outs(%y : tensor<8xf64>) {
  ^bb0(%av: f64, %xv: f64, %yv: f64):
    %p = arith.mulf %xv, %av : f64
    %s = arith.addf %yv, %p : f64
    linalg.yield %s : f64
  } -> tensor<8xf64>
  return %0 : tensor<8xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Transposed matrix, y(i) += A(k,i) * x(k), written as linalg.vecmat
// (x first): the free dimension of A is `i`.
// CHECK-LABEL: func.func @vecmat
// CHECK: linalg.vecmat {sptune.kernel = #sptune.kernel<spmv, loops = [i : 16, k : 8], operands = [dense(k), sparse(k, i), out(i)], type = f64,
func.func @vecmat(%x: tensor<8xf64>, %a: tensor<8x16xf64, #CSR>,
                  %y: tensor<16xf64>) -> tensor<16xf64> {
  %0 = linalg.vecmat ins(%x, %a : tensor<8xf64>, tensor<8x16xf64, #CSR>)
                     outs(%y : tensor<16xf64>) -> tensor<16xf64>
  return %0 : tensor<16xf64>
}
