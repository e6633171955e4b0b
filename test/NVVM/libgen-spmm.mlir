// SpMM through cuSPARSE (libgen = true): the kernel becomes gpu.spmm on a
// CSR, CSC or COO handle, lowered to calls of the runtime's cuSPARSE entry
// points; no kernel of our own is compiled.
//
// RUN: sed 's/SCHEDULE/nvvm spmm, libgen = true/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm -o /dev/null --mlir-print-ir-after=sptune-nvvm-sparsify 2>&1 | FileCheck %s --check-prefix=CSR
// RUN: sed 's/SCHEDULE/nvvm spmm, levels = [k : dense, i : compressed], libgen = true/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm -o /dev/null --mlir-print-ir-after=sptune-nvvm-sparsify 2>&1 | FileCheck %s --check-prefix=CSC
// RUN: sed 's/SCHEDULE/nvvm spmm, levels = [i : compressed_nu, k : singleton], libgen = true/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm=enable-runtime-library=true -o /dev/null --mlir-print-ir-after=sptune-nvvm-sparsify 2>&1 | FileCheck %s --check-prefix=COO
// RUN: sed 's/SCHEDULE/nvvm spmm, widths = [32, 32], libgen = true/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm spmm, libgen = true/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CSR-LABEL: IR Dump After NvvmSparsify
// CSR-NOT:   gpu.module
// CSR:       gpu.create_csr
// CSR:       gpu.create_dn_tensor
// CSR:       gpu.create_dn_tensor
// CSR:       gpu.spmm_buffer_size
// CSR:       gpu.spmm async
// CSR:       gpu.destroy_sp_mat
// CSR:       gpu.memcpy
//
// CSC-LABEL: IR Dump After NvvmSparsify
// CSC:       gpu.create_csc
// CSC:       gpu.spmm async
//
// COO-LABEL: IR Dump After NvvmSparsify
// COO:       gpu.create_coo
// COO:       gpu.spmm async
//
// CHECK-NOT:   gpu.binary
// CHECK-LABEL: llvm.func @spmm
// CHECK:       llvm.call @mgpuCreateCsr({{.*}}) : (i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, !llvm.ptr) -> !llvm.ptr
// CHECK:       llvm.call @mgpuCreateDnMat
// CHECK:       llvm.call @mgpuCreateDnMat
// CHECK:       llvm.call @mgpuSpMMBufferSize
// CHECK:       llvm.call @mgpuSpMM(
// CHECK:       llvm.call @mgpuDestroySpMat
//
// LLVMIR-DAG: declare ptr @mgpuCreateCsr(i64, i64, i64, ptr, ptr, ptr, i32, i32, i32, ptr)
// LLVMIR-DAG: declare ptr @mgpuCreateDnMat(i64, i64, ptr, i32, ptr)
// LLVMIR-DAG: declare i64 @mgpuSpMMBufferSize(i32, i32, ptr, ptr, ptr, i32, ptr)
// LLVMIR-DAG: declare void @mgpuSpMM(i32, i32, ptr, ptr, ptr, i32, ptr, ptr)
// LLVMIR-DAG: declare void @mgpuDestroySpMat(ptr, ptr)
// LLVMIR-DAG: declare void @mgpuDestroyDnMat(ptr, ptr)
func.func @spmm(%a: tensor<256x128xf64, #CSR>, %b: tensor<128x64xf64>, %c: tensor<256x64xf64>) -> tensor<256x64xf64> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 256, j : 64, k : 128], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f64, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<SCHEDULE>}
    ins(%a, %b : tensor<256x128xf64, #CSR>, tensor<128x64xf64>) outs(%c : tensor<256x64xf64>) -> tensor<256x64xf64>
  return %0 : tensor<256x64xf64>
}
