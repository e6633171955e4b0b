// REQUIRES: cuda-device, ptxas
// Executed on the GPU from a cubin (ptxas at compile time, mgpuModuleLoad at
// run time) instead of PTX JIT-compiled by the driver.
//
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm="format=bin chip=%cuda_chip features=%cuda_ptx" | env SPTUNE_CUDA_ABORT_ON_ERROR=1 mlir-runner -e main -entry-point-result=void -shared-libs=%sptune_cuda_runtime,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 | FileCheck %s
//
// CHECK-NOT: sptune-cuda-runtime
// CHECK: ( 3, 0, 3, 9, 3, -2, 1.5, 0.5 )

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

module {
  func.func @spmv(%a: tensor<8x8xf64, #CSR>, %x: tensor<8xf64>, %y: tensor<8xf64>) -> tensor<8xf64> {
    %0 = linalg.matvec {sptune.kernel = #sptune.kernel<spmv, loops = [i : 8, k : 8], operands = [sparse(i, k), dense(k), out(i)], type = f64, encoding = #CSR>, sptune.schedule = #sptune.schedule<nvvm spmv, threads = 4>}
      ins(%a, %x : tensor<8x8xf64, #CSR>, tensor<8xf64>) outs(%y : tensor<8xf64>) -> tensor<8xf64>
    return %0 : tensor<8xf64>
  }

  func.func @main() {
    %d = arith.constant dense<[[1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5], [0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0]]> : tensor<8x8xf64>
    %a = sparse_tensor.convert %d : tensor<8x8xf64> to tensor<8x8xf64, #CSR>
    %x = arith.constant dense<1.0> : tensor<8xf64>
    %y = arith.constant dense<0.0> : tensor<8xf64>
    %r = call @spmv(%a, %x, %y) : (tensor<8x8xf64, #CSR>, tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f64
    %v = vector.transfer_read %r[%c0], %z : tensor<8xf64>, vector<8xf64>
    vector.print %v : vector<8xf64>
    bufferization.dealloc_tensor %a : tensor<8x8xf64, #CSR>
    return
  }
}
