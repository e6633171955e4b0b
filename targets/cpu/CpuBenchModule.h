//===- CpuBenchModule.h - The IR the CPU measurer compiles ------*- C++ -*-===//
//
// Part of sptune. The module the CPU measurer JIT-compiles for one (kernel,
// shape, storage): `@kernel`, the kernel as a user writes it in linalg on the
// scheduled #sparse_tensor type, and drivers that assemble the CSR input,
// convert it to the scheduled storage (not timed), and time each kernel call
// with rtclock:
//   @sptune_time(pos, crd, vals, dense inputs..., [out], times)
//   @sptune_check(pos, crd, vals, A, B, sum)     (SDDMM only: a checksum of
//                                                 the sparse result)
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_CPUBENCHMODULE_H
#define SPTUNE_TARGETS_CPU_CPUBENCHMODULE_H

#include "sptune/Target/Measurer.h"

#include <string>

namespace sptune {

/// `encoding` is the printed #sparse_tensor.encoding of the kernel's sparse
/// operand (the scheduled storage, or CSR for the upstream default).
/// SDDMM is written as X = S .* (A * B) with X sparse, sharing S's storage.
std::string buildCpuBenchModule(const KernelSpec &spec, int64_t rows,
                                int64_t cols, const std::string &encoding);

/// The printed CSR encoding used for the assembled input.
const char *csrEncodingText();

} // namespace sptune

#endif // SPTUNE_TARGETS_CPU_CPUBENCHMODULE_H
