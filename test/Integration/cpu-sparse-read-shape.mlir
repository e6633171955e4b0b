// A sparse_tensor.new of a static tensor type trusts the file's shape: the
// sparse runtime checks it with `assert` only (compiled out in release
// builds), and the lowered code read a 60x60 file into a 4x4 tensor out of
// bounds (a segfault, or silently wrong data; issue 35). sptune-lower-cpu
// checks the file's header first (sptune-check-sparse-reads): a file of
// another shape ends the program with a message and exit status 1.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf '%%%%%%%%MatrixMarket matrix coordinate real general\n4 4 2\n1 1 1.0\n4 4 2.0\n' > %t/m4.mtx
// RUN: printf '%%%%%%%%MatrixMarket matrix coordinate real general\n60 60 3\n1 1 1.0\n30 30 2.0\n60 60 3.0\n' > %t/m60.mtx
// RUN: printf '%%%%%%%%MatrixMarket matrix coordinate real general\n3 4 1\n1 1 1.0\n' > %t/m34.mtx
// RUN: sptune-opt %s --sptune-check-sparse-reads | FileCheck %s --check-prefix=IR
// RUN: sptune-opt %s --sptune-lower-cpu -o %t/low.mlir
// RUN: env TENSOR0=%t/m4.mtx mlir-runner %t/low.mlir -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils | FileCheck %s --check-prefix=GOOD
// RUN: env TENSOR0=%t/m60.mtx not mlir-runner %t/low.mlir -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils | FileCheck %s --check-prefix=BAD
// RUN: env TENSOR0=%t/m34.mtx not mlir-runner %t/low.mlir -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils | FileCheck %s --check-prefix=BAD
//
// Only the static sizes are checked: a 60x4 file into tensor<?x4xf64>.
// RUN: printf '%%%%%%%%MatrixMarket matrix coordinate real general\n60 4 1\n60 4 5.0\n' > %t/m604.mtx
// RUN: sed 's/tensor<4x4xf64/tensor<?x4xf64/g' %s | sptune-opt --sptune-lower-cpu -o %t/dyn.mlir
// RUN: env TENSOR0=%t/m604.mtx mlir-runner %t/dyn.mlir -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils | FileCheck %s --check-prefix=DYN
// RUN: env TENSOR0=%t/m60.mtx not mlir-runner %t/dyn.mlir -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils | FileCheck %s --check-prefix=BADDYN
//
// IR:      call @createCheckedSparseTensorReader
// IR:      call @getSparseTensorReaderDimSizes
// IR:      call @delSparseTensorReader
// IR:      scf.if
// IR:        vector.print str "sptune: the file read by sparse_tensor.new at {{.*}}cpu-sparse-read-shape.mlir:{{[0-9]+}} does not have the shape 4x4 of its tensor type
// IR:        call @exit
// IR:      sparse_tensor.new
// GOOD:    2
// BAD:     sptune: the file read by sparse_tensor.new at {{.*}} does not have the shape 4x4 of its tensor type
// BAD-NOT: {{^[0-9]}}
// DYN:     1
// BADDYN:  does not have the shape ?x4 of its tensor type

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
