//===- ToyKernel.h - A fourth kernel, for the tests -------------*- C++ -*-===//
//
// Part of sptune's unit tests. A kernel type that plugs in as docs/kernels.md
// says, touching no shared file: the sparse matrix times a diagonal one,
// scaling each column,
//
//   C(i, j) = A(i, j) * x(j),   A sparse,
//
// added by its canonical form and one registration line (addKernelType).
// Everything else — recognition in IR, the #sptune.kernel and
// #sptune.schedule text, the CPU target's space and heuristic, applying a
// schedule, lowering, measuring against a reference — follows from the form.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_UNITTESTS_SUPPORT_TOYKERNEL_H
#define SPTUNE_UNITTESTS_SUPPORT_TOYKERNEL_H

#include "sptune/Schedule/KernelTypes.h"

namespace sptune {
namespace test {

/// An f32 operand of a canonical form over loops `dims`; a sparse one is
/// stored CSR.
inline KernelOperand formOperand(KernelOperand::Kind kind,
                                 std::vector<unsigned> dims) {
  KernelOperand o;
  o.kind = kind;
  o.elementType = "f32";
  o.dims = std::move(dims);
  if (o.sparse())
    o.levels = {"dense", "compressed"};
  return o;
}

/// The canonical form: loops named by role, the sparse operand A(i, j).
inline KernelDescriptor columnScaleForm() {
  KernelDescriptor d;
  d.loops = {{"i", false, -1}, {"j", false, -1}};
  auto operand = formOperand;
  d.operands = {operand(KernelOperand::Kind::Sparse, {0, 1}),
                operand(KernelOperand::Kind::Dense, {1}),
                operand(KernelOperand::Kind::Output, {0, 1})};
  d.body = KernelDescriptor::Body::ElementwiseProduct;
  return d;
}

/// The registration line.
inline llvm::Expected<KernelType> registerColumnScaleKernel() {
  return addKernelType("colscale", columnScaleForm());
}

} // namespace test
} // namespace sptune

#endif // SPTUNE_UNITTESTS_SUPPORT_TOYKERNEL_H
