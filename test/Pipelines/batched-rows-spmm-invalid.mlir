// The batched SpMM kernel (targets/cpu/BatchedRowsSpmm.h) is declared by
// sptune-cpu-sparsify and defined after sparsification; a declaration whose
// marks are malformed (no `parallel` flag, types that are not A in dense
// batches of CSR rows or ordered COO and B and C of one static innermost size, f32 or f64,
// within the kernel's registers), or whose signature after sparsification
// is not A's buffers, B and a scalar, gets an error on it, not a body
// written on the wrong buffers.
//
// RUN: sptune-opt %s --split-input-file --sptune-cpu-sparsify -verify-diagnostics

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>
// No parallel flag.
// expected-error @+1 {{sptune: the batched SpMM kernel's 'sptune.batched_rows_spmm' must be {parallel = bool, types = [A (dense batches of CSR rows, or COO), B, C]}}}
func.func private @k(memref<?xindex>) -> memref<?x?x8xf32> attributes {sptune.batched_rows_spmm = {types = [tensor<?x?x?xf32, #BCSR>, tensor<?x?x8xf32>, tensor<?x?x8xf32>]}}

// -----

#BDCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : compressed, k : compressed) }>
// A in batches of DCSR.
// expected-error @+1 {{must be {parallel = bool, types = [A (dense batches of CSR rows, or COO), B, C]}}}
func.func private @k(memref<?xindex>) -> memref<?x?x8xf32> attributes {sptune.batched_rows_spmm = {parallel = true, types = [tensor<?x?x?xf32, #BDCSR>, tensor<?x?x8xf32>, tensor<?x?x8xf32>]}}

// -----

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>
// Two types.
// expected-error @+1 {{must be {parallel = bool, types = [A (dense batches of CSR rows, or COO), B, C]}}}
func.func private @k(memref<?xindex>) -> memref<?x?x8xf32> attributes {sptune.batched_rows_spmm = {parallel = true, types = [tensor<?x?x?xf32, #BCSR>, tensor<?x?x8xf32>]}}

// -----

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>
// B's N is not C's.
// expected-error @+1 {{with B and C of one static innermost size}}
func.func private @k(memref<?xindex>) -> memref<?x?x8xf32> attributes {sptune.batched_rows_spmm = {parallel = true, types = [tensor<?x?x?xf32, #BCSR>, tensor<?x?x4xf32>, tensor<?x?x8xf32>]}}

// -----

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>
// Rows of 1,024 bytes.
// expected-error @+1 {{rows of at most 512 bytes}}
func.func private @k(memref<?xindex>) -> memref<?x?x128xf64> attributes {sptune.batched_rows_spmm = {parallel = true, types = [tensor<?x?x?xf64, #BCSR>, tensor<?x?x128xf64>, tensor<?x?x128xf64>]}}

// -----

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>
// i32 elements.
// expected-error @+1 {{f32 or f64}}
func.func private @k(memref<?xindex>) -> memref<?x?x8xi32> attributes {sptune.batched_rows_spmm = {parallel = false, types = [tensor<?x?x?xi32, #BCSR>, tensor<?x?x8xi32>, tensor<?x?x8xi32>]}}

// -----

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>
// Well-formed marks, but not the buffers code generation gives.
// expected-error @+1 {{sptune: the batched SpMM kernel's signature after sparsification is}}
func.func private @k(memref<?xindex>) -> memref<?x?x8xf32> attributes {sptune.batched_rows_spmm = {parallel = true, types = [tensor<?x?x?xf32, #BCSR>, tensor<?x?x8xf32>, tensor<?x?x8xf32>]}}
