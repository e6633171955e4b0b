// RUN: sptune-opt %s -split-input-file -verify-diagnostics --sptune-emit-spade=output-dir=%t

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @dynamic(%a: tensor<?x?xf32, #CSR>, %b: tensor<?x64xf32>, %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{sptune-emit-spade: SPADE programs need static shapes; the kernel has dynamic sizes}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : ?, j : 64, k : ?], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<spade spmm>}
    ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?x64xf32>) outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @no_kernel(%a: tensor<8x8xf32, #CSR>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{sptune-emit-spade: op has a SPADE schedule but no #sptune.kernel; run sptune-extract-kernels first}}
  %0 = linalg.matmul {sptune.schedule = #sptune.schedule<spade spmm>}
    ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmv(%a: tensor<8x8xf32, #CSR>, %x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sptune-emit-spade: }}
  %0 = linalg.matvec {
      sptune.kernel = #sptune.kernel<spmv, loops = [i : 8, k : 8], operands = [sparse(i, k), dense(k), out(i)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<spade spmv>}
    ins(%a, %x : tensor<8x8xf32, #CSR>, tensor<8xf32>) outs(%y : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// A hand-written SPADE schedule on half-precision values: the machine holds
// 4- or 8-byte elements, so no program is emitted (sptune-autotune leaves
// such a kernel unscheduled instead).
func.func @bf16(%a: tensor<8x8xbf16, #CSR>, %b: tensor<8x4xbf16>, %c: tensor<8x4xbf16>) -> tensor<8x4xbf16> {
  // expected-error @+1 {{sptune-emit-spade: SPADE's machine holds 32- or 64-bit elements, not bf16}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = bf16, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<spade spmm>}
    ins(%a, %b : tensor<8x8xbf16, #CSR>, tensor<8x4xbf16>) outs(%c : tensor<8x4xbf16>) -> tensor<8x4xbf16>
  return %0 : tensor<8x4xbf16>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// A hand-written SPADE schedule on a product scaled by alpha: the program
// multiplies the operands only and would lose the scale, so none is
// emitted (sptune-autotune leaves such a kernel unscheduled instead).
func.func @scaled(%a: tensor<8x8xf32, #CSR>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>, %alpha: f32) -> tensor<8x4xf32> {
  // expected-error @+1 {{sptune-emit-spade: SPADE's processing elements multiply the operands' values only; the kernel's invariant factor (a fused scale) has no place in its program}}
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"],
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<spade spmm>}
    ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %alpha : f32
    %s = arith.addf %z, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
