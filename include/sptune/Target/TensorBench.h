//===- TensorBench.h - A kernel's JIT bench on a 3-D tensor -----*- C++ -*-===//
//
// Part of sptune. What the CPU measurer compiles and feeds to time a kernel
// whose sparse operand is a 3-D tensor (Measurer::measureTensor,
// isMeasuredOnTensor), as BenchModule.h and BenchInputs.h do for the kernels
// of one sparse matrix:
//   - an MTTKRP, A(i, j) = sum over k, l of B(i, k, l) C(k, j) D(l, j), B the
//     tensor, j of the rank's size;
//   - a batched SpMM, C(b, i, j) = sum over k of A(b, i, k) B(b, k, j), A the
//     tensor (its first dimension the batches), j of N's size.
// The module holds
//   - `@kernel`, the kernel's descriptor written as linalg
//     (sptune/Target/KernelFunction.h) on the tensor's storage, the output a
//     fresh tensor filled with zeros (the form sptune's MTTKRP and batched
//     kernels compute);
//   - @sptune_time(pos, crd, vals, <dense inputs>, times) (the dense inputs
//     in the op's operand order): the tensor assembled as ordered COO from
//     its entries (crd an nnz x 3 array of structures) and converted to its
//     storage, not timed; each call of @kernel timed with rtclock, its fresh
//     output freed;
//   - @sptune_check(pos, crd, vals, <dense inputs>, out): one call, the
//     output written out and the fresh one freed;
// and the inputs are deterministic (denseInput of sptune/Matrix/Reference.h)
// with a double-precision reference and per-value error bounds.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGET_TENSORBENCH_H
#define SPTUNE_TARGET_TENSORBENCH_H

#include "sptune/Matrix/CooTensor.h"
#include "sptune/Matrix/Reference.h"
#include "sptune/Schedule/KernelDescriptor.h"
#include "sptune/Support/AlignedVector.h"
#include "sptune/Target/Measurer.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sptune {

/// The kernel `spec` names on a tensor of `dims` (spec.kernel an MTTKRP or
/// a batched SpMM): the user's op (spec.descriptor, its sparse operand's
/// loops sized to the tensor, the output's others to spec.free) when it is
/// one of that kind and of spec's float type, else the canonical one: an
/// MTTKRP of loops i, j, k, l, B(i, k, l) in CSF, C(k, j), D(l, j), A(i, j);
/// a batched SpMM of loops b, i, j, k, A(b, i, k) in dense batches of CSR
/// rows, B(b, k, j), C(b, i, j).
KernelDescriptor tensorBenchDescriptor(const KernelSpec &spec,
                                       const std::array<int64_t, 3> &dims);

/// The printed #sparse_tensor.encoding of the rank-3 sparse operand of `d`
/// (its levels in dimension order, its widths).
std::string tensorBenchEncoding(const KernelDescriptor &d);

/// The bench module (the file header) of `d`. Fails, saying why, when `d`
/// is not an MTTKRP or a batched SpMM of static sizes.
llvm::Expected<std::string> buildTensorBenchModule(const KernelDescriptor &d);

/// The inputs of a bench on the tensor `b` in the element type T.
template <typename T> struct TensorBenchInputs {
  /// The tensor's entries as ordered COO: positions [0, nnz], coordinates
  /// (three per entry), values.
  std::vector<int64_t> pos, crd;
  std::vector<T> vals;
  /// The dense inputs, on cache lines: an MTTKRP's C (dims[1] x rank) and D
  /// (dims[2] x rank); a batched SpMM's B (dims[0] x dims[2] x N).
  std::vector<AlignedVector<T>> dense;
  /// The output for @sptune_check to write: an MTTKRP's A (dims[0] x
  /// rank), a batched SpMM's C (dims[0] x dims[1] x N).
  AlignedVector<T> out;
  ReferenceResult reference;
};

/// Fills `in` for a kernel of type `kernel` (MTTKRP or BatchedSpMM) with
/// `free` columns (the rank, N) on `b` (canonical: sorted, no repeats). The
/// reference reads the tensor's values at T's precision.
template <typename T>
void prepareTensorBenchInputs(const CooTensor &b, KernelType kernel,
                              int64_t free, TensorBenchInputs<T> &in);

} // namespace sptune

#endif // SPTUNE_TARGET_TENSORBENCH_H
