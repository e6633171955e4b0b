// Which SDDMM-SpMM pairs sptune-cpu-sparsify fuses into one loop over the
// rows (targets/cpu/SampledAggregation.h), on schedules from the heuristic
// (B stored transposed) or edited by hand:
//   - two stacked layers, the second reading the first's Y as A: both fused;
//   - the SDDMM reading B as written (layout edited back to the natural
//     one): two kernels (the fused kernel reads B^T);
//   - the SpMM accumulating into the caller's Y: two kernels (the fused
//     kernel allocates Y);
//   - the SDDMM in one thread and the SpMM in parallel: two kernels;
//   - S with 8-bit positions and coordinates and the SDDMM's schedule DCSR:
//     S is widened (a copy freed after its conversion to DCSR) and
//     converted; fused, the kernel reads the widened copy, freed after the
//     call now.
//
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null \
// RUN:   | sed -e '/@natural(/,/return/s/layout = \[a : k, b : k\], //' \
// RUN:         -e '/@disagree(/,/return/{/cpu sddmm/s/parallel = outer, threads = 0, omp = balanced/parallel = none, threads = 0, omp = static/}' \
// RUN:         -e '/@narrow(/,/return/{/cpu sddmm/s/levels = \[i : dense, j : compressed\]/levels = [i : compressed, j : compressed]/}' \
// RUN:         -e '/@narrow(/,/return/{/cpu sddmm/s/omp = balanced/omp = static/}' \
// RUN:   | sptune-opt --sptune-apply-schedule --sptune-cpu-sparsify | FileCheck %s
//
// CHECK-LABEL: func.func @stacked(
// CHECK:         %[[Y1:.*]] = call @sptune_sampled_aggregation{{.*}}(
// CHECK:         call @sptune_sampled_aggregation{{.*}}(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[Y1]],
// CHECK-NOT:     call @stacked__sptune_kernel
// CHECK:         return
// CHECK-LABEL: func.func @natural(
// CHECK-NOT:     call @sptune_sampled_aggregation
// CHECK:         return
// CHECK-LABEL: func.func @into_argument(
// CHECK-NOT:     call @sptune_sampled_aggregation
// CHECK:         return
// CHECK-LABEL: func.func @narrow(
// CHECK-NOT:     memref.dealloc
// CHECK:         call @sptune_sampled_aggregation{{.*}}(%[[S:.*]]#0, %[[S]]#1, %[[S]]#2, %[[S]]#3,
// CHECK:         memref.dealloc %[[S]]#0
// CHECK:         return
// CHECK-LABEL: func.func @disagree(
// CHECK-NOT:     call @sptune_sampled_aggregation
// CHECK:         return

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#CSR8 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), posWidth = 8, crdWidth = 8 }>
#sddmm = {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}

module {
  func.func @stacked(%s: tensor<?x?xf32, #CSR>, %a: tensor<?x16xf32>, %b: tensor<16x?xf32>,
                     %h: tensor<?x16xf32>) -> tensor<?x16xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tensor.dim %s, %c0 : tensor<?x?xf32, #CSR>
    %n = tensor.dim %s, %c1 : tensor<?x?xf32, #CSR>
    %zero = arith.constant 0.0 : f32
    %e1 = tensor.empty(%m, %n) : tensor<?x?xf32, #CSR>
    %s1 = linalg.generic #sddmm ins(%s, %a, %b : tensor<?x?xf32, #CSR>, tensor<?x16xf32>, tensor<16x?xf32>) outs(%e1 : tensor<?x?xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %r = arith.addf %xv, %q : f32
      linalg.yield %r : f32
    } -> tensor<?x?xf32, #CSR>
    %o1 = tensor.empty(%m) : tensor<?x16xf32>
    %i1 = linalg.fill ins(%zero : f32) outs(%o1 : tensor<?x16xf32>) -> tensor<?x16xf32>
    %y1 = linalg.matmul ins(%s1, %h : tensor<?x?xf32, #CSR>, tensor<?x16xf32>) outs(%i1 : tensor<?x16xf32>) -> tensor<?x16xf32>
    %e2 = tensor.empty(%m, %n) : tensor<?x?xf32, #CSR>
    %s2 = linalg.generic #sddmm ins(%s, %y1, %b : tensor<?x?xf32, #CSR>, tensor<?x16xf32>, tensor<16x?xf32>) outs(%e2 : tensor<?x?xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %r = arith.addf %xv, %q : f32
      linalg.yield %r : f32
    } -> tensor<?x?xf32, #CSR>
    %o2 = tensor.empty(%m) : tensor<?x16xf32>
    %i2 = linalg.fill ins(%zero : f32) outs(%o2 : tensor<?x16xf32>) -> tensor<?x16xf32>
    %y2 = linalg.matmul ins(%s2, %h : tensor<?x?xf32, #CSR>, tensor<?x16xf32>) outs(%i2 : tensor<?x16xf32>) -> tensor<?x16xf32>
    return %y2 : tensor<?x16xf32>
  }

  func.func @natural(%s: tensor<?x?xf32, #CSR>, %a: tensor<?x16xf32>, %b: tensor<16x?xf32>,
                     %h: tensor<?x16xf32>) -> tensor<?x16xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tensor.dim %s, %c0 : tensor<?x?xf32, #CSR>
    %n = tensor.dim %s, %c1 : tensor<?x?xf32, #CSR>
    %zero = arith.constant 0.0 : f32
    %e1 = tensor.empty(%m, %n) : tensor<?x?xf32, #CSR>
    %s1 = linalg.generic #sddmm ins(%s, %a, %b : tensor<?x?xf32, #CSR>, tensor<?x16xf32>, tensor<16x?xf32>) outs(%e1 : tensor<?x?xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %r = arith.addf %xv, %q : f32
      linalg.yield %r : f32
    } -> tensor<?x?xf32, #CSR>
    %o1 = tensor.empty(%m) : tensor<?x16xf32>
    %i1 = linalg.fill ins(%zero : f32) outs(%o1 : tensor<?x16xf32>) -> tensor<?x16xf32>
    %y1 = linalg.matmul ins(%s1, %h : tensor<?x?xf32, #CSR>, tensor<?x16xf32>) outs(%i1 : tensor<?x16xf32>) -> tensor<?x16xf32>
    return %y1 : tensor<?x16xf32>
  }

  func.func @into_argument(%s: tensor<?x?xf32, #CSR>, %a: tensor<?x16xf32>, %b: tensor<16x?xf32>,
                           %h: tensor<?x16xf32>, %y: tensor<?x16xf32>) -> tensor<?x16xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tensor.dim %s, %c0 : tensor<?x?xf32, #CSR>
    %n = tensor.dim %s, %c1 : tensor<?x?xf32, #CSR>
    %zero = arith.constant 0.0 : f32
    %e1 = tensor.empty(%m, %n) : tensor<?x?xf32, #CSR>
    %s1 = linalg.generic #sddmm ins(%s, %a, %b : tensor<?x?xf32, #CSR>, tensor<?x16xf32>, tensor<16x?xf32>) outs(%e1 : tensor<?x?xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %r = arith.addf %xv, %q : f32
      linalg.yield %r : f32
    } -> tensor<?x?xf32, #CSR>
    %i1 = linalg.fill ins(%zero : f32) outs(%y : tensor<?x16xf32>) -> tensor<?x16xf32>
    %y1 = linalg.matmul ins(%s1, %h : tensor<?x?xf32, #CSR>, tensor<?x16xf32>) outs(%i1 : tensor<?x16xf32>) -> tensor<?x16xf32>
    return %y1 : tensor<?x16xf32>
  }

  // S with 8-bit positions and coordinates, the SDDMM's schedule DCSR: S is
  // widened (a copy freed after its conversion) and converted for it.
  func.func @narrow(%s: tensor<?x?xf32, #CSR8>, %a: tensor<?x16xf32>, %b: tensor<16x?xf32>,
                    %h: tensor<?x16xf32>) -> tensor<?x16xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tensor.dim %s, %c0 : tensor<?x?xf32, #CSR8>
    %n = tensor.dim %s, %c1 : tensor<?x?xf32, #CSR8>
    %zero = arith.constant 0.0 : f32
    %e1 = tensor.empty(%m, %n) : tensor<?x?xf32, #CSR8>
    %s1 = linalg.generic #sddmm ins(%s, %a, %b : tensor<?x?xf32, #CSR8>, tensor<?x16xf32>, tensor<16x?xf32>) outs(%e1 : tensor<?x?xf32, #CSR8>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %r = arith.addf %xv, %q : f32
      linalg.yield %r : f32
    } -> tensor<?x?xf32, #CSR8>
    %o1 = tensor.empty(%m) : tensor<?x16xf32>
    %i1 = linalg.fill ins(%zero : f32) outs(%o1 : tensor<?x16xf32>) -> tensor<?x16xf32>
    %y1 = linalg.matmul ins(%s1, %h : tensor<?x?xf32, #CSR8>, tensor<?x16xf32>) outs(%i1 : tensor<?x16xf32>) -> tensor<?x16xf32>
    return %y1 : tensor<?x16xf32>
  }

  func.func @disagree(%s: tensor<?x?xf32, #CSR>, %a: tensor<?x16xf32>, %b: tensor<16x?xf32>,
                      %h: tensor<?x16xf32>) -> tensor<?x16xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tensor.dim %s, %c0 : tensor<?x?xf32, #CSR>
    %n = tensor.dim %s, %c1 : tensor<?x?xf32, #CSR>
    %zero = arith.constant 0.0 : f32
    %e1 = tensor.empty(%m, %n) : tensor<?x?xf32, #CSR>
    %s1 = linalg.generic #sddmm ins(%s, %a, %b : tensor<?x?xf32, #CSR>, tensor<?x16xf32>, tensor<16x?xf32>) outs(%e1 : tensor<?x?xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %r = arith.addf %xv, %q : f32
      linalg.yield %r : f32
    } -> tensor<?x?xf32, #CSR>
    %o1 = tensor.empty(%m) : tensor<?x16xf32>
    %i1 = linalg.fill ins(%zero : f32) outs(%o1 : tensor<?x16xf32>) -> tensor<?x16xf32>
    %y1 = linalg.matmul ins(%s1, %h : tensor<?x?xf32, #CSR>, tensor<?x16xf32>) outs(%i1 : tensor<?x16xf32>) -> tensor<?x16xf32>
    return %y1 : tensor<?x16xf32>
  }
}
