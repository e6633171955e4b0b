// Sparse x sparse products (SpGEMM) of CSR matrices into a fresh CSR result,
// computed by sptune-lower-cpu with sptune's parallel two-phase Gustavson
// kernel (targets/cpu/GustavsonSpgemm.h), against upstream's sparsifier on
// the same program: f64 with an empty row and a sum that cancels to zero
// (kept as an entry, as upstream keeps it), i32 with the operands in the
// other order, f32 with 32-bit positions and coordinates, dynamic shapes
// read from a file (empty rows and columns), an all-zero product, and a
// DCSR result, which the kernel leaves to upstream. Every kernel runs with
// one and with four OpenMP threads (more blocks than some matrices have
// rows), in one pass (into C's buffers of a slot per product, moved into place
// block by block) and in two, with a row's sums in a
// dense workspace and in a hash table.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sparsifier | env TENSOR0=%S/Inputs/spgemm-7x5.mtx %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu | env TENSOR0=%S/Inputs/spgemm-7x5.mtx OMP_NUM_THREADS=1 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu | env TENSOR0=%S/Inputs/spgemm-7x5.mtx OMP_NUM_THREADS=4 %{run} | FileCheck %s
// Two blocks of rows (their entries move into place in parallel), and three
// (one after the other where a block's place overlaps the entries before
// it): as many as the threads the OpenMP loops are given.
// RUN: sptune-opt %s --sptune-lower-cpu=threads=2 | env TENSOR0=%S/Inputs/spgemm-7x5.mtx %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=threads=3 | env TENSOR0=%S/Inputs/spgemm-7x5.mtx %{run} | FileCheck %s
// Two passes (C's buffers of its entries only).
// RUN: sptune-opt %s --sptune-lower-cpu=gustavson-one-pass-bytes=0 | env TENSOR0=%S/Inputs/spgemm-7x5.mtx OMP_NUM_THREADS=1 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=gustavson-one-pass-bytes=0 | env TENSOR0=%S/Inputs/spgemm-7x5.mtx OMP_NUM_THREADS=4 %{run} | FileCheck %s
// The hash accumulator, in one pass and in two, with one and four threads.
// RUN: sptune-opt %s --sptune-lower-cpu=gustavson-accumulator=hash | env TENSOR0=%S/Inputs/spgemm-7x5.mtx OMP_NUM_THREADS=1 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=gustavson-accumulator=hash | env TENSOR0=%S/Inputs/spgemm-7x5.mtx OMP_NUM_THREADS=4 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu="gustavson-accumulator=hash gustavson-one-pass-bytes=0" | env TENSOR0=%S/Inputs/spgemm-7x5.mtx OMP_NUM_THREADS=1 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu="gustavson-accumulator=hash gustavson-one-pass-bytes=0" | env TENSOR0=%S/Inputs/spgemm-7x5.mtx OMP_NUM_THREADS=4 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=gustavson-accumulator=dense | env TENSOR0=%S/Inputs/spgemm-7x5.mtx OMP_NUM_THREADS=4 %{run} | FileCheck %s
// RUN: not sptune-opt %s --sptune-lower-cpu=gustavson-accumulator=tree 2>&1 | FileCheck %s --check-prefix=BAD-ACCUMULATOR
// BAD-ACCUMULATOR: for the --gustavson-accumulator option: unknown value 'tree' (expected auto, dense or hash)
// As users run it: extracted (the six CSR products are kernels of type
// spgemm; the DCSR one passes through untuned, with a remark), scheduled by
// the heuristic, lowered.
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu 2> %t.remarks | env TENSOR0=%S/Inputs/spgemm-7x5.mtx %{run} | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// Hand-written schedules: every product's kernel built as its schedule says,
// a hash table in two passes in one thread, then a dense workspace in one
// pass on a team of three.
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | sed -e 's/parallel = outer, threads = 0/parallel = none, threads = 0/' -e 's/simd32 = false>/simd32 = false, accumulator = hash, passes = two>/' | sptune-opt --sptune-apply-schedule --sptune-lower-cpu | env TENSOR0=%S/Inputs/spgemm-7x5.mtx OMP_NUM_THREADS=4 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | sed -e 's/parallel = outer, threads = 0/parallel = outer, threads = 3/' -e 's/simd32 = false>/simd32 = false, accumulator = dense, passes = one>/' | sptune-opt --sptune-apply-schedule --sptune-lower-cpu | env TENSOR0=%S/Inputs/spgemm-7x5.mtx OMP_NUM_THREADS=1 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=gustavson-spgemm=false | env TENSOR0=%S/Inputs/spgemm-7x5.mtx %{run} | FileCheck %s
// RUN: sptune-opt %s --linalg-generalize-named-ops --sptune-cpu-sparsify | FileCheck %s --check-prefix=IR
// RUN: sptune-opt %s --linalg-generalize-named-ops --sptune-cpu-sparsify=gustavson-spgemm=false | FileCheck %s --check-prefix=UPSTREAM
// RUN: sptune-opt %s --linalg-generalize-named-ops --sptune-cpu-sparsify=gustavson-accumulator=hash | FileCheck %s --check-prefix=HASH
// RUN: sptune-opt %s --linalg-generalize-named-ops --sptune-cpu-sparsify=gustavson-accumulator=dense | FileCheck %s --check-prefix=DENSE
// RUN: sptune-opt %s --linalg-generalize-named-ops --sptune-cpu-sparsify | FileCheck %s --check-prefix=AUTO
//
// The hash table's Fibonacci hashing (2^64 / phi) and the bit set's read-off
// (counting trailing zeros): `auto` builds both and picks when it runs.
// HASH: arith.constant -7046029254386353131 : i64
// HASH-NOT: math.cttz
// DENSE-NOT: arith.constant -7046029254386353131 : i64
// DENSE: math.cttz
// AUTO-DAG: arith.constant -7046029254386353131 : i64
// AUTO-DAG: math.cttz
//
// REMARK: both inputs are sparse, and this sparse x sparse product is not tuned: its result: it is not stored as CSR ([dense, compressed], rows first); seen as spgemm
// REMARK-NOT: seen as spgemm
//
// One kernel function per signature (f64 5 x 4 by 4 x 6, i32, f32 with
// 32-bit storage, f64 dynamic, f64 3 x 5 by 5 x 4, f64 3 x 3 by 3 x 1000);
// the DCSR product stays upstream's.
// IR-COUNT-6: func.func private @sptune_gustavson_spgemm{{(_[0-9]+)?}}(
// IR-NOT: func.func private @sptune_gustavson_spgemm
// IR-LABEL: func.func @spgemm_f64(
// IR: call @sptune_gustavson_spgemm
// IR-LABEL: func.func @spgemm_dcsr(
// IR-NOT: call @sptune_gustavson_spgemm
// IR-LABEL: func.func @main(
// UPSTREAM-NOT: sptune_gustavson_spgemm
//
// CHECK:      ---- Sparse Tensor ----
// CHECK-NEXT: nse = 13
// CHECK-NEXT: dim = ( 5, 6 )
// CHECK-NEXT: lvl = ( 5, 6 )
// CHECK-NEXT: pos[1] : ( 0, 4, 4, 6, 11, 13 )
// CHECK-NEXT: crd[1] : ( 1, 3, 4, 5, 0, 3, 0, 1, 3, 4, 5, 0, 3 )
// CHECK-NEXT: values : ( 6, 2, 2, 9, 13, 4, 6, 0, 16, -2, -3, 7, 7 )
// CHECK-NEXT: ----
// CHECK:      ---- Sparse Tensor ----
// CHECK-NEXT: nse = 13
// CHECK-NEXT: dim = ( 5, 6 )
// CHECK-NEXT: lvl = ( 5, 6 )
// CHECK-NEXT: pos[1] : ( 0, 4, 4, 6, 11, 13 )
// CHECK-NEXT: crd[1] : ( 1, 3, 4, 5, 0, 3, 0, 1, 3, 4, 5, 0, 3 )
// CHECK-NEXT: values : ( 22, 4, 4, 18, 26, 8, 12, -10, 32, -4, -6, 14, 14 )
// CHECK-NEXT: ----
// CHECK:      ---- Sparse Tensor ----
// CHECK-NEXT: nse = 13
// CHECK-NEXT: dim = ( 5, 6 )
// CHECK-NEXT: lvl = ( 5, 6 )
// CHECK-NEXT: pos[1] : ( 0, 4, 4, 6, 11, 13 )
// CHECK-NEXT: crd[1] : ( 1, 3, 4, 5, 0, 3, 0, 1, 3, 4, 5, 0, 3 )
// CHECK-NEXT: values : ( 6, 2, 2, 9, 13, 4, 6, 0, 16, -2, -3, 7, 7 )
// CHECK-NEXT: ----
// CHECK:      ---- Sparse Tensor ----
// CHECK-NEXT: nse = 0
// CHECK-NEXT: dim = ( 3, 4 )
// CHECK-NEXT: lvl = ( 3, 4 )
// CHECK-NEXT: pos[1] : ( 0, 0, 0, 0 )
// CHECK-NEXT: crd[1] : ( )
// CHECK-NEXT: values : ( )
// CHECK-NEXT: ----
// A (7 x 5, from the file) times A^T, printed dense, and its entries
// counted.
// CHECK:      ( ( 0, 0, 0, 0, 0, 0, 0 ), ( 0, 6.25, 0, -3, 0.5, -14, 0 ), ( 0, 0, 16, 0, 4, 0, 0 ), ( 0, -3, 0, 14, 3.5, 24, 0 ), ( 0, 0.5, 4, 3.5, 2.25, 3.5, 0 ), ( 0, -14, 0, 24, 3.5, 58, 0 ), ( 0, 0, 0, 0, 0, 0, 0 ) )
// CHECK-NEXT: 19
// CHECK:      ---- Sparse Tensor ----
// CHECK-NEXT: nse = 12
// CHECK-NEXT: dim = ( 3, 1000 )
// CHECK-NEXT: lvl = ( 3, 1000 )
// CHECK-NEXT: pos[1] : ( 0, 2, 7, 12 )
// CHECK-NEXT: crd[1] : ( 0, 999, 0, 63, 64, 127, 128, 63, 64, 127, 128, 999 )
// CHECK-NEXT: values : ( 4, 3, 4, 2, 4, 10, 12, 1, 2, 5, 6, 3 )
// CHECK-NEXT: ----
// CHECK:      ---- Sparse Tensor ----
// CHECK-NEXT: nse = 13
// CHECK-NEXT: dim = ( 5, 6 )
// CHECK-NEXT: lvl = ( 5, 6 )
// CHECK-NEXT: pos[0] : ( 0, 4 )
// CHECK-NEXT: crd[0] : ( 0, 2, 3, 4 )
// CHECK-NEXT: pos[1] : ( 0, 4, 6, 11, 13 )
// CHECK-NEXT: crd[1] : ( 1, 3, 4, 5, 0, 3, 0, 1, 3, 4, 5, 0, 3 )
// CHECK-NEXT: values : ( 6, 2, 2, 9, 13, 4, 6, 0, 16, -2, -3, 7, 7 )
// CHECK-NEXT: ----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#CSR32 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), posWidth = 32, crdWidth = 32 }>
#DCSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed, j : compressed) }>

#matmul_ba = {
  indexing_maps = [affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

func.func @spgemm_f64(%a: tensor<5x4xf64, #CSR>, %b: tensor<4x6xf64, #CSR>) -> tensor<5x6xf64, #CSR> {
  %e = tensor.empty() : tensor<5x6xf64, #CSR>
  %r = linalg.matmul ins(%a, %b : tensor<5x4xf64, #CSR>, tensor<4x6xf64, #CSR>)
                     outs(%e : tensor<5x6xf64, #CSR>) -> tensor<5x6xf64, #CSR>
  return %r : tensor<5x6xf64, #CSR>
}

// B first: C(i, j) += B(k, j) * A(i, k).
func.func @spgemm_i32(%a: tensor<5x4xi32, #CSR>, %b: tensor<4x6xi32, #CSR>) -> tensor<5x6xi32, #CSR> {
  %e = tensor.empty() : tensor<5x6xi32, #CSR>
  %r = linalg.generic #matmul_ba
      ins(%b, %a : tensor<4x6xi32, #CSR>, tensor<5x4xi32, #CSR>)
      outs(%e : tensor<5x6xi32, #CSR>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<5x6xi32, #CSR>
  return %r : tensor<5x6xi32, #CSR>
}

func.func @spgemm_f32_narrow(%a: tensor<5x4xf32, #CSR32>, %b: tensor<4x6xf32, #CSR32>) -> tensor<5x6xf32, #CSR32> {
  %e = tensor.empty() : tensor<5x6xf32, #CSR32>
  %r = linalg.matmul ins(%a, %b : tensor<5x4xf32, #CSR32>, tensor<4x6xf32, #CSR32>)
                     outs(%e : tensor<5x6xf32, #CSR32>) -> tensor<5x6xf32, #CSR32>
  return %r : tensor<5x6xf32, #CSR32>
}

func.func @spgemm_dynamic(%a: tensor<?x?xf64, #CSR>, %b: tensor<?x?xf64, #CSR>) -> tensor<?x?xf64, #CSR> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf64, #CSR>
  %n = tensor.dim %b, %c1 : tensor<?x?xf64, #CSR>
  %e = tensor.empty(%m, %n) : tensor<?x?xf64, #CSR>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf64, #CSR>, tensor<?x?xf64, #CSR>)
                     outs(%e : tensor<?x?xf64, #CSR>) -> tensor<?x?xf64, #CSR>
  return %r : tensor<?x?xf64, #CSR>
}

func.func @spgemm_zero(%a: tensor<3x5xf64, #CSR>, %b: tensor<5x4xf64, #CSR>) -> tensor<3x4xf64, #CSR> {
  %e = tensor.empty() : tensor<3x4xf64, #CSR>
  %r = linalg.matmul ins(%a, %b : tensor<3x5xf64, #CSR>, tensor<5x4xf64, #CSR>)
                     outs(%e : tensor<3x4xf64, #CSR>) -> tensor<3x4xf64, #CSR>
  return %r : tensor<3x4xf64, #CSR>
}

// 1,000 columns (16 words of the kernel's bit set, the last one partial).
// Row 0's columns come out of order (999, then 0) and span more words than
// four per column: sorted. Rows 1 and 2 are read off the bit set: columns
// 63, 64, 127 and 128 sit at word boundaries; row 2 spans all 16 words.
func.func @spgemm_wide(%a: tensor<3x3xf64, #CSR>, %b: tensor<3x1000xf64, #CSR>) -> tensor<3x1000xf64, #CSR> {
  %e = tensor.empty() : tensor<3x1000xf64, #CSR>
  %r = linalg.matmul ins(%a, %b : tensor<3x3xf64, #CSR>, tensor<3x1000xf64, #CSR>)
                     outs(%e : tensor<3x1000xf64, #CSR>) -> tensor<3x1000xf64, #CSR>
  return %r : tensor<3x1000xf64, #CSR>
}

// Not the kernel's: a doubly-compressed result.
func.func @spgemm_dcsr(%a: tensor<5x4xf64, #CSR>, %b: tensor<4x6xf64, #CSR>) -> tensor<5x6xf64, #DCSR> {
  %e = tensor.empty() : tensor<5x6xf64, #DCSR>
  %r = linalg.matmul ins(%a, %b : tensor<5x4xf64, #CSR>, tensor<4x6xf64, #CSR>)
                     outs(%e : tensor<5x6xf64, #DCSR>) -> tensor<5x6xf64, #DCSR>
  return %r : tensor<5x6xf64, #DCSR>
}

func.func private @getTensorFilename(index) -> (!llvm.ptr)

func.func @main() {
  %c0 = arith.constant 0 : index
  // Row 1 is empty; C(3, 1) = 5 * 1 + (-2) * 2.5 cancels to zero (a stored
  // zero, as upstream stores it).
  %da = arith.constant dense<[[1.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 4.0],
                              [5.0, 0.0, -2.0, 6.0], [0.0, 0.0, 0.0, 7.0]]> : tensor<5x4xf64>
  %db = arith.constant dense<[[0.0, 1.0, 0.0, 2.0, 0.0, 1.0], [3.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                              [0.0, 2.5, 0.0, 0.0, 1.0, 4.0], [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]]> : tensor<4x6xf64>
  %a = sparse_tensor.convert %da : tensor<5x4xf64> to tensor<5x4xf64, #CSR>
  %b = sparse_tensor.convert %db : tensor<4x6xf64> to tensor<4x6xf64, #CSR>
  %c = call @spgemm_f64(%a, %b) : (tensor<5x4xf64, #CSR>, tensor<4x6xf64, #CSR>) -> tensor<5x6xf64, #CSR>
  sparse_tensor.print %c : tensor<5x6xf64, #CSR>

  // The same in i32, A doubled and B's 2.5 made 5 (C(3, 1) = 10 - 20).
  %ia = arith.constant dense<[[2, 0, 4, 0], [0, 0, 0, 0], [0, 6, 0, 8], [10, 0, -4, 12], [0, 0, 0, 14]]> : tensor<5x4xi32>
  %ib = arith.constant dense<[[0, 1, 0, 2, 0, 1], [3, 0, 0, 0, 0, 0], [0, 5, 0, 0, 1, 4], [1, 0, 0, 1, 0, 0]]> : tensor<4x6xi32>
  %sia = sparse_tensor.convert %ia : tensor<5x4xi32> to tensor<5x4xi32, #CSR>
  %sib = sparse_tensor.convert %ib : tensor<4x6xi32> to tensor<4x6xi32, #CSR>
  %ci = call @spgemm_i32(%sia, %sib) : (tensor<5x4xi32, #CSR>, tensor<4x6xi32, #CSR>) -> tensor<5x6xi32, #CSR>
  sparse_tensor.print %ci : tensor<5x6xi32, #CSR>

  %fa = arith.truncf %da : tensor<5x4xf64> to tensor<5x4xf32>
  %fb = arith.truncf %db : tensor<4x6xf64> to tensor<4x6xf32>
  %sfa = sparse_tensor.convert %fa : tensor<5x4xf32> to tensor<5x4xf32, #CSR32>
  %sfb = sparse_tensor.convert %fb : tensor<4x6xf32> to tensor<4x6xf32, #CSR32>
  %cf = call @spgemm_f32_narrow(%sfa, %sfb) : (tensor<5x4xf32, #CSR32>, tensor<4x6xf32, #CSR32>) -> tensor<5x6xf32, #CSR32>
  sparse_tensor.print %cf : tensor<5x6xf32, #CSR32>

  // All zero: no entries.
  %za = arith.constant dense<0.0> : tensor<3x5xf64>
  %zb = arith.constant dense<[[1.0, 0.0, 0.0, 2.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0]]> : tensor<5x4xf64>
  %sza = sparse_tensor.convert %za : tensor<3x5xf64> to tensor<3x5xf64, #CSR>
  %szb = sparse_tensor.convert %zb : tensor<5x4xf64> to tensor<5x4xf64, #CSR>
  %cz = call @spgemm_zero(%sza, %szb) : (tensor<3x5xf64, #CSR>, tensor<5x4xf64, #CSR>) -> tensor<3x4xf64, #CSR>
  sparse_tensor.print %cz : tensor<3x4xf64, #CSR>

  // Dynamic shapes: A (7 x 5) read from the file, times A^T (5 x 7),
  // printed dense, and its stored entries counted.
  %f = call @getTensorFilename(%c0) : (index) -> (!llvm.ptr)
  %fa5 = sparse_tensor.new %f : !llvm.ptr to tensor<?x?xf64, #CSR>
  %dense = sparse_tensor.convert %fa5 : tensor<?x?xf64, #CSR> to tensor<?x?xf64>
  %empty = tensor.empty() : tensor<5x7xf64>
  %s75 = tensor.cast %dense : tensor<?x?xf64> to tensor<7x5xf64>
  %at = linalg.transpose ins(%s75 : tensor<7x5xf64>) outs(%empty : tensor<5x7xf64>) permutation = [1, 0]
  %atd = tensor.cast %at : tensor<5x7xf64> to tensor<?x?xf64>
  %sat = sparse_tensor.convert %atd : tensor<?x?xf64> to tensor<?x?xf64, #CSR>
  %cd = call @spgemm_dynamic(%fa5, %sat) : (tensor<?x?xf64, #CSR>, tensor<?x?xf64, #CSR>) -> tensor<?x?xf64, #CSR>
  %cdd = sparse_tensor.convert %cd : tensor<?x?xf64, #CSR> to tensor<?x?xf64>
  %cds = tensor.cast %cdd : tensor<?x?xf64> to tensor<7x7xf64>
  %zero = arith.constant 0.0 : f64
  %v = vector.transfer_read %cds[%c0, %c0], %zero : tensor<7x7xf64>, vector<7x7xf64>
  vector.print %v : vector<7x7xf64>
  %nse = sparse_tensor.number_of_entries %cd : tensor<?x?xf64, #CSR>
  vector.print %nse : index

  %wa = arith.constant dense<[[1.0, 1.0, 0.0], [0.0, 1.0, 2.0], [1.0, 0.0, 1.0]]> : tensor<3x3xf64>
  %wb = arith.constant sparse<[[0, 999], [1, 0], [2, 63], [2, 64], [2, 127], [2, 128]],
                              [3.0, 4.0, 1.0, 2.0, 5.0, 6.0]> : tensor<3x1000xf64>
  %swa = sparse_tensor.convert %wa : tensor<3x3xf64> to tensor<3x3xf64, #CSR>
  %swb = sparse_tensor.convert %wb : tensor<3x1000xf64> to tensor<3x1000xf64, #CSR>
  %cw = call @spgemm_wide(%swa, %swb) : (tensor<3x3xf64, #CSR>, tensor<3x1000xf64, #CSR>) -> tensor<3x1000xf64, #CSR>
  sparse_tensor.print %cw : tensor<3x1000xf64, #CSR>

  %cs = call @spgemm_dcsr(%a, %b) : (tensor<5x4xf64, #CSR>, tensor<4x6xf64, #CSR>) -> tensor<5x6xf64, #DCSR>
  sparse_tensor.print %cs : tensor<5x6xf64, #DCSR>

  bufferization.dealloc_tensor %a : tensor<5x4xf64, #CSR>
  bufferization.dealloc_tensor %b : tensor<4x6xf64, #CSR>
  bufferization.dealloc_tensor %c : tensor<5x6xf64, #CSR>
  bufferization.dealloc_tensor %sia : tensor<5x4xi32, #CSR>
  bufferization.dealloc_tensor %sib : tensor<4x6xi32, #CSR>
  bufferization.dealloc_tensor %ci : tensor<5x6xi32, #CSR>
  bufferization.dealloc_tensor %sfa : tensor<5x4xf32, #CSR32>
  bufferization.dealloc_tensor %sfb : tensor<4x6xf32, #CSR32>
  bufferization.dealloc_tensor %cf : tensor<5x6xf32, #CSR32>
  bufferization.dealloc_tensor %sza : tensor<3x5xf64, #CSR>
  bufferization.dealloc_tensor %szb : tensor<5x4xf64, #CSR>
  bufferization.dealloc_tensor %cz : tensor<3x4xf64, #CSR>
  bufferization.dealloc_tensor %fa5 : tensor<?x?xf64, #CSR>
  bufferization.dealloc_tensor %sat : tensor<?x?xf64, #CSR>
  bufferization.dealloc_tensor %cd : tensor<?x?xf64, #CSR>
  bufferization.dealloc_tensor %swa : tensor<3x3xf64, #CSR>
  bufferization.dealloc_tensor %swb : tensor<3x1000xf64, #CSR>
  bufferization.dealloc_tensor %cw : tensor<3x1000xf64, #CSR>
  bufferization.dealloc_tensor %cs : tensor<5x6xf64, #DCSR>
  return
}
