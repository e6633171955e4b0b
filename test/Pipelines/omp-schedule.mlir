// sptune-omp-schedule: after scf-to-openmp, the function's schedule sets the
// thread count and the loop schedule (dynamic, chunk 16) on the OpenMP ops,
// then the schedule attribute is consumed; the threads option overrides.
//
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-cpu-sparsify --convert-scf-to-openmp --sptune-omp-schedule | FileCheck %s
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-cpu-sparsify --convert-scf-to-openmp --sptune-omp-schedule=threads=5 | FileCheck %s --check-prefix=FIVE
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-cpu-sparsify --convert-scf-to-openmp | FileCheck %s --check-prefix=BEFORE
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-cpu-sparsify --convert-scf-to-openmp --sptune-omp-schedule | FileCheck %s --check-prefix=AFTER
//
// BEFORE: func.func @spmm{{.*}}sptune.schedule = #sptune.schedule<cpu spmm
// AFTER-NOT: sptune.schedule
//
// CHECK-LABEL: func.func @spmm
// CHECK: %[[T:.*]] = arith.constant 2 : i32
// CHECK: omp.parallel num_threads(%[[T]] : i32)
// CHECK: %[[C:.*]] = arith.constant 16 : i32
// CHECK: omp.wsloop schedule(dynamic = %[[C]] : i32)
//
// FIVE: %[[T:.*]] = arith.constant 5 : i32
// FIVE: omp.parallel num_threads(%[[T]] : i32)

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmm(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer, threads = 2, omp = dynamic, chunk = 16, vl = 8>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
