// SpGEMM schedules that cannot be: knobs the Gustavson kernel does not take,
// storage other than its operands' own CSR, SpGEMM knobs on other kernels,
// an unknown accumulator, a schedule for the Gustavson kernel when the
// lowering is told not to use it, or on a product in a nested module.
//
// RUN: sptune-opt %s -split-input-file -verify-diagnostics --sptune-apply-schedule --sptune-cpu-sparsify=gustavson-spgemm=false
// The runtime library leaves SpGEMM to upstream too.
// RUN: not sptune-opt %s -split-input-file --sptune-apply-schedule --sptune-cpu-sparsify=enable-runtime-library=true 2>&1 | FileCheck %s --check-prefix=RUNTIME
// RUNTIME: error: sptune: this SpGEMM's schedule is for sptune's Gustavson kernel, which the runtime library does not use


#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#K = #sptune.kernel<spgemm, loops = [i : 8, j : 6, k : 5], operands = [sparse(i, k), sparse(k, j), sparse_out(i, j)], type = f64, encoding = #CSR>

func.func @vectors(%a: tensor<8x5xf64, #CSR>, %b: tensor<5x6xf64, #CSR>) -> tensor<8x6xf64, #CSR> {
  %e = tensor.empty() : tensor<8x6xf64, #CSR>
  // expected-error @+1 {{illegal schedule: an SpGEMM kernel takes parallel, threads, accumulator and passes only}}
  %r = linalg.matmul {sptune.kernel = #K, sptune.schedule = #sptune.schedule<cpu spgemm, parallel = outer, vl = 8>}
    ins(%a, %b : tensor<8x5xf64, #CSR>, tensor<5x6xf64, #CSR>) outs(%e : tensor<8x6xf64, #CSR>) -> tensor<8x6xf64, #CSR>
  return %r : tensor<8x6xf64, #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#K = #sptune.kernel<spgemm, loops = [i : 8, j : 6, k : 5], operands = [sparse(i, k), sparse(k, j), sparse_out(i, j)], type = f64, encoding = #CSR>

func.func @csc(%a: tensor<8x5xf64, #CSR>, %b: tensor<5x6xf64, #CSR>) -> tensor<8x6xf64, #CSR> {
  %e = tensor.empty() : tensor<8x6xf64, #CSR>
  // expected-error @+1 {{illegal schedule: an SpGEMM kernel is computed row by row on its operands' own CSR storage}}
  %r = linalg.matmul {sptune.kernel = #K, sptune.schedule = #sptune.schedule<cpu spgemm, levels = [k : dense, i : compressed], order = [k, i, j]>}
    ins(%a, %b : tensor<8x5xf64, #CSR>, tensor<5x6xf64, #CSR>) outs(%e : tensor<8x6xf64, #CSR>) -> tensor<8x6xf64, #CSR>
  return %r : tensor<8x6xf64, #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#K = #sptune.kernel<spgemm, loops = [i : 8, j : 6, k : 5], operands = [sparse(i, k), sparse(k, j), sparse_out(i, j)], type = f64, encoding = #CSR>

func.func @narrow(%a: tensor<8x5xf64, #CSR>, %b: tensor<5x6xf64, #CSR>) -> tensor<8x6xf64, #CSR> {
  %e = tensor.empty() : tensor<8x6xf64, #CSR>
  // expected-error @+1 {{illegal schedule: an SpGEMM kernel is computed row by row on its operands' own CSR storage: levels = [i : dense, k : compressed], order = [i, k, j], widths = [64, 64] (the operands' own, whatever they are)}}
  %r = linalg.matmul {sptune.kernel = #K, sptune.schedule = #sptune.schedule<cpu spgemm, widths = [32, 32]>}
    ins(%a, %b : tensor<8x5xf64, #CSR>, tensor<5x6xf64, #CSR>) outs(%e : tensor<8x6xf64, #CSR>) -> tensor<8x6xf64, #CSR>
  return %r : tensor<8x6xf64, #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmm_knob(%a: tensor<8x5xf64, #CSR>, %b: tensor<5x6xf64>, %c: tensor<8x6xf64>) -> tensor<8x6xf64> {
  // expected-error @+1 {{illegal schedule: accumulator and passes are knobs of SpGEMM kernels only}}
  %r = linalg.matmul {sptune.schedule = #sptune.schedule<cpu spmm, passes = two>}
    ins(%a, %b : tensor<8x5xf64, #CSR>, tensor<5x6xf64>) outs(%c : tensor<8x6xf64>) -> tensor<8x6xf64>
  return %r : tensor<8x6xf64>
}

// -----

func.func @unknown_accumulator() attributes {
  // expected-error @+1 {{unknown SpGEMM accumulator 'tree'}}
  s = #sptune.schedule<cpu spgemm, accumulator = tree>} {
  return
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#K = #sptune.kernel<spgemm, loops = [i : 8, j : 6, k : 5], operands = [sparse(i, k), sparse(k, j), sparse_out(i, j)], type = f64, encoding = #CSR>

func.func @valid(%a: tensor<8x5xf64, #CSR>, %b: tensor<5x6xf64, #CSR>) -> tensor<8x6xf64, #CSR> {
  %e = tensor.empty() : tensor<8x6xf64, #CSR>
  // expected-error @+1 {{sptune: this SpGEMM's schedule is for sptune's Gustavson kernel, which gustavson-spgemm=false turns off}}
  %r = linalg.matmul {sptune.kernel = #K, sptune.schedule = #sptune.schedule<cpu spgemm, parallel = outer, accumulator = hash>}
    ins(%a, %b : tensor<8x5xf64, #CSR>, tensor<5x6xf64, #CSR>) outs(%e : tensor<8x6xf64, #CSR>) -> tensor<8x6xf64, #CSR>
  return %r : tensor<8x6xf64, #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#K = #sptune.kernel<spgemm, loops = [i : 8, j : 6, k : 5], operands = [sparse(i, k), sparse(k, j), sparse_out(i, j)], type = f64, encoding = #CSR>

// A hand-written kernel attribute on a product the Gustavson kernel cannot
// compute (its result is no fresh tensor).
func.func @not_fresh(%a: tensor<8x5xf64, #CSR>, %b: tensor<5x6xf64, #CSR>, %c: tensor<8x6xf64, #CSR>) -> tensor<8x6xf64, #CSR> {
  // expected-error @+1 {{sptune: this SpGEMM's schedule is for sptune's Gustavson kernel, which cannot compute it: its result is not a fresh tensor (its init is no tensor.empty)}}
  %r = linalg.matmul {sptune.kernel = #K, sptune.schedule = #sptune.schedule<cpu spgemm>}
    ins(%a, %b : tensor<8x5xf64, #CSR>, tensor<5x6xf64, #CSR>) outs(%c : tensor<8x6xf64, #CSR>) -> tensor<8x6xf64, #CSR>
  return %r : tensor<8x6xf64, #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#K = #sptune.kernel<spgemm, loops = [i : 8, j : 6, k : 5], operands = [sparse(i, k), sparse(k, j), sparse_out(i, j)], type = f64, encoding = #CSR>

// A scheduled product in a nested module (the kernel is defined among the
// top module's functions; a function beside it keeps the module nested).
func.func @outer() {
  return
}
module @nested {
  func.func @inner(%a: tensor<8x5xf64, #CSR>, %b: tensor<5x6xf64, #CSR>) -> tensor<8x6xf64, #CSR> {
    %e = tensor.empty() : tensor<8x6xf64, #CSR>
    // expected-error @+1 {{sptune: this SpGEMM's schedule is for sptune's Gustavson kernel, which cannot compute it: it is in a module nested in the one sptune-cpu-sparsify runs on}}
    %r = linalg.matmul {sptune.kernel = #K, sptune.schedule = #sptune.schedule<cpu spgemm>}
      ins(%a, %b : tensor<8x5xf64, #CSR>, tensor<5x6xf64, #CSR>) outs(%e : tensor<8x6xf64, #CSR>) -> tensor<8x6xf64, #CSR>
    return %r : tensor<8x6xf64, #CSR>
  }
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#K = #sptune.kernel<spgemm, loops = [i : 8, j : 6, k : 5], operands = [sparse(i, k), sparse(k, j), sparse_out(i, j)], type = f64, encoding = #CSR>

// A target without a sparse x sparse product kernel.
func.func @nvvm(%a: tensor<8x5xf64, #CSR>, %b: tensor<5x6xf64, #CSR>) -> tensor<8x6xf64, #CSR> {
  %e = tensor.empty() : tensor<8x6xf64, #CSR>
  // expected-error @+1 {{sptune: cannot apply schedule: target 'nvvm' has no sparse x sparse product kernel}}
  %r = linalg.matmul {sptune.kernel = #K, sptune.schedule = #sptune.schedule<nvvm spgemm>}
    ins(%a, %b : tensor<8x5xf64, #CSR>, tensor<5x6xf64, #CSR>) outs(%e : tensor<8x6xf64, #CSR>) -> tensor<8x6xf64, #CSR>
  return %r : tensor<8x6xf64, #CSR>
}
