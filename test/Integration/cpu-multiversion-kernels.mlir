// Multi-versioned SDDMM (sparse result) and SpMV, planned by the shipped
// model on a small training set, compiled once and called on two matrices
// of different sizes and structure: the dispatched calls give the
// reference's numbers whichever variants the model chose and the rule
// picks (the rule and variants are not checked here: they move with the
// shipped model; test/Integration/cpu-multiversion.mlir checks routing).
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="multiversion=4 training-matrices=%S/Inputs/multiversion-training.txt" --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="multiversion=4 training-matrices=%S/Inputs/multiversion-training.txt" 2>/dev/null | sptune-opt --sptune-apply-schedule --sptune-lower-cpu | %{run} | FileCheck %s
//
// REMARK-DAG: remark: sptune-autotune: no matrix for this kernel: {{[1-4]}} variants chosen for 7 training matrices {{.*}}[cpu sddmm,
// REMARK-DAG: remark: sptune-autotune: no matrix for this kernel: {{[1-4]}} variants chosen for 7 training matrices {{.*}}[cpu spmv,
//
// SDDMM: S(i, j) * (A B)(i, j), A(i, k) = i + 1 and B(k, j) = 1 (K = 4):
// 4 (i + 1) S(i, j), in CSR order. SpMV with x = 1: the row sums. (Reads
// past the end print 0.)
// CHECK:      ( 4, 8, 8, 3, 0, 0, 0, 0, 0, 0 )
// CHECK-NEXT: ( 3, 1, 0.25, 0, 0, 0, 0, 0, 0, 0 )
// CHECK-NEXT: ( 4, 8, 12, 16, 20, 24, 28, 32, 36, 128 )
// CHECK-NEXT: ( 36, 0, 3, 0, 0, 0, 0, 4, 0, 0 )

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

module {
  func.func @sddmm(%s: tensor<?x?xf32, #CSR>, %a: tensor<?x4xf32>, %b: tensor<4x?xf32>) -> tensor<?x?xf32, #CSR> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tensor.dim %s, %c0 : tensor<?x?xf32, #CSR>
    %n = tensor.dim %s, %c1 : tensor<?x?xf32, #CSR>
    %e = tensor.empty(%m, %n) : tensor<?x?xf32, #CSR>
    %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s, %a, %b : tensor<?x?xf32, #CSR>, tensor<?x4xf32>, tensor<4x?xf32>) outs(%e : tensor<?x?xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %r = arith.addf %xv, %q : f32
      linalg.yield %r : f32
    } -> tensor<?x?xf32, #CSR>
    return %0 : tensor<?x?xf32, #CSR>
  }

  func.func @spmv(%a: tensor<?x?xf32, #CSR>, %x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
    %0 = linalg.matvec ins(%a, %x : tensor<?x?xf32, #CSR>, tensor<?xf32>) outs(%y : tensor<?xf32>) -> tensor<?xf32>
    return %0 : tensor<?xf32>
  }

  func.func @run(%d: tensor<?x?xf32>, %rows: index, %cols: index) {
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %s = sparse_tensor.convert %d : tensor<?x?xf32> to tensor<?x?xf32, #CSR>
    %ea = tensor.empty(%rows) : tensor<?x4xf32>
    %a = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>], iterator_types = ["parallel", "parallel"]} outs(%ea : tensor<?x4xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %g = arith.addf %f, %one : f32
      linalg.yield %g : f32
    } -> tensor<?x4xf32>
    %eb = tensor.empty(%cols) : tensor<4x?xf32>
    %b = linalg.fill ins(%one : f32) outs(%eb : tensor<4x?xf32>) -> tensor<4x?xf32>
    %r = call @sddmm(%s, %a, %b) : (tensor<?x?xf32, #CSR>, tensor<?x4xf32>, tensor<4x?xf32>) -> tensor<?x?xf32, #CSR>
    %vals = sparse_tensor.values %r : tensor<?x?xf32, #CSR> to memref<?xf32>
    %vv = vector.transfer_read %vals[%c0], %z : memref<?xf32>, vector<10xf32>
    vector.print %vv : vector<10xf32>
    %ex = tensor.empty(%cols) : tensor<?xf32>
    %x = linalg.fill ins(%one : f32) outs(%ex : tensor<?xf32>) -> tensor<?xf32>
    %ey = tensor.empty(%rows) : tensor<?xf32>
    %y0 = linalg.fill ins(%z : f32) outs(%ey : tensor<?xf32>) -> tensor<?xf32>
    %y = call @spmv(%s, %x, %y0) : (tensor<?x?xf32, #CSR>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    %yv = vector.transfer_read %y[%c0], %z : tensor<?xf32>, vector<10xf32>
    vector.print %yv : vector<10xf32>
    bufferization.dealloc_tensor %r : tensor<?x?xf32, #CSR>
    bufferization.dealloc_tensor %s : tensor<?x?xf32, #CSR>
    return
  }

  func.func @main() {
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %c8 = arith.constant 8 : index
    %small = arith.constant dense<[[1.0, 2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.25, 0.0]]> : tensor<3x6xf32>
    %sd = tensor.cast %small : tensor<3x6xf32> to tensor<?x?xf32>
    call @run(%sd, %c3, %c6) : (tensor<?x?xf32>, index, index) -> ()
    %skewed = arith.constant dense<[
      [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.0]]> : tensor<8x8xf32>
    %kd = tensor.cast %skewed : tensor<8x8xf32> to tensor<?x?xf32>
    call @run(%kd, %c8, %c8) : (tensor<?x?xf32>, index, index) -> ()
    return
  }
}
