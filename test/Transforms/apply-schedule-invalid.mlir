// RUN: sptune-opt %s -split-input-file -verify-diagnostics --sptune-apply-schedule

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @kind_mismatch(%a: tensor<8x8xf64, #CSR>, %b: tensor<8x4xf64>, %c: tensor<8x4xf64>) -> tensor<8x4xf64> {
  // expected-error @+1 {{sptune: cannot apply schedule: schedule is for 'sddmm' but the op is a 'spmm' kernel}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f64, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu sddmm>}
    ins(%a, %b : tensor<8x8xf64, #CSR>, tensor<8x4xf64>) outs(%c : tensor<8x4xf64>) -> tensor<8x4xf64>
  return %0 : tensor<8x4xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @block_does_not_divide(%a: tensor<10x8xf64, #CSR>, %b: tensor<8x4xf64>, %c: tensor<10x4xf64>) -> tensor<10x4xf64> {
  // expected-error @+1 {{sptune: cannot apply schedule: block size 4 does not divide the 10 rows}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 10, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f64, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : dense], split = [4, 2]>}
    ins(%a, %b : tensor<10x8xf64, #CSR>, tensor<8x4xf64>) outs(%c : tensor<10x4xf64>) -> tensor<10x4xf64>
  return %0 : tensor<10x4xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// The sparse operand on the right is stored as A(k, i): splitting only k
// splits its first dimension, which crashes the sparsifier.
func.func @sparse_right_first_dim(%d: tensor<4x8xf64>, %s: tensor<8x8xf64, #CSR>, %c: tensor<4x8xf64>) -> tensor<4x8xf64> {
  // expected-error @+1 {{sptune: cannot apply schedule: splitting only the sparse operand's first dimension ('k') crashes the sparsifier}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [j : 4, i : 8, k : 8], operands = [dense(j, k), sparse(k, i), out(j, i)], type = f64, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, levels = [i : dense, k1 : compressed, k0 : dense], split = [1, 2]>}
    ins(%d, %s : tensor<4x8xf64>, tensor<8x8xf64, #CSR>) outs(%c : tensor<4x8xf64>) -> tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#spy = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// The in-place SDDMM with the reduction innermost would be miscompiled.
func.func @spy_reduction_innermost(%a: tensor<8x4xf64>, %b: tensor<4x8xf64>, %s: tensor<8x8xf64, #CSR>) -> tensor<8x8xf64, #CSR> {
  // expected-error @+1 {{sptune: cannot apply schedule: the in-place SDDMM computes a wrong result unless the reduction loop 'k' is outermost}}
  %0 = linalg.generic #spy {
      sptune.kernel = #sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 4], operands = [dense(i, k), dense(k, j), sparse_out(i, j)], type = f64, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu sddmm, order = [i, j, k]>}
    ins(%a, %b : tensor<8x4xf64>, tensor<4x8xf64>) outs(%s : tensor<8x8xf64, #CSR>) {
  ^bb0(%av: f64, %bv: f64, %sv: f64):
    %f0 = arith.constant 0.0 : f64
    %u = sparse_tensor.unary %sv : f64 to f64 present = {
    ^bb0(%p: f64):
      %m = arith.mulf %av, %bv : f64
      sparse_tensor.yield %m : f64
    } absent = {}
    %r = sparse_tensor.reduce %sv, %u, %f0 : f64 {
    ^bb0(%p: f64, %q: f64):
      %add = arith.addf %p, %q : f64
      sparse_tensor.yield %add : f64
    }
    linalg.yield %r : f64
  } -> tensor<8x8xf64, #CSR>
  return %0 : tensor<8x8xf64, #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// MLIR would fold `k floordiv 8` to 0 on 8 columns and then crash.
func.func @block_as_large_as_the_dimension(%a: tensor<16x8xf64, #CSR>, %b: tensor<8x4xf64>, %c: tensor<16x4xf64>) -> tensor<16x4xf64> {
  // expected-error @+1 {{sptune: cannot apply schedule: block size 8 equals the columns (the outer level would be a constant)}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 16, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f64, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, levels = [i : dense, k1 : compressed, k0 : dense], split = [1, 8]>}
    ins(%a, %b : tensor<16x8xf64, #CSR>, tensor<8x4xf64>) outs(%c : tensor<16x4xf64>) -> tensor<16x4xf64>
  return %0 : tensor<16x4xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @no_kernel(%a: tensor<8x8xf64, #CSR>, %b: tensor<8x4xf64>, %c: tensor<8x4xf64>) -> tensor<8x4xf64> {
  // expected-error @+1 {{sptune: op has a schedule but no #sptune.kernel; run sptune-extract-kernels first}}
  %0 = linalg.matmul {sptune.schedule = #sptune.schedule<cpu spmm>}
    ins(%a, %b : tensor<8x8xf64, #CSR>, tensor<8x4xf64>) outs(%c : tensor<8x4xf64>) -> tensor<8x4xf64>
  return %0 : tensor<8x4xf64>
}


// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// A hand-written schedule is checked like the tuner's choice: the nvvm
// target leaves a scaled product unscheduled, so its schedule is refused
// (the cuSPARSE path computes plain products).
func.func @nvvm_scaled_product(%a: tensor<8x8xf32, #CSR>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{sptune: cannot apply schedule: the nvvm target's cuSPARSE path and measurer compute plain products}}
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"],
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm>}
    ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %half = arith.constant 0.5 : f32
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %half : f32
    %r = arith.addf %acc, %q : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// The same for an element type the target does not tune.
func.func @nvvm_bf16(%a: tensor<8x8xbf16, #CSR>, %b: tensor<8x4xbf16>, %c: tensor<8x4xbf16>) -> tensor<8x4xbf16> {
  // expected-error @+1 {{sptune: cannot apply schedule: the nvvm target measures 32- and 64-bit element types, not bf16}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = bf16, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm>}
    ins(%a, %b : tensor<8x8xbf16, #CSR>, tensor<8x4xbf16>) outs(%c : tensor<8x4xbf16>) -> tensor<8x4xbf16>
  return %0 : tensor<8x4xbf16>
}
