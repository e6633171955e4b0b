// Input of row-order-invalid.mlir: an SpMV with reorder = rcm whose sparse
// argument names its matrix (MATRIX, replaced by the test), and a function
// whose 'sptune.row_order' names no global.
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmv(%a: tensor<8x8xf32, #CSR> {sptune.matrix = "MATRIX"}, %x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.matvec {sptune.kernel = #sptune.kernel<spmv, loops = [i : 8, k : 8], operands = [sparse(i, k), dense(k), out(i)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<cpu spmv, reorder = rcm>}
    ins(%a, %x : tensor<8x8xf32, #CSR>, tensor<8xf32>) outs(%y : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

func.func @named_order_missing() attributes {sptune.row_order = @nowhere} {
  return
}
