// Executed SpMV whose parallel row loop is cut into blocks of equal stored
// entries (omp = balanced, sptune-balance-rows): as many blocks as the
// runtime's threads, 2, 3, and more blocks than rows; rows 1, 8 and 9 are
// empty (trailing empty rows go to the last block), row 3 holds most
// entries. y = A x with x = (1, ..., 8), computed by hand.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// DEFINE: %{lower} = sptune-opt --sptune-apply-schedule --sptune-lower-cpu
//
// RUN: sed 's/SCHEDULE/cpu spmv, parallel = outer, omp = balanced/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmv, parallel = outer, threads = 2, omp = balanced/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmv, widths = [32, 32], parallel = outer, threads = 3, omp = balanced/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu spmv, parallel = outer, threads = 32, omp = balanced/' %s | %{lower} | %{run} | FileCheck %s
// The pipeline's threads option sets the blocks as it sets the team.
// RUN: sed 's/SCHEDULE/cpu spmv, parallel = outer, threads = 4, omp = balanced/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-cpu=threads=3 | %{run} | FileCheck %s
// The same without a schedule (upstream's default code).
// RUN: sed 's/, sptune.schedule = #sptune.schedule<SCHEDULE>//' %s | %{lower} | %{run} | FileCheck %s
//
// The rewrite itself: a loop over blocks, a binary search per block end,
// the rows of each block in order; the runtime's team size without threads.
// RUN: sed 's/SCHEDULE/cpu spmv, parallel = outer, omp = balanced/' %s | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify --sptune-balance-rows | FileCheck %s --check-prefix=IR
// RUN: sed 's/SCHEDULE/cpu spmv, parallel = outer, threads = 4, omp = balanced/' %s | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify --sptune-balance-rows | FileCheck %s --check-prefix=FOUR
//
// CHECK: ( 9, 0, 6, 49, 21, -12, 12, 2.5, 0, 0 )
//
// IR: func.func private @omp_get_max_threads() -> i32
// IR-LABEL: func.func @spmv
// IR: call @omp_get_max_threads() : () -> i32
// IR: scf.parallel ({{.*}}) = ({{.*}}) to ({{.*}}) step
// IR: scf.while
// IR: scf.while
// IR: scf.for
// RUN: sed 's/SCHEDULE/cpu spmv, parallel = outer, threads = 4, omp = balanced/' %s | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify --sptune-balance-rows=threads=3 | FileCheck %s --check-prefix=THREE
// THREE: %[[C3:.*]] = arith.constant 3 : index
// THREE: scf.parallel ({{.*}}) = ({{.*}}) to (%[[C3]])
// FOUR-NOT: omp_get_max_threads
// FOUR: %[[C4:.*]] = arith.constant 4 : index
// FOUR: scf.parallel ({{.*}}) = ({{.*}}) to (%[[C4]])

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

module {
  func.func @spmv(%a: tensor<10x8xf32, #CSR>, %x: tensor<8xf32>, %y: tensor<10xf32>) -> tensor<10xf32> {
    %0 = linalg.matvec {sptune.kernel = #sptune.kernel<spmv, loops = [i : 10, k : 8], operands = [sparse(i, k), dense(k), out(i)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<SCHEDULE>}
      ins(%a, %x : tensor<10x8xf32, #CSR>, tensor<8xf32>) outs(%y : tensor<10xf32>) -> tensor<10xf32>
    return %0 : tensor<10xf32>
  }

  func.func @main() {
    // Row 3 holds 7 of the 13 entries: 4 + 5 * 3 + (4 + 5 + 6 + 7 + 8) = 49.
    %d = arith.constant dense<[[1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 5.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5], [0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<10x8xf32>
    %a = sparse_tensor.convert %d : tensor<10x8xf32> to tensor<10x8xf32, #CSR>
    %x = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
    %y = arith.constant dense<0.0> : tensor<10xf32>
    %r = call @spmv(%a, %x, %y) : (tensor<10x8xf32, #CSR>, tensor<8xf32>, tensor<10xf32>) -> tensor<10xf32>
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %v = vector.transfer_read %r[%c0], %z : tensor<10xf32>, vector<10xf32>
    vector.print %v : vector<10xf32>
    bufferization.dealloc_tensor %a : tensor<10x8xf32, #CSR>
    return
  }
}
