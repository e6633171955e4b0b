// Kernels on every element type upstream's CPU sparsifier lowers besides
// f32 / f64 / i32 / i64: SpMM in bf16 and i8, SpMV in f16 and i16, SDDMM in
// f16 (issue 33). Recognized, tuned (the heuristic, and the learned model in
// release mode), applied, lowered, executed, and compared with upstream's
// sparsifier on the same program; then hand-written schedules that
// vectorize (vl = 8 / 16) and parallelize, and change the storage (CSC,
// DCSR). The values are small integers, exact in every type.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sparsifier | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=release matrix=gen:uniform:rows=6,nnz=9,seed=2" --sptune-apply-schedule --sptune-lower-cpu 2> %t.release | %{run} | FileCheck %s
// RUN: FileCheck %s --check-prefix=RELEASE < %t.release
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule | FileCheck %s --check-prefix=IR
// RUN: for s in "parallel = outer, vl = 8" \
// RUN:          "parallel = outer, vl = 16" \
// RUN:          "levels = [k : dense, i : compressed], order = [k, i, j]" \
// RUN:          "levels = [i : compressed, k : compressed], order = [i, k, j], parallel = outer, vl = 4"; do \
// RUN:   sed -e "s/outs(%%c : tensor<6x3xbf16>)/outs(%%c : tensor<6x3xbf16>) {sptune.schedule = #sptune.schedule<cpu spmm, $s>}/" \
// RUN:       -e "s/outs(%%ci : tensor<6x3xi8>)/outs(%%ci : tensor<6x3xi8>) {sptune.schedule = #sptune.schedule<cpu spmm, $s>}/" %s \
// RUN:     | sptune-opt --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu | %{run}; \
// RUN: done | FileCheck %s --check-prefix=HAND
//
// RELEASE-COUNT-5: remark: sptune-autotune (release, {{[0-9]+}} candidates ranked
// IR: sptune.kernel = #sptune.kernel<spmm, {{.*}} type = bf16
// IR: sptune.schedule = #sptune.schedule<cpu spmm
// IR: sptune.kernel = #sptune.kernel<spmv, {{.*}} type = f16
// IR: sptune.schedule = #sptune.schedule<cpu spmv
// IR: sptune.kernel = #sptune.kernel<sddmm, {{.*}} type = f16
// IR: sptune.schedule = #sptune.schedule<cpu sddmm
// IR: sptune.kernel = #sptune.kernel<spmm, {{.*}} type = i8
// IR: sptune.kernel = #sptune.kernel<spmv, {{.*}} type = i16
//
// A = [[1, 0, 2, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 4, 0, 0, 0, 0],
//      [3, 0, 0, 7, 0, 1], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 5, 0]]
// CHECK:      ( ( 3, 6, 9 ), ( 0, 0, 0 ), ( 4, 8, 12 ), ( 17, 34, 51 ), ( 0, 0, 0 ), ( 5, 10, 15 ) )
// CHECK-NEXT: ( 7, 0, 12, 31, 0, 10 )
// CHECK-NEXT: ( ( 6, 0, 12, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0 ), ( 0, 24, 0, 0, 0, 0 ), ( 18, 0, 0, 42, 0, 6 ), ( 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 30, 0 ) )
// CHECK-NEXT: ( ( 3, 6, 9 ), ( 0, 0, 0 ), ( 4, 8, 12 ), ( 17, 34, 51 ), ( 0, 0, 0 ), ( 5, 10, 15 ) )
// CHECK-NEXT: ( 7, 0, 12, 31, 0, 10 )
// HAND-COUNT-8: ( ( 3, 6, 9 ), ( 0, 0, 0 ), ( 4, 8, 12 ), ( 17, 34, 51 ), ( 0, 0, 0 ), ( 5, 10, 15 ) )
// HAND-NOT: ( ( 3, 6, 9 ), ( 0, 0, 0 ), ( 4, 8, 12 ), ( 17, 34, 51 ), ( 0, 0, 0 ), ( 5, 10, 15 ) )

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

#sddmm = {
  indexing_maps = [
    affine_map<(i, j, k) -> (i, j)>,
    affine_map<(i, j, k) -> (i, k)>,
    affine_map<(i, j, k) -> (k, j)>,
    affine_map<(i, j, k) -> (i, j)>
  ],
  iterator_types = ["parallel", "parallel", "reduction"]
}

module {
  func.func @spmm_bf16(%a: tensor<6x6xbf16, #CSR>, %b: tensor<6x3xbf16>, %c: tensor<6x3xbf16>) -> tensor<6x3xbf16> {
    %0 = linalg.matmul ins(%a, %b : tensor<6x6xbf16, #CSR>, tensor<6x3xbf16>) outs(%c : tensor<6x3xbf16>) -> tensor<6x3xbf16>
    return %0 : tensor<6x3xbf16>
  }

  func.func @spmv_f16(%a: tensor<6x6xf16, #CSR>, %x: tensor<6xf16>, %y: tensor<6xf16>) -> tensor<6xf16> {
    %0 = linalg.matvec ins(%a, %x : tensor<6x6xf16, #CSR>, tensor<6xf16>) outs(%y : tensor<6xf16>) -> tensor<6xf16>
    return %0 : tensor<6xf16>
  }

  func.func @sddmm_f16(%s: tensor<6x6xf16, #CSR>, %p: tensor<6x2xf16>, %q: tensor<2x6xf16>) -> tensor<6x6xf16, #CSR> {
    %e = tensor.empty() : tensor<6x6xf16, #CSR>
    %0 = linalg.generic #sddmm ins(%s, %p, %q : tensor<6x6xf16, #CSR>, tensor<6x2xf16>, tensor<2x6xf16>) outs(%e : tensor<6x6xf16, #CSR>) {
    ^bb0(%sv: f16, %pv: f16, %qv: f16, %acc: f16):
      %m = arith.mulf %pv, %qv : f16
      %t = arith.mulf %sv, %m : f16
      %r = arith.addf %acc, %t : f16
      linalg.yield %r : f16
    } -> tensor<6x6xf16, #CSR>
    return %0 : tensor<6x6xf16, #CSR>
  }

  func.func @spmm_i8(%a: tensor<6x6xi8, #CSR>, %b: tensor<6x3xi8>, %ci: tensor<6x3xi8>) -> tensor<6x3xi8> {
    %0 = linalg.matmul ins(%a, %b : tensor<6x6xi8, #CSR>, tensor<6x3xi8>) outs(%ci : tensor<6x3xi8>) -> tensor<6x3xi8>
    return %0 : tensor<6x3xi8>
  }

  func.func @spmv_i16(%a: tensor<6x6xi16, #CSR>, %x: tensor<6xi16>, %y: tensor<6xi16>) -> tensor<6xi16> {
    %0 = linalg.matvec ins(%a, %x : tensor<6x6xi16, #CSR>, tensor<6xi16>) outs(%y : tensor<6xi16>) -> tensor<6xi16>
    return %0 : tensor<6xi16>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %f0 = arith.constant 0.0 : f32

    // SpMM, bf16.
    %dbf = arith.constant dense<[[1., 0., 2., 0., 0., 0.], [0., 0., 0., 0., 0., 0.], [0., 4., 0., 0., 0., 0.], [3., 0., 0., 7., 0., 1.], [0., 0., 0., 0., 0., 0.], [0., 0., 0., 0., 5., 0.]]> : tensor<6x6xbf16>
    %abf = sparse_tensor.convert %dbf : tensor<6x6xbf16> to tensor<6x6xbf16, #CSR>
    %bbf = arith.constant dense<[[1., 2., 3.], [1., 2., 3.], [1., 2., 3.], [2., 4., 6.], [1., 2., 3.], [0., 0., 0.]]> : tensor<6x3xbf16>
    %zbf = arith.constant dense<0.0> : tensor<6x3xbf16>
    %cbf = call @spmm_bf16(%abf, %bbf, %zbf) : (tensor<6x6xbf16, #CSR>, tensor<6x3xbf16>, tensor<6x3xbf16>) -> tensor<6x3xbf16>
    %pbf = arith.constant 0.0 : bf16
    %r1 = vector.transfer_read %cbf[%c0, %c0], %pbf : tensor<6x3xbf16>, vector<6x3xbf16>
    %v1 = arith.extf %r1 : vector<6x3xbf16> to vector<6x3xf32>
    vector.print %v1 : vector<6x3xf32>

    // SpMV, f16.
    %dh = arith.constant dense<[[1., 0., 2., 0., 0., 0.], [0., 0., 0., 0., 0., 0.], [0., 4., 0., 0., 0., 0.], [3., 0., 0., 7., 0., 1.], [0., 0., 0., 0., 0., 0.], [0., 0., 0., 0., 5., 0.]]> : tensor<6x6xf16>
    %ah = sparse_tensor.convert %dh : tensor<6x6xf16> to tensor<6x6xf16, #CSR>
    %xh = arith.constant dense<[1., 3., 3., 4., 2., 0.]> : tensor<6xf16>
    %zh = arith.constant dense<0.0> : tensor<6xf16>
    %yh = call @spmv_f16(%ah, %xh, %zh) : (tensor<6x6xf16, #CSR>, tensor<6xf16>, tensor<6xf16>) -> tensor<6xf16>
    %ph = arith.constant 0.0 : f16
    %r2 = vector.transfer_read %yh[%c0], %ph : tensor<6xf16>, vector<6xf16>
    %v2 = arith.extf %r2 : vector<6xf16> to vector<6xf32>
    vector.print %v2 : vector<6xf32>

    // SDDMM, f16: S .* (P Q) with P = 1 (6 x 2), Q = 3 (2 x 6): 6 S.
    %p = arith.constant dense<1.0> : tensor<6x2xf16>
    %q = arith.constant dense<3.0> : tensor<2x6xf16>
    %sd = call @sddmm_f16(%ah, %p, %q) : (tensor<6x6xf16, #CSR>, tensor<6x2xf16>, tensor<2x6xf16>) -> tensor<6x6xf16, #CSR>
    %sdd = sparse_tensor.convert %sd : tensor<6x6xf16, #CSR> to tensor<6x6xf16>
    %r3 = vector.transfer_read %sdd[%c0, %c0], %ph : tensor<6x6xf16>, vector<6x6xf16>
    %v3 = arith.extf %r3 : vector<6x6xf16> to vector<6x6xf32>
    vector.print %v3 : vector<6x6xf32>

    // SpMM, i8.
    %d8 = arith.constant dense<[[1, 0, 2, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 4, 0, 0, 0, 0], [3, 0, 0, 7, 0, 1], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 5, 0]]> : tensor<6x6xi8>
    %a8 = sparse_tensor.convert %d8 : tensor<6x6xi8> to tensor<6x6xi8, #CSR>
    %b8 = arith.constant dense<[[1, 2, 3], [1, 2, 3], [1, 2, 3], [2, 4, 6], [1, 2, 3], [0, 0, 0]]> : tensor<6x3xi8>
    %z8 = arith.constant dense<0> : tensor<6x3xi8>
    %c8 = call @spmm_i8(%a8, %b8, %z8) : (tensor<6x6xi8, #CSR>, tensor<6x3xi8>, tensor<6x3xi8>) -> tensor<6x3xi8>
    %p8 = arith.constant 0 : i8
    %r4 = vector.transfer_read %c8[%c0, %c0], %p8 : tensor<6x3xi8>, vector<6x3xi8>
    %v4 = arith.extsi %r4 : vector<6x3xi8> to vector<6x3xi32>
    vector.print %v4 : vector<6x3xi32>

    // SpMV, i16.
    %d16 = arith.constant dense<[[1, 0, 2, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 4, 0, 0, 0, 0], [3, 0, 0, 7, 0, 1], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 5, 0]]> : tensor<6x6xi16>
    %a16 = sparse_tensor.convert %d16 : tensor<6x6xi16> to tensor<6x6xi16, #CSR>
    %x16 = arith.constant dense<[1, 3, 3, 4, 2, 0]> : tensor<6xi16>
    %z16 = arith.constant dense<0> : tensor<6xi16>
    %y16 = call @spmv_i16(%a16, %x16, %z16) : (tensor<6x6xi16, #CSR>, tensor<6xi16>, tensor<6xi16>) -> tensor<6xi16>
    %p16 = arith.constant 0 : i16
    %r5 = vector.transfer_read %y16[%c0], %p16 : tensor<6xi16>, vector<6xi16>
    %v5 = arith.extsi %r5 : vector<6xi16> to vector<6xi32>
    vector.print %v5 : vector<6xi32>

    bufferization.dealloc_tensor %abf : tensor<6x6xbf16, #CSR>
    bufferization.dealloc_tensor %ah : tensor<6x6xf16, #CSR>
    bufferization.dealloc_tensor %sd : tensor<6x6xf16, #CSR>
    bufferization.dealloc_tensor %a8 : tensor<6x6xi8, #CSR>
    bufferization.dealloc_tensor %a16 : tensor<6x6xi16, #CSR>
    return
  }
}
