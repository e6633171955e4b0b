// Executed SDDMM, X = S .* (A * B) with X sparse sharing S's pattern, under
// the storage families and loop orders the sparse output admits; and the
// in-place upstream form S += spy(S) .* (A * B). Hand-computed values.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// DEFINE: %{lower} = sed 's/SPY/cpu sddmm, order = [i, k, j]/' | sptune-opt --sptune-apply-schedule --sptune-lower-cpu
//
// Dot products (k innermost) over CSR, vectorized; DCSR; BSR; CSC.
// RUN: sed 's/SCHEDULE/cpu sddmm, order = [i, j, k], vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// Rows in blocks of equal stored entries (omp = balanced), 2 and 16 blocks
// (more blocks than rows: some are empty).
// RUN: sed 's/SCHEDULE/cpu sddmm, order = [i, j, k], parallel = outer, threads = 2, omp = balanced, vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu sddmm, order = [i, j, k], parallel = outer, threads = 16, omp = balanced/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu sddmm, levels = [j : dense, i : compressed], order = [j, i, k], parallel = outer, omp = balanced/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu sddmm, levels = [i : compressed, j : compressed], order = [i, j, k], parallel = outer/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu sddmm, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [2, 2], order = [i1, j1, i0, j0, k], vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu sddmm, levels = [j : dense, i : compressed], order = [j, i, k]/' %s | %{lower} | %{run} | FileCheck %s
// The reduction directly above the innermost compressed level (expansion).
// RUN: sed 's/SCHEDULE/cpu sddmm, order = [i, k, j], parallel = outer/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu sddmm, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : compressed], split = [2, 2], order = [i1, j1, i0, k, j0]/' %s | %{lower} | %{run} | FileCheck %s
// Dense operand layouts: B (and A) stored transposed inside the function,
// in parallel panels; the sampled product then updates a copy of S in place
// (S itself is printed unchanged after the call).
// RUN: sed 's/SCHEDULE/cpu sddmm, order = [i, j, k], layout = [b : k], parallel = outer, omp = dynamic, chunk = 2, vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu sddmm, order = [i, j, k], layout = [a : i, b : k], vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu sddmm, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [2, 2], order = [i1, j1, i0, j0, k], layout = [b : k], parallel = outer/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu sddmm, levels = [i : compressed_nu, j : singleton], order = [i, j, k], layout = [a : i]/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu sddmm, order = [i, k, j], layout = [b : k], parallel = outer/' %s | %{lower} | %{run} | FileCheck %s
// Unscheduled.
// RUN: sed 's/, sptune.schedule = #sptune.schedule<SCHEDULE>//' %s | %{lower} | %{run} | FileCheck %s
//
// The in-place form with k outside the innermost level (every run above
// checks it with k directly above the innermost level).
// RUN: sed 's/SPY/cpu sddmm, order = [k, i, j]/; s/SCHEDULE/cpu sddmm/' %s | %{lower} | %{run} | FileCheck %s
// ... and in blocks (k outermost, as the in-place form needs there).
// RUN: sed 's/SPY/cpu sddmm, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [2, 2], order = [k, i1, j1, i0, j0]/; s/SCHEDULE/cpu sddmm/' %s | %{lower} | %{run} | FileCheck %s

// CHECK: ( ( 20, 0, 0, 40, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 240, 0, 0, 0, 0, 0, 0 ), ( 200, 0, 750, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 180, 0 ), ( 0, 0, 0, 0, 0, -420, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 240 ), ( 0, 0, 0, 0, 90, 0, 0, 0 ) )
// CHECK-NEXT: 9
// CHECK-NEXT: ( 1, 2, 3, 4, 5, 3, -2, 1.5, 0.5 )
// CHECK-NEXT: ( 21, 22, 83, 54, 155, 63, 208, 161.5, 180.5 )
// CHECK-NEXT: 9

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#sddmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}
#spy = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

module {
  func.func @sddmm(%s: tensor<8x8xf32, #CSR>, %a: tensor<8x4xf32>, %b: tensor<4x8xf32>) -> tensor<8x8xf32, #CSR> {
    %e = tensor.empty() : tensor<8x8xf32, #CSR>
    %0 = linalg.generic #sddmm {sptune.kernel = #sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 4], operands = [sparse(i, j), dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<SCHEDULE>}
      ins(%s, %a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<4x8xf32>) outs(%e : tensor<8x8xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %r = arith.addf %xv, %q : f32
      linalg.yield %r : f32
    } -> tensor<8x8xf32, #CSR>
    return %0 : tensor<8x8xf32, #CSR>
  }

  func.func @spy(%s: tensor<8x8xf32, #CSR>, %a: tensor<8x4xf32>, %b: tensor<4x8xf32>) -> tensor<8x8xf32, #CSR> {
    %0 = linalg.generic #spy {sptune.kernel = #sptune.kernel<sddmm, loops = [i : 8, j : 8, k : 4], operands = [dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<SPY>}
      ins(%a, %b : tensor<8x4xf32>, tensor<4x8xf32>) outs(%s : tensor<8x8xf32, #CSR>) {
    ^bb0(%av: f32, %bv: f32, %sv: f32):
      %f0 = arith.constant 0.0 : f32
      %u = sparse_tensor.unary %sv : f32 to f32 present = {
      ^bb0(%p: f32):
        %m = arith.mulf %av, %bv : f32
        sparse_tensor.yield %m : f32
      } absent = {}
      %r = sparse_tensor.reduce %sv, %u, %f0 : f32 {
      ^bb0(%p: f32, %q: f32):
        %add = arith.addf %p, %q : f32
        sparse_tensor.yield %add : f32
      }
      linalg.yield %r : f32
    } -> tensor<8x8xf32, #CSR>
    return %0 : tensor<8x8xf32, #CSR>
  }

  func.func @main() {
    %d = arith.constant dense<[[1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5], [0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
    %a = arith.constant dense<[[1.0, 1.5, 2.0, 2.5], [2.0, 2.5, 3.0, 3.5], [3.0, 3.5, 4.0, 4.5], [4.0, 4.5, 5.0, 5.5], [5.0, 5.5, 6.0, 6.5], [6.0, 6.5, 7.0, 7.5], [7.0, 7.5, 8.0, 8.5], [8.0, 8.5, 9.0, 9.5]]> : tensor<8x4xf32>
    %b = arith.constant dense<[[1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0], [2.0, 4.0, 6.0, 2.0, 4.0, 6.0, 2.0, 4.0], [3.0, 6.0, 9.0, 3.0, 6.0, 9.0, 3.0, 6.0], [4.0, 8.0, 12.0, 4.0, 8.0, 12.0, 4.0, 8.0]]> : tensor<4x8xf32>
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %s = sparse_tensor.convert %d : tensor<8x8xf32> to tensor<8x8xf32, #CSR>
    %x = call @sddmm(%s, %a, %b) : (tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32, #CSR>
    %xd = sparse_tensor.convert %x : tensor<8x8xf32, #CSR> to tensor<8x8xf32>
    %v = vector.transfer_read %xd[%c0, %c0], %z : tensor<8x8xf32>, vector<8x8xf32>
    vector.print %v : vector<8x8xf32>
    // S's 9 entries and no more, blocked storage included (its blocks'
    // zeros are not entries of the result).
    %nx = sparse_tensor.number_of_entries %x : tensor<8x8xf32, #CSR>
    vector.print %nx : index
    %sv = sparse_tensor.values %s : tensor<8x8xf32, #CSR> to memref<?xf32>
    %u = vector.transfer_read %sv[%c0], %z : memref<?xf32>, vector<9xf32>
    vector.print %u : vector<9xf32>
    %s2 = sparse_tensor.convert %d : tensor<8x8xf32> to tensor<8x8xf32, #CSR>
    %y = call @spy(%s2, %a, %b) : (tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32, #CSR>
    %yv = sparse_tensor.values %y : tensor<8x8xf32, #CSR> to memref<?xf32>
    %w = vector.transfer_read %yv[%c0], %z : memref<?xf32>, vector<9xf32>
    vector.print %w : vector<9xf32>
    %ny = sparse_tensor.number_of_entries %y : tensor<8x8xf32, #CSR>
    vector.print %ny : index
    return
  }
}
