//===- TorchBaseline.h - PyTorch's sparse CPU ops ---------------*- C++ -*-===//
//
// Part of sptune. The `torch` baseline: what a PyTorch user gets from its
// sparse CSR tensors on the CPU, called through LibTorch (Debian's
// libtorch-dev, the library the cost model uses), measured like the JIT
// kernels: same inputs (denseInput), same result check against the
// double-precision reference, same repetition policy.
//   SpMM  C += A B      at::addmm_out(C, C, A_csr, B), B cols x N, C in place
//                       (the Eigen and reference baselines accumulate in
//                       place too);
//   SpMV  y += A x      the same with x as a cols x 1 matrix: torch.mv on a
//                       CSR tensor needs a LibTorch built with MKL, which
//                       Debian's is not;
//   SDDMM X = S .* (A B)  at::sparse_sampled_addmm(S, A, B, beta=0, alpha=1)
//                       (torch.sparse.sampled_addmm), which gives
//                       spy(S) .* (A B), then X.values() *= S.values(); both
//                       steps are timed.
// Threads: LibTorch's intra-op count is set to OpenMP's default
// (omp_get_max_threads(), what the reference baseline and the JIT'd
// kernels use), not LibTorch's own default (the physical cores it detects).
//
// LibTorch throws: every call runs inside try/catch and an exception becomes
// a Measurement with status `error` and the message. Limits (TorchBaseline.cpp):
// one call over kTorchCallCapSeconds is reported alone (reps = 1); LibTorch
// 1.13 without MKL computes sampled_addmm through the dense rows x cols
// product, so an SDDMM whose dense buffers would not fit the memory limit is
// not run (status `error`, the sizes in the reason).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_TORCHBASELINE_H
#define SPTUNE_TARGETS_CPU_TORCHBASELINE_H

#include "sptune/Target/Measurer.h"

namespace sptune {

Measurement measureTorch(const CsrMatrix &matrix, const KernelSpec &spec,
                         const MeasureOptions &options);

} // namespace sptune

#endif // SPTUNE_TARGETS_CPU_TORCHBASELINE_H
