// The fused SDDMM-SpMM kernel (targets/cpu/SampledAggregation.h) is declared
// by sptune-cpu-sparsify and defined after sparsification; a declaration
// whose marks are malformed (no `parallel` flag, types that are not S in CSR
// and rows of one static size for A and B^T and another for H and Y, within
// the fused kernel's registers), or whose signature after sparsification is
// not a CSR tensor's buffers, the dense operands and two scalars, gets an
// error on it, not a body written on the wrong buffers.
//
// RUN: sptune-opt %s --split-input-file --sptune-cpu-sparsify -verify-diagnostics

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
// No parallel flag.
// expected-error @+1 {{sptune: the fused SDDMM-SpMM kernel's 'sptune.sampled_aggregation' must be {parallel = bool, types = [S (CSR), A, B^T, H, Y]}}}
func.func private @k(memref<?xindex>) attributes {sptune.sampled_aggregation = {types = [tensor<?x?xf32, #CSR>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>]}}

// -----

// Four types.
// expected-error @+1 {{must be {parallel = bool, types = [S (CSR), A, B^T, H, Y]}}}
func.func private @k(memref<?xindex>) attributes {sptune.sampled_aggregation = {parallel = true, types = [tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>]}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
// A of rank 1.
// expected-error @+1 {{with rows of A and B^T of one static size}}
func.func private @k(memref<?xindex>) attributes {sptune.sampled_aggregation = {parallel = true, types = [tensor<?x?xf32, #CSR>, tensor<4xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>]}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
// A dynamic K.
// expected-error @+1 {{with rows of A and B^T of one static size}}
func.func private @k(memref<?xindex>) attributes {sptune.sampled_aggregation = {parallel = true, types = [tensor<?x?xf32, #CSR>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x8xf32>, tensor<?x8xf32>]}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
// A's K is not B^T's.
// expected-error @+1 {{with rows of A and B^T of one static size}}
func.func private @k(memref<?xindex>) attributes {sptune.sampled_aggregation = {parallel = true, types = [tensor<?x?xf32, #CSR>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>]}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
// Rows of Y wider than the fused kernel keeps in registers.
// expected-error @+1 {{at most 512 bytes}}
func.func private @k(memref<?xindex>) attributes {sptune.sampled_aggregation = {parallel = true, types = [tensor<?x?xf32, #CSR>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x256xf32>, tensor<?x256xf32>]}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
// The types say K = 4; the signature reads A with 8 columns.
// expected-error @+1 {{sptune: the fused SDDMM-SpMM kernel's signature after sparsification is}}
func.func private @k(memref<?xindex>, memref<?xindex>, memref<?xf32>, !sparse_tensor.storage_specifier<#CSR>, memref<?x8xf32>, memref<?x4xf32>, memref<?x8xf32>, f32, f32) -> memref<?x8xf32> attributes {sptune.sampled_aggregation = {parallel = true, types = [tensor<?x?xf32, #CSR>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>]}}
