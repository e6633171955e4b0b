// Which batched SpMMs sptune-cpu-sparsify computes with its kernel over the
// batches' rows (targets/cpu/BatchedRowsSpmm.h): two of one signature share
// one declaration; batches of DCSR, COO with a repeated entry (a non-unique
// last level; ordered COO is computed,
// test/Integration/cpu-batched-rows-spmm-coo.mlir), a scaled body, B read with k
// innermost, a dynamic N, C filled in the caller's buffer, integer
// elements, A's levels in another order than its dimensions, a slice of A
// rows of C above 512 bytes and repeated coordinates (a non-unique level)
// are left to the sparsifier (no call), as the rule for kernels
// without a schedule lowers them. Executed results are compared in
// test/Integration/cpu-batched-rows-spmm.mlir.
//
// RUN: sptune-opt %s --linalg-generalize-named-ops --sptune-cpu-sparsify | FileCheck %s

// CHECK-LABEL: func.func private @sptune_batched_spmm(
// CHECK-SAME:    -> memref<?x?x16xf32>
// CHECK-NOT:   func.func private @sptune_batched_spmm
// CHECK-LABEL: func.func @twice(
// CHECK:         call @sptune_batched_spmm(
// CHECK:         call @sptune_batched_spmm(
// CHECK-LABEL: func.func @dcsr(
// CHECK-NOT:     call @sptune_batched_spmm
// CHECK:         return
// CHECK-LABEL: func.func @coo(
// CHECK-NOT:     call @sptune_batched_spmm
// CHECK:         return
// CHECK-LABEL: func.func @scaled(
// CHECK-NOT:     call @sptune_batched_spmm
// CHECK:         return
// CHECK-LABEL: func.func @b_by_columns(
// CHECK-NOT:     call @sptune_batched_spmm
// CHECK:         return
// CHECK-LABEL: func.func @dynamic_n(
// CHECK-NOT:     call @sptune_batched_spmm
// CHECK:         return
// CHECK-LABEL: func.func @fill_of_argument(
// CHECK-NOT:     call @sptune_batched_spmm
// CHECK:         return
// CHECK-LABEL: func.func @integers(
// CHECK-NOT:     call @sptune_batched_spmm
// CHECK:         return
// CHECK-LABEL: func.func @levels_permuted(
// CHECK-NOT:     call @sptune_batched_spmm
// CHECK:         return
// CHECK-LABEL: func.func @sliced(
// CHECK-NOT:     call @sptune_batched_spmm
// CHECK:         return
// CHECK-LABEL: func.func @wide(
// CHECK-NOT:     call @sptune_batched_spmm
// CHECK:         return
// CHECK-LABEL: func.func @non_unique(
// CHECK-NOT:     call @sptune_batched_spmm
// CHECK:         return

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>
#BDCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : compressed, k : compressed) }>
#IBK = #sparse_tensor.encoding<{ map = (b, i, k) -> (i : dense, b : dense, k : compressed) }>
#BCSRS = #sparse_tensor.encoding<{ map = (b : #sparse_tensor<slice(0, 2, 1)>, i : #sparse_tensor<slice(1, 4, 1)>, k : #sparse_tensor<slice(0, 8, 1)>) -> (b : dense, i : dense, k : compressed) }>
#COO = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : compressed(nonunique), i : singleton(nonunique), k : singleton(nonunique)) }>
#NU = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed(nonunique)) }>

func.func @twice(%a: tensor<?x?x?xf32, #BCSR>, %b: tensor<?x?x16xf32>, %b2: tensor<?x?x16xf32>) -> (tensor<?x?x16xf32>, tensor<?x?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %nb = tensor.dim %a, %c0 : tensor<?x?x?xf32, #BCSR>
  %m = tensor.dim %a, %c1 : tensor<?x?x?xf32, #BCSR>
  %e = tensor.empty(%nb, %m) : tensor<?x?x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x?x?xf32, #BCSR>, tensor<?x?x16xf32>) outs(%c : tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  %e2 = tensor.empty(%nb, %m) : tensor<?x?x16xf32>
  %c2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  %r2 = linalg.batch_matmul ins(%a, %b2 : tensor<?x?x?xf32, #BCSR>, tensor<?x?x16xf32>) outs(%c2 : tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  return %r, %r2 : tensor<?x?x16xf32>, tensor<?x?x16xf32>
}

func.func @dcsr(%a: tensor<2x8x8xf32, #BDCSR>, %b: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x8x8xf32, #BDCSR>, tensor<2x8x16xf32>) outs(%c : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %r : tensor<2x8x16xf32>
}

func.func @coo(%a: tensor<2x8x8xf32, #COO>, %b: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x8x8xf32, #COO>, tensor<2x8x16xf32>) outs(%c : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %r : tensor<2x8x16xf32>
}

func.func @scaled(%a: tensor<2x8x8xf32, #BCSR>, %b: tensor<2x8x16xf32>, %alpha: f32) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j, k) -> (b, i, k)>, affine_map<(b, i, j, k) -> (b, k, j)>, affine_map<(b, i, j, k) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
    ins(%a, %b : tensor<2x8x8xf32, #BCSR>, tensor<2x8x16xf32>) outs(%c : tensor<2x8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %alpha : f32
    %s = arith.addf %o, %q : f32
    linalg.yield %s : f32
  } -> tensor<2x8x16xf32>
  return %r : tensor<2x8x16xf32>
}

func.func @b_by_columns(%a: tensor<2x8x8xf32, #BCSR>, %bt: tensor<2x16x8xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j, k) -> (b, i, k)>, affine_map<(b, i, j, k) -> (b, j, k)>, affine_map<(b, i, j, k) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
    ins(%a, %bt : tensor<2x8x8xf32, #BCSR>, tensor<2x16x8xf32>) outs(%c : tensor<2x8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x8x16xf32>
  return %r : tensor<2x8x16xf32>
}

func.func @dynamic_n(%a: tensor<2x8x8xf32, #BCSR>, %b: tensor<2x8x?xf32>) -> tensor<2x8x?xf32> {
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %b, %c2 : tensor<2x8x?xf32>
  %e = tensor.empty(%n) : tensor<2x8x?xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x?xf32>) -> tensor<2x8x?xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x8x8xf32, #BCSR>, tensor<2x8x?xf32>) outs(%c : tensor<2x8x?xf32>) -> tensor<2x8x?xf32>
  return %r : tensor<2x8x?xf32>
}

func.func @fill_of_argument(%a: tensor<2x8x8xf32, #BCSR>, %b: tensor<2x8x16xf32>, %out: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = linalg.fill ins(%zero : f32) outs(%out : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x8x8xf32, #BCSR>, tensor<2x8x16xf32>) outs(%c : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %r : tensor<2x8x16xf32>
}

func.func @integers(%a: tensor<2x8x8xi32, #BCSR>, %b: tensor<2x8x16xi32>) -> tensor<2x8x16xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2x8x16xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<2x8x16xi32>) -> tensor<2x8x16xi32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x8x8xi32, #BCSR>, tensor<2x8x16xi32>) outs(%c : tensor<2x8x16xi32>) -> tensor<2x8x16xi32>
  return %r : tensor<2x8x16xi32>
}

func.func @levels_permuted(%a: tensor<2x8x8xf32, #IBK>, %b: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x8x8xf32, #IBK>, tensor<2x8x16xf32>) outs(%c : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %r : tensor<2x8x16xf32>
}

func.func @sliced(%a: tensor<2x4x8xf32, #BCSRS>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32, #BCSRS>, tensor<2x8x16xf32>) outs(%c : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}

func.func @wide(%a: tensor<2x8x8xf32, #BCSR>, %b: tensor<2x8x256xf32>) -> tensor<2x8x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x256xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x256xf32>) -> tensor<2x8x256xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x8x8xf32, #BCSR>, tensor<2x8x256xf32>) outs(%c : tensor<2x8x256xf32>) -> tensor<2x8x256xf32>
  return %r : tensor<2x8x256xf32>
}

func.func @non_unique(%a: tensor<2x8x8xf32, #NU>, %b: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x8x8xf32, #NU>, tensor<2x8x16xf32>) outs(%c : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %r : tensor<2x8x16xf32>
}
