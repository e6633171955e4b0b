// Launch sizes: threads per block from each function's schedule (one module,
// two kernels, two thread counts), the grid covering the outer loop
// (ceil(N / threads), N a kernel argument when the size is dynamic), or the
// pipeline's overrides.
//
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm -o /dev/null --mlir-print-ir-after=sptune-nvvm-launch-config 2>&1 | FileCheck %s
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm="threads=32 blocks=7" -o /dev/null --mlir-print-ir-after=sptune-nvvm-launch-config 2>&1 | FileCheck %s --check-prefix=FIXED

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CHECK-LABEL: IR Dump After NvvmLaunchConfig
// CHECK:       func.func @rows_dynamic(
// CHECK-NOT:     sptune.schedule
// CHECK:         %[[COVER:.*]] = arith.ceildivui %[[N:.*]], %[[T:c256.*]] : index
// CHECK-NEXT:    %[[G1:.*]] = arith.maxui %[[COVER]], %[[ONE:c1.*]] : index
// CHECK-NEXT:    %[[G:.*]] = arith.minui %[[G1]], %c2147483647 : index
// CHECK-NEXT:    gpu.launch_func async @sparse_kernels::@kernel{{[0-9]}} blocks in (%[[G]], %{{.*}}, %{{.*}}) threads in (%[[T]], %c1, %c1) args(%{{.*}} : index, %[[N]] : index,
// CHECK:       func.func @rows_static(
// CHECK:         arith.ceildivui %c1000, %[[T2:c96.*]] : index
// CHECK:         gpu.launch_func async @sparse_kernels::@kernel{{[0-9]}} blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%[[T2]], %{{.*}}, %{{.*}})
//
// FIXED-LABEL: IR Dump After NvvmLaunchConfig
// FIXED:       func.func @rows_dynamic(
// FIXED:         gpu.launch_func async @sparse_kernels::@kernel{{[0-9]}} blocks in (%c7{{.*}}, %{{.*}}, %{{.*}}) threads in (%c32{{.*}}, %{{.*}}, %{{.*}})
// FIXED:       func.func @rows_static(
// FIXED:         gpu.launch_func async @sparse_kernels::@kernel{{[0-9]}} blocks in (%c7{{.*}}, %{{.*}}, %{{.*}}) threads in (%c32{{.*}}, %{{.*}}, %{{.*}})
func.func @rows_dynamic(%a: tensor<?x?xf32, #CSR>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : ?, j : ?, k : ?], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm, threads = 256>}
    ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @rows_static(%a: tensor<1000x500xf32, #CSR>, %b: tensor<500x8xf32>, %c: tensor<1000x8xf32>) -> tensor<1000x8xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 1000, j : 8, k : 500], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm, threads = 96>}
    ins(%a, %b : tensor<1000x500xf32, #CSR>, tensor<500x8xf32>) outs(%c : tensor<1000x8xf32>) -> tensor<1000x8xf32>
  return %0 : tensor<1000x8xf32>
}
