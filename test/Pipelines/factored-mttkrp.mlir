// Which MTTKRPs sptune-cpu-sparsify computes with its factored kernel
// (targets/cpu/FactoredMttkrp.h): two of one signature share one
// declaration, each given its C and D whichever order the op reads them
// in; one that reads another's result (CP-ALS) is matched after that one is
// outlined; a scaled body, B in COO with entries repeated (a non-unique
// last level; ordered COO is computed, test/Integration/cpu-mttkrp-coo.mlir),
// C read by columns, rows above 512
// bytes, integer elements, B's levels in another order than its dimensions
// A filled in the caller's buffer, a slice of B and B with repeated slices
// (a non-unique first level), CSF whose slices and COO whose levels are not
// ordered are left
// to the sparsifier (no
// call), as the rule for kernels without a schedule lowers them. Executed results are
// compared in test/Integration/cpu-mttkrp-factored.mlir.
//
// RUN: sptune-opt %s --sptune-cpu-sparsify | FileCheck %s

// CHECK-LABEL: func.func private @sptune_mttkrp(
// CHECK-SAME:    -> memref<?x16xf64>
// CHECK-NOT:   func.func private @sptune_mttkrp
// The second reads D as its C: the call passes them the other way round.
// CHECK-LABEL: func.func @twice(
// CHECK-SAME:    %[[C:arg6]]: memref<?x16xf64>, %[[D:arg7]]: memref<?x16xf64>
// CHECK:         call @sptune_mttkrp(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %[[C]], %[[D]],
// CHECK:         call @sptune_mttkrp(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %[[D]], %[[C]],
// CHECK-LABEL: func.func @scaled(
// CHECK-NOT:     call @sptune_mttkrp
// CHECK:         scf.parallel
// CHECK-LABEL: func.func @coo_repeated(
// CHECK-NOT:     call @sptune_mttkrp
// CHECK:         return
// CHECK-LABEL: func.func @c_by_columns(
// CHECK-NOT:     call @sptune_mttkrp
// CHECK:         return
// CHECK-LABEL: func.func @wide(
// CHECK-NOT:     call @sptune_mttkrp
// CHECK:         return
// CHECK-LABEL: func.func @integers(
// CHECK-NOT:     call @sptune_mttkrp
// CHECK:         return
// A CP-ALS step: the second MTTKRP reads the first's result as its C.
// CHECK-LABEL: func.func @chained(
// CHECK:         %[[A1:.*]] = call @sptune_mttkrp(
// CHECK:         call @sptune_mttkrp({{.*}}, %[[A1]], %arg12,
// CHECK-LABEL: func.func @levels_permuted(
// CHECK-NOT:     call @sptune_mttkrp
// CHECK:         return
// CHECK-LABEL: func.func @fill_of_argument(
// CHECK-NOT:     call @sptune_mttkrp
// CHECK:         return
// CHECK-LABEL: func.func @sliced(
// CHECK-NOT:     call @sptune_mttkrp
// CHECK:         return
// CHECK-LABEL: func.func @non_unique(
// CHECK-NOT:     call @sptune_mttkrp
// CHECK:         return
// COO whose levels are not ordered: a slice's entries need not be together.
// CHECK-LABEL: func.func @coo_unordered(
// CHECK-NOT:     call @sptune_mttkrp
// CHECK:         return
// CSF whose slices are not ordered: a slice fills the rows of no slice
// between the previous slice and itself.
// CHECK-LABEL: func.func @csf_unordered(
// CHECK-NOT:     call @sptune_mttkrp
// CHECK:         return

#DCSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : dense, k : compressed, l : compressed) }>
#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
#COO = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed(nonunique), k : singleton(nonunique), l : singleton(nonunique)) }>
#CSFS = #sparse_tensor.encoding<{ map = (i : #sparse_tensor<slice(1, 4, 1)>, k : #sparse_tensor<slice(0, 3, 1)>, l : #sparse_tensor<slice(0, 4, 1)>) -> (i : compressed, k : compressed, l : compressed) }>
#KIL = #sparse_tensor.encoding<{ map = (i, k, l) -> (k : compressed, i : compressed, l : compressed) }>
#NU = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed(nonunique), k : compressed, l : compressed) }>
#UCSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed(nonordered), k : compressed, l : compressed) }>
#UCOO = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed(nonunique, nonordered), k : singleton(nonunique, nonordered), l : singleton(nonordered)) }>

#B = affine_map<(i, j, k, l) -> (i, k, l)>
#C = affine_map<(i, j, k, l) -> (k, j)>
#Ct = affine_map<(i, j, k, l) -> (j, k)>
#D = affine_map<(i, j, k, l) -> (l, j)>
#A = affine_map<(i, j, k, l) -> (i, j)>
#trait = {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}

func.func @twice(%b: tensor<?x?x?xf64, #DCSF>, %c: tensor<?x16xf64>, %d: tensor<?x16xf64>) -> (tensor<?x16xf64>, tensor<?x16xf64>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %b, %c0 : tensor<?x?x?xf64, #DCSF>
  %e = tensor.empty(%n) : tensor<?x16xf64>
  %a = linalg.fill ins(%zero : f64) outs(%e : tensor<?x16xf64>) -> tensor<?x16xf64>
  %r = linalg.generic #trait ins(%b, %c, %d : tensor<?x?x?xf64, #DCSF>, tensor<?x16xf64>, tensor<?x16xf64>) outs(%a : tensor<?x16xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<?x16xf64>
  %e2 = tensor.empty(%n) : tensor<?x16xf64>
  %a2 = linalg.fill ins(%zero : f64) outs(%e2 : tensor<?x16xf64>) -> tensor<?x16xf64>
  %r2 = linalg.generic #trait ins(%b, %d, %c : tensor<?x?x?xf64, #DCSF>, tensor<?x16xf64>, tensor<?x16xf64>) outs(%a2 : tensor<?x16xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<?x16xf64>
  return %r, %r2 : tensor<?x16xf64>, tensor<?x16xf64>
}

func.func @scaled(%b: tensor<?x?x?xf64, #CSF>, %c: tensor<?x16xf64>, %d: tensor<?x16xf64>, %alpha: f64) -> tensor<?x16xf64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %b, %c0 : tensor<?x?x?xf64, #CSF>
  %e = tensor.empty(%n) : tensor<?x16xf64>
  %a = linalg.fill ins(%zero : f64) outs(%e : tensor<?x16xf64>) -> tensor<?x16xf64>
  %r = linalg.generic #trait ins(%b, %c, %d : tensor<?x?x?xf64, #CSF>, tensor<?x16xf64>, tensor<?x16xf64>) outs(%a : tensor<?x16xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %w = arith.mulf %q, %alpha : f64
    %s = arith.addf %o, %w : f64
    linalg.yield %s : f64
  } -> tensor<?x16xf64>
  return %r : tensor<?x16xf64>
}

func.func @coo_repeated(%b: tensor<?x?x?xf64, #COO>, %c: tensor<?x16xf64>, %d: tensor<?x16xf64>) -> tensor<?x16xf64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %b, %c0 : tensor<?x?x?xf64, #COO>
  %e = tensor.empty(%n) : tensor<?x16xf64>
  %a = linalg.fill ins(%zero : f64) outs(%e : tensor<?x16xf64>) -> tensor<?x16xf64>
  %r = linalg.generic #trait ins(%b, %c, %d : tensor<?x?x?xf64, #COO>, tensor<?x16xf64>, tensor<?x16xf64>) outs(%a : tensor<?x16xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<?x16xf64>
  return %r : tensor<?x16xf64>
}

func.func @c_by_columns(%b: tensor<?x?x?xf64, #CSF>, %ct: tensor<16x?xf64>, %d: tensor<?x16xf64>) -> tensor<?x16xf64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %b, %c0 : tensor<?x?x?xf64, #CSF>
  %e = tensor.empty(%n) : tensor<?x16xf64>
  %a = linalg.fill ins(%zero : f64) outs(%e : tensor<?x16xf64>) -> tensor<?x16xf64>
  %r = linalg.generic {indexing_maps = [#B, #Ct, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %ct, %d : tensor<?x?x?xf64, #CSF>, tensor<16x?xf64>, tensor<?x16xf64>) outs(%a : tensor<?x16xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<?x16xf64>
  return %r : tensor<?x16xf64>
}

func.func @wide(%b: tensor<?x?x?xf64, #CSF>, %c: tensor<?x128xf64>, %d: tensor<?x128xf64>) -> tensor<?x128xf64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %b, %c0 : tensor<?x?x?xf64, #CSF>
  %e = tensor.empty(%n) : tensor<?x128xf64>
  %a = linalg.fill ins(%zero : f64) outs(%e : tensor<?x128xf64>) -> tensor<?x128xf64>
  %r = linalg.generic #trait ins(%b, %c, %d : tensor<?x?x?xf64, #CSF>, tensor<?x128xf64>, tensor<?x128xf64>) outs(%a : tensor<?x128xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<?x128xf64>
  return %r : tensor<?x128xf64>
}

func.func @integers(%b: tensor<?x?x?xi32, #CSF>, %c: tensor<?x16xi32>, %d: tensor<?x16xi32>) -> tensor<?x16xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %n = tensor.dim %b, %c0 : tensor<?x?x?xi32, #CSF>
  %e = tensor.empty(%n) : tensor<?x16xi32>
  %a = linalg.fill ins(%zero : i32) outs(%e : tensor<?x16xi32>) -> tensor<?x16xi32>
  %r = linalg.generic #trait ins(%b, %c, %d : tensor<?x?x?xi32, #CSF>, tensor<?x16xi32>, tensor<?x16xi32>) outs(%a : tensor<?x16xi32>) {
  ^bb0(%x: i32, %y: i32, %z: i32, %o: i32):
    %p = arith.muli %x, %y : i32
    %q = arith.muli %p, %z : i32
    %s = arith.addi %o, %q : i32
    linalg.yield %s : i32
  } -> tensor<?x16xi32>
  return %r : tensor<?x16xi32>
}

func.func @chained(%b: tensor<?x?x?xf64, #DCSF>, %b2: tensor<?x?x?xf64, #DCSF>, %d: tensor<?x16xf64>) -> tensor<?x16xf64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %b, %c0 : tensor<?x?x?xf64, #DCSF>
  %e = tensor.empty(%n) : tensor<?x16xf64>
  %a = linalg.fill ins(%zero : f64) outs(%e : tensor<?x16xf64>) -> tensor<?x16xf64>
  %r = linalg.generic #trait ins(%b, %d, %d : tensor<?x?x?xf64, #DCSF>, tensor<?x16xf64>, tensor<?x16xf64>) outs(%a : tensor<?x16xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<?x16xf64>
  %n2 = tensor.dim %b2, %c0 : tensor<?x?x?xf64, #DCSF>
  %e2 = tensor.empty(%n2) : tensor<?x16xf64>
  %a2 = linalg.fill ins(%zero : f64) outs(%e2 : tensor<?x16xf64>) -> tensor<?x16xf64>
  %r2 = linalg.generic #trait ins(%b2, %r, %d : tensor<?x?x?xf64, #DCSF>, tensor<?x16xf64>, tensor<?x16xf64>) outs(%a2 : tensor<?x16xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<?x16xf64>
  bufferization.dealloc_tensor %r : tensor<?x16xf64>
  return %r2 : tensor<?x16xf64>
}

func.func @levels_permuted(%b: tensor<?x?x?xf64, #KIL>, %c: tensor<?x16xf64>, %d: tensor<?x16xf64>) -> tensor<?x16xf64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %b, %c0 : tensor<?x?x?xf64, #KIL>
  %e = tensor.empty(%n) : tensor<?x16xf64>
  %a = linalg.fill ins(%zero : f64) outs(%e : tensor<?x16xf64>) -> tensor<?x16xf64>
  %r = linalg.generic #trait ins(%b, %c, %d : tensor<?x?x?xf64, #KIL>, tensor<?x16xf64>, tensor<?x16xf64>) outs(%a : tensor<?x16xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<?x16xf64>
  return %r : tensor<?x16xf64>
}

func.func @fill_of_argument(%b: tensor<?x?x?xf64, #CSF>, %c: tensor<?x16xf64>, %d: tensor<?x16xf64>, %out: tensor<?x16xf64>) -> tensor<?x16xf64> {
  %zero = arith.constant 0.0 : f64
  %a = linalg.fill ins(%zero : f64) outs(%out : tensor<?x16xf64>) -> tensor<?x16xf64>
  %r = linalg.generic #trait ins(%b, %c, %d : tensor<?x?x?xf64, #CSF>, tensor<?x16xf64>, tensor<?x16xf64>) outs(%a : tensor<?x16xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<?x16xf64>
  return %r : tensor<?x16xf64>
}

func.func @sliced(%b: tensor<4x3x4xf64, #CSFS>, %c: tensor<3x16xf64>, %d: tensor<4x16xf64>) -> tensor<4x16xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<4x16xf64>
  %a = linalg.fill ins(%zero : f64) outs(%e : tensor<4x16xf64>) -> tensor<4x16xf64>
  %r = linalg.generic #trait ins(%b, %c, %d : tensor<4x3x4xf64, #CSFS>, tensor<3x16xf64>, tensor<4x16xf64>) outs(%a : tensor<4x16xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<4x16xf64>
  return %r : tensor<4x16xf64>
}

// Two slices of one row would store A's row twice, in parallel.
func.func @non_unique(%b: tensor<?x?x?xf64, #NU>, %c: tensor<?x16xf64>, %d: tensor<?x16xf64>) -> tensor<?x16xf64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %b, %c0 : tensor<?x?x?xf64, #NU>
  %e = tensor.empty(%n) : tensor<?x16xf64>
  %a = linalg.fill ins(%zero : f64) outs(%e : tensor<?x16xf64>) -> tensor<?x16xf64>
  %r = linalg.generic #trait ins(%b, %c, %d : tensor<?x?x?xf64, #NU>, tensor<?x16xf64>, tensor<?x16xf64>) outs(%a : tensor<?x16xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<?x16xf64>
  return %r : tensor<?x16xf64>
}

func.func @coo_unordered(%b: tensor<?x?x?xf64, #UCOO>, %c: tensor<?x16xf64>, %d: tensor<?x16xf64>) -> tensor<?x16xf64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %b, %c0 : tensor<?x?x?xf64, #UCOO>
  %e = tensor.empty(%n) : tensor<?x16xf64>
  %a = linalg.fill ins(%zero : f64) outs(%e : tensor<?x16xf64>) -> tensor<?x16xf64>
  %r = linalg.generic #trait ins(%b, %c, %d : tensor<?x?x?xf64, #UCOO>, tensor<?x16xf64>, tensor<?x16xf64>) outs(%a : tensor<?x16xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<?x16xf64>
  return %r : tensor<?x16xf64>
}

func.func @csf_unordered(%b: tensor<?x?x?xf64, #UCSF>, %c: tensor<?x16xf64>, %d: tensor<?x16xf64>) -> tensor<?x16xf64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %b, %c0 : tensor<?x?x?xf64, #UCSF>
  %e = tensor.empty(%n) : tensor<?x16xf64>
  %a = linalg.fill ins(%zero : f64) outs(%e : tensor<?x16xf64>) -> tensor<?x16xf64>
  %r = linalg.generic #trait ins(%b, %c, %d : tensor<?x?x?xf64, #UCSF>, tensor<?x16xf64>, tensor<?x16xf64>) outs(%a : tensor<?x16xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<?x16xf64>
  return %r : tensor<?x16xf64>
}
