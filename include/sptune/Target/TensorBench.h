//===- TensorBench.h - The JIT bench of a kernel on a 3-D tensor -*- C++ -*-===//
//
// Part of sptune. What the CPU measurer compiles and feeds to time an MTTKRP,
// A(i, j) = sum over k, l of B(i, k, l) C(k, j) D(l, j), on a 3-D tensor
// (Measurer::measureTensor), as BenchModule.h and BenchInputs.h do for the
// kernels of one sparse matrix:
//   - `@kernel`, the MTTKRP's descriptor written as linalg
//     (sptune/Target/KernelFunction.h) on B's storage, A a fresh tensor
//     filled with zeros (the form sptune's MTTKRP kernel computes);
//   - @sptune_time(pos, crd, vals, C, D, times) (C and D in the op's
//     operand order): B assembled as ordered COO
//     from its entries (crd an nnz x 3 array of structures) and converted to
//     B's storage, not timed; each call of @kernel timed with rtclock, its
//     fresh A freed;
//   - @sptune_check(pos, crd, vals, C, D, A): one call, A written out and
//     the fresh one freed;
//   - C and D deterministic (denseInput of sptune/Matrix/Reference.h), and
//     the double-precision reference A with per-value error bounds.
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

/// The MTTKRP `spec` names on a tensor of `dims`: the user's op
/// (spec.descriptor, sized to the tensor and the rank spec.free) when it is
/// an MTTKRP of spec's float type, else the canonical one (loops i, j, k, l;
/// B(i, k, l) in CSF, C(k, j), D(l, j), A(i, j)).
KernelDescriptor mttkrpBenchDescriptor(const KernelSpec &spec,
                                       const std::array<int64_t, 3> &dims);

/// The printed #sparse_tensor.encoding of B in `d` (its levels in dimension
/// order, its widths).
std::string mttkrpBenchEncoding(const KernelDescriptor &d);

/// The bench module (the file header) of the MTTKRP `d`. Fails, saying why,
/// when `d` is not an MTTKRP of static sizes.
llvm::Expected<std::string> buildMttkrpBenchModule(const KernelDescriptor &d);

/// The inputs of an MTTKRP bench on `b` in the element type T.
template <typename T> struct TensorBenchInputs {
  /// B's entries as ordered COO: positions [0, nnz], coordinates (i, k, l)
  /// per entry, values.
  std::vector<int64_t> pos, crd;
  std::vector<T> vals;
  /// C (dims[1] x rank), D (dims[2] x rank), and A (dims[0] x rank) for
  /// @sptune_check to write; on cache lines.
  AlignedVector<T> c, d, a;
  ReferenceResult reference;
};

/// Fills `in` for an MTTKRP of rank `rank` on `b` (canonical: sorted, no
/// repeats). The reference reads B's values at T's precision.
template <typename T>
void prepareTensorBenchInputs(const CooTensor &b, int64_t rank,
                              TensorBenchInputs<T> &in);

} // namespace sptune

#endif // SPTUNE_TARGET_TENSORBENCH_H
