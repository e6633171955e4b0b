// MTTKRP over CSF, A(i, j) = sum over k, l of B(i, k, l) C(k, j) D(l, j),
// computed by sptune-lower-cpu's factored kernel (targets/cpu/
// FactoredMttkrp.h), against upstream's sparsifier on the same program: f64
// with static shapes, rank 3, every level compressed, A filled with 0.5 (an
// empty slice keeps it); f32 with dynamic shapes, rank 8, dense slices (one
// without a fiber), A filled with 0.25 and D read before C; 32-bit positions and coordinates; and an MTTKRP that
// accumulates into its argument, which the sparsifier computes; an
// assembled tensor with a fiber of no entries; rows before, between and
// after the slices filled with 1.5. Each with
// one and three OpenMP threads, in seven blocks of slices of equal work by
// option (more blocks than some tensors have slices), each slice summed as
// `auto` decides (entry-wise: these fibers are short) and in each form by
// option (factored, entry-wise), in one thread by option, and with the
// kernel turned off.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sparsifier | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu | env OMP_NUM_THREADS=1 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu | env OMP_NUM_THREADS=3 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=threads=7 | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=mttkrp-form=factored | env OMP_NUM_THREADS=3 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=mttkrp-form=entry-wise | env OMP_NUM_THREADS=3 %{run} | FileCheck %s
// RUN: not sptune-opt %s --sptune-lower-cpu=mttkrp-form=fast 2>&1 | FileCheck %s --check-prefix=BAD-FORM
// BAD-FORM: mttkrp-form{{.*}}fast{{.*}}auto{{.*}}factored{{.*}}entry-wise
// RUN: sptune-opt %s --sptune-lower-cpu=parallelization=none | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=factored-mttkrp=false | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-cpu-sparsify | FileCheck %s --check-prefix=IR
// RUN: sptune-opt %s --sptune-cpu-sparsify=parallelization=none | FileCheck %s --check-prefix=SEQ
// RUN: sptune-opt %s --sptune-cpu-sparsify=factored-mttkrp=false | FileCheck %s --check-prefix=OFF
// RUN: sptune-opt %s --sptune-cpu-sparsify=parallelize-unscheduled=false | FileCheck %s --check-prefix=OFF
//
// A = 0.5 + ... (slice 1 empty).
// CHECK:      ( ( 13.5, 2.5, -20.5 ), ( 0.5, 0.5, 0.5 ), ( 4.5, 0.5, -7.5 ), ( 39.5, 28.5, 5.5 ), ( -11.5, -9.5, -1.5 ) )
// f32, rank 8, A filled with 0.25: rows 0, 2 (no fiber) and 4.
// CHECK-NEXT: ( 0.25, 1.25, 4.25, 9.25, 0.25, 5.25, 12.25, 21.25 )
// CHECK-NEXT: ( 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25 )
// CHECK-NEXT: ( 4.25, 16.25, 36.25, 12.25, 16.25, 44.25, 80.25, 24.25 )
// 32-bit positions and coordinates: as the first, less 0.5.
// CHECK-NEXT: ( ( 13, 2, -21 ), ( 0, 0, 0 ), ( 4, 0, -8 ), ( 39, 28, 5 ), ( -12, -10, -2 ) )
// Accumulated into A = 1: as the first, plus 0.5.
// CHECK-NEXT: ( ( 14, 3, -20 ), ( 1, 1, 1 ), ( 5, 1, -7 ), ( 40, 29, 6 ), ( -11, -9, -1 ) )
// Assembled with a fiber of no entries whose row of C is infinite: it adds
// nothing (not 0 * inf).
// CHECK-NEXT: ( ( 2, 4, 6 ), ( 0, 0, 0 ) )
// A filled with 1.5, B(1, 0, 1) = 2 and B(3, 2, 0) = -1: rows 0, 2 and 4
// (before, between and after the slices) keep the fill, each written by
// the slice after it or the last; then B without entries.
// CHECK-NEXT: ( ( 1.5, 1.5, 1.5 ), ( 3.5, 1.5, -4.5 ), ( 1.5, 1.5, 1.5 ), ( 1.5, 5.5, 11.5 ), ( 1.5, 1.5, 1.5 ) )
// CHECK-NEXT: ( ( 1.5, 1.5, 1.5 ), ( 1.5, 1.5, 1.5 ), ( 1.5, 1.5, 1.5 ), ( 1.5, 1.5, 1.5 ), ( 1.5, 1.5, 1.5 ) )
// Entry-wise past fibers without entries: 2 C(2, :) D(1, :), 3 C(0, :) D(0, :).
// CHECK-NEXT: ( ( 2, 4, 6 ), ( 3, 6, 9 ) )
//
// IR-LABEL: func.func private @sptune_mttkrp_1(
// IR-SAME:    memref<?xi32>
// IR-SAME:    -> memref<5x3xf64>
// IR-LABEL: func.func private @sptune_mttkrp_0(
// IR-SAME:    -> memref<?x8xf32>
// Blocks of slices, each a loop over its slices, its fibers, its entries.
// IR:         scf.parallel
// IR:           scf.for
// IR:             scf.for
// IR:               scf.for
// IR:                 vector.fma {{.*}} : vector<8xf32>
// IR:             vector.fma {{.*}} : vector<8xf32>
// A fiber without entries adds nothing.
// IR:             arith.select {{.*}} : vector<8xf32>
// IR:           vector.store {{.*}} : memref<?x8xf32>, vector<8xf32>
// IR-LABEL: func.func private @sptune_mttkrp(
// IR-SAME:    -> memref<5x3xf64>
// IR:         memref.alloc() {alignment = 64 : i64, sptune.huge_page_buffer} : memref<5x3xf64>
// Rows of no slice hold the fill's value.
// IR:         scf.for
// IR:           vector.store
// IR:         scf.parallel
// IR-LABEL: func.func @mttkrp64(
// IR:         call @sptune_mttkrp(
// IR-LABEL: func.func @mttkrp32(
// IR:         call @sptune_mttkrp_0(
// IR-LABEL: func.func @accumulate(
// IR-NOT:     call @sptune_mttkrp
// IR:         return
//
// SEQ-LABEL: func.func private @sptune_mttkrp(
// SEQ-NOT:     scf.parallel
// SEQ:         return
//
// OFF-NOT: @sptune_mttkrp

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
#CSF32 = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed), posWidth = 32, crdWidth = 32 }>
#DCSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : dense, k : compressed, l : compressed) }>

#B = affine_map<(i, j, k, l) -> (i, k, l)>
#C = affine_map<(i, j, k, l) -> (k, j)>
#D = affine_map<(i, j, k, l) -> (l, j)>
#A = affine_map<(i, j, k, l) -> (i, j)>

module {
  func.func @mttkrp64(%b: tensor<5x3x4xf64, #CSF>, %c: tensor<3x3xf64>, %d: tensor<4x3xf64>) -> tensor<5x3xf64> {
    %half = arith.constant 0.5 : f64
    %e = tensor.empty() : tensor<5x3xf64>
    %a = linalg.fill ins(%half : f64) outs(%e : tensor<5x3xf64>) -> tensor<5x3xf64>
    %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %c, %d : tensor<5x3x4xf64, #CSF>, tensor<3x3xf64>, tensor<4x3xf64>) outs(%a : tensor<5x3xf64>) {
    ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
      %p = arith.mulf %x, %y : f64
      %q = arith.mulf %p, %z : f64
      %s = arith.addf %o, %q : f64
      linalg.yield %s : f64
    } -> tensor<5x3xf64>
    return %r : tensor<5x3xf64>
  }

  // Dense slices, dynamic shapes, D before C in the operands and the body.
  func.func @mttkrp32(%b: tensor<?x?x?xf32, #DCSF>, %d: tensor<?x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
    %c0 = arith.constant 0 : index
    %quarter = arith.constant 0.25 : f32
    %n = tensor.dim %b, %c0 : tensor<?x?x?xf32, #DCSF>
    %e = tensor.empty(%n) : tensor<?x8xf32>
    %a = linalg.fill ins(%quarter : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
    %r = linalg.generic {indexing_maps = [#B, #D, #C, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %d, %c : tensor<?x?x?xf32, #DCSF>, tensor<?x8xf32>, tensor<?x8xf32>) outs(%a : tensor<?x8xf32>) {
    ^bb0(%x: f32, %z: f32, %y: f32, %o: f32):
      %p = arith.mulf %z, %x : f32
      %q = arith.mulf %y, %p : f32
      %s = arith.addf %q, %o : f32
      linalg.yield %s : f32
    } -> tensor<?x8xf32>
    return %r : tensor<?x8xf32>
  }

  func.func @narrow(%b: tensor<5x3x4xf64, #CSF32>, %c: tensor<3x3xf64>, %d: tensor<4x3xf64>) -> tensor<5x3xf64> {
    %zero = arith.constant 0.0 : f64
    %e = tensor.empty() : tensor<5x3xf64>
    %a = linalg.fill ins(%zero : f64) outs(%e : tensor<5x3xf64>) -> tensor<5x3xf64>
    %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %c, %d : tensor<5x3x4xf64, #CSF32>, tensor<3x3xf64>, tensor<4x3xf64>) outs(%a : tensor<5x3xf64>) {
    ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
      %p = arith.mulf %x, %y : f64
      %q = arith.mulf %p, %z : f64
      %s = arith.addf %o, %q : f64
      linalg.yield %s : f64
    } -> tensor<5x3xf64>
    return %r : tensor<5x3xf64>
  }

  // Into the caller's A: the sparsifier's loop nest.
  func.func @accumulate(%b: tensor<5x3x4xf64, #CSF>, %c: tensor<3x3xf64>, %d: tensor<4x3xf64>, %a: tensor<5x3xf64>) -> tensor<5x3xf64> {
    %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %c, %d : tensor<5x3x4xf64, #CSF>, tensor<3x3xf64>, tensor<4x3xf64>) outs(%a : tensor<5x3xf64>) {
    ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
      %p = arith.mulf %x, %y : f64
      %q = arith.mulf %p, %z : f64
      %s = arith.addf %o, %q : f64
      linalg.yield %s : f64
    } -> tensor<5x3xf64>
    return %r : tensor<5x3xf64>
  }

  func.func @mttkrpSmall(%b: tensor<2x2x2xf64, #CSF>, %c: tensor<2x3xf64>, %d: tensor<2x3xf64>) -> tensor<2x3xf64> {
    %zero = arith.constant 0.0 : f64
    %e = tensor.empty() : tensor<2x3xf64>
    %a = linalg.fill ins(%zero : f64) outs(%e : tensor<2x3xf64>) -> tensor<2x3xf64>
    %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %c, %d : tensor<2x2x2xf64, #CSF>, tensor<2x3xf64>, tensor<2x3xf64>) outs(%a : tensor<2x3xf64>) {
    ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
      %p = arith.mulf %x, %y : f64
      %q = arith.mulf %p, %z : f64
      %s = arith.addf %o, %q : f64
      linalg.yield %s : f64
    } -> tensor<2x3xf64>
    return %r : tensor<2x3xf64>
  }

  func.func @gaps(%b: tensor<5x3x4xf64, #CSF>, %c: tensor<3x3xf64>, %d: tensor<4x3xf64>) -> tensor<5x3xf64> {
    %fill = arith.constant 1.5 : f64
    %e = tensor.empty() : tensor<5x3xf64>
    %a = linalg.fill ins(%fill : f64) outs(%e : tensor<5x3xf64>) -> tensor<5x3xf64>
    %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %c, %d : tensor<5x3x4xf64, #CSF>, tensor<3x3xf64>, tensor<4x3xf64>) outs(%a : tensor<5x3xf64>) {
    ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
      %p = arith.mulf %x, %y : f64
      %q = arith.mulf %p, %z : f64
      %s = arith.addf %o, %q : f64
      linalg.yield %s : f64
    } -> tensor<5x3xf64>
    return %r : tensor<5x3xf64>
  }

  func.func @skips(%b: tensor<2x3x2xf64, #CSF>, %c: tensor<3x3xf64>, %d: tensor<2x3xf64>) -> tensor<2x3xf64> {
    %zero = arith.constant 0.0 : f64
    %e = tensor.empty() : tensor<2x3xf64>
    %a = linalg.fill ins(%zero : f64) outs(%e : tensor<2x3xf64>) -> tensor<2x3xf64>
    %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %c, %d : tensor<2x3x2xf64, #CSF>, tensor<3x3xf64>, tensor<2x3xf64>) outs(%a : tensor<2x3xf64>) {
    ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
      %p = arith.mulf %x, %y : f64
      %q = arith.mulf %p, %z : f64
      %s = arith.addf %o, %q : f64
      linalg.yield %s : f64
    } -> tensor<2x3xf64>
    return %r : tensor<2x3xf64>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
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
    %b = sparse_tensor.convert %dense : tensor<5x3x4xf64> to tensor<5x3x4xf64, #CSF>
    %a = call @mttkrp64(%b, %c, %d) : (tensor<5x3x4xf64, #CSF>, tensor<3x3xf64>, tensor<4x3xf64>) -> tensor<5x3xf64>
    %va = vector.transfer_read %a[%c0, %c0], %z64 : tensor<5x3xf64>, vector<5x3xf64>
    vector.print %va : vector<5x3xf64>

    %dense32 = arith.constant dense<[
      [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
      [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
      [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
      [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
      [[0.0, 0.0], [1.0, 2.0], [0.0, 1.0]]]> : tensor<5x3x2xf32>
    %b32 = sparse_tensor.convert %dense32 : tensor<5x3x2xf32> to tensor<?x?x?xf32, #DCSF>
    // C32(k, j) = k + j; D32(l, j) = (l + j) mod 4.
    %c32 = tensor.generate %c3 {
    ^bb0(%k: index, %j: index):
      %v = arith.addi %k, %j : index
      %w = arith.index_cast %v : index to i64
      %f = arith.sitofp %w : i64 to f32
      tensor.yield %f : f32
    } : tensor<?x8xf32>
    %c2 = arith.constant 2 : index
    %d32 = tensor.generate %c2 {
    ^bb0(%l: index, %j: index):
      %v = arith.addi %l, %j : index
      %m = arith.remui %v, %c4 : index
      %w = arith.index_cast %m : index to i64
      %f = arith.sitofp %w : i64 to f32
      tensor.yield %f : f32
    } : tensor<?x8xf32>
    %a32 = call @mttkrp32(%b32, %d32, %c32) : (tensor<?x?x?xf32, #DCSF>, tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
    %r0 = vector.transfer_read %a32[%c0, %c0], %z32 : tensor<?x8xf32>, vector<8xf32>
    vector.print %r0 : vector<8xf32>
    %r2 = vector.transfer_read %a32[%c2, %c0], %z32 : tensor<?x8xf32>, vector<8xf32>
    vector.print %r2 : vector<8xf32>
    %c4i = arith.constant 4 : index
    %r4 = vector.transfer_read %a32[%c4i, %c0], %z32 : tensor<?x8xf32>, vector<8xf32>
    vector.print %r4 : vector<8xf32>

    %bn = sparse_tensor.convert %dense : tensor<5x3x4xf64> to tensor<5x3x4xf64, #CSF32>
    %an = call @narrow(%bn, %c, %d) : (tensor<5x3x4xf64, #CSF32>, tensor<3x3xf64>, tensor<4x3xf64>) -> tensor<5x3xf64>
    %vn = vector.transfer_read %an[%c0, %c0], %z64 : tensor<5x3xf64>, vector<5x3xf64>
    vector.print %vn : vector<5x3xf64>

    %ones = arith.constant dense<1.0> : tensor<5x3xf64>
    %aa = call @accumulate(%b, %c, %d, %ones) : (tensor<5x3x4xf64, #CSF>, tensor<3x3xf64>, tensor<4x3xf64>, tensor<5x3xf64>) -> tensor<5x3xf64>
    %vaa = vector.transfer_read %aa[%c0, %c0], %z64 : tensor<5x3xf64>, vector<5x3xf64>
    vector.print %vaa : vector<5x3xf64>

    // Slice 0 (i = 0) has fibers k = 0 (no entries) and k = 1 (B(0, 1, 0) =
    // 2); C(0, 0) is infinite, C(1, :) = (1, 2, 3), D = 1.
    %p0 = arith.constant dense<[0, 1]> : tensor<2xindex>
    %i0 = arith.constant dense<[0]> : tensor<1xindex>
    %p1 = arith.constant dense<[0, 2]> : tensor<2xindex>
    %i1 = arith.constant dense<[0, 1]> : tensor<2xindex>
    %p2 = arith.constant dense<[0, 0, 1]> : tensor<3xindex>
    %i2 = arith.constant dense<[0]> : tensor<1xindex>
    %vals = arith.constant dense<[2.0]> : tensor<1xf64>
    %bs = sparse_tensor.assemble (%p0, %i0, %p1, %i1, %p2, %i2), %vals
      : (tensor<2xindex>, tensor<1xindex>, tensor<2xindex>, tensor<2xindex>, tensor<3xindex>, tensor<1xindex>), tensor<1xf64> to tensor<2x2x2xf64, #CSF>
    %one = arith.constant 1.0 : f64
    %inf = arith.divf %one, %z64 : f64
    %cs0 = arith.constant dense<[[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]]> : tensor<2x3xf64>
    %cs = tensor.insert %inf into %cs0[%c0, %c0] : tensor<2x3xf64>
    %ds = arith.constant dense<1.0> : tensor<2x3xf64>
    %as = call @mttkrpSmall(%bs, %cs, %ds) : (tensor<2x2x2xf64, #CSF>, tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
    %vas = vector.transfer_read %as[%c0, %c0], %z64 : tensor<2x3xf64>, vector<2x3xf64>
    vector.print %vas : vector<2x3xf64>

    %two = arith.constant sparse<[[1, 0, 1], [3, 2, 0]], [2.0, -1.0]> : tensor<5x3x4xf64>
    %bg = sparse_tensor.convert %two : tensor<5x3x4xf64> to tensor<5x3x4xf64, #CSF>
    %ag = call @gaps(%bg, %c, %d) : (tensor<5x3x4xf64, #CSF>, tensor<3x3xf64>, tensor<4x3xf64>) -> tensor<5x3xf64>
    %vag = vector.transfer_read %ag[%c0, %c0], %z64 : tensor<5x3xf64>, vector<5x3xf64>
    vector.print %vag : vector<5x3xf64>
    bufferization.dealloc_tensor %bg : tensor<5x3x4xf64, #CSF>
    %nothing = arith.constant dense<0.0> : tensor<5x3x4xf64>
    %bz = sparse_tensor.convert %nothing : tensor<5x3x4xf64> to tensor<5x3x4xf64, #CSF>
    %az = call @gaps(%bz, %c, %d) : (tensor<5x3x4xf64, #CSF>, tensor<3x3xf64>, tensor<4x3xf64>) -> tensor<5x3xf64>
    %vaz = vector.transfer_read %az[%c0, %c0], %z64 : tensor<5x3xf64>, vector<5x3xf64>
    vector.print %vaz : vector<5x3xf64>
    bufferization.dealloc_tensor %bz : tensor<5x3x4xf64, #CSF>

    // Entry-wise (2 entries, 5 fibers): slice 0 (i = 0) has fibers k = 0
    // and 1 without entries, then k = 2 with B(0, 2, 1) = 2; slice 1 has
    // k = 0 with B(1, 0, 0) = 3, then k = 2 without entries. C(1, :) is
    // infinite and never read.
    %q0 = arith.constant dense<[0, 2]> : tensor<2xindex>
    %j0 = arith.constant dense<[0, 1]> : tensor<2xindex>
    %q1 = arith.constant dense<[0, 3, 5]> : tensor<3xindex>
    %j1 = arith.constant dense<[0, 1, 2, 0, 2]> : tensor<5xindex>
    %q2 = arith.constant dense<[0, 0, 0, 1, 2, 2]> : tensor<6xindex>
    %j2 = arith.constant dense<[1, 0]> : tensor<2xindex>
    %qv = arith.constant dense<[2.0, 3.0]> : tensor<2xf64>
    %bk = sparse_tensor.assemble (%q0, %j0, %q1, %j1, %q2, %j2), %qv
      : (tensor<2xindex>, tensor<2xindex>, tensor<3xindex>, tensor<5xindex>, tensor<6xindex>, tensor<2xindex>), tensor<2xf64> to tensor<2x3x2xf64, #CSF>
    %ck0 = arith.constant dense<[[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]> : tensor<3x3xf64>
    %c1i = arith.constant 1 : index
    %ck = tensor.insert %inf into %ck0[%c1i, %c0] : tensor<3x3xf64>
    %dk = arith.constant dense<[[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]]> : tensor<2x3xf64>
    %ak = call @skips(%bk, %ck, %dk) : (tensor<2x3x2xf64, #CSF>, tensor<3x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
    %vak = vector.transfer_read %ak[%c0, %c0], %z64 : tensor<2x3xf64>, vector<2x3xf64>
    vector.print %vak : vector<2x3xf64>

    bufferization.dealloc_tensor %b : tensor<5x3x4xf64, #CSF>
    bufferization.dealloc_tensor %b32 : tensor<?x?x?xf32, #DCSF>
    bufferization.dealloc_tensor %bn : tensor<5x3x4xf64, #CSF32>
    bufferization.dealloc_tensor %a32 : tensor<?x8xf32>
    bufferization.dealloc_tensor %a : tensor<5x3xf64>
    bufferization.dealloc_tensor %an : tensor<5x3xf64>
    return
  }
}
