// The factored MTTKRP kernel (targets/cpu/FactoredMttkrp.h) is declared by
// sptune-cpu-sparsify and defined after sparsification; a declaration whose
// marks are malformed (no `parallel` flag, types that are not B in CSF or
// ordered COO with a unique last level and
// C, D and A of one static rank, f32 or f64, within the kernel's registers),
// or whose signature after sparsification is not B's buffers, C,
// D and a scalar, gets an error on it, not a body written on the wrong
// buffers.
//
// RUN: sptune-opt %s --split-input-file --sptune-cpu-sparsify -verify-diagnostics

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
// No parallel flag.
// expected-error @+1 {{sptune: the factored MTTKRP kernel's 'sptune.factored_mttkrp' must be {parallel = bool, types = [B (CSF or COO), C, D, A]}}}
func.func private @k(memref<?xindex>) -> memref<?x8xf32> attributes {sptune.factored_mttkrp = {types = [tensor<?x?x?xf32, #CSF>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>]}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
// B a matrix.
// expected-error @+1 {{must be {parallel = bool, types = [B (CSF or COO), C, D, A]}}}
func.func private @k(memref<?xindex>) -> memref<?x8xf32> attributes {sptune.factored_mttkrp = {parallel = true, types = [tensor<?x?xf32, #CSR>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>]}}

// -----

#COO = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed(nonunique), k : singleton(nonunique), l : singleton(nonunique)) }>
// B in COO with a non-unique last level.
// expected-error @+1 {{must be {parallel = bool, types = [B (CSF or COO), C, D, A]}}}
func.func private @k(memref<?xindex>) -> memref<?x8xf32> attributes {sptune.factored_mttkrp = {parallel = true, types = [tensor<?x?x?xf32, #COO>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>]}}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
// Three types.
// expected-error @+1 {{must be {parallel = bool, types = [B (CSF or COO), C, D, A]}}}
func.func private @k(memref<?xindex>) -> memref<?x8xf32> attributes {sptune.factored_mttkrp = {parallel = true, types = [tensor<?x?x?xf32, #CSF>, tensor<?x8xf32>, tensor<?x8xf32>]}}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
// D's rank is not A's.
// expected-error @+1 {{with C, D and A of one static number of columns}}
func.func private @k(memref<?xindex>) -> memref<?x8xf32> attributes {sptune.factored_mttkrp = {parallel = true, types = [tensor<?x?x?xf32, #CSF>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x8xf32>]}}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
// A dynamic rank.
// expected-error @+1 {{with C, D and A of one static number of columns}}
func.func private @k(memref<?xindex>) -> memref<?x?xf32> attributes {sptune.factored_mttkrp = {parallel = true, types = [tensor<?x?x?xf32, #CSF>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>]}}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
// Rows of 1,024 bytes.
// expected-error @+1 {{rows of at most 512 bytes}}
func.func private @k(memref<?xindex>) -> memref<?x128xf64> attributes {sptune.factored_mttkrp = {parallel = true, types = [tensor<?x?x?xf64, #CSF>, tensor<?x128xf64>, tensor<?x128xf64>, tensor<?x128xf64>]}}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
// i32 elements.
// expected-error @+1 {{f32 or f64}}
func.func private @k(memref<?xindex>) -> memref<?x8xi32> attributes {sptune.factored_mttkrp = {parallel = false, types = [tensor<?x?x?xi32, #CSF>, tensor<?x8xi32>, tensor<?x8xi32>, tensor<?x8xi32>]}}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
// Well-formed marks, but not the buffers code generation gives.
// expected-error @+1 {{sptune: the factored MTTKRP kernel's signature after sparsification is}}
func.func private @k(memref<?xindex>) -> memref<?x8xf32> attributes {sptune.factored_mttkrp = {parallel = true, types = [tensor<?x?x?xf32, #CSF>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>]}}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
// Settings of an unknown form.
// expected-error @+1 {{sptune: the MTTKRP kernel's 'sptune.mttkrp_settings' must be {form = "auto" | "factored" | "entry_wise", threads = N} with N in [0, 1024]}}
func.func private @k(memref<?xindex>) -> memref<?x8xf32> attributes {sptune.factored_mttkrp = {parallel = true, types = [tensor<?x?x?xf32, #CSF>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>]}, sptune.mttkrp_settings = {form = "blocked", threads = 0 : i64}}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
// Settings with a negative thread count.
// expected-error @+1 {{sptune: the MTTKRP kernel's 'sptune.mttkrp_settings' must be}}
func.func private @k(memref<?xindex>) -> memref<?x8xf32> attributes {sptune.factored_mttkrp = {parallel = true, types = [tensor<?x?x?xf32, #CSF>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>]}, sptune.mttkrp_settings = {form = "factored", threads = -2 : i64}}
