// A batched SpMM over COO, C(b, i, j) = sum over k of A(b, i, k) B(b, k, j),
// computed by sptune-lower-cpu's batched kernel (targets/cpu/
// BatchedRowsSpmm.h: the entries cut into blocks at row starts, each
// walked once, a row's sum stored where (b, i) changes, the rows a block
// owns without entries filled)
// against upstream's sparsifier on the same program: f32
// `linalg.batch_matmul` with static shapes, coordinates as an array of
// structures, C filled with 0.5 (rows without entries keep it); f64 as a
// generic reading B before A, dynamic batch and row counts, C filled with
// 0.25 (a row before the first entry keeps it), 32-bit
// coordinates one buffer per level (soa), one batch without entries, and
// a tensor of no entries; and A
// with a repeated entry (a non-unique last level), left to the sparsifier.
// One, three and seven OpenMP threads (blocks cut inside rows and moved to
// their ends, blocks with no row), four blocks by option, in one thread by
// option, and with the kernel turned off.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sparsifier | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu | env OMP_NUM_THREADS=1 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu | env OMP_NUM_THREADS=3 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu | env OMP_NUM_THREADS=7 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=threads=4 | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=parallelization=none | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=batched-rows-spmm=false | %{run} | FileCheck %s
//
// Scheduled (the kernel type `batched_spmm`, by sptune-autotune): the
// heuristic's schedule, five blocks by a schedule's threads, one thread by
// a schedule's parallel = none.
// DEFINE: %{schedule} = sptune-opt %s --sptune-extract-kernels --sptune-autotune 2>/dev/null
// DEFINE: %{lower} = sptune-opt --sptune-apply-schedule --sptune-lower-cpu
// RUN: %{schedule} | %{lower} | env OMP_NUM_THREADS=3 %{run} | FileCheck %s
// RUN: %{schedule} | sed -e 's/parallel = outer, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false>/parallel = outer, threads = 5>/' | %{lower} | %{run} | FileCheck %s
// RUN: %{schedule} | sed -e 's/parallel = outer, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false>/parallel = none>/' | %{lower} | %{run} | FileCheck %s
// RUN: %{schedule} | grep -c 'sptune.schedule = #sptune.schedule<cpu batched_spmm' | FileCheck %s --check-prefix=SCHEDULED
// (Two of the three batched SpMMs: the third is left to the sparsifier.)
// SCHEDULED: {{^}}2{{$}}
// RUN: sptune-opt %s --linalg-generalize-named-ops --sptune-cpu-sparsify | FileCheck %s --check-prefix=IR
// RUN: sptune-opt %s --linalg-generalize-named-ops --sptune-cpu-sparsify=parallelization=none | FileCheck %s --check-prefix=SEQ
// RUN: sptune-opt %s --linalg-generalize-named-ops --sptune-cpu-sparsify=batched-rows-spmm=false | FileCheck %s --check-prefix=OFF
//
// CHECK:      ( ( ( 14.5, 17.5, 20.5, 23.5 ), ( 0.5, 0.5, 0.5, 0.5 ), ( 0.5, -0.5, -1.5, -2.5 ) ), ( ( 0.5, 0.5, 0.5, 0.5 ), ( 6.5, 3.5, 0.5, -2.5 ), ( 2.5, 1, -0.5, -2 ) ) )
// f64, N = 8, C filled with 0.25: row (0, 0) before the first entry, and
// batch 1, have no entries.
// CHECK-NEXT: ( ( ( 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25 ), ( 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3.25, 3.75 ), ( 3.25, 3.75, 4.25, 4.75, 5.25, 5.75, 6.25, 6.75 ) ), ( ( 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25 ), ( 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25 ), ( 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25 ) ) )
// No entries at all: every row filled.
// CHECK-NEXT: ( ( ( 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25 ), ( 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25 ) ) )
// A(0, 0, 1) = 2 stored twice, A(0, 1, 0) = 3, B(0, k, j) = k + j: the
// sparsifier takes one copy of the repeated entry.
// CHECK-NEXT: ( ( ( 2, 4 ), ( 0, 3 ) ) )
//
// IR-LABEL: func.func private @sptune_batched_spmm_0(
// IR-SAME:    memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xf64>,
// IR-SAME:    -> memref<?x?x8xf64>
// C's rows batch after batch, written once: each block fills the rows it
// owns before its first row, between its rows and after its last.
// IR:         %[[ROWS:.+]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : memref<?x?x8xf64> into memref<?x8xf64>
// IR:         scf.parallel
// IR:           scf.for
// IR:             vector.store {{.*}}, %[[ROWS]]
// IR:           scf.for {{.*}} iter_args({{.*}}) -> (index, vector<8xf64>)
// IR:             scf.if
// IR:               vector.store {{.*}}, %[[ROWS]]
// IR:               scf.for
// IR:                 vector.store {{.*}}, %[[ROWS]]
// IR:             vector.fma {{.*}} : vector<8xf64>
// IR:           vector.store {{.*}}, %[[ROWS]]
// IR:         scf.for
// IR:           vector.store {{.*}}, %[[ROWS]]
// IR-LABEL: func.func private @sptune_batched_spmm(
// IR-SAME:    -> memref<2x3x4xf32>
// IR:         memref.reinterpret_cast {{.*}} to offset: [2], sizes: [{{.*}}], strides: [3]
// IR-LABEL: func.func @coo32(
// IR:         call @sptune_batched_spmm(
// IR-LABEL: func.func @coo64(
// IR:         call @sptune_batched_spmm_0(
// IR-LABEL: func.func @repeated(
// IR-NOT:     call @sptune_batched_spmm
// IR:         return
//
// SEQ-LABEL: func.func private @sptune_batched_spmm(
// SEQ-NOT:     scf.parallel
// SEQ:         return
//
// OFF-NOT: @sptune_batched_spmm

#COO = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : compressed(nonunique), i : singleton(nonunique), k : singleton) }>
#COO32 = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : compressed(nonunique), i : singleton(nonunique, soa), k : singleton(soa)), posWidth = 32, crdWidth = 32 }>
#COOREP = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : compressed(nonunique), i : singleton(nonunique), k : singleton(nonunique)) }>

module {
  func.func @coo32(%a: tensor<2x3x4xf32, #COO>, %b: tensor<2x4x4xf32>) -> tensor<2x3x4xf32> {
    %half = arith.constant 0.5 : f32
    %e = tensor.empty() : tensor<2x3x4xf32>
    %c = linalg.fill ins(%half : f32) outs(%e : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %r = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf32, #COO>, tensor<2x4x4xf32>) outs(%c : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    return %r : tensor<2x3x4xf32>
  }

  // B before A, in the operands and the body.
  func.func @coo64(%b: tensor<?x4x8xf64>, %a: tensor<?x?x4xf64, #COO32>) -> tensor<?x?x8xf64> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %quarter = arith.constant 0.25 : f64
    %nb = tensor.dim %a, %c0 : tensor<?x?x4xf64, #COO32>
    %m = tensor.dim %a, %c1 : tensor<?x?x4xf64, #COO32>
    %e = tensor.empty(%nb, %m) : tensor<?x?x8xf64>
    %c = linalg.fill ins(%quarter : f64) outs(%e : tensor<?x?x8xf64>) -> tensor<?x?x8xf64>
    %r = linalg.generic {indexing_maps = [affine_map<(b, i, j, k) -> (b, k, j)>, affine_map<(b, i, j, k) -> (b, i, k)>, affine_map<(b, i, j, k) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%b, %a : tensor<?x4x8xf64>, tensor<?x?x4xf64, #COO32>) outs(%c : tensor<?x?x8xf64>) {
    ^bb0(%x: f64, %y: f64, %o: f64):
      %p = arith.mulf %x, %y : f64
      %s = arith.addf %o, %p : f64
      linalg.yield %s : f64
    } -> tensor<?x?x8xf64>
    return %r : tensor<?x?x8xf64>
  }

  func.func @repeated(%a: tensor<1x2x2xf64, #COOREP>, %b: tensor<1x2x2xf64>) -> tensor<1x2x2xf64> {
    %zero = arith.constant 0.0 : f64
    %e = tensor.empty() : tensor<1x2x2xf64>
    %c = linalg.fill ins(%zero : f64) outs(%e : tensor<1x2x2xf64>) -> tensor<1x2x2xf64>
    %r = linalg.batch_matmul ins(%a, %b : tensor<1x2x2xf64, #COOREP>, tensor<1x2x2xf64>) outs(%c : tensor<1x2x2xf64>) -> tensor<1x2x2xf64>
    return %r : tensor<1x2x2xf64>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %z32 = arith.constant 0.0 : f32
    %z64 = arith.constant 0.0 : f64
    // Batch 0: rows with two entries, none, one; batch 1: none, one, two.
    %dense = arith.constant dense<[
      [[0.0, 1.0, 0.0, 2.0], [0.0, 0.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0]],
      [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0], [0.0, 1.0, 0.5, 0.0]]]> : tensor<2x3x4xf32>
    %a = sparse_tensor.convert %dense : tensor<2x3x4xf32> to tensor<2x3x4xf32, #COO>
    // B(0, k, j) = 2 k + j; B(1, k, j) = k - j.
    %b = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [2.0, 3.0, 4.0, 5.0], [4.0, 5.0, 6.0, 7.0], [6.0, 7.0, 8.0, 9.0]], [[0.0, -1.0, -2.0, -3.0], [1.0, 0.0, -1.0, -2.0], [2.0, 1.0, 0.0, -1.0], [3.0, 2.0, 1.0, 0.0]]]> : tensor<2x4x4xf32>
    %r = call @coo32(%a, %b) : (tensor<2x3x4xf32, #COO>, tensor<2x4x4xf32>) -> tensor<2x3x4xf32>
    %v = vector.transfer_read %r[%c0, %c0, %c0], %z32 : tensor<2x3x4xf32>, vector<2x3x4xf32>
    vector.print %v : vector<2x3x4xf32>

    %dense64 = arith.constant dense<[
      [[0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.5, 0.0]],
      [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]> : tensor<2x3x4xf64>
    %a64 = sparse_tensor.convert %dense64 : tensor<2x3x4xf64> to tensor<?x?x4xf64, #COO32>
    // B64(b, k, j) = 3 k + j / 2 + b.
    %b64 = tensor.generate %c2 {
    ^bb0(%bb: index, %k: index, %j: index):
      %c3 = arith.constant 3 : index
      %k3 = arith.muli %k, %c3 : index
      %kb = arith.addi %k3, %bb : index
      %w = arith.index_cast %kb : index to i64
      %f = arith.sitofp %w : i64 to f64
      %wj = arith.index_cast %j : index to i64
      %fj = arith.sitofp %wj : i64 to f64
      %h = arith.constant 0.5 : f64
      %hj = arith.mulf %fj, %h : f64
      %x = arith.addf %f, %hj : f64
      tensor.yield %x : f64
    } : tensor<?x4x8xf64>
    %r64 = call @coo64(%b64, %a64) : (tensor<?x4x8xf64>, tensor<?x?x4xf64, #COO32>) -> tensor<?x?x8xf64>
    %v64 = vector.transfer_read %r64[%c0, %c0, %c0], %z64 : tensor<?x?x8xf64>, vector<2x3x8xf64>
    vector.print %v64 : vector<2x3x8xf64>

    %empty = arith.constant dense<0.0> : tensor<1x2x4xf64>
    %ae = sparse_tensor.convert %empty : tensor<1x2x4xf64> to tensor<?x?x4xf64, #COO32>
    %be = tensor.generate %c1 {
    ^bb0(%bb: index, %k: index, %j: index):
      %one = arith.constant 1.0 : f64
      tensor.yield %one : f64
    } : tensor<?x4x8xf64>
    %re = call @coo64(%be, %ae) : (tensor<?x4x8xf64>, tensor<?x?x4xf64, #COO32>) -> tensor<?x?x8xf64>
    %vre = vector.transfer_read %re[%c0, %c0, %c0], %z64 : tensor<?x?x8xf64>, vector<1x2x8xf64>
    vector.print %vre : vector<1x2x8xf64>

    // A(0, 0, 1) = 2 stored twice, A(0, 1, 0) = 3.
    %pos = arith.constant dense<[0, 3]> : tensor<2xindex>
    %crd = arith.constant dense<[[0, 0, 1], [0, 0, 1], [0, 1, 0]]> : tensor<3x3xindex>
    %vals = arith.constant dense<[2.0, 2.0, 3.0]> : tensor<3xf64>
    %ar = sparse_tensor.assemble (%pos, %crd), %vals
      : (tensor<2xindex>, tensor<3x3xindex>), tensor<3xf64> to tensor<1x2x2xf64, #COOREP>
    %br = arith.constant dense<[[[0.0, 1.0], [1.0, 2.0]]]> : tensor<1x2x2xf64>
    %rr = call @repeated(%ar, %br) : (tensor<1x2x2xf64, #COOREP>, tensor<1x2x2xf64>) -> tensor<1x2x2xf64>
    %vr = vector.transfer_read %rr[%c0, %c0, %c0], %z64 : tensor<1x2x2xf64>, vector<1x2x2xf64>
    vector.print %vr : vector<1x2x2xf64>

    bufferization.dealloc_tensor %a : tensor<2x3x4xf32, #COO>
    bufferization.dealloc_tensor %a64 : tensor<?x?x4xf64, #COO32>
    bufferization.dealloc_tensor %r : tensor<2x3x4xf32>
    bufferization.dealloc_tensor %r64 : tensor<?x?x8xf64>
    return
  }
}
