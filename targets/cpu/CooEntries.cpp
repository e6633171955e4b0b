//===- CooEntries.cpp - Walking ordered COO storage in blocks ------------===//

#include "cpu/CooEntries.h"

#include "cpu/BalancedRows.h"
#include "cpu/KernelOutlining.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensorType.h"

using namespace mlir;
using namespace mlir::sptune;
namespace st = mlir::sparse_tensor;

CooEntries::CooEntries(OpBuilder &b, Location loc, RankedTensorType type,
                       ValueRange buffers) {
  st::SparseTensorType t(type);
  unsigned rank = t.getLvlRank();
  bool arrayOfStructures = t.getAoSCOOStart() == 0;
  Value positions = buffers[0];
  first = loadPosition(b, loc, positions,
                       arith::ConstantIndexOp::create(b, loc, 0));
  end = loadPosition(b, loc, positions,
                     arith::ConstantIndexOp::create(b, loc, 1));
  numBuffers = 1 + (arrayOfStructures ? 1 : rank);
  for (unsigned level = 0; level < rank; ++level) {
    if (!arrayOfStructures) {
      coordinates.push_back(buffers[1 + level]);
      continue;
    }
    // Entry p's coordinate `level` at rank * p + level: a strided view.
    auto crdType = cast<MemRefType>(buffers[1].getType());
    auto viewType = MemRefType::get(
        {ShapedType::kDynamic}, crdType.getElementType(),
        StridedLayoutAttr::get(b.getContext(), static_cast<int64_t>(level),
                               {static_cast<int64_t>(rank)}));
    coordinates.push_back(memref::ReinterpretCastOp::create(
        b, loc, viewType, buffers[1], OpFoldResult(b.getIndexAttr(level)),
        ArrayRef<OpFoldResult>{end},
        ArrayRef<OpFoldResult>{b.getIndexAttr(rank)}));
  }
}

Value CooEntries::coordinate(OpBuilder &b, Location loc, unsigned level,
                             Value p) const {
  return loadPosition(b, loc, coordinates[level], p);
}

Value CooEntries::groupStart(OpBuilder &b, Location loc, Value p,
                             unsigned groupLevels) const {
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  Value inside = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, p, first),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p, end));
  auto moved = scf::IfOp::create(
      b, loc, inside,
      [&](OpBuilder &b, Location loc) {
        // Past the entries of the group of entry p - 1.
        Value previous = arith::SubIOp::create(b, loc, p, c1);
        SmallVector<Value> group;
        for (unsigned level = 0; level < groupLevels; ++level)
          group.push_back(coordinate(b, loc, level, previous));
        // The entries of that group are a prefix of [p, end) (the entries
        // are in order): a binary search for its end, O(log) where a heavy
        // slice would make a scan as long as the slice.
        Type index = b.getIndexType();
        auto scan = scf::WhileOp::create(
            b, loc, TypeRange{index, index}, ValueRange{p, end},
            [&](OpBuilder &b, Location loc, ValueRange range) {
              scf::ConditionOp::create(
                  b, loc,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        range[0], range[1]),
                  range);
            },
            [&](OpBuilder &b, Location loc, ValueRange range) {
              // lo < hi <= end: mid is an entry.
              Value mid = arith::AddIOp::create(
                  b, loc, range[0],
                  arith::ShRUIOp::create(
                      b, loc, arith::SubIOp::create(b, loc, range[1], range[0]),
                      c1));
              Value same =
                  arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
              for (unsigned level = 0; level < groupLevels; ++level)
                same = arith::AndIOp::create(
                    b, loc, same,
                    arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          coordinate(b, loc, level, mid),
                                          group[level]));
              scf::YieldOp::create(
                  b, loc,
                  ValueRange{
                      arith::SelectOp::create(
                          b, loc, same, arith::AddIOp::create(b, loc, mid, c1),
                          range[0]),
                      arith::SelectOp::create(b, loc, same, range[1], mid)});
            });
        scf::YieldOp::create(b, loc, scan.getResult(0));
      },
      [&](OpBuilder &b, Location loc) { scf::YieldOp::create(b, loc, p); });
  return moved.getResult(0);
}

Value CooEntries::ownedRow(
    OpBuilder &b, Location loc, Value p, Value rows,
    function_ref<Value(OpBuilder &, Location, Value)> rowOf) const {
  Value atEnd = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, p, end);
  Value atFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, p, first);
  auto row = scf::IfOp::create(
      b, loc, arith::OrIOp::create(b, loc, atEnd, atFirst),
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(
            b, loc,
            arith::SelectOp::create(b, loc, atEnd, rows,
                                    arith::ConstantIndexOp::create(b, loc, 0))
                .getResult());
      },
      [&](OpBuilder &b, Location loc) {
        // An entry below `end`: its coordinates can be read.
        scf::YieldOp::create(b, loc, rowOf(b, loc, p));
      });
  return row.getResult(0);
}

void CooEntries::ownedBlock(
    OpBuilder &b, Location loc, Value from, Value to, Value rows,
    function_ref<Value(OpBuilder &, Location, Value)> rowOf,
    function_ref<void(OpBuilder &, Location, Value, Value)> fillRows,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> walk)
    const {
  Value firstRow = ownedRow(b, loc, from, rows, rowOf);
  Value endRow = ownedRow(b, loc, to, rows, rowOf);
  Value any =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, from, to);
  auto walked = scf::IfOp::create(
      b, loc, any,
      [&](OpBuilder &b, Location loc) {
        Value last = walk(b, loc, from, to, firstRow);
        scf::YieldOp::create(
            b, loc,
            arith::AddIOp::create(b, loc, last,
                                  arith::ConstantIndexOp::create(b, loc, 1))
                .getResult());
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, firstRow);
      });
  // The rows after the block's last row that it owns.
  fillRows(b, loc, walked.getResult(0), endRow);
}

Value CooEntries::walkRowSums(
    OpBuilder &b, Location loc, Value from, Value to, Value firstRow,
    Value filled, function_ref<Value(OpBuilder &, Location, Value)> rowOf,
    function_ref<void(OpBuilder &, Location, Value, Value)> storeRow,
    function_ref<void(OpBuilder &, Location, Value, Value)> fillRows,
    function_ref<Value(OpBuilder &, Location, Value, Value)> addEntry) {
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  Value r0 = rowOf(b, loc, from);
  fillRows(b, loc, firstRow, r0);
  auto walk = scf::ForOp::create(
      b, loc, from, to, c1, ValueRange{r0, filled},
      [&](OpBuilder &b, Location loc, Value e, ValueRange carried) {
        Value r = rowOf(b, loc, e);
        Value newRow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                             r, carried[0]);
        auto started = scf::IfOp::create(
            b, loc, newRow,
            [&](OpBuilder &b, Location loc) {
              storeRow(b, loc, carried[1], carried[0]);
              fillRows(b, loc, arith::AddIOp::create(b, loc, carried[0], c1),
                       r);
              scf::YieldOp::create(b, loc, filled);
            },
            [&](OpBuilder &b, Location loc) {
              scf::YieldOp::create(b, loc, carried[1]);
            });
        scf::YieldOp::create(
            b, loc, ValueRange{r, addEntry(b, loc, e, started.getResult(0))});
      });
  ValueRange last = walk.getResults();
  storeRow(b, loc, last[1], last[0]);
  return last[0];
}

void CooEntries::blocks(
    OpBuilder &b, Location loc, unsigned groupLevels, bool parallel,
    int threads, Operation *within,
    function_ref<void(OpBuilder &, Location, Value, Value)> block) const {
  // An entry's work is its index; each block's bounds move to group starts
  // the same way, so that the blocks still tile the entries.
  rowBlocks(
      b, loc, first, end, parallel, threads, within,
      [&](OpBuilder &, Location, Value p) -> Value { return p; },
      [&](OpBuilder &b, Location loc, Value lo, Value hi) {
        block(b, loc, groupStart(b, loc, lo, groupLevels),
              groupStart(b, loc, hi, groupLevels));
      });
}
