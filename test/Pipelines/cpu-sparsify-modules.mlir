// MLIR's sparsifier takes one parallelization / vector length per module;
// sptune-cpu-sparsify gives each function its own: functions that ask for
// different settings are sparsified in copies of the module, one per
// setting, and each function is taken from its own copy. Scheduled kernels
// of one function that ask for different settings (or share it with a
// kernel sptune did not schedule) are first moved into functions of their
// own, `<function>__sptune_kernel<N>`, called where they were. A kernel
// sptune did not schedule gets the CPU target's rule (here a matvec on CSC,
// whose outer loop is the reduction: sequential and scalar;
// cpu-unscheduled-rule.mlir has the rule's cases).
//
// RUN: sptune-opt %s -split-input-file -verify-diagnostics --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify | FileCheck %s

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#CSC = #sparse_tensor.encoding<{ map = (i, j) -> (j : dense, i : compressed) }>

// A scheduled kernel next to an unscheduled one in another function: each
// keeps its own (the scheduled one parallel and vectorized, the other
// neither), and the caller's calls still match the lowered signatures.
// CHECK-LABEL: func.func @scheduled
// CHECK:       scf.parallel
// CHECK:       vector<8xf32>
// CHECK-LABEL: func.func @unscheduled
// CHECK-NOT:   scf.parallel
// CHECK-NOT:   vector<8xf32>
// CHECK-LABEL: func.func @caller
// CHECK:       call @scheduled
// CHECK:       call @unscheduled
func.func @scheduled(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer, vl = 8>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

func.func @unscheduled(%a: tensor<64x64xf32, #CSC>, %x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %0 = linalg.matvec ins(%a, %x : tensor<64x64xf32, #CSC>, tensor<64xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

func.func @caller(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>, %t: tensor<64x64xf32, #CSC>, %x: tensor<64xf32>, %y: tensor<64xf32>) -> (tensor<64x64xf32>, tensor<64xf32>) {
  %0 = call @scheduled(%a, %b, %c) : (tensor<64x64xf32, #CSR>, tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = call @unscheduled(%t, %x, %y) : (tensor<64x64xf32, #CSC>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %0, %1 : tensor<64x64xf32>, tensor<64xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Two functions that agree on parallel loops but not on the vector length:
// both parallel, the second vectorized.
// CHECK-LABEL: func.func @first
// CHECK:       scf.parallel
// CHECK-NOT:   vector<8xf32>
// CHECK-LABEL: func.func @second
// CHECK:       scf.parallel
// CHECK:       vector<8xf32>
func.func @first(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

func.func @second(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer, vl = 8>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#CSC = #sparse_tensor.encoding<{ map = (i, j) -> (j : dense, i : compressed) }>

// Within one function: the scheduled kernel moves into a function of its
// own and keeps its settings; the unscheduled one stays, sequential (the
// rule's answer for a matvec on CSC).
// CHECK-LABEL: func.func @mixed
// CHECK:       call @mixed__sptune_kernel0
// CHECK-NOT:   scf.parallel
// CHECK:       return
// CHECK-LABEL: func.func private @mixed__sptune_kernel0
// CHECK:       scf.parallel
// CHECK:       vector<8xf32>
func.func @mixed(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>, %t: tensor<64x64xf32, #CSC>, %x: tensor<64xf32>, %y: tensor<64xf32>) -> (tensor<64x64xf32>, tensor<64xf32>) {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer, vl = 8>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = linalg.matvec ins(%t, %x : tensor<64x64xf32, #CSC>, tensor<64xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  return %0, %1 : tensor<64x64xf32>, tensor<64xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Two scheduled kernels of one function that agree on parallel loops but
// not on the vector length: each in a function of its own, both parallel,
// the second vectorized.
// CHECK-LABEL: func.func @two
// CHECK:       call @two__sptune_kernel0
// CHECK:       call @two__sptune_kernel1
// CHECK-LABEL: func.func private @two__sptune_kernel0
// CHECK:       scf.parallel
// CHECK-NOT:   vector<8xf32>
// CHECK-LABEL: func.func private @two__sptune_kernel1
// CHECK:       scf.parallel
// CHECK:       vector<8xf32>
func.func @two(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>, %d: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer, vl = 8>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%d : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0, %1 : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Two scheduled kernels that agree: both parallel.
// CHECK-LABEL: func.func @agree_a
// CHECK:       scf.parallel
// CHECK-LABEL: func.func @agree_b
// CHECK:       scf.parallel
func.func @agree_a(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

func.func @agree_b(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
