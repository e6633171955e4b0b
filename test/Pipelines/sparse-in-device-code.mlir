// RUN: sptune-opt %s -verify-diagnostics --sptune-lower-cpu -o /dev/null
// RUN: sptune-opt %s -verify-diagnostics --sptune-lower-nvvm -o /dev/null
// RUN: sptune-opt %s -verify-diagnostics --sptune-check-sparse-in-host-code -o /dev/null

// A sparse kernel written inside a gpu.module (device code) is refused with
// the op and the module named; the sparsifier lowers host functions only
// and failed on it with an internal "failed to legalize unresolved
// materialization".

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

module attributes {gpu.container_module} {
  gpu.module @mykern {
    func.func @spmm(%a: tensor<64x64xf64, #CSR>, %b: tensor<64x16xf64>, %c: tensor<64x16xf64>) -> tensor<64x16xf64> {
      // expected-error @+1 {{sptune: a sparse tensor in device code (gpu.module @mykern); sparse kernels are compiled from host functions: write the kernel in a func.func outside the gpu.module, and the NVVM target outlines it to the GPU}}
      %0 = linalg.matmul ins(%a, %b : tensor<64x64xf64, #CSR>, tensor<64x16xf64>) outs(%c : tensor<64x16xf64>) -> tensor<64x16xf64>
      return %0 : tensor<64x16xf64>
    }
  }
}
