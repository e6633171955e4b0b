// Kernels on the cuSPARSE path and generated kernels in one module, and in
// one function: each keeps its own schedule's path and block size (issue
// 33). Upstream's cuSPARSE rewrite, once on, takes every op of its shapes;
// sptune-nvvm-sparsify keeps it off the generated ones. Executed on a GPU
// by exec-mixed.mlir.
//
// RUN: sed -e 's/SPMM/nvvm spmm, libgen = true/' -e 's/SDDMM/nvvm sddmm, order = [i, k, j], threads = 32/' -e 's/SPMV/nvvm spmv, threads = 16/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm -o /dev/null --mlir-print-ir-after=sptune-nvvm-launch-config 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: sed -e 's/SPMM/nvvm spmm, order = [i, k, j], threads = 64/' -e 's/SDDMM/nvvm sddmm, order = [i, k, j], libgen = true/' -e 's/SPMV/nvvm spmv, libgen = true/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm -o /dev/null --mlir-print-ir-after=sptune-nvvm-launch-config 2>&1 | FileCheck %s --check-prefix=SWAPPED
// RUN: sed -e 's/SPMM/nvvm spmm, order = [i, k, j], threads = 64/' -e 's/SDDMM/nvvm sddmm, order = [i, k, j], threads = 32/' -e 's/SPMV/nvvm spmv, threads = 16/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm -o /dev/null --mlir-print-ir-after=sptune-nvvm-launch-config 2>&1 | FileCheck %s --check-prefix=THREADS
//
// MIXED-LABEL: func.func @spmm(
// MIXED-NOT:   gpu.launch_func
// MIXED:       gpu.spmm async
// MIXED-LABEL: func.func @sddmm(
// MIXED-NOT:   gpu.sddmm
// MIXED:       gpu.launch_func async {{.*}} threads in (%c32{{(_[0-9]+)?}},
// MIXED-LABEL: func.func @spmv(
// MIXED-NOT:   gpu.spmv
// MIXED:       gpu.launch_func async {{.*}} threads in (%c16{{(_[0-9]+)?}},
// MIXED-LABEL: func.func @chain(
// MIXED:       gpu.launch_func async {{.*}} threads in (%c32{{(_[0-9]+)?}},
// MIXED:       gpu.spmm async
//
// SWAPPED-LABEL: func.func @spmm(
// SWAPPED-NOT:   gpu.spmm
// SWAPPED:       gpu.launch_func async {{.*}} threads in (%c64{{(_[0-9]+)?}},
// SWAPPED-LABEL: func.func @sddmm(
// SWAPPED-NOT:   gpu.launch_func
// SWAPPED:       gpu.sddmm async
// SWAPPED-LABEL: func.func @spmv(
// SWAPPED-NOT:   gpu.launch_func
// SWAPPED:       gpu.spmv async
// SWAPPED-LABEL: func.func @chain(
// SWAPPED:       gpu.sddmm async
// SWAPPED:       gpu.launch_func async {{.*}} threads in (%c64{{(_[0-9]+)?}},
// RUN: sed -e 's/SPMM/nvvm spmm, order = [i, k, j], threads = 64/' -e 's/SDDMM/nvvm sddmm, order = [i, k, j], threads = 32/' -e 's/SPMV/nvvm spmv, threads = 16/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm="threads=128" -o /dev/null --mlir-print-ir-after=sptune-nvvm-launch-config 2>&1 | FileCheck %s --check-prefix=OPTION
//
// Two generated kernels in one function, each with its own block size.
// THREADS-LABEL: func.func @chain(
// THREADS:       gpu.launch_func async {{.*}} threads in (%c32{{(_[0-9]+)?}},
// THREADS:       gpu.launch_func async {{.*}} threads in (%c64{{(_[0-9]+)?}},
//
// The pipeline's threads option sets every launch.
// OPTION-LABEL: func.func @chain(
// OPTION:       gpu.launch_func async {{.*}} threads in (%c128{{(_[0-9]+)?}},
// OPTION:       gpu.launch_func async {{.*}} threads in (%c128{{(_[0-9]+)?}},

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

}
