// SDDMM through MLIR's sparse GPU code generation, in the in-place ("spy")
// form S = S + spy(S) * (A B), the form the sparsifier parallelizes: the row
// loop becomes kernel0, the values of S are updated on the device and copied
// back (sptune-nvvm-copy-back; upstream would copy back the positions).
//
// RUN: sed 's/WIDTHS/64, 64/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm | FileCheck %s
// RUN: sed 's/WIDTHS/32, 32/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm | FileCheck %s
// RUN: sed 's/WIDTHS/32, 32/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR
// RUN: sed 's/WIDTHS/64, 64/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm -o /dev/null \
// RUN:   --mlir-print-ir-after=sptune-nvvm-copy-back 2>&1 | FileCheck %s --check-prefix=COPY

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#spy = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// CHECK-NOT:   sptune
// CHECK:       gpu.binary @sparse_kernels [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">
// CHECK-SAME:    .target sm_90
// CHECK-SAME:    .visible .entry kernel0(
// CHECK-SAME:    mul.rn.f32
// CHECK-SAME:    add.rn.f32
// CHECK-SAME:    st.global.b32
// CHECK-LABEL: llvm.func @sddmm
// CHECK:       gpu.launch_func <%{{.*}} : !llvm.ptr> @sparse_kernels::@kernel0
// CHECK-NOT:   sptune
//
// LLVMIR-LABEL: define {{.*}} @sddmm(
// LLVMIR:       call void @mgpuLaunchKernel(ptr %{{.*}}, i64 4, i64 1, i64 1, i64 256, i64 1, i64 1, i32 0,
//
// The values (the only buffer kernel0 writes) come back to the host buffer
// they were uploaded from; the free of each other buffer waits for the
// kernel.
//
// COPY-LABEL: IR Dump After NvvmCopyBack
// COPY:       %[[VALS:.*]] = memref.subview %{{.*}}[0] [%{{.*}}] [1] : memref<?xf32> to memref<?xf32>
// COPY:       %[[DV:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] (%{{.*}}) : memref<?xf32>
// COPY:       gpu.memcpy async [%{{.*}}] %[[DV]], %[[VALS]] : memref<?xf32>, memref<?xf32>
// COPY:       %[[K:.*]] = gpu.launch_func async @sparse_kernels::@kernel0
// COPY:       %[[F0:.*]] = gpu.dealloc async [%[[K]]] %{{.*}} : memref<?xindex>
// COPY:       %[[W1:.*]] = gpu.wait async [%[[K]]]
// COPY:       %[[F1:.*]] = gpu.dealloc async [%[[W1]]] %{{.*}} : memref<?xindex>
// COPY:       %[[W2:.*]] = gpu.wait async [%[[K]]]
// COPY:       %[[C:.*]] = gpu.memcpy async [%[[W2]]] %[[VALS]], %[[DV]] : memref<?xf32>, memref<?xf32>
// COPY:       %[[F2:.*]] = gpu.dealloc async [%[[C]]] %[[DV]] : memref<?xf32>
// COPY:       %[[W3:.*]] = gpu.wait async [%[[K]]]
// COPY:       %[[F3:.*]] = gpu.dealloc async [%[[W3]]] %{{.*}} : memref<1024x32xf32>
// COPY:       %[[W4:.*]] = gpu.wait async [%[[K]]]
// COPY:       %[[F4:.*]] = gpu.dealloc async [%[[W4]]] %{{.*}} : memref<32x1024xf32>
// COPY:       gpu.wait [%[[F0]], %[[F1]], %[[F2]], %[[F3]], %[[F4]]]
func.func @sddmm(%s: tensor<1024x1024xf32, #CSR>, %a: tensor<1024x32xf32>, %b: tensor<32x1024xf32>) -> tensor<1024x1024xf32, #CSR> {
  %r = linalg.generic #spy ins(%a, %b : tensor<1024x32xf32>, tensor<32x1024xf32>) outs(%s : tensor<1024x1024xf32, #CSR>)
      attrs = {sptune.kernel = #sptune.kernel<sddmm, loops = [i : 1024, j : 1024, k : 32], operands = [dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>,
               sptune.schedule = #sptune.schedule<nvvm sddmm, order = [i, k, j], widths = [WIDTHS], threads = 256>} {
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
  } -> tensor<1024x1024xf32, #CSR>
  return %r : tensor<1024x1024xf32, #CSR>
}
