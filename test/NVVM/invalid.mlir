// RUN: sptune-opt %s -split-input-file -verify-diagnostics --sptune-apply-schedule --sptune-lower-nvvm -o /dev/null

// Schedules the GPU target cannot run, and kernels it cannot offload, get a
// diagnostic that says why (never a silent fallback to the host).

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @reduction_outermost(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x8xf32>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  // expected-error @+1 {{sptune: the nvvm target cannot run this schedule: GPU code generation maps the outermost loop to threads, and 'k' is a reduction the sparsifier never parallelizes}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 8, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm, levels = [k : dense, i : compressed]>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x8xf32>) outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @compressed_outer_level(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x8xf32>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  // expected-error @+1 {{GPU code generation maps the outermost loop to threads only when it runs from 0 to N: the outer level must be dense (a compressed outer level is iterated from pos[0] to pos[1] and stays on the host), or the free dense loop must be outermost}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 8, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm, levels = [i : compressed, k : compressed]>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x8xf32>) outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @tiled(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x32xf32>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{GPU code generation does not offload a tiled free loop}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 32, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm, tile = 8>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @libgen_bsr_spmm(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x8xf32>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  // expected-error @+1 {{the cuSPARSE path of 'spmm' takes CSR, CSC or COO storage, not this one}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 8, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : dense], split = [2, 2], libgen = true>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x8xf32>) outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @libgen_coo_needs_runtime(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x8xf32>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  // expected-error @+1 {{the cuSPARSE path takes COO only with the sparse runtime library (enable-runtime-library=true)}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 8, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm, levels = [i : compressed_nu, k : singleton], libgen = true>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x8xf32>) outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @libgen_mixed_widths(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x8xf32>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  // expected-error @+1 {{the cuSPARSE path needs one index width for positions and coordinates}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 8, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm, widths = [64, 32], libgen = true>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x8xf32>) outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @cpu_schedule(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x8xf32>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  // expected-error @+1 {{sptune: the nvvm target cannot run this schedule: 'cpu' schedule given to the nvvm target}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 8, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x8xf32>) outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// An SDDMM with a separate sparse output: the sparsifier inserts its entries
// one by one on the host, so there is no parallel loop to offload.
func.func @sddmm_separate_output(%s: tensor<8x8xf32, #CSR>, %a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<8x8xf32, #CSR> {
  %e = tensor.empty() : tensor<8x8xf32, #CSR>
  // expected-error @+1 {{sptune: GPU code generation offloads an SDDMM only in the in-place (spy) form, S = S + spy(S) * (A B); a separate sparse output is assembled by sequential insertions on the host}}
  %0 = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>,
                       affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s, %a, %b : tensor<8x8xf32, #CSR>, tensor<8x16xf32>, tensor<16x8xf32>) outs(%e : tensor<8x8xf32, #CSR>)
      attrs = {sptune.kernel = #sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 16], operands = [sparse(i, j), dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>,
               sptune.schedule = #sptune.schedule<nvvm sddmm, order = [i, k, j]>} {
  ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
    %p = arith.mulf %av, %bv : f32
    %q = arith.mulf %sv, %p : f32
    %r = arith.addf %xv, %q : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32, #CSR>
  return %0 : tensor<8x8xf32, #CSR>
}

// -----

#DCSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed, j : compressed) }>

// Without a schedule nothing is checked up front; a sparse kernel that the
// GPU code generation did not offload is reported.
// expected-warning @+1 {{sptune: @unscheduled has sparse kernels that were not offloaded to the GPU (no parallel outer loop); they run sequentially on the host}}
func.func @unscheduled(%a: tensor<64x64xf32, #DCSR>, %x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %0 = linalg.matvec ins(%a, %x : tensor<64x64xf32, #DCSR>, tensor<64xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// The sparse operand on the right of the product: upstream's cuSPARSE
// matcher does not take it, which is reported instead of running on the host.
// expected-error @+1 {{sptune: the cuSPARSE path did not match 1 of the 1 kernel(s) of @sparse_on_the_right scheduled for it; upstream's matcher takes C = A * B, y = A * x and the in-place S = S + spy(S) * (A B), with the sparse operand first}}
func.func @sparse_on_the_right(%b: tensor<8x64xf32>, %a: tensor<64x64xf32, #CSR>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [j : 8, i : 64, k : 64], operands = [dense(j, k), sparse(k, i), out(j, i)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm, levels = [k : dense, i : compressed], libgen = true>}
    ins(%b, %a : tensor<8x64xf32>, tensor<64x64xf32, #CSR>) outs(%c : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

// The cuSPARSE path computes in f32 and f64 only: an integer kernel is
// refused when the schedule is applied (hand-written or tuned alike), not
// left to fail at run time.

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @libgen_integer(%a: tensor<64x64xi32, #CSR>, %b: tensor<64x8xi32>, %c: tensor<64x8xi32>) -> tensor<64x8xi32> {
  // expected-error @+1 {{sptune: cannot apply schedule: the cuSPARSE path (libgen = true) computes in f32 and f64, not i32}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 8, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = i32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm, libgen = true>}
    ins(%a, %b : tensor<64x64xi32, #CSR>, tensor<64x8xi32>) outs(%c : tensor<64x8xi32>) -> tensor<64x8xi32>
  return %0 : tensor<64x8xi32>
}

// -----

// cuSPARSE's SDDMM is the in-place sampled product; one into a separate
// (here dense) output is refused when the schedule is applied, not when
// upstream's cuSPARSE rewrite fails to match it.

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#sddmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

func.func @libgen_sddmm_dense_output(%s: tensor<64x64xf32, #CSR>, %a: tensor<64x8xf32>, %b: tensor<8x64xf32>, %x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{sptune: cannot apply schedule: a library kernel computes the sampled product in place only (S = S + spy(S) * (A B)); this op writes a separate output}}
  %0 = linalg.generic #sddmm
      {sptune.kernel = #sptune.kernel<sddmm, loops = [i : 64, j : 64, k : 8], operands = [sparse(i, j), dense(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
       sptune.schedule = #sptune.schedule<nvvm sddmm, libgen = true>}
      ins(%s, %a, %b : tensor<64x64xf32, #CSR>, tensor<64x8xf32>, tensor<8x64xf32>) outs(%x : tensor<64x64xf32>) {
  ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
    %m = arith.mulf %av, %bv : f32
    %p = arith.mulf %sv, %m : f32
    %r = arith.addf %xv, %p : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
