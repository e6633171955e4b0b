//===- DescriptorTesting.h - Kernel descriptors for tests -------*- C++ -*-===//
//
// Part of sptune's unit tests. Builds KernelDescriptors the way the matcher
// describes ops: a sparse operand has dense outer levels and a compressed
// innermost one (CSR for a matrix).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_UNITTESTS_SUPPORT_DESCRIPTORTESTING_H
#define SPTUNE_UNITTESTS_SUPPORT_DESCRIPTORTESTING_H

#include "sptune/Schedule/KernelDescriptor.h"

#include <string>
#include <utility>
#include <vector>

namespace sptune::test {

/// An operand of `kind` indexed by `dims`, of element type `et`.
inline KernelOperand operand(KernelOperand::Kind kind,
                             std::vector<unsigned> dims,
                             std::string et = "f32") {
  KernelOperand o;
  o.kind = kind;
  o.elementType = std::move(et);
  o.dims = std::move(dims);
  if (o.sparse())
    for (size_t l = 0; l < o.dims.size(); ++l)
      o.levels.push_back(l + 1 == o.dims.size() ? "compressed" : "dense");
  return o;
}

inline KernelDescriptor descriptor(std::vector<KernelLoop> loops,
                                   std::vector<KernelOperand> operands,
                                   KernelDescriptor::Body body) {
  KernelDescriptor d;
  d.loops = std::move(loops);
  d.operands = std::move(operands);
  d.body = body;
  return d;
}

} // namespace sptune::test

#endif // SPTUNE_UNITTESTS_SUPPORT_DESCRIPTORTESTING_H
