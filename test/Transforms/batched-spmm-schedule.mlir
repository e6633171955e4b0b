// The batched SpMM as a scheduled kernel type: recognized by the matcher in
// the forms sptune's kernel computes (A(b, i, k) in dense batches of CSR
// rows or COO, inputs in either order; A is the schedule's sparse operand),
// given a schedule by sptune-default-schedule and sptune-autotune (A's own
// storage, and the kernel's knobs: parallel, threads; measured on a 3-D
// tensor), applied without converting anything, and lowered by
// sptune-cpu-sparsify into a kernel built as each batched SpMM's schedule
// says.
//
// RUN: sptune-opt %s --sptune-extract-kernels 2>/dev/null | FileCheck %s --check-prefix=KERNEL
// KERNEL: #[[BCSR:.+]] = #sparse_tensor.encoding<{ map = (d0, d1, d2) -> (d0 : dense, d1 : dense, d2 : compressed) }>
// KERNEL: #[[BCOO:.+]] = #sparse_tensor.encoding<{ map = (d0, d1, d2) -> (d0 : compressed(nonunique), d1 : singleton(nonunique), d2 : singleton) }>
// KERNEL-LABEL: func.func @csr(
// KERNEL: sptune.kernel = #sptune.kernel<batched_spmm, loops = [b : 2, i : 3, j : 8, k : 4], operands = [sparse(b, i, k), dense(b, k, j), out(b, i, j)], type = f32, encoding = #[[BCSR]]>
// KERNEL-LABEL: func.func @coo_b_first(
// KERNEL: sptune.kernel = #sptune.kernel<batched_spmm, loops = [b : 2, i : 3, j : 8, k : 4], operands = [dense(b, k, j), sparse(b, i, k), out(b, i, j)], type = f64, encoding = #[[BCOO]]>
// KERNEL-LABEL: func.func @accumulates(
// KERNEL-NOT: sptune.kernel
// KERNEL-LABEL: func.func @wide(
// KERNEL-NOT: sptune.kernel
// KERNEL: return
//
// Batched SpMMs the kernel does not compute pass through, with the reason.
// RUN: sptune-opt %s --sptune-extract-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNTUNED
// UNTUNED: remark: sptune: not a recognized sparse kernel: a batched SpMM that sptune's kernel does not compute: its output does not start from a linalg.fill of a fresh tensor
// UNTUNED: remark: sptune: not a recognized sparse kernel: a batched SpMM that sptune's kernel does not compute: its N is dynamic, its rows above 512 bytes, or its operands of different element types
// UNTUNED-NOT: remark
//
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-LABEL: func.func @csr(
// DEFAULT: sptune.schedule = #sptune.schedule<cpu batched_spmm, levels = [i : dense, k : compressed], split = [1, 1], order = [i, k, j], widths = [64, 64], tile = 0, parallel = outer, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false>
//
// sptune-autotune without a tensor to measure on gives the heuristic's
// schedule and says why (the shipped model has no feature for the kind).
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=HEURISTIC
// HEURISTIC: remark: sptune-autotune: batched SpMM scheduled by the heuristic ({{.*}} has no feature for kernel 'batched_spmm'; measure-top-k= measures the schedules of its space on the tensor that 'sptune.matrix' or matrix= names): chose cpu batched_spmm, levels = [i : dense, k : compressed], {{.*}}parallel = outer, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false{{$}}
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune=mode=heuristic --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=HEURISTIC-MODE
// HEURISTIC-MODE: remark: sptune-autotune: batched SpMM scheduled by the heuristic (heuristic mode; measure-top-k=
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen:uniform:rows=6,cols=4,nnz=8,seed=1 measure-top-k=2" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=MATRIX
// MATRIX: remark: sptune-autotune: batched SpMM scheduled by the heuristic ('gen:uniform:rows=6,cols=4,nnz=8,seed=1' (the pass option matrix=) names a matrix, not a 3-D tensor): chose cpu batched_spmm,
// Given a tensor, the heuristic reads its stored entries: 8 entries times
// N = 8 is far below SpMM's threshold (65,536 multiply-adds), one thread;
// without one the work is unknown, all rows in parallel (above).
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen3:uniform:dims=2x3x4,nnz=8,seed=1" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=HEURISTIC-TENSOR
// HEURISTIC-TENSOR: remark: sptune-autotune: batched SpMM scheduled by the heuristic ({{.*}} has no feature for kernel 'batched_spmm'; {{.*}}): chose cpu batched_spmm, levels = [i : dense, k : compressed], {{.*}}parallel = none,
// The tensor must have the kernel's sizes even when nothing is measured.
// RUN: not sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen3:uniform:dims=2x3x5,nnz=8,seed=1" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="multiversion=2" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=VERSIONS
// VERSIONS: remark: sptune-autotune: batched SpMM scheduled by the heuristic {{.*}} (not multi-versioned: batched SpMM kernels get one schedule (run-time dispatch reads a matrix's features, not a batch's))
//
// With a 3-D tensor of the kernel's sizes (its first dimension the batches)
// and measure-top-k, the heuristic's and the space's schedules are measured
// on it (each result checked against a reference) and the fastest is taken:
// the f32 CSR kernels and the f64 COO one whose B comes first, each as the
// user wrote it. The heuristic's (one thread, on this tensor) comes first.
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen3:uniform:dims=2x3x4,nnz=8,seed=1 measure-top-k=2" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=MEASURED
// MEASURED: remark: sptune-autotune: batched SpMM measured on its tensor 'gen3:uniform:dims=2x3x4,nnz=8,seed=1' (the pass option matrix=): 2 schedules (the heuristic's and its space's) in {{[0-9.]+}} s: [cpu batched_spmm, {{.*}}parallel = none, {{.*}}] {{[0-9.]+}} ms; [cpu batched_spmm, {{.*}}parallel = outer, threads = 0, {{.*}}] {{[0-9.]+}} ms; chose cpu batched_spmm,
// MEASURED: remark: sptune-autotune: batched SpMM measured on its tensor {{.*}}] {{[0-9.]+}} ms; [{{.*}}] {{[0-9.]+}} ms; chose
// MEASURED: remark: sptune-autotune: batched SpMM measured on its tensor {{.*}}] {{[0-9.]+}} ms; [{{.*}}] {{[0-9.]+}} ms; chose
// RUN: not sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen3:uniform:dims=2x3x5,nnz=8,seed=1 measure-top-k=2" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: error: sptune-autotune: tensor 'gen3:uniform:dims=2x3x5,nnz=8,seed=1' (the pass option matrix=) is 2x3x5 but the kernel's sparse operand is 2x3x4
//
// The tools measure one on a 3-D tensor, and refuse a matrix, a row wider
// than the kernel keeps in registers, and a library baseline.
// RUN: sptune-measure --kernel batched_spmm --matrix "gen3:powerlaw:dims=3x40x50,nnz=500,seed=2" --free 16 --bits 64 --schedule "cpu batched_spmm, parallel = none" --min-seconds 0 | FileCheck %s --check-prefix=MEASURE
// RUN: sptune-measure --kernel batched_spmm --matrix "gen3:powerlaw:dims=3x40x50,nnz=500,seed=2" --free 8 --baseline heuristic --min-seconds 0 | FileCheck %s --check-prefix=MEASURE
// MEASURE: "matrix":{"cols":40,"id":"gen3:powerlaw:dims=3x40x50,nnz=500,seed=2","nnz":500,"rows":3,{{.*}}"schedule":"cpu batched_spmm, {{.*}}","status":"ok"
// The heuristic's schedule on that tensor: 500 entries times N = 8, one
// thread; on one of 2,048 entries at N = 32, all rows in parallel.
// RUN: sptune-measure --kernel batched_spmm --matrix "gen3:powerlaw:dims=3x40x50,nnz=500,seed=2" --free 8 --baseline heuristic --min-seconds 0 | FileCheck %s --check-prefix=MEASURE-ONE
// MEASURE-ONE: "schedule":"cpu batched_spmm, {{.*}}parallel = none,
// RUN: sptune-measure --kernel batched_spmm --matrix "gen3:uniform:dims=4x64x64,nnz=2048,seed=2" --free 32 --baseline heuristic --min-seconds 0 | FileCheck %s --check-prefix=MEASURE-ALL
// MEASURE-ALL: "schedule":"cpu batched_spmm, {{.*}}parallel = outer,
// RUN: not sptune-measure --kernel batched_spmm --matrix gen:uniform:rows=8,cols=8,nnz=10,seed=1 --schedule "cpu batched_spmm, parallel = outer" 2>&1 | FileCheck %s --check-prefix=MEASURE-MATRIX
// MEASURE-MATRIX: a batched SpMM is measured on a 3-D tensor: give a gen3: spec or a FROSTT .tns file, not 'gen:uniform:rows=8,cols=8,nnz=10,seed=1'
// RUN: not sptune-measure --kernel batched_spmm --matrix "gen3:uniform:dims=2x3x4,nnz=8,seed=1" --free 65 --bits 64 --baseline heuristic 2>&1 | FileCheck %s --check-prefix=MEASURE-WIDE
// MEASURE-WIDE: not applicable: sptune's batched SpMM kernel keeps a row of C of at most 512 bytes in registers; an N of 65 is 520
// RUN: not sptune-measure --kernel batched_spmm --matrix "gen3:uniform:dims=2x3x4,nnz=8,seed=1" --baseline eigen 2>&1 | FileCheck %s --check-prefix=MEASURE-LIB
// MEASURE-LIB: batched SpMM kernels have no library baseline here
//
// (Collecting, learning and ranking by a model: test/Learn/batched-spmm.test.)
//
// The GPU and SPADE targets leave the batched SpMM unscheduled, with a
// remark.
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune=target=nvvm --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=NVVM
// NVVM: remark: sptune-autotune: left unscheduled: target 'nvvm' has no batched SpMM kernel
// NVVM-NOT: sptune.schedule
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune=target=spade --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=SPADE
// SPADE: remark: sptune-autotune: left unscheduled: target 'spade' has no batched SpMM kernel
// SPADE-NOT: sptune.schedule
//
// Applied: the op is generalized, on its own storage, with its schedule.
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule 2>/dev/null | FileCheck %s --check-prefix=APPLIED
// APPLIED-LABEL: func.func @csr(
// APPLIED-NOT: sparse_tensor.convert
// APPLIED: linalg.generic {{{.*}}sptune.schedule = #sptune.schedule<cpu batched_spmm,
// APPLIED-NOT: sptune.kernel
// APPLIED: return
//
// Lowered with each batched SpMM's knobs: @csr in three blocks (its team of
// three), @coo_b_first in one thread, @csr_again (of @csr's types) by the
// heuristic; one kernel function per signature and settings, its settings
// spent.
// DEFINE: %{knobs} = sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | sed -e '/@csr(/,/return/s/threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false/threads = 3/' -e '/@coo_b_first(/,/return/s/parallel = outer, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false/parallel = none/'
// RUN: %{knobs} | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify --mlir-print-debuginfo=false -o - | FileCheck %s --check-prefix=LOWERED
// LOWERED-DAG: func.func private @sptune_batched_spmm{{(_[0-9]+)?}}({{.*}}memref<?xf32>{{.*}}) -> memref<2x3x8xf32> attributes {sptune.omp_threads = 3 : i32} {
// LOWERED-DAG: func.func private @sptune_batched_spmm{{(_[0-9]+)?}}({{.*}}memref<?xf32>{{.*}}) -> memref<2x3x8xf32> {
// LOWERED-DAG: func.func private @sptune_batched_spmm{{(_[0-9]+)?}}({{.*}}memref<?xf64>{{.*}}) -> memref<2x3x8xf64> {
// LOWERED-NOT: sptune.batched_spmm_threads
// LOWERED-NOT: sptune.batched_rows_spmm
//
// The lowering's options win over the schedule's knobs.
// RUN: %{knobs} | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify="threads=2" --mlir-print-debuginfo=false -o - | FileCheck %s --check-prefix=OPTIONS
// (Both f32 batched SpMMs then have the same settings: one kernel function.)
// OPTIONS: func.func private @sptune_batched_spmm{{(_[0-9]+)?}}({{.*}}memref<?xf32>{{.*}}) -> memref<2x3x8xf32> attributes {sptune.omp_threads = 2 : i32} {
// OPTIONS-NOT: -> memref<2x3x8xf32> attributes
// RUN: %{knobs} | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify=parallelization=none | FileCheck %s --check-prefix=SERIAL
// SERIAL: func.func private @sptune_batched_spmm
// SERIAL-NOT: scf.parallel
// SERIAL-NOT: sptune.omp_threads
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify | FileCheck %s --check-prefix=PARALLEL
// PARALLEL: func.func private @sptune_batched_spmm
// PARALLEL: scf.parallel

#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>
#BCOO = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : compressed(nonunique), i : singleton(nonunique), k : singleton) }>

func.func @csr(%a: tensor<2x3x4xf32, #BCSR>, %b: tensor<2x4x8xf32>) -> tensor<2x3x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x8xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf32, #BCSR>, tensor<2x4x8xf32>) outs(%c : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %r : tensor<2x3x8xf32>
}

// B first, in the operands and the body.
func.func @coo_b_first(%b: tensor<2x4x8xf64>, %a: tensor<2x3x4xf64, #BCOO>) -> tensor<2x3x8xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<2x3x8xf64>
  %c = linalg.fill ins(%z : f64) outs(%e : tensor<2x3x8xf64>) -> tensor<2x3x8xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j, k) -> (b, k, j)>, affine_map<(b, i, j, k) -> (b, i, k)>, affine_map<(b, i, j, k) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
    ins(%b, %a : tensor<2x4x8xf64>, tensor<2x3x4xf64, #BCOO>) outs(%c : tensor<2x3x8xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %o, %p : f64
    linalg.yield %s : f64
  } -> tensor<2x3x8xf64>
  return %r : tensor<2x3x8xf64>
}

// Into the caller's C: the sparsifier's.
func.func @accumulates(%a: tensor<2x3x4xf32, #BCSR>, %b: tensor<2x4x8xf32>, %c: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf32, #BCSR>, tensor<2x4x8xf32>) outs(%c : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %r : tensor<2x3x8xf32>
}

// Rows of 1024 bytes: wider than the kernel keeps in registers.
func.func @wide(%a: tensor<2x3x4xf64, #BCSR>, %b: tensor<2x4x128xf64>) -> tensor<2x3x128xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<2x3x128xf64>
  %c = linalg.fill ins(%z : f64) outs(%e : tensor<2x3x128xf64>) -> tensor<2x3x128xf64>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf64, #BCSR>, tensor<2x4x128xf64>) outs(%c : tensor<2x3x128xf64>) -> tensor<2x3x128xf64>
  return %r : tensor<2x3x128xf64>
}

func.func @csr_again(%a: tensor<2x3x4xf32, #BCSR>, %b: tensor<2x4x8xf32>) -> tensor<2x3x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x8xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf32, #BCSR>, tensor<2x4x8xf32>) outs(%c : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %r : tensor<2x3x8xf32>
}
