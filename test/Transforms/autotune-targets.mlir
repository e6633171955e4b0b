// sptune-autotune for every registered target: candidates come from the
// target's own schedule space through the target registry. The shipped
// (release) model is trained for the CPU only: for NVVM and SPADE it falls
// back to the heuristic ranking and the remark says so.
//
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="target=nvvm mode=heuristic matrix=gen:rmat:rows=256,cols=256,nnz=2000,seed=4 top-k=2" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=NVVM
// NVVM: remark: sptune-autotune (heuristic, {{[0-9]+}} candidates ranked in {{.*}} ms): chose nvvm spmm, levels = [i : dense, k : compressed], {{.*}}libgen = true; ranking: #1 score {{.*}} [nvvm spmm, {{.*}}] #2 score {{.*}} [nvvm spmm,
// NVVM: sptune.schedule = #sptune.schedule<nvvm spmm,
//
// The cuSPARSE path computes in f32 and f64: for an i32 kernel the rule
// that ranks first is the reference schedule, GPU code generation.
// RUN: sed 's/f32/i32/g' %s | sptune-opt --sptune-extract-kernels --sptune-autotune="target=nvvm mode=heuristic matrix=gen:rmat:rows=256,cols=256,nnz=2000,seed=4 top-k=1" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=NVVM-I32
// NVVM-I32: remark: sptune-autotune (heuristic, {{[0-9]+}} candidates ranked in {{.*}} ms): chose nvvm spmm, levels = [i : dense, k : compressed], {{.*}}threads = 1024, libgen = false;
//
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="target=nvvm matrix=gen:rmat:rows=256,cols=256,nnz=2000,seed=4 top-k=1" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=NVVM-RELEASE
// NVVM-RELEASE: remark: sptune-autotune (release, {{.*}}): chose nvvm spmm, {{.*}}; ranked by the heuristic: release model '{{.*}}cpu-default.pt' (targets: cpu{{.*}}) was not trained for 'nvvm'
//
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="target=spade mode=heuristic matrix=gen:rmat:rows=256,cols=256,nnz=2000,seed=4 top-k=2" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=SPADE
// SPADE: remark: sptune-autotune (heuristic, {{[0-9]+}} candidates ranked in {{.*}} ms): chose spade spmm, split = [256, 1], {{.*}}; ranking: #1 {{.*}} #2 score {{.*}} [spade spmm,
// SPADE: sptune.schedule = #sptune.schedule<spade spmm,
//
// The SPADE program of the tuned kernel is emitted by the target's pipeline.
// RUN: rm -rf %t && mkdir -p %t
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="target=spade mode=heuristic matrix=gen:rmat:rows=256,cols=256,nnz=2000,seed=4" --sptune-emit-spade="output-dir=%t" -o /dev/null 2>/dev/null
// RUN: ls %t | FileCheck %s --check-prefix=EMIT
// EMIT: .spade
//
// Bad target names and modes are errors that list the allowed values.
// RUN: not sptune-opt %s --sptune-autotune=target=tpu 2>&1 | FileCheck %s --check-prefix=BADTARGET
// BADTARGET: error: sptune-autotune: unknown target 'tpu' (registered: cpu, nvvm, spade)
// RUN: not sptune-opt %s --sptune-default-schedule=target=tpu 2>&1 | FileCheck %s --check-prefix=BADDEFAULT
// BADDEFAULT: error: sptune-default-schedule: unknown target 'tpu' (registered: cpu, nvvm, spade)

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmm(%a: tensor<256x256xf32, #CSR>, %b: tensor<256x32xf32>, %c: tensor<256x32xf32>) -> tensor<256x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<256x256xf32, #CSR>, tensor<256x32xf32>) outs(%c : tensor<256x32xf32>) -> tensor<256x32xf32>
  return %0 : tensor<256x32xf32>
}
