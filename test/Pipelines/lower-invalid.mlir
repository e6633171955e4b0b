// RUN: sptune-opt %s --split-input-file --verify-diagnostics --sptune-lower
// RUN: not sptune-opt %s --split-input-file --sptune-lower=target=nonesuch 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// UNKNOWN: sptune-lower: unknown target 'nonesuch' (registered: cpu, nvvm, spade)

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Kernels of two targets in one module.
func.func @two(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  // expected-note @+1 {{a schedule for 'cpu'}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  // expected-error @+1 {{sptune-lower: a schedule for 'spade' in a module whose schedules are for 'cpu' (lower each target's kernels in a module of their own)}}
  %1 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<spade spmm>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0, %1 : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// No schedule, no target.
// expected-error @+1 {{sptune-lower: no #sptune.schedule in the module; name the target (sptune-lower{target=cpu})}}
module {
  func.func @plain(%x: f32) -> f32 {
    return %x : f32
  }
}
