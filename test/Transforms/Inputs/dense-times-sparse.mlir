// Dense x sparse: the sparse operand (100 x 200) is the right factor, so the
// kernel uses it transposed (test/Transforms/autotune-matrix-provenance.mlir).
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @dxs(%b: tensor<32x100xf32>, %a: tensor<100x200xf32, #CSR>, %c: tensor<32x200xf32>) -> tensor<32x200xf32> {
  %0 = linalg.matmul ins(%b, %a : tensor<32x100xf32>, tensor<100x200xf32, #CSR>) outs(%c : tensor<32x200xf32>) -> tensor<32x200xf32>
  return %0 : tensor<32x200xf32>
}
