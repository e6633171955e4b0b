//===- MttkrpForm.cpp - The MTTKRPs sptune tunes --------------------------===//

#include "sptune/Analysis/MttkrpForm.h"

#include "sptune/Analysis/KernelMatcher.h"
#include "sptune/Analysis/SparseStorage.h"

using namespace mlir;
using namespace mlir::sptune;

std::string mlir::sptune::whyNotKernelMttkrp(linalg::LinalgOp op,
                                             MttkrpInputs *inputs) {
  ::sptune::KernelDescriptor d;
  if (std::string why =
          whyNotPlainProductOfShape(op, 3, "mttkrp", "an MTTKRP", d);
      !why.empty())
    return why;
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
  if (std::string why = whyNotKernelOperands(
          b,
          {op.getDpsInputOperand(c)->get(), op.getDpsInputOperand(dd)->get()},
          op.getDpsInitOperand(0)->get(), 2, kMaxMttkrpRowBytes, "rank");
      !why.empty())
    return why;
  if (inputs)
    *inputs = {sparse, static_cast<unsigned>(c), static_cast<unsigned>(dd)};
  return "";
}
