// The sparse ⊙ dense (Hadamard) product C = A ⊙ B, A sparse: a built-in
// kernel type defined by its canonical form (sptune/Schedule/KernelTypes.h).
// Tuned (heuristic, and release mode, whose learned model has no feature for
// it and falls back to the heuristic), with a hand-written schedule of each
// storage sptune varies (CSC, DCSR, COO, 2 x 2 blocks, B and C
// column-major) and vectorized,
// applied, lowered, executed, and compared with hand-computed values that
// upstream's sparsifier gives too (issue 33).
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=gen:uniform:rows=6,cols=4,nnz=9,seed=2" --sptune-apply-schedule --sptune-lower-cpu 2> %t.heuristic | %{run} | FileCheck %s
// RUN: FileCheck %s --check-prefix=HEURISTIC < %t.heuristic
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=release matrix=gen:uniform:rows=6,cols=4,nnz=9,seed=2" --sptune-apply-schedule --sptune-lower-cpu 2> %t.release | %{run} | FileCheck %s
// RUN: FileCheck %s --check-prefix=RELEASE < %t.release
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu 2>/dev/null | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | FileCheck %s --check-prefix=IR
// RUN: sptune-opt %s --sparsifier | %{run} | FileCheck %s
// RUN: for s in "levels = [j : dense, i : compressed], order = [j, i]" \
// RUN:          "levels = [i : compressed, j : compressed], order = [i, j], parallel = outer" \
// RUN:          "levels = [i : compressed_nu, j : singleton], order = [i, j]" \
// RUN:          "levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [2, 2], order = [i1, j1, i0, j0]" \
// RUN:          "layout = [b : i, c : i], parallel = outer" \
// RUN:          "parallel = outer, vl = 4"; do \
// RUN:   sed -e "s/outs(%%c : tensor<?x?xf32>) {/outs(%%c : tensor<?x?xf32>) attrs = {sptune.schedule = #sptune.schedule<cpu hadamard, $s>} {/" %s \
// RUN:     | sptune-opt --sptune-extract-kernels --sptune-apply-schedule --sptune-lower-cpu | %{run}; \
// RUN: done | FileCheck %s --check-prefix=HAND
//
// HEURISTIC: remark: sptune-autotune (heuristic{{.*}}): chose cpu hadamard, levels = [i : dense, j : compressed]{{.*}}parallel = outer
// RELEASE: remark: sptune-autotune (release{{.*}}): chose cpu hadamard, levels = [i : dense, j : compressed]
// RELEASE-SAME: ranked by the heuristic: {{.*}} has no feature for kernel 'hadamard'
// IR: sptune.kernel = #sptune.kernel<hadamard, loops = [i : ?, j : ?], operands = [sparse(i, j), dense(i, j), out(i, j)], type = f32
// IR: sptune.schedule = #sptune.schedule<cpu hadamard, levels = [i : dense, j : compressed], split = [1, 1], order = [i, j]
// IR-NOT: vl = {{[1-9]}}
//
// A = [[1, 0, 2, 0], [0, 0, 0, 0], [0, 4, 0, 0], [3, 0, 0, 7], [0, 0, 0, 0], [0, 0, 5, 0]]
// B(i, j) = 10 i + j + 1; C starts at -1 everywhere and is overwritten.
// CHECK:      ( ( 1, 0, 6, 0 ), ( 0, 0, 0, 0 ), ( 0, 88, 0, 0 ), ( 93, 0, 0, 238 ), ( 0, 0, 0, 0 ), ( 0, 0, 265, 0 ) )
// HAND-COUNT-6: ( ( 1, 0, 6, 0 ), ( 0, 0, 0, 0 ), ( 0, 88, 0, 0 ), ( 93, 0, 0, 238 ), ( 0, 0, 0, 0 ), ( 0, 0, 265, 0 ) )

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#map = affine_map<(i, j) -> (i, j)>

module {
  func.func @hadamard(%a: tensor<?x?xf32, #CSR>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %0 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %p = arith.mulf %x, %y : f32
      linalg.yield %p : f32
    } -> tensor<?x?xf32>
    return %0 : tensor<?x?xf32>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %d = arith.constant dense<[[1.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 4.0, 0.0, 0.0], [3.0, 0.0, 0.0, 7.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 5.0, 0.0]]> : tensor<6x4xf32>
    %s = sparse_tensor.convert %d : tensor<6x4xf32> to tensor<?x?xf32, #CSR>
    %b = tensor.generate {
    ^bb0(%i: index, %j: index):
      %c10 = arith.constant 10 : index
      %c1 = arith.constant 1 : index
      %t = arith.muli %i, %c10 : index
      %u = arith.addi %t, %j : index
      %v = arith.addi %u, %c1 : index
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f32
      tensor.yield %vf : f32
    } : tensor<6x4xf32>
    %bd = tensor.cast %b : tensor<6x4xf32> to tensor<?x?xf32>
    %c = arith.constant dense<-1.0> : tensor<6x4xf32>
    %cd = tensor.cast %c : tensor<6x4xf32> to tensor<?x?xf32>
    %r = call @hadamard(%s, %bd, %cd) : (tensor<?x?xf32, #CSR>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %zf = arith.constant 0.0 : f32
    %rv = vector.transfer_read %r[%c0, %c0], %zf : tensor<?x?xf32>, vector<6x4xf32>
    vector.print %rv : vector<6x4xf32>
    bufferization.dealloc_tensor %s : tensor<?x?xf32, #CSR>
    return
  }
}
