// Bad pipeline options and missing CUDA tools give a clear error and a
// non-zero exit status.
//
// RUN: not sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm=format=ptx 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm=chip=gfx90a 2>&1 | FileCheck %s --check-prefix=CHIP
// An empty chip segfaulted upstream's NVVM target attribute (issue 13 probe).
// RUN: not sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm=chip= 2>&1 | FileCheck %s --check-prefix=NOCHIP
// RUN: not sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm=features=ptx80 2>&1 | FileCheck %s --check-prefix=FEATURES
// RUN: not sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm=threads=2048 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm=blocks=0 2>&1 | FileCheck %s --check-prefix=BLOCKS
// RUN: not sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm="format=bin cuda-path=%t.no-cuda" 2>&1 | FileCheck %s --check-prefix=NOPTXAS
// RUN: not sptune-opt %s --sptune-apply-schedule --sptune-lower-nvvm="format=fatbin cuda-path=%t.no-cuda" 2>&1 | FileCheck %s --check-prefix=NOFATBIN
//
// The cuSPARSE path compiles no device code, so it needs no ptxas even for
// format=bin:
// RUN: sed 's/nvvm spmm>/nvvm spmm, libgen = true>/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-nvvm="format=bin cuda-path=%t.no-cuda" | FileCheck %s --check-prefix=LIBGEN
//
// LIBGEN-NOT: gpu.binary
// LIBGEN:     llvm.call @mgpuSpMM(
//
// FORMAT:   error: sptune-nvvm-to-binary: unknown format 'ptx' (expected isa, bin or fatbin)
// CHIP:     error: sptune-lower-nvvm: unknown chip 'gfx90a' (expected sm_XY, e.g. sm_80, sm_90a)
// NOCHIP:   error: sptune-lower-nvvm: unknown chip '' (expected sm_XY, e.g. sm_80, sm_90a)
// FEATURES: error: sptune-nvvm-to-binary: unknown feature 'ptx80' (expected +ptxXY, e.g. +ptx80)
// THREADS:  error: sptune-nvvm-sparsify: threads must be -1 (from the schedules) or in [1, 1024], not 2048
// BLOCKS:   error: sptune-nvvm-launch-config: blocks must be -1 (cover the outer loop) or in [1, 2^31 - 1], not 0
// NOPTXAS:  error: sptune-nvvm-to-binary: format=bin needs ptxas from the CUDA toolkit; not found in {{.*}}.no-cuda/bin (set cuda-path=<toolkit root>, or use format=isa for PTX, which needs no CUDA)
// NOFATBIN: error: sptune-nvvm-to-binary: format=fatbin needs ptxas and fatbinary from the CUDA toolkit; not found in {{.*}}.no-cuda/bin

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spmm(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x8xf32>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %0 = linalg.matmul {
      sptune.kernel = #sptune.kernel<spmm, loops = [i : 64, j : 8, k : 64], operands = [sparse(i, k), dense(k, j), out(i, j)], type = f32, encoding = #CSR>,
      sptune.schedule = #sptune.schedule<nvvm spmm>}
    ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x8xf32>) outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}
