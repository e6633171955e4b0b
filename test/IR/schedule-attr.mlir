// RUN: sptune-opt %s | FileCheck %s
// RUN: sptune-opt %s | sptune-opt | FileCheck %s

// The printed form lists every key of the target; omitted keys take their
// defaults (CSR, natural loop order, no parallelism, no vectorization).

// CHECK-LABEL: func @defaults
// CHECK-SAME: a = #sptune.schedule<cpu spmm, levels = [i : dense, k : compressed], split = [1, 1], order = [i, k, j], widths = [64, 64], tile = 0, parallel = none, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false>
func.func @defaults() attributes {a = #sptune.schedule<cpu spmm>} {
  return
}

// A row order other than storage order is printed, after the other keys
// (storage order, the default, is not, so schedules without the key print
// as they did before it).
// CHECK-LABEL: func @row_order
// CHECK-SAME: a = #sptune.schedule<cpu spmm, levels = [i : dense, k : compressed], split = [1, 1], order = [i, k, j], widths = [64, 64], tile = 0, parallel = outer, threads = 0, omp = dynamic, chunk = 16, vl = 8, simd32 = false, reorder = rcm>
// CHECK-SAME: b = #sptune.schedule<cpu spmv, levels = [i : dense, k : compressed], split = [1, 1], order = [i, k], widths = [64, 64], tile = 0, parallel = none, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false>
func.func @row_order() attributes {a = #sptune.schedule<cpu spmm, reorder = rcm, parallel = outer, omp = dynamic, chunk = 16, vl = 8>, b = #sptune.schedule<cpu spmv, reorder = none>} {
  return
}

// Loop parts i1 / i0 lex as integer types in MLIR; they still parse.
// CHECK-LABEL: func @waco_blocked
// CHECK-SAME: #sptune.schedule<cpu spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : compressed], split = [4, 8], order = [i1, k1, j, i0, k0], widths = [32, 32], tile = 16, parallel = outer, threads = 2, omp = dynamic, chunk = 16, vl = 0, simd32 = false>
func.func @waco_blocked() attributes {a = #sptune.schedule<cpu spmm,
    levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : compressed],
    split = [4, 8], order = [i1, k1, j, i0, k0], widths = [32, 32], tile = 16,
    parallel = outer, threads = 2, omp = dynamic, chunk = 16>} {
  return
}

// Levels without an order: the free loop goes innermost.
// CHECK-LABEL: func @csc_and_coo
// CHECK-SAME: a = #sptune.schedule<cpu sddmm, levels = [j : dense, i : compressed], split = [1, 1], order = [j, i, k]
// CHECK-SAME: b = #sptune.schedule<cpu spmv, levels = [i : compressed_nu, k : singleton], split = [1, 1], order = [i, k]
func.func @csc_and_coo() attributes {
    a = #sptune.schedule<cpu sddmm, levels = [j : dense, i : compressed]>,
    b = #sptune.schedule<cpu spmv, levels = [i : compressed_nu, k : singleton]>} {
  return
}

// Other targets print their own knobs.
// CHECK-LABEL: func @targets
// CHECK-SAME: a = #sptune.schedule<spade sddmm, split = [64, 512], tile = 0, pes = 4, barrier = true, bypass = [sparse, output], reorder = length>
// CHECK-SAME: b = #sptune.schedule<nvvm spmm, levels = [i : dense, k : compressed], split = [1, 1], order = [i, k, j], widths = [64, 64], tile = 0, threads = 256, libgen = true>
func.func @targets() attributes {
    a = #sptune.schedule<spade sddmm, split = [64, 512], pes = 4, barrier = true, bypass = [sparse, output], reorder = length>,
    b = #sptune.schedule<nvvm spmm, threads = 256, libgen = true>} {
  return
}

// Dense operand layouts print after the widths, only when one differs from
// the natural (row-major) layout of the kernel as written.
// CHECK-LABEL: func @layouts
// CHECK-SAME: a = #sptune.schedule<cpu sddmm, levels = [i : dense, j : compressed], split = [1, 1], order = [i, j, k], widths = [64, 64], layout = [a : k, b : k], tile = 0
// CHECK-SAME: b = #sptune.schedule<cpu spmm, levels = [i : dense, k : compressed], split = [1, 1], order = [i, k, j], widths = [64, 64], tile = 0
func.func @layouts() attributes {a = #sptune.schedule<cpu sddmm, order = [i, j, k], layout = [b : k]>, b = #sptune.schedule<cpu spmm, layout = [b : j, c : j]>} {
  return
}

// SpGEMM's knobs: printed when not auto.
// CHECK-LABEL: func.func @spgemm_knobs()
// CHECK-SAME: a = #sptune.schedule<cpu spgemm, levels = [i : dense, k : compressed], split = [1, 1], order = [i, k, j], widths = [64, 64], tile = 0, parallel = outer, threads = 2, omp = static, chunk = 0, vl = 0, simd32 = false, accumulator = hash, passes = two>
// CHECK-SAME: b = #sptune.schedule<cpu spgemm, levels = [i : dense, k : compressed], split = [1, 1], order = [i, k, j], widths = [64, 64], tile = 0, parallel = none, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false>
func.func @spgemm_knobs() attributes {a = #sptune.schedule<cpu spgemm, passes = two, accumulator = hash, parallel = outer, threads = 2>, b = #sptune.schedule<cpu spgemm, accumulator = auto, passes = auto>} {
  return
}
