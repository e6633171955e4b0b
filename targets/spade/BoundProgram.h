//===- BoundProgram.h - A SPADE program bound to a matrix -------*- C++ -*-===//
//
// Part of sptune. A program checked against a matrix and a machine, with its
// row order computed and its tiles resolved: built once, then used by the
// timing simulation (spade/Simulator.h) and the functional execution
// (spade/Functional.h).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_BOUNDPROGRAM_H
#define SPTUNE_TARGETS_SPADE_BOUNDPROGRAM_H

#include "spade/MachineConfig.h"
#include "spade/Program.h"
#include "spade/TileIndex.h"
#include "sptune/Matrix/SparseMatrix.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sptune {

struct SpadeBoundProgram {
  /// Both must outlive the bound program.
  const CsrMatrix *matrix = nullptr;
  const SpadeProgram *program = nullptr;
  /// order[pos] = original row at row position pos.
  std::vector<int32_t> order;
  std::unique_ptr<spade::TileIndex> tiles;
};

/// Checks `p` (whyInvalid), its fit to `m` and `machine` (whyIncompatible)
/// and the machine (SpadeMachineConfig::whyInvalid), then binds; fails
/// saying which check failed.
llvm::Expected<SpadeBoundProgram>
bindSpadeProgram(const CsrMatrix &m, const SpadeProgram &p,
                 const SpadeMachineConfig &machine);

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_BOUNDPROGRAM_H
