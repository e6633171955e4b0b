// sptune-cpu-sparsify: the sparsifier's module-wide settings come from the
// schedule (parallel outer loop, vector length 8), or from the options,
// which win; bad option values are errors that list the allowed ones.
//
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-cpu-sparsify | FileCheck %s
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-cpu-sparsify="parallelization=none vl=0" | FileCheck %s --check-prefix=NONE
// RUN: not sptune-opt %s --sptune-cpu-sparsify=parallelization=rows 2>&1 | FileCheck %s --check-prefix=BADPAR
// RUN: not sptune-opt %s --sptune-cpu-sparsify=simd32=on 2>&1 | FileCheck %s --check-prefix=BADSIMD
// RUN: not sptune-opt %s --sptune-apply-schedule --sptune-lower-cpu=vl=7 2>&1 | FileCheck %s --check-prefix=BADVL
// RUN: not sptune-opt %s --sptune-apply-schedule --sptune-lower-cpu=vl=1000000000 2>&1 | FileCheck %s --check-prefix=BADVL
// RUN: not sptune-opt %s --sptune-apply-schedule --sptune-lower-cpu=threads=-3 2>&1 | FileCheck %s --check-prefix=BADTHREADS
// RUN: not sptune-opt %s --sptune-apply-schedule --sptune-lower-cpu=threads=1000000000 2>&1 | FileCheck %s --check-prefix=BADTHREADS
//
// CHECK-LABEL: func.func @spmm
// CHECK: scf.parallel
// CHECK: vector<8xf32>
//
// NONE-LABEL: func.func @spmm
// NONE-NOT: scf.parallel
// NONE-NOT: vector<8xf32>
// NONE: return
//
// BADPAR: for the --parallelization option: unknown value 'rows' (expected auto, none, dense-outer-loop or any-storage-outer-loop)
// BADSIMD: for the --simd32 option: unknown value 'on' (expected auto, true or false)
// BADVL: error: sptune-cpu-sparsify: vl must be -1 (from the schedules), 0, 4, 8 or 16, got
// BADTHREADS: error: sptune-{{cpu-sparsify|omp-schedule|balance-rows}}: threads must be -1 (from the schedules) or in [0, 1024], got

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmm(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer, threads = 2, omp = dynamic, chunk = 16, vl = 8>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
