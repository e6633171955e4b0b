// REQUIRES: cuda-stub-driver
// sptune's CUDA runtime on a machine without a GPU driver (the toolkit's
// stub libcuda): every entry point reports what failed or what it skipped,
// nothing crashes, and SPTUNE_CUDA_ABORT_ON_ERROR=1 turns the first error
// into an abort after the message.
//
// DEFINE: %{runner} = mlir-runner -e main -entry-point-result=void -shared-libs=%sptune_cuda_runtime,%mlir_c_runner_utils,%mlir_runner_utils
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm > %t.mlir
// RUN: env LD_LIBRARY_PATH=%cuda_stub_driver_dir %{runner} %t.mlir 2>&1 | FileCheck %s
// RUN: env LD_LIBRARY_PATH=%cuda_stub_driver_dir SPTUNE_CUDA_ABORT_ON_ERROR=1 not --crash %{runner} %t.mlir 2>&1 | FileCheck %s --check-prefix=ABORT
//
// CHECK-DAG: sptune-cuda-runtime: mgpuModuleLoadJIT: cuInit(0) failed: CUDA_ERROR_STUB_LIBRARY (34): the CUDA driver library is the toolkit's stub; no NVIDIA driver is installed
// CHECK-DAG: sptune-cuda-runtime: mgpuStreamCreate: skipped: no usable CUDA context (mgpuModuleLoadJIT: cuInit(0) failed: CUDA_ERROR_STUB_LIBRARY
// CHECK-DAG: sptune-cuda-runtime: mgpuMemAlloc: skipped: no usable CUDA context
// CHECK-DAG: sptune-cuda-runtime: further errors are counted but not printed
// CHECK-DAG: done
//
// ABORT:      sptune-cuda-runtime: mgpuModuleLoadJIT: cuInit(0) failed: CUDA_ERROR_STUB_LIBRARY (34)
// ABORT-NEXT: sptune-cuda-runtime: aborting (SPTUNE_CUDA_ABORT_ON_ERROR is set)
// ABORT-NOT:  done

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

module {
  func.func @spmm(%a: tensor<8x8xf32, #CSR>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = linalg.matmul {sptune.kernel = #sptune.kernel<spmm, loops = [i : 8, j : 4, k : 8], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<nvvm spmm, threads = 8>}
      ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }

  func.func @main() {
    %d = arith.constant dense<1.0> : tensor<8x8xf32>
    %a = sparse_tensor.convert %d : tensor<8x8xf32> to tensor<8x8xf32, #CSR>
    %b = arith.constant dense<1.0> : tensor<8x4xf32>
    %c = arith.constant dense<0.0> : tensor<8x4xf32>
    %r = call @spmm(%a, %b, %c) : (tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    bufferization.dealloc_tensor %a : tensor<8x8xf32, #CSR>
    vector.print str "done\n"
    return
  }
}
