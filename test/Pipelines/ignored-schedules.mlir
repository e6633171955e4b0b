// A schedule the lowering would silently ignore is an error (issue 13
// probe: each of these exited 0 with the kernel lowered as if unscheduled,
// or not lowered for its target at all): a schedule sptune-apply-schedule has
// not applied, and an NVVM or SPADE schedule given to the CPU lowering.
//
// RUN: not sptune-opt %s --sptune-lower-cpu 2>&1 | FileCheck %s --check-prefix=UNAPPLIED
// RUN: not sptune-opt %s --sptune-cpu-sparsify 2>&1 | FileCheck %s --check-prefix=UNAPPLIED
// UNAPPLIED: error: sptune: this kernel's schedule was not applied; run sptune-apply-schedule before lowering
//
// RUN: sed 's/cpu spmm, parallel = outer/nvvm spmm, threads = 256/' %s | not sptune-opt --sptune-lower-nvvm 2>&1 | FileCheck %s --check-prefix=UNAPPLIED
//
// RUN: sed 's/cpu spmm, parallel = outer/nvvm spmm, threads = 256/' %s | not sptune-opt --sptune-apply-schedule --sptune-lower-cpu 2>&1 | FileCheck %s --check-prefix=NVVM
// NVVM: error: sptune: the cpu target cannot run this schedule: 'nvvm' schedule given to the cpu target (lower it with sptune-lower-nvvm)
//
// RUN: sed 's/cpu spmm, parallel = outer/spade spmm, split = [8, 8]/' %s | not sptune-opt --sptune-lower-cpu 2>&1 | FileCheck %s --check-prefix=SPADE
// SPADE: error: sptune: the cpu target cannot run this schedule: 'spade' schedule given to the cpu target (lower it with sptune-emit-spade)
//
// Applied, the CPU schedule lowers.
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-cpu -o /dev/null

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

#spmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

func.func @spmm(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.generic #spmm {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 64, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<cpu spmm, parallel = outer>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
