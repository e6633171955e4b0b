// RUN: sptune-opt %s --sptune-extract-kernels -split-input-file -verify-diagnostics \
// RUN:   | FileCheck %s --implicit-check-not=sptune.kernel
// RUN: sptune-opt %s --sptune-extract-kernels=remarks=false -split-input-file 2>&1 \
// RUN:   | FileCheck %s --check-prefix=QUIET --implicit-check-not="remark:" --implicit-check-not=sptune.kernel

// Sparse linalg ops that must NOT be recognized: each gets a remark saying
// why and no #sptune.kernel. Dense ops get neither. With remarks=false the
// remarks are gone too. (MLIR 22's -split-input-file reports unmet
// expected-remark lines even without -verify-diagnostics, as `error: expected
// remark "..."` with exit code 0; a real remark prints as `remark:`.)

// QUIET-LABEL: func.func @add_only
// QUIET-LABEL: func.func @dense_generic

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#spmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// Sum instead of product: C(i,j) += A(i,k) + B(k,j).
// CHECK-LABEL: func.func @add_only
func.func @add_only(%a: tensor<8x4xf32, #CSR>, %b: tensor<4x16xf32>,
                    %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-remark @below {{sptune: not a recognized sparse kernel: body is not a multiply-accumulate}}
  %0 = linalg.generic #spmm
      ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<4x16xf32>)
      outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.addf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#spmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// Max-times semiring: C(i,j) = max(C(i,j), A(i,k) * B(k,j)).
// CHECK-LABEL: func.func @max_times
func.func @max_times(%a: tensor<8x4xf32, #CSR>, %b: tensor<4x16xf32>,
                     %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-remark @below {{body is not a multiply-accumulate}}
  %0 = linalg.generic #spmm
      ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<4x16xf32>)
      outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.maximumf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#spmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// Scales that are not invariant factors: a divisor that may be zero (a
// function argument: upstream's sparsifier does not divide by it), a
// division by zero, a factor computed from the inputs in the body, and a
// scale added rather than multiplied.
// CHECK-LABEL: func.func @not_invariant_scales
func.func @not_invariant_scales(%a: tensor<8x4xf32, #CSR>, %b: tensor<4x16xf32>,
                                %c: tensor<8x16xf32>, %alpha: f32) -> tensor<8x16xf32> {
  // expected-remark @below {{body is not a multiply-accumulate}}
  %0 = linalg.generic #spmm
      ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<4x16xf32>)
      outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.divf %p, %alpha : f32
    %s = arith.addf %z, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  // expected-remark @below {{body is not a multiply-accumulate}}
  %1 = linalg.generic #spmm
      ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<4x16xf32>)
      outs(%0 : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %zero = arith.constant 0.0 : f32
    %p = arith.mulf %x, %y : f32
    %q = arith.divf %p, %zero : f32
    %s = arith.addf %z, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  // expected-remark @below {{body is not a multiply-accumulate}}
  %2 = linalg.generic #spmm
      ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<4x16xf32>)
      outs(%1 : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %t = arith.addf %x, %alpha : f32
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %t : f32
    %s = arith.addf %z, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  // expected-remark @below {{body is not a multiply-accumulate}}
  %3 = linalg.generic #spmm
      ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<4x16xf32>)
      outs(%2 : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.addf %p, %alpha : f32
    %s = arith.addf %z, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %3 : tensor<8x16xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#spmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// Multiply without accumulating into the output.
// CHECK-LABEL: func.func @mul_no_accumulate
func.func @mul_no_accumulate(%a: tensor<8x4xf32, #CSR>, %b: tensor<4x16xf32>,
                             %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-remark @below {{body is not a multiply-accumulate}}
  %0 = linalg.generic #spmm
      ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<4x16xf32>)
      outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#spmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// Multiply-subtract, and a product that squares one input.
// CHECK-LABEL: func.func @mul_sub_and_square
func.func @mul_sub_and_square(%a: tensor<8x4xf32, #CSR>, %b: tensor<4x16xf32>,
                              %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-remark @below {{body is not a multiply-accumulate}}
  %0 = linalg.generic #spmm
      ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<4x16xf32>)
      outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.subf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  // expected-remark @below {{body is not a multiply-accumulate}}
  %1 = linalg.generic #spmm
      ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<4x16xf32>)
      outs(%0 : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %x : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Right body, wrong maps: C(i,j) += A(i,k) * B(k,i) is no matrix product.
#wrong = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, i)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}
// CHECK-LABEL: func.func @wrong_maps
func.func @wrong_maps(%a: tensor<8x8xf32, #CSR>, %b: tensor<8x8xf32>,
                      %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-remark @below {{indexing maps do not form a matrix product}}
  %0 = linalg.generic #wrong
      ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x8xf32>)
      outs(%c : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// The reduction loop indexes the dense operand only: C(i,j) += A(i,j) * B(k,j).
#no_k_in_sparse = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}
// CHECK-LABEL: func.func @reduction_not_in_sparse
func.func @reduction_not_in_sparse(%a: tensor<8x8xf32, #CSR>,
                                   %b: tensor<8x8xf32>,
                                   %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-remark @below {{indexing maps do not form a matrix product}}
  %0 = linalg.generic #no_k_in_sparse
      ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x8xf32>)
      outs(%c : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Element-wise multiply-accumulate (no reduction loop) and a double
// reduction C(i) += A(i,k) * B(k,j).
#eltwise = {
  indexing_maps = [affine_map<(i, j) -> (i, j)>,
                   affine_map<(i, j) -> (i, j)>,
                   affine_map<(i, j) -> (i, j)>],
  iterator_types = ["parallel", "parallel"]
}
#two_reductions = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i)>],
  iterator_types = ["parallel", "reduction", "reduction"]
}
// CHECK-LABEL: func.func @reduction_count
func.func @reduction_count(%a: tensor<8x8xf32, #CSR>, %b: tensor<8x8xf32>,
                           %c: tensor<8x8xf32>,
                           %y: tensor<8xf32>) -> (tensor<8x8xf32>, tensor<8xf32>) {
  // expected-remark @below {{expected exactly one reduction loop, found 0}}
  %0 = linalg.generic #eltwise
      ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x8xf32>)
      outs(%c : tensor<8x8xf32>) {
  ^bb0(%x: f32, %w: f32, %z: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  // expected-remark @below {{expected exactly one reduction loop, found 2}}
  %1 = linalg.generic #two_reductions
      ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x8xf32>)
      outs(%y : tensor<8xf32>) {
  ^bb0(%x: f32, %w: f32, %z: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %0, %1 : tensor<8x8xf32>, tensor<8xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// A map that is not a projected permutation (a broadcast of a constant row).
#broadcast = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (0, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}
// CHECK-LABEL: func.func @not_projected_permutation
func.func @not_projected_permutation(%a: tensor<8x8xf32, #CSR>,
                                     %b: tensor<1x8xf32>,
                                     %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-remark @below {{indexing maps are not projected permutations}}
  %0 = linalg.generic #broadcast
      ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<1x8xf32>)
      outs(%c : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Four loops on matrices: C(i,j) += A(i,k) * B(k,l).
#four_loops = {
  indexing_maps = [affine_map<(i, j, k, l) -> (i, k)>,
                   affine_map<(i, j, k, l) -> (k, l)>,
                   affine_map<(i, j, k, l) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction", "parallel"]
}
// CHECK-LABEL: func.func @four_loops
func.func @four_loops(%a: tensor<8x4xf32, #CSR>, %b: tensor<4x16xf32>,
                      %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-remark @below {{expected 2 or 3 loops, found 4}}
  %0 = linalg.generic #four_loops
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

#C3 = #sparse_tensor.encoding<{
  map = (b, i, j) -> (b : dense, i : dense, j : compressed)
}>

// A batched SpMM into the caller's C: the kernel type `batched_spmm` only
// when its C starts from a fill of a fresh tensor (BatchedSpmmForm.h).
// CHECK-LABEL: func.func @batch_matmul
func.func @batch_matmul(%a: tensor<2x8x4xf32, #C3>, %b: tensor<2x4x16xf32>,
                        %c: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  // expected-remark @below {{a batched SpMM that sptune's kernel does not compute: its output does not start from a linalg.fill of a fresh tensor}}
  %0 = linalg.batch_matmul
      ins(%a, %b : tensor<2x8x4xf32, #C3>, tensor<2x4x16xf32>)
      outs(%c : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

// Other products of 3-D tensors (here sparse ⊙ dense) have no kernel type.
// CHECK-LABEL: func.func @tensor_product
func.func @tensor_product(%a: tensor<2x8x4xf32, #C3>, %b: tensor<2x8x4xf32>,
                          %c: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  // expected-remark @below {{operand #0 has rank 3 (only matrices and vectors are supported)}}
  %0 = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b : tensor<2x8x4xf32, #C3>, tensor<2x8x4xf32>)
      outs(%c : tensor<2x8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// SpGEMM: both inputs sparse.
// CHECK-LABEL: func.func @spgemm
func.func @spgemm(%a: tensor<8x4xf64, #CSR>, %b: tensor<4x16xf64, #CSR>,
                  %c: tensor<8x16xf64>) -> tensor<8x16xf64> {
  // expected-remark @below {{both inputs are sparse, and this sparse x sparse product is not tuned: its result: it is not a sparse tensor}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x4xf64, #CSR>, tensor<4x16xf64, #CSR>)
                     outs(%c : tensor<8x16xf64>) -> tensor<8x16xf64>
  return %0 : tensor<8x16xf64>
}

// -----

#SV = #sparse_tensor.encoding<{ map = (i) -> (i : compressed) }>

// Dense matrix times sparse vector.
// CHECK-LABEL: func.func @sparse_vector
func.func @sparse_vector(%a: tensor<8x4xf32>, %x: tensor<4xf32, #SV>,
                         %y: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark @below {{sparse vector operand (only sparse matrices are supported)}}
  %0 = linalg.matvec ins(%a, %x : tensor<8x4xf32>, tensor<4xf32, #SV>)
                     outs(%y : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

#SV = #sparse_tensor.encoding<{ map = (i) -> (i : compressed) }>

// Sparse dot product: the output is a scalar tensor.
// CHECK-LABEL: func.func @sparse_dot
func.func @sparse_dot(%a: tensor<8xf32, #SV>, %b: tensor<8xf32>,
                      %c: tensor<f32>) -> tensor<f32> {
  // expected-remark @below {{operand #2 has rank 0 (only matrices and vectors are supported)}}
  %0 = linalg.dot ins(%a, %b : tensor<8xf32, #SV>, tensor<8xf32>)
                  outs(%c : tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Odd-width integer and mixed-precision products (i8 to i64, f16 to f64
// are kernels).
// CHECK-LABEL: func.func @element_types
func.func @element_types(%a: tensor<8x4xi4, #CSR>, %b: tensor<4x16xi4>,
                         %c: tensor<8x16xi4>, %af: tensor<8x4xf32, #CSR>,
                         %bf: tensor<4x16xf32>,
                         %cd: tensor<8x16xf64>) -> (tensor<8x16xi4>, tensor<8x16xf64>) {
  // expected-remark @below {{element type i4 is not f16, bf16, f32, f64, i8, i16, i32 or i64}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x4xi4, #CSR>, tensor<4x16xi4>)
                     outs(%c : tensor<8x16xi4>) -> tensor<8x16xi4>
  // expected-remark @below {{operands have different element types}}
  %1 = linalg.matmul ins(%af, %bf : tensor<8x4xf32, #CSR>, tensor<4x16xf32>)
                     outs(%cd : tensor<8x16xf64>) -> tensor<8x16xf64>
  return %0, %1 : tensor<8x16xi4>, tensor<8x16xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Sparse outputs that are not sampled: an SpMM writing a sparse result and a
// dense product written into a sparse tensor.
// CHECK-LABEL: func.func @unsampled_sparse_out
func.func @unsampled_sparse_out(%a: tensor<8x4xf32, #CSR>, %d: tensor<8x4xf32>,
                                %b: tensor<4x16xf32>)
    -> (tensor<8x16xf32, #CSR>, tensor<8x16xf32, #CSR>) {
  %e = tensor.empty() : tensor<8x16xf32, #CSR>
  // expected-remark @below {{sparse output of an unsampled product (only an SDDMM may write a sparse output)}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<4x16xf32>)
                     outs(%e : tensor<8x16xf32, #CSR>) -> tensor<8x16xf32, #CSR>
  // expected-remark @below {{sparse output of a product of dense inputs that is not sampled}}
  %1 = linalg.matmul ins(%d, %b : tensor<8x4xf32>, tensor<4x16xf32>)
                     outs(%e : tensor<8x16xf32, #CSR>) -> tensor<8x16xf32, #CSR>
  return %0, %1 : tensor<8x16xf32, #CSR>, tensor<8x16xf32, #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#CSC = #sparse_tensor.encoding<{ map = (i, j) -> (j : dense, i : compressed) }>
#sddmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>,
                   affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// SDDMM whose sparse output does not share the sampling matrix's encoding.
// CHECK-LABEL: func.func @sddmm_other_encoding
func.func @sddmm_other_encoding(%s: tensor<8x8xf64, #CSR>, %a: tensor<8x8xf64>,
                                %b: tensor<8x8xf64>) -> tensor<8x8xf64, #CSC> {
  %e = tensor.empty() : tensor<8x8xf64, #CSC>
  // expected-remark @below {{sparse output does not share the encoding of the sampling matrix}}
  %0 = linalg.generic #sddmm
      ins(%s, %a, %b : tensor<8x8xf64, #CSR>, tensor<8x8xf64>, tensor<8x8xf64>)
      outs(%e : tensor<8x8xf64, #CSC>) {
  ^bb0(%sv: f64, %av: f64, %bv: f64, %xv: f64):
    %p = arith.mulf %av, %bv : f64
    %q = arith.mulf %sv, %p : f64
    %r = arith.addf %xv, %q : f64
    linalg.yield %r : f64
  } -> tensor<8x8xf64, #CSC>
  return %0 : tensor<8x8xf64, #CSC>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#abs = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>,
                   affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// Three inputs where the sparse one is a factor of the product, not the
// sampling matrix: X(i,j) += D(i,j) * A(i,k) * B(k,j) with A sparse.
// CHECK-LABEL: func.func @sddmm_sparse_factor
func.func @sddmm_sparse_factor(%d: tensor<8x8xf32>, %a: tensor<8x8xf32, #CSR>,
                               %b: tensor<8x8xf32>,
                               %x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-remark @below {{three-input product whose sparse input is not the sampling matrix}}
  %0 = linalg.generic #abs
      ins(%d, %a, %b : tensor<8x8xf32>, tensor<8x8xf32, #CSR>, tensor<8x8xf32>)
      outs(%x : tensor<8x8xf32>) {
  ^bb0(%dv: f32, %av: f32, %bv: f32, %xv: f32):
    %p = arith.mulf %av, %bv : f32
    %q = arith.mulf %dv, %p : f32
    %r = arith.addf %xv, %q : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#trait_SDDMM = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// Spy bodies that are not the sampled multiply-accumulate: a product
// reduction, and a reduction whose identity is not zero.
// CHECK-LABEL: func.func @spy_wrong_reduce
func.func @spy_wrong_reduce(%args: tensor<?x?xf32, #CSR>, %arga: tensor<?x?xf32>,
                            %argb: tensor<?x?xf32>) -> tensor<?x?xf32, #CSR> {
  // expected-remark @below {{sparse_tensor.reduce body is not the sampled multiply-accumulate of an SDDMM}}
  %0 = linalg.generic #trait_SDDMM
    ins(%arga, %argb : tensor<?x?xf32>, tensor<?x?xf32>)
    outs(%args : tensor<?x?xf32, #CSR>) {
      ^bb(%a: f32, %b: f32, %s: f32):
         %f1 = arith.constant 1.0 : f32
         %u = sparse_tensor.unary %s : f32 to f32
           present = {
              ^bb0(%p: f32):
                %mul = arith.mulf %a, %b : f32
                sparse_tensor.yield %mul : f32
           }
           absent = {}
         %r = sparse_tensor.reduce %s, %u, %f1 : f32 {
            ^bb0(%p: f32, %q: f32):
              %m = arith.mulf %p, %q : f32
              sparse_tensor.yield %m : f32
          }
         linalg.yield %r : f32
    } -> tensor<?x?xf32, #CSR>
  // expected-remark @below {{sparse_tensor.reduce body is not the sampled multiply-accumulate of an SDDMM}}
  %1 = linalg.generic #trait_SDDMM
    ins(%arga, %argb : tensor<?x?xf32>, tensor<?x?xf32>)
    outs(%0 : tensor<?x?xf32, #CSR>) {
      ^bb(%a: f32, %b: f32, %s: f32):
         %f1 = arith.constant 1.0 : f32
         %u = sparse_tensor.unary %s : f32 to f32
           present = {
              ^bb0(%p: f32):
                %mul = arith.mulf %a, %b : f32
                sparse_tensor.yield %mul : f32
           }
           absent = {}
         %r = sparse_tensor.reduce %s, %u, %f1 : f32 {
            ^bb0(%p: f32, %q: f32):
              %add = arith.addf %p, %q : f32
              sparse_tensor.yield %add : f32
          }
         linalg.yield %r : f32
    } -> tensor<?x?xf32, #CSR>
  return %1 : tensor<?x?xf32, #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#trait_SDDMM = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// Spy bodies that fill in absent entries with a constant (not sampled), and that sample with
// a sparse input as well (sparse x sparse).
// CHECK-LABEL: func.func @spy_not_sampled
func.func @spy_not_sampled(%args: tensor<?x?xf32, #CSR>, %arga: tensor<?x?xf32>,
                           %argb: tensor<?x?xf32>,
                           %sa: tensor<?x?xf32, #CSR>) -> tensor<?x?xf32, #CSR> {
  %one = arith.constant 1.0 : f32
  // expected-remark @below {{sparse_tensor.reduce body is not the sampled multiply-accumulate of an SDDMM}}
  %0 = linalg.generic #trait_SDDMM
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
           absent = {
                sparse_tensor.yield %one : f32
           }
         %r = sparse_tensor.reduce %s, %u, %f0 : f32 {
            ^bb0(%p: f32, %q: f32):
              %add = arith.addf %p, %q : f32
              sparse_tensor.yield %add : f32
          }
         linalg.yield %r : f32
    } -> tensor<?x?xf32, #CSR>
  // expected-remark @below {{sampling body on operands that do not form an SDDMM}}
  %1 = linalg.generic #trait_SDDMM
    ins(%sa, %argb : tensor<?x?xf32, #CSR>, tensor<?x?xf32>)
    outs(%0 : tensor<?x?xf32, #CSR>) {
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
  return %1 : tensor<?x?xf32, #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Ops on sparse tensors that are no products at all.
// CHECK-LABEL: func.func @not_products
func.func @not_products(%a: tensor<8x4xf32, #CSR>, %t: tensor<4x8xf32>,
                        %e: tensor<8x4xf32, #CSR>) -> (tensor<4x8xf32>, tensor<8x4xf32, #CSR>) {
  %z = arith.constant 0.0 : f32
  // expected-remark @below {{body is not a multiply-accumulate}}
  %0 = linalg.transpose ins(%a : tensor<8x4xf32, #CSR>) outs(%t : tensor<4x8xf32>)
                        permutation = [1, 0]
  // expected-remark @below {{operand #0 is not a ranked tensor}}
  %1 = linalg.fill ins(%z : f32) outs(%e : tensor<8x4xf32, #CSR>) -> tensor<8x4xf32, #CSR>
  return %0, %1 : tensor<4x8xf32>, tensor<8x4xf32, #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// An empty matrix: the product matches, but #sptune.kernel has no zero-size
// loops, so the attribute verifier's message becomes the reason (a remark,
// not an error).
// CHECK-LABEL: func.func @zero_size_loop
func.func @zero_size_loop(%a: tensor<0x4xf32, #CSR>, %b: tensor<4x16xf32>,
                          %c: tensor<0x16xf32>) -> tensor<0x16xf32> {
  // expected-remark @below {{kernel description failed verification: loop size must be positive or '?', got 0}}
  %0 = linalg.matmul ins(%a, %b : tensor<0x4xf32, #CSR>, tensor<4x16xf32>)
                     outs(%c : tensor<0x16xf32>) -> tensor<0x16xf32>
  return %0 : tensor<0x16xf32>
}

// -----

// Dense ops, on tensors and on buffers, are left alone: no remark (checked by
// -verify-diagnostics) and no attribute.
#spmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}
// CHECK-LABEL: func.func @dense_generic
// CHECK: linalg.generic
// CHECK: linalg.matmul
// CHECK: linalg.matvec
// CHECK: linalg.matmul ins({{.*}} : memref
func.func @dense_generic(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>,
                         %c: tensor<8x16xf32>, %x: tensor<4xf32>,
                         %y: tensor<8xf32>, %ma: memref<8x4xf32>,
                         %mb: memref<4x16xf32>, %mc: memref<8x16xf32>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>) {
  %0 = linalg.generic #spmm
      ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>)
      outs(%c : tensor<8x16xf32>) {
  ^bb0(%p: f32, %q: f32, %r: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %r, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>)
                     outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  %2 = linalg.matvec ins(%a, %x : tensor<8x4xf32>, tensor<4xf32>)
                     outs(%y : tensor<8xf32>) -> tensor<8xf32>
  linalg.matmul ins(%ma, %mb : memref<8x4xf32>, memref<4x16xf32>)
                outs(%mc : memref<8x16xf32>)
  return %0, %1, %2 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>
}
