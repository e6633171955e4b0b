// RUN: sptune-opt %s --sptune-extract-kernels -split-input-file -verify-diagnostics | FileCheck %s

// SpMM C(i,j) += A(i,k) * B(k,j) with A sparse, in every form the matcher
// recognizes. Roles are canonical: `i` is the free dimension of the sparse
// operand, `k` the reduction, `j` the free dimension of the dense operand.
// No remark is expected anywhere in this file (-verify-diagnostics).

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CHECK: #[[CSR:.+]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
// CHECK-LABEL: func.func @matmul_static_f32
// CHECK: linalg.matmul {sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 16, k : 4], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #[[CSR]]>}
func.func @matmul_static_f32(%a: tensor<8x4xf32, #CSR>, %b: tensor<4x16xf32>,
                             %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<4x16xf32>)
                     outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// All sizes dynamic.
// CHECK-LABEL: func.func @matmul_dynamic_f64
// CHECK: linalg.matmul {sptune.kernel = #sptune.kernel<spmm, loops = [i : ?, j : ?, k : ?], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f64, encoding = #{{[a-z0-9_]+}}>}
func.func @matmul_dynamic_f64(%a: tensor<?x?xf64, #CSR>, %b: tensor<?x?xf64>,
                              %c: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf64, #CSR>, tensor<?x?xf64>)
                     outs(%c : tensor<?x?xf64>) -> tensor<?x?xf64>
  return %0 : tensor<?x?xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Mixed static/dynamic: k is dynamic in A but static in B, so it is static.
// CHECK-LABEL: func.func @matmul_mixed_sizes
// CHECK: sptune.kernel<spmm, loops = [i : ?, j : 64, k : 32],
func.func @matmul_mixed_sizes(%a: tensor<?x?xf32, #CSR>, %b: tensor<32x64xf32>,
                              %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<32x64xf32>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

#CSC = #sparse_tensor.encoding<{ map = (i, j) -> (j : dense, i : compressed) }>

// The encoding is reported as it is (here CSC).
// CHECK: #[[CSC:.+]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d1 : dense, d0 : compressed) }>
// CHECK-LABEL: func.func @matmul_csc
// CHECK: sptune.kernel<spmm, {{.*}}, type = f32, encoding = #[[CSC]]>
func.func @matmul_csc(%a: tensor<8x4xf32, #CSC>, %b: tensor<4x16xf32>,
                      %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x4xf32, #CSC>, tensor<4x16xf32>)
                     outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// linalg.matmul with explicit indexing_maps (MLIR 22 syntax) transposing B.
// CHECK-LABEL: func.func @matmul_maps_transpose_b
// CHECK: linalg.matmul indexing_maps = {{.*}} {sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 16, k : 4], operands = [sparse(i, k), dense(j, k), out(i, j)], type = f32,
func.func @matmul_maps_transpose_b(%a: tensor<8x4xf32, #CSR>,
                                   %b: tensor<16x4xf32>,
                                   %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.matmul
      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                       affine_map<(d0, d1, d2) -> (d1, d2)>,
                       affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<16x4xf32>)
      outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// linalg.contract with the same maps is the same kernel.
// CHECK-LABEL: func.func @contract_transpose_b
// CHECK: linalg.contract {{.*}}sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 16, k : 4], operands = [sparse(i, k), dense(j, k), out(i, j)], type = f32,
func.func @contract_transpose_b(%a: tensor<8x4xf32, #CSR>, %b: tensor<16x4xf32>,
                                %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.contract
      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                       affine_map<(d0, d1, d2) -> (d1, d2)>,
                       affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<16x4xf32>)
      outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// The linalg.generic equivalent of linalg.matmul, accumulator on the left and
// the product's factors swapped.
#spmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}
// CHECK-LABEL: func.func @generic_ijk
// CHECK: linalg.generic {{.*}} {sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 16, k : 4], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f64,
func.func @generic_ijk(%a: tensor<8x4xf64, #CSR>, %b: tensor<4x16xf64>,
                       %c: tensor<8x16xf64>) -> tensor<8x16xf64> {
  %0 = linalg.generic #spmm
      ins(%a, %b : tensor<8x4xf64, #CSR>, tensor<4x16xf64>)
      outs(%c : tensor<8x16xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64):
    %p = arith.mulf %y, %x : f64
    %s = arith.addf %z, %p : f64
    linalg.yield %s : f64
  } -> tensor<8x16xf64>
  return %0 : tensor<8x16xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Loop order (k, i, j): d0 is the reduction. The roles follow the loops in
// their current order, so the loop order reported is k, i, j.
#spmm_kij = {
  indexing_maps = [affine_map<(k, i, j) -> (i, k)>,
                   affine_map<(k, i, j) -> (k, j)>,
                   affine_map<(k, i, j) -> (i, j)>],
  iterator_types = ["reduction", "parallel", "parallel"]
}
// CHECK-LABEL: func.func @generic_kij
// CHECK: sptune.kernel<spmm, loops = [k : 4, i : 8, j : 16], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32,
func.func @generic_kij(%a: tensor<8x4xf32, #CSR>, %b: tensor<4x16xf32>,
                       %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.generic #spmm_kij
      ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<4x16xf32>)
      outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %p, %z : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Loop order (j, k, i).
#spmm_jki = {
  indexing_maps = [affine_map<(j, k, i) -> (i, k)>,
                   affine_map<(j, k, i) -> (k, j)>,
                   affine_map<(j, k, i) -> (i, j)>],
  iterator_types = ["parallel", "reduction", "parallel"]
}
// CHECK-LABEL: func.func @generic_jki
// CHECK: sptune.kernel<spmm, loops = [j : 16, k : 4, i : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32,
func.func @generic_jki(%a: tensor<8x4xf32, #CSR>, %b: tensor<4x16xf32>,
                       %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.generic #spmm_jki
      ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<4x16xf32>)
      outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// B transposed as a generic: C(i,j) += A(i,k) * B(j,k), dynamic sizes.
#spmm_bt = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (j, k)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}
// CHECK-LABEL: func.func @generic_transpose_b
// CHECK: sptune.kernel<spmm, loops = [i : ?, j : ?, k : ?], operands = [sparse(i, k), dense(j, k), out(i, j)], type = f32,
func.func @generic_transpose_b(%a: tensor<?x?xf32, #CSR>, %b: tensor<?x?xf32>,
                               %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.generic #spmm_bt
      ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?x?xf32>)
      outs(%c : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Sparse operand on the right, C = D * S: reported with canonical roles, the
// free dimension of S is `i`, so S is sparse(k, i) and the output out(j, i).
// CHECK-LABEL: func.func @matmul_sparse_right
// CHECK: linalg.matmul {sptune.kernel = #sptune.kernel<spmm, loops = [j : 8, i : 16, k : 4], operands = [dense(j, k), sparse(k, i), out(j, i)], type = f64,
func.func @matmul_sparse_right(%d: tensor<8x4xf64>, %s: tensor<4x16xf64, #CSR>,
                               %c: tensor<8x16xf64>) -> tensor<8x16xf64> {
  %0 = linalg.matmul ins(%d, %s : tensor<8x4xf64>, tensor<4x16xf64, #CSR>)
                     outs(%c : tensor<8x16xf64>) -> tensor<8x16xf64>
  return %0 : tensor<8x16xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Sparse on the right as a generic with the dense operand transposed:
// C(m,n) += D(k,m) * S(k,n).
#spmm_right = {
  indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                   affine_map<(m, n, k) -> (k, n)>,
                   affine_map<(m, n, k) -> (m, n)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}
// CHECK-LABEL: func.func @generic_sparse_right
// CHECK: sptune.kernel<spmm, loops = [j : 8, i : 16, k : 4], operands = [dense(k, j), sparse(k, i), out(j, i)], type = f32,
func.func @generic_sparse_right(%d: tensor<4x8xf32>, %s: tensor<4x16xf32, #CSR>,
                                %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.generic #spmm_right
      ins(%d, %s : tensor<4x8xf32>, tensor<4x16xf32, #CSR>)
      outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s2 = arith.addf %z, %p : f32
    linalg.yield %s2 : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Two kernels in one function are both annotated; the dense op in between is
// left alone.
// CHECK-LABEL: func.func @two_kernels
// CHECK: linalg.matmul {sptune.kernel = #sptune.kernel<spmm,
// CHECK: linalg.matmul ins(
// CHECK-NOT: sptune.kernel
// CHECK: linalg.matmul {sptune.kernel = #sptune.kernel<spmm,
func.func @two_kernels(%a: tensor<8x8xf32, #CSR>, %b: tensor<8x8xf32>,
                       %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x8xf32>)
                     outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.matmul ins(%0, %b : tensor<8x8xf32>, tensor<8x8xf32>)
                     outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %2 = linalg.matmul ins(%a, %1 : tensor<8x8xf32, #CSR>, tensor<8x8xf32>)
                     outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}
