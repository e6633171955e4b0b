// An SpMV on the operand of autotune-west0067.mtx: SPADE has no SpMV, so
// sptune-autotune target=spade has no candidate for it
// (autotune-emit-run.test).

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmv(%a: tensor<67x67xf32, #CSR>, %x: tensor<67xf32>,
                %y: tensor<67xf32>) -> tensor<67xf32> {
  %0 = linalg.matvec ins(%a, %x : tensor<67x67xf32, #CSR>, tensor<67xf32>)
                     outs(%y : tensor<67xf32>) -> tensor<67xf32>
  return %0 : tensor<67xf32>
}
