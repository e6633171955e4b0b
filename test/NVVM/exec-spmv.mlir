// REQUIRES: cuda-device
// Executed on the GPU: SpMV through sparse GPU code generation (CSR, one
// and several threads per block, 32-bit indices) and through cuSPARSE
// (cusparseSpMV on CSR and CSC), through sptune's runtime (which aborts with
// a message on any CUDA error here); y = A x computed by hand, the first
// column of exec-spmm.mlir's product (x = 1..8).
//
// DEFINE: %{run} = env SPTUNE_CUDA_ABORT_ON_ERROR=1 mlir-runner -e main -entry-point-result=void -shared-libs=%sptune_cuda_runtime,%mlir_c_runner_utils,%mlir_runner_utils
// DEFINE: %{lower} = sptune-opt --sptune-apply-schedule --sptune-lower-nvvm
// DEFINE: %{target} = chip=%cuda_chip features=%cuda_ptx
//
// RUN: sed 's/SCHEDULE/nvvm spmv, threads = 32/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm spmv, threads = 2/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm spmv, widths = [32, 32], threads = 4/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm spmv, libgen = true/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm spmv, widths = [32, 32], libgen = true/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm spmv, levels = [k : dense, i : compressed], libgen = true/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
//
// CHECK-NOT: sptune-cuda-runtime
// CHECK: ( 9, 0, 6, 19, 21, -12, 12, 2.5 )
// CHECK-NOT: sptune-cuda-runtime

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

module {
  func.func @spmv(%a: tensor<8x8xf32, #CSR>, %x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
    %0 = linalg.matvec {sptune.kernel = #sptune.kernel<spmv, loops = [i : 8, k : 8], operands = [sparse(i, k), dense(k), out(i)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<SCHEDULE>}
      ins(%a, %x : tensor<8x8xf32, #CSR>, tensor<8xf32>) outs(%y : tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }

  func.func @main() {
    %d = arith.constant dense<[[1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5], [0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
    %a = sparse_tensor.convert %d : tensor<8x8xf32> to tensor<8x8xf32, #CSR>
    %x = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
    %y = arith.constant dense<0.0> : tensor<8xf32>
    %r = call @spmv(%a, %x, %y) : (tensor<8x8xf32, #CSR>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %v = vector.transfer_read %r[%c0], %z : tensor<8xf32>, vector<8xf32>
    vector.print %v : vector<8xf32>
    bufferization.dealloc_tensor %a : tensor<8x8xf32, #CSR>
    return
  }
}
