// sptune-lower runs the lowering the schedules' target registered: the CPU
// kernel below is lowered as by sptune-lower-cpu, the SPADE one gets its
// program emitted as by sptune-emit-spade, and target= lowers a module
// without schedules.
//
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower > %t.generic
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-cpu > %t.cpu
// RUN: diff %t.generic %t.cpu
// RUN: FileCheck %s < %t.generic
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower=target=cpu | diff - %t.cpu
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: cd %t.dir && sptune-opt %S/Inputs/spade-spmm.mlir --sptune-lower | FileCheck %s --check-prefix=SPADE
// RUN: ls %t.dir | FileCheck %s --check-prefix=FILES
//
// RUN: not sptune-opt %s --sptune-lower=target=spade 2>&1 | FileCheck %s --check-prefix=DISAGREE
// RUN: printf 'func.func @f(%%%%x: f32) -> f32 {\n  return %%%%x : f32\n}\n' > %t.plain.mlir
// RUN: sptune-opt %t.plain.mlir --sptune-lower=target=cpu | FileCheck %s --check-prefix=PLAIN

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CHECK-NOT: sptune
// CHECK-LABEL: llvm.func @spmm
// CHECK: omp.parallel
// CHECK: vector<8xf32>
//
// SPADE: sptune.spade_program = "{{.*}}spmm.0.spade"
// FILES: spmm.0.spade
//
// DISAGREE: sptune-lower: target 'spade' but the module's schedules are for 'cpu'
// PLAIN: llvm.func @f(%{{.*}}: f32) -> f32
func.func @spmm(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer, threads = 2, omp = dynamic, chunk = 16, vl = 8>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
