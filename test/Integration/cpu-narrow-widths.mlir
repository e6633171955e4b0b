// SpMV and SpMM whose sparse operand stores 8- and 16-bit positions and
// coordinates (as upstream's sparse_matvec integration test does), tuned
// (issue 33). A schedule that keeps the operand's levels keeps its widths:
// nothing is converted. One that changes them converts through sptune's
// own widening copy (MLIR 22.1's sparse_tensor.convert sign-extends narrow
// positions and coordinates when it widens them: wrong sums, or a crash).
// Executed against upstream's sparsifier on the program as written, with
// 8-bit coordinates of 128 and more (a 4 x 256 matrix, as in upstream's
// sparse_matvec test), through the tuner, the heuristic, and hand-written
// schedules of every storage sptune varies (CSC, DCSR, COO, 2 x 2 blocks).
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sparsifier | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen:uniform:rows=6,nnz=9,seed=2" --sptune-apply-schedule --sptune-lower-cpu 2> %t.remarks | %{run} | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule 2>/dev/null | FileCheck %s --check-prefix=APPLIED
// RUN: for s in "parallel = outer, vl = 4" \
// RUN:          "levels = [k : dense, i : compressed], order = [k, i]" \
// RUN:          "levels = [i : compressed, k : compressed], order = [i, k], vl = 4" \
// RUN:          "levels = [i : compressed_nu, k : singleton], order = [i, k]" \
// RUN:          "levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : dense], split = [2, 2], order = [i1, k1, i0, k0]"; do \
// RUN:   sed -e "s/outs(%%y : tensor<?xi32>)/outs(%%y : tensor<?xi32>) {sptune.schedule = #sptune.schedule<cpu spmv, $s>}/" %s \
// RUN:     | sptune-opt --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu | %{run}; \
// RUN: done | FileCheck %s --check-prefix=HAND
// RUN: for s in "levels = [i : compressed, j : compressed], order = [i, j, k]" \
// RUN:          "levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [2, 2], order = [i1, j1, i0, j0, k]"; do \
// RUN:   sed -e "s/outs(%%e : tensor<6x6xf32, #CSR16>)/outs(%%e : tensor<6x6xf32, #CSR16>) attrs = {sptune.schedule = #sptune.schedule<cpu sddmm, $s>}/" %s \
// RUN:     | sptune-opt --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu | %{run}; \
// RUN: done | FileCheck %s --check-prefix=SDDMM
// RUN: sed -e "s/outs(%%y : tensor<?xi32>)/outs(%%y : tensor<?xi32>) {sptune.schedule = #sptune.schedule<cpu spmv, levels = [k : dense, i : compressed], order = [k, i]>}/" %s \
// RUN:   | sptune-opt --sptune-extract-kernels --sptune-apply-schedule | FileCheck %s --check-prefix=WIDEN
//
// REMARK-DAG: remark: sptune-autotune ({{.*}}): chose cpu spmv,
// REMARK-DAG: remark: sptune-autotune ({{.*}}): chose cpu spmm,
// APPLIED-LABEL: func.func @spmv(
// APPLIED-NOT: sparse_tensor.convert
// APPLIED: sptune.schedule = #sptune.schedule<cpu spmv
// APPLIED-LABEL: func.func @spmm(
// APPLIED-NOT: sparse_tensor.convert
// APPLIED: sptune.schedule = #sptune.schedule<cpu spmm
// APPLIED-LABEL: func.func @main(
// The widening copy: same levels at index width, then the conversion.
// WIDEN-LABEL: func.func @spmv(
// WIDEN: %[[WIDE:.+]] = linalg.generic {{.*}} ins(%arg0 : tensor<?x?xi32, #[[CSR8:[a-z0-9_]+]]>) outs(%{{.*}} : tensor<?x?xi32, #[[CSRW:[a-z0-9_]+]]>)
// WIDEN: sparse_tensor.unary
// WIDEN: %[[CSC:.+]] = sparse_tensor.convert %[[WIDE]] : tensor<?x?xi32, #[[CSRW]]> to tensor<?x?xi32, #[[CSCT:[a-z0-9_]+]]>
// WIDEN: bufferization.dealloc_tensor %[[WIDE]]
//
// CHECK: ( 7, 0, 12, 31, 0, 10 )
// CHECK: ( ( 3, 6, 9 ), ( 0, 0, 0 ), ( 4, 8, 12 ), ( 17, 34, 51 ), ( 0, 0, 0 ), ( 5, 10, 15 ) )
// CHECK: ( 131, 173, 215, 257 )
// CHECK: ( 7, 0, 12, 31, 0, 10 )
// CHECK: ( ( 6, 0, 12, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0 ), ( 0, 24, 0, 0, 0, 0 ), ( 18, 0, 0, 42, 0, 6 ), ( 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 30, 0 ) )
// SDDMM-COUNT-2: ( ( 6, 0, 12, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0 ), ( 0, 24, 0, 0, 0, 0 ), ( 18, 0, 0, 42, 0, 6 ), ( 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 30, 0 ) )
// HAND-COUNT-5: ( 131, 173, 215, 257 )

#CSR8 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), posWidth = 8, crdWidth = 8 }>
#COO8 = #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed(nonunique), j : singleton), posWidth = 8, crdWidth = 8 }>
#CSR16 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), posWidth = 16, crdWidth = 16 }>

#sddmm = {
  indexing_maps = [
    affine_map<(i, j, k) -> (i, j)>,
    affine_map<(i, j, k) -> (i, k)>,
    affine_map<(i, j, k) -> (k, j)>,
    affine_map<(i, j, k) -> (i, j)>
  ],
  iterator_types = ["parallel", "parallel", "reduction"]
}

module {
  func.func @spmv(%a: tensor<?x?xi32, #CSR8>, %x: tensor<?xi32>, %y: tensor<?xi32>) -> tensor<?xi32> {
    %0 = linalg.matvec ins(%a, %x : tensor<?x?xi32, #CSR8>, tensor<?xi32>) outs(%y : tensor<?xi32>) -> tensor<?xi32>
    return %0 : tensor<?xi32>
  }

  func.func @spmm(%a: tensor<6x6xf32, #CSR16>, %b: tensor<6x3xf32>, %c: tensor<6x3xf32>) -> tensor<6x3xf32> {
    %0 = linalg.matmul ins(%a, %b : tensor<6x6xf32, #CSR16>, tensor<6x3xf32>) outs(%c : tensor<6x3xf32>) -> tensor<6x3xf32>
    return %0 : tensor<6x3xf32>
  }

  func.func @spmv_coo(%a: tensor<6x6xi32, #COO8>, %x: tensor<6xi32>, %yc: tensor<6xi32>) -> tensor<6xi32> {
    %0 = linalg.matvec ins(%a, %x : tensor<6x6xi32, #COO8>, tensor<6xi32>) outs(%yc : tensor<6xi32>) -> tensor<6xi32>
    return %0 : tensor<6xi32>
  }

  func.func @sddmm(%s: tensor<6x6xf32, #CSR16>, %p: tensor<6x2xf32>, %q: tensor<2x6xf32>) -> tensor<6x6xf32, #CSR16> {
    %e = tensor.empty() : tensor<6x6xf32, #CSR16>
    %0 = linalg.generic #sddmm ins(%s, %p, %q : tensor<6x6xf32, #CSR16>, tensor<6x2xf32>, tensor<2x6xf32>) outs(%e : tensor<6x6xf32, #CSR16>) {
    ^bb0(%sv: f32, %pv: f32, %qv: f32, %acc: f32):
      %m = arith.mulf %pv, %qv : f32
      %t = arith.mulf %sv, %m : f32
      %r = arith.addf %acc, %t : f32
      linalg.yield %r : f32
    } -> tensor<6x6xf32, #CSR16>
    return %0 : tensor<6x6xf32, #CSR16>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %d = arith.constant dense<[[1, 0, 2, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 4, 0, 0, 0, 0], [3, 0, 0, 7, 0, 1], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 5, 0]]> : tensor<6x6xi32>
    %s = sparse_tensor.convert %d : tensor<6x6xi32> to tensor<?x?xi32, #CSR8>
    %x = arith.constant dense<[1, 3, 3, 4, 2, 0]> : tensor<6xi32>
    %xd = tensor.cast %x : tensor<6xi32> to tensor<?xi32>
    %y0 = arith.constant dense<0> : tensor<6xi32>
    %y0d = tensor.cast %y0 : tensor<6xi32> to tensor<?xi32>
    %y = call @spmv(%s, %xd, %y0d) : (tensor<?x?xi32, #CSR8>, tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
    %zi = arith.constant 0 : i32
    %yv = vector.transfer_read %y[%c0], %zi : tensor<?xi32>, vector<6xi32>
    vector.print %yv : vector<6xi32>

    %df = arith.sitofp %d : tensor<6x6xi32> to tensor<6x6xf32>
    %sf = sparse_tensor.convert %df : tensor<6x6xf32> to tensor<6x6xf32, #CSR16>
    %b = arith.constant dense<[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]> : tensor<6x3xf32>
    %c0t = arith.constant dense<0.0> : tensor<6x3xf32>
    %c = call @spmm(%sf, %b, %c0t) : (tensor<6x6xf32, #CSR16>, tensor<6x3xf32>, tensor<6x3xf32>) -> tensor<6x3xf32>
    %zf = arith.constant 0.0 : f32
    %cv = vector.transfer_read %c[%c0, %c0], %zf : tensor<6x3xf32>, vector<6x3xf32>
    vector.print %cv : vector<6x3xf32>

    // 4 x 256 with 8-bit coordinates of 128 and more (the values MLIR 22.1's
    // convert would sign-extend): A(i, i) = 2, A(i, 128 + 40 i) = 1, and
    // x(j) = j + 1, so y(i) = 2 (i + 1) + 129 + 40 i.
    %c40 = arith.constant 40 : index
    %c128 = arith.constant 128 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %dw = tensor.generate {
    ^bb0(%i: index, %j: index):
      %t = arith.muli %i, %c40 : index
      %far = arith.addi %t, %c128 : index
      %isFar = arith.cmpi eq, %j, %far : index
      %isDiag = arith.cmpi eq, %j, %i : index
      %v1 = arith.select %isFar, %one, %zi : i32
      %v2 = arith.select %isDiag, %two, %v1 : i32
      tensor.yield %v2 : i32
    } : tensor<4x256xi32>
    %sw = sparse_tensor.convert %dw : tensor<4x256xi32> to tensor<?x?xi32, #CSR8>
    %xw = tensor.generate {
    ^bb0(%j: index):
      %k = arith.addi %j, %c1 : index
      %kv = arith.index_cast %k : index to i32
      tensor.yield %kv : i32
    } : tensor<256xi32>
    %xwd = tensor.cast %xw : tensor<256xi32> to tensor<?xi32>
    %yw0 = arith.constant dense<0> : tensor<4xi32>
    %yw0d = tensor.cast %yw0 : tensor<4xi32> to tensor<?xi32>
    %yw = call @spmv(%sw, %xwd, %yw0d) : (tensor<?x?xi32, #CSR8>, tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
    %ywv = vector.transfer_read %yw[%c0], %zi : tensor<?xi32>, vector<4xi32>
    vector.print %ywv : vector<4xi32>
    bufferization.dealloc_tensor %sw : tensor<?x?xi32, #CSR8>

    %sc = sparse_tensor.convert %d : tensor<6x6xi32> to tensor<6x6xi32, #COO8>
    %yc = call @spmv_coo(%sc, %x, %y0) : (tensor<6x6xi32, #COO8>, tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
    %ycv = vector.transfer_read %yc[%c0], %zi : tensor<6xi32>, vector<6xi32>
    vector.print %ycv : vector<6xi32>
    bufferization.dealloc_tensor %sc : tensor<6x6xi32, #COO8>

    // SDDMM on 16-bit storage, a sparse result in it: S .* (P Q) = 6 S.
    %p = arith.constant dense<1.0> : tensor<6x2xf32>
    %q = arith.constant dense<3.0> : tensor<2x6xf32>
    %sd = call @sddmm(%sf, %p, %q) : (tensor<6x6xf32, #CSR16>, tensor<6x2xf32>, tensor<2x6xf32>) -> tensor<6x6xf32, #CSR16>
    %sdd = sparse_tensor.convert %sd : tensor<6x6xf32, #CSR16> to tensor<6x6xf32>
    %sdv = vector.transfer_read %sdd[%c0, %c0], %zf : tensor<6x6xf32>, vector<6x6xf32>
    vector.print %sdv : vector<6x6xf32>
    bufferization.dealloc_tensor %sd : tensor<6x6xf32, #CSR16>

    bufferization.dealloc_tensor %s : tensor<?x?xi32, #CSR8>
    bufferization.dealloc_tensor %sf : tensor<6x6xf32, #CSR16>
    return
  }
}
