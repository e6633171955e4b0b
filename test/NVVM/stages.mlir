// The NVVM pipeline stage by stage on a CSR SpMM: the outlined kernel after
// sptune-nvvm-sparsify, NVVM ops in the GPU module after convert-gpu-to-nvvm
// (the host still launches through gpu.launch_func), the target attached,
// and the gpu.binary after sptune-nvvm-to-binary.
//
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm -o /dev/null \
// RUN:   --mlir-print-ir-after=sptune-nvvm-sparsify \
// RUN:   --mlir-print-ir-after=convert-gpu-to-nvvm \
// RUN:   --mlir-print-ir-after=nvvm-attach-target \
// RUN:   --mlir-print-ir-after=sptune-nvvm-to-binary 2>&1 | FileCheck %s

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CHECK-LABEL: IR Dump After NvvmSparsify
// CHECK:       module attributes {gpu.container_module}
// CHECK:       gpu.module @sparse_kernels {
// CHECK:         gpu.func @kernel0(
// CHECK-SAME:      kernel
// CHECK:           gpu.block_id x
// CHECK:           gpu.block_dim x
// CHECK:           gpu.thread_id x
// CHECK:           gpu.grid_dim x
// CHECK:           scf.for
// CHECK:           gpu.return
// CHECK:       func.func @spmm(
// CHECK-SAME:    attributes {sptune.schedule = #sptune.schedule<nvvm spmm
// CHECK:         gpu.alloc async
// CHECK:         gpu.memcpy async
// CHECK:         gpu.launch_func async @sparse_kernels::@kernel0 blocks in (%c1, %c1, %c1) threads in (%c64,
//
// CHECK-LABEL: IR Dump After ConvertGpuOpsToNVVMOps (convert-gpu-to-nvvm)
// CHECK:       gpu.module @sparse_kernels {
// CHECK:         llvm.func @kernel0(
// CHECK-SAME:      attributes {gpu.kernel, nvvm.kernel}
// CHECK:           nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK:           nvvm.read.ptx.sreg.ntid.x : i32
// CHECK:           nvvm.read.ptx.sreg.tid.x : i32
// CHECK:           nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK:           llvm.load
// CHECK:           llvm.fmul
// CHECK:           llvm.fadd
// CHECK:           llvm.store
// CHECK:           llvm.return
//
// CHECK-LABEL: IR Dump After GpuNVVMAttachTarget (nvvm-attach-target)
// CHECK:       gpu.module @sparse_kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">]
// CHECK:       func.func @spmm(
// CHECK-NOT:     sptune.schedule
// CHECK:         gpu.launch_func async @sparse_kernels::@kernel0
//
// CHECK-LABEL: IR Dump After NvvmToBinary (sptune-nvvm-to-binary)
// CHECK-NOT:   gpu.module
// CHECK:       gpu.binary @sparse_kernels
// CHECK-SAME:    .entry kernel0(
func.func @spmm(%a: tensor<1000x1000xf64, #CSR>, %b: tensor<1000x16xf64>, %c: tensor<1000x16xf64>) -> tensor<1000x16xf64> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 1000, j : 16, k : 1000], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f64, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm, threads = 64>}
    ins(%a, %b : tensor<1000x1000xf64, #CSR>, tensor<1000x16xf64>) outs(%c : tensor<1000x16xf64>) -> tensor<1000x16xf64>
  return %0 : tensor<1000x16xf64>
}
