//===- AddressMap.h - Where the kernel's operands live ----------*- C++ -*-===//
//
// Part of sptune. The data layout the SPADE simulator assumes, as line
// addresses: the tiled sparse operand (spade/TileIndex.h) in one region; the
// dense operands row-major with rows padded to whole lines (B of SpMM is
// cols x N; SDDMM reads A as rows x K and B as cols x K, i.e. B transposed,
// so that both gathers are contiguous rows); the output in its own region
// (C of SpMM rows x N, padded like the inputs; X of SDDMM as values in tiled
// entry order).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_ADDRESSMAP_H
#define SPTUNE_TARGETS_SPADE_ADDRESSMAP_H

#include "spade/MemorySystem.h"

#include <cstdint>

namespace sptune {
namespace spade {

struct AddressMap {
  AddressMap(int lineBytes, int elemBytes, int64_t free)
      : lineBytes(uint64_t(lineBytes)), elemBytes(uint64_t(elemBytes)),
        rowBytes(
            (uint64_t(free) * uint64_t(elemBytes) + uint64_t(lineBytes) - 1) /
            uint64_t(lineBytes) * uint64_t(lineBytes)) {}

  /// Line holding byte `offset` of region `r`.
  uint64_t line(Region r, uint64_t offset) const {
    return regionBase(r) + offset / lineBytes;
  }
  /// First line and line count of elements [f0, f1) of row `row` of a dense
  /// row-major matrix in region `r`.
  void rowLines(Region r, int64_t row, int64_t f0, int64_t f1, uint64_t &first,
                uint64_t &count) const {
    uint64_t b = uint64_t(row) * rowBytes + uint64_t(f0) * elemBytes;
    uint64_t e = uint64_t(row) * rowBytes + uint64_t(f1) * elemBytes - 1;
    first = line(r, b);
    count = e / lineBytes - b / lineBytes + 1;
  }

  uint64_t lineBytes;
  uint64_t elemBytes;
  /// Bytes of one padded dense row.
  uint64_t rowBytes;
};

} // namespace spade
} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_ADDRESSMAP_H
