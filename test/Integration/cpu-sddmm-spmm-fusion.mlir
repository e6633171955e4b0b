// An attention layer's SDDMM and the SpMM that alone consumes its scores,
// computed by sptune-lower-cpu in one loop over the rows
// (targets/cpu/SampledAggregation.h), against upstream's sparsifier on the
// same program: f32 with static shapes, its scale an argument multiplied in
// the SDDMM's body and the SpMM's output filled with 0.5; f64 with dynamic
// shapes, K = 16, a constant scale in the body and an empty row; and a layer
// whose scores are returned too, which keeps its two kernels. Each with one
// and three OpenMP threads, in one thread by the schedule's knob, and with
// the fusion turned off.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// DEFINE: %{schedule} = sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule
// RUN: sptune-opt %s --sparsifier | %{run} | FileCheck %s
// RUN: %{schedule} --sptune-lower-cpu | env OMP_NUM_THREADS=1 %{run} | FileCheck %s
// RUN: %{schedule} --sptune-lower-cpu | env OMP_NUM_THREADS=3 %{run} | FileCheck %s
// RUN: %{schedule} --sptune-lower-cpu=threads=2 | %{run} | FileCheck %s
// RUN: %{schedule} --sptune-lower-cpu=parallelization=none | %{run} | FileCheck %s
// RUN: %{schedule} --sptune-lower-cpu=fuse-sddmm-spmm=false | %{run} | FileCheck %s
// The SDDMM's schedule asks for 32-bit positions and coordinates and the
// SpMM's for DCSR: S is converted for the SDDMM and its scores converted
// back, then to DCSR, for the SpMM; fused, S is read as stored and no
// conversion is left.
// DEFINE: %{narrow} = sptune-opt %s --sptune-extract-kernels --sptune-default-schedule | sed -e '/cpu sddmm/s/widths = \[64, 64\]/widths = [32, 32]/' -e '/cpu spmm/s/levels = \[i : dense, k : compressed\]/levels = [i : compressed, k : compressed]/' -e '/cpu spmm/s/omp = balanced/omp = static/' | sptune-opt --sptune-apply-schedule
// RUN: %{narrow} --sptune-lower-cpu | %{run} | FileCheck %s
// RUN: %{narrow} --sptune-cpu-sparsify | FileCheck %s --check-prefix=WIDTHS
// WIDTHS-LABEL: func.func @layer32(
// WIDTHS-NOT:     memref<?xi32>
// WIDTHS:         call @sptune_sampled_aggregation(%arg0, %arg1, %arg2, %arg3,
// WIDTHS:         return
// RUN: %{schedule} --sptune-cpu-sparsify | FileCheck %s --check-prefix=IR
// RUN: %{schedule} --sptune-cpu-sparsify=parallelization=none | FileCheck %s --check-prefix=SEQ
// RUN: %{schedule} --sptune-cpu-sparsify=fuse-sddmm-spmm=false | FileCheck %s --check-prefix=OFF
//
// IR-LABEL: func.func private @sptune_sampled_aggregation_0(
// IR-SAME:    -> memref<?x8xf64>
// IR:         scf.parallel
// IR:           vector.load {{.*}} : memref<?x16xf64>, vector<16xf64>
// IR:           scf.for
// IR:             vector.reduction <add>
// IR:             vector.fma {{.*}} : vector<8xf64>
// IR-LABEL: func.func private @sptune_sampled_aggregation(
// IR-SAME:    -> memref<8x8xf32>
// IR:         scf.parallel
// S is read as it is (no copy of its positions, coordinates or values),
// and B^T freed after the call that reads it.
// IR-LABEL: func.func @layer32(
// IR:         %[[BT:.*]] = memref.alloc() {{.*}} : memref<8x4xf32>
// IR-NOT:     memref.copy {{.*}} memref<?xindex>
// IR-NOT:     memref.dealloc %[[BT]]
// IR:         call @sptune_sampled_aggregation({{.*}}, %[[BT]],
// IR-NEXT:    memref.dealloc %[[BT]]
// IR-LABEL: func.func @layer64(
// IR:         call @sptune_sampled_aggregation_0(
// The scale: 1 / 4 (folded), times alpha.
// IR-LABEL: func.func @alpha(
// IR:         %[[QUARTER:.*]] = arith.constant 2.500000e-01 : f32
// IR:         %[[SCALE:.*]] = arith.mulf %arg7, %[[QUARTER]]
// IR:         call @sptune_sampled_aggregation({{.*}}, %[[SCALE]])
// IR-LABEL: func.func @kept(
// IR-NOT:     call @sptune_sampled_aggregation
// IR:         return
//
// SEQ-LABEL: func.func private @sptune_sampled_aggregation_0(
// SEQ-NOT:     scf.parallel
// SEQ:         vector.reduction <add>
// SEQ-LABEL: func.func private @sptune_sampled_aggregation(
// SEQ-NOT:     scf.parallel
// SEQ:         vector.reduction <add>
// SEQ-LABEL: func.func @layer32(
//
// OFF-NOT: sptune_sampled_aggregation
//
// CHECK:      ( ( 0.82, 0.98, 1.14, 1.3, 1.46, 1.62, 1.78, 1.94 ), ( 3.22, 4.42, 5.62, 6.82, 8.02, 9.22, 10.42, 11.62 ), ( 8.5, 10.7, 12.9, 15.1, 17.3, 19.5, 21.7, 23.9 ), ( 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5 ), ( 12.06, 15.46, 18.86, 22.26, 25.66, 29.06, 32.46, 35.86 ), ( 14.9, 18.5, 22.1, 25.7, 29.3, 32.9, 36.5, 40.1 ), ( 13.38, 15.22, 17.06, 18.9, 20.74, 22.58, 24.42, 26.26 ), ( 13, 15.5, 18, 20.5, 23, 25.5, 28, 30.5 ) )
// CHECK-NEXT: ( ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ) )
// CHECK-NEXT: ( ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ) )
// CHECK-NEXT: ( ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ) )

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

module {
  // Y = fill(0.5) + (S ⊙ (A B) * scale) H, f32, static shapes.
  func.func @layer32(%s: tensor<8x8xf32, #CSR>, %a: tensor<8x4xf32>, %b: tensor<4x8xf32>,
                     %h: tensor<8x8xf32>, %scale: f32) -> tensor<8x8xf32> {
    %e = tensor.empty() : tensor<8x8xf32, #CSR>
    %scores = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s, %a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<4x8xf32>) outs(%e : tensor<8x8xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %w = arith.mulf %q, %scale : f32
      %r = arith.addf %xv, %w : f32
      linalg.yield %r : f32
    } -> tensor<8x8xf32, #CSR>
    %half = arith.constant 0.5 : f32
    %o = tensor.empty() : tensor<8x8xf32>
    %init = linalg.fill ins(%half : f32) outs(%o : tensor<8x8xf32>) -> tensor<8x8xf32>
    %y = linalg.matmul ins(%scores, %h : tensor<8x8xf32, #CSR>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
    bufferization.dealloc_tensor %scores : tensor<8x8xf32, #CSR>
    return %y : tensor<8x8xf32>
  }

  // The same in f64 with dynamic shapes and K = 16, its scale a constant of
  // the body; the difference to layer32's (scaled) is what is printed.
  func.func @layer64(%s: tensor<?x?xf64, #CSR>, %a: tensor<?x16xf64>, %b: tensor<16x?xf64>,
                     %h: tensor<?x8xf64>) -> tensor<?x8xf64> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tensor.dim %s, %c0 : tensor<?x?xf64, #CSR>
    %n = tensor.dim %s, %c1 : tensor<?x?xf64, #CSR>
    %e = tensor.empty(%m, %n) : tensor<?x?xf64, #CSR>
    %scores = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s, %a, %b : tensor<?x?xf64, #CSR>, tensor<?x16xf64>, tensor<16x?xf64>) outs(%e : tensor<?x?xf64, #CSR>) {
    ^bb0(%sv: f64, %av: f64, %bv: f64, %xv: f64):
      %quarter = arith.constant 0.25 : f64
      %p = arith.mulf %av, %bv : f64
      %q = arith.mulf %sv, %p : f64
      %w = arith.mulf %q, %quarter : f64
      %r = arith.addf %xv, %w : f64
      linalg.yield %r : f64
    } -> tensor<?x?xf64, #CSR>
    %zero = arith.constant 0.0 : f64
    %o = tensor.empty(%m) : tensor<?x8xf64>
    %init = linalg.fill ins(%zero : f64) outs(%o : tensor<?x8xf64>) -> tensor<?x8xf64>
    %y = linalg.matmul ins(%scores, %h : tensor<?x?xf64, #CSR>, tensor<?x8xf64>) outs(%init : tensor<?x8xf64>) -> tensor<?x8xf64>
    bufferization.dealloc_tensor %scores : tensor<?x?xf64, #CSR>
    return %y : tensor<?x8xf64>
  }

  // The SDDMM's product divided by a constant, the SpMM's multiplied by an
  // argument (alpha): both factors go into the fused kernel's scale.
  func.func @alpha(%s: tensor<8x8xf32, #CSR>, %a: tensor<8x4xf32>, %b: tensor<4x8xf32>,
                   %h: tensor<8x8xf32>, %alpha: f32) -> tensor<8x8xf32> {
    %e = tensor.empty() : tensor<8x8xf32, #CSR>
    %scores = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s, %a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<4x8xf32>) outs(%e : tensor<8x8xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %four = arith.constant 4.0 : f32
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %w = arith.divf %q, %four : f32
      %r = arith.addf %xv, %w : f32
      linalg.yield %r : f32
    } -> tensor<8x8xf32, #CSR>
    %zero = arith.constant 0.0 : f32
    %o = tensor.empty() : tensor<8x8xf32>
    %init = linalg.fill ins(%zero : f32) outs(%o : tensor<8x8xf32>) -> tensor<8x8xf32>
    %y = linalg.generic {indexing_maps = [affine_map<(i, k, n) -> (i, k)>, affine_map<(i, k, n) -> (k, n)>, affine_map<(i, k, n) -> (i, n)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%scores, %h : tensor<8x8xf32, #CSR>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) {
    ^bb0(%ev: f32, %hv: f32, %yv: f32):
      %p = arith.mulf %ev, %hv : f32
      %q = arith.mulf %p, %alpha : f32
      %r = arith.addf %yv, %q : f32
      linalg.yield %r : f32
    } -> tensor<8x8xf32>
    bufferization.dealloc_tensor %scores : tensor<8x8xf32, #CSR>
    return %y : tensor<8x8xf32>
  }

  // The scores are returned as well: two kernels.
  func.func @kept(%s: tensor<8x8xf32, #CSR>, %a: tensor<8x4xf32>, %b: tensor<4x8xf32>,
                  %h: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32, #CSR>) {
    %e = tensor.empty() : tensor<8x8xf32, #CSR>
    %scores = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s, %a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<4x8xf32>) outs(%e : tensor<8x8xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %r = arith.addf %xv, %q : f32
      linalg.yield %r : f32
    } -> tensor<8x8xf32, #CSR>
    %zero = arith.constant 0.0 : f32
    %o = tensor.empty() : tensor<8x8xf32>
    %init = linalg.fill ins(%zero : f32) outs(%o : tensor<8x8xf32>) -> tensor<8x8xf32>
    %y = linalg.matmul ins(%scores, %h : tensor<8x8xf32, #CSR>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
    return %y, %scores : tensor<8x8xf32>, tensor<8x8xf32, #CSR>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %d = arith.constant dense<[
      [1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 1.0],
      [0.0, 0.0, 5.0, 0.0, 0.0, 6.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 2.0, 0.0, 7.0, 8.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 9.0, 0.0, 0.0, 0.0],
      [3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 4.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 5.0, 0.0, 0.0]]> : tensor<8x8xf32>
    %s = sparse_tensor.convert %d : tensor<8x8xf32> to tensor<8x8xf32, #CSR>
    // A(i, k) = (i + k) / 10, B(k, j) = (k * j mod 3) / 10, H(j, n) = j + n.
    %a = tensor.generate {
    ^bb0(%i: index, %k: index):
      %v = arith.addi %i, %k : index
      %w = arith.index_cast %v : index to i64
      %f = arith.sitofp %w : i64 to f32
      %t = arith.constant 0.1 : f32
      %x = arith.mulf %f, %t : f32
      tensor.yield %x : f32
    } : tensor<8x4xf32>
    %b = tensor.generate {
    ^bb0(%k: index, %j: index):
      %v = arith.muli %k, %j : index
      %c3 = arith.constant 3 : index
      %m = arith.remui %v, %c3 : index
      %w = arith.index_cast %m : index to i64
      %f = arith.sitofp %w : i64 to f32
      %t = arith.constant 0.1 : f32
      %x = arith.mulf %f, %t : f32
      tensor.yield %x : f32
    } : tensor<4x8xf32>
    %h = tensor.generate {
    ^bb0(%j: index, %n: index):
      %v = arith.addi %j, %n : index
      %w = arith.index_cast %v : index to i64
      %f = arith.sitofp %w : i64 to f32
      tensor.yield %f : f32
    } : tensor<8x8xf32>
    %scale = arith.constant 2.0 : f32
    %y = call @layer32(%s, %a, %b, %h, %scale) : (tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<4x8xf32>, tensor<8x8xf32>, f32) -> tensor<8x8xf32>
    %v = vector.transfer_read %y[%c0, %c0], %z : tensor<8x8xf32>, vector<8x8xf32>
    vector.print %v : vector<8x8xf32>

    // f64, K = 16: A(i, k) = A32(i, k mod 4) / 4 and B(k, j) = B32(k mod 4,
    // j), so every dot product is layer32's; with the scale 0.25 instead of
    // 2 and no fill, layer64 = (layer32 - 0.5) / 8: printed is
    // 1000 |8 layer64 - (layer32 - 0.5)| rounded, all zeros.
    %d64 = tensor.generate {
    ^bb0(%i: index, %j: index):
      %x = tensor.extract %d[%i, %j] : tensor<8x8xf32>
      %x64 = arith.extf %x : f32 to f64
      tensor.yield %x64 : f64
    } : tensor<8x8xf64>
    %dd = tensor.cast %d64 : tensor<8x8xf64> to tensor<?x?xf64>
    %s64 = sparse_tensor.convert %dd : tensor<?x?xf64> to tensor<?x?xf64, #CSR>
    %a64s = tensor.generate {
    ^bb0(%i: index, %k: index):
      %c4 = arith.constant 4 : index
      %km = arith.remui %k, %c4 : index
      %x = tensor.extract %a[%i, %km] : tensor<8x4xf32>
      %x64 = arith.extf %x : f32 to f64
      %q = arith.constant 0.25 : f64
      %y4 = arith.mulf %x64, %q : f64
      tensor.yield %y4 : f64
    } : tensor<8x16xf64>
    %b64s = tensor.generate {
    ^bb0(%k: index, %j: index):
      %c4 = arith.constant 4 : index
      %km = arith.remui %k, %c4 : index
      %x = tensor.extract %b[%km, %j] : tensor<4x8xf32>
      %x64 = arith.extf %x : f32 to f64
      tensor.yield %x64 : f64
    } : tensor<16x8xf64>
    %h64s = tensor.generate {
    ^bb0(%j: index, %n: index):
      %x = tensor.extract %h[%j, %n] : tensor<8x8xf32>
      %x64 = arith.extf %x : f32 to f64
      tensor.yield %x64 : f64
    } : tensor<8x8xf64>
    %a64 = tensor.cast %a64s : tensor<8x16xf64> to tensor<?x16xf64>
    %b64 = tensor.cast %b64s : tensor<16x8xf64> to tensor<16x?xf64>
    %h64 = tensor.cast %h64s : tensor<8x8xf64> to tensor<?x8xf64>
    %y64 = call @layer64(%s64, %a64, %b64, %h64) : (tensor<?x?xf64, #CSR>, tensor<?x16xf64>, tensor<16x?xf64>, tensor<?x8xf64>) -> tensor<?x8xf64>
    %y64s = tensor.cast %y64 : tensor<?x8xf64> to tensor<8x8xf64>
    %diff = tensor.generate {
    ^bb0(%i: index, %n: index):
      %p = tensor.extract %y64s[%i, %n] : tensor<8x8xf64>
      %q = tensor.extract %y[%i, %n] : tensor<8x8xf32>
      %q64 = arith.extf %q : f32 to f64
      %half = arith.constant 0.5 : f64
      %eight = arith.constant 8.0 : f64
      %qs = arith.subf %q64, %half : f64
      %ps = arith.mulf %p, %eight : f64
      %dd2 = arith.subf %ps, %qs : f64
      %ad = math.absf %dd2 : f64
      %k = arith.constant 1000.0 : f64
      %sc = arith.mulf %ad, %k : f64
      %r = math.round %sc : f64
      tensor.yield %r : f64
    } : tensor<8x8xf64>
    %zd = arith.constant 0.0 : f64
    %vd = vector.transfer_read %diff[%c0, %c0], %zd : tensor<8x8xf64>, vector<8x8xf64>
    vector.print %vd : vector<8x8xf64>

    %y2, %sc2 = call @kept(%s, %a, %b, %h) : (tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32, #CSR>)
    // kept's Y is layer32's without the fill and the scale 2: printed is
    // 1000 |2 kept - (layer32 - 0.5)| rounded, all zeros.
    %diff2 = tensor.generate {
    ^bb0(%i: index, %n: index):
      %p = tensor.extract %y2[%i, %n] : tensor<8x8xf32>
      %q = tensor.extract %y[%i, %n] : tensor<8x8xf32>
      %half = arith.constant 0.5 : f32
      %two = arith.constant 2.0 : f32
      %qs = arith.subf %q, %half : f32
      %ps = arith.mulf %p, %two : f32
      %dd2 = arith.subf %ps, %qs : f32
      %ad = math.absf %dd2 : f32
      %k = arith.constant 1000.0 : f32
      %sc = arith.mulf %ad, %k : f32
      %r = math.round %sc : f32
      tensor.yield %r : f32
    } : tensor<8x8xf32>
    %v2 = vector.transfer_read %diff2[%c0, %c0], %z : tensor<8x8xf32>, vector<8x8xf32>
    vector.print %v2 : vector<8x8xf32>
    // alpha's Y with alpha = 8 is layer32's without the fill (1 / 4 * 8 = 2,
    // layer32's scale): printed is 1000 |alpha - (layer32 - 0.5)| rounded.
    %eight = arith.constant 8.0 : f32
    %y3 = call @alpha(%s, %a, %b, %h, %eight) : (tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<4x8xf32>, tensor<8x8xf32>, f32) -> tensor<8x8xf32>
    %diff3 = tensor.generate {
    ^bb0(%i: index, %n: index):
      %p = tensor.extract %y3[%i, %n] : tensor<8x8xf32>
      %q = tensor.extract %y[%i, %n] : tensor<8x8xf32>
      %half = arith.constant 0.5 : f32
      %qs = arith.subf %q, %half : f32
      %dd3 = arith.subf %p, %qs : f32
      %ad = math.absf %dd3 : f32
      %k = arith.constant 1000.0 : f32
      %sc = arith.mulf %ad, %k : f32
      %r = math.round %sc : f32
      tensor.yield %r : f32
    } : tensor<8x8xf32>
    %v3 = vector.transfer_read %diff3[%c0, %c0], %z : tensor<8x8xf32>, vector<8x8xf32>
    vector.print %v3 : vector<8x8xf32>
    bufferization.dealloc_tensor %s : tensor<8x8xf32, #CSR>
    bufferization.dealloc_tensor %s64 : tensor<?x?xf64, #CSR>
    bufferization.dealloc_tensor %sc2 : tensor<8x8xf32, #CSR>
    return
  }
}
