// sptune-emit-spade writes a tile program per SPADE-scheduled kernel; the
// simulator runs it with a matrix of the kernel's shape and checks the
// numbers.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: sptune-opt %s --sptune-emit-spade=output-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PROGRAM < %t/spmm.0.spade
// RUN: spade-sim "gen:rmat:rows=512,cols=512,nnz=4000,seed=4" --program=%t/spmm.0.spade --functional | FileCheck %s --check-prefix=SIM
// RUN: spade-sim "gen:uniform:rows=512,cols=256,nnz=3000,seed=5" --program=%t/sddmm.0.spade --functional | FileCheck %s --check-prefix=SIM
// RUN: not spade-sim "gen:uniform:rows=100,cols=100,nnz=300,seed=5" --program=%t/spmm.0.spade 2>&1 | FileCheck %s --check-prefix=SHAPE

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CHECK-LABEL: func.func @spmm
// CHECK: sptune.spade_program = "{{.*}}spmm.0.spade"
func.func @spmm(%a: tensor<512x512xf32, #CSR>, %b: tensor<512x64xf32>, %c: tensor<512x64xf32>) -> tensor<512x64xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 512, j : 64, k : 512], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<spade spmm, split = [32, 256], barrier = true, bypass = [sparse], reorder = length>}
    ins(%a, %b : tensor<512x512xf32, #CSR>, tensor<512x64xf32>) outs(%c : tensor<512x64xf32>) -> tensor<512x64xf32>
  return %0 : tensor<512x64xf32>
}

#sddmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

// CHECK-LABEL: func.func @sddmm
// CHECK: sptune.spade_program = "{{.*}}sddmm.0.spade"
func.func @sddmm(%s: tensor<512x256xf32, #CSR>, %a: tensor<512x32xf32>, %b: tensor<32x256xf32>, %x: tensor<512x256xf32>) -> tensor<512x256xf32> {
  %0 = linalg.generic #sddmm {
      sptune.kernel = #sptune.kernel<sddmm, loops = [i : 512, j : 256, k : 32], operands = [sparse(i, j), dense(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<spade sddmm, split = [256, 1]>}
    ins(%s, %a, %b : tensor<512x256xf32, #CSR>, tensor<512x32xf32>, tensor<32x256xf32>) outs(%x : tensor<512x256xf32>) {
  ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
    %p = arith.mulf %av, %bv : f32
    %q = arith.mulf %sv, %p : f32
    %r = arith.addf %xv, %q : f32
    linalg.yield %r : f32
  } -> tensor<512x256xf32>
  return %0 : tensor<512x256xf32>
}

// Kernels with CPU schedules, or none, are left alone.
// CHECK-LABEL: func.func @cpu
// CHECK-NOT: spade_program
func.func @cpu(%a: tensor<512x512xf32, #CSR>, %b: tensor<512x64xf32>, %c: tensor<512x64xf32>) -> tensor<512x64xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 512, j : 64, k : 512], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm>}
    ins(%a, %b : tensor<512x512xf32, #CSR>, tensor<512x64xf32>) outs(%c : tensor<512x64xf32>) -> tensor<512x64xf32>
  return %0 : tensor<512x64xf32>
}

// PROGRAM: spmm
// PROGRAM: barrier
// SIM: cycles
// SHAPE: error: the program was built for a 512 x 512 operand, the matrix is 100 x 100
