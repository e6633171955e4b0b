// Batched SpMM schedules that cannot be: knobs the kernel does not take,
// storage other than A's own, a loop `b` in a schedule, a schedule for the
// kernel when the lowering is told not to use it, on a batched SpMM it
// cannot compute, in a nested module, or for a target without a batched
// SpMM kernel.
//
// RUN: sptune-opt %s -split-input-file -verify-diagnostics --sptune-apply-schedule --sptune-cpu-sparsify=batched-rows-spmm=false
// The runtime library leaves batched SpMMs to upstream too.
// RUN: not sptune-opt %s -split-input-file --sptune-apply-schedule --sptune-cpu-sparsify=enable-runtime-library=true 2>&1 | FileCheck %s --check-prefix=RUNTIME
// RUNTIME: error: sptune: this batched SpMM's schedule is for sptune's batched SpMM kernel, which cannot compute it: the runtime library does not use it
// With the kernel on, @not_fresh gets the kernel's reason.
// RUN: not sptune-opt %s -split-input-file --sptune-apply-schedule --sptune-cpu-sparsify 2>&1 | FileCheck %s --check-prefix=NOTFRESH
// NOTFRESH: error: sptune: this batched SpMM's schedule is for sptune's batched SpMM kernel, which cannot compute it: its output does not start from a linalg.fill of a fresh tensor

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>
#K = #sptune.kernel<batched_spmm, loops = [b : 2, i : 3, j : 8, k : 4], operands = [sparse(b, i, k), dense(b, k, j), out(b, i, j)], type = f32, encoding = #BCSR>

func.func @vectors(%a: tensor<2x3x4xf32, #BCSR>, %b: tensor<2x4x8xf32>, %c: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  // expected-error @+1 {{illegal schedule: a batched SpMM kernel takes parallel and threads only (its rows are cut into one block of equal work per thread): omp = static, chunk = 0, vl = 0, simd32 = false and no reorder}}
  %r = linalg.batch_matmul {sptune.kernel = #K, sptune.schedule = #sptune.schedule<cpu batched_spmm, parallel = outer, vl = 8>} ins(%a, %b : tensor<2x3x4xf32, #BCSR>, tensor<2x4x8xf32>) outs(%c : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %r : tensor<2x3x8xf32>
}

// -----

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>
#K = #sptune.kernel<batched_spmm, loops = [b : 2, i : 3, j : 8, k : 4], operands = [sparse(b, i, k), dense(b, k, j), out(b, i, j)], type = f32, encoding = #BCSR>

func.func @dcsr_levels(%a: tensor<2x3x4xf32, #BCSR>, %b: tensor<2x4x8xf32>, %c: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  // expected-error @+1 {{illegal schedule: a batched SpMM kernel is computed row by row over every batch on A's own storage (dense batches of CSR rows, or COO): levels = [i : dense, k : compressed], order = [i, k, j], widths = [64, 64] (A's own, whatever they are), no split, no tile}}
  %r = linalg.batch_matmul {sptune.kernel = #K, sptune.schedule = #sptune.schedule<cpu batched_spmm, levels = [i : compressed, k : compressed], order = [i, k, j]>} ins(%a, %b : tensor<2x3x4xf32, #BCSR>, tensor<2x4x8xf32>) outs(%c : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %r : tensor<2x3x8xf32>
}

// -----

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>
#K = #sptune.kernel<batched_spmm, loops = [b : 2, i : 3, j : 8, k : 4], operands = [sparse(b, i, k), dense(b, k, j), out(b, i, j)], type = f32, encoding = #BCSR>

func.func @tiled(%a: tensor<2x3x4xf32, #BCSR>, %b: tensor<2x4x8xf32>, %c: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  // expected-error @+1 {{illegal schedule: a batched SpMM kernel is computed row by row over every batch}}
  %r = linalg.batch_matmul {sptune.kernel = #K, sptune.schedule = #sptune.schedule<cpu batched_spmm, tile = 32>} ins(%a, %b : tensor<2x3x4xf32, #BCSR>, tensor<2x4x8xf32>) outs(%c : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %r : tensor<2x3x8xf32>
}

// -----

func.func @batch_loop() attributes {
  // expected-error @+1 {{expected a loop name such as 'i', 'i1' or 'k0', got 'b'}}
  s = #sptune.schedule<cpu batched_spmm, levels = [b : dense, i : dense, k : compressed]>
} {
  return
}

// -----

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>

func.func @valid(%a: tensor<2x3x4xf32, #BCSR>, %b: tensor<2x4x8xf32>) -> tensor<2x3x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x8xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  // expected-error @+1 {{sptune: this batched SpMM's schedule is for sptune's batched SpMM kernel, which cannot compute it: batched-rows-spmm=false turns it off}}
  %r = linalg.batch_matmul {sptune.kernel = #sptune.kernel<batched_spmm, loops = [b : 2, i : 3, j : 8, k : 4], operands = [sparse(b, i, k), dense(b, k, j), out(b, i, j)], type = f32, encoding = #BCSR>, sptune.schedule = #sptune.schedule<cpu batched_spmm, parallel = outer>} ins(%a, %b : tensor<2x3x4xf32, #BCSR>, tensor<2x4x8xf32>) outs(%c : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %r : tensor<2x3x8xf32>
}

// -----

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>

// Written by hand into the caller's C: no kernel computes it.
func.func @not_fresh(%a: tensor<2x3x4xf32, #BCSR>, %b: tensor<2x4x8xf32>, %c: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  // expected-error @+1 {{sptune: this batched SpMM's schedule is for sptune's batched SpMM kernel, which cannot compute it: batched-rows-spmm=false turns it off}}
  %r = linalg.batch_matmul {sptune.kernel = #sptune.kernel<batched_spmm, loops = [b : 2, i : 3, j : 8, k : 4], operands = [sparse(b, i, k), dense(b, k, j), out(b, i, j)], type = f32, encoding = #BCSR>, sptune.schedule = #sptune.schedule<cpu batched_spmm, parallel = outer>} ins(%a, %b : tensor<2x3x4xf32, #BCSR>, tensor<2x4x8xf32>) outs(%c : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %r : tensor<2x3x8xf32>
}

// -----

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>
#K = #sptune.kernel<batched_spmm, loops = [b : 2, i : 3, j : 8, k : 4], operands = [sparse(b, i, k), dense(b, k, j), out(b, i, j)], type = f32, encoding = #BCSR>

func.func @nvvm(%a: tensor<2x3x4xf32, #BCSR>, %b: tensor<2x4x8xf32>, %c: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  // expected-error @+1 {{sptune: cannot apply schedule: target 'nvvm' has no batched SpMM kernel}}
  %r = linalg.batch_matmul {sptune.kernel = #K, sptune.schedule = #sptune.schedule<nvvm batched_spmm>} ins(%a, %b : tensor<2x3x4xf32, #BCSR>, tensor<2x4x8xf32>) outs(%c : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %r : tensor<2x3x8xf32>
}

// -----

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>

func.func @outer() {
  return
}
module @nested {
  func.func @inner(%a: tensor<2x3x4xf32, #BCSR>, %b: tensor<2x4x8xf32>) -> tensor<2x3x8xf32> {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<2x3x8xf32>
    %c = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
    // expected-error @+1 {{sptune: this batched SpMM's schedule is for sptune's batched SpMM kernel, which cannot compute it: it is in a module nested in the one sptune-cpu-sparsify runs on}}
    %r = linalg.batch_matmul {sptune.kernel = #sptune.kernel<batched_spmm, loops = [b : 2, i : 3, j : 8, k : 4], operands = [sparse(b, i, k), dense(b, k, j), out(b, i, j)], type = f32, encoding = #BCSR>, sptune.schedule = #sptune.schedule<cpu batched_spmm, parallel = outer>} ins(%a, %b : tensor<2x3x4xf32, #BCSR>, tensor<2x4x8xf32>) outs(%c : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
    return %r : tensor<2x3x8xf32>
  }
}
