// MTTKRP over COO, A(i, j) = sum over k, l of B(i, k, l) C(k, j) D(l, j),
// computed by sptune-lower-cpu's factored kernel (targets/cpu/
// FactoredMttkrp.h: the entries cut into blocks of equal entries moved to
// slice starts, each walked once entry by entry, a slice ending where its
// coordinate changes; or, by option, with each fiber's sum formed once, a
// fiber ending where (i, k) changes) against
// upstream's sparsifier on the same program: f64 with static shapes and
// coordinates as an array of structures, A filled with 0.5 (an empty slice
// keeps it); f32 with dynamic shapes and 32-bit coordinates one buffer per
// level (soa); 32-bit coordinates as an array of structures, with no
// entries and with two; an assembled tensor whose entries repeat (a non-unique last
// level, where the sparsifier takes one of the copies: left to it). One, three and seven OpenMP threads (blocks cut inside
// slices and moved to their ends, blocks with no slice), five blocks by
// option, in one thread by option, and with the kernel turned off.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sparsifier | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu | env OMP_NUM_THREADS=1 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu | env OMP_NUM_THREADS=3 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu | env OMP_NUM_THREADS=7 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=threads=5 | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=parallelization=none | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=mttkrp-form=factored | env OMP_NUM_THREADS=3 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu="mttkrp-form=factored threads=5" | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=factored-mttkrp=false | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-cpu-sparsify | FileCheck %s --check-prefix=IR
// RUN: sptune-opt %s --sptune-cpu-sparsify=parallelization=none | FileCheck %s --check-prefix=SEQ
// RUN: sptune-opt %s --sptune-cpu-sparsify=factored-mttkrp=false | FileCheck %s --check-prefix=OFF
//
// A = 0.5 + ... (slice 1 empty).
// CHECK:      ( ( 13.5, 2.5, -20.5 ), ( 0.5, 0.5, 0.5 ), ( 4.5, 0.5, -7.5 ), ( 39.5, 28.5, 5.5 ), ( -11.5, -9.5, -1.5 ) )
// f32, rank 8, A filled with 0.25: rows 0, 2 (no slice) and 4.
// CHECK-NEXT: ( 0.25, 1.25, 4.25, 9.25, 0.25, 5.25, 12.25, 21.25 )
// CHECK-NEXT: ( 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25 )
// CHECK-NEXT: ( 4.25, 16.25, 36.25, 12.25, 16.25, 44.25, 80.25, 24.25 )
// Repeated entries: B(0, 0, 1) = 2 twice and B(1, 1, 0) = 3, C(k, j) =
// k + 1, D(l, j) = l + j: the sparsifier takes one copy, row 0 = 2 D(1, :),
// row 1 = 6 D(0, :).
// CHECK-NEXT: ( ( 2, 4, 6 ), ( 0, 6, 12 ) )
// 32-bit coordinates as an array of structures, A filled with 1.5: no
// entries; then B(1, 0, 1) = 2 and B(3, 2, 0) = -1 (C(k, j) = k + j + 1,
// D(l, j) = l - j as above): rows 0, 2 and 4 (before, between and after
// the slices) keep the fill.
// CHECK-NEXT: ( ( 1.5, 1.5, 1.5 ), ( 1.5, 1.5, 1.5 ), ( 1.5, 1.5, 1.5 ), ( 1.5, 1.5, 1.5 ), ( 1.5, 1.5, 1.5 ) )
// CHECK-NEXT: ( ( 1.5, 1.5, 1.5 ), ( 3.5, 1.5, -4.5 ), ( 1.5, 1.5, 1.5 ), ( 1.5, 5.5, 11.5 ), ( 1.5, 1.5, 1.5 ) )
//
// IR-LABEL: func.func private @sptune_mttkrp_1(
// IR-SAME:    memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xf64>,
// IR:         memref.reinterpret_cast {{.*}} to offset: [1], sizes: [{{.*}}], strides: [3] : memref<?xi32> to memref<?xi32, strided<[3], offset: 1>>
// IR-LABEL: func.func private @sptune_mttkrp_0(
// IR-SAME:    memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xf32>,
// IR-SAME:    -> memref<?x8xf32>
// One pass over a block's entries, entry-wise: where i changes, the row is
// stored; each entry adds B(i, k, l) C(k, :) D(l, :) to the slice's row.
// IR:         scf.parallel
// IR:           scf.for {{.*}} iter_args({{.*}}) -> (index, vector<8xf32>)
// IR:             scf.if
// IR:               vector.store {{.*}} : memref<?x8xf32>, vector<8xf32>
// IR:             arith.mulf {{.*}} : vector<8xf32>
// IR:             vector.fma {{.*}} : vector<8xf32>
// IR:           vector.store {{.*}} : memref<?x8xf32>, vector<8xf32>
// IR-LABEL: func.func private @sptune_mttkrp(
// IR:         memref.reinterpret_cast {{.*}} to offset: [2], sizes: [{{.*}}], strides: [3]
// IR-LABEL: func.func @coo64(
// IR:         call @sptune_mttkrp(
// IR-LABEL: func.func @coo32(
// IR:         call @sptune_mttkrp_0(
// IR-LABEL: func.func @repeated(
// IR-NOT:     call @sptune_mttkrp
// IR:         return
// IR-LABEL: func.func @aos32(
// IR:         call @sptune_mttkrp_1(
//
// SEQ-LABEL: func.func private @sptune_mttkrp(
// SEQ-NOT:     scf.parallel
// SEQ:         return
//
// OFF-NOT: @sptune_mttkrp

#COO = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed(nonunique), k : singleton(nonunique), l : singleton) }>
#COO32 = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed(nonunique), k : singleton(nonunique, soa), l : singleton(soa)), posWidth = 32, crdWidth = 32 }>
#COOA32 = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed(nonunique), k : singleton(nonunique), l : singleton), posWidth = 32, crdWidth = 32 }>
#COOREP = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed(nonunique), k : singleton(nonunique), l : singleton(nonunique)) }>

#B = affine_map<(i, j, k, l) -> (i, k, l)>
#C = affine_map<(i, j, k, l) -> (k, j)>
#D = affine_map<(i, j, k, l) -> (l, j)>
#A = affine_map<(i, j, k, l) -> (i, j)>

module {
  func.func @coo64(%b: tensor<5x3x4xf64, #COO>, %c: tensor<3x3xf64>, %d: tensor<4x3xf64>) -> tensor<5x3xf64> {
    %half = arith.constant 0.5 : f64
    %e = tensor.empty() : tensor<5x3xf64>
    %a = linalg.fill ins(%half : f64) outs(%e : tensor<5x3xf64>) -> tensor<5x3xf64>
    %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %c, %d : tensor<5x3x4xf64, #COO>, tensor<3x3xf64>, tensor<4x3xf64>) outs(%a : tensor<5x3xf64>) {
    ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
      %p = arith.mulf %x, %y : f64
      %q = arith.mulf %p, %z : f64
      %s = arith.addf %o, %q : f64
      linalg.yield %s : f64
    } -> tensor<5x3xf64>
    return %r : tensor<5x3xf64>
  }

  // Dynamic shapes, 32-bit coordinates one buffer per level, D before C.
  func.func @coo32(%b: tensor<?x?x?xf32, #COO32>, %d: tensor<?x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
    %c0 = arith.constant 0 : index
    %quarter = arith.constant 0.25 : f32
    %n = tensor.dim %b, %c0 : tensor<?x?x?xf32, #COO32>
    %e = tensor.empty(%n) : tensor<?x8xf32>
    %a = linalg.fill ins(%quarter : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
    %r = linalg.generic {indexing_maps = [#B, #D, #C, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %d, %c : tensor<?x?x?xf32, #COO32>, tensor<?x8xf32>, tensor<?x8xf32>) outs(%a : tensor<?x8xf32>) {
    ^bb0(%x: f32, %z: f32, %y: f32, %o: f32):
      %p = arith.mulf %z, %x : f32
      %q = arith.mulf %y, %p : f32
      %s = arith.addf %q, %o : f32
      linalg.yield %s : f32
    } -> tensor<?x8xf32>
    return %r : tensor<?x8xf32>
  }

  func.func @repeated(%b: tensor<2x2x2xf64, #COOREP>, %c: tensor<2x3xf64>, %d: tensor<2x3xf64>) -> tensor<2x3xf64> {
    %zero = arith.constant 0.0 : f64
    %e = tensor.empty() : tensor<2x3xf64>
    %a = linalg.fill ins(%zero : f64) outs(%e : tensor<2x3xf64>) -> tensor<2x3xf64>
    %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %c, %d : tensor<2x2x2xf64, #COOREP>, tensor<2x3xf64>, tensor<2x3xf64>) outs(%a : tensor<2x3xf64>) {
    ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
      %p = arith.mulf %x, %y : f64
      %q = arith.mulf %p, %z : f64
      %s = arith.addf %o, %q : f64
      linalg.yield %s : f64
    } -> tensor<2x3xf64>
    return %r : tensor<2x3xf64>
  }

  func.func @aos32(%b: tensor<5x3x4xf64, #COOA32>, %c: tensor<3x3xf64>, %d: tensor<4x3xf64>) -> tensor<5x3xf64> {
    %fill = arith.constant 1.5 : f64
    %e = tensor.empty() : tensor<5x3xf64>
    %a = linalg.fill ins(%fill : f64) outs(%e : tensor<5x3xf64>) -> tensor<5x3xf64>
    %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %c, %d : tensor<5x3x4xf64, #COOA32>, tensor<3x3xf64>, tensor<4x3xf64>) outs(%a : tensor<5x3xf64>) {
    ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
      %p = arith.mulf %x, %y : f64
      %q = arith.mulf %p, %z : f64
      %s = arith.addf %o, %q : f64
      linalg.yield %s : f64
    } -> tensor<5x3xf64>
    return %r : tensor<5x3xf64>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %z64 = arith.constant 0.0 : f64
    %z32 = arith.constant 0.0 : f32
    // Slice 0: two fibers; 1: empty; 2: one fiber of one entry; 3: a fiber
    // of three entries; 4: two fibers, negative values.
    %dense = arith.constant dense<[
      [[1.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0]],
      [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
      [[0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
      [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 4.0]],
      [[-1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, -2.0], [0.0, 0.0, 0.0, 0.0]]]> : tensor<5x3x4xf64>
    // C(k, j) = k + j + 1; D(l, j) = l - j.
    %c = arith.constant dense<[[1.0, 2.0, 3.0], [2.0, 3.0, 4.0], [3.0, 4.0, 5.0]]> : tensor<3x3xf64>
    %d = arith.constant dense<[[0.0, -1.0, -2.0], [1.0, 0.0, -1.0], [2.0, 1.0, 0.0], [3.0, 2.0, 1.0]]> : tensor<4x3xf64>
    %b = sparse_tensor.convert %dense : tensor<5x3x4xf64> to tensor<5x3x4xf64, #COO>
    %a = call @coo64(%b, %c, %d) : (tensor<5x3x4xf64, #COO>, tensor<3x3xf64>, tensor<4x3xf64>) -> tensor<5x3xf64>
    %va = vector.transfer_read %a[%c0, %c0], %z64 : tensor<5x3xf64>, vector<5x3xf64>
    vector.print %va : vector<5x3xf64>

    %dense32 = arith.constant dense<[
      [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
      [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
      [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
      [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
      [[0.0, 0.0], [1.0, 2.0], [0.0, 1.0]]]> : tensor<5x3x2xf32>
    %b32 = sparse_tensor.convert %dense32 : tensor<5x3x2xf32> to tensor<?x?x?xf32, #COO32>
    // C32(k, j) = k + j; D32(l, j) = (l + j) mod 4.
    %c32 = tensor.generate %c3 {
    ^bb0(%k: index, %j: index):
      %v = arith.addi %k, %j : index
      %w = arith.index_cast %v : index to i64
      %f = arith.sitofp %w : i64 to f32
      tensor.yield %f : f32
    } : tensor<?x8xf32>
    %d32 = tensor.generate %c2 {
    ^bb0(%l: index, %j: index):
      %v = arith.addi %l, %j : index
      %m = arith.remui %v, %c4 : index
      %w = arith.index_cast %m : index to i64
      %f = arith.sitofp %w : i64 to f32
      tensor.yield %f : f32
    } : tensor<?x8xf32>
    %a32 = call @coo32(%b32, %d32, %c32) : (tensor<?x?x?xf32, #COO32>, tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
    %r0 = vector.transfer_read %a32[%c0, %c0], %z32 : tensor<?x8xf32>, vector<8xf32>
    vector.print %r0 : vector<8xf32>
    %r2 = vector.transfer_read %a32[%c2, %c0], %z32 : tensor<?x8xf32>, vector<8xf32>
    vector.print %r2 : vector<8xf32>
    %r4 = vector.transfer_read %a32[%c4, %c0], %z32 : tensor<?x8xf32>, vector<8xf32>
    vector.print %r4 : vector<8xf32>

    // B(0, 0, 1) = 2 stored twice, B(1, 1, 0) = 3.
    %pos = arith.constant dense<[0, 3]> : tensor<2xindex>
    %crd = arith.constant dense<[[0, 0, 1], [0, 0, 1], [1, 1, 0]]> : tensor<3x3xindex>
    %vals = arith.constant dense<[2.0, 2.0, 3.0]> : tensor<3xf64>
    %br = sparse_tensor.assemble (%pos, %crd), %vals
      : (tensor<2xindex>, tensor<3x3xindex>), tensor<3xf64> to tensor<2x2x2xf64, #COOREP>
    %cr = arith.constant dense<[[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]> : tensor<2x3xf64>
    %dr = arith.constant dense<[[0.0, 1.0, 2.0], [1.0, 2.0, 3.0]]> : tensor<2x3xf64>
    %ar = call @repeated(%br, %cr, %dr) : (tensor<2x2x2xf64, #COOREP>, tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
    %var = vector.transfer_read %ar[%c0, %c0], %z64 : tensor<2x3xf64>, vector<2x3xf64>
    vector.print %var : vector<2x3xf64>

    %none = arith.constant dense<0.0> : tensor<5x3x4xf64>
    %be = sparse_tensor.convert %none : tensor<5x3x4xf64> to tensor<5x3x4xf64, #COOA32>
    %ae = call @aos32(%be, %c, %d) : (tensor<5x3x4xf64, #COOA32>, tensor<3x3xf64>, tensor<4x3xf64>) -> tensor<5x3xf64>
    %vae = vector.transfer_read %ae[%c0, %c0], %z64 : tensor<5x3xf64>, vector<5x3xf64>
    vector.print %vae : vector<5x3xf64>
    %two = arith.constant sparse<[[1, 0, 1], [3, 2, 0]], [2.0, -1.0]> : tensor<5x3x4xf64>
    %bt = sparse_tensor.convert %two : tensor<5x3x4xf64> to tensor<5x3x4xf64, #COOA32>
    %at = call @aos32(%bt, %c, %d) : (tensor<5x3x4xf64, #COOA32>, tensor<3x3xf64>, tensor<4x3xf64>) -> tensor<5x3xf64>
    %vat = vector.transfer_read %at[%c0, %c0], %z64 : tensor<5x3xf64>, vector<5x3xf64>
    vector.print %vat : vector<5x3xf64>

    bufferization.dealloc_tensor %be : tensor<5x3x4xf64, #COOA32>
    bufferization.dealloc_tensor %bt : tensor<5x3x4xf64, #COOA32>
    bufferization.dealloc_tensor %b : tensor<5x3x4xf64, #COO>
    bufferization.dealloc_tensor %b32 : tensor<?x?x?xf32, #COO32>
    bufferization.dealloc_tensor %a32 : tensor<?x8xf32>
    bufferization.dealloc_tensor %a : tensor<5x3xf64>
    return
  }
}
