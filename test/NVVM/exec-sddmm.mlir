// REQUIRES: cuda-device
// Executed on the GPU: the in-place SDDMM S = S + spy(S) * (A B) through
// sparse GPU code generation (CSR, 64- and 32-bit indices) and through
// cuSPARSE (CSR, BSR 2x2), through sptune's runtime (which aborts with a
// message on any CUDA error here). S has two dense 2x2 blocks, so BSR stores
// no explicit zeros and all forms give the same numbers:
//   A B = ((1, 2, 4, 5), (3, 4, 10, 11), (5, 6, 16, 17), (7, 8, 22, 23)).
//
// DEFINE: %{run} = env SPTUNE_CUDA_ABORT_ON_ERROR=1 mlir-runner -e main -entry-point-result=void -shared-libs=%sptune_cuda_runtime,%mlir_c_runner_utils,%mlir_runner_utils
// DEFINE: %{lower} = sptune-opt --sptune-apply-schedule --sptune-lower-nvvm
// DEFINE: %{target} = chip=%cuda_chip features=%cuda_ptx
//
// RUN: sed 's/SCHEDULE/nvvm sddmm, order = [i, k, j], threads = 2/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm sddmm, order = [i, k, j], widths = [32, 32], threads = 64/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm sddmm, order = [i, k, j], libgen = true/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm sddmm, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [2, 2], order = [k, i1, j1, i0, j0], libgen = true/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
//
// CHECK-NOT: sptune-cuda-runtime
// CHECK: ( ( 2, 4, 0, 0 ), ( 6, 8, 0, 0 ), ( 0, 0, 21, 23 ), ( 0, 0, 29, 31 ) )
// CHECK-NOT: sptune-cuda-runtime

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#spy = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

module {
  func.func @sddmm(%s: tensor<4x4xf32, #CSR>, %a: tensor<4x2xf32>, %b: tensor<2x4xf32>) -> tensor<4x4xf32, #CSR> {
    %r = linalg.generic #spy ins(%a, %b : tensor<4x2xf32>, tensor<2x4xf32>) outs(%s : tensor<4x4xf32, #CSR>)
        attrs = {sptune.kernel = #sptune.kernel<sddmm, loops = [i : 4, j : 4, k : 2], operands = [dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>,
                 sptune.schedule = #sptune.schedule<SCHEDULE>} {
      ^bb0(%x: f32, %y: f32, %z: f32):
        %f0 = arith.constant 0.0 : f32
        %u = sparse_tensor.unary %z : f32 to f32
          present = {
            ^bb0(%p: f32):
              %m = arith.mulf %x, %y : f32
              sparse_tensor.yield %m : f32
          }
          absent = {}
        %q = sparse_tensor.reduce %z, %u, %f0 : f32 {
          ^bb0(%l: f32, %rr: f32):
            %add = arith.addf %l, %rr : f32
            sparse_tensor.yield %add : f32
        }
        linalg.yield %q : f32
    } -> tensor<4x4xf32, #CSR>
    return %r : tensor<4x4xf32, #CSR>
  }

  func.func @main() {
    %d = arith.constant dense<[[1.0, 2.0, 0.0, 0.0], [3.0, 4.0, 0.0, 0.0], [0.0, 0.0, 5.0, 6.0], [0.0, 0.0, 7.0, 8.0]]> : tensor<4x4xf32>
    %s = sparse_tensor.convert %d : tensor<4x4xf32> to tensor<4x4xf32, #CSR>
    %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
    %b = arith.constant dense<[[1.0, 0.0, 2.0, 1.0], [0.0, 1.0, 1.0, 2.0]]> : tensor<2x4xf32>
    %r = call @sddmm(%s, %a, %b) : (tensor<4x4xf32, #CSR>, tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32, #CSR>
    %dr = sparse_tensor.convert %r : tensor<4x4xf32, #CSR> to tensor<4x4xf32>
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %v = vector.transfer_read %dr[%c0, %c0], %z : tensor<4x4xf32>, vector<4x4xf32>
    vector.print %v : vector<4x4xf32>
    bufferization.dealloc_tensor %r : tensor<4x4xf32, #CSR>
    return
  }
}
