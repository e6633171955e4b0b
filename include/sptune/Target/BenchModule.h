//===- BenchModule.h - The IR a JIT measurer compiles -----------*- C++ -*-===//
//
// Part of sptune. The module the CPU and NVVM measurers build for one
// (kernel, shape, storage): `@kernel`, the kernel as a user writes it in
// linalg on a #sparse_tensor type, and drivers that assemble the CSR input,
// convert it to the kernel's storage (not timed), and time each kernel call
// with rtclock, threading the output through the calls in place:
//   @sptune_time(pos, crd, vals, dense inputs..., [out], times)
//   @sptune_check(pos, crd, vals, A, B, sum)     (SDDMM only: a checksum of
//                                                 the sparse result with the
//                                                 weights of Reference.h)
// Every entry point takes six memref descriptors (see JitBench.h).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGET_BENCHMODULE_H
#define SPTUNE_TARGET_BENCHMODULE_H

#include "sptune/Target/Measurer.h"

#include <string>

namespace sptune {

/// How the bench module writes SDDMM.
enum class SddmmForm {
  /// X = S .* (A B) into a fresh sparse X with S's storage (the CPU form:
  /// large matrices cannot have a dense X).
  SparseOutput,
  /// S = S + spy(S) * (A B) in place: the only form MLIR's sparse GPU code
  /// generation offloads and the one cuSPARSE computes. The measurer passes
  /// zero values, which makes it the sampled product on S's pattern.
  InPlace,
};

/// `encoding` is the printed #sparse_tensor.encoding `@kernel` is written
/// on: the scheduled storage (the driver converts the CSR input to it), or
/// CSR itself (then sptune-apply-schedule inserts the conversion inside
/// `@kernel`, as for a user's code). The sparse operand is rows x cols.
std::string buildBenchModule(const KernelSpec &spec, int64_t rows, int64_t cols,
                             const std::string &encoding, SddmmForm sddmm);

/// The printed CSR encoding of the assembled input.
const char *csrEncodingText();

} // namespace sptune

#endif // SPTUNE_TARGET_BENCHMODULE_H
