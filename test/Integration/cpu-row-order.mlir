// Executed kernels whose rows are visited in reverse Cuthill-McKee order
// (reorder = rcm, cpu/RowOrder.h): the order is computed when the module is
// compiled, from the matrix named on the sparse argument (sptune.matrix) or
// by the lowering's matrix= option, and every row's results land in their
// own place. The matrix is a path 4-0-6-2-7-1-5-3 numbered out of order
// (Inputs/row-order-8.mtx); the expected values were computed with NumPy.
// SpMV's function takes dynamic shapes and is also called with the leading
// 6 x 6 block, whose rows (6, not the order's 8) are visited in storage order.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// DEFINE: %{lower} = sptune-opt --sptune-apply-schedule --sptune-lower-cpu
// DEFINE: %{matrix} = sed 's|MATRIX|%S/Inputs/row-order-8.mtx|'
//
// Parallel rows with OpenMP's dynamic chunks of one row and of 16 rows,
// vectorized; one thread; the sequential loop (parallel = none).
// RUN: %{matrix} %s | sed 's/SPMM/cpu spmm, parallel = outer, omp = dynamic, chunk = 1, vl = 4, reorder = rcm/; s/SPMV/cpu spmv, parallel = outer, omp = dynamic, chunk = 1, reorder = rcm/; s/SDDMM/cpu sddmm, order = [i, j, k], parallel = outer, omp = dynamic, chunk = 1, reorder = rcm/' | %{lower} | %{run} | FileCheck %s
// RUN: %{matrix} %s | sed 's/SPMM/cpu spmm, parallel = outer, threads = 2, omp = static, reorder = rcm/; s/SPMV/cpu spmv, parallel = outer, threads = 1, vl = 4, reorder = rcm/; s/SDDMM/cpu sddmm, order = [i, j, k], parallel = outer, omp = dynamic, chunk = 16, vl = 4, reorder = rcm/' | %{lower} | %{run} | FileCheck %s
// RUN: %{matrix} %s | sed 's/SPMM/cpu spmm, reorder = rcm/; s/SPMV/cpu spmv, reorder = rcm/; s/SDDMM/cpu sddmm, order = [i, j, k], reorder = rcm/' | %{lower} | %{run} | FileCheck %s
// Column panels of SpMM's free loop: one row loop per panel, each ordered.
// RUN: %{matrix} %s | sed 's/SPMM/cpu spmm, tile = 2, parallel = outer, reorder = rcm/; s/SPMV/cpu spmv/; s/SDDMM/cpu sddmm/' | %{lower} | %{run} | FileCheck %s
// The matrix named by the lowering's option instead of the attribute.
// RUN: sed 's/ {sptune.matrix = "MATRIX"}//' %s | sed 's/SPMM/cpu spmm, parallel = outer, reorder = rcm/; s/SPMV/cpu spmv, parallel = outer, reorder = rcm/; s/SDDMM/cpu sddmm, order = [i, j, k], parallel = outer, reorder = rcm/' | sptune-opt --sptune-apply-schedule --sptune-lower-cpu=matrix=%S/Inputs/row-order-8.mtx | %{run} | FileCheck %s
// Storage order (no reorder), the same values.
// RUN: %{matrix} %s | sed 's/SPMM/cpu spmm, parallel = outer/; s/SPMV/cpu spmv, parallel = outer/; s/SDDMM/cpu sddmm, order = [i, j, k], parallel = outer/' | %{lower} | %{run} | FileCheck %s
//
// The rewrite: the order as a constant global, read at the top of the row loop
// when the trip count is its length.
// RUN: %{matrix} %s | sed 's/SPMM/cpu spmm, parallel = outer, reorder = rcm/; s/SPMV/cpu spmv/; s/SDDMM/cpu sddmm/' | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify --sptune-cpu-visit-rows-in-order | FileCheck %s --check-prefix=IR
// IR: memref.global "private" constant @__sptune_row_order : memref<8xi32> = dense<[4, 0, 6, 2, 7, 1, 5, 3]> {alignment = 64 : i64}
// IR-LABEL: func.func @spmm
// IR-NOT: sptune.row_order
// IR: %[[ORDER:.*]] = memref.get_global @__sptune_row_order : memref<8xi32>
// IR: %[[MATCH:.*]] = arith.cmpi eq,
// IR: scf.parallel (%[[ROW:.*]]) =
// IR-NEXT: %[[AT:.*]] = arith.select %[[MATCH]], %[[ROW]],
// IR-NEXT: %[[ENTRY:.*]] = memref.load %[[ORDER]][%[[AT]]] : memref<8xi32>
// IR-NEXT: %[[CAST:.*]] = arith.index_castui %[[ENTRY]] : i32 to index
// IR-NEXT: %[[R:.*]] = arith.select %[[MATCH]], %[[CAST]], %[[ROW]] : index
// IR: memref.load %{{.*}}[%[[R]]]
// IR-LABEL: func.func @spmv
// IR-NOT: memref.get_global
// IR-LABEL: func.func @main
//
// CHECK: ( ( 19.25, 22.5, 25.75 ), ( 7, 10.25, 13.5 ), ( 33.25, 39, 44.75 ), ( 2.5, 4.25, 6 ), ( 27.5, 35, 42.5 ), ( 50.5, 59.25, 68 ), ( 60.75, 70.5, 80.25 ), ( 65.5, 75.5, 85.5 ) )
// CHECK-NEXT: ( 19.25, 7, 33.25, 2.5, 27.5, 50.5, 60.75, 65.5 )
// CHECK-NEXT: ( -5.25, 25, 9, 2.5, 27.5, 50.5 )
// CHECK-NEXT: ( ( 1.5, 0, 0, 0, -6.875, 0, 26.25, 0 ), ( 0, 5, 0, 0, 0, 36.75, 0, -32.625 ), ( 0, 0, 34.5, 0, 0, 0, -52.875, 107.5 ), ( 0, 0, 0, 50, 0, -46.125, 0, 0 ), ( 23.75, 0, 0, 0, 147.5, 0, 0, 0 ), ( 0, -11.375, 0, 83.25, 0, 183, 0, 0 ), ( -23.625, 0, 123.75, 0, 0, 0, 388.5, 0 ), ( 0, 38.25, -78.75, 0, 0, 0, 0, 452 ) )

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#sddmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

module {
  func.func @spmm(%a: tensor<8x8xf32, #CSR> {sptune.matrix = "MATRIX"}, %b: tensor<8x3xf32>, %c: tensor<8x3xf32>) -> tensor<8x3xf32> {
    %0 = linalg.matmul {sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 3, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<SPMM>}
      ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x3xf32>) outs(%c : tensor<8x3xf32>) -> tensor<8x3xf32>
    return %0 : tensor<8x3xf32>
  }

  func.func @spmv(%a: tensor<?x?xf32, #CSR> {sptune.matrix = "MATRIX"}, %x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
    %0 = linalg.matvec {sptune.kernel = #sptune.kernel<spmv, loops = [i : ?, k : ?], operands = [sparse(i, k), dense(k), out(i)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<SPMV>}
      ins(%a, %x : tensor<?x?xf32, #CSR>, tensor<?xf32>) outs(%y : tensor<?xf32>) -> tensor<?xf32>
    return %0 : tensor<?xf32>
  }

  func.func @sddmm(%s: tensor<8x8xf32, #CSR> {sptune.matrix = "MATRIX"}, %a: tensor<8x2xf32>, %b: tensor<2x8xf32>) -> tensor<8x8xf32, #CSR> {
    %e = tensor.empty() : tensor<8x8xf32, #CSR>
    %0 = linalg.generic #sddmm {sptune.kernel = #sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 2], operands = [sparse(i, j), dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<SDDMM>}
      ins(%s, %a, %b : tensor<8x8xf32, #CSR>, tensor<8x2xf32>, tensor<2x8xf32>) outs(%e : tensor<8x8xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %r = arith.addf %xv, %q : f32
      linalg.yield %r : f32
    } -> tensor<8x8xf32, #CSR>
    return %0 : tensor<8x8xf32, #CSR>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %d = arith.constant dense<[[1.00, 0.00, 0.00, 0.00, -1.25, 0.00, 3.50, 0.00], [0.00, 2.00, 0.00, 0.00, 0.00, 3.50, 0.00, -2.25], [0.00, 0.00, 3.00, 0.00, 0.00, 0.00, -2.25, 5.00], [0.00, 0.00, 0.00, 4.00, 0.00, -2.25, 0.00, 0.00], [2.50, 0.00, 0.00, 0.00, 5.00, 0.00, 0.00, 0.00], [0.00, -1.75, 0.00, 4.50, 0.00, 6.00, 0.00, 0.00], [-1.75, 0.00, 4.50, 0.00, 0.00, 0.00, 7.00, 0.00], [0.00, 4.50, -2.50, 0.00, 0.00, 0.00, 0.00, 8.00]]> : tensor<8x8xf32>
    %a = sparse_tensor.convert %d : tensor<8x8xf32> to tensor<8x8xf32, #CSR>

    %b = arith.constant dense<[[1.0, 2.0, 3.0], [2.0, 3.0, 4.0], [3.0, 4.0, 5.0], [4.0, 5.0, 6.0], [5.0, 6.0, 7.0], [6.0, 7.0, 8.0], [7.0, 8.0, 9.0], [8.0, 9.0, 10.0]]> : tensor<8x3xf32>
    %c = arith.constant dense<0.0> : tensor<8x3xf32>
    %cc = call @spmm(%a, %b, %c) : (tensor<8x8xf32, #CSR>, tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    %cv = vector.transfer_read %cc[%c0, %c0], %z : tensor<8x3xf32>, vector<8x3xf32>
    vector.print %cv : vector<8x3xf32>

    %ad = sparse_tensor.convert %d : tensor<8x8xf32> to tensor<?x?xf32, #CSR>
    %x = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
    %xd = tensor.cast %x : tensor<8xf32> to tensor<?xf32>
    %y = arith.constant dense<0.0> : tensor<8xf32>
    %yd = tensor.cast %y : tensor<8xf32> to tensor<?xf32>
    %yy = call @spmv(%ad, %xd, %yd) : (tensor<?x?xf32, #CSR>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    %yv = vector.transfer_read %yy[%c0], %z : tensor<?xf32>, vector<8xf32>
    vector.print %yv : vector<8xf32>

    // The leading 6 x 6 block: 6 rows, not the order's 8.
    %d6 = tensor.extract_slice %d[0, 0] [6, 6] [1, 1] : tensor<8x8xf32> to tensor<6x6xf32>
    %a6 = sparse_tensor.convert %d6 : tensor<6x6xf32> to tensor<?x?xf32, #CSR>
    %x6s = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
    %x6 = tensor.cast %x6s : tensor<6xf32> to tensor<?xf32>
    %y6s = arith.constant dense<0.0> : tensor<6xf32>
    %y6 = tensor.cast %y6s : tensor<6xf32> to tensor<?xf32>
    %yy6 = call @spmv(%a6, %x6, %y6) : (tensor<?x?xf32, #CSR>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    %yv6 = vector.transfer_read %yy6[%c0], %z : tensor<?xf32>, vector<6xf32>
    vector.print %yv6 : vector<6xf32>

    %sa = arith.constant dense<[[1.0, 0.5], [2.0, 1.5], [3.0, 2.5], [4.0, 3.5], [5.0, 4.5], [6.0, 5.5], [7.0, 6.5], [8.0, 7.5]]> : tensor<8x2xf32>
    %sb = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0]]> : tensor<2x8xf32>
    %xs = call @sddmm(%a, %sa, %sb) : (tensor<8x8xf32, #CSR>, tensor<8x2xf32>, tensor<2x8xf32>) -> tensor<8x8xf32, #CSR>
    %xsd = sparse_tensor.convert %xs : tensor<8x8xf32, #CSR> to tensor<8x8xf32>
    %xv = vector.transfer_read %xsd[%c0, %c0], %z : tensor<8x8xf32>, vector<8x8xf32>
    vector.print %xv : vector<8x8xf32>

    bufferization.dealloc_tensor %a : tensor<8x8xf32, #CSR>
    bufferization.dealloc_tensor %ad : tensor<?x?xf32, #CSR>
    bufferization.dealloc_tensor %a6 : tensor<?x?xf32, #CSR>
    bufferization.dealloc_tensor %xs : tensor<8x8xf32, #CSR>
    return
  }
}
