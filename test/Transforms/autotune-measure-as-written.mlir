// The kernel sptune-autotune measures is the op as written: the worker gets
// the op's descriptor and compiles that op, with inputs of its shapes and
// element type, checked against the reference of the same descriptor.
// Before, every measured op was timed as the canonical f32 form of its
// kernel. Here an f64 SDDMM that reads B through a transposition of its B^T
// input (how GNN code stores feature matrices: B^T supplied, the
// transposition timed with the kernel), and an SpMM that reads B(j, k), the
// transpose of the canonical B(k, j).
//
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=gen:uniform:rows=64,cols=48,nnz=300,seed=2 measure-top-k=1 measure-heuristic=false" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: sptune-autotune (heuristic, {{[0-9]+}} candidates ranked in {{.*}} ms, top 1 measured): chose cpu sddmm{{.*}}; ranking: #1 score {{[-0-9.e+]+}} measured {{[0-9.]+}} ms [{{.*}}]
// CHECK: remark: sptune-autotune (heuristic, {{[0-9]+}} candidates ranked in {{.*}} ms, top 1 measured): chose cpu spmm{{.*}}; ranking: #1 score {{[-0-9.e+]+}} measured {{[0-9.]+}} ms [{{.*}}]

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#sddmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

func.func @sddmm_f64_bt(%s: tensor<64x48xf64, #CSR>, %a: tensor<64x16xf64>, %bt: tensor<48x16xf64>) -> tensor<64x48xf64, #CSR> {
  %e = tensor.empty() : tensor<64x48xf64, #CSR>
  %be = tensor.empty() : tensor<16x48xf64>
  %b = linalg.transpose ins(%bt : tensor<48x16xf64>) outs(%be : tensor<16x48xf64>) permutation = [1, 0]
  %0 = linalg.generic #sddmm
    ins(%s, %a, %b : tensor<64x48xf64, #CSR>, tensor<64x16xf64>, tensor<16x48xf64>) outs(%e : tensor<64x48xf64, #CSR>) {
  ^bb0(%sv: f64, %av: f64, %bv: f64, %xv: f64):
    %p = arith.mulf %av, %bv : f64
    %q = arith.mulf %sv, %p : f64
    %r = arith.addf %xv, %q : f64
    linalg.yield %r : f64
  } -> tensor<64x48xf64, #CSR>
  return %0 : tensor<64x48xf64, #CSR>
}

func.func @spmm_reads_bt(%a: tensor<64x48xf32, #CSR>, %bt: tensor<16x48xf32>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %0 = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>,
                       affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%a, %bt : tensor<64x48xf32, #CSR>, tensor<16x48xf32>) outs(%c : tensor<64x16xf32>) {
  ^bb0(%av: f32, %bv: f32, %cv: f32):
    %p = arith.mulf %av, %bv : f32
    %r = arith.addf %cv, %p : f32
    linalg.yield %r : f32
  } -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}
