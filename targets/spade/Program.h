//===- Program.h - A SPADE tile program -------------------------*- C++ -*-===//
//
// Part of sptune. The program the host issues to the SPADE PEs: a header
// (kernel, operand shape, free size, PEs used, per-stream cache bypassing, row
// reordering) and a list of instructions, each either a tile instruction (one
// PE runs the kernel on a tile: a range of reordered rows x a range of
// columns x a range of the free dense dimension) or a barrier (every PE waits
// until all PEs arrive). Each PE executes its own tile instructions in list
// order; barriers are global. The program names no matrix: spade-sim runs it
// together with any matrix of its shape. The text form is in
// spade/ProgramText.h and targets/spade/README.md.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_PROGRAM_H
#define SPTUNE_TARGETS_SPADE_PROGRAM_H

#include "sptune/Schedule/Schedule.h"
#include "spade/SpadeKnobs.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sptune {

/// One tile instruction. Row positions index the reordered row order (the
/// identity without reordering); the PE handles the stored entries (i, k)
/// with pos(i) in [rowBegin, rowEnd) and k in [colBegin, colEnd), for the
/// free indices in [freeBegin, freeEnd).
struct SpadeTile {
  int32_t pe = 0;
  int64_t rowBegin = 0, rowEnd = 0;
  int64_t colBegin = 0, colEnd = 0;
  int64_t freeBegin = 0, freeEnd = 0;
  /// Add into the output instead of overwriting it: SpMM reads the partial
  /// rows of C before adding; SDDMM reads the partial values of X. The
  /// output starts zeroed, so accumulating is always correct and overwriting
  /// is an optimization for the first tile that writes an output element.
  bool accumulate = false;

  bool operator==(const SpadeTile &o) const;
};

struct SpadeInstr {
  enum class Kind : uint8_t { Tile, Barrier };
  Kind kind = Kind::Tile;
  SpadeTile tile; ///< meaningful for tiles only

  static SpadeInstr makeTile(const SpadeTile &t) {
    return SpadeInstr{Kind::Tile, t};
  }
  static SpadeInstr makeBarrier() { return SpadeInstr{Kind::Barrier, {}}; }
  bool isBarrier() const { return kind == Kind::Barrier; }
  bool operator==(const SpadeInstr &o) const;
};

struct SpadeProgram {
  KernelType kernel = kDefaultKernelType;
  /// Shape of the sparse operand (A of SpMM, S of SDDMM).
  int64_t rows = 0, cols = 0;
  /// N (columns of B and C) of SpMM, K (inner size) of SDDMM.
  int64_t free = 0;
  /// PEs the program uses; every tile's `pe` is below this.
  int pes = 1;
  bool bypassSparse = false, bypassDense = false, bypassOutput = false;
  RowReorder reorder = RowReorder::None;
  std::vector<SpadeInstr> instrs;

  int64_t numTiles() const;
  int64_t numBarriers() const;
  bool operator==(const SpadeProgram &o) const;
};

/// Why `t` cannot appear in `p` (PE or ranges out of bounds), or "".
std::string whyInvalidTile(const SpadeProgram &p, const SpadeTile &t);

/// Why `p` is malformed (bad header, a tile out of bounds), or "". Messages
/// name the offending instruction by its index.
std::string whyInvalid(const SpadeProgram &p);

/// Why `p` cannot run on a rows x cols operand with a machine of
/// `machinePes` PEs, or "".
std::string whyIncompatible(const SpadeProgram &p, int64_t rows, int64_t cols,
                            int machinePes);

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_PROGRAM_H
