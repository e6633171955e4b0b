// MTTKRP schedules that cannot be: knobs the kernel does not take, storage
// other than B's own, a loop `l` in a schedule, the MTTKRP knob on another
// kernel, an unknown form, a schedule for the kernel when the lowering is
// told not to use it, on an MTTKRP it cannot compute, in a nested module, or
// for a target without an MTTKRP kernel.
//
// RUN: sptune-opt %s -split-input-file -verify-diagnostics --sptune-apply-schedule --sptune-cpu-sparsify=factored-mttkrp=false
// The runtime library leaves MTTKRP to upstream too.
// RUN: not sptune-opt %s -split-input-file --sptune-apply-schedule --sptune-cpu-sparsify=enable-runtime-library=true 2>&1 | FileCheck %s --check-prefix=RUNTIME
// RUNTIME: error: sptune: this MTTKRP's schedule is for sptune's MTTKRP kernel, which cannot compute it: the runtime library does not use it
// With the kernel on, @not_fresh gets the kernel's reason.
// RUN: not sptune-opt %s -split-input-file --sptune-apply-schedule --sptune-cpu-sparsify 2>&1 | FileCheck %s --check-prefix=NOTFRESH
// NOTFRESH: error: sptune: this MTTKRP's schedule is for sptune's MTTKRP kernel, which cannot compute it: its output does not start from a linalg.fill of a fresh tensor

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
#K = #sptune.kernel<mttkrp, loops = [i : 3, j : 4, k : 5, l : 6], operands = [sparse(i, k, l), dense(k, j), dense(l, j), out(i, j)], type = f64, encoding = #CSF>
#B = affine_map<(i, j, k, l) -> (i, k, l)>
#C = affine_map<(i, j, k, l) -> (k, j)>
#D = affine_map<(i, j, k, l) -> (l, j)>
#A = affine_map<(i, j, k, l) -> (i, j)>

func.func @vectors(%b: tensor<3x5x6xf64, #CSF>, %c: tensor<5x4xf64>, %d: tensor<6x4xf64>, %a: tensor<3x4xf64>) -> tensor<3x4xf64> {
  // expected-error @+1 {{illegal schedule: an MTTKRP kernel takes parallel, threads and form only}}
  %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"], sptune.kernel = #K, sptune.schedule = #sptune.schedule<cpu mttkrp, parallel = outer, vl = 8>}
    ins(%b, %c, %d : tensor<3x5x6xf64, #CSF>, tensor<5x4xf64>, tensor<6x4xf64>) outs(%a : tensor<3x4xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
#K = #sptune.kernel<mttkrp, loops = [i : 3, j : 4, k : 5, l : 6], operands = [sparse(i, k, l), dense(k, j), dense(l, j), out(i, j)], type = f64, encoding = #CSF>
#B = affine_map<(i, j, k, l) -> (i, k, l)>
#C = affine_map<(i, j, k, l) -> (k, j)>
#D = affine_map<(i, j, k, l) -> (l, j)>
#A = affine_map<(i, j, k, l) -> (i, j)>

func.func @coo_levels(%b: tensor<3x5x6xf64, #CSF>, %c: tensor<5x4xf64>, %d: tensor<6x4xf64>, %a: tensor<3x4xf64>) -> tensor<3x4xf64> {
  // expected-error @+1 {{illegal schedule: an MTTKRP kernel is computed slice by slice on B's own CSF or COO storage: levels = [i : dense, k : compressed], order = [i, k, j], widths = [64, 64] (B's own, whatever they are), no split, no tile}}
  %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"], sptune.kernel = #K, sptune.schedule = #sptune.schedule<cpu mttkrp, levels = [i : compressed_nu, k : singleton], order = [i, k, j]>}
    ins(%b, %c, %d : tensor<3x5x6xf64, #CSF>, tensor<5x4xf64>, tensor<6x4xf64>) outs(%a : tensor<3x4xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
#K = #sptune.kernel<mttkrp, loops = [i : 3, j : 4, k : 5, l : 6], operands = [sparse(i, k, l), dense(k, j), dense(l, j), out(i, j)], type = f64, encoding = #CSF>
#B = affine_map<(i, j, k, l) -> (i, k, l)>
#C = affine_map<(i, j, k, l) -> (k, j)>
#D = affine_map<(i, j, k, l) -> (l, j)>
#A = affine_map<(i, j, k, l) -> (i, j)>

// B's third level is no part of a schedule: a schedule names no loop `l`.
func.func @third_level(%b: tensor<3x5x6xf64, #CSF>, %c: tensor<5x4xf64>, %d: tensor<6x4xf64>, %a: tensor<3x4xf64>) -> tensor<3x4xf64> {
  // expected-error @+1 {{expected a loop name such as 'i', 'i1' or 'k0', got 'l'}}
  %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"], sptune.kernel = #K, sptune.schedule = #sptune.schedule<cpu mttkrp, levels = [i : dense, k : compressed, l : compressed], order = [i, k, l, j]>}
    ins(%b, %c, %d : tensor<3x5x6xf64, #CSF>, tensor<5x4xf64>, tensor<6x4xf64>) outs(%a : tensor<3x4xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmm_knob(%a: tensor<8x5xf64, #CSR>, %b: tensor<5x6xf64>, %c: tensor<8x6xf64>) -> tensor<8x6xf64> {
  // expected-error @+1 {{illegal schedule: form is a knob of MTTKRP kernels only}}
  %r = linalg.matmul {sptune.schedule = #sptune.schedule<cpu spmm, form = factored>}
    ins(%a, %b : tensor<8x5xf64, #CSR>, tensor<5x6xf64>) outs(%c : tensor<8x6xf64>) -> tensor<8x6xf64>
  return %r : tensor<8x6xf64>
}

// -----

func.func @unknown_form() attributes {
  // expected-error @+1 {{unknown MTTKRP form 'blocked'}}
  s = #sptune.schedule<cpu mttkrp, form = blocked>} {
  return
}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
#K = #sptune.kernel<mttkrp, loops = [i : 3, j : 4, k : 5, l : 6], operands = [sparse(i, k, l), dense(k, j), dense(l, j), out(i, j)], type = f64, encoding = #CSF>
#B = affine_map<(i, j, k, l) -> (i, k, l)>
#C = affine_map<(i, j, k, l) -> (k, j)>
#D = affine_map<(i, j, k, l) -> (l, j)>
#A = affine_map<(i, j, k, l) -> (i, j)>

func.func @valid(%b: tensor<3x5x6xf64, #CSF>, %c: tensor<5x4xf64>, %d: tensor<6x4xf64>) -> tensor<3x4xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3x4xf64>
  %a = linalg.fill ins(%zero : f64) outs(%e : tensor<3x4xf64>) -> tensor<3x4xf64>
  // expected-error @+1 {{sptune: this MTTKRP's schedule is for sptune's MTTKRP kernel, which cannot compute it: factored-mttkrp=false turns it off}}
  %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"], sptune.kernel = #K, sptune.schedule = #sptune.schedule<cpu mttkrp, parallel = outer, form = factored>}
    ins(%b, %c, %d : tensor<3x5x6xf64, #CSF>, tensor<5x4xf64>, tensor<6x4xf64>) outs(%a : tensor<3x4xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
#K = #sptune.kernel<mttkrp, loops = [i : 3, j : 4, k : 5, l : 6], operands = [sparse(i, k, l), dense(k, j), dense(l, j), out(i, j)], type = f64, encoding = #CSF>
#B = affine_map<(i, j, k, l) -> (i, k, l)>
#C = affine_map<(i, j, k, l) -> (k, j)>
#D = affine_map<(i, j, k, l) -> (l, j)>
#A = affine_map<(i, j, k, l) -> (i, j)>

// A hand-written kernel attribute on an MTTKRP the kernel cannot compute
// (its output is no fill of a fresh tensor).
func.func @not_fresh(%b: tensor<3x5x6xf64, #CSF>, %c: tensor<5x4xf64>, %d: tensor<6x4xf64>, %a: tensor<3x4xf64>) -> tensor<3x4xf64> {
  // expected-error @+1 {{sptune: this MTTKRP's schedule is for sptune's MTTKRP kernel, which cannot compute it: factored-mttkrp=false turns it off}}
  %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"], sptune.kernel = #K, sptune.schedule = #sptune.schedule<cpu mttkrp>}
    ins(%b, %c, %d : tensor<3x5x6xf64, #CSF>, tensor<5x4xf64>, tensor<6x4xf64>) outs(%a : tensor<3x4xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
#K = #sptune.kernel<mttkrp, loops = [i : 3, j : 4, k : 5, l : 6], operands = [sparse(i, k, l), dense(k, j), dense(l, j), out(i, j)], type = f64, encoding = #CSF>
#B = affine_map<(i, j, k, l) -> (i, k, l)>
#C = affine_map<(i, j, k, l) -> (k, j)>
#D = affine_map<(i, j, k, l) -> (l, j)>
#A = affine_map<(i, j, k, l) -> (i, j)>

// A target without an MTTKRP kernel.
func.func @nvvm(%b: tensor<3x5x6xf64, #CSF>, %c: tensor<5x4xf64>, %d: tensor<6x4xf64>, %a: tensor<3x4xf64>) -> tensor<3x4xf64> {
  // expected-error @+1 {{sptune: cannot apply schedule: target 'nvvm' has no MTTKRP kernel}}
  %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"], sptune.kernel = #K, sptune.schedule = #sptune.schedule<nvvm mttkrp>}
    ins(%b, %c, %d : tensor<3x5x6xf64, #CSF>, tensor<5x4xf64>, tensor<6x4xf64>) outs(%a : tensor<3x4xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
#K = #sptune.kernel<mttkrp, loops = [i : 3, j : 4, k : 5, l : 6], operands = [sparse(i, k, l), dense(k, j), dense(l, j), out(i, j)], type = f64, encoding = #CSF>
#B = affine_map<(i, j, k, l) -> (i, k, l)>
#C = affine_map<(i, j, k, l) -> (k, j)>
#D = affine_map<(i, j, k, l) -> (l, j)>
#A = affine_map<(i, j, k, l) -> (i, j)>

// A scheduled MTTKRP in a nested module (the kernel is defined among the
// top module's functions; a function beside it keeps the module nested).
func.func @outer() {
  return
}
module @nested {
  func.func @inner(%b: tensor<3x5x6xf64, #CSF>, %c: tensor<5x4xf64>, %d: tensor<6x4xf64>) -> tensor<3x4xf64> {
    %zero = arith.constant 0.0 : f64
    %e = tensor.empty() : tensor<3x4xf64>
    %a = linalg.fill ins(%zero : f64) outs(%e : tensor<3x4xf64>) -> tensor<3x4xf64>
    // expected-error @+1 {{sptune: this MTTKRP's schedule is for sptune's MTTKRP kernel, which cannot compute it: it is in a module nested in the one sptune-cpu-sparsify runs on}}
    %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"], sptune.kernel = #K, sptune.schedule = #sptune.schedule<cpu mttkrp>}
      ins(%b, %c, %d : tensor<3x5x6xf64, #CSF>, tensor<5x4xf64>, tensor<6x4xf64>) outs(%a : tensor<3x4xf64>) {
    ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
      %p = arith.mulf %x, %y : f64
      %q = arith.mulf %p, %z : f64
      %s = arith.addf %o, %q : f64
      linalg.yield %s : f64
    } -> tensor<3x4xf64>
    return %r : tensor<3x4xf64>
  }
}
