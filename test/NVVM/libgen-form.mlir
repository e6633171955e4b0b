// RUN: sptune-opt %s -split-input-file --sptune-apply-schedule --sptune-nvvm-libgen-form | FileCheck %s

// sptune-nvvm-libgen-form undoes what sptune-apply-schedule did to the loops
// (level space, scheduled order) for kernels bound to cuSPARSE, keeping the
// scheduled storage: the matcher of upstream's library path needs the
// canonical dimension-space op.

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CSR, loops scheduled (i, k, j): back to (i, j, k).
//
// CHECK-DAG:   #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG:   #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @csr
// CHECK:         linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<64x48xf32, #{{.*}}>, tensor<48x32xf32>)
// CHECK-NOT:     sorted
// CHECK:           arith.mulf
// CHECK:           arith.addf
func.func @csr(%a: tensor<64x48xf32, #CSR>, %b: tensor<48x32xf32>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 32, k : 48], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm, libgen = true>}
    ins(%a, %b : tensor<64x48xf32, #CSR>, tensor<48x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CSC: the operand comes back from behind its reinterpret_map.
//
// CHECK-DAG:   #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[$CSC:.*]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d1 : dense, d0 : compressed) }>
// CHECK-LABEL: func.func @csc
// CHECK:         %[[CONV:.*]] = sparse_tensor.convert %{{.*}} to tensor<64x48xf32, #[[$CSC]]>
// CHECK-NOT:     sparse_tensor.reinterpret_map
// CHECK:         linalg.generic {indexing_maps = [#[[$A]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[CONV]], %{{.*}} : tensor<64x48xf32, #[[$CSC]]>, tensor<48x32xf32>)
func.func @csc(%a: tensor<64x48xf32, #CSR>, %b: tensor<48x32xf32>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 32, k : 48], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm, levels = [k : dense, i : compressed], libgen = true>}
    ins(%a, %b : tensor<64x48xf32, #CSR>, tensor<48x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#spy = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// BSR 2x2 in-place SDDMM: five level-space loops (k, i1, j1, i0, j0) become
// three again, i = i1 * 2 + i0 and j = j1 * 2 + j0; the output is the BSR
// tensor itself (no reinterpret_map around the result).
//
// CHECK-DAG:   #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG:   #[[$S:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG:   #[[$BSR:.*]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 floordiv 2 : dense, d1 floordiv 2 : compressed, d0 mod 2 : dense, d1 mod 2 : dense) }>
// CHECK-LABEL: func.func @bsr_sddmm
// CHECK:         %[[S:.*]] = sparse_tensor.convert %{{.*}} to tensor<64x64xf32, #[[$BSR]]>
// CHECK-NOT:     sparse_tensor.reinterpret_map
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$S]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      outs(%[[S]] : tensor<64x64xf32, #[[$BSR]]>)
// CHECK:           sparse_tensor.unary
// CHECK:           sparse_tensor.reduce
// CHECK:         } -> tensor<64x64xf32, #[[$BSR]]>
// CHECK:         sparse_tensor.convert %[[R]] : tensor<64x64xf32, #[[$BSR]]> to
func.func @bsr_sddmm(%s: tensor<64x64xf32, #CSR>, %a: tensor<64x16xf32>, %b: tensor<16x64xf32>) -> tensor<64x64xf32, #CSR> {
  %r = linalg.generic #spy ins(%a, %b : tensor<64x16xf32>, tensor<16x64xf32>) outs(%s : tensor<64x64xf32, #CSR>)
      attrs = {sptune.kernel = #sptune.kernel<sddmm, loops = [i : 64, j : 64, k : 16], operands = [dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>,
               sptune.schedule = #sptune.schedule<nvvm sddmm, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [2, 2], order = [k, i1, j1, i0, j0], libgen = true>} {
    ^bb0(%x: f32, %y: f32, %z: f32):
      %f0 = arith.constant 0.0 : f32
      %u = sparse_tensor.unary %z : f32 to f32
        present = {
          ^bb0(%p: f32):
            %m = arith.mulf %x, %y : f32
            sparse_tensor.yield %m : f32
        }
        absent = {}
      %q = sparse_tensor.reduce %z, %u, %f0 : f32 {
        ^bb0(%l: f32, %rr: f32):
          %add = arith.addf %l, %rr : f32
          sparse_tensor.yield %add : f32
      }
      linalg.yield %q : f32
  } -> tensor<64x64xf32, #CSR>
  return %r : tensor<64x64xf32, #CSR>
}
