//===- CooEntries.h - Walking ordered COO storage in blocks -----*- C++ -*-===//
//
// The kernels sptune writes itself on a COO tensor's buffers (the factored
// MTTKRP, the batched SpMM) read it as a list of entries sorted by their
// coordinates: no positions say where a slice or a row starts, so each
// kernel walks the entries once, a group (a slice, a row) ending where its
// leading coordinates change. Parallel, the entries are cut into one block
// per thread of equal entries and each cut moved forward to the start of a
// group, so that no two blocks write one group's output. MLIR's sparsifier
// walks COO in one thread, in a while loop.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_COOENTRIES_H
#define SPTUNE_TARGETS_CPU_COOENTRIES_H

#include "sptune/Analysis/SparseStorage.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

namespace mlir {
namespace sptune {

/// The entries of an ordered COO tensor (isOrderedCoo,
/// sptune/Analysis/SparseStorage.h), read from its
/// buffers after code generation.
class CooEntries {
public:
  /// Reads the positions and coordinate buffers at the start of `buffers`
  /// (code generation's fields of `type`: positions, then one coordinates
  /// buffer of structures or one per level), builds what reads them at the
  /// builder's point. `consumed()` tells how many buffers that was.
  CooEntries(OpBuilder &b, Location loc, RankedTensorType type,
             ValueRange buffers);

  /// The buffers read from the start of the field list.
  unsigned consumed() const { return numBuffers; }

  /// The stored entries are [first, end).
  Value first, end;

  /// Coordinate `level` of entry `p`, as an index.
  Value coordinate(OpBuilder &b, Location loc, unsigned level, Value p) const;

  /// The entries cut into blocks: when `parallel`, one per thread of equal
  /// entries (`threads` blocks when > 0, else omp_get_max_threads() at run
  /// time, declared in `within`'s module), each cut moved forward to the
  /// first entry whose first `groupLevels` coordinates differ from the
  /// previous entry's; else one block of every entry. `block` builds the
  /// walk over a block's entries [from, to).
  void
  blocks(OpBuilder &b, Location loc, unsigned groupLevels, bool parallel,
         int threads, Operation *within,
         function_ref<void(OpBuilder &, Location, Value, Value)> block) const;

  /// The first output row a block starting at entry `p` owns, for a kernel
  /// whose entry e writes row rowOf(e) (non-decreasing along the entries)
  /// of `rows`: 0 at the first entry, `rows` at the end, else rowOf(p).
  /// The blocks [from, to) of `blocks` then own [ownedRow(from),
  /// ownedRow(to)), which tile [0, rows) when there are entries: each block
  /// writes the rows it owns that no entry writes, so that the output is
  /// written once, in parallel.
  Value ownedRow(OpBuilder &b, Location loc, Value p, Value rows,
                 function_ref<Value(OpBuilder &, Location, Value)> rowOf) const;

  /// A block [from, to) of `blocks` for a kernel whose entry e writes row
  /// rowOf(e) of `rows`: `walk(from, to, firstRow)` walks its entries (when
  /// it has any), filling the rows it owns before its first entry's from
  /// `firstRow`, and returns the last row it wrote; then the rows it owns
  /// after that are filled (`fillRows(lo, hi)`).
  void
  ownedBlock(OpBuilder &b, Location loc, Value from, Value to, Value rows,
             function_ref<Value(OpBuilder &, Location, Value)> rowOf,
             function_ref<void(OpBuilder &, Location, Value, Value)> fillRows,
             function_ref<Value(OpBuilder &, Location, Value, Value, Value)>
                 walk) const;

  /// The walk of ownedBlock for a row of sums carried in registers: the
  /// rows [firstRow, rowOf(from)) filled, then the entries [from, to) in
  /// order, `addEntry(e, row)` the row after entry e; where rowOf changes
  /// the finished row is stored (`storeRow(row, r)`), the rows between
  /// filled, and the next row starts from `filled`; the last row is stored
  /// after the loop. Returns the last row written.
  static Value walkRowSums(
      OpBuilder &b, Location loc, Value from, Value to, Value firstRow,
      Value filled, function_ref<Value(OpBuilder &, Location, Value)> rowOf,
      function_ref<void(OpBuilder &, Location, Value, Value)> storeRow,
      function_ref<void(OpBuilder &, Location, Value, Value)> fillRows,
      function_ref<Value(OpBuilder &, Location, Value, Value)> addEntry);

private:
  /// The first entry at or after p that starts a group (p itself at first
  /// and end).
  Value groupStart(OpBuilder &b, Location loc, Value p,
                   unsigned groupLevels) const;

  SmallVector<Value, 3> coordinates;
  unsigned numBuffers = 0;
};

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_COOENTRIES_H
