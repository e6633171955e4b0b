//===- ProgramBuilder.h - SPADE tile programs from schedules ----*- C++ -*-===//
//
// Part of sptune. Turns a SPADE `Schedule` into the tile program the host
// issues. The program depends on the operand's shape only (not on its
// nonzeros), so a compiler can emit it before the matrix is known:
//
//  - row panels of `splitRow` consecutive row positions (after reordering),
//    column tiles of `splitCol` columns (`splitCol` = 1: one tile spanning all
//    columns), strips of `tile` elements of the free dimension (0: one strip);
//  - panel p goes to PE p mod P, P = `pes` (0: every PE of the machine);
//  - without a barrier, each PE runs, strip by strip, its panels one after
//    the other, each across all its column tiles (the panel's partial output
//    stays close to the PE); with a barrier, all PEs run column tile c of all
//    their panels, then meet at a barrier before column tile c + 1 (they all
//    gather the same rows of B meanwhile, which the LLC then holds once);
//  - SpMM tiles after a panel's first column tile accumulate into C; SDDMM
//    strips after the first accumulate into X.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_PROGRAMBUILDER_H
#define SPTUNE_TARGETS_SPADE_PROGRAMBUILDER_H

#include "spade/MachineConfig.h"
#include "spade/Program.h"
#include "sptune/Matrix/SparseMatrix.h"
#include "sptune/Target/Measurer.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace sptune {

/// Programs larger than this many instructions are refused.
constexpr int64_t kMaxSpadeInstructions = int64_t(1) << 24;

/// Builds the program running `spec` with `schedule` (target spade, kernel
/// spmm or sddmm, legal) on a rows x cols sparse operand, for a machine of
/// `machinePes` PEs. Fails saying why the schedule cannot run.
llvm::Expected<SpadeProgram> buildSpadeProgram(int64_t rows, int64_t cols,
                                               const KernelSpec &spec,
                                               const Schedule &schedule,
                                               int machinePes);

/// Same, for the shape of `m` and the PEs of `machine`.
llvm::Expected<SpadeProgram>
buildSpadeProgram(const CsrMatrix &m, const KernelSpec &spec,
                  const Schedule &schedule,
                  const SpadeMachineConfig &machine = SpadeMachineConfig());

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_PROGRAMBUILDER_H
