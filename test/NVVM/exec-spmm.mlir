// REQUIRES: cuda-device
// Executed on the GPU: SpMM through sparse GPU code generation (CSR, one
// and several blocks, the free loop outermost, 32-bit indices, block rows)
// and through cuSPARSE (CSR, CSC), through sptune's runtime
// (which aborts with a message on any CUDA error here); the numbers are
// A * B computed by hand (the same as test/Integration/cpu-formats-spmm).
//
// DEFINE: %{run} = env SPTUNE_CUDA_ABORT_ON_ERROR=1 mlir-runner -e main -entry-point-result=void -shared-libs=%sptune_cuda_runtime,%mlir_c_runner_utils,%mlir_runner_utils
// DEFINE: %{lower} = sptune-opt --sptune-apply-schedule --sptune-lower-nvvm
// DEFINE: %{target} = chip=%cuda_chip features=%cuda_ptx
//
// RUN: sed 's/SCHEDULE/nvvm spmm, threads = 32/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm spmm, threads = 2/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm spmm, threads = 2/' %s | %{lower}="%{target} blocks=1" | %{run} 2>&1 | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm spmm, order = [j, i, k], threads = 4/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm spmm, widths = [32, 32], threads = 8/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : dense], split = [2, 2], threads = 2/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm spmm, libgen = true/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm spmm, levels = [k : dense, i : compressed], libgen = true/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
//
// CHECK-NOT: sptune-cuda-runtime
// CHECK: ( ( 9, 39, 69, 99 ), ( 0, 0, 0, 0 ), ( 6, 36, 66, 96 ), ( 19, 109, 199, 289 ), ( 21, 51, 81, 111 ), ( -12, -32, -52, -72 ), ( 12, 27, 42, 57 ), ( 2.5, 7.5, 12.5, 17.5 ) )
// CHECK-NOT: sptune-cuda-runtime

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

module {
  func.func @spmm(%a: tensor<8x8xf32, #CSR>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = linalg.matmul {sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<SCHEDULE>}
      ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }

  func.func @main() {
    %d = arith.constant dense<[[1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5], [0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
    %a = sparse_tensor.convert %d : tensor<8x8xf32> to tensor<8x8xf32, #CSR>
    %b = arith.constant dense<[[1.0, 11.0, 21.0, 31.0], [2.0, 12.0, 22.0, 32.0], [3.0, 13.0, 23.0, 33.0], [4.0, 14.0, 24.0, 34.0], [5.0, 15.0, 25.0, 35.0], [6.0, 16.0, 26.0, 36.0], [7.0, 17.0, 27.0, 37.0], [8.0, 18.0, 28.0, 38.0]]> : tensor<8x4xf32>
    %c = arith.constant dense<0.0> : tensor<8x4xf32>
    %r = call @spmm(%a, %b, %c) : (tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %v = vector.transfer_read %r[%c0, %c0], %z : tensor<8x4xf32>, vector<8x4xf32>
    vector.print %v : vector<8x4xf32>
    bufferization.dealloc_tensor %a : tensor<8x8xf32, #CSR>
    return
  }
}
