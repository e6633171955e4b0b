// RUN: sptune-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{illegal schedule: loop 'i' must be nested inside the loops of the sparse operand's outer levels}}
func.func @order_against_storage() attributes {a = #sptune.schedule<cpu spmm, levels = [k : dense, i : compressed], order = [i, k, j]>} {
  return
}

// -----

// expected-error @+1 {{illegal schedule: splitting only the sparse operand's first dimension ('i') crashes the sparsifier}}
func.func @first_dim_split_alone() attributes {a = #sptune.schedule<cpu spmm, levels = [i1 : dense, k : compressed, i0 : dense], split = [2, 1]>} {
  return
}

// -----

// expected-error @+1 {{illegal schedule: levels (i : dense, k : compressed) do not match the splits [4, 1]}}
func.func @split_without_levels() attributes {a = #sptune.schedule<cpu spmm, split = [4, 1]>} {
  return
}

// -----

// expected-error @+1 {{illegal schedule: a singleton level must follow a compressed_nu level}}
func.func @singleton_alone() attributes {a = #sptune.schedule<cpu spmm, levels = [i : dense, k : singleton]>} {
  return
}

// -----

// expected-error @+1 {{illegal schedule: vector length must be 0, 4, 8 or 16}}
func.func @vector_length() attributes {a = #sptune.schedule<cpu spmm, vl = 3>} {
  return
}

// -----

// expected-error @+1 {{illegal schedule: omp = balanced needs compressed rows (levels = [x : dense, y : compressed]) with the outer level's loop outermost}}
func.func @balanced_dcsr() attributes {a = #sptune.schedule<cpu spmv, levels = [i : compressed, k : compressed], parallel = outer, omp = balanced>} {
  return
}

// -----

// expected-error @+1 {{illegal schedule: omp = balanced takes no chunk (each thread gets one block of rows)}}
func.func @balanced_chunk() attributes {a = #sptune.schedule<cpu spmv, parallel = outer, omp = balanced, chunk = 4>} {
  return
}

// -----

// expected-error @+1 {{illegal schedule: a 'spmv' kernel has no free dense loop to tile}}
func.func @spmv_tile() attributes {a = #sptune.schedule<cpu spmv, tile = 8>} {
  return
}

// -----

// expected-error @+1 {{unknown target 'gpu' (expected cpu, nvvm or spade)}}
func.func @bad_target() attributes {a = #sptune.schedule<gpu spmm>} {
  return
}

// -----

// expected-error @+1 {{key 'vl' does not apply to target 'spade'}}
func.func @wrong_target_key() attributes {a = #sptune.schedule<spade spmm, vl = 8>} {
  return
}

// -----

// expected-error @+1 {{unknown level format 'sparse'}}
func.func @bad_format() attributes {a = #sptune.schedule<cpu spmm, levels = [i : dense, k : sparse]>} {
  return
}

// -----

// A thread count that would wrap to 2 in 32 bits.
// expected-error @+1 {{integer 4294967298 is out of range}}
func.func @wrapping_threads() attributes {a = #sptune.schedule<cpu spmm, parallel = outer, threads = 4294967298>} {
  return
}

// -----

// expected-error @+1 {{duplicate key 'vl'}}
func.func @duplicate_key() attributes {a = #sptune.schedule<cpu spmm, vl = 4, vl = 8>} {
  return
}

// -----

// expected-error @+1 {{the contiguous dimension of 'b' must be 'j' or 'k', got 'i'}}
func.func @layout_role_not_of_operand() attributes {a = #sptune.schedule<cpu sddmm, layout = [b : i]>} {
  return
}

// -----

// expected-error @+1 {{'x' is not a dense operand of spmv (expected none)}}
func.func @layout_on_spmv() attributes {a = #sptune.schedule<cpu spmv, layout = [x : k]>} {
  return
}

// -----

// The sparse ⊙ dense product has no operand 'a' (A is the sparse one) and no
// loop k.
// expected-error @+1 {{'a' is not a dense operand of hadamard (expected b, c)}}
func.func @layout_on_hadamard_sparse_operand() attributes {a = #sptune.schedule<cpu hadamard, layout = [a : j]>} {
  return
}

// -----

// expected-error @+1 {{illegal schedule}}
func.func @hadamard_order_with_k() attributes {a = #sptune.schedule<cpu hadamard, order = [i, j, k]>} {
  return
}

// -----

// expected-error @+1 {{key 'layout' does not apply to target 'spade'}}
func.func @layout_on_spade() attributes {a = #sptune.schedule<spade sddmm, layout = [b : k]>} {
  return
}

// -----

// A reduction loop outermost, run in parallel: MLIR's sparsifier would
// parallelize it and its iterations would add into the same rows of C.
// expected-error @+1 {{illegal schedule: parallel = outer would run the outermost loop 'k', a reduction, in parallel: its iterations add into the same output elements (a data race)}}
func.func @parallel_over_reduction() attributes {a = #sptune.schedule<cpu spmm, levels = [k : dense, i : compressed], order = [k, i, j], parallel = outer>} {
  return
}

// -----

// The same with the reduction loop split: its outer part outermost.
// expected-error @+1 {{illegal schedule: parallel = outer would run the outermost loop 'k1', a reduction}}
func.func @parallel_over_split_reduction() attributes {a = #sptune.schedule<cpu spmv, levels = [k1 : dense, i1 : compressed, k0 : dense, i0 : compressed], split = [2, 2], order = [k1, i1, k0, i0], parallel = outer>} {
  return
}

// -----

// Rows visited in another order: not with blocks of rows cut in storage
// order, and only over the rows of the output walked outermost.
// expected-error @+1 {{illegal schedule: reorder = rcm is not combined with omp = balanced}}
func.func @reorder_balanced() attributes {a = #sptune.schedule<cpu spmv, parallel = outer, omp = balanced, reorder = rcm>} {
  return
}

// -----

// expected-error @+1 {{illegal schedule: reorder = rcm needs the rows of the output walked densely by the outermost loop}}
func.func @reorder_reduction_outermost() attributes {a = #sptune.schedule<cpu spmm, levels = [k : dense, i : compressed], order = [k, i, j], reorder = rcm>} {
  return
}

// -----

// expected-error @+1 {{unknown row order 'sideways'}}
func.func @reorder_unknown() attributes {a = #sptune.schedule<cpu spmm, reorder = sideways>} {
  return
}

// -----

// SDDMM with the reduction above the innermost level: the sparsifier inserts
// the sparse output's rows one after another.
// expected-error @+1 {{illegal schedule: reorder = rcm on SDDMM needs the sample updated in place: the reduction loop innermost}}
func.func @reorder_sddmm_expansion() attributes {a = #sptune.schedule<cpu sddmm, order = [i, k, j], reorder = rcm>} {
  return
}

// -----

// The rewrite finds the rows by the positions of a compressed level below.
// expected-error @+1 {{illegal schedule: reorder = rcm needs the rows of the output walked densely by the outermost loop, above compressed storage}}
func.func @reorder_dense_dense() attributes {a = #sptune.schedule<cpu spmv, levels = [i : dense, k : dense], reorder = rcm>} {
  return
}

// -----

// SDDMM with column panels inserts its output's rows in order.
// expected-error @+1 {{illegal schedule: reorder = rcm on SDDMM needs the sample updated in place}}
func.func @reorder_sddmm_panels() attributes {a = #sptune.schedule<cpu sddmm, order = [i, j, k], tile = 16, reorder = rcm>} {
  return
}
