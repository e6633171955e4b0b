// Executed SpMM under every storage family sptune schedules, sequential,
// parallel (OpenMP) and vectorized; the numbers are A * B computed by hand.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// DEFINE: %{lower} = sptune-opt --sptune-apply-schedule --sptune-lower-cpu
//
// CSR, row-wise and parallel + vectorized; the dot-product order.
// RUN: sed 's/SCHEDULE/cpu spmm/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, parallel = outer, threads = 2, omp = dynamic, chunk = 1, vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// Rows in blocks of equal stored entries (omp = balanced): as many blocks as
// the runtime's threads, 3, and more blocks (16) than rows.
// RUN: sed 's/SCHEDULE/cpu spmm, parallel = outer, omp = balanced, vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, order = [i, j, k], parallel = outer, threads = 3, omp = balanced, vl = 8/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, parallel = outer, threads = 16, omp = balanced/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, order = [i, j, k], parallel = outer, vl = 8, simd32 = true/' %s | %{lower} | %{run} | FileCheck %s
// Row of C in registers across each row's entries (sptune-promote-accumulators),
// one 4-lane vector inside 2x2 blocks; test/Integration/cpu-spmm-accumulators.mlir
// checks wider rows.
// RUN: sed 's/SCHEDULE/cpu spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : dense], split = [2, 2], vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// CSC (column-major levels), with the free loop outermost and parallel.
// RUN: sed 's/SCHEDULE/cpu spmm, levels = [k : dense, i : compressed], order = [j, k, i], parallel = outer/' %s | %{lower} | %{run} | FileCheck %s
// CSC with the reduction loop outermost: sequential (run in parallel it would
// race on C, and the schedule is refused: test/IR/schedule-attr-invalid.mlir).
// RUN: sed 's/SCHEDULE/cpu spmm, levels = [k : dense, i : compressed], order = [k, i, j], vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// DCSR, parallel over the stored rows only, 32-bit positions.
// RUN: sed 's/SCHEDULE/cpu spmm, levels = [i : compressed, k : compressed], widths = [32, 32], parallel = outer, vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// COO.
// RUN: sed 's/SCHEDULE/cpu spmm, levels = [i : compressed_nu, k : singleton], vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// BSR 2x2 (dense blocks), parallel over block rows, tiled free loop.
// RUN: sed 's/SCHEDULE/cpu spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : dense], split = [2, 2], tile = 2, parallel = outer/' %s | %{lower} | %{run} | FileCheck %s
// The same tiled and vectorized (panels of 2 columns in 4-lane vectors).
// RUN: sed 's/SCHEDULE/cpu spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : dense], split = [2, 2], tile = 2, parallel = outer, vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// WACO's blocked mixed format (i1:U k1:C i0:U k0:C) with j between blocks.
// RUN: sed 's/SCHEDULE/cpu spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : compressed], split = [2, 4], order = [i1, j, k1, i0, k0], parallel = outer, omp = dynamic, chunk = 2/' %s | %{lower} | %{run} | FileCheck %s
// Only the column dimension split (block columns inside rows).
// RUN: sed 's/SCHEDULE/cpu spmm, levels = [i : dense, k1 : compressed, k0 : dense], split = [1, 4], parallel = outer, vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// The upstream default, no schedule at all (reference for the others).
// Dense operand layouts: B stored transposed (k contiguous), C computed
// transposed and transposed back, both; with tiles and parallel panels.
// RUN: sed 's/SCHEDULE/cpu spmm, layout = [b : k], parallel = outer, vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, levels = [k : dense, i : compressed], order = [j, k, i], layout = [c : i], parallel = outer/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, order = [i, j, k], layout = [b : k, c : i], tile = 2, parallel = outer, omp = dynamic, chunk = 1/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, order = [i, j, k], layout = [b : k, c : i], tile = 2, parallel = outer, omp = dynamic, chunk = 1, vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, levels = [i : compressed, k : compressed], tile = 3, parallel = outer, vl = 4, simd32 = true/' %s | %{lower} | %{run} | FileCheck %s
// Panels of the dot-product order, B as written: the vectors gather B's
// column by coordinate.
// RUN: sed 's/SCHEDULE/cpu spmm, order = [i, j, k], tile = 2, parallel = outer, vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/, sptune.schedule = #sptune.schedule<SCHEDULE>//' %s | %{lower} | %{run} | FileCheck %s

// CHECK: ( ( 9, 39, 69, 99 ), ( 0, 0, 0, 0 ), ( 6, 36, 66, 96 ), ( 19, 109, 199, 289 ), ( 21, 51, 81, 111 ), ( -12, -32, -52, -72 ), ( 12, 27, 42, 57 ), ( 2.5, 7.5, 12.5, 17.5 ) )

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

module {
  func.func @spmm(%a: tensor<8x8xf32, #CSR>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = linalg.matmul {sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<SCHEDULE>}
      ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }

  func.func @main() {
    %d = arith.constant dense<[[1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5], [0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
    %a = sparse_tensor.convert %d : tensor<8x8xf32> to tensor<8x8xf32, #CSR>
    %b = arith.constant dense<[[1.0, 11.0, 21.0, 31.0], [2.0, 12.0, 22.0, 32.0], [3.0, 13.0, 23.0, 33.0], [4.0, 14.0, 24.0, 34.0], [5.0, 15.0, 25.0, 35.0], [6.0, 16.0, 26.0, 36.0], [7.0, 17.0, 27.0, 37.0], [8.0, 18.0, 28.0, 38.0]]> : tensor<8x4xf32>
    %c = arith.constant dense<0.0> : tensor<8x4xf32>
    %r = call @spmm(%a, %b, %c) : (tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %v = vector.transfer_read %r[%c0, %c0], %z : tensor<8x4xf32>, vector<8x4xf32>
    vector.print %v : vector<8x4xf32>
    bufferization.dealloc_tensor %a : tensor<8x8xf32, #CSR>
    return
  }
}
