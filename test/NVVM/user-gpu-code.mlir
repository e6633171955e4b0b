// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm -o /dev/null --mlir-print-ir-after=sptune-nvvm-launch-config 2>&1 | FileCheck %s

// A module with the user's own GPU code next to a sparse kernel: the
// copy-back and launch-configuration passes act on the kernel sptune
// outlined only. The user's launches keep their chains and grids (an
// asynchronous chain used to be refused as "not the alloc/copy/launch/free
// chain of sparse-gpu-codegen", a synchronous one warned "not a grid-stride
// loop"), and the marker of outlined kernels is gone afterwards.

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

module attributes {gpu.container_module} {
  gpu.module @mykern {
    gpu.func @fill(%a: memref<16xf32>) kernel {
      %t = gpu.thread_id x
      %c = arith.constant 1.0 : f32
      memref.store %c, %a[%t] : memref<16xf32>
      gpu.return
    }
  }

  // CHECK-LABEL: func.func @sync_launch(
  // CHECK:         %[[ONE:.*]] = arith.constant 1 : index
  // CHECK:         %[[SIXTEEN:.*]] = arith.constant 16 : index
  // CHECK:         gpu.launch_func @mykern::@fill blocks in (%[[ONE]], %[[ONE]], %[[ONE]]) threads in (%[[SIXTEEN]], %[[ONE]], %[[ONE]])
  func.func @sync_launch(%a: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch_func @mykern::@fill blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%a : memref<16xf32>)
    return
  }

  // CHECK-LABEL: func.func @async_chain(
  // CHECK:         gpu.memcpy async
  // CHECK:         %[[DONE:.*]] = gpu.launch_func async [{{.*}}] @mykern::@fill blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in
  // CHECK-NEXT:    gpu.dealloc async [%[[DONE]]]
  // CHECK-NOT:     gpu.memcpy
  // CHECK:         return
  func.func @async_chain(%a: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %w = gpu.wait async
    %d, %t1 = gpu.alloc async [%w] () : memref<16xf32>
    %t2 = gpu.memcpy async [%t1] %d, %a : memref<16xf32>, memref<16xf32>
    %t3 = gpu.launch_func async [%t2] @mykern::@fill blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%d : memref<16xf32>)
    %t4 = gpu.dealloc async [%t3] %d : memref<16xf32>
    gpu.wait [%t4]
    return
  }

  // The sparse kernel is outlined (upstream puts it in the first gpu.module)
  // and sized from its schedule: 64 threads, ceil(rows / 64) blocks.
  // CHECK-LABEL: func.func @spmm(
  // CHECK:         %[[GRID:.*]] = arith.minui
  // CHECK:         gpu.launch_func async @mykern::@kernel0 blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%c64{{[_0-9]*}},
  func.func @spmm(%a: tensor<1000x1000xf64, #CSR>, %b: tensor<1000x16xf64>, %c: tensor<1000x16xf64>) -> tensor<1000x16xf64> {
    %0 = linalg.matmul {
        sptune.kernel = #sptune.kernel<spmm, loops = [i : 1000, j : 16, k : 1000], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f64, encoding = #CSR>,
        sptune.schedule = #sptune.schedule<nvvm spmm, threads = 64>}
      ins(%a, %b : tensor<1000x1000xf64, #CSR>, tensor<1000x16xf64>) outs(%c : tensor<1000x16xf64>) -> tensor<1000x16xf64>
    return %0 : tensor<1000x16xf64>
  }
}
// CHECK-NOT: sptune.outlined
