// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule=target=nvvm | FileCheck %s --check-prefix=NVVM
// RUN: not sptune-opt %s --sptune-default-schedule=target=tpu 2>&1 | FileCheck %s --check-prefix=BAD

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// The heuristic: row-wise SpMM (j innermost), the outer row loop parallel,
// the dense inner loop vectorized when it is wide enough (16 lanes when 16
// divides it, else 8), one block of rows of equal stored entries per thread.
// CHECK-LABEL: func.func @spmm
// CHECK: sptune.schedule = #sptune.schedule<cpu spmm, levels = [i : dense, k : compressed], split = [1, 1], order = [i, k, j], widths = [64, 64], tile = 0, parallel = outer, threads = 0, omp = balanced, chunk = 0, vl = 16, simd32 = false>
// NVVM-LABEL: func.func @spmm
// On the GPU: cuSPARSE on CSR.
// NVVM: sptune.schedule = #sptune.schedule<nvvm spmm, levels = [i : dense, k : compressed], {{.*}}libgen = true>
func.func @spmm(%a: tensor<?x?xf32, #CSR>, %b: tensor<?x64xf32>, %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?x64xf32>) outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// A narrow free loop is not vectorized; SpMV's inner loop is sparse.
// CHECK-LABEL: func.func @narrow
// CHECK: sptune.schedule = #sptune.schedule<cpu spmm, {{.*}}vl = 0,
// CHECK-LABEL: func.func @spmv
// CHECK: sptune.schedule = #sptune.schedule<cpu spmv, {{.*}}parallel = outer, {{.*}}vl = 0,
func.func @narrow(%a: tensor<?x?xf32, #CSR>, %b: tensor<?x4xf32>, %c: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?x4xf32>) outs(%c : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
func.func @spmv(%a: tensor<?x?xf64, #CSR>, %x: tensor<?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
  %0 = linalg.matvec ins(%a, %x : tensor<?x?xf64, #CSR>, tensor<?xf64>) outs(%y : tensor<?xf64>) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}

// Ops that already have a schedule keep it.
// CHECK-LABEL: func.func @kept
// CHECK: sptune.schedule = #sptune.schedule<cpu spmm, levels = [i : compressed, k : compressed]
func.func @kept(%a: tensor<?x?xf32, #CSR>, %b: tensor<?x64xf32>, %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = linalg.matmul {sptune.schedule = #sptune.schedule<cpu spmm, levels = [i : compressed, k : compressed]>}
    ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?x64xf32>) outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// Upstream's in-place SDDMM: the heuristic's order (k innermost) computes a
// wrong result in that form, so the reference schedule (k above the
// innermost sparse level) is attached instead, one sptune-apply-schedule
// takes.
// CHECK-LABEL: func.func @sddmm_in_place
// CHECK: sptune.schedule = #sptune.schedule<cpu sddmm, levels = [i : dense, j : compressed], split = [1, 1], order = [i, k, j],
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule -o /dev/null
func.func @sddmm_in_place(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>, %s: tensor<8x8xf32, #CSR>) -> tensor<8x8xf32, #CSR> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%a, %b : tensor<8x4xf32>, tensor<4x8xf32>) outs(%s : tensor<8x8xf32, #CSR>) {
  ^bb0(%av: f32, %bv: f32, %x: f32):
    %zero = arith.constant 0.0 : f32
    %u = sparse_tensor.unary %x : f32 to f32
      present = {
        ^bb0(%p: f32):
          %m = arith.mulf %av, %bv : f32
          sparse_tensor.yield %m : f32
      }
      absent = {}
    %y = sparse_tensor.reduce %x, %u, %zero : f32 {
      ^bb0(%l: f32, %r: f32):
        %sum = arith.addf %l, %r : f32
        sparse_tensor.yield %sum : f32
    }
    linalg.yield %y : f32
  } -> tensor<8x8xf32, #CSR>
  return %0 : tensor<8x8xf32, #CSR>
}

// The cuSPARSE path computes in f32 and f64: an i32 kernel gets the
// reference schedule, MLIR's GPU code generation.
// CHECK-LABEL: func.func @spmm_i32
// CHECK: sptune.schedule = #sptune.schedule<cpu spmm,
// NVVM-LABEL: func.func @spmm_i32
// NVVM: sptune.schedule = #sptune.schedule<nvvm spmm, {{.*}}threads = 1024, libgen = false>
func.func @spmm_i32(%a: tensor<?x?xi32, #CSR>, %b: tensor<?x64xi32>, %c: tensor<?x64xi32>) -> tensor<?x64xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xi32, #CSR>, tensor<?x64xi32>) outs(%c : tensor<?x64xi32>) -> tensor<?x64xi32>
  return %0 : tensor<?x64xi32>
}

// BAD: sptune-default-schedule: unknown target 'tpu' (registered: cpu, nvvm, spade)
