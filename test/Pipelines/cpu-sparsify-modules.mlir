// MLIR's sparsifier takes one parallelization / vector length per module.
// A kernel sptune did not schedule keeps upstream's defaults (parallelizing
// it can race), so then nothing is parallelized or vectorized; scheduled
// kernels get what they all agree on. Each kernel whose settings are
// reduced gets a warning.
//
// RUN: sptune-opt %s -split-input-file -verify-diagnostics --sptune-apply-schedule --sptune-cpu-sparsify | FileCheck %s

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CHECK-LABEL: func.func @scheduled
// CHECK-NOT:   scf.parallel
// CHECK-NOT:   vector<8xf32>
// CHECK-LABEL: func.func @unscheduled
// CHECK-NOT:   scf.parallel
// CHECK:       return
func.func @scheduled(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-warning @+1 {{this kernel's parallelization and vectorization is not applied: MLIR's sparsifier takes one setting per module, and the sparse kernel at}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer, vl = 8>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

func.func @unscheduled(%a: tensor<64x64xf32, #CSR>, %x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %0 = linalg.matvec ins(%a, %x : tensor<64x64xf32, #CSR>, tensor<64xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Two scheduled kernels that agree on parallel loops but not on the vector
// length: parallel, not vectorized.
// CHECK-LABEL: func.func @first
// CHECK:       scf.parallel
// CHECK-LABEL: func.func @second
// CHECK:       scf.parallel
// CHECK-NOT:   vector<8xf32>
// CHECK:       return
func.func @first(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

func.func @second(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-warning @+1 {{this kernel's vectorization is not applied: MLIR's sparsifier takes one setting per module, and other kernels of the module ask for other settings; put the kernels in separate modules to schedule each}}
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer, vl = 8>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
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
