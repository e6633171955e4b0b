// Where sptune-autotune takes a kernel's matrix from (issue 33): the pass
// option matrix= (every kernel) or a `sptune.matrix` attribute on the
// argument the kernel reads (that kernel). Each deciding remark carries a
// note naming the matrix and where it was named; the option and an attribute
// that name different matrices are an error (neither silently wins), the
// same matrix spelled twice is not; an attribute naming a missing file is an
// error; a shape mismatch of an operand used transposed gives both shapes in
// the operand's own orientation.
//
// The option alone (the attribute removed; @spmv's sizes are dynamic):
// RUN: sed 's/ {sptune.matrix = [^}]*}//' %s | sptune-opt --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=gen:block:rows=256,cols=256,nnz=2048,bs=4,seed=3" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: remark: sptune-autotune (heuristic, {{.*}}): chose cpu spmm
// OPTION: note: tuned for the matrix 'gen:block:rows=256,cols=256,nnz=2048,bs=4,seed=3', from the pass option matrix={{$}}
// OPTION: remark: sptune-autotune (heuristic, {{.*}}): chose cpu spmv
// OPTION: note: tuned for the matrix 'gen:block:rows=256,cols=256,nnz=2048,bs=4,seed=3', from the pass option matrix={{$}}
//
// The attribute alone (@spmm has none: the heuristic schedule).
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=ATTR
// ATTR: remark: sptune-autotune: no matrix for this kernel
// ATTR: remark: sptune-autotune (heuristic, {{.*}}): chose cpu spmv
// ATTR: note: tuned for the matrix 'gen:rmat:rows=512,cols=512,nnz=3000,seed=2', from the 'sptune.matrix' attribute of argument #0 of @spmv{{$}}
//
// The option and @spmv's attribute naming the same matrix (another spelling
// of the spec): accepted.
// RUN: sed 's/"gen:rmat:rows=512,cols=512,nnz=3000,seed=2"/"gen:rmat:rows=512,nnz=3000,seed=2,a=0.57"/; /^func.func @spmm/,/^}/d' %s | sptune-opt --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=gen:rmat:rows=512,cols=512,nnz=3000,seed=2" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=SAME
// SAME: remark: sptune-autotune (heuristic, {{.*}}): chose cpu spmv
// SAME: note: tuned for the matrix 'gen:rmat:rows=512,nnz=3000,seed=2,a=0.57', from the 'sptune.matrix' attribute of argument #0 of @spmv and the pass option matrix=
//
// Different matrices: an error on @spmv (@spmm removed: its static shape
// would fail first).
// RUN: sed '/^func.func @spmm/,/^}/d' %s | not sptune-opt --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=gen:rmat:rows=512,cols=512,nnz=3000,seed=9" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=DISAGREE
// DISAGREE: error: sptune-autotune: the pass option matrix='gen:rmat:rows=512,cols=512,nnz=3000,seed=9' and the 'sptune.matrix' attribute of argument #0 of @spmv ('gen:rmat:rows=512,cols=512,nnz=3000,seed=2') name different matrices; give one of them
//
// An attribute naming a missing file.
// RUN: sed 's|"gen:rmat:rows=512,cols=512,nnz=3000,seed=2"|"%t.missing.mtx"|' %s | not sptune-opt --sptune-extract-kernels --sptune-autotune="mode=heuristic" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: sptune-autotune: the matrix of the 'sptune.matrix' attribute of argument #0 of @spmv: {{.*}}missing.mtx
//
// Dense x sparse (the sparse operand used transposed): the file is 200 x 100,
// the operand 100 x 200, said in that order.
// RUN: not sptune-opt %S/Inputs/dense-times-sparse.mlir --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=gen:uniform:rows=200,cols=100,nnz=300" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=TSHAPE
// TSHAPE: error: sptune-autotune: matrix 'gen:uniform:rows=200,cols=100,nnz=300' (the pass option matrix=) is 200x100 but the kernel's sparse operand is 100x200

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmm(%a: tensor<256x256xf32, #CSR>, %b: tensor<256x32xf32>, %c: tensor<256x32xf32>) -> tensor<256x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<256x256xf32, #CSR>, tensor<256x32xf32>) outs(%c : tensor<256x32xf32>) -> tensor<256x32xf32>
  return %0 : tensor<256x32xf32>
}

func.func @spmv(%a: tensor<?x?xf64, #CSR> {sptune.matrix = "gen:rmat:rows=512,cols=512,nnz=3000,seed=2"},
                %x: tensor<?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
  %0 = linalg.matvec ins(%a, %x : tensor<?x?xf64, #CSR>, tensor<?xf64>) outs(%y : tensor<?xf64>) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}
