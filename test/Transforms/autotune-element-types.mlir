// Kernels on f16 / bf16 / i8 values are tuned for the CPU; SPADE's machine
// and the NVVM measurer take 32- and 64-bit elements only, so there such a
// kernel is left unscheduled with a remark (not refused, not emitted with
// the wrong element size).
//
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="target=spade mode=heuristic matrix=gen:uniform:rows=64,cols=64,nnz=300,seed=4" --mlir-print-op-on-diagnostic=false -verify-diagnostics=only-expected -split-input-file -o /dev/null
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule="target=nvvm" --mlir-print-op-on-diagnostic=false 2>&1 -split-input-file | FileCheck %s --check-prefix=NVVM
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen:uniform:rows=64,cols=64,nnz=300,seed=4" -split-input-file 2>/dev/null | FileCheck %s --check-prefix=CPU
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen:uniform:rows=64,cols=64,nnz=300,seed=4 measure-top-k=1" --mlir-print-op-on-diagnostic=false -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=MEASURED
//
// MEASURED: top 1 {{.*}}measured): chose cpu spmm, {{.*}}; the bf16 kernel was timed in its f32 form
// MEASURED: top 1 {{.*}}measured): chose cpu spmm, {{.*}}; the i8 kernel was timed in its f32 form
// NVVM: remark: sptune-default-schedule: left unscheduled: the nvvm target measures 32- and 64-bit element types, not bf16
// NVVM: remark: sptune-default-schedule: left unscheduled: the nvvm target measures 32- and 64-bit element types, not i8
// NVVM-NOT: sptune.schedule =
// CPU: type = bf16, {{.*}}sptune.schedule = #sptune.schedule<cpu spmm,
// CPU: type = i8, {{.*}}sptune.schedule = #sptune.schedule<cpu spmm,

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmm_bf16(%a: tensor<64x64xbf16, #CSR>, %b: tensor<64x16xbf16>, %c: tensor<64x16xbf16>) -> tensor<64x16xbf16> {
  // expected-remark @below {{sptune-autotune: left unscheduled: SPADE's machine holds 32- or 64-bit elements, not bf16}}
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xbf16, #CSR>, tensor<64x16xbf16>) outs(%c : tensor<64x16xbf16>) -> tensor<64x16xbf16>
  return %0 : tensor<64x16xbf16>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmm_i8(%a: tensor<64x64xi8, #CSR>, %b: tensor<64x16xi8>, %c: tensor<64x16xi8>) -> tensor<64x16xi8> {
  // expected-remark @below {{sptune-autotune: left unscheduled: SPADE's machine holds 32- or 64-bit elements, not i8}}
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xi8, #CSR>, tensor<64x16xi8>) outs(%c : tensor<64x16xi8>) -> tensor<64x16xi8>
  return %0 : tensor<64x16xi8>
}
