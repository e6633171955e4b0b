//===- NvvmBenchModule.h - The IR the GPU measurer compiles -----*- C++ -*-===//
//
// Part of sptune. The module the NVVM measurer lowers with
// sptune-lower-nvvm and JIT-compiles for one (kernel, shape, storage):
// `@kernel`, the kernel as a user writes it in linalg on the scheduled
// #sparse_tensor type, and host drivers that assemble the CSR input, convert
// it to the scheduled storage (not timed) and time each kernel call with
// rtclock (end to end: the uploads, the launch or the cuSPARSE call, the
// download; the runtime's profiler gives the device time apart):
//   @sptune_time(pos, crd, vals, dense inputs..., [out], times)
//   @sptune_check(pos, crd, vals, A, B, sum)     (SDDMM only)
//
// SDDMM is written in the in-place ("spy") form S = S + spy(S) * (A B), the
// only form MLIR's sparse GPU code generation offloads and the one
// cuSPARSE's SDDMM computes; with S's values zero it is the sampled product
// (A B) restricted to S's pattern, which @sptune_check sums with the weights
// of sptune/Matrix/Reference.h.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_NVVM_NVVMBENCHMODULE_H
#define SPTUNE_TARGETS_NVVM_NVVMBENCHMODULE_H

#include "sptune/Target/Measurer.h"

#include <string>

namespace sptune {

/// `encoding` is the printed #sparse_tensor.encoding of the kernel's sparse
/// operand (the scheduled storage). The sparse operand is rows x cols.
std::string buildNvvmBenchModule(const KernelSpec &spec, int64_t rows,
                                 int64_t cols, const std::string &encoding);

/// The printed CSR encoding of the assembled input.
const char *nvvmCsrEncodingText();

} // namespace sptune

#endif // SPTUNE_TARGETS_NVVM_NVVMBENCHMODULE_H
