// MTTKRP as a scheduled kernel type: recognized by the matcher in the forms
// sptune's kernel computes (inputs in any order; B(i, k, l) is the
// schedule's sparse operand), given a schedule by sptune-default-schedule
// and sptune-autotune (B's own storage, and the kernel's knobs: parallel,
// threads, form), applied without converting anything, and lowered by
// sptune-cpu-sparsify into a kernel built as each MTTKRP's schedule says.
//
// RUN: sptune-opt %s --sptune-extract-kernels 2>/dev/null | FileCheck %s --check-prefix=KERNEL
// KERNEL: #[[CSF:.+]] = #sparse_tensor.encoding<{ map = (d0, d1, d2) -> (d0 : compressed, d1 : compressed, d2 : compressed) }>
// KERNEL: #[[COO:.+]] = #sparse_tensor.encoding<{ map = (d0, d1, d2) -> (d0 : compressed(nonunique), d1 : singleton(nonunique), d2 : singleton) }>
// KERNEL-LABEL: func.func @csf(
// KERNEL: sptune.kernel = #sptune.kernel<mttkrp, loops = [i : 3, j : 4, k : 5, l : 6], operands = [sparse(i, k, l), dense(k, j), dense(l, j), out(i, j)], type = f64, encoding = #[[CSF]]>
// KERNEL-LABEL: func.func @coo_inputs_swapped(
// KERNEL: sptune.kernel = #sptune.kernel<mttkrp, loops = [i : 3, j : 4, k : 5, l : 6], operands = [dense(l, j), sparse(i, k, l), dense(k, j), out(i, j)], type = f32, encoding = #[[COO]]>
// KERNEL-LABEL: func.func @transposed_factor(
// KERNEL-NOT: sptune.kernel
// KERNEL-LABEL: func.func @accumulates(
// KERNEL-NOT: sptune.kernel
// KERNEL: return
//
// MTTKRPs the kernel does not compute pass through, with the reason.
// RUN: sptune-opt %s --sptune-extract-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNTUNED
// UNTUNED: remark: sptune: not a recognized sparse kernel: an MTTKRP that sptune's kernel does not compute: it does not read C(k, j) and D(l, j) with j contiguous, k and l the sparse operand's second and third dimensions
// UNTUNED: remark: sptune: not a recognized sparse kernel: an MTTKRP that sptune's kernel does not compute: its output does not start from a linalg.fill of a fresh tensor
// UNTUNED-NOT: remark
//
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-LABEL: func.func @csf(
// DEFAULT: sptune.schedule = #sptune.schedule<cpu mttkrp, levels = [i : dense, k : compressed], split = [1, 1], order = [i, k, j], widths = [64, 64], tile = 0, parallel = outer, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false>
//
// sptune-autotune: with measure-top-k and a tensor of the kernel's sizes,
// the heuristic's and every schedule of the space are measured on it and
// the fastest is taken (which one depends on the machine: only the remark
// is checked); without, or with a matrix, the heuristic's (the shipped cost
// model has no MTTKRP feature), and the remark says why. A model learned
// for MTTKRP ranks them instead: test/Learn/mttkrp.test.
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen3:uniform:dims=3x5x6,nnz=20,seed=1 measure-top-k=1" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=MEASURED
// MEASURED: remark: sptune-autotune: MTTKRP measured on its tensor 'gen3:uniform:dims=3x5x6,nnz=20,seed=1' (the pass option matrix=): 5 schedules (the heuristic's and its space's) in {{[0-9.]+}} s: [cpu mttkrp, {{.*}}parallel = outer, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false] {{[0-9.]+}} ms; [cpu mttkrp, {{.*}}parallel = none, {{.*}}form = factored] {{[0-9.]+}} ms; [{{.*}}] {{[0-9.]+}} ms; [{{.*}}] {{[0-9.]+}} ms; [{{.*}}form = entry_wise] {{[0-9.]+}} ms; chose cpu mttkrp,
// (@coo_inputs_swapped: f32, D first, B as the assembled COO, unconverted.)
// MEASURED: remark: sptune-autotune: MTTKRP measured on its tensor {{.*}}: 5 schedules (the heuristic's and its space's) in {{[0-9.]+}} s: [cpu mttkrp, {{.*}}] {{[0-9.]+}} ms; [cpu mttkrp, {{.*}}] {{[0-9.]+}} ms; [cpu mttkrp, {{.*}}] {{[0-9.]+}} ms; [cpu mttkrp, {{.*}}] {{[0-9.]+}} ms; [cpu mttkrp, {{.*}}] {{[0-9.]+}} ms; chose cpu mttkrp,
// MEASURED: remark: sptune-autotune: MTTKRP measured on its tensor {{.*}}: 5 schedules (the heuristic's and its space's) in {{[0-9.]+}} s: [cpu mttkrp, {{.*}}] {{[0-9.]+}} ms; [cpu mttkrp, {{.*}}] {{[0-9.]+}} ms; [cpu mttkrp, {{.*}}] {{[0-9.]+}} ms; [cpu mttkrp, {{.*}}] {{[0-9.]+}} ms; [cpu mttkrp, {{.*}}] {{[0-9.]+}} ms; chose cpu mttkrp,
// MEASURED-NOT: remark
// A FROSTT file named by @csf's `sptune.matrix` attribute (the other
// kernels have none: the heuristic's, with the reason).
// RUN: printf '3 3\n3 5 6\n1 1 1 1.0\n2 3 4 -2.0\n3 5 6 0.5\n' > %t.tns
// RUN: sed -e 's|@csf(%b: tensor<3x5x6xf64, #CSF>|@csf(%b: tensor<3x5x6xf64, #CSF> {sptune.matrix = "%t.tns"}|' %s | sptune-opt --sptune-extract-kernels --sptune-autotune="measure-top-k=1" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=FILE
// FILE: remark: sptune-autotune: MTTKRP measured on its tensor '{{.*}}.tns' (the 'sptune.matrix' attribute of argument #0 of @csf): 5 schedules {{.*}} ms; chose cpu mttkrp,
// FILE: remark: sptune-autotune: MTTKRP scheduled by the heuristic (no tensor to measure on or rank for: give matrix= or a 'sptune.matrix' attribute naming a gen3: spec or a .tns file): chose cpu mttkrp,
// The option and the attribute naming one tensor in two spellings.
// RUN: sed -e 's|@csf(%b: tensor<3x5x6xf64, #CSF>|@csf(%b: tensor<3x5x6xf64, #CSF> {sptune.matrix = "gen3:uniform:nnz=20,dims=3x5x6,seed=1"}|' %s | sptune-opt --sptune-extract-kernels --sptune-autotune="matrix=gen3:uniform:dims=3x5x6,nnz=20,seed=1 measure-top-k=1" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=SPELLED
// SPELLED: remark: sptune-autotune: MTTKRP measured on its tensor 'gen3:uniform:nnz=20,dims=3x5x6,seed=1' (the 'sptune.matrix' attribute of argument #0 of @csf and the pass option matrix=): 5 schedules
// RUN: printf '3 3\n3 5 6\n1 1 1 1.0\n' > %t.cut.tns
// RUN: sed -e 's|@csf(%b: tensor<3x5x6xf64, #CSF>|@csf(%b: tensor<3x5x6xf64, #CSF> {sptune.matrix = "%t.cut.tns"}|' %s | not sptune-opt --sptune-extract-kernels --sptune-autotune="measure-top-k=1" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=BADFILE
// BADFILE: error: sptune-autotune: the tensor of the 'sptune.matrix' attribute of argument #0 of @csf: {{.*}}cut.tns:1: the header announces 3 entries, the file has 1
// RUN: not sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen3:uniform:dims=4x5x6,nnz=20,seed=1 measure-top-k=1" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=SIZES
// SIZES: error: sptune-autotune: tensor 'gen3:uniform:dims=4x5x6,nnz=20,seed=1' (the pass option matrix=) is 4x5x6 but the kernel's sparse operand is 3x5x6
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen:uniform:rows=8,cols=5,nnz=12,seed=1 measure-top-k=2" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=TUNED
// TUNED: remark: sptune-autotune: MTTKRP scheduled by the heuristic ('gen:uniform:rows=8,cols=5,nnz=12,seed=1' (the pass option matrix=) names a matrix, not a 3-D tensor): chose cpu mttkrp, levels = [i : dense, k : compressed], {{.*}}parallel = outer, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false{{$}}
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=HEURISTIC
// HEURISTIC: remark: sptune-autotune: MTTKRP scheduled by the heuristic ({{.*}} has no feature for kernel 'mttkrp'; measure-top-k= measures the schedules of its space on the tensor that 'sptune.matrix' or matrix= names): chose cpu mttkrp,
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune=mode=heuristic --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=HEURISTIC-MODE
// A tensor named is read even where the heuristic decides: a missing file
// and one of other sizes are errors, as for a matrix.
// RUN: not sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=%t.missing.tns" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=HEURISTIC-MISSING
// HEURISTIC-MISSING: error: sptune-autotune: the tensor of the pass option matrix=: {{.*}}missing.tns: cannot open
// RUN: not sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=gen3:uniform:dims=4x5x6,nnz=20,seed=1" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=SIZES
// HEURISTIC-MODE: remark: sptune-autotune: MTTKRP scheduled by the heuristic (heuristic mode; measure-top-k= measures
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="multiversion=2" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=VERSIONS
// VERSIONS: remark: sptune-autotune: MTTKRP scheduled by the heuristic {{.*}}simd32 = false (not multi-versioned: MTTKRP kernels get one schedule (run-time dispatch reads a matrix's features, not a 3-D tensor's))
//
// The GPU and SPADE targets leave MTTKRP unscheduled, with a remark.
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune=target=nvvm --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=NVVM
// NVVM: remark: sptune-autotune: left unscheduled: target 'nvvm' has no MTTKRP kernel
// NVVM-NOT: sptune.schedule
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune=target=spade --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=SPADE
// SPADE: remark: sptune-autotune: left unscheduled: target 'spade' has no MTTKRP kernel
// SPADE-NOT: sptune.schedule
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule=target=nvvm --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=NVVM-DEFAULT
// NVVM-DEFAULT: remark: {{.*}}target 'nvvm' has no MTTKRP kernel
// NVVM-DEFAULT-NOT: sptune.schedule
//
// Applied: the op is generalized, on its own storage, with its schedule.
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule 2>/dev/null | FileCheck %s --check-prefix=APPLIED
// APPLIED-LABEL: func.func @csf(
// APPLIED-NOT: sparse_tensor.convert
// APPLIED: linalg.generic {{{.*}}sptune.schedule = #sptune.schedule<cpu mttkrp,
// APPLIED-NOT: sptune.kernel
// APPLIED: return
//
// Lowered with each MTTKRP's knobs: @csf entry-wise in three blocks (its
// team of three), @coo_inputs_swapped factored in one thread, @csf_again
// (of @csf's types) by the heuristic; one kernel function per signature and
// settings, its settings spent.
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | sed -e '/@csf(/,/return/s/threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false/threads = 3, form = entry_wise/' -e '/@coo_inputs_swapped(/,/return/s/parallel = outer, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false/parallel = none, form = factored/' | sptune-opt --sptune-apply-schedule --sptune-cpu-sparsify | FileCheck %s --check-prefix=LOWERED
// LOWERED-DAG: func.func private @sptune_mttkrp{{(_[0-9]+)?}}({{.*}}memref<?xf32>{{.*}}) -> memref<3x4xf32> {
// LOWERED-DAG: func.func private @sptune_mttkrp{{(_[0-9]+)?}}({{.*}}memref<?xf64>{{.*}}) -> memref<3x4xf64> attributes {sptune.omp_threads = 3 : i32} {
// LOWERED-DAG: func.func private @sptune_mttkrp{{(_[0-9]+)?}}({{.*}}memref<?xf64>{{.*}}) -> memref<3x4xf64> {
// LOWERED-NOT: sptune.mttkrp_settings
// LOWERED-NOT: sptune.factored_mttkrp
//
// The lowering's options win over the schedule's knobs.
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | sed -e '/@csf(/,/return/s/threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false/threads = 3, form = entry_wise/' | sptune-opt --sptune-apply-schedule --sptune-cpu-sparsify="threads=2 mttkrp-form=factored" --mlir-print-debuginfo=false -o - | FileCheck %s --check-prefix=OPTIONS
// (Both f64 MTTKRPs then have the same settings: one kernel function.)
// OPTIONS: func.func private @sptune_mttkrp{{(_[0-9]+)?}}({{.*}}memref<?xf64>{{.*}}) -> memref<3x4xf64> attributes {sptune.omp_threads = 2 : i32} {
// OPTIONS-NOT: -> memref<3x4xf64> attributes
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | sptune-opt --sptune-apply-schedule --sptune-cpu-sparsify=parallelization=none | FileCheck %s --check-prefix=SERIAL
// SERIAL: func.func private @sptune_mttkrp
// SERIAL-NOT: scf.parallel
// SERIAL-NOT: sptune.omp_threads
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule 2>/dev/null | sptune-opt --sptune-apply-schedule --sptune-cpu-sparsify | FileCheck %s --check-prefix=PARALLEL
// PARALLEL: func.func private @sptune_mttkrp
// PARALLEL: scf.parallel

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
#COO = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed(nonunique), k : singleton(nonunique), l : singleton) }>
#B = affine_map<(i, j, k, l) -> (i, k, l)>
#C = affine_map<(i, j, k, l) -> (k, j)>
#Ct = affine_map<(i, j, k, l) -> (j, k)>
#D = affine_map<(i, j, k, l) -> (l, j)>
#A = affine_map<(i, j, k, l) -> (i, j)>

func.func @csf(%b: tensor<3x5x6xf64, #CSF>, %c: tensor<5x4xf64>, %d: tensor<6x4xf64>) -> tensor<3x4xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3x4xf64>
  %a = linalg.fill ins(%zero : f64) outs(%e : tensor<3x4xf64>) -> tensor<3x4xf64>
  %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
    ins(%b, %c, %d : tensor<3x5x6xf64, #CSF>, tensor<5x4xf64>, tensor<6x4xf64>) outs(%a : tensor<3x4xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}

func.func @coo_inputs_swapped(%d: tensor<6x4xf32>, %b: tensor<3x5x6xf32, #COO>, %c: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x4xf32>
  %a = linalg.fill ins(%zero : f32) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
  %r = linalg.generic {indexing_maps = [#D, #B, #C, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
    ins(%d, %b, %c : tensor<6x4xf32>, tensor<3x5x6xf32, #COO>, tensor<5x4xf32>) outs(%a : tensor<3x4xf32>) {
  ^bb0(%z: f32, %x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %z : f32
    %s = arith.addf %o, %q : f32
    linalg.yield %s : f32
  } -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

func.func @transposed_factor(%b: tensor<3x5x6xf64, #CSF>, %c: tensor<4x5xf64>, %d: tensor<6x4xf64>) -> tensor<3x4xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3x4xf64>
  %a = linalg.fill ins(%zero : f64) outs(%e : tensor<3x4xf64>) -> tensor<3x4xf64>
  %r = linalg.generic {indexing_maps = [#B, #Ct, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
    ins(%b, %c, %d : tensor<3x5x6xf64, #CSF>, tensor<4x5xf64>, tensor<6x4xf64>) outs(%a : tensor<3x4xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}

func.func @accumulates(%b: tensor<3x5x6xf64, #CSF>, %c: tensor<5x4xf64>, %d: tensor<6x4xf64>, %a: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
    ins(%b, %c, %d : tensor<3x5x6xf64, #CSF>, tensor<5x4xf64>, tensor<6x4xf64>) outs(%a : tensor<3x4xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}

func.func @csf_again(%b: tensor<3x5x6xf64, #CSF>, %c: tensor<5x4xf64>, %d: tensor<6x4xf64>) -> tensor<3x4xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3x4xf64>
  %a = linalg.fill ins(%zero : f64) outs(%e : tensor<3x4xf64>) -> tensor<3x4xf64>
  %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
    ins(%b, %c, %d : tensor<3x5x6xf64, #CSF>, tensor<5x4xf64>, tensor<6x4xf64>) outs(%a : tensor<3x4xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %z : f64
    %s = arith.addf %o, %q : f64
    linalg.yield %s : f64
  } -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}
