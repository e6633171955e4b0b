// A GAT layer's two kernels in one function (edge scores by SDDMM, then
// aggregation by SpMM over them), scheduled by the heuristic with different
// sparsifier settings (the SDDMM's reduction of 4 is not vectorized, the
// SpMM's 16 columns are): each kernel moves into a function of its own and
// keeps its settings, without a warning, and the layer computes the
// reference's numbers.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// DEFINE: %{lower} = sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu
// RUN: %{lower} 2>&1 >/dev/null | count 0
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-cpu-sparsify | FileCheck %s --check-prefix=IR
// RUN: %{lower} | %{run} | FileCheck %s
// Blocked storage for either kernel: the outlined function takes the
// reinterpret_map ops along and keeps dimension-space types at the call.
// RUN: sed -e "s/outs(%%e : tensor<8x8xf32, #CSR>) {/outs(%%e : tensor<8x8xf32, #CSR>) attrs = {sptune.schedule = #sptune.schedule<cpu sddmm, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [2, 2], order = [i1, j1, i0, j0, k]>} {/" %s \
// RUN:   | sptune-opt --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu | %{run} | FileCheck %s
// RUN: sed -e "s/outs(%%out : tensor<8x16xf32>)/outs(%%out : tensor<8x16xf32>) {sptune.schedule = #sptune.schedule<cpu spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : dense], split = [2, 2], order = [i1, k1, i0, k0, j]>}/" \
// RUN:     -e "s/outs(%%e : tensor<8x8xf32, #CSR>) {/outs(%%e : tensor<8x8xf32, #CSR>) attrs = {sptune.schedule = #sptune.schedule<cpu sddmm, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [2, 2], order = [i1, j1, i0, j0, k]>} {/" %s \
// RUN:   | sptune-opt --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu | %{run} | FileCheck %s
//
// IR-LABEL: func.func @gat(
// IR:         call @gat__sptune_kernel0
// IR:         call @gat__sptune_kernel1
// IR-LABEL: func.func private @gat__sptune_kernel0(
// IR:         scf.parallel
// IR-NOT:     vector<16xf32>
// IR-LABEL: func.func private @gat__sptune_kernel1(
// IR:         scf.parallel
// IR:         vector<16xf32>
//
// Scores 4 * S(i, j) (A and B all ones, k = 4); row i of the result is 4
// times row i's sum of S, in every column (H all ones).
// CHECK: ( ( 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12 ), ( 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28 ), ( 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44 ), ( 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60 ), ( 76, 76, 76, 76, 76, 76, 76, 76, 76, 76, 76, 76, 76, 76, 76, 76 ), ( 92, 92, 92, 92, 92, 92, 92, 92, 92, 92, 92, 92, 92, 92, 92, 92 ), ( 108, 108, 108, 108, 108, 108, 108, 108, 108, 108, 108, 108, 108, 108, 108, 108 ), ( 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60 ) )

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

module {
  func.func @gat(%s: tensor<8x8xf32, #CSR>, %a: tensor<8x4xf32>, %b: tensor<4x8xf32>, %h: tensor<8x16xf32>, %out: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %e = tensor.empty() : tensor<8x8xf32, #CSR>
    %scores = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s, %a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<4x8xf32>) outs(%e : tensor<8x8xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %r = arith.addf %xv, %q : f32
      linalg.yield %r : f32
    } -> tensor<8x8xf32, #CSR>
    %0 = linalg.matmul ins(%scores, %h : tensor<8x8xf32, #CSR>, tensor<8x16xf32>) outs(%out : tensor<8x16xf32>) -> tensor<8x16xf32>
    bufferization.dealloc_tensor %scores : tensor<8x8xf32, #CSR>
    return %0 : tensor<8x16xf32>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %d = arith.constant dense<[
      [1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 5.0, 6.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 7.0, 8.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 9.0, 10.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 11.0, 12.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 13.0, 14.0],
      [7.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 8.0]]> : tensor<8x8xf32>
    %s = sparse_tensor.convert %d : tensor<8x8xf32> to tensor<8x8xf32, #CSR>
    %a = arith.constant dense<1.0> : tensor<8x4xf32>
    %b = arith.constant dense<1.0> : tensor<4x8xf32>
    %h = arith.constant dense<1.0> : tensor<8x16xf32>
    %o = arith.constant dense<0.0> : tensor<8x16xf32>
    %y = call @gat(%s, %a, %b, %h, %o) : (tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<4x8xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %v = vector.transfer_read %y[%c0, %c0], %z : tensor<8x16xf32>, vector<8x16xf32>
    vector.print %v : vector<8x16xf32>
    bufferization.dealloc_tensor %s : tensor<8x8xf32, #CSR>
    return
  }
}
