//===- MttkrpForm.cpp - The MTTKRPs sptune tunes --------------------------===//

#include "sptune/Analysis/MttkrpForm.h"

#include "sptune/Analysis/FilledValue.h"
#include "sptune/Analysis/KernelMatcher.h"
#include "sptune/Analysis/SparseStorage.h"

using namespace mlir;
using namespace mlir::sptune;

std::string mlir::sptune::whyNotKernelMttkrp(linalg::LinalgOp op,
                                             MttkrpInputs *inputs) {
  if (op.getNumDpsInputs() != 3 || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1)
    return "it is not a product of three inputs into one result";
  llvm::Expected<::sptune::KernelDescriptor> described = describeKernel(op);
  if (!described)
    return llvm::toString(described.takeError());
  const ::sptune::KernelDescriptor &d = *described;
  if (d.shapeName() != "mttkrp")
    return "it is not an MTTKRP (seen as " +
           (d.shapeName().empty() ? std::string("no known shape")
                                  : d.shapeName()) +
           ")";
  if (d.body != ::sptune::KernelDescriptor::Body::MultiplyAccumulate ||
      d.scaled)
    return "its body is not a plain multiply-accumulate";
  const auto &ops = d.operands;
  unsigned sparse = 0;
  while (sparse < 3 && !ops[sparse].sparse())
    ++sparse;
  if (sparse == 3 || ops[3].kind != ::sptune::KernelOperand::Kind::Output)
    return "its output is sparse";
  const std::vector<unsigned> &ikl = ops[sparse].dims;
  if (ops[3].dims.size() != 2 || ops[3].dims[0] != ikl[0] ||
      llvm::is_contained(ikl, ops[3].dims[1]))
    return "it does not write A(i, j) with i the sparse operand's first "
           "dimension";
  unsigned j = ops[3].dims[1];
  int c = -1, dd = -1;
  for (unsigned n = 0; n < 3; ++n) {
    if (n == sparse)
      continue;
    if (ops[n].dims == std::vector<unsigned>{ikl[1], j})
      c = static_cast<int>(n);
    else if (ops[n].dims == std::vector<unsigned>{ikl[2], j})
      dd = static_cast<int>(n);
  }
  if (c < 0 || dd < 0)
    return "it does not read C(k, j) and D(l, j) with j contiguous, k and l "
           "the sparse operand's second and third dimensions";
  Value b = op.getDpsInputOperand(sparse)->get();
  if (!isCsf(b.getType()) && !isOrderedCoo(b.getType(), 3))
    return "its sparse operand is neither CSF (levels in dimension order, "
           "the first dense or compressed and ordered, the others "
           "compressed, unique) "
           "nor ordered COO (a compressed level and two singleton ones, the "
           "last unique)";
  Type element = getElementTypeOrSelf(b.getType());
  if (!element.isF32() && !element.isF64())
    return "its element type is not f32 or f64";
  Value init = op.getDpsInitOperand(0)->get();
  auto rankOf = [&](Value v) {
    return staticRowWidth(v.getType(), element, 2, kMaxMttkrpRowBytes);
  };
  int64_t rank = rankOf(init);
  if (rank < 0 || rankOf(op.getDpsInputOperand(c)->get()) != rank ||
      rankOf(op.getDpsInputOperand(dd)->get()) != rank)
    return "its rank is dynamic, its rows above " +
           std::to_string(kMaxMttkrpRowBytes) +
           " bytes, or its operands of different element types";
  Value fill = freshFillValue(init);
  if (!fill || fill.getType() != element)
    return "its output does not start from a linalg.fill of a fresh tensor";
  if (inputs)
    *inputs = {sparse, static_cast<unsigned>(c), static_cast<unsigned>(dd)};
  return "";
}
