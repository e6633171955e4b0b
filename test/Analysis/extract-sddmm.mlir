// RUN: sptune-opt %s --sptune-extract-kernels -split-input-file -verify-diagnostics | FileCheck %s

// SDDMM X(i,j) = S(i,j) * sum_k A(i,k) * B(k,j) in the three forms upstream
// MLIR uses. `i`, `j` are the sampled (sparse) dimensions, `k` the reduction.
// No remark is expected in this file.

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Form 1 (mlir/test/Integration/Dialect/SparseTensor/CPU/
// sparse_sampled_matmul.mlir): sparse sampling input, dense output.
#sddmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>,
                   affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}
// CHECK: #[[CSR:.+]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
// CHECK-LABEL: func.func @dense_out_f32
// CHECK: linalg.generic {{.*}}sptune.kernel = #sptune.kernel<sddmm, loops = [i : 32, j : 16, k : 8], operands = [sparse(i, j), dense(i, k), dense(k, j), out(i, j)], type = f32, encoding = #[[CSR]]>}
func.func @dense_out_f32(%s: tensor<32x16xf32, #CSR>, %a: tensor<32x8xf32>,
                         %b: tensor<8x16xf32>,
                         %x: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %0 = linalg.generic #sddmm
      ins(%s, %a, %b : tensor<32x16xf32, #CSR>, tensor<32x8xf32>,
                       tensor<8x16xf32>)
      outs(%x : tensor<32x16xf32>) {
  ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
    %p = arith.mulf %av, %bv : f32
    %q = arith.mulf %sv, %p : f32
    %r = arith.addf %xv, %q : f32
    linalg.yield %r : f32
  } -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Form 2 (upstream sparse_sampled_mm_fusion.mlir): the output is a new sparse
// tensor with the encoding of S, so it shares S's sampling pattern.
#sddmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>,
                   affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}
// CHECK-LABEL: func.func @sparse_out_f64
// CHECK: sptune.kernel = #sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 8], operands = [sparse(i, j), dense(i, k), dense(k, j), sparse_out(i, j)], type = f64,
func.func @sparse_out_f64(%s: tensor<8x8xf64, #CSR>, %a: tensor<8x8xf64>,
                          %b: tensor<8x8xf64>) -> tensor<8x8xf64, #CSR> {
  %e = tensor.empty() : tensor<8x8xf64, #CSR>
  %0 = linalg.generic #sddmm
      ins(%s, %a, %b : tensor<8x8xf64, #CSR>, tensor<8x8xf64>, tensor<8x8xf64>)
      outs(%e : tensor<8x8xf64, #CSR>) {
  ^bb0(%sv: f64, %av: f64, %bv: f64, %xv: f64):
    %p = arith.mulf %av, %bv : f64
    %q = arith.mulf %sv, %p : f64
    %r = arith.addf %xv, %q : f64
    linalg.yield %r : f64
  } -> tensor<8x8xf64, #CSR>
  return %0 : tensor<8x8xf64, #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Form 3 (upstream GPU/CUDA/sparse-sddmm-lib.mlir): in-place update of the
// sampling matrix through a "spy" body, ins(A, B) outs(S).
#trait_SDDMM = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}
// CHECK-LABEL: func.func @spy_csr_dynamic
// CHECK: sptune.kernel = #sptune.kernel<sddmm, loops = [i : ?, j : ?, k : ?], operands = [dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #{{[a-z0-9_]+}}>}
func.func @spy_csr_dynamic(%args: tensor<?x?xf32, #CSR>, %arga: tensor<?x?xf32>,
                           %argb: tensor<?x?xf32>) -> tensor<?x?xf32, #CSR> {
  %result = linalg.generic #trait_SDDMM
    ins(%arga, %argb : tensor<?x?xf32>, tensor<?x?xf32>)
    outs(%args : tensor<?x?xf32, #CSR>) {
      ^bb(%a: f32, %b: f32, %s: f32):
         %f0 = arith.constant 0.0 : f32
         %u = sparse_tensor.unary %s : f32 to f32
           present = {
              ^bb0(%p: f32):
                %mul = arith.mulf %a, %b : f32
                sparse_tensor.yield %mul : f32
           }
           absent = {}
         %r = sparse_tensor.reduce %s, %u, %f0 : f32 {
            ^bb0(%p: f32, %q: f32):
              %add = arith.addf %p, %q : f32
              sparse_tensor.yield %add : f32
          }
         linalg.yield %r : f32
    } -> tensor<?x?xf32, #CSR>
  return %result : tensor<?x?xf32, #CSR>
}

// -----

#BSR = #sparse_tensor.encoding<{
  map = (i, j) -> (i floordiv 2 : dense, j floordiv 2 : compressed,
                   i mod 2 : dense, j mod 2 : dense)
}>

// The same spy form on a block-sparse (BSR) matrix, f64, static sizes; the
// encoding is the output's.
#trait_SDDMM = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}
// CHECK: #[[BSR:.+]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 floordiv 2 : dense, d1 floordiv 2 : compressed, d0 mod 2 : dense, d1 mod 2 : dense) }>
// CHECK-LABEL: func.func @spy_bsr_static
// CHECK: sptune.kernel = #sptune.kernel<sddmm, loops = [i : 4, j : 6, k : 4], operands = [dense(i, k), dense(k, j), sparse_out(i, j)], type = f64, encoding = #[[BSR]]>}
func.func @spy_bsr_static(%args: tensor<4x6xf64, #BSR>, %arga: tensor<4x4xf64>,
                          %argb: tensor<4x6xf64>) -> tensor<4x6xf64, #BSR> {
  %result = linalg.generic #trait_SDDMM
    ins(%arga, %argb : tensor<4x4xf64>, tensor<4x6xf64>)
    outs(%args : tensor<4x6xf64, #BSR>) {
      ^bb(%a: f64, %b: f64, %s: f64):
         %f0 = arith.constant 0.0 : f64
         %u = sparse_tensor.unary %s : f64 to f64
           present = {
              ^bb0(%p: f64):
                %mul = arith.mulf %a, %b : f64
                sparse_tensor.yield %mul : f64
           }
           absent = {}
         %r = sparse_tensor.reduce %s, %u, %f0 : f64 {
            ^bb0(%p: f64, %q: f64):
              %add = arith.addf %p, %q : f64
              sparse_tensor.yield %add : f64
          }
         linalg.yield %r : f64
    } -> tensor<4x6xf64, #BSR>
  return %result : tensor<4x6xf64, #BSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Sampling matrix last, B transposed, loop order (k, i, j) and the product
// associated the other way: X(i,j) += (A(i,k) * S(i,j)) * B(j,k).
#sddmm_kij = {
  indexing_maps = [affine_map<(k, i, j) -> (i, k)>,
                   affine_map<(k, i, j) -> (j, k)>,
                   affine_map<(k, i, j) -> (i, j)>,
                   affine_map<(k, i, j) -> (i, j)>],
  iterator_types = ["reduction", "parallel", "parallel"]
}
// CHECK-LABEL: func.func @sampling_last_kij
// CHECK: sptune.kernel = #sptune.kernel<sddmm, loops = [k : 8, i : ?, j : 16], operands = [dense(i, k), dense(j, k), sparse(i, j), out(i, j)], type = f32,
func.func @sampling_last_kij(%a: tensor<?x8xf32>, %b: tensor<16x8xf32>,
                             %s: tensor<?x16xf32, #CSR>,
                             %x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %0 = linalg.generic #sddmm_kij
      ins(%a, %b, %s : tensor<?x8xf32>, tensor<16x8xf32>,
                       tensor<?x16xf32, #CSR>)
      outs(%x : tensor<?x16xf32>) {
  ^bb0(%av: f32, %bv: f32, %sv: f32, %xv: f32):
    %p = arith.mulf %av, %sv : f32
    %q = arith.mulf %p, %bv : f32
    %r = arith.addf %q, %xv : f32
    linalg.yield %r : f32
  } -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}
