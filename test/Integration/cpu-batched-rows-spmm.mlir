// A batched SpMM over dense batches of CSR rows, C(b, i, j) = sum over k
// of A(b, i, k) B(b, k, j), computed by sptune-lower-cpu's kernel over the
// batches' rows (targets/cpu/BatchedRowsSpmm.h), against upstream's
// sparsifier on the same program: f32 `linalg.batch_matmul` with static
// shapes, N = 4, C filled with 0.5 (rows without entries keep it); f64 as a
// generic reading B before A, dynamic batch and row counts, N = 8, 32-bit
// positions and coordinates; and one into the caller's C, which the
// sparsifier computes. Each with one and three OpenMP threads, four and
// five blocks of rows by option, in one thread by option, and with the
// kernel turned off. The six rows cut into three or more blocks start
// blocks inside a batch and carry (batch, row) across the batches'
// boundary.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sparsifier | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu | env OMP_NUM_THREADS=1 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu | env OMP_NUM_THREADS=3 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=threads=4 | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=threads=5 | %{run} | FileCheck %s
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
// RUN: sptune-opt %s --linalg-generalize-named-ops --sptune-cpu-sparsify=threads=3 | FileCheck %s --check-prefix=TEAM
// RUN: sptune-opt %s --linalg-generalize-named-ops --sptune-cpu-sparsify=batched-rows-spmm=false | FileCheck %s --check-prefix=OFF
// RUN: sptune-opt %s --linalg-generalize-named-ops --sptune-cpu-sparsify=parallelize-unscheduled=false | FileCheck %s --check-prefix=OFF
//
// CHECK:      ( ( ( 14.5, 17.5, 20.5, 23.5 ), ( 0.5, 0.5, 0.5, 0.5 ), ( 0.5, -0.5, -1.5, -2.5 ) ), ( ( 0.5, 0.5, 0.5, 0.5 ), ( 6.5, 3.5, 0.5, -2.5 ), ( 2.5, 1, -0.5, -2 ) ) )
// f64, N = 8, C filled with 0.
// CHECK-NEXT: ( ( ( 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ) ), ( ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 8, 9, 10, 11, 12, 13, 14, 15 ), ( 7.5, 8.25, 9, 9.75, 10.5, 11.25, 12, 12.75 ) ) )
// Into C = 1: as the first, plus 0.5.
// CHECK-NEXT: ( ( ( 15, 18, 21, 24 ), ( 1, 1, 1, 1 ), ( 1, 0, -1, -2 ) ), ( ( 1, 1, 1, 1 ), ( 7, 4, 1, -2 ), ( 3, 1.5, 0, -1.5 ) ) )
//
// IR-LABEL: func.func private @sptune_batched_spmm_0(
// IR-SAME:    memref<?xi32>
// IR-SAME:    -> memref<?x?x8xf64>
// IR-LABEL: func.func private @sptune_batched_spmm(
// IR-SAME:    -> memref<2x3x4xf32>
// IR:         memref.alloc() {alignment = 64 : i64, sptune.huge_page_buffer} : memref<2x3x4xf32>
// IR:         %[[PER_BATCH:.*]] = arith.maxui
// IR:         %[[THREADS:.*]] = call @omp_get_max_threads()
// IR-NEXT:    %[[DEFAULT:.*]] = arith.index_cast %[[THREADS]]
// IR:         %[[BLOCKS:.*]] = arith.maxui %[[DEFAULT]]
// IR:         scf.parallel ({{.*}}) = ({{.*}}) to (%[[BLOCKS]])
// IR:           scf.while
// IR:           scf.while
// IR:           %[[BATCH:.*]] = arith.divui %[[FIRST:.*]], %[[PER_BATCH]]
// IR:           %[[ROW:.*]] = arith.remui %[[FIRST]], %[[PER_BATCH]]
// IR:           scf.for {{.*}} = %[[FIRST]] to {{.*}} iter_args({{.*}} = %[[BATCH]], {{.*}} = %[[ROW]])
// IR-NOT:         arith.divui
// IR:             scf.for
// IR:               vector.fma {{.*}} : vector<4xf32>
// IR:             vector.store {{.*}} : memref<2x3x4xf32>, vector<4xf32>
// IR-NOT:         arith.divui
// IR:             scf.yield
// IR:         return
// IR-LABEL: func.func @batched32(
// IR:         call @sptune_batched_spmm(
// IR-LABEL: func.func @batched64(
// IR:         call @sptune_batched_spmm_0(
// IR-LABEL: func.func @accumulate(
// IR-NOT:     call @sptune_batched_spmm
// IR:         return
//
// SEQ-LABEL: func.func private @sptune_batched_spmm(
// SEQ-NOT:     scf.parallel
// SEQ:         return
//
// TEAM-LABEL: func.func private @sptune_batched_spmm(
// TEAM-NOT:     omp_get_max_threads
// TEAM:         %[[BLOCKS:.*]] = arith.constant 3 : index
// TEAM:         scf.parallel ({{.*}}) = ({{.*}}) to (%[[BLOCKS]])

// OFF-NOT: @sptune_batched_spmm

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>
#BCSR32 = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed), posWidth = 32, crdWidth = 32 }>

module {
  func.func @batched32(%a: tensor<2x3x4xf32, #BCSR>, %b: tensor<2x4x4xf32>) -> tensor<2x3x4xf32> {
    %half = arith.constant 0.5 : f32
    %e = tensor.empty() : tensor<2x3x4xf32>
    %c = linalg.fill ins(%half : f32) outs(%e : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %r = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf32, #BCSR>, tensor<2x4x4xf32>) outs(%c : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    return %r : tensor<2x3x4xf32>
  }

  // B before A, in the operands and the body.
  func.func @batched64(%b: tensor<?x4x8xf64>, %a: tensor<?x?x4xf64, #BCSR32>) -> tensor<?x?x8xf64> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f64
    %nb = tensor.dim %a, %c0 : tensor<?x?x4xf64, #BCSR32>
    %m = tensor.dim %a, %c1 : tensor<?x?x4xf64, #BCSR32>
    %e = tensor.empty(%nb, %m) : tensor<?x?x8xf64>
    %c = linalg.fill ins(%zero : f64) outs(%e : tensor<?x?x8xf64>) -> tensor<?x?x8xf64>
    %r = linalg.generic {indexing_maps = [affine_map<(b, i, j, k) -> (b, k, j)>, affine_map<(b, i, j, k) -> (b, i, k)>, affine_map<(b, i, j, k) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%b, %a : tensor<?x4x8xf64>, tensor<?x?x4xf64, #BCSR32>) outs(%c : tensor<?x?x8xf64>) {
    ^bb0(%x: f64, %y: f64, %o: f64):
      %p = arith.mulf %x, %y : f64
      %s = arith.addf %o, %p : f64
      linalg.yield %s : f64
    } -> tensor<?x?x8xf64>
    return %r : tensor<?x?x8xf64>
  }

  // Into the caller's C: the sparsifier's loop nest.
  func.func @accumulate(%a: tensor<2x3x4xf32, #BCSR>, %b: tensor<2x4x4xf32>, %c: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    %r = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf32, #BCSR>, tensor<2x4x4xf32>) outs(%c : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    return %r : tensor<2x3x4xf32>
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
    %a = sparse_tensor.convert %dense : tensor<2x3x4xf32> to tensor<2x3x4xf32, #BCSR>
    // B(0, k, j) = 2 k + j; B(1, k, j) = k - j.
    %b = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [2.0, 3.0, 4.0, 5.0], [4.0, 5.0, 6.0, 7.0], [6.0, 7.0, 8.0, 9.0]], [[0.0, -1.0, -2.0, -3.0], [1.0, 0.0, -1.0, -2.0], [2.0, 1.0, 0.0, -1.0], [3.0, 2.0, 1.0, 0.0]]]> : tensor<2x4x4xf32>
    %r = call @batched32(%a, %b) : (tensor<2x3x4xf32, #BCSR>, tensor<2x4x4xf32>) -> tensor<2x3x4xf32>
    %v = vector.transfer_read %r[%c0, %c0, %c0], %z32 : tensor<2x3x4xf32>, vector<2x3x4xf32>
    vector.print %v : vector<2x3x4xf32>

    %dense64 = arith.constant dense<[
      [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
      [[0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.5, 0.0, 1.0, 0.0]]]> : tensor<2x3x4xf64>
    %a64 = sparse_tensor.convert %dense64 : tensor<2x3x4xf64> to tensor<?x?x4xf64, #BCSR32>
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
    %r64 = call @batched64(%b64, %a64) : (tensor<?x4x8xf64>, tensor<?x?x4xf64, #BCSR32>) -> tensor<?x?x8xf64>
    %v64 = vector.transfer_read %r64[%c0, %c0, %c0], %z64 : tensor<?x?x8xf64>, vector<2x3x8xf64>
    vector.print %v64 : vector<2x3x8xf64>

    %ones = arith.constant dense<1.0> : tensor<2x3x4xf32>
    %ra = call @accumulate(%a, %b, %ones) : (tensor<2x3x4xf32, #BCSR>, tensor<2x4x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %va = vector.transfer_read %ra[%c0, %c0, %c0], %z32 : tensor<2x3x4xf32>, vector<2x3x4xf32>
    vector.print %va : vector<2x3x4xf32>

    bufferization.dealloc_tensor %a : tensor<2x3x4xf32, #BCSR>
    bufferization.dealloc_tensor %a64 : tensor<?x?x4xf64, #BCSR32>
    bufferization.dealloc_tensor %r : tensor<2x3x4xf32>
    bufferization.dealloc_tensor %r64 : tensor<?x?x8xf64>
    bufferization.dealloc_tensor %ra : tensor<2x3x4xf32>
    return
  }
}
