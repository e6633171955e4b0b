// sptune's autotune pipeline in standalone-opt: the kernel is extracted,
// tuned for the CPU (heuristic mode: no model), counted by this project's
// pass, its schedule applied and lowered to the LLVM dialect with OpenMP.
//
// RUN: standalone-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=gen:block:rows=256,cols=256,nnz=2048,bs=4,seed=3" --standalone-count-sparse-kernels=remarks=true --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=TUNED
// TUNED: remark: sptune-autotune (heuristic, {{[0-9]+}} candidates ranked in {{.*}}): chose cpu spmm
// TUNED: remark: standalone: spmm kernel, scheduled as cpu spmm
// TUNED: module attributes {standalone.sparse_kernels = {kernels = 1 : i64, scheduled = 1 : i64, spmm = 1 : i64}}
// TUNED-LABEL: func.func @spmm
// TUNED: linalg.matmul {{{.*}}sptune.schedule = #sptune.schedule<cpu spmm
//
// RUN: standalone-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=gen:block:rows=256,cols=256,nnz=2048,bs=4,seed=3" --sptune-apply-schedule --sptune-lower-cpu 2>/dev/null | FileCheck %s --check-prefix=LOWERED
//
// The same from C++: standalone-tune-cpu builds the pipeline with sptune's
// pass constructors and buildCpuLoweringPipeline (cpu/CpuPasses.h).
// RUN: standalone-opt %s --standalone-tune-cpu="matrix=gen:block:rows=256,cols=256,nnz=2048,bs=4,seed=3" 2>/dev/null | FileCheck %s --check-prefixes=LOWERED,COUNTED
//
// LOWERED-NOT: sptune.
// COUNTED: module attributes {{{.*}}standalone.sparse_kernels = {kernels = 1 : i64, scheduled = 1 : i64, spmm = 1 : i64}
// LOWERED: llvm.func @spmm
// LOWERED: omp.parallel
// LOWERED-NOT: sptune.

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmm(%a: tensor<256x256xf32, #CSR>, %b: tensor<256x32xf32>, %c: tensor<256x32xf32>) -> tensor<256x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<256x256xf32, #CSR>, tensor<256x32xf32>) outs(%c : tensor<256x32xf32>) -> tensor<256x32xf32>
  return %0 : tensor<256x32xf32>
}
