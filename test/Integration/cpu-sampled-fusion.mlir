// Sampled dense-dense products fused and unfused, in the manner of
// upstream's sparse_sampled_mm_fusion integration test (written anew here):
// X = S .* (A B) as one SDDMM kernel, with a dense and with a sparse
// result, and as a dense matmul followed by the elementwise product with
// the sparse S (dense ⊙ sparse: the sparse ⊙ dense product with its inputs
// swapped, issue 33). S is doubly compressed (DCSR). Upstream's sparsifier
// on the program as written, sptune's heuristic and learned picks, and
// hand-written schedules of the unfused elementwise product (every storage
// sptune varies, vectorized, the dense operands column-major) and of the
// fused kernel print the same values. The elementwise product into a
// sparse result is tuned too (the same kernel kind, its result stored like
// S: computed in place on a copy of S), with hand-written schedules of its
// own; its result holds S's 3 entries and no more, as upstream's does.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sparsifier | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu 2>/dev/null | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen:uniform:rows=8,nnz=3,seed=1" --sptune-apply-schedule --sptune-lower-cpu 2> %t.release | %{run} | FileCheck %s
// RUN: FileCheck %s --check-prefix=RELEASE < %t.release
// RUN: for s in "levels = [i : dense, j : compressed], order = [i, j]" \
// RUN:          "levels = [j : dense, i : compressed], order = [j, i]" \
// RUN:          "levels = [i : compressed_nu, j : singleton], order = [i, j]" \
// RUN:          "levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [2, 2], order = [i1, j1, i0, j0]" \
// RUN:          "parallel = outer, vl = 4" \
// RUN:          "layout = [b : i, c : i], parallel = outer"; do \
// RUN:   sed -e "s/outs(%%z : tensor<8x8xf64>) {  \/\/ unfused product/outs(%%z : tensor<8x8xf64>) attrs = {sptune.schedule = #sptune.schedule<cpu hadamard, $s>} {/" %s \
// RUN:     | sptune-opt --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu 2>/dev/null | %{run}; \
// RUN: done | FileCheck %s --check-prefix=HAND
// RUN: for s in "levels = [i : dense, j : compressed], order = [i, j, k], parallel = outer" \
// RUN:          "levels = [i : compressed, j : compressed], order = [i, j, k], vl = 4"; do \
// RUN:   sed -e "s/outs(%%z : tensor<8x8xf64>) {  \/\/ fused/outs(%%z : tensor<8x8xf64>) attrs = {sptune.schedule = #sptune.schedule<cpu sddmm, $s>} {/" %s \
// RUN:     | sptune-opt --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu 2>/dev/null | %{run}; \
// RUN: done | FileCheck %s --check-prefix=FUSED
// RUN: for s in "levels = [i : dense, j : compressed], order = [i, j], parallel = outer" \
// RUN:          "levels = [j : dense, i : compressed], order = [j, i]" \
// RUN:          "levels = [i : compressed_nu, j : singleton], order = [i, j]" \
// RUN:          "layout = [b : j], parallel = outer, vl = 4"; do \
// RUN:   sed -e "s/outs(%%e : tensor<8x8xf64, #DCSR>) {  \/\/ unfused into sparse/outs(%%e : tensor<8x8xf64, #DCSR>) attrs = {sptune.schedule = #sptune.schedule<cpu hadamard, $s>} {/" %s \
// RUN:     | sptune-opt --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu 2>/dev/null | %{run}; \
// RUN: done | FileCheck %s --check-prefix=INTO-SPARSE
// The fused SDDMM into sparse storage in blocks: the blocks' zeros are
// computed, but the result keeps S's 3 entries only (the blocked result is
// restricted to the sample's entries when converted back).
// RUN: for s in "levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [2, 2], order = [i1, j1, i0, j0, k]" \
// RUN:          "levels = [i : compressed, j1 : compressed, j0 : dense], split = [1, 4], order = [i, j1, j0, k]"; do \
// RUN:   sed -e "s/outs(%%e : tensor<8x8xf64, #DCSR>) {  \/\/ fused into sparse/outs(%%e : tensor<8x8xf64, #DCSR>) attrs = {sptune.schedule = #sptune.schedule<cpu sddmm, $s>} {/" %s \
// RUN:     | sptune-opt --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu 2>/dev/null | %{run}; \
// RUN: done | FileCheck %s --check-prefix=BLOCKED-SDDMM
// Blocks would store their zeros as entries of the result: refused.
// RUN: sed -e "s/outs(%%e : tensor<8x8xf64, #DCSR>) {  \/\/ unfused into sparse/outs(%%e : tensor<8x8xf64, #DCSR>) attrs = {sptune.schedule = #sptune.schedule<cpu hadamard, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [2, 2]>} {/" %s \
// RUN:   | not sptune-opt --sptune-extract-kernels --sptune-apply-schedule 2>&1 | FileCheck %s --check-prefix=BLOCKS
// BLOCKS: error: sptune: cannot apply schedule: an elementwise product into sparse storage takes no blocks: its result would store the zeros of the blocks as entries
//
// RELEASE-DAG: remark: sptune-autotune (release, {{.*}}): chose cpu sddmm,
// RELEASE-DAG: remark: sptune-autotune (release, {{.*}}): chose cpu hadamard,
// RELEASE-DAG: remark: sptune-autotune (release, {{.*}}): chose cpu hadamard,
//
// S has 1, 3 and 2 at (0, 0), (2, 5) and (7, 7); A(i, k) = i + 1 and
// B(k, j) = j + 1, so (A B)(i, j) = 8 (i + 1) (j + 1).
// CHECK:      ( ( 8, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 432, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 1024 ) )
// CHECK-NEXT: ( ( 8, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 432, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 1024 ) )
// CHECK-NEXT: ( 8, 432, 1024 )
// CHECK-NEXT: ( 8, 432, 1024 )
// CHECK-NEXT: 3
// CHECK-NEXT: 3
// BLOCKED-SDDMM-COUNT-2: ( 8, 432, 1024 ){{[[:space:]]+}}( 8, 432, 1024 ){{[[:space:]]+}}3{{[[:space:]]+}}3{{$}}
// INTO-SPARSE-COUNT-4: ( 8, 432, 1024 ){{[[:space:]]+}}3{{[[:space:]]+}}3{{$}}
// HAND-COUNT-12: ( ( 8, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 432, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 1024 ) )
// FUSED-COUNT-4: ( ( 8, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 432, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 1024 ) )

#DCSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed, j : compressed) }>
#sddmm = { indexing_maps = [affine_map<(i,j,k) -> (i,j)>, affine_map<(i,j,k) -> (i,k)>, affine_map<(i,j,k) -> (k,j)>, affine_map<(i,j,k) -> (i,j)>],
  iterator_types = ["parallel", "parallel", "reduction"] }
#mm = { indexing_maps = [affine_map<(k, i, j) -> (i, k)>, affine_map<(k, i, j) -> (k, j)>, affine_map<(k, i, j) -> (i, j)>],
  iterator_types = ["reduction", "parallel", "parallel"] }
#ew = { indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
  iterator_types = ["parallel", "parallel"] }
module {
  func.func @fused_dense(%s: tensor<8x8xf64, #DCSR>, %a: tensor<8x8xf64>, %b: tensor<8x8xf64>) -> tensor<8x8xf64> {
    %z = arith.constant dense<0.0> : tensor<8x8xf64>
    %r = linalg.generic #sddmm ins(%s, %a, %b : tensor<8x8xf64, #DCSR>, tensor<8x8xf64>, tensor<8x8xf64>) outs(%z : tensor<8x8xf64>) {  // fused
      ^bb0(%sv: f64, %av: f64, %bv: f64, %x: f64):
        %p = arith.mulf %av, %bv : f64
        %q = arith.mulf %sv, %p : f64
        %y = arith.addf %x, %q : f64
        linalg.yield %y : f64
    } -> tensor<8x8xf64>
    return %r : tensor<8x8xf64>
  }
  func.func @unfused_dense(%s: tensor<8x8xf64, #DCSR>, %a: tensor<8x8xf64>, %b: tensor<8x8xf64>) -> tensor<8x8xf64> {
    %z = arith.constant dense<0.0> : tensor<8x8xf64>
    %t = linalg.generic #mm ins(%a, %b : tensor<8x8xf64>, tensor<8x8xf64>) outs(%z : tensor<8x8xf64>) {
      ^bb0(%av: f64, %bv: f64, %x: f64):
        %p = arith.mulf %av, %bv : f64
        %y = arith.addf %x, %p : f64
        linalg.yield %y : f64
    } -> tensor<8x8xf64>
    %r = linalg.generic #ew ins(%t, %s : tensor<8x8xf64>, tensor<8x8xf64, #DCSR>) outs(%z : tensor<8x8xf64>) {  // unfused product
      ^bb0(%tv: f64, %sv: f64, %x: f64):
        %y = arith.mulf %tv, %sv : f64
        linalg.yield %y : f64
    } -> tensor<8x8xf64>
    bufferization.dealloc_tensor %t : tensor<8x8xf64>
    return %r : tensor<8x8xf64>
  }
  func.func @fused_sparse(%s: tensor<8x8xf64, #DCSR>, %a: tensor<8x8xf64>, %b: tensor<8x8xf64>) -> tensor<8x8xf64, #DCSR> {
    %e = tensor.empty() : tensor<8x8xf64, #DCSR>
    %r = linalg.generic #sddmm ins(%s, %a, %b : tensor<8x8xf64, #DCSR>, tensor<8x8xf64>, tensor<8x8xf64>) outs(%e : tensor<8x8xf64, #DCSR>) {  // fused into sparse
      ^bb0(%sv: f64, %av: f64, %bv: f64, %x: f64):
        %p = arith.mulf %av, %bv : f64
        %q = arith.mulf %sv, %p : f64
        %y = arith.addf %x, %q : f64
        linalg.yield %y : f64
    } -> tensor<8x8xf64, #DCSR>
    return %r : tensor<8x8xf64, #DCSR>
  }
  func.func @unfused_sparse(%s: tensor<8x8xf64, #DCSR>, %a: tensor<8x8xf64>, %b: tensor<8x8xf64>) -> tensor<8x8xf64, #DCSR> {
    %z = arith.constant dense<0.0> : tensor<8x8xf64>
    %t = linalg.generic #mm ins(%a, %b : tensor<8x8xf64>, tensor<8x8xf64>) outs(%z : tensor<8x8xf64>) {
      ^bb0(%av: f64, %bv: f64, %x: f64):
        %p = arith.mulf %av, %bv : f64
        %y = arith.addf %x, %p : f64
        linalg.yield %y : f64
    } -> tensor<8x8xf64>
    %e = tensor.empty() : tensor<8x8xf64, #DCSR>
    %r = linalg.generic #ew ins(%t, %s : tensor<8x8xf64>, tensor<8x8xf64, #DCSR>) outs(%e : tensor<8x8xf64, #DCSR>) {  // unfused into sparse
      ^bb0(%tv: f64, %sv: f64, %x: f64):
        %y = arith.mulf %tv, %sv : f64
        linalg.yield %y : f64
    } -> tensor<8x8xf64, #DCSR>
    return %r : tensor<8x8xf64, #DCSR>
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %f0 = arith.constant 0.0 : f64
    %d = arith.constant sparse<[[0, 0], [2, 5], [7, 7]], [1.0, 3.0, 2.0]> : tensor<8x8xf64>
    %s = sparse_tensor.convert %d : tensor<8x8xf64> to tensor<8x8xf64, #DCSR>
    // A(i, k) = i + 1, B(k, j) = j + 1: (A B)(i, j) = 8 (i + 1) (j + 1).
    %a = tensor.generate {
    ^bb0(%i: index, %k: index):
      %i1 = arith.index_cast %i : index to i64
      %v = arith.uitofp %i1 : i64 to f64
      %one = arith.constant 1.0 : f64
      %w = arith.addf %v, %one : f64
      tensor.yield %w : f64
    } : tensor<8x8xf64>
    %b = tensor.generate {
    ^bb0(%k: index, %j: index):
      %j1 = arith.index_cast %j : index to i64
      %v = arith.uitofp %j1 : i64 to f64
      %one = arith.constant 1.0 : f64
      %w = arith.addf %v, %one : f64
      tensor.yield %w : f64
    } : tensor<8x8xf64>
    %0 = call @fused_dense(%s, %a, %b) : (tensor<8x8xf64, #DCSR>, tensor<8x8xf64>, tensor<8x8xf64>) -> tensor<8x8xf64>
    %1 = call @unfused_dense(%s, %a, %b) : (tensor<8x8xf64, #DCSR>, tensor<8x8xf64>, tensor<8x8xf64>) -> tensor<8x8xf64>
    %2 = call @fused_sparse(%s, %a, %b) : (tensor<8x8xf64, #DCSR>, tensor<8x8xf64>, tensor<8x8xf64>) -> tensor<8x8xf64, #DCSR>
    %3 = call @unfused_sparse(%s, %a, %b) : (tensor<8x8xf64, #DCSR>, tensor<8x8xf64>, tensor<8x8xf64>) -> tensor<8x8xf64, #DCSR>
    %v0 = vector.transfer_read %0[%c0, %c0], %f0 : tensor<8x8xf64>, vector<8x8xf64>
    vector.print %v0 : vector<8x8xf64>
    %v1 = vector.transfer_read %1[%c0, %c0], %f0 : tensor<8x8xf64>, vector<8x8xf64>
    vector.print %v1 : vector<8x8xf64>
    %m2 = sparse_tensor.values %2 : tensor<8x8xf64, #DCSR> to memref<?xf64>
    %v2 = vector.transfer_read %m2[%c0], %f0 : memref<?xf64>, vector<3xf64>
    vector.print %v2 : vector<3xf64>
    %m3 = sparse_tensor.values %3 : tensor<8x8xf64, #DCSR> to memref<?xf64>
    %v3 = vector.transfer_read %m3[%c0], %f0 : memref<?xf64>, vector<3xf64>
    vector.print %v3 : vector<3xf64>
    %n2 = sparse_tensor.number_of_entries %2 : tensor<8x8xf64, #DCSR>
    vector.print %n2 : index
    %n3 = sparse_tensor.number_of_entries %3 : tensor<8x8xf64, #DCSR>
    vector.print %n3 : index
    bufferization.dealloc_tensor %s : tensor<8x8xf64, #DCSR>
    bufferization.dealloc_tensor %2 : tensor<8x8xf64, #DCSR>
    bufferization.dealloc_tensor %3 : tensor<8x8xf64, #DCSR>
    return
  }
}
