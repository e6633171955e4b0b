// RUN: sptune-opt %s -split-input-file -verify-diagnostics

// #sptune.kernel attributes that the parser or the verifier must reject, each
// with a clear message. Each attribute is an alias definition, so that it is
// parsed (and verified) where it is written.

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Missing role: an SpMM needs i, j and k.
// expected-error @below {{'spmm' kernel needs one loop per role (i, j, k), got (i, k)}}
#k = #sptune.kernel<spmm, loops = [i : 8, k : 4], operands = [sparse(i, k), dense(k), out(i)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Duplicate role.
// expected-error @below {{'spmm' kernel needs one loop per role (i, j, k), got (i, i, k)}}
#k = #sptune.kernel<spmm, loops = [i : 8, i : 8, k : 4], operands = [sparse(i, k), dense(k, i), out(i, i)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// An SpMV has no j loop.
// expected-error @below {{'spmv' kernel needs one loop per role (i, k), got (i, j, k)}}
#k = #sptune.kernel<spmv, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, k), dense(k), out(i)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Sizes are positive or '?'.
// expected-error @below {{loop size must be positive or '?', got 0}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : 0, k : 4], operands = [sparse(i, k), dense(k, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Wrong operand signature: the sparse operand of an SpMM is indexed by (i, k).
// expected-error @below {{operand #0 sparse(i, j) does not fit a 'spmm' kernel}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, j), dense(k, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Wrong operand signature: the dense operand of an SpMM is indexed by (k, j).
// expected-error @below {{operand #1 dense(i, k) does not fit a 'spmm' kernel}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, k), dense(i, k), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Two sparse inputs are an SpGEMM, not an SpMM.
// expected-error @below {{operand #1 sparse(k, j) does not fit a 'spmm' kernel}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, k), sparse(k, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Too many operands.
// expected-error @below {{'spmm' kernel expects 3 operands, got 4}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, k), dense(k, j), dense(k, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// An operand indexed by a role that has no loop.
// expected-error @below {{operand #1 uses role 'j' that has no loop}}
#k = #sptune.kernel<spmv, loops = [i : 8, k : 4], operands = [sparse(i, k), dense(j), out(i)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// An SDDMM without a sparse sampling operand.
// expected-error @below {{operand #0 dense(i, j) does not fit a 'sddmm' kernel}}
#k = #sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 4], operands = [dense(i, j), dense(i, k), dense(k, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// The in-place SDDMM samples through its output, which must be sparse_out.
// expected-error @below {{operand #2 out(i, j) does not fit a 'sddmm' kernel}}
#k = #sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 4], operands = [dense(i, k), dense(k, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// An odd-width integer element type (i8, i16, i32 and i64 are supported).
// expected-error @below {{element type must be f16, bf16, f32, f64, i8, i16, i32 or i64, got 'i4'}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, k), dense(k, j), out(i, j)],
                    type = i4, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// An 8-bit float is not supported (f16 and bf16 are).
// expected-error @below {{element type must be f16, bf16, f32, f64, i8, i16, i32 or i64, got 'f8E5M2'}}
#k = #sptune.kernel<spmv, loops = [i : 8, k : 4], operands = [sparse(i, k), dense(k), out(i)],
                    type = f8E5M2, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// The output is the last operand.
// expected-error @below {{the last operand must be the output}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : 8, k : 4], operands = [out(i, j), sparse(i, k), dense(k, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Exactly one output.
// expected-error @below {{a kernel has exactly one output}}
#k = #sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, j), dense(i, k), out(i, j), sparse_out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Only an SDDMM and an elementwise product write a sparse output.
// expected-error @below {{only 'sddmm', 'spgemm' and elementwise products may have a sparse output}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, k), dense(k, j), sparse_out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#SV = #sparse_tensor.encoding<{ map = (i) -> (i : compressed) }>

// The sparse operand is a matrix.
// expected-error @below {{the sparse operand must be a matrix, its encoding has dimension rank 1}}
#k = #sptune.kernel<spmv, loops = [i : 8, k : 4], operands = [sparse(i, k), dense(k), out(i)],
                    type = f32, encoding = #SV>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Unknown kernel kind.
// expected-error @below {{unknown kernel kind 'spgemv'}}
#k = #sptune.kernel<spgemv, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, k), dense(k, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Unknown loop role.
// expected-error @below {{unknown loop role 'm'}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : 8, m : 4], operands = [sparse(i, m), dense(m, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Unknown operand kind.
// expected-error @below {{unknown operand kind 'weird'}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, k), weird(k, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// A size that is neither an integer nor '?'.
// expected-error @below {{expected integer value}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : x, k : 4], operands = [sparse(i, k), dense(k, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Misspelled keyword.
// expected-error @below {{expected 'loops'}}
#k = #sptune.kernel<spmm, loop = [i : 8, j : 8, k : 4], operands = [sparse(i, k), dense(k, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Fields in the wrong order.
// expected-error @below {{expected 'operands'}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : 8, k : 4], inputs = [sparse(i, k), dense(k, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Unknown trailing field.
// expected-error @+2 {{expected '>'}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, k), dense(k, j), out(i, j)],
                    type = f32, encoding = #CSR, order = [i, j, k]>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Missing encoding.
// expected-error @+2 {{expected ','}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, k), dense(k, j), out(i, j)],
                    type = f32>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// The encoding must be a #sparse_tensor.encoding.
// expected-error @+2 {{expected a #sparse_tensor.encoding}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, k), dense(k, j), out(i, j)],
                    type = f32, encoding = 3>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// The sparse ⊙ dense product's operands are checked against its form.
// expected-error @below {{operand #1 dense(j) does not fit a 'hadamard' kernel}}
#k = #sptune.kernel<hadamard, loops = [i : 8, j : 8], operands = [sparse(i, j), dense(j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// expected-error @below {{'hadamard' kernel needs one loop per role (i, j), got (i, j, k)}}
#k = #sptune.kernel<hadamard, loops = [i : 8, j : 8, k : 2], operands = [sparse(i, j), dense(i, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// An SpGEMM computes into sparse storage.
// expected-error @below {{a 'spgemm' kernel's output is sparse}}
#k = #sptune.kernel<spgemm, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, k), sparse(k, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Its second input is sparse.
// expected-error @below {{operand #1 dense(k, j) does not fit a 'spgemm' kernel}}
#k = #sptune.kernel<spgemm, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, k), dense(k, j), sparse_out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Its operands are not transposed.
// expected-error @below {{operand #0 of a 'spgemm' kernel is (k, i): its operands are (i, k), (k, j) and (i, j), none transposed}}
#k = #sptune.kernel<spgemm, loops = [i : 8, j : 8, k : 4], operands = [sparse(k, i), sparse(k, j), sparse_out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>

// An MTTKRP has a loop per role i, j, k, l.
// expected-error @below {{'mttkrp' kernel needs one loop per role (i, j, k, l), got (i, j, k)}}
#k = #sptune.kernel<mttkrp, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, k, k), dense(k, j), dense(k, j), out(i, j)],
                    type = f32, encoding = #CSF>

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>

// Its operands are not transposed.
// expected-error @below {{operand #1 of a 'mttkrp' kernel is (j, k): its operands are (i, k, l), (k, j), (l, j) and (i, j), none transposed}}
#k = #sptune.kernel<mttkrp, loops = [i : 8, j : 8, k : 4, l : 4], operands = [sparse(i, k, l), dense(j, k), dense(l, j), out(i, j)],
                    type = f32, encoding = #CSF>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Its sparse operand is a 3-D tensor.
// expected-error @below {{an 'mttkrp' kernel's sparse operand is a 3-D tensor, its encoding has dimension rank 2}}
#k = #sptune.kernel<mttkrp, loops = [i : 8, j : 8, k : 4, l : 4], operands = [sparse(i, k, l), dense(k, j), dense(l, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// `l` is MTTKRP's loop only.
// expected-error @below {{'spmm' kernel needs one loop per role (i, j, k), got (i, j, l)}}
#k = #sptune.kernel<spmm, loops = [i : 8, j : 8, l : 4], operands = [sparse(i, l), dense(l, j), out(i, j)],
                    type = f32, encoding = #CSR>

// -----

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>

// A batched SpMM has a loop per role b, i, j, k.
// expected-error @below {{'batched_spmm' kernel needs one loop per role (b, i, j, k), got (i, j, k)}}
#k = #sptune.kernel<batched_spmm, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, k), dense(k, j), out(i, j)],
                    type = f32, encoding = #BCSR>

// -----

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>

// Its operands are not transposed.
// expected-error @below {{operand #1 of a 'batched_spmm' kernel is (b, j, k): its operands are (b, i, k), (b, k, j) and (b, i, j), none transposed}}
#k = #sptune.kernel<batched_spmm, loops = [b : 2, i : 8, j : 8, k : 4], operands = [sparse(b, i, k), dense(b, j, k), out(b, i, j)],
                    type = f32, encoding = #BCSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Its sparse operand is a 3-D tensor.
// expected-error @below {{a 'batched_spmm' kernel's sparse operand is a 3-D tensor, its encoding has dimension rank 2}}
#k = #sptune.kernel<batched_spmm, loops = [b : 2, i : 8, j : 8, k : 4], operands = [sparse(b, i, k), dense(b, k, j), out(b, i, j)],
                    type = f32, encoding = #CSR>

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// `b` is the batched SpMM's loop only.
// expected-error @below {{'spmm' kernel needs one loop per role (i, j, k), got (b, i, j, k)}}
#k = #sptune.kernel<spmm, loops = [b : 2, i : 8, j : 8, k : 4], operands = [sparse(i, k), dense(k, j), out(i, j)],
                    type = f32, encoding = #CSR>
