// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm | FileCheck %s
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm="chip=sm_80 features=+ptx75" | FileCheck %s --check-prefix=SM80
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// A CSR SpMM through MLIR's sparse GPU code generation: the row loop is
// outlined into kernel0, whose PTX (LLVM's NVPTX backend, no CUDA needed)
// lands in a gpu.binary; the host code calls the mgpu* runtime; nothing of
// sptune is left.
//
// CHECK-NOT:   sptune
// CHECK:       gpu.binary @sparse_kernels [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">
// CHECK-SAME:    assembly = "
// CHECK-SAME:    .target sm_90
// CHECK-SAME:    .visible .entry kernel0(
// CHECK-SAME:    ld.global
// CHECK-SAME:    st.global
// CHECK-LABEL: llvm.func @spmm
// CHECK:       llvm.call @mgpuStreamCreate
// CHECK:       llvm.call @mgpuMemAlloc
// CHECK:       llvm.call @mgpuMemcpy
// CHECK:       gpu.launch_func <%{{.*}} : !llvm.ptr> @sparse_kernels::@kernel0
// CHECK:       llvm.call @mgpuMemcpy
// CHECK:       llvm.call @mgpuMemFree
// CHECK:       llvm.call @mgpuStreamSynchronize
// CHECK:       llvm.call @mgpuStreamDestroy
// CHECK-NOT:   sptune
//
// SM80: #nvvm.target<chip = "sm_80", features = "+ptx75">
// SM80-SAME: .target sm_80
//
// In LLVM IR the binary is loaded (PTX: JIT-compiled by the driver) and the
// kernel launched through the runtime with 128 threads per block and
// ceil(512 / 128) = 4 blocks (upstream launches a single block).
//
// LLVMIR-LABEL: define {{.*}} @spmm(
// LLVMIR:       call ptr @mgpuModuleGetFunction(
// LLVMIR:       call void @mgpuLaunchKernel(ptr %{{.*}}, i64 4, i64 1, i64 1, i64 128, i64 1, i64 1, i32 0,
// LLVMIR-DAG:   declare ptr @mgpuMemAlloc(i64, ptr, i8)
// LLVMIR-DAG:   declare void @mgpuMemcpy(ptr, ptr, i64, ptr)
// LLVMIR-DAG:   declare void @mgpuMemFree(ptr, ptr)
// LLVMIR-DAG:   declare ptr @mgpuModuleLoadJIT(ptr, i32)
// LLVMIR-DAG:   declare ptr @mgpuModuleGetFunction(ptr, ptr)
// LLVMIR-DAG:   declare void @mgpuLaunchKernel(ptr, i64, i64, i64, i64, i64, i64, i32, ptr, ptr, ptr, i64)
// LLVMIR-DAG:   declare void @mgpuModuleUnload(ptr)
func.func @spmm(%a: tensor<512x256xf32, #CSR>, %b: tensor<256x32xf32>, %c: tensor<512x32xf32>) -> tensor<512x32xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 512, j : 32, k : 256], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm, threads = 128>}
    ins(%a, %b : tensor<512x256xf32, #CSR>, tensor<256x32xf32>) outs(%c : tensor<512x32xf32>) -> tensor<512x32xf32>
  return %0 : tensor<512x32xf32>
}
