// RUN: sptune-opt %s -split-input-file | FileCheck %s
// Printed IR parses again and prints the same:
// RUN: sptune-opt %s -split-input-file | sptune-opt -split-input-file | FileCheck %s
// And through the generic form:
// RUN: sptune-opt %s -split-input-file -mlir-print-op-generic | sptune-opt -split-input-file | FileCheck %s

// #sptune.kernel parse/print round trips, carried as function attributes.

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Static sizes.
// CHECK: #[[CSR:.+]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
// CHECK-LABEL: func.func private @spmm_static()
// CHECK-SAME: k = #sptune.kernel<spmm, loops = [i : 1024, j : 64, k : 512], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f64, encoding = #[[CSR]]>
func.func private @spmm_static() attributes {
  k = #sptune.kernel<spmm, loops = [i : 1024, j : 64, k : 512],
                     operands = [sparse(i, k), dense(k, j), out(i, j)],
                     type = f64, encoding = #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Dynamic sizes, and the loops in another order (k, i, j).
// CHECK-LABEL: func.func private @spmm_dynamic()
// CHECK-SAME: k = #sptune.kernel<spmm, loops = [k : ?, i : ?, j : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #{{[a-z0-9_]+}}>
func.func private @spmm_dynamic() attributes {
  k = #sptune.kernel<spmm, loops = [k : ?, i : ?, j : 64],
                     operands = [sparse(i, k), dense(k, j), out(i, j)],
                     type = f32, encoding = #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Half precision and narrow integers.
// CHECK-LABEL: func.func private @narrow_types()
// CHECK-SAME: a = #sptune.kernel<spmm, {{.*}} type = bf16
// CHECK-SAME: b = #sptune.kernel<spmv, {{.*}} type = f16
// CHECK-SAME: c = #sptune.kernel<spmv, {{.*}} type = i8
func.func private @narrow_types() attributes {
  a = #sptune.kernel<spmm, loops = [i : 8, j : 4, k : 6],
                     operands = [sparse(i, k), dense(k, j), out(i, j)],
                     type = bf16, encoding = #CSR>,
  b = #sptune.kernel<spmv, loops = [i : 8, k : 6],
                     operands = [sparse(i, k), dense(k), out(i)],
                     type = f16, encoding = #CSR>,
  c = #sptune.kernel<spmv, loops = [i : 8, k : 6],
                     operands = [sparse(i, k), dense(k), out(i)],
                     type = i8, encoding = #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Transposed dense operand.
// CHECK-LABEL: func.func private @spmm_transposed_b()
// CHECK-SAME: operands = [sparse(i, k), dense(j, k), out(i, j)]
func.func private @spmm_transposed_b() attributes {
  k = #sptune.kernel<spmm, loops = [i : 8, j : ?, k : 4],
                     operands = [sparse(i, k), dense(j, k), out(i, j)],
                     type = f32, encoding = #CSR>
}

// -----

#CSC = #sparse_tensor.encoding<{ map = (i, j) -> (j : dense, i : compressed) }>

// Sparse operand on the right: C = D * S with canonical roles; the operand
// order is the op's, the roles are the kernel's.
// CHECK: #[[CSC:.+]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d1 : dense, d0 : compressed) }>
// CHECK-LABEL: func.func private @spmm_sparse_right()
// CHECK-SAME: k = #sptune.kernel<spmm, loops = [j : 8, i : 16, k : 4], operands = [dense(j, k), sparse(k, i), out(j, i)], type = f64, encoding = #[[CSC]]>
func.func private @spmm_sparse_right() attributes {
  k = #sptune.kernel<spmm, loops = [j : 8, i : 16, k : 4],
                     operands = [dense(j, k), sparse(k, i), out(j, i)],
                     type = f64, encoding = #CSC>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// SDDMM with a dense output, with a sparse output, and in place (spy form).
// CHECK-LABEL: func.func private @sddmm_forms()
// CHECK-SAME: dense_out = #sptune.kernel<sddmm, loops = [i : ?, j : ?, k : 64], operands = [sparse(i, j), dense(i, k), dense(k, j), out(i, j)], type = f32, encoding = #{{[a-z0-9_]+}}>
// CHECK-SAME: in_place = #sptune.kernel<sddmm, loops = [i : 4, j : 6, k : 4], operands = [dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #{{[a-z0-9_]+}}>
// CHECK-SAME: sparse_out = #sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 8], operands = [sparse(i, j), dense(i, k), dense(k, j), sparse_out(i, j)], type = f64, encoding = #{{[a-z0-9_]+}}>
func.func private @sddmm_forms() attributes {
  dense_out = #sptune.kernel<sddmm, loops = [i : ?, j : ?, k : 64],
      operands = [sparse(i, j), dense(i, k), dense(k, j), out(i, j)],
      type = f32, encoding = #CSR>,
  sparse_out = #sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 8],
      operands = [sparse(i, j), dense(i, k), dense(k, j), sparse_out(i, j)],
      type = f64, encoding = #CSR>,
  in_place = #sptune.kernel<sddmm, loops = [i : 4, j : 6, k : 4],
      operands = [dense(i, k), dense(k, j), sparse_out(i, j)],
      type = f32, encoding = #CSR>
}

// -----

#DCSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed, j : compressed) }>

// SpMV, and the transposed form y = x * A.
// CHECK-LABEL: func.func private @spmv()
// CHECK-SAME: matvec = #sptune.kernel<spmv, loops = [i : 100, k : ?], operands = [sparse(i, k), dense(k), out(i)], type = f64, encoding = #{{[a-z0-9_]+}}>
// CHECK-SAME: vecmat = #sptune.kernel<spmv, loops = [i : ?, k : ?], operands = [dense(k), sparse(k, i), out(i)], type = f32, encoding = #{{[a-z0-9_]+}}>
func.func private @spmv() attributes {
  matvec = #sptune.kernel<spmv, loops = [i : 100, k : ?],
                          operands = [sparse(i, k), dense(k), out(i)],
                          type = f64, encoding = #DCSR>,
  vecmat = #sptune.kernel<spmv, loops = [i : ?, k : ?],
                          operands = [dense(k), sparse(k, i), out(i)],
                          type = f32, encoding = #DCSR>
}

// -----

// A block-sparse encoding is kept as written.
// CHECK: #[[BSR:.+]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 floordiv 2 : dense, d1 floordiv 2 : compressed, d0 mod 2 : dense, d1 mod 2 : dense) }>
// CHECK-LABEL: func.func private @bsr()
// CHECK-SAME: encoding = #[[BSR]]>
func.func private @bsr() attributes {
  k = #sptune.kernel<spmm, loops = [i : 8, j : 8, k : 8],
                     operands = [sparse(i, k), dense(k, j), out(i, j)],
                     type = f32,
                     encoding = #sparse_tensor.encoding<{
                       map = (i, j) -> (i floordiv 2 : dense,
                                        j floordiv 2 : compressed,
                                        i mod 2 : dense, j mod 2 : dense) }>>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// The sparse ⊙ dense product into sparse storage (an elementwise product
// may store its result like its sparse input).
// CHECK-LABEL: func.func private @hadamard_into_sparse()
// CHECK-SAME: k = #sptune.kernel<hadamard, loops = [i : 8, j : 4], operands = [sparse(i, j), dense(i, j), sparse_out(i, j)], type = f32, encoding = #{{.*}}>
func.func private @hadamard_into_sparse() attributes {
  k = #sptune.kernel<hadamard, loops = [i : 8, j : 4],
                     operands = [sparse(i, j), dense(i, j), sparse_out(i, j)],
                     type = f32, encoding = #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// The sparse x sparse product, A second (its sparse(i, k) is the one the
// encoding describes).
// CHECK-LABEL: func.func private @spgemm()
// CHECK-SAME: k = #sptune.kernel<spgemm, loops = [i : 8, j : 6, k : ?], operands = [sparse(k, j), sparse(i, k), sparse_out(i, j)], type = f64, encoding = #{{.*}}>
func.func private @spgemm() attributes {
  k = #sptune.kernel<spgemm, loops = [i : 8, j : 6, k : ?],
                     operands = [sparse(k, j), sparse(i, k), sparse_out(i, j)],
                     type = f64, encoding = #CSR>
}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>

// MTTKRP: B(i, k, l) is the sparse operand (the encoding is its), `l` the
// loop only it and D index.
// CHECK-LABEL: func.func private @mttkrp()
// CHECK-SAME: k = #sptune.kernel<mttkrp, loops = [i : 8, j : 16, k : ?, l : 5], operands = [dense(k, j), sparse(i, k, l), dense(l, j), out(i, j)], type = f32, encoding = #{{.*}}>
func.func private @mttkrp() attributes {
  k = #sptune.kernel<mttkrp, loops = [i : 8, j : 16, k : ?, l : 5],
                     operands = [dense(k, j), sparse(i, k, l), dense(l, j), out(i, j)],
                     type = f32, encoding = #CSF>
}

// -----

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>

// The batched SpMM: A(b, i, k) is the sparse operand, `b` the batch loop
// every operand is indexed by.
// CHECK-LABEL: func.func private @batched_spmm()
// CHECK-SAME: k = #sptune.kernel<batched_spmm, loops = [b : 4, i : ?, j : 16, k : 8], operands = [dense(b, k, j), sparse(b, i, k), out(b, i, j)], type = f64, encoding = #{{.*}}>
func.func private @batched_spmm() attributes {
  k = #sptune.kernel<batched_spmm, loops = [b : 4, i : ?, j : 16, k : 8],
                     operands = [dense(b, k, j), sparse(b, i, k), out(b, i, j)],
                     type = f64, encoding = #BCSR>
}
