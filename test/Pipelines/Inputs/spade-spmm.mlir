// A kernel with a SPADE schedule (for lower.mlir).
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
func.func @spmm(%a: tensor<512x512xf32, #CSR>, %b: tensor<512x64xf32>, %c: tensor<512x64xf32>) -> tensor<512x64xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 512, j : 64, k : 512], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<spade spmm, split = [32, 256], barrier = true>}
    ins(%a, %b : tensor<512x512xf32, #CSR>, tensor<512x64xf32>) outs(%c : tensor<512x64xf32>) -> tensor<512x64xf32>
  return %0 : tensor<512x64xf32>
}
