// Three sparse kernels as a user of an MLIR sparse compiler writes them:
// an SpMM (linalg.matmul with a CSR operand), an SDDMM (linalg.generic, the
// sampled form of upstream MLIR) and an SpMV (linalg.matvec).
//
//   sptune-opt examples/kernels.mlir --sptune-extract-kernels=report=- -o /dev/null

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

module {
  // C(i,j) += A(i,k) * B(k,j), A sparse (GNN aggregation, N = 64 features).
  func.func @spmm(%a: tensor<?x?xf32, #CSR>, %b: tensor<?x64xf32>,
                  %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
    %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?x64xf32>)
                       outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
    return %0 : tensor<?x64xf32>
  }

  // X(i,j) = S(i,j) * sum_k A(i,k) * B(k,j) (attention scores, K = 64).
  func.func @sddmm(%s: tensor<?x?xf32, #CSR>, %a: tensor<?x64xf32>,
                   %b: tensor<64x?xf32>, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %0 = linalg.generic #sddmm
      ins(%s, %a, %b : tensor<?x?xf32, #CSR>, tensor<?x64xf32>, tensor<64x?xf32>)
      outs(%x : tensor<?x?xf32>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %r = arith.addf %xv, %q : f32
      linalg.yield %r : f32
    } -> tensor<?x?xf32>
    return %0 : tensor<?x?xf32>
  }

  // y(i) += A(i,k) * x(k).
  func.func @spmv(%a: tensor<?x?xf64, #CSR>, %x: tensor<?xf64>,
                  %y: tensor<?xf64>) -> tensor<?xf64> {
    %0 = linalg.matvec ins(%a, %x : tensor<?x?xf64, #CSR>, tensor<?xf64>)
                       outs(%y : tensor<?xf64>) -> tensor<?xf64>
    return %0 : tensor<?xf64>
  }
}
