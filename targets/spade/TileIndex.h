//===- TileIndex.h - The tiled sparse operand of a program ------*- C++ -*-===//
//
// Part of sptune. Resolves a program's tile instructions against a matrix:
// for each distinct tile (row range x column range; tiles that differ only in
// their free range share their data) the stored entries it covers, as
// segments (one per nonempty row of the tile, in row-position order), and
// where the tile lives in the tiled storage SPADE reads it from. Both the
// timing simulation and the functional execution walk tiles through it.
//
// Tiled storage (a doubly compressed format per tile): for each nonempty row
// a header (row index, pointer; 8 bytes), then for each entry its column
// index (4 bytes) and value (element size). Tiles are laid out one after the
// other in the order they first appear in the program; empty tiles take no
// space and the host skips their instructions.
//
// The host also knows when an accumulating tile has nothing to add to: when
// every earlier tile writing the same outputs (SpMM: the same rows and free
// range of C; SDDMM: the same entries of X) was empty (it skipped them all),
// there is no partial output yet, and it runs the tile as an overwriting one
// (no read of the zeroed output). It does so only when the program's row
// ranges are disjoint and, within one row range, the free ranges (SpMM) or
// column ranges (SDDMM) are disjoint or equal, where this is exact.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_TILEINDEX_H
#define SPTUNE_TARGETS_SPADE_TILEINDEX_H

#include "spade/Program.h"
#include "sptune/Matrix/SparseMatrix.h"

#include <cstdint>
#include <vector>

namespace sptune {
namespace spade {

/// The entries of one row inside one tile: matrix entries [begin, begin +
/// length) of CSR row `row`, which sits at position `pos` of the row order.
struct Segment {
  int32_t pos;
  int32_t row;
  int64_t begin;
  int64_t length;
};

class TileIndex {
public:
  /// A distinct tile: a row range x a column range.
  struct TileKey {
    int64_t r0, r1, c0, c1;
    bool operator==(const TileKey &o) const {
      return r0 == o.r0 && r1 == o.r1 && c0 == o.c0 && c1 == o.c1;
    }
  };

  /// `order` maps positions to rows (spade::computeRowOrder); the program
  /// must be valid for the matrix (whyInvalid, whyIncompatible).
  TileIndex(const CsrMatrix &m, const std::vector<int32_t> &order,
            const SpadeProgram &p, int elemBytes);

  /// Distinct tile of instruction `instr` (-1 for barriers).
  int32_t tileOf(size_t instr) const { return instrTile[instr]; }
  int64_t numTiles() const { return int64_t(nnzOf.size()); }
  const Segment *segmentsBegin(int32_t tile) const {
    return segs.data() + segOffset[size_t(tile)];
  }
  const Segment *segmentsEnd(int32_t tile) const {
    return segs.data() + segOffset[size_t(tile) + 1];
  }
  int64_t nnz(int32_t tile) const { return nnzOf[size_t(tile)]; }
  /// Whether tile instruction `instr` reads and adds to the partial output:
  /// its `accumulate` flag, unless the host elides it (see above).
  bool accumulates(size_t instr) const { return accumulate[instr] != 0; }
  /// Byte offset of the tile in the tiled storage.
  uint64_t storageOffset(int32_t tile) const { return storage[size_t(tile)]; }
  /// Index of the tile's first entry in the tiled entry order (where SDDMM
  /// writes its output values).
  int64_t entryOffset(int32_t tile) const { return entries[size_t(tile)]; }
  /// Bytes of the tiled storage.
  uint64_t storageBytes() const { return totalStorage; }

  static constexpr int kHeaderBytes = 8;
  static constexpr int kIndexBytes = 4;

private:
  /// Decides accumulate[] for every instruction (after nnzOf is known).
  void decideAccumulation(const SpadeProgram &p,
                          const std::vector<TileKey> &keys);

  std::vector<int32_t> instrTile;
  std::vector<uint8_t> accumulate;
  std::vector<int64_t> segOffset; ///< numTiles + 1
  std::vector<Segment> segs;
  std::vector<int64_t> nnzOf;
  std::vector<uint64_t> storage;
  std::vector<int64_t> entries;
  uint64_t totalStorage = 0;
};

} // namespace spade
} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_TILEINDEX_H
