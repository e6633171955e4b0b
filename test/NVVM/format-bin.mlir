// REQUIRES: ptxas
// With the CUDA toolkit's ptxas, the device code becomes a cubin (an ELF
// object for sm_90) instead of PTX text, or a fatbin.
//
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm=format=bin | FileCheck %s --check-prefix=BIN
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm=format=fatbin | FileCheck %s --check-prefix=FATBIN
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm=format=bin | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR
//
// BIN:    gpu.binary @sparse_kernels [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, properties = {{.*}}, bin = "\7FELF
// FATBIN: gpu.binary @sparse_kernels [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, properties = {{.*}}, "
// LLVMIR: call ptr @mgpuModuleLoad(ptr @sparse_kernels_binary, i64 {{[0-9]+}})

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmm(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x8xf32>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 8, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm, threads = 64>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x8xf32>) outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}
