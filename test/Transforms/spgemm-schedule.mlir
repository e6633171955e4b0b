// Sparse x sparse products (SpGEMM) as a scheduled kernel type: recognized
// by the matcher (either input order; A(i, k) is the schedule's sparse
// operand), given a schedule by sptune-default-schedule and sptune-autotune
// (CSR, the operands' own storage, and the Gustavson kernel's knobs:
// parallel, threads, accumulator, passes), applied without converting
// anything, and lowered by sptune-cpu-sparsify into a Gustavson kernel
// built as each product's schedule says.
//
// RUN: sptune-opt %s --sptune-extract-kernels 2>/dev/null | FileCheck %s --check-prefix=KERNEL
// KERNEL: #[[CSR:.+]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
// KERNEL: #[[CSR32:.+]] = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed), posWidth = 32, crdWidth = 32 }>
// KERNEL-LABEL: func.func @ab(
// KERNEL: sptune.kernel = #sptune.kernel<spgemm, loops = [i : 8, j : 6, k : 5], operands = [sparse(i, k), sparse(k, j), sparse_out(i, j)], type = f64, encoding = #[[CSR]]>
// KERNEL-LABEL: func.func @ba(
// The encoding is A's, the second input.
// KERNEL: sptune.kernel = #sptune.kernel<spgemm, loops = [i : 8, j : 6, k : 5], operands = [sparse(k, j), sparse(i, k), sparse_out(i, j)], type = f32, encoding = #[[CSR32]]>
// RUN: sptune-opt %s --sptune-extract-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNTUNED
// UNTUNED: remark: sptune: not a recognized sparse kernel: both inputs are sparse, and this sparse x sparse product is not tuned: its result: it is not stored as CSR ([dense, compressed], rows first); seen as spgemm
// UNTUNED-NOT: remark
// KERNEL-LABEL: func.func @dcsr_result(
// KERNEL-NOT: sptune.kernel
//
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-LABEL: func.func @ab(
// DEFAULT: sptune.schedule = #sptune.schedule<cpu spgemm, levels = [i : dense, k : compressed], split = [1, 1], order = [i, k, j], widths = [64, 64], tile = 0, parallel = outer, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false>
//
// Tuned for a matrix: the shipped model has no SpGEMM feature, so the
// heuristic ranks the kernel's schedules (every accumulator and pass count,
// in one thread and in all).
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen:uniform:rows=8,cols=5,nnz=12,seed=1 top-k=3" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=TUNED
// TUNED: remark: sptune-autotune (release, {{[0-9]+}} candidates ranked in {{.*}}): chose cpu spgemm, {{.*}}parallel = outer, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false; ranking: #1 {{.*}}; ranked by the heuristic: release model {{.*}} has no feature for kernel 'spgemm'
// (Measured: autotune-spgemm.mlir.)
//
// The GPU and SPADE targets leave SpGEMM unscheduled, with a remark.
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune=target=nvvm --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=NVVM
// NVVM: remark: sptune-autotune: left unscheduled: target 'nvvm' has no sparse x sparse product kernel
// NVVM-NOT: sptune.schedule
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune=target=spade --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=SPADE
// SPADE: remark: sptune-autotune: left unscheduled: target 'spade' has no sparse x sparse product kernel
// SPADE-NOT: sptune.schedule
//
// Applied: the op is generalized, on its own storage, with its schedule.
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule 2>/dev/null | FileCheck %s --check-prefix=APPLIED
// APPLIED-LABEL: func.func @ab(
// APPLIED-NOT: sparse_tensor.convert
// APPLIED: linalg.generic {{{.*}}sptune.schedule = #sptune.schedule<cpu spgemm,
// APPLIED-NOT: sptune.kernel
// APPLIED: return
//
// Lowered with each product's knobs: a hash table in two passes in one
// thread for @ab, a dense workspace for @ba; one kernel function each.
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | sed -e '/@ab(/,/return/s/parallel = outer, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false/parallel = none, accumulator = hash, passes = two/' -e '/@ba(/,/return/s/simd32 = false/simd32 = false, accumulator = dense/' | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify | FileCheck %s --check-prefix=LOWERED
// (@ba's kernel, the f32 one on 32-bit storage, is declared first: dense,
// the runtime's team; then @ab's: hashed, a team of one.)
// LOWERED-LABEL: func.func private @sptune_gustavson_spgemm_0(%arg0: memref<?xi32>
// LOWERED-SAME: -> (memref<?xi32>, memref<?xi32>, memref<?xf32>, !sparse_tensor.storage_specifier<#{{[a-z0-9_]+}}>) attributes {sptune.gustavson_kernel} {{{$}}
// LOWERED-NOT: -7046029254386353131
// LOWERED: math.cttz
// LOWERED-LABEL: func.func private @sptune_gustavson_spgemm(%arg0: memref<?xindex>
// LOWERED-SAME: attributes {sptune.gustavson_kernel, sptune.omp_threads = 1 : i32}
// LOWERED-NOT: math.cttz
// LOWERED: arith.constant -7046029254386353131 : i64
// LOWERED-NOT: math.cttz
// LOWERED-LABEL: func.func @ab(
//
// Through the whole lowering: @ab's kernel on a team of three, in one pass
// whatever C's capacity of a slot per product takes; @ba's on the runtime's
// team, in one pass within the 1 GiB budget.
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | sed -e '/@ab(/,/return/s/parallel = outer, threads = 0/parallel = outer, threads = 3/' -e '/@ab(/,/return/s/simd32 = false/simd32 = false, passes = one/' | sptune-opt --sptune-apply-schedule --sptune-lower-cpu | FileCheck %s --check-prefix=THREADS
// THREADS-LABEL: llvm.func @sptune_gustavson_spgemm_0(
// THREADS: llvm.mlir.constant(1073741824 : index)
// THREADS-NOT: num_threads
// THREADS-LABEL: llvm.func @sptune_gustavson_spgemm(
// THREADS: llvm.mlir.constant(9223372036854775807 : index)
// THREADS: %[[N:.+]] = llvm.mlir.constant(3 : i32) : i32
// THREADS: omp.parallel num_threads(%[[N]] : i32)
//
// Options given explicitly win over the schedules: threads=2 over @ba's
// team (not over @ab's one thread: a sequential product stays one block),
// gustavson-accumulator=dense over @ab's hash table; parallelization=none
// makes both sequential.
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | sed -e '/@ab(/,/return/s/parallel = outer, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false/parallel = none, accumulator = hash/' | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify="threads=2 gustavson-accumulator=dense" | FileCheck %s --check-prefix=OPTIONS
// OPTIONS-LABEL: func.func private @sptune_gustavson_spgemm_0(
// OPTIONS-SAME: attributes {sptune.gustavson_kernel, sptune.omp_threads = 2 : i32}
// OPTIONS-LABEL: func.func private @sptune_gustavson_spgemm(
// OPTIONS-SAME: attributes {sptune.gustavson_kernel, sptune.omp_threads = 1 : i32}
// OPTIONS-NOT: -7046029254386353131
// OPTIONS: math.cttz
// OPTIONS-NOT: -7046029254386353131
// OPTIONS-LABEL: func.func @ab(
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule 2>/dev/null | sptune-opt --linalg-generalize-named-ops --sptune-cpu-sparsify=parallelization=none | FileCheck %s --check-prefix=SEQUENTIAL
// SEQUENTIAL-COUNT-2: attributes {sptune.gustavson_kernel, sptune.omp_threads = 1 : i32}
//
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | sed -e 's/simd32 = false/simd32 = false, accumulator = hash/' | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify | FileCheck %s --check-prefix=HASH
// HASH-COUNT-2: arith.constant -7046029254386353131 : i64
// HASH-NOT: math.cttz
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | sed -e 's/simd32 = false/simd32 = false, accumulator = dense/' | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify | FileCheck %s --check-prefix=DENSE
// DENSE-NOT: arith.constant -7046029254386353131 : i64
// DENSE: math.cttz

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#CSR32 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), posWidth = 32, crdWidth = 32 }>
#DCSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed, j : compressed) }>

#matmul_ba = {
  indexing_maps = [affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

func.func @ab(%a: tensor<8x5xf64, #CSR>, %b: tensor<5x6xf64, #CSR>) -> tensor<8x6xf64, #CSR> {
  %e = tensor.empty() : tensor<8x6xf64, #CSR>
  %r = linalg.matmul ins(%a, %b : tensor<8x5xf64, #CSR>, tensor<5x6xf64, #CSR>)
                     outs(%e : tensor<8x6xf64, #CSR>) -> tensor<8x6xf64, #CSR>
  return %r : tensor<8x6xf64, #CSR>
}

func.func @ba(%a: tensor<8x5xf32, #CSR32>, %b: tensor<5x6xf32, #CSR32>) -> tensor<8x6xf32, #CSR32> {
  %e = tensor.empty() : tensor<8x6xf32, #CSR32>
  %r = linalg.generic #matmul_ba
    ins(%b, %a : tensor<5x6xf32, #CSR32>, tensor<8x5xf32, #CSR32>)
    outs(%e : tensor<8x6xf32, #CSR32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x6xf32, #CSR32>
  return %r : tensor<8x6xf32, #CSR32>
}

// A DCSR result: not a product the row-wise kernel computes; untuned.
func.func @dcsr_result(%a: tensor<8x5xf64, #CSR>, %b: tensor<5x6xf64, #CSR>) -> tensor<8x6xf64, #DCSR> {
  %e = tensor.empty() : tensor<8x6xf64, #DCSR>
  %r = linalg.matmul ins(%a, %b : tensor<8x5xf64, #CSR>, tensor<5x6xf64, #CSR>)
                     outs(%e : tensor<8x6xf64, #DCSR>) -> tensor<8x6xf64, #DCSR>
  return %r : tensor<8x6xf64, #DCSR>
}
