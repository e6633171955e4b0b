// RUN: sptune-opt %s -split-input-file --sptune-apply-schedule | FileCheck %s
// RUN: sptune-opt %s -split-input-file --sptune-apply-schedule=retype-args=true | FileCheck %s --check-prefix=RETYPE

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// A blocked mixed format (WACO's i1:U k1:C i0:U k0:C), the free loop j
// between the block loops, and j strip-mined by 16.
//
// CHECK-DAG: #[[$BLK:.*]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 floordiv 2 : dense, d1 floordiv 4 : compressed, d0 mod 2 : dense, d1 mod 4 : compressed), posWidth = 32, crdWidth = 32 }>
// CHECK-DAG: #[[$MA:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3, d4)>
// CHECK-DAG: #[[$MB:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2 * 4 + d4, d1)>
// CHECK-DAG: #[[$MC:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0 * 2 + d3, d1)>
// CHECK-LABEL: func.func @blocked
// CHECK-SAME: attributes {sptune.schedule = #sptune.schedule<cpu spmm
// CHECK:       %[[CONV:.*]] = sparse_tensor.convert %{{.*}} : tensor<8x8xf64, #{{.*}}> to tensor<8x8xf64, #[[$BLK]]>
// CHECK:       %[[LVL:.*]] = sparse_tensor.reinterpret_map %[[CONV]] : tensor<8x8xf64, #[[$BLK]]> to tensor<4x2x2x4xf64
// CHECK:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16
// CHECK-NOT:     tensor.extract_slice %[[LVL]]
// CHECK:         linalg.generic {indexing_maps = [#[[$MA]], #[[$MB]], #[[$MC]]], iterator_types = ["parallel", "parallel", "reduction", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[LVL]], %{{.*}} : tensor<4x2x2x4xf64, #{{.*}}>, tensor<8x16xf64>)
// CHECK-SAME:      sorted = true, sptune.schedule = #sptune.schedule<cpu spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : compressed], split = [2, 4], order = [i1, j, k1, i0, k0]
// RETYPE-LABEL: func.func @blocked
// RETYPE-SAME:    %{{.*}}: tensor<8x8xf64, #{{.*}}>
// RETYPE-NOT:   sparse_tensor.convert
func.func @blocked(%a: tensor<8x8xf64, #CSR>, %b: tensor<8x64xf64>, %c: tensor<8x64xf64>) -> tensor<8x64xf64> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 64, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f64, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : compressed], split = [2, 4], order = [i1, j, k1, i0, k0], widths = [32, 32], tile = 16, parallel = outer>}
    ins(%a, %b : tensor<8x8xf64, #CSR>, tensor<8x64xf64>) outs(%c : tensor<8x64xf64>) -> tensor<8x64xf64>
  return %0 : tensor<8x64xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CSC with the free loop outermost: (j, k, i). Levels are (k, i) in level
// space, so the generic's loops are (j, k, i) = (d0, d1, d2).
//
// CHECK-DAG: #[[$CSC:.*]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d1 : dense, d0 : compressed) }>
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d1, d0)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-LABEL: func.func @csc_free_outer
// RETYPE-LABEL: func.func @csc_free_outer
// CHECK:       sparse_tensor.convert %{{.*}} to tensor<16x8xf32, #[[$CSC]]>
// CHECK:       linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME:    sorted = true
func.func @csc_free_outer(%a: tensor<16x8xf32, #CSR>, %b: tensor<8x4xf32>, %c: tensor<16x4xf32>) -> tensor<16x4xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 16, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, levels = [k : dense, i : compressed], order = [j, k, i]>}
    ins(%a, %b : tensor<16x8xf32, #CSR>, tensor<8x4xf32>) outs(%c : tensor<16x4xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Already the scheduled storage: no conversion, only the loop order.
// Ops without a schedule are untouched.
//
// CHECK-LABEL: func.func @same_storage
// CHECK-NOT:   sparse_tensor.convert
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:    sorted = true
// CHECK:       linalg.matmul {sptune.kernel
// CHECK-NOT:     sorted
func.func @same_storage(%a: tensor<8x8xf64, #CSR>, %b: tensor<8x4xf64>, %c: tensor<8x4xf64>) -> (tensor<8x4xf64>, tensor<8x4xf64>) {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f64, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, order = [i, j, k]>}
    ins(%a, %b : tensor<8x8xf64, #CSR>, tensor<8x4xf64>) outs(%c : tensor<8x4xf64>) -> tensor<8x4xf64>
  %1 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f64, encoding = #CSR>}
    ins(%a, %b : tensor<8x8xf64, #CSR>, tensor<8x4xf64>) outs(%c : tensor<8x4xf64>) -> tensor<8x4xf64>
  return %0, %1 : tensor<8x4xf64>, tensor<8x4xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#sddmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// SDDMM with a sparse output sharing the sampling pattern: both get the
// scheduled storage and the result is converted back for its users. With
// the reduction innermost the output is a copy of S updated in place (the
// sparsifier then allows parallel loops); with k directly above the
// innermost compressed level it stays a fresh tensor.empty, retyped.
//
// CHECK-DAG: #[[$DCSR:.*]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : compressed, d1 : compressed) }>
// CHECK-LABEL: func.func @sddmm_sparse_out
// CHECK:       %[[S:.*]] = sparse_tensor.convert %{{.*}} to tensor<8x8xf32, #[[$DCSR]]>
// CHECK:       %[[E:.*]] = bufferization.alloc_tensor() copy(%[[S]]) : tensor<8x8xf32, #[[$DCSR]]>
// CHECK:       %[[R:.*]] = linalg.generic
// CHECK-SAME:    ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x8xf32>) outs(%[[E]] : tensor<8x8xf32, #[[$DCSR]]>)
// CHECK:       %[[B:.*]] = sparse_tensor.convert %[[R]] : tensor<8x8xf32, #[[$DCSR]]> to tensor<8x8xf32, #{{.*}}>
// CHECK:       return %[[B]]
func.func @sddmm_sparse_out(%s: tensor<8x8xf32, #CSR>, %a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<8x8xf32, #CSR> {
  %e = tensor.empty() : tensor<8x8xf32, #CSR>
  %0 = linalg.generic #sddmm {
      sptune.kernel = #sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 16], operands = [sparse(i, j), dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu sddmm, levels = [i : compressed, j : compressed], order = [i, j, k], vl = 8>}
    ins(%s, %a, %b : tensor<8x8xf32, #CSR>, tensor<8x16xf32>, tensor<16x8xf32>) outs(%e : tensor<8x8xf32, #CSR>) {
  ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
    %p = arith.mulf %av, %bv : f32
    %q = arith.mulf %sv, %p : f32
    %r = arith.addf %xv, %q : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32, #CSR>
  return %0 : tensor<8x8xf32, #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#sddmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// The same in blocks: the blocked result stores the zeros of its blocks,
// so, converted back, it is restricted to the entries of S (still in the
// caller's storage) by a sparse intersection, and the converted copy is
// freed. With retype-args S is the caller's blocks: nothing to restrict.
//
// CHECK-LABEL: func.func @sddmm_sparse_out_blocked
// CHECK-SAME:    (%[[S:[^:]*]]: tensor<8x8xf32, #{{.*}}>,
// CHECK:       %[[R:.*]] = sparse_tensor.reinterpret_map %{{.*}} : tensor<4x4x2x2xf32
// CHECK:       %[[B:.*]] = sparse_tensor.convert %[[R]]
// CHECK:       %[[E:.*]] = tensor.empty()
// CHECK:       %[[K:.*]] = linalg.generic
// CHECK-SAME:    ins(%[[S]], %[[B]] : {{.*}}) outs(%[[E]] : {{.*}}) attrs =  {sptune.storage_copy}
// CHECK:         sparse_tensor.binary
// CHECK-NEXT:      overlap = {
// CHECK-NEXT:      ^bb0(%{{.*}}: f32, %[[V:.*]]: f32):
// CHECK-NEXT:        sparse_tensor.yield %[[V]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      left = {
// CHECK-NEXT:      }
// CHECK-NEXT:      right = {
// CHECK-NEXT:      }
// CHECK:       bufferization.dealloc_tensor %[[B]]
// CHECK:       return %[[K]]
// RETYPE-LABEL: func.func @sddmm_sparse_out_blocked
// RETYPE-NOT:   sparse_tensor.binary
// RETYPE:       return
func.func @sddmm_sparse_out_blocked(%s: tensor<8x8xf32, #CSR>, %a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<8x8xf32, #CSR> {
  %e = tensor.empty() : tensor<8x8xf32, #CSR>
  %0 = linalg.generic #sddmm {
      sptune.kernel = #sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 16], operands = [sparse(i, j), dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu sddmm, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [2, 2], order = [i1, j1, i0, j0, k]>}
    ins(%s, %a, %b : tensor<8x8xf32, #CSR>, tensor<8x16xf32>, tensor<16x8xf32>) outs(%e : tensor<8x8xf32, #CSR>) {
  ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
    %p = arith.mulf %av, %bv : f32
    %q = arith.mulf %sv, %p : f32
    %r = arith.addf %xv, %q : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32, #CSR>
  return %0 : tensor<8x8xf32, #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#sddmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// SDDMM with B stored transposed: the transposition runs inside the
// function in parallel panels (scf.forall), the kernel reads B^T(j, k); with
// the reduction innermost the fresh sparse output becomes an in-place update
// of a copy of S (the product multiplies the stored value, so S .* (A B)).
//
// CHECK-DAG: #[[$MA:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$MBT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$MX:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @sddmm_transposed_b
// CHECK-SAME:    (%[[S:.*]]: tensor<8x8xf32, #{{.*}}>, %[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x8xf32>)
// CHECK:       %[[BT0:.*]] = tensor.empty() : tensor<8x16xf32>
// CHECK:       %[[BT:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[BT0]]) -> (tensor<8x16xf32>)
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<16x?xf32>) outs(%{{.*}} : tensor<?x16xf32>)
// CHECK:       %[[X0:.*]] = bufferization.alloc_tensor() copy(%[[S]])
// CHECK:       linalg.generic {indexing_maps = [#[[$MA]], #[[$MBT]], #[[$MX]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:    ins(%[[A]], %[[BT]] : tensor<8x16xf32>, tensor<8x16xf32>) outs(%[[X0]] : tensor<8x8xf32, #{{.*}}>)
// CHECK:         sparse_tensor.unary
// CHECK:           arith.mulf {{.*}} fastmath<reassoc,contract>
// CHECK:         sparse_tensor.reduce
// The transposition's buffer is freed after its last use.
// CHECK:       bufferization.dealloc_tensor %[[BT]] : tensor<8x16xf32>
// CHECK-NOT:   tensor.empty() : tensor<8x8xf32
func.func @sddmm_transposed_b(%s: tensor<8x8xf32, #CSR>, %a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<8x8xf32, #CSR> {
  %e = tensor.empty() : tensor<8x8xf32, #CSR>
  %0 = linalg.generic #sddmm {
      sptune.kernel = #sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 16], operands = [sparse(i, j), dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu sddmm, order = [i, j, k], layout = [b : k], parallel = outer, vl = 8>}
    ins(%s, %a, %b : tensor<8x8xf32, #CSR>, tensor<8x16xf32>, tensor<16x8xf32>) outs(%e : tensor<8x8xf32, #CSR>) {
  ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
    %p = arith.mulf %av, %bv : f32
    %q = arith.mulf %sv, %p : f32
    %r = arith.addf %xv, %q : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32, #CSR>
  return %0 : tensor<8x8xf32, #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#sddmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// B already comes from a transposition of B^T in the IR (the layout of
// feature matrices in GNN code): the chosen layout reads B^T directly, no
// transposition is left in the kernel's path.
//
// CHECK-LABEL: func.func @sddmm_layout_elided
// CHECK-SAME:    (%{{.*}}: tensor<8x8xf32, #{{.*}}>, %[[A:.*]]: tensor<8x16xf32>, %[[BT:.*]]: tensor<8x16xf32>)
// CHECK-NOT:   scf.forall
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%[[A]], %[[BT]] : tensor<8x16xf32>, tensor<8x16xf32>)
func.func @sddmm_layout_elided(%s: tensor<8x8xf32, #CSR>, %a: tensor<8x16xf32>, %bt: tensor<8x16xf32>) -> tensor<8x8xf32, #CSR> {
  %e = tensor.empty() : tensor<8x8xf32, #CSR>
  %be = tensor.empty() : tensor<16x8xf32>
  %b = linalg.transpose ins(%bt : tensor<8x16xf32>) outs(%be : tensor<16x8xf32>) permutation = [1, 0]
  %0 = linalg.generic #sddmm {
      sptune.kernel = #sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 16], operands = [sparse(i, j), dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu sddmm, order = [i, j, k], layout = [b : k], vl = 8>}
    ins(%s, %a, %b : tensor<8x8xf32, #CSR>, tensor<8x16xf32>, tensor<16x8xf32>) outs(%e : tensor<8x8xf32, #CSR>) {
  ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
    %p = arith.mulf %av, %bv : f32
    %q = arith.mulf %sv, %p : f32
    %r = arith.addf %xv, %q : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32, #CSR>
  return %0 : tensor<8x8xf32, #CSR>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// SpMM with the output C computed transposed: C is transposed in, the
// kernel writes C^T(j, i), and the result is transposed back for the users.
//
// CHECK-DAG: #[[$MCT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-LABEL: func.func @spmm_transposed_c
// CHECK-SAME:    %[[C:[a-z0-9]+]]: tensor<8x4xf64>) -> tensor<8x4xf64>
// CHECK:       %[[CT:.*]] = scf.forall
// CHECK:       %[[R:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[$MCT]]]
// CHECK-SAME:    outs(%[[CT]] : tensor<4x8xf64>) attrs = {sorted = true
// CHECK:       %[[BACK:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[C]])
// CHECK:         linalg.generic
// CHECK:       bufferization.dealloc_tensor %[[R]] : tensor<4x8xf64>
// CHECK:       return %[[BACK]] : tensor<8x4xf64>
func.func @spmm_transposed_c(%a: tensor<8x8xf64, #CSR>, %b: tensor<8x4xf64>, %c: tensor<8x4xf64>) -> tensor<8x4xf64> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f64, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, layout = [c : i]>}
    ins(%a, %b : tensor<8x8xf64, #CSR>, tensor<8x4xf64>) outs(%c : tensor<8x4xf64>) -> tensor<8x4xf64>
  return %0 : tensor<8x4xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#map = affine_map<(i, j) -> (i, j)>

// The sparse ⊙ dense product into sparse storage (its result stored like
// A): computed in place on a copy of A in the scheduled storage (no
// insertion, so its loops may run in parallel), the stored value times B,
// nothing where A has no entry; converted back for the caller.
//
// CHECK-DAG: #[[$DCSR:.*]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : compressed, d1 : compressed) }>
// CHECK-LABEL: func.func @hadamard_into_sparse
// CHECK:       %[[A:.*]] = sparse_tensor.convert %{{.*}} to tensor<8x4xf32, #[[$DCSR]]>
// CHECK:       %[[C:.*]] = bufferization.alloc_tensor() copy(%[[A]]) : tensor<8x4xf32, #[[$DCSR]]>
// CHECK:       %[[R:.*]] = linalg.generic
// CHECK-SAME:    ins(%{{.*}} : tensor<8x4xf32>) outs(%[[C]] : tensor<8x4xf32, #[[$DCSR]]>)
// CHECK:       ^bb0(%[[BV:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT:    %[[U:.*]] = sparse_tensor.unary %[[OUT]] : f32 to f32
// CHECK-NEXT:    present = {
// CHECK-NEXT:    ^bb0(%[[V:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[V]], %[[BV]] : f32
// CHECK-NEXT:      sparse_tensor.yield %[[P]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    absent = {
// CHECK-NEXT:    }
// CHECK-NEXT:    linalg.yield %[[U]] : f32
// CHECK:       %[[BACK:.*]] = sparse_tensor.convert %[[R]] : tensor<8x4xf32, #[[$DCSR]]> to tensor<8x4xf32, #{{.*}}>
// CHECK:       return %[[BACK]]
func.func @hadamard_into_sparse(%a: tensor<8x4xf32, #CSR>, %b: tensor<8x4xf32>) -> tensor<8x4xf32, #CSR> {
  %e = tensor.empty() : tensor<8x4xf32, #CSR>
  %0 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"],
      sptune.kernel = #sptune.kernel<hadamard, loops = [i : 8, j : 4], operands = [sparse(i, j), dense(i, j), sparse_out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu hadamard, levels = [i : compressed, j : compressed], order = [i, j], parallel = outer>}
    ins(%a, %b : tensor<8x4xf32, #CSR>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32, #CSR>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<8x4xf32, #CSR>
  return %0 : tensor<8x4xf32, #CSR>
}
