// The kernel sptune-autotune measures is the op as written: this f64 SDDMM,
// which reads B through a transposition of its B^T input (how GNN code
// stores feature matrices), is compiled by the measuring worker in f64 with
// B^T supplied and the transposition timed with it (before, every measured
// op was timed as an f32 kernel on B), and checked against the reference.
//
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic matrix=gen:uniform:rows=64,cols=48,nnz=300,seed=2 measure-top-k=1 measure-heuristic=false" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: sptune-autotune (heuristic, {{[0-9]+}} candidates ranked in {{.*}} ms, top 1 measured): chose {{.*}}; ranking: #1 score {{[-0-9.e+]+}} measured {{[0-9.]+}} ms [{{.*}}]

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
