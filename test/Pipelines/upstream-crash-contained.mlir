// MLIR 22.1's sparsifier segfaults on this module: a spy kernel whose absent
// entries are filled, then a sampling of S by a sparse A (upstream
// `mlir-opt --sparsifier` crashes on it too). sptune's lowering contains the
// crash: a clear error and a non-zero exit, not a dead sptune-opt. (Both
// kernels are near misses that sptune does not schedule.)
//
// RUN: not sptune-opt %s --sptune-extract-kernels --sptune-lower-cpu --mlir-print-op-on-diagnostic=false -o %t 2>&1 | FileCheck %s
// CHECK: error: sptune-lower-cpu: sparsification crashed in upstream MLIR code (signal 11): MLIR 22.1 does not handle this input
// CHECK-NOT: Stack dump
// CHECK-NOT: PLEASE submit a bug report
//
// The same crash in upstream's own pipeline named on the command line
// (--sparsifier) killed sptune-opt with signal 11; it is now recovered: the
// frames, a message, exit status 1, and the output file removed.
//
// RUN: echo stale > %t.out
// RUN: not sptune-opt %s --sparsifier -o %t.out 2>&1 | FileCheck %s --check-prefix=CMDLINE
// RUN: not test -e %t.out
// CMDLINE: mlir::
// CMDLINE: sptune-opt: crashed (signal 11) while running the passes; the frames above show where (upstream MLIR {{[0-9.]+}} on input it does not handle, or a bug in sptune); nothing was written. --mlir-pass-pipeline-crash-reproducer=FILE saves the module and the pass that crashed
//
// With upstream's crash reproducer asked for, it names the pass and writes
// the module.
// RUN: not sptune-opt %s --sparsifier --mlir-pass-pipeline-crash-reproducer=%t.repro -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPRO
// RUN: grep -q 'pipeline: "builtin.module(.*sparsification-and-bufferization' %t.repro
// REPRO: Pipeline failed while executing [`SparsificationAndBufferization`

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#trait_SDDMM = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

func.func @spy_not_sampled(%args: tensor<?x?xf32, #CSR>, %arga: tensor<?x?xf32>,
                           %argb: tensor<?x?xf32>,
                           %sa: tensor<?x?xf32, #CSR>) -> tensor<?x?xf32, #CSR> {
  %one = arith.constant 1.0 : f32
  %0 = linalg.generic #trait_SDDMM
    ins(%arga, %argb : tensor<?x?xf32>, tensor<?x?xf32>)
    outs(%args : tensor<?x?xf32, #CSR>) {
      ^bb(%a: f32, %b: f32, %s: f32):
         %f0 = arith.constant 0.0 : f32
         %u = sparse_tensor.unary %s : f32 to f32
           present = {
              ^bb0(%p: f32):
                %mul = arith.mulf %a, %b : f32
                sparse_tensor.yield %mul : f32
           }
           absent = {
                sparse_tensor.yield %one : f32
           }
         %r = sparse_tensor.reduce %s, %u, %f0 : f32 {
            ^bb0(%p: f32, %q: f32):
              %add = arith.addf %p, %q : f32
              sparse_tensor.yield %add : f32
          }
         linalg.yield %r : f32
    } -> tensor<?x?xf32, #CSR>
  %1 = linalg.generic #trait_SDDMM
    ins(%sa, %argb : tensor<?x?xf32, #CSR>, tensor<?x?xf32>)
    outs(%0 : tensor<?x?xf32, #CSR>) {
      ^bb(%a: f32, %b: f32, %s: f32):
         %f0 = arith.constant 0.0 : f32
         %u = sparse_tensor.unary %s : f32 to f32
           present = {
              ^bb0(%p: f32):
                %mul = arith.mulf %a, %b : f32
                sparse_tensor.yield %mul : f32
           }
           absent = {}
         %r = sparse_tensor.reduce %s, %u, %f0 : f32 {
            ^bb0(%p: f32, %q: f32):
              %add = arith.addf %p, %q : f32
              sparse_tensor.yield %add : f32
          }
         linalg.yield %r : f32
    } -> tensor<?x?xf32, #CSR>
  return %1 : tensor<?x?xf32, #CSR>
}
