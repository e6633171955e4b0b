// sptune-lower-nvvm checks the shape of a file its host code reads with
// sparse_tensor.new, as sptune-lower-cpu does (sptune-check-sparse-reads;
// executed on the CPU path in test/Integration/cpu-sparse-read-shape.mlir):
// the runtime checks it with `assert` only, compiled out in release builds.
//
// RUN: sptune-opt %s --sptune-lower-nvvm | FileCheck %s
// RUN: sptune-opt %s --sptune-lower=target=nvvm | FileCheck %s
//
// CHECK-DAG: llvm.func {{.*}}@createCheckedSparseTensorReader(
// CHECK-DAG: llvm.func {{.*}}@getSparseTensorReaderDimSizes(
// CHECK-DAG: llvm.func @exit(i32)
// The message, "sptune: the file read by sparse_tensor.new at ...", as the
// bytes of a global string:
// CHECK-DAG: llvm.mlir.global private constant @vector_print_str(dense<"0x737074756E653A207468652066696C652072656164206279207370617273655F74656E736F722E6E6577206174
// CHECK-LABEL: llvm.func @main

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
module {
  func.func private @getTensorFilename(index) -> (!llvm.ptr)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %f = call @getTensorFilename(%c0) : (index) -> (!llvm.ptr)
    %a = sparse_tensor.new %f : !llvm.ptr to tensor<4x4xf64, #CSR>
    %n = sparse_tensor.number_of_entries %a : tensor<4x4xf64, #CSR>
    vector.print %n : index
    bufferization.dealloc_tensor %a : tensor<4x4xf64, #CSR>
    return
  }
}
