// Sparse kernels without a schedule get the CPU target's rule
// (targets/cpu/UnscheduledKernels.h): a parallel outermost loop where
// whichever loop the sparsifier may put there is parallel and indexes the
// dense output, and 8 vector lanes where a parallel loop indexes no sparse
// operand. Everything else stays sequential and scalar, and
// parallelize-unscheduled=false keeps upstream's defaults everywhere.
//
// RUN: sptune-opt %s -split-input-file --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify | FileCheck %s
// RUN: sptune-opt %s -split-input-file --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify=parallelize-unscheduled=false | FileCheck %s --check-prefix=UPSTREAM

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>

// MTTKRP on CSF: i or j may come first (k and l follow levels); both are
// parallel and index A. j indexes no sparse operand and is the inner
// dimension of C, D and A: vectorized.
// CHECK-LABEL: func.func @mttkrp
// CHECK:       scf.parallel
// CHECK:       vector<8xf64>
// UPSTREAM-LABEL: func.func @mttkrp
// UPSTREAM-NOT:   scf.parallel
// UPSTREAM-NOT:   vector<8xf64>
// UPSTREAM:       return
func.func @mttkrp(%b: tensor<?x?x?xf64, #CSF>, %c: tensor<?x32xf64>, %d: tensor<?x32xf64>, %a: tensor<?x32xf64>) -> tensor<?x32xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k, l) -> (i, k, l)>, affine_map<(i, j, k, l) -> (k, j)>, affine_map<(i, j, k, l) -> (l, j)>, affine_map<(i, j, k, l) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %c, %d : tensor<?x?x?xf64, #CSF>, tensor<?x32xf64>, tensor<?x32xf64>) outs(%a : tensor<?x32xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %0 = arith.mulf %x, %y : f64
    %1 = arith.mulf %0, %z : f64
    %2 = arith.addf %o, %1 : f64
    linalg.yield %2 : f64
  } -> tensor<?x32xf64>
  return %r : tensor<?x32xf64>
}

// -----

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>

// Batched SpMM: b or j may come first; both parallel and index C; j
// vectorized.
// CHECK-LABEL: func.func @batched
// CHECK:       scf.parallel
// CHECK:       vector<8xf32>
func.func @batched(%a: tensor<4x16x16xf32, #BCSR>, %b: tensor<4x16x32xf32>, %c: tensor<4x16x32xf32>) -> tensor<4x16x32xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x16x16xf32, #BCSR>, tensor<4x16x32xf32>) outs(%c : tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  return %r : tensor<4x16x32xf32>
}

// -----

#CSC = #sparse_tensor.encoding<{ map = (i, k) -> (k : dense, i : compressed) }>

// SpMV on CSC: the column loop k comes first and is a reduction (every
// column adds into the whole of y): sequential, and no loop is dense and
// parallel: scalar.
// CHECK-LABEL: func.func @matvec_csc
// CHECK-NOT:   scf.parallel
// CHECK-NOT:   vector<
// CHECK:       return
func.func @matvec_csc(%a: tensor<64x64xf32, #CSC>, %x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.matvec ins(%a, %x : tensor<64x64xf32, #CSC>, tensor<64xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, k) -> (i : dense, k : compressed) }>

// Sums of the columns, y(k) = sum_i A(i, k): the row loop i comes first and
// is a reduction: sequential.
// CHECK-LABEL: func.func @column_sums
// CHECK-NOT:   scf.parallel
// CHECK:       return
func.func @column_sums(%a: tensor<64x64xf32, #CSR>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>], iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<64x64xf32, #CSR>) outs(%y : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %o, %v : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, k) -> (i : dense, k : compressed) }>

// SpMM with CSR and a dense B: no level orders j, so j may come first as
// well as i; both are parallel and index C: parallel and vectorized.
// CHECK-LABEL: func.func @spmm_unscheduled
// CHECK:       scf.parallel
// CHECK:       vector<8xf32>
func.func @spmm_unscheduled(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

#BSR = #sparse_tensor.encoding<{ map = (i, j) -> (i floordiv 2 : dense, j floordiv 2 : compressed, i mod 2 : dense, j mod 2 : dense) }>

// Block-sparse storage: its demapped kernel keeps a scratch buffer outside
// the loops; sequential.
// CHECK-LABEL: func.func @bsr
// CHECK-NOT:   scf.parallel
// CHECK:       return
func.func @bsr(%a: tensor<8x8xf64, #BSR>, %b: tensor<8x8xf64>, %c: tensor<8x8xf64>) -> tensor<8x8xf64> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xf64, #BSR>, tensor<8x8xf64>) outs(%c : tensor<8x8xf64>) -> tensor<8x8xf64>
  return %r : tensor<8x8xf64>
}

// -----

#SV = #sparse_tensor.encoding<{ map = (i) -> (i : compressed) }>

// A sparse output: upstream inserts into it in order; sequential.
// CHECK-LABEL: func.func @sparse_out
// CHECK-NOT:   scf.parallel
// CHECK:       return
func.func @sparse_out(%a: tensor<64xf32, #SV>, %x: tensor<64xf32>) -> tensor<64xf32, #SV> {
  %e = tensor.empty() : tensor<64xf32, #SV>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a, %x : tensor<64xf32, #SV>, tensor<64xf32>) outs(%e : tensor<64xf32, #SV>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %m = arith.mulf %u, %v : f32
    linalg.yield %m : f32
  } -> tensor<64xf32, #SV>
  return %r : tensor<64xf32, #SV>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, k) -> (i : dense, k : compressed) }>

// The diagonal of A B, both CSR: A orders i before j, B j before i; upstream
// converts one of them and may put the reduction j first: sequential.
// CHECK-LABEL: func.func @conflicting_orders
// CHECK-NOT:   scf.parallel
// CHECK:       return
func.func @conflicting_orders(%a: tensor<8x8xf64, #CSR>, %b: tensor<8x8xf64, #CSR>, %y: tensor<8xf64>) -> tensor<8xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<8x8xf64, #CSR>, tensor<8x8xf64, #CSR>) outs(%y : tensor<8xf64>) {
  ^bb0(%x: f64, %z: f64, %o: f64):
    %m = arith.mulf %x, %z : f64
    %s = arith.addf %o, %m : f64
    linalg.yield %s : f64
  } -> tensor<8xf64>
  return %r : tensor<8xf64>
}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
#CSC = #sparse_tensor.encoding<{ map = (i, k) -> (k : dense, i : compressed) }>

// Two kernels without a schedule in one function share its setting: the
// matvec on CSC must stay sequential, so MTTKRP does too.
// CHECK-LABEL: func.func @two_unscheduled
// CHECK-NOT:   scf.parallel
// CHECK-NOT:   vector<8xf64>
// CHECK:       return
func.func @two_unscheduled(%b: tensor<?x?x?xf64, #CSF>, %c: tensor<?x32xf64>, %d: tensor<?x32xf64>, %a: tensor<?x32xf64>,
                           %t: tensor<64x64xf64, #CSC>, %x: tensor<64xf64>, %y: tensor<64xf64>) -> (tensor<?x32xf64>, tensor<64xf64>) {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k, l) -> (i, k, l)>, affine_map<(i, j, k, l) -> (k, j)>, affine_map<(i, j, k, l) -> (l, j)>, affine_map<(i, j, k, l) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %c, %d : tensor<?x?x?xf64, #CSF>, tensor<?x32xf64>, tensor<?x32xf64>) outs(%a : tensor<?x32xf64>) {
  ^bb0(%u: f64, %v: f64, %w: f64, %o: f64):
    %0 = arith.mulf %u, %v : f64
    %1 = arith.mulf %0, %w : f64
    %2 = arith.addf %o, %1 : f64
    linalg.yield %2 : f64
  } -> tensor<?x32xf64>
  %s = linalg.matvec ins(%t, %x : tensor<64x64xf64, #CSC>, tensor<64xf64>) outs(%y : tensor<64xf64>) -> tensor<64xf64>
  return %r, %s : tensor<?x32xf64>, tensor<64xf64>
}

// -----

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// A scheduled kernel next to MTTKRP in one function: the scheduled one moves
// into a function of its own with its settings (no vectors here), MTTKRP
// stays with the rule's.
// CHECK-LABEL: func.func @with_scheduled
// CHECK:       scf.parallel
// CHECK:       vector<8xf64>
// CHECK:       call @with_scheduled__sptune_kernel0
// CHECK:       return
// CHECK-LABEL: func.func private @with_scheduled__sptune_kernel0
// CHECK-NOT:   scf.parallel
// CHECK:       return
func.func @with_scheduled(%b: tensor<?x?x?xf64, #CSF>, %c: tensor<?x32xf64>, %d: tensor<?x32xf64>, %a: tensor<?x32xf64>,
                          %s: tensor<64x64xf64, #CSR>, %x: tensor<64x64xf64>, %y: tensor<64x64xf64>) -> (tensor<?x32xf64>, tensor<64x64xf64>) {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k, l) -> (i, k, l)>, affine_map<(i, j, k, l) -> (k, j)>, affine_map<(i, j, k, l) -> (l, j)>, affine_map<(i, j, k, l) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %c, %d : tensor<?x?x?xf64, #CSF>, tensor<?x32xf64>, tensor<?x32xf64>) outs(%a : tensor<?x32xf64>) {
  ^bb0(%u: f64, %v: f64, %w: f64, %o: f64):
    %0 = arith.mulf %u, %v : f64
    %1 = arith.mulf %0, %w : f64
    %2 = arith.addf %o, %1 : f64
    linalg.yield %2 : f64
  } -> tensor<?x32xf64>
  %m = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f64, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm>}
    ins(%s, %x : tensor<64x64xf64, #CSR>, tensor<64x64xf64>) outs(%y : tensor<64x64xf64>) -> tensor<64x64xf64>
  return %r, %m : tensor<?x32xf64>, tensor<64x64xf64>
}
