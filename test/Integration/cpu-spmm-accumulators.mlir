// Executed SpMM whose rows of C are kept in registers across each row's
// stored entries (sptune-promote-accumulators, with multiply-adds fused by
// sptune-contract-fma): C starts non-zero (the kernel accumulates into it),
// row 3 of A is empty (a loop of no iterations stores C back unchanged), and
// N = 48 makes several vectors per row. The result is compared with the same
// product computed densely, unscheduled.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// DEFINE: %{lower} = sptune-opt --sptune-apply-schedule --sptune-lower-cpu
//
// RUN: sed 's/SCHEDULE/cpu spmm, parallel = outer, vl = 16/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, parallel = outer, omp = dynamic, chunk = 2, vl = 8, simd32 = true/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, parallel = outer, threads = 2, omp = balanced, vl = 16/' %s | %{lower} | %{run} | FileCheck %s
// DCSR and 2x2 blocks (the promoted loop is the one over a block's columns).
// RUN: sed 's/SCHEDULE/cpu spmm, levels = [i : compressed, k : compressed], widths = [32, 32], parallel = outer, vl = 16/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : dense], split = [2, 2], parallel = outer, vl = 16/' %s | %{lower} | %{run} | FileCheck %s
// Column panels of the free loop (tile), vectorized: panels of whole vectors
// (16 of 16 lanes, 24 of 8), and panels with a narrower last one (32 then 16
// columns; 20, 20 then 8 over vectors of 8, the last of each panel partial).
// RUN: sed 's/SCHEDULE/cpu spmm, tile = 16, parallel = outer, vl = 16/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, tile = 24, vl = 8/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, tile = 32, parallel = outer, omp = dynamic, chunk = 2, vl = 16/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, levels = [i : compressed, k : compressed], tile = 20, parallel = outer, vl = 8, simd32 = true/' %s | %{lower} | %{run} | FileCheck %s
// A vector length forced by the pipeline's option, on panels the schedule
// did not vectorize and on a whole row (both vectorized after folding).
// RUN: sed 's/SCHEDULE/cpu spmm, tile = 16, parallel = outer/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-cpu=vl=8 | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmm, parallel = outer/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-cpu=vl=16 | %{run} | FileCheck %s
// The pass is what the rows go through: each of these kernels is promoted.
// RUN: sed 's/SCHEDULE/cpu spmm, parallel = outer, vl = 16/' %s | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify --cse --canonicalize --sptune-promote-accumulators=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: remark: sptune: 3 accumulator vector(s) kept in registers across the loop
// A panel's row of C as well, read and written through the panel's view of
// C with unit stride (the vectorizer runs once the sparsifier's casts to a
// fully dynamic layout are folded away).
// RUN: sed 's/SCHEDULE/cpu spmm, tile = 16, parallel = outer, vl = 16/' %s | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify --cse --canonicalize --sptune-promote-accumulators=remarks=true 2>&1 | FileCheck %s --check-prefix=PANEL
// PANEL: remark: sptune: 1 accumulator vector(s) kept in registers across the loop
// PANEL: scf.for %{{.*}} = %c0 to %c48 step %c16
// PANEL: vector.load %{{.*}} : memref<8x16xf32, strided<[48, 1], offset: ?>>, vector<16xf32>

// The largest difference from the dense product, then one row of the result.
// CHECK: {{^}}0{{$}}
// CHECK-NEXT: ( 1, 1, 1,

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

module {
  func.func @spmm(%a: tensor<8x8xf32, #CSR>, %b: tensor<8x48xf32>, %c: tensor<8x48xf32>) -> tensor<8x48xf32> {
    %0 = linalg.matmul {sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 48, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<SCHEDULE>}
      ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x48xf32>) outs(%c : tensor<8x48xf32>) -> tensor<8x48xf32>
    return %0 : tensor<8x48xf32>
  }

  func.func @main() {
    %d = arith.constant dense<[[1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.5], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 5.0, 0.0, 0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5], [0.25, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
    %a = sparse_tensor.convert %d : tensor<8x8xf32> to tensor<8x8xf32, #CSR>
    // B(k, j) = (k * 48 + j) mod 7 - 3; C starts at 1 everywhere.
    %b = tensor.generate {
    ^bb0(%k: index, %j: index):
      %c48 = arith.constant 48 : index
      %c7 = arith.constant 7 : index
      %row = arith.muli %k, %c48 : index
      %lin = arith.addi %row, %j : index
      %m = arith.remui %lin, %c7 : index
      %i = arith.index_cast %m : index to i32
      %f = arith.sitofp %i : i32 to f32
      %three = arith.constant 3.0 : f32
      %v = arith.subf %f, %three : f32
      tensor.yield %v : f32
    } : tensor<8x48xf32>
    %one = arith.constant 1.0 : f32
    %e = tensor.empty() : tensor<8x48xf32>
    %c = linalg.fill ins(%one : f32) outs(%e : tensor<8x48xf32>) -> tensor<8x48xf32>
    %e2 = tensor.empty() : tensor<8x48xf32>
    %c2 = linalg.fill ins(%one : f32) outs(%e2 : tensor<8x48xf32>) -> tensor<8x48xf32>
    %r = call @spmm(%a, %b, %c) : (tensor<8x8xf32, #CSR>, tensor<8x48xf32>, tensor<8x48xf32>) -> tensor<8x48xf32>
    %want = linalg.matmul ins(%d, %b : tensor<8x8xf32>, tensor<8x48xf32>) outs(%c2 : tensor<8x48xf32>) -> tensor<8x48xf32>
    // max |r - want|
    %zero = arith.constant 0.0 : f32
    %acc0 = tensor.empty() : tensor<f32>
    %acc = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<f32>) -> tensor<f32>
    %diff = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
        iterator_types = ["reduction", "reduction"]}
        ins(%r, %want : tensor<8x48xf32>, tensor<8x48xf32>) outs(%acc : tensor<f32>) {
      ^bb0(%x: f32, %y: f32, %m: f32):
        %s = arith.subf %x, %y : f32
        %abs = math.absf %s : f32
        %mx = arith.maximumf %abs, %m : f32
        linalg.yield %mx : f32
    } -> tensor<f32>
    %dv = tensor.extract %diff[] : tensor<f32>
    vector.print %dv : f32
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %row3 = vector.transfer_read %r[%c3, %c0], %zero : tensor<8x48xf32>, vector<48xf32>
    vector.print %row3 : vector<48xf32>
    bufferization.dealloc_tensor %a : tensor<8x8xf32, #CSR>
    return
  }
}
