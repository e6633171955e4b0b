// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-cpu | FileCheck %s
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-cpu="threads=3 vl=0" | FileCheck %s --check-prefix=OVERRIDE
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-cpu | mlir-opt --verify-each > /dev/null

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// The schedule's knobs reach the OpenMP ops: 2 threads, dynamic with chunk
// 16; the dense inner loop is vectorized by 8; nothing of sptune is left.
//
// CHECK-NOT: sptune
// CHECK-LABEL: llvm.func @spmm
// CHECK: %[[T:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: omp.parallel num_threads(%[[T]] : i32)
// CHECK: omp.wsloop schedule(dynamic = %{{.*}} : i32)
// CHECK: llvm.load {{.*}} -> vector<8xf32>
// CHECK-NOT: sptune
//
// OVERRIDE-LABEL: llvm.func @spmm
// OVERRIDE: %[[T:.*]] = llvm.mlir.constant(3 : i32) : i32
// OVERRIDE: omp.parallel num_threads(%[[T]] : i32)
// OVERRIDE-NOT: vector<8xf32>
func.func @spmm(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer, threads = 2, omp = dynamic, chunk = 16, vl = 8>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
