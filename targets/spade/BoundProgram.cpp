//===- BoundProgram.cpp - A SPADE program bound to a matrix ---------------===//

#include "spade/BoundProgram.h"

#include "spade/RowOrder.h"
#include "sptune/Support/Error.h"

using namespace sptune;

llvm::Expected<SpadeBoundProgram>
sptune::bindSpadeProgram(const CsrMatrix &m, const SpadeProgram &p,
                         const SpadeMachineConfig &machine) {
  auto fail = [](const std::string &why) { return makeError(why); };
  if (std::string why = machine.whyInvalid(); !why.empty())
    return fail("invalid machine: " + why);
  if (std::string why = whyInvalid(p); !why.empty())
    return fail("invalid program: " + why);
  if (std::string why = whyIncompatible(p, m.rows, m.cols, machine.pes);
      !why.empty())
    return fail(why);
  if (int64_t(m.rowPtr.size()) != m.rows + 1 ||
      m.colIdx.size() != m.values.size() ||
      m.rowPtr.back() != int64_t(m.colIdx.size()))
    return fail("malformed CSR matrix");
  SpadeBoundProgram b;
  b.matrix = &m;
  b.program = &p;
  b.order = spade::computeRowOrder(m, p.reorder);
  b.tiles =
      std::make_unique<spade::TileIndex>(m, b.order, p, machine.elemBytes);
  return std::move(b);
}
