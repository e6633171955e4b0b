// The Gustavson SpGEMM kernel (targets/cpu/GustavsonSpgemm.h) is declared by
// sptune-cpu-sparsify and defined after sparsification; a declaration whose
// types are not three plain CSR tensors of one integer or float element
// type (C's positions and coordinates of 32 bits or more, sizes m x k,
// k x n and m x n) gets an error on it,
// not a crash or a body written on the wrong buffers, also in a module
// without any product.
//
// RUN: sptune-opt %s --split-input-file --sptune-cpu-sparsify -verify-diagnostics

// No list of types.
// expected-error @+1 {{sptune: the Gustavson kernel's 'sptune.gustavson_spgemm' must be [A, B, C]: three plain CSR tensors of one integer or float element type, C's positions and coordinates of 32 bits or more, sizes m x k, k x n and m x n}}
func.func private @k(memref<?xindex>) -> memref<?xindex> attributes {sptune.gustavson_spgemm, sptune.gustavson_settings = {accumulator = "auto", one_pass_bytes = 0 : i64, threads = 0 : i32}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
// Two types.
// expected-error @+1 {{must be [A, B, C]: three plain CSR tensors of one integer or float element type}}
func.func private @k(memref<?xindex>) -> memref<?xindex> attributes {sptune.gustavson_spgemm = [tensor<?x?xf64, #CSR>, tensor<?x?xf64, #CSR>], sptune.gustavson_settings = {accumulator = "auto", one_pass_bytes = 0 : i64, threads = 0 : i32}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
// Not types.
// expected-error @+1 {{must be [A, B, C]: three plain CSR tensors of one integer or float element type}}
func.func private @k(memref<?xindex>) -> memref<?xindex> attributes {sptune.gustavson_spgemm = [1, 2, 3], sptune.gustavson_settings = {accumulator = "auto", one_pass_bytes = 0 : i64, threads = 0 : i32}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
// A dense C.
// expected-error @+1 {{must be [A, B, C]: three plain CSR tensors of one integer or float element type}}
func.func private @k(memref<?xindex>) -> memref<?xindex> attributes {sptune.gustavson_spgemm = [tensor<?x?xf64, #CSR>, tensor<?x?xf64, #CSR>, tensor<?x?xf64>], sptune.gustavson_settings = {accumulator = "auto", one_pass_bytes = 0 : i64, threads = 0 : i32}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#COO = #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed(nonunique), j : singleton) }>
// B in COO.
// expected-error @+1 {{must be [A, B, C]: three plain CSR tensors of one integer or float element type}}
func.func private @k(memref<?xindex>) -> memref<?xindex> attributes {sptune.gustavson_spgemm = [tensor<?x?xf64, #CSR>, tensor<?x?xf64, #COO>, tensor<?x?xf64, #CSR>], sptune.gustavson_settings = {accumulator = "auto", one_pass_bytes = 0 : i64, threads = 0 : i32}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
// Element types that differ.
// expected-error @+1 {{must be [A, B, C]: three plain CSR tensors of one integer or float element type}}
func.func private @k(memref<?xindex>) -> memref<?xindex> attributes {sptune.gustavson_spgemm = [tensor<?x?xf64, #CSR>, tensor<?x?xf32, #CSR>, tensor<?x?xf64, #CSR>], sptune.gustavson_settings = {accumulator = "auto", one_pass_bytes = 0 : i64, threads = 0 : i32}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#ONES = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), explicitVal = 1.0 : f64 }>
// Values the encoding declares rather than stores.
// expected-error @+1 {{must be [A, B, C]: three plain CSR tensors of one integer or float element type}}
func.func private @k(memref<?xindex>) -> memref<?xindex> attributes {sptune.gustavson_spgemm = [tensor<?x?xf64, #ONES>, tensor<?x?xf64, #CSR>, tensor<?x?xf64, #CSR>], sptune.gustavson_settings = {accumulator = "auto", one_pass_bytes = 0 : i64, threads = 0 : i32}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#CSR16 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), posWidth = 16, crdWidth = 16 }>
// C with 16-bit positions and coordinates.
// expected-error @+1 {{must be [A, B, C]: three plain CSR tensors of one integer or float element type}}
func.func private @k(memref<?xindex>) -> memref<?xindex> attributes {sptune.gustavson_spgemm = [tensor<?x?xf64, #CSR>, tensor<?x?xf64, #CSR>, tensor<?x?xf64, #CSR16>], sptune.gustavson_settings = {accumulator = "auto", one_pass_bytes = 0 : i64, threads = 0 : i32}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
// Complex elements.
// expected-error @+1 {{must be [A, B, C]: three plain CSR tensors of one integer or float element type}}
func.func private @k(memref<?xindex>) -> memref<?xindex> attributes {sptune.gustavson_spgemm = [tensor<?x?xcomplex<f64>, #CSR>, tensor<?x?xcomplex<f64>, #CSR>, tensor<?x?xcomplex<f64>, #CSR>], sptune.gustavson_settings = {accumulator = "auto", one_pass_bytes = 0 : i64, threads = 0 : i32}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
// A's columns are not B's rows.
// expected-error @+1 {{must be [A, B, C]: three plain CSR tensors of one integer or float element type}}
func.func private @k(memref<?xindex>) -> memref<?xindex> attributes {sptune.gustavson_spgemm = [tensor<4x5xf64, #CSR>, tensor<6x3xf64, #CSR>, tensor<4x3xf64, #CSR>], sptune.gustavson_settings = {accumulator = "auto", one_pass_bytes = 0 : i64, threads = 0 : i32}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
// C's columns are not B's.
// expected-error @+1 {{must be [A, B, C]: three plain CSR tensors of one integer or float element type}}
func.func private @k(memref<?xindex>) -> memref<?xindex> attributes {sptune.gustavson_spgemm = [tensor<4x5xf64, #CSR>, tensor<5x3xf64, #CSR>, tensor<?x7xf64, #CSR>], sptune.gustavson_settings = {accumulator = "auto", one_pass_bytes = 0 : i64, threads = 0 : i32}}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
// Well-formed types, a signature that is not the CSR tensors' buffers.
// expected-error @+1 {{sptune: the Gustavson kernel's signature after sparsification is}}
func.func private @k(memref<?xindex>) -> memref<?xindex> attributes {sptune.gustavson_spgemm = [tensor<?x?xf64, #CSR>, tensor<?x?xf64, #CSR>, tensor<?x?xf64, #CSR>], sptune.gustavson_settings = {accumulator = "auto", one_pass_bytes = 0 : i64, threads = 0 : i32}}
