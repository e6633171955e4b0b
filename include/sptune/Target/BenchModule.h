//===- BenchModule.h - The IR a JIT measurer compiles -----------*- C++ -*-===//
//
// Part of sptune. The module the CPU and NVVM measurers compile for one
// kernel: `@kernel`, the kernel's descriptor written as linalg on a
// #sparse_tensor type (sptune/Target/KernelFunction.h), and drivers derived
// from the same descriptor that assemble the CSR input, convert it to the
// kernel's storage (not timed), and time each kernel call with rtclock,
// threading a dense or in-place output through the calls:
//   @sptune_time(pos, crd, vals, dense inputs..., [dense output], times)
//   @sptune_check(pos, crd, vals, dense inputs..., sum)
//       (a sparse output only: a checksum of the result with the weights of
//        Reference.h)
// Dense operands are passed in operand order, transposed inputs as their
// transposes. No measurement IR is written per kernel: a descriptor the
// matcher reads from a user's op is measured as that op.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGET_BENCHMODULE_H
#define SPTUNE_TARGET_BENCHMODULE_H

#include "sptune/Schedule/KernelDescriptor.h"
#include "sptune/Target/Measurer.h"

#include "llvm/Support/Error.h"

#include <set>
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

/// The kernel `spec` names, on a rows x cols sparse operand, as a descriptor
/// with static sizes: SpMM C(i,j) += A(i,k) B(k,j); SpMV y(i) += A(i,j) x(j);
/// SDDMM X(i,j) = S(i,j) * A(i,k) B(k,j) into a fresh X, or in place on S.
/// spec.descriptor (the user's op) instead, sized to the matrix and free
/// size, when it is written in `sddmm`'s form (the in-place sampled body
/// for InPlace, any other for SparseOutput) on spec's float type.
KernelDescriptor benchDescriptor(const KernelSpec &spec, int64_t rows,
                                 int64_t cols, SddmmForm sddmm);

/// The inputs of benchDescriptor(spec, ...) supplied transposed: SDDMM's B
/// (the rank-2 dense input read as (reduction, column)) when
/// spec.transposedB (sparse-output form only).
std::set<unsigned> benchTransposedInputs(const KernelSpec &spec,
                                         SddmmForm sddmm);

/// The bench module of `d`, whose one sparse shape (every sparse operand is
/// rank 2 and has it) is rows x cols. `encoding` is the printed
/// #sparse_tensor.encoding `@kernel` is written on: the scheduled storage
/// (the driver converts the CSR input to it), or CSR itself (then
/// sptune-apply-schedule inserts the conversion inside `@kernel`, as for a
/// user's code). Fails, saying why, on a descriptor it cannot write.
llvm::Expected<std::string>
buildBenchModule(const KernelDescriptor &d, const std::string &encoding,
                 const std::set<unsigned> &transposedInputs = {});

/// buildBenchModule of benchDescriptor(spec, rows, cols, sddmm).
llvm::Expected<std::string> buildBenchModule(const KernelSpec &spec,
                                             int64_t rows, int64_t cols,
                                             const std::string &encoding,
                                             SddmmForm sddmm);

/// The printed CSR encoding of the assembled input.
const char *csrEncodingText();

} // namespace sptune

#endif // SPTUNE_TARGET_BENCHMODULE_H
