// Which MTTKRPs sptune-cpu-sparsify computes with its factored kernel
// (targets/cpu/FactoredMttkrp.h): two of one signature share one
// declaration; a scaled body, B in COO, C read by columns, rows above 512
// bytes and integer elements are left to the sparsifier (no call), as the
// rule for kernels without a schedule lowers them. Executed results are
// compared in test/Integration/cpu-mttkrp-factored.mlir.
//
// RUN: sptune-opt %s --sptune-cpu-sparsify | FileCheck %s

// CHECK-LABEL: func.func private @sptune_mttkrp(
// CHECK-SAME:    -> memref<?x16xf64>
// CHECK-NOT:   func.func private @sptune_mttkrp
// CHECK-LABEL: func.func @twice(
// CHECK:         call @sptune_mttkrp(
// CHECK:         call @sptune_mttkrp(
// CHECK-LABEL: func.func @scaled(
// CHECK-NOT:     call @sptune_mttkrp
// CHECK:         scf.parallel
// CHECK-LABEL: func.func @coo(
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

#DCSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : dense, k : compressed, l : compressed) }>
#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
#COO = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed(nonunique), k : singleton(nonunique), l : singleton) }>

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

func.func @coo(%b: tensor<?x?x?xf64, #COO>, %c: tensor<?x16xf64>, %d: tensor<?x16xf64>) -> tensor<?x16xf64> {
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
