// In-place SDDMM S = S + spy(S) * (A B) through cuSPARSE (libgen = true):
// gpu.sddmm on a CSR or (square-block) BSR handle, lowered to the runtime's
// mgpuSDDMM; the loop order of the schedule plays no part.
//
// RUN: sed 's/SCHEDULE/nvvm sddmm, order = [i, k, j], libgen = true/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm -o /dev/null --mlir-print-ir-after=sptune-nvvm-sparsify 2>&1 | FileCheck %s --check-prefix=CSR
// RUN: sed 's/SCHEDULE/nvvm sddmm, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [4, 4], order = [k, i1, j1, i0, j0], libgen = true/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm -o /dev/null --mlir-print-ir-after=sptune-nvvm-sparsify 2>&1 | FileCheck %s --check-prefix=BSR
// RUN: sed 's/SCHEDULE/nvvm sddmm, order = [i, k, j], libgen = true/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm | FileCheck %s
// RUN: sed 's/SCHEDULE/nvvm sddmm, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [4, 4], order = [k, i1, j1, i0, j0], libgen = true/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#spy = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// CSR-LABEL: IR Dump After NvvmSparsify
// CSR:       gpu.create_dn_tensor
// CSR:       gpu.create_dn_tensor
// CSR:       gpu.create_csr
// CSR:       gpu.sddmm_buffer_size
// CSR:       gpu.sddmm async
//
// Block counts and sizes: 32 x 32 blocks of 4 x 4, nnz / 16 blocks.
// BSR-LABEL: IR Dump After NvvmSparsify
// BSR:       gpu.create_bsr async [%{{.*}}] %c32, %c32, %{{.*}}, %c4, %c4,
// BSR:       gpu.sddmm async
//
// CHECK-NOT:   gpu.binary
// CHECK-LABEL: llvm.func @sddmm
// CHECK:       llvm.call @mgpuCreateDnMat
// CHECK:       llvm.call @mgpuCreateCsr
// CHECK:       llvm.call @mgpuSDDMMBufferSize
// CHECK:       llvm.call @mgpuSDDMM(
// CHECK:       llvm.call @mgpuDestroySpMat
//
// LLVMIR-DAG: declare ptr @mgpuCreateBsr(i64, i64, i64, i64, i64, ptr, ptr, ptr, i32, i32, i32, ptr)
// LLVMIR-DAG: declare i64 @mgpuSDDMMBufferSize(i32, i32, ptr, ptr, ptr, i32, ptr)
// LLVMIR-DAG: declare void @mgpuSDDMM(i32, i32, ptr, ptr, ptr, i32, ptr, ptr)
func.func @sddmm(%s: tensor<128x128xf32, #CSR>, %a: tensor<128x16xf32>, %b: tensor<16x128xf32>) -> tensor<128x128xf32, #CSR> {
  %r = linalg.generic #spy ins(%a, %b : tensor<128x16xf32>, tensor<16x128xf32>) outs(%s : tensor<128x128xf32, #CSR>)
      attrs = {sptune.kernel = #sptune.kernel<sddmm, loops = [i : 128, j : 128, k : 16], operands = [dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>,
               sptune.schedule = #sptune.schedule<SCHEDULE>} {
    ^bb0(%x: f32, %y: f32, %z: f32):
      %f0 = arith.constant 0.0 : f32
      %u = sparse_tensor.unary %z : f32 to f32
        present = {
          ^bb0(%p: f32):
            %m = arith.mulf %x, %y : f32
            sparse_tensor.yield %m : f32
        }
        absent = {}
      %q = sparse_tensor.reduce %z, %u, %f0 : f32 {
        ^bb0(%l: f32, %rr: f32):
          %add = arith.addf %l, %rr : f32
          sparse_tensor.yield %add : f32
      }
      linalg.yield %q : f32
  } -> tensor<128x128xf32, #CSR>
  return %r : tensor<128x128xf32, #CSR>
}
