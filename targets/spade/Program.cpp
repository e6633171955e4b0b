//===- Program.cpp - A SPADE tile program ---------------------------------===//

#include "spade/Program.h"
#include "spade/SpadeKernels.h"

using namespace sptune;

bool SpadeTile::operator==(const SpadeTile &o) const {
  return pe == o.pe && rowBegin == o.rowBegin && rowEnd == o.rowEnd &&
         colBegin == o.colBegin && colEnd == o.colEnd &&
         freeBegin == o.freeBegin && freeEnd == o.freeEnd &&
         accumulate == o.accumulate;
}

bool SpadeInstr::operator==(const SpadeInstr &o) const {
  if (kind != o.kind)
    return false;
  return kind == Kind::Barrier || tile == o.tile;
}

int64_t SpadeProgram::numTiles() const {
  int64_t n = 0;
  for (const SpadeInstr &i : instrs)
    n += i.isBarrier() ? 0 : 1;
  return n;
}

int64_t SpadeProgram::numBarriers() const {
  return int64_t(instrs.size()) - numTiles();
}

bool SpadeProgram::operator==(const SpadeProgram &o) const {
  return kernel == o.kernel && rows == o.rows && cols == o.cols &&
         free == o.free && pes == o.pes && bypassSparse == o.bypassSparse &&
         bypassDense == o.bypassDense && bypassOutput == o.bypassOutput &&
         reorder == o.reorder && instrs == o.instrs;
}

static std::string range(int64_t b, int64_t e) {
  return "[" + std::to_string(b) + ", " + std::to_string(e) + ")";
}

std::string sptune::whyInvalidTile(const SpadeProgram &p, const SpadeTile &t) {
  if (t.pe < 0 || t.pe >= p.pes)
    return "PE " + std::to_string(t.pe) + " is outside [0, " +
           std::to_string(p.pes) + ")";
  if (t.rowBegin < 0 || t.rowBegin >= t.rowEnd || t.rowEnd > p.rows)
    return "row range " + range(t.rowBegin, t.rowEnd) +
           " is empty or outside [0, " + std::to_string(p.rows) + ")";
  if (t.colBegin < 0 || t.colBegin >= t.colEnd || t.colEnd > p.cols)
    return "column range " + range(t.colBegin, t.colEnd) +
           " is empty or outside [0, " + std::to_string(p.cols) + ")";
  if (t.freeBegin < 0 || t.freeBegin >= t.freeEnd || t.freeEnd > p.free)
    return "free range " + range(t.freeBegin, t.freeEnd) +
           " is empty or outside [0, " + std::to_string(p.free) + ")";
  return "";
}

std::string sptune::whyInvalid(const SpadeProgram &p) {
  if (!spadeRunsKernel(p.kernel))
    return std::string("SPADE runs spmm and sddmm, not '") +
           toString(p.kernel) + "'";
  if (p.rows < 1 || p.cols < 1 || p.rows > (int64_t(1) << 31) - 1 ||
      p.cols > (int64_t(1) << 31) - 1)
    return "operand shape must be in [1, 2^31 - 1] x [1, 2^31 - 1]";
  if (p.free < 1 || p.free > (int64_t(1) << 20))
    return "free size must be in [1, 2^20]";
  if (p.pes < 1 || p.pes > 4096)
    return "PE count must be in [1, 4096]";
  for (size_t n = 0; n < p.instrs.size(); ++n) {
    const SpadeInstr &i = p.instrs[n];
    if (i.isBarrier())
      continue;
    if (std::string why = whyInvalidTile(p, i.tile); !why.empty())
      return "instruction " + std::to_string(n) + ": " + why;
  }
  return "";
}

std::string sptune::whyIncompatible(const SpadeProgram &p, int64_t rows,
                                    int64_t cols, int machinePes) {
  if (p.rows != rows || p.cols != cols)
    return "the program was built for a " + std::to_string(p.rows) + " x " +
           std::to_string(p.cols) + " operand, the matrix is " +
           std::to_string(rows) + " x " + std::to_string(cols);
  if (p.pes > machinePes)
    return "the program uses " + std::to_string(p.pes) +
           " PEs, the machine has " + std::to_string(machinePes);
  return "";
}
