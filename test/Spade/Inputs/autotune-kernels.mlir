// An SpMM and an SDDMM on the 67 x 67 operand of autotune-west0067.mtx
// (HB/west0067), for autotune-emit-run.test: tuned for SPADE, emitted as
// tile programs and run in spade-sim.

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

#sddmm = {
  indexing_maps = [
    affine_map<(i, j, k) -> (i, j)>,  // S (sampling, sparse)
    affine_map<(i, j, k) -> (i, k)>,  // A
    affine_map<(i, j, k) -> (k, j)>,  // B
    affine_map<(i, j, k) -> (i, j)>   // X (out)
  ],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// C(i,j) += A(i,k) * B(k,j), A sparse, N = 16.
func.func @spmm(%a: tensor<67x67xf32, #CSR>, %b: tensor<67x16xf32>,
                %c: tensor<67x16xf32>) -> tensor<67x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<67x67xf32, #CSR>, tensor<67x16xf32>)
                     outs(%c : tensor<67x16xf32>) -> tensor<67x16xf32>
  return %0 : tensor<67x16xf32>
}

// X(i,j) = S(i,j) * sum_k A(i,k) * B(k,j), K = 16.
func.func @sddmm(%s: tensor<67x67xf32, #CSR>, %a: tensor<67x16xf32>,
                 %b: tensor<16x67xf32>, %x: tensor<67x67xf32>) -> tensor<67x67xf32> {
  %0 = linalg.generic #sddmm
    ins(%s, %a, %b : tensor<67x67xf32, #CSR>, tensor<67x16xf32>, tensor<16x67xf32>)
    outs(%x : tensor<67x67xf32>) {
  ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
    %p = arith.mulf %av, %bv : f32
    %q = arith.mulf %sv, %p : f32
    %r = arith.addf %xv, %q : f32
    linalg.yield %r : f32
  } -> tensor<67x67xf32>
  return %0 : tensor<67x67xf32>
}
