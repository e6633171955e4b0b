//===- KernelDescriptor.cpp - A sparse kernel as data, not an enum --------===//

#include "sptune/Schedule/KernelDescriptor.h"

#include <algorithm>

using namespace sptune;

const char *sptune::toString(KernelDescriptor::Body body) {
  switch (body) {
  case KernelDescriptor::Body::MultiplyAccumulate:
    return "multiply-accumulate";
  case KernelDescriptor::Body::SampledMultiplyAccumulate:
    return "sampled multiply-accumulate";
  case KernelDescriptor::Body::ElementwiseProduct:
    return "elementwise product";
  case KernelDescriptor::Body::Other:
    return "other";
  }
  return "?";
}

unsigned KernelDescriptor::numReductions() const {
  return static_cast<unsigned>(
      std::count_if(loops.begin(), loops.end(),
                    [](const KernelLoop &l) { return l.reduction; }));
}

unsigned KernelDescriptor::numSparseInputs() const {
  return static_cast<unsigned>(std::count_if(
      operands.begin(), operands.end(), [](const KernelOperand &o) {
        return o.kind == KernelOperand::Kind::Sparse;
      }));
}

std::string KernelDescriptor::shapeName() const {
  if (operands.empty())
    return "";
  const KernelOperand &out = operands.back();
  std::vector<const KernelOperand *> inputs;
  for (size_t n = 0; n + 1 < operands.size(); ++n)
    inputs.push_back(&operands[n]);
  unsigned sparseInputs = numSparseInputs();
  unsigned reductions = numReductions();
  auto rankOf = [](const KernelOperand *o) { return o->dims.size(); };
  bool mac = body == Body::MultiplyAccumulate ||
             body == Body::SampledMultiplyAccumulate;

  if (body == Body::ElementwiseProduct && reductions == 0 &&
      (sparseInputs > 0 || out.sparse()))
    return "sparse-elementwise";
  if (!mac || inputs.size() < 2)
    return "";
  // The sampled product of two dense matrices: the sparse pattern is the
  // output itself, or the one sparse input, indexed like the output.
  if (loops.size() == 3 && reductions == 1 && out.dims.size() == 2) {
    if (inputs.size() == 2 && sparseInputs == 0 && out.sparse())
      return "sddmm";
    if (inputs.size() == 3 && sparseInputs == 1 &&
        std::any_of(inputs.begin(), inputs.end(), [&](const KernelOperand *o) {
          return o->sparse() && o->dims == out.dims;
        }))
      return "sddmm";
  }
  if (inputs.size() != 2)
    return inputs.size() == 3 && loops.size() == 4 && reductions == 2 &&
                   sparseInputs == 1 && out.dims.size() == 2 &&
                   std::any_of(inputs.begin(), inputs.end(),
                               [&](const KernelOperand *o) {
                                 return o->sparse() && rankOf(o) == 3;
                               })
               ? "mttkrp"
               : "";
  size_t r0 = rankOf(inputs[0]), r1 = rankOf(inputs[1]);
  if (sparseInputs == 2 && loops.size() == 3 && reductions == 1 && r0 == 2 &&
      r1 == 2)
    return "spgemm";
  if (sparseInputs != 1 || reductions != 1)
    return "";
  if (loops.size() == 2 && std::min(r0, r1) == 1 && std::max(r0, r1) == 2)
    return "spmv";
  if (loops.size() == 3 && r0 == 2 && r1 == 2)
    return "spmm";
  if (loops.size() == 4 && r0 == 3 && r1 == 3 && out.dims.size() == 3)
    return "batched-spmm";
  return "";
}

static std::string sizeText(int64_t size) {
  return size < 0 ? "?" : std::to_string(size);
}

std::string KernelDescriptor::str() const {
  std::string out = "loops (";
  for (size_t n = 0; n < loops.size(); ++n)
    out += (n ? ", " : "") + loops[n].name +
           (loops[n].reduction ? " red " : " par ") + sizeText(loops[n].size);
  out += ");";
  static const char *kNames[] = {"A", "B", "C", "D", "E", "F", "G", "H"};
  for (size_t n = 0; n < operands.size(); ++n) {
    const KernelOperand &o = operands[n];
    bool last = n + 1 == operands.size();
    out += last ? " -> " : n ? ", " : " ";
    out += n < 8 ? kNames[n] : "X" + std::to_string(n);
    out += "(";
    for (size_t d = 0; d < o.dims.size(); ++d)
      out += (d ? ", " : "") +
             (o.dims[d] < loops.size() ? loops[o.dims[d]].name : "?");
    out += ")";
    if (o.sparse()) {
      out += " sparse";
    }
    out += " " + o.elementType;
    if (o.sparse()) {
      out += " [";
      for (size_t l = 0; l < o.levels.size(); ++l)
        out += (l ? ", " : "") + o.levels[l];
      out += "]";
      if (o.posWidth || o.crdWidth)
        out += " widths " + std::to_string(o.posWidth) + "/" +
               std::to_string(o.crdWidth);
    }
  }
  out += std::string("; ") + toString(body);
  return out;
}
