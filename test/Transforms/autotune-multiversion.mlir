// sptune-autotune{multiversion=K} on kernels without a matrix: what it
// emits (test/Integration/cpu-multiversion.mlir runs it), when it falls
// back to the heuristic schedule, and its errors. A kernel with a matrix is
// tuned for it as always.
//
// RUN: sptune-opt %s -split-input-file -verify-diagnostics --sptune-extract-kernels --sptune-autotune="mode=heuristic multiversion=3 training-matrices=%S/../Integration/Inputs/multiversion-training.txt" | FileCheck %s
// RUN: not sptune-opt %s -split-input-file --sptune-extract-kernels --sptune-autotune="multiversion=17" 2>&1 | FileCheck %s --check-prefix=TOOMANY
// RUN: not sptune-opt %s -split-input-file --sptune-extract-kernels --sptune-autotune="mode=heuristic multiversion=2 training-matrices=%t.missing" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: echo "# nothing" > %t.empty && not sptune-opt %s -split-input-file --sptune-extract-kernels --sptune-autotune="mode=heuristic multiversion=2 training-matrices=%t.empty" 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: echo "gen:uniform:rows=64" > %t.bad && not sptune-opt %s -split-input-file --sptune-extract-kernels --sptune-autotune="mode=heuristic multiversion=2 training-matrices=%t.bad" 2>&1 | FileCheck %s --check-prefix=BAD
//
// TOOMANY: error: sptune-autotune: multiversion must be at most 16, got 17
// MISSING: error: sptune-autotune: cannot read the training matrices '{{.*}}.missing'
// EMPTY: error: sptune-autotune: the training matrices file '{{.*}}.empty' names no matrix
// BAD: error: sptune-autotune: training matrix 'gen:uniform:rows=64': {{.*}}nnz

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CHECK-LABEL: func.func @spmv(
// CHECK-SAME:    sptune.dispatch =
// CHECK:         call @spmv__sptune_route(%arg0)
// CHECK:         scf.index_switch
// CHECK-LABEL: func.func @spmv__sptune_v0(
// CHECK:         linalg.matvec {{.*}}sptune.schedule = #sptune.schedule<cpu spmv
// CHECK-LABEL: func.func @spmv__sptune_route(
// CHECK-SAME:    -> index
func.func @spmv(%a: tensor<?x?xf64, #CSR>, %x: tensor<?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
  // expected-remark @+1 {{no matrix for this kernel: }}
  %0 = linalg.matvec ins(%a, %x : tensor<?x?xf64, #CSR>, tensor<?xf64>) outs(%y : tensor<?xf64>) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// A kernel with its matrix is tuned for it, not multi-versioned.
// CHECK-LABEL: func.func @known(
// CHECK-NOT:     sptune.dispatch
// CHECK:         linalg.matvec {{.*}}sptune.schedule
// CHECK-NOT:   func.func @known__sptune_v0
func.func @known(%a: tensor<?x?xf64, #CSR> {sptune.matrix = "gen:uniform:rows=128,cols=128,nnz=512,seed=1"}, %x: tensor<?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
  // expected-remark @+2 {{sptune-autotune (heuristic}}
  // expected-note @+1 {{tuned for the matrix}}
  %0 = linalg.matvec ins(%a, %x : tensor<?x?xf64, #CSR>, tensor<?xf64>) outs(%y : tensor<?xf64>) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Two kernels in one function: the heuristic schedule for each, and why.
// CHECK-LABEL: func.func @two(
// CHECK-NOT:     sptune.dispatch
func.func @two(%a: tensor<?x?xf64, #CSR>, %x: tensor<?xf64>, %y: tensor<?xf64>, %z: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
  // expected-remark @+1 {{using the heuristic schedule (not multi-versioned: its function @two holds 2 kernels (a dispatcher routes one; put each in its own function))}}
  %0 = linalg.matvec ins(%a, %x : tensor<?x?xf64, #CSR>, tensor<?xf64>) outs(%y : tensor<?xf64>) -> tensor<?xf64>
  // expected-remark @+1 {{not multi-versioned: its function @two holds 2 kernels}}
  %1 = linalg.matvec ins(%a, %x : tensor<?x?xf64, #CSR>, tensor<?xf64>) outs(%z : tensor<?xf64>) -> tensor<?xf64>
  return %0, %1 : tensor<?xf64>, tensor<?xf64>
}

// -----

#COO = #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed(nonunique), j : singleton) }>

// The dispatcher reads CSR positions.
func.func @coo(%a: tensor<?x?xf64, #COO>, %x: tensor<?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
  // expected-remark @+1 {{not multi-versioned: the sparse operand is not stored as CSR (the dispatcher reads its row positions)}}
  %0 = linalg.matvec ins(%a, %x : tensor<?x?xf64, #COO>, tensor<?xf64>) outs(%y : tensor<?xf64>) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// The sparse operand must be what the function is called with.
func.func @made(%d: tensor<64x64xf64>, %x: tensor<64xf64>, %y: tensor<64xf64>) -> tensor<64xf64> {
  %a = sparse_tensor.convert %d : tensor<64x64xf64> to tensor<64x64xf64, #CSR>
  // expected-remark @+1 {{not multi-versioned: the sparse operand is not an argument of @made}}
  %0 = linalg.matvec ins(%a, %x : tensor<64x64xf64, #CSR>, tensor<64xf64>) outs(%y : tensor<64xf64>) -> tensor<64xf64>
  return %0 : tensor<64xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// A name the variants need, taken by something other than their
// declaration.
func.func @taken(%a: tensor<?x?xf64, #CSR>, %x: tensor<?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
  // expected-error @+1 {{cannot multi-version @taken: the module already has a symbol @taken__sptune_v0 (only a declaration of type}}
  %0 = linalg.matvec ins(%a, %x : tensor<?x?xf64, #CSR>, tensor<?xf64>) outs(%y : tensor<?xf64>) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}
func.func private @taken__sptune_v0(tensor<?x?xf64, #CSR>) -> index

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// An SpGEMM gets one schedule; and next to it, an SpMV is not multi-versioned
// either (its function holds two kernels).
// CHECK-LABEL: func.func @spgemm(
// CHECK-NOT:     sptune.dispatch
func.func @spgemm(%a: tensor<?x?xf64, #CSR>, %b: tensor<?x?xf64, #CSR>, %x: tensor<?xf64>, %y: tensor<?xf64>) -> (tensor<?x?xf64, #CSR>, tensor<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf64, #CSR>
  %n = tensor.dim %b, %c1 : tensor<?x?xf64, #CSR>
  %e = tensor.empty(%m, %n) : tensor<?x?xf64, #CSR>
  // expected-remark @+1 {{using the heuristic schedule (not multi-versioned: SpGEMM kernels get one schedule (multi-versioning picks no SpGEMM variants; the shipped cost model has no SpGEMM feature))}}
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf64, #CSR>, tensor<?x?xf64, #CSR>) outs(%e : tensor<?x?xf64, #CSR>) -> tensor<?x?xf64, #CSR>
  // expected-remark @+1 {{not multi-versioned: its function @spgemm holds 2 kernels}}
  %1 = linalg.matvec ins(%a, %x : tensor<?x?xf64, #CSR>, tensor<?xf64>) outs(%y : tensor<?xf64>) -> tensor<?xf64>
  return %0, %1 : tensor<?x?xf64, #CSR>, tensor<?xf64>
}
