// REQUIRES: cuda-device
// Executed on the GPU: one module whose kernels take different paths — each
// keeps its own schedule's (issue 33). cuSPARSE and generated kernels
// share the module, in every combination, and one function holds an SDDMM
// and an SpMM on different paths; the numbers are those of exec-spmm,
// exec-sddmm and exec-spmv (computed by hand), and the SDDMM -> SpMM chain
// below.
//
// DEFINE: %{run} = env SPTUNE_CUDA_ABORT_ON_ERROR=1 mlir-runner -e main -entry-point-result=void -shared-libs=%sptune_cuda_runtime,%mlir_c_runner_utils,%mlir_runner_utils
// DEFINE: %{lower} = sptune-opt --sptune-apply-schedule --sptune-lower-nvvm
// DEFINE: %{target} = chip=%cuda_chip features=%cuda_ptx
//
// RUN: sed -e 's/SPMM/nvvm spmm, libgen = true/' -e 's/SDDMM/nvvm sddmm, order = [i, k, j], threads = 32/' -e 's/SPMV/nvvm spmv, threads = 32/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed -e 's/SPMM/nvvm spmm, order = [i, k, j], threads = 4/' -e 's/SDDMM/nvvm sddmm, order = [i, k, j], libgen = true/' -e 's/SPMV/nvvm spmv, libgen = true/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed -e 's/SPMM/nvvm spmm, threads = 8/' -e 's/SDDMM/nvvm sddmm, order = [i, k, j], libgen = true/' -e 's/SPMV/nvvm spmv, widths = [32, 32], threads = 2/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
// RUN: sed -e 's/SPMM/nvvm spmm, libgen = true/' -e 's/SDDMM/nvvm sddmm, order = [i, k, j], libgen = true/' -e 's/SPMV/nvvm spmv, libgen = true/' %s | %{lower}="%{target}" | %{run} 2>&1 | FileCheck %s
//
// CHECK-NOT: sptune-cuda-runtime
// CHECK: ( ( 9, 39, 69, 99 ), ( 0, 0, 0, 0 ), ( 6, 36, 66, 96 ), ( 19, 109, 199, 289 ), ( 21, 51, 81, 111 ), ( -12, -32, -52, -72 ), ( 12, 27, 42, 57 ), ( 2.5, 7.5, 12.5, 17.5 ) )
// CHECK-NEXT: ( ( 2, 4, 0, 0 ), ( 6, 8, 0, 0 ), ( 0, 0, 21, 23 ), ( 0, 0, 29, 31 ) )
// CHECK-NEXT: ( 9, 0, 6, 19, 21, -12, 12, 2.5 )
// The chain: X = S .* (A B) as above, then X * B2 with B2 = [[1, 1], [1, -1],
// [2, 0], [0, 2]]: rows (2+4, 2-4), (6+8, 6-8), (42, 46), (58, 62).
// CHECK-NEXT: ( ( 6, -2 ), ( 14, -2 ), ( 42, 46 ), ( 58, 62 ) )
// CHECK-NOT: sptune-cuda-runtime

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#spy = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

module {
  func.func @spmm(%a: tensor<8x8xf32, #CSR>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = linalg.matmul {sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<SPMM>}
      ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }

  func.func @sddmm(%s: tensor<4x4xf32, #CSR>, %a: tensor<4x2xf32>, %b: tensor<2x4xf32>) -> tensor<4x4xf32, #CSR> {
    %r = linalg.generic #spy ins(%a, %b : tensor<4x2xf32>, tensor<2x4xf32>) outs(%s : tensor<4x4xf32, #CSR>)
        attrs = {sptune.kernel = #sptune.kernel<sddmm, loops = [i : 4, j : 4, k : 2], operands = [dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>,
                 sptune.schedule = #sptune.schedule<SDDMM>} {
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

  func.func @spmv(%a: tensor<8x8xf32, #CSR>, %x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
    %0 = linalg.matvec {sptune.kernel = #sptune.kernel<spmv, loops = [i : 8, k : 8], operands = [sparse(i, k), dense(k), out(i)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<SPMV>}
      ins(%a, %x : tensor<8x8xf32, #CSR>, tensor<8xf32>) outs(%y : tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }

  /// An SDDMM and an SpMM in one function, each on its own path.
  func.func @chain(%s: tensor<4x4xf32, #CSR>, %a: tensor<4x2xf32>, %b: tensor<2x4xf32>, %b2: tensor<4x2xf32>, %c: tensor<4x2xf32>) -> tensor<4x2xf32> {
    %x = linalg.generic #spy ins(%a, %b : tensor<4x2xf32>, tensor<2x4xf32>) outs(%s : tensor<4x4xf32, #CSR>)
        attrs = {sptune.kernel = #sptune.kernel<sddmm, loops = [i : 4, j : 4, k : 2], operands = [dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>,
                 sptune.schedule = #sptune.schedule<SDDMM>} {
      ^bb0(%x0: f32, %y0: f32, %z0: f32):
        %f0 = arith.constant 0.0 : f32
        %u = sparse_tensor.unary %z0 : f32 to f32
          present = {
            ^bb0(%p: f32):
              %m = arith.mulf %x0, %y0 : f32
              sparse_tensor.yield %m : f32
          }
          absent = {}
        %q = sparse_tensor.reduce %z0, %u, %f0 : f32 {
          ^bb0(%l: f32, %rr: f32):
            %add = arith.addf %l, %rr : f32
            sparse_tensor.yield %add : f32
        }
        linalg.yield %q : f32
    } -> tensor<4x4xf32, #CSR>
    %r = linalg.matmul {sptune.kernel = #sptune.kernel<spmm, loops = [i : 4, j : 2, k : 4], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<SPMM>}
      ins(%x, %b2 : tensor<4x4xf32, #CSR>, tensor<4x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
    return %r : tensor<4x2xf32>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32

    %d8 = arith.constant dense<[[1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5], [0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
    %a8 = sparse_tensor.convert %d8 : tensor<8x8xf32> to tensor<8x8xf32, #CSR>
    %b8 = arith.constant dense<[[1.0, 11.0, 21.0, 31.0], [2.0, 12.0, 22.0, 32.0], [3.0, 13.0, 23.0, 33.0], [4.0, 14.0, 24.0, 34.0], [5.0, 15.0, 25.0, 35.0], [6.0, 16.0, 26.0, 36.0], [7.0, 17.0, 27.0, 37.0], [8.0, 18.0, 28.0, 38.0]]> : tensor<8x4xf32>
    %c8 = arith.constant dense<0.0> : tensor<8x4xf32>
    %r1 = call @spmm(%a8, %b8, %c8) : (tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %v1 = vector.transfer_read %r1[%c0, %c0], %z : tensor<8x4xf32>, vector<8x4xf32>
    vector.print %v1 : vector<8x4xf32>

    %d4 = arith.constant dense<[[1.0, 2.0, 0.0, 0.0], [3.0, 4.0, 0.0, 0.0], [0.0, 0.0, 5.0, 6.0], [0.0, 0.0, 7.0, 8.0]]> : tensor<4x4xf32>
    %s4 = sparse_tensor.convert %d4 : tensor<4x4xf32> to tensor<4x4xf32, #CSR>
    %a4 = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
    %b4 = arith.constant dense<[[1.0, 0.0, 2.0, 1.0], [0.0, 1.0, 1.0, 2.0]]> : tensor<2x4xf32>
    %r2 = call @sddmm(%s4, %a4, %b4) : (tensor<4x4xf32, #CSR>, tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32, #CSR>
    %dr2 = sparse_tensor.convert %r2 : tensor<4x4xf32, #CSR> to tensor<4x4xf32>
    %v2 = vector.transfer_read %dr2[%c0, %c0], %z : tensor<4x4xf32>, vector<4x4xf32>
    vector.print %v2 : vector<4x4xf32>

    %x8 = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
    %y8 = arith.constant dense<0.0> : tensor<8xf32>
    %r3 = call @spmv(%a8, %x8, %y8) : (tensor<8x8xf32, #CSR>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %v3 = vector.transfer_read %r3[%c0], %z : tensor<8xf32>, vector<8xf32>
    vector.print %v3 : vector<8xf32>

    %s4b = sparse_tensor.convert %d4 : tensor<4x4xf32> to tensor<4x4xf32, #CSR>
    %b2 = arith.constant dense<[[1.0, 1.0], [1.0, -1.0], [2.0, 0.0], [0.0, 2.0]]> : tensor<4x2xf32>
    %c2 = arith.constant dense<0.0> : tensor<4x2xf32>
    %r4 = call @chain(%s4b, %a4, %b4, %b2, %c2) : (tensor<4x4xf32, #CSR>, tensor<4x2xf32>, tensor<2x4xf32>, tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
    %v4 = vector.transfer_read %r4[%c0, %c0], %z : tensor<4x2xf32>, vector<4x2xf32>
    vector.print %v4 : vector<4x2xf32>

    bufferization.dealloc_tensor %a8 : tensor<8x8xf32, #CSR>
    bufferization.dealloc_tensor %r2 : tensor<4x4xf32, #CSR>
    bufferization.dealloc_tensor %s4b : tensor<4x4xf32, #CSR>
    return
  }
}
