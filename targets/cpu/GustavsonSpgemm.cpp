//===- GustavsonSpgemm.cpp - Sparse x sparse products, row by row ---------===//

#include "cpu/GustavsonSpgemm.h"

#include "cpu/BalancedRows.h"
#include "cpu/CpuPasses.h"
#include "cpu/KernelOutlining.h"

#include "sptune/Analysis/SpgemmForm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensorType.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

#include <array>

using namespace mlir;
using namespace mlir::sptune;
namespace st = mlir::sparse_tensor;

namespace {

// Buffer-level building blocks.
Value constantIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
Value load(OpBuilder &b, Location loc, Value buffer, Value at) {
  return memref::LoadOp::create(b, loc, buffer, at);
}
void store(OpBuilder &b, Location loc, Value v, Value buffer, Value at) {
  memref::StoreOp::create(b, loc, v, buffer, at);
}
Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value plusOne(OpBuilder &b, Location loc, Value x) {
  return add(b, loc, x, constantIndex(b, loc, 1));
}
/// An index stored as `type` (positions and coordinates are unsigned).
Value indexAs(OpBuilder &b, Location loc, Value v, Type type) {
  if (type.isIndex())
    return v;
  return arith::IndexCastUIOp::create(b, loc, type, v);
}
Value allocateUnchecked(OpBuilder &b, Location loc, Type element, Value size) {
  return memref::AllocOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, element), size);
}
/// for (v = lo; v < hi; ++v) body(v, carried) with `carried` threaded
/// through (empty for none); the loop's results.
ValueRange forRange(
    OpBuilder &b, Location loc, Value lo, Value hi, ValueRange carried,
    function_ref<SmallVector<Value>(OpBuilder &, Location, Value, ValueRange)>
        body) {
  auto loop = scf::ForOp::create(
      b, loc, lo, hi, constantIndex(b, loc, 1), carried,
      [&](OpBuilder &b, Location loc, Value v, ValueRange args) {
        scf::YieldOp::create(b, loc, body(b, loc, v, args));
      });
  return loop.getResults();
}

/// scf.parallel (v = 0; v < hi; ++v) body(v).
void parallelFor(OpBuilder &b, Location loc, Value hi,
                 function_ref<void(OpBuilder &, Location, Value)> body) {
  scf::ParallelOp::create(b, loc, ValueRange{constantIndex(b, loc, 0)},
                          ValueRange{hi}, ValueRange{constantIndex(b, loc, 1)},
                          [&](OpBuilder &b, Location loc, ValueRange ivs) {
                            body(b, loc, ivs[0]);
                          });
}

/// The CSR operands of a kernel function, as code generation passes them.
struct CsrBuffers {
  Value positions, coordinates, values, specifier;
};

/// A block's workspace for the rows it computes (GustavsonSpgemm.h).
struct Workspace {
  /// Dense: a bit set over C's columns, 64 to a word, all clear between rows.
  Value seen;
  /// Hash: the table's columns, and the row that took each slot (a slot is
  /// free for row r when its stamp is not r).
  Value keys, stamps;
  /// A row's sums: at their columns (dense) or slots (hash); null when only
  /// columns are counted.
  Value acc;
  /// A row's columns as they first appear; null when the hash table only
  /// counts them.
  Value scratch;
  /// Hash, with sums: the slot of each column of `scratch`.
  Value slots;
  /// Hash: the current row's part of the table (rowTable): its mask
  /// (index) and the shift that takes a 64-bit hash to it (i64).
  Value rowMask, rowShift;
};

/// The kernel's body on its buffers (the file header's three phases).
class GustavsonBuilder {
public:
  GustavsonBuilder(OpBuilder &b, Location loc, CsrBuffers a, CsrBuffers bm,
                   st::SparseTensorType aType, st::SparseTensorType bType,
                   st::SparseTensorType cType, func::FuncOp exitFn)
      : b(b), loc(loc), exitFn(exitFn), a(a), bm(bm), cType(cType),
        isFloat(isa<FloatType>(cType.getElementType())) {
    rows = dimension(aType, a, 0);
    cols = dimension(bType, bm, 1);
    // C's coordinates are B's; a C narrower than B could wrap them. Its
    // largest stored coordinate (a pass over B's coordinates, only for
    // such a C) is what must fit, as in upstream's result, not C's size.
    if (cType.getCrdWidth() != 0 &&
        (bType.getCrdWidth() == 0 ||
         bType.getCrdWidth() > cType.getCrdWidth())) {
      Value c0 = constantIndex(b, loc, 0);
      Value bEntries =
          loadPosition(b, loc, bm.positions, dimension(bType, bm, 0));
      Value widest = forRange(
          b, loc, c0, bEntries, ValueRange{c0},
          [&](OpBuilder &b, Location loc, Value q,
              ValueRange largest) -> SmallVector<Value> {
            return {arith::MaxUIOp::create(
                b, loc, largest[0], loadPosition(b, loc, bm.coordinates, q))};
          })[0];
      failIfUnrepresentable(widest, cType.getCrdType(),
                            "sptune: the SpGEMM kernel cannot store B's "
                            "columns in C's coordinates' width; B's largest "
                            "column is ");
    }
  }

  /// Builds the body; returns C's buffers.
  SmallVector<Value> build(Operation *within,
                           const GustavsonSettings &settings) {
    Type index = b.getIndexType();
    Value rows1 = plusOne(b, loc, rows);
    Value blocks = settings.threads > 0
                       ? constantIndex(b, loc, settings.threads)
                       : maxThreads(b, loc, within);
    auto [bounds, workPrefix] = blockBounds(blocks);
    work = workPrefix;
    Value rowStart = allocate(b, loc, index, rows1);
    // One pass when C's buffers with a slot per product and per row fit the
    // budget, else two.
    Value slots = load(b, loc, work, rows);
    unsigned valueBytes =
        (cType.getElementType().getIntOrFloatBitWidth() + 7) / 8;
    unsigned coordinateBytes =
        (cType.getCrdWidth() ? cType.getCrdWidth() : 64) / 8;
    Value bytes = arith::MulIOp::create(
        b, loc, slots, constantIndex(b, loc, coordinateBytes + valueBytes));
    Value fits =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, bytes,
                              constantIndex(b, loc, settings.onePassBytes));
    auto buffer = [](Type e) {
      return MemRefType::get({ShapedType::kDynamic}, e);
    };
    SmallVector<Type> resultTypes = {buffer(cType.getPosType()),
                                     buffer(cType.getCrdType()),
                                     buffer(cType.getElementType()), index};
    // The product with one workspace: in one pass or two.
    auto product = [&](bool hash) {
      hashed = hash;
      if (hash && !tableSize)
        sizeTable();
      return ifElse(
          fits, resultTypes,
          [&] { return onePass(blocks, bounds, work, rowStart); },
          [&] { return twoPasses(blocks, bounds, rowStart); });
    };
    SmallVector<Value> results;
    switch (settings.accumulator) {
    case GustavsonAccumulator::Dense:
      results = product(false);
      break;
    case GustavsonAccumulator::Hash:
      results = product(true);
      break;
    case GustavsonAccumulator::Auto: {
      // Dense unless its workspace over all blocks (a bit, a column and a
      // value per column, rounded up to whole bytes) exceeds the budget:
      // cols > budget / (blocks * perColumn), which cannot overflow; and
      // then only if the hash table's workspace is smaller (a column, a
      // stamp and a value per slot, a column and a slot per entry of the
      // longest row; rows whose products near C's columns need more than the
      // dense one).
      Value perBlock = arith::DivUIOp::create(
          b, loc, constantIndex(b, loc, kDenseWorkspaceBudget),
          arith::MulIOp::create(b, loc, blocks,
                                constantIndex(b, loc, 8 + valueBytes + 1)));
      Value tooWide = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                            cols, perBlock);
      sizeTable();
      Value hashBytes = add(
          b, loc,
          arith::MulIOp::create(b, loc, tableSize,
                                constantIndex(b, loc, 16 + valueBytes)),
          arith::MulIOp::create(b, loc, rowBound, constantIndex(b, loc, 16)));
      // hashBytes < cols * perColumn, without the product (which would wrap
      // for columns near 2^64 / perColumn).
      Value smaller = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult,
          arith::DivUIOp::create(b, loc, hashBytes,
                                 constantIndex(b, loc, 8 + valueBytes + 1)),
          cols);
      results = ifElse(
          arith::AndIOp::create(b, loc, tooWide, smaller), resultTypes,
          [&] { return product(true); }, [&] { return product(false); });
      break;
    }
    }
    memref::DeallocOp::create(b, loc, bounds);
    memref::DeallocOp::create(b, loc, work);
    memref::DeallocOp::create(b, loc, rowStart);
    Value entries = results[3];

    // C's storage specifier.
    Value spec = st::StorageSpecifierInitOp::create(
        b, loc, st::StorageSpecifierType::get(cType.getEncoding()));
    auto set = [&](st::StorageSpecifierKind kind, std::optional<int> level,
                   Value v) {
      spec = st::SetStorageSpecifierOp::create(
          b, loc, spec, st::StorageSpecifierKindAttr::get(b.getContext(), kind),
          level ? b.getIndexAttr(*level) : IntegerAttr(), v);
    };
    set(st::StorageSpecifierKind::LvlSize, 0, rows);
    set(st::StorageSpecifierKind::LvlSize, 1, cols);
    set(st::StorageSpecifierKind::PosMemSize, 1, rows1);
    set(st::StorageSpecifierKind::CrdMemSize, 1, entries);
    set(st::StorageSpecifierKind::ValMemSize, std::nullopt, entries);
    return {results[0], results[1], results[2], spec};
  }

private:
  /// Two passes: each row's distinct columns counted (rowStart[i + 1]), C's
  /// positions by a prefix sum, then each row computed into its place.
  /// Returns C's positions, coordinates, values and its entry count.
  SmallVector<Value> twoPasses(Value blocks, Value bounds, Value rowStart) {
    Value zero = constantIndex(b, loc, 0);
    overBlocks(
        blocks, bounds, /*withAccumulator=*/false, nullptr,
        [&](OpBuilder &b, Location loc, Value row, const Workspace &ws, Value) {
          Value count = forEachProduct(
              b, loc, row, zero,
              [&](OpBuilder &b, Location loc, Value col, Value,
                  Value sofar) -> Value {
                return visit(
                    b, loc, ws, row, col, sofar,
                    [&](OpBuilder &, Location, Value) { return sofar; },
                    [&](OpBuilder &b, Location loc, Value) {
                      // The bit set's words are cleared by column.
                      if (!hashed)
                        store(b, loc, col, ws.scratch, sofar);
                      return plusOne(b, loc, sofar);
                    });
              });
          if (!hashed)
            clearSeen(b, loc, ws.seen, ws.scratch, count);
          store(b, loc, count, rowStart, plusOne(b, loc, row));
          return Value();
        });
    auto [cPositions, entries] = positionsFromCounts(rowStart);
    Value cCoordinates = allocate(b, loc, cType.getCrdType(), entries);
    Value cValues = allocate(b, loc, cType.getElementType(), entries);
    overBlocks(
        blocks, bounds, /*withAccumulator=*/true, nullptr,
        [&](OpBuilder &b, Location loc, Value row, const Workspace &ws, Value) {
          Value length = computeRow(b, loc, row, ws);
          storeRow(b, loc, length, ws, cCoordinates, cValues,
                   load(b, loc, rowStart, row));
          return Value();
        });
    return {cPositions, cCoordinates, cValues, entries};
  }

  /// One pass: C's coordinates and values are allocated with a slot per
  /// product and per row (work[rows]); each block computes its rows into its
  /// region of them ([work[first row], work[end row])), counting them; C's
  /// positions by a prefix sum; then each block's entries are moved down to
  /// their place. There are no staging buffers to allocate and free on every
  /// call: under glibc's default settings a freed buffer of megabytes comes
  /// back as fresh pages, whose faults cost more than the second pass (a
  /// 2.6x slowdown on VDOL_hangGlider_2, docs/results.md). C keeps the
  /// capacity, and its specifier gives the entries' count. The slots past
  /// the entries are address space, except where blocks after the first
  /// computed their entries before moving them: those pages stay in memory
  /// while C lives (0.3-0.6x the entries on the shared matrices checked).
  SmallVector<Value> onePass(Value blocks, Value bounds, Value work,
                             Value rowStart) {
    Value slots = load(b, loc, work, rows);
    Value cCoordinates = allocate(b, loc, cType.getCrdType(), slots);
    Value cValues = allocate(b, loc, cType.getElementType(), slots);
    overBlocks(
        blocks, bounds, /*withAccumulator=*/true,
        [&](OpBuilder &b, Location loc, Value t) {
          return load(b, loc, work, load(b, loc, bounds, t));
        },
        [&](OpBuilder &b, Location loc, Value row, const Workspace &ws,
            Value cursor) {
          Value length = computeRow(b, loc, row, ws);
          storeRow(b, loc, length, ws, cCoordinates, cValues, cursor);
          store(b, loc, length, rowStart, plusOne(b, loc, row));
          return add(b, loc, cursor, length);
        });
    auto [cPositions, entries] = positionsFromCounts(rowStart);
    // Each block's entries move forward from its region's start to their
    // place (block 0's are in place: both start at 0). In one thread that is
    // safe in any overlap, the place being at or below the region. Across
    // blocks, block t's place ends where block t + 1's begins, at or below
    // block t + 1's region, but it begins below the end of block t - 1's
    // entries whenever block t - 1 has rows past the first (a row's slots
    // exceed its entries by one at least): a move in parallel with block
    // t - 1's could overwrite its entries before they move. So two blocks
    // move in parallel (block 1 in the thread that computed it); more move
    // one block after the other, each block's entries split across the
    // threads when its place does not overlap them and they are many, else
    // in one thread.
    Value zero = constantIndex(b, loc, 0);
    auto copy = [&](OpBuilder &b, Location loc, Value from, Value to, Value q) {
      Value src = add(b, loc, from, q);
      Value dst = add(b, loc, to, q);
      store(b, loc, load(b, loc, cCoordinates, src), cCoordinates, dst);
      store(b, loc, load(b, loc, cValues, src), cValues, dst);
    };
    auto moveInOneThread = [&](OpBuilder &b, Location loc, Value from, Value to,
                               Value count) {
      forRange(b, loc, zero, count, {},
               [&](OpBuilder &b, Location loc, Value q, ValueRange) {
                 copy(b, loc, from, to, q);
                 return SmallVector<Value>{};
               });
    };
    Value two = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, blocks,
                                      constantIndex(b, loc, 2));
    auto choice = scf::IfOp::create(b, loc, TypeRange{}, two,
                                    /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(choice.thenBlock());
      parallelFor(
          b, loc, blocks, [&](OpBuilder &b, Location loc, Value block) {
            auto [from, to, count] =
                blockEntries(b, loc, block, bounds, rowStart);
            // Nothing to move where they are in place (block 0).
            Value moved = arith::SelectOp::create(
                b, loc,
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, from,
                                      to),
                zero, count);
            moveInOneThread(b, loc, from, to, moved);
          });
      b.setInsertionPointToStart(choice.elseBlock());
      forRange(
          b, loc, constantIndex(b, loc, 1), blocks, {},
          [&](OpBuilder &b, Location loc, Value t, ValueRange) {
            auto [from, to, count] = blockEntries(b, loc, t, bounds, rowStart);
            Value apart =
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                      add(b, loc, to, count), from);
            Value many = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::uge, count,
                constantIndex(b, loc, kParallelMoveEntries));
            auto split = scf::IfOp::create(
                b, loc, TypeRange{}, arith::AndIOp::create(b, loc, apart, many),
                /*withElseRegion=*/true);
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToStart(split.thenBlock());
            parallelFor(b, loc, count,
                        [&](OpBuilder &b, Location loc, Value q) {
                          copy(b, loc, from, to, q);
                        });
            b.setInsertionPointToStart(split.elseBlock());
            moveInOneThread(b, loc, from, to, count);
            return SmallVector<Value>{};
          });
    }
    return {cPositions, cCoordinates, cValues, entries};
  }

  /// Where block `t`'s entries are after one pass's first phase (`from`,
  /// the start of its region: the work before its first row), where they
  /// go (`to`, C's position of its first row) and how many there are.
  std::tuple<Value, Value, Value> blockEntries(OpBuilder &b, Location loc,
                                               Value t, Value bounds,
                                               Value rowStart) {
    Value first = load(b, loc, bounds, t);
    Value end = load(b, loc, bounds, plusOne(b, loc, t));
    Value from = load(b, loc, work, first);
    Value to = load(b, loc, rowStart, first);
    Value count =
        arith::SubIOp::create(b, loc, load(b, loc, rowStart, end), to);
    return {from, to, count};
  }

  /// Row `row` of C into the block's workspace: its sums in `acc` (at their
  /// columns, or at the slots in `slots`), its columns in
  /// `scratch[0, length)`, in order; `seen` is left clear. Returns the
  /// length.
  Value computeRow(OpBuilder &b, Location loc, Value row, const Workspace &ws) {
    Value acc = ws.acc;
    Value length = forEachProduct(
        b, loc, row, constantIndex(b, loc, 0),
        [&](OpBuilder &b, Location loc, Value col, Value product,
            Value next) -> Value {
          return visit(
              b, loc, ws, row, col, next,
              [&](OpBuilder &b, Location loc, Value at) {
                Value old = load(b, loc, acc, at);
                Value sum = isFloat
                                ? arith::AddFOp::create(b, loc, old, product)
                                      .getResult()
                                : arith::AddIOp::create(b, loc, old, product)
                                      .getResult();
                store(b, loc, sum, acc, at);
                return next;
              },
              [&](OpBuilder &b, Location loc, Value at) {
                // 0 + the first product, as upstream's zero-filled
                // expansion computes it (-0.0 becomes +0.0).
                Value first =
                    isFloat ? arith::AddFOp::create(
                                  b, loc,
                                  arith::ConstantOp::create(
                                      b, loc, b.getZeroAttr(product.getType())),
                                  product)
                                  .getResult()
                            : product;
                store(b, loc, first, acc, at);
                store(b, loc, col, ws.scratch, next);
                if (hashed)
                  store(b, loc, at, ws.slots, next);
                return plusOne(b, loc, next);
              });
        });
    if (hashed)
      // Rows a hash table serves are short: sorted with their slots.
      sortColumns(b, loc, ws.scratch, ws.slots, length);
    else
      orderColumns(b, loc, ws.seen, ws.scratch, length);
    return length;
  }

  /// `already(at)` when row `row` has met column `col` before, else
  /// `fresh(at)` (which must store `col` where `already` will find it: the
  /// bit set or the table is marked here); `at` is where the column's sum
  /// is kept (its column, or its slot). Both give the carried index value.
  Value visit(OpBuilder &b, Location loc, const Workspace &ws, Value row,
              Value col, Value carried,
              function_ref<Value(OpBuilder &, Location, Value)> already,
              function_ref<Value(OpBuilder &, Location, Value)> fresh) {
    if (!hashed)
      return firstTime(
          b, loc, ws.seen, col, carried,
          [&](OpBuilder &b, Location loc) { return already(b, loc, col); },
          [&](OpBuilder &b, Location loc) { return fresh(b, loc, col); });
    Type i64 = b.getI64Type();
    // Fibonacci hashing: the high bits of col * 2^64 / phi.
    Value hash = arith::ShRUIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc,
                              arith::IndexCastUIOp::create(b, loc, i64, col),
                              arith::ConstantIntOp::create(
                                  b, loc, i64, int64_t(0x9E3779B97F4A7C15ULL))),
        ws.rowShift);
    Type index = b.getIndexType();
    // Linear probing, past slots this row took for other columns.
    auto probe = scf::WhileOp::create(
        b, loc, TypeRange{index},
        ValueRange{arith::IndexCastUIOp::create(b, loc, index, hash)},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value slot = args[0];
          Value taken =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                    load(b, loc, ws.stamps, slot), row);
          Value other = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                              load(b, loc, ws.keys, slot), col);
          // Not `and`: a slot no row took holds no column yet.
          scf::ConditionOp::create(
              b, loc,
              arith::SelectOp::create(
                  b, loc, taken, other,
                  arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0)),
              args);
        },
        [&](OpBuilder &b, Location loc, ValueRange args) {
          scf::YieldOp::create(
              b, loc,
              ValueRange{arith::AndIOp::create(b, loc, plusOne(b, loc, args[0]),
                                               ws.rowMask)});
        });
    Value slot = probe.getResult(0);
    Value met = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      load(b, loc, ws.stamps, slot), row);
    auto branch = scf::IfOp::create(b, loc, TypeRange{carried.getType()}, met,
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(b, loc, already(b, loc, slot));
    b.setInsertionPointToStart(branch.elseBlock());
    store(b, loc, row, ws.stamps, slot);
    store(b, loc, col, ws.keys, slot);
    scf::YieldOp::create(b, loc, fresh(b, loc, slot));
    return branch.getResult(0);
  }

  /// The slots of a table for `distinct` columns: a power of two at least
  /// twice them, 2 at least; returns log2 of it (i64).
  static Value tableBits(OpBuilder &b, Location loc, Value distinct) {
    Value wanted = arith::MaxUIOp::create(
        b, loc, add(b, loc, distinct, distinct), constantIndex(b, loc, 2));
    Type i64 = b.getI64Type();
    // The bits of wanted - 1.
    return arith::SubIOp::create(
        b, loc, arith::ConstantIntOp::create(b, loc, i64, 64),
        math::CountLeadingZerosOp::create(
            b, loc,
            arith::IndexCastUIOp::create(
                b, loc, i64,
                arith::SubIOp::create(b, loc, wanted,
                                      constantIndex(b, loc, 1)))));
  }

  /// The products of A's row `row` (its work less one).
  Value productsOf(OpBuilder &b, Location loc, Value row) {
    return arith::SubIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, load(b, loc, work, plusOne(b, loc, row)),
                              load(b, loc, work, row)),
        constantIndex(b, loc, 1));
  }

  /// Row `row`'s part of the table: its first slots, a power of two at least
  /// twice the row's products (at most C's columns; tableBits), so that a
  /// short row probes a few cache lines; the slots past it are left to
  /// longer rows. Its mask (index) and the shift that takes a 64-bit hash to
  /// it (i64).
  std::pair<Value, Value> rowTable(OpBuilder &b, Location loc, Value row) {
    Value bits = tableBits(
        b, loc, arith::MinUIOp::create(b, loc, productsOf(b, loc, row), cols));
    Type i64 = b.getI64Type();
    Value size = arith::IndexCastUIOp::create(
        b, loc, b.getIndexType(),
        arith::ShLIOp::create(
            b, loc, arith::ConstantIntOp::create(b, loc, i64, 1), bits));
    return {arith::SubIOp::create(b, loc, size, constantIndex(b, loc, 1)),
            arith::SubIOp::create(
                b, loc, arith::ConstantIntOp::create(b, loc, i64, 64), bits)};
  }

  /// The hash table's size, for the longest row (rowTable's size for it);
  /// sets tableSize and rowBound (a row's most distinct columns, 1 at
  /// least).
  void sizeTable() {
    Value bound = arith::MinUIOp::create(b, loc, widest, cols);
    rowBound = arith::MaxUIOp::create(b, loc, bound, constantIndex(b, loc, 1));
    Type i64 = b.getI64Type();
    tableSize = arith::IndexCastUIOp::create(
        b, loc, b.getIndexType(),
        arith::ShLIOp::create(b, loc,
                              arith::ConstantIntOp::create(b, loc, i64, 1),
                              tableBits(b, loc, bound)));
  }

  /// A buffer of `size` elements, allocated outside any parallel loop; when
  /// the allocation fails (a null pointer for a size above 0), the program
  /// says so and exits with status 1, as the sparse runtime's fatal errors
  /// do, instead of writing through null. (The blocks' workspaces are
  /// checked by overBlocks.)
  Value allocate(OpBuilder &b, Location loc, Type element, Value size) {
    Value buffer = allocateUnchecked(b, loc, element, size);
    DataLayout layout =
        DataLayout::closest(b.getInsertionBlock()->getParentOp());
    exitIf(
        b, loc, isLost(b, loc, buffer, size),
        arith::MulIOp::create(
            b, loc, size, constantIndex(b, loc, layout.getTypeSize(element))));
    return buffer;
  }

  /// Whether the allocation of `buffer`, of `size` elements, failed (a null
  /// pointer for a size above 0).
  static Value isLost(OpBuilder &b, Location loc, Value buffer, Value size) {
    Value zero = constantIndex(b, loc, 0);
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    return arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, address, zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, size, zero));
  }

  /// When `lost`: prints that `bytes` could not be allocated and exits with
  /// status 1, as the sparse runtime's fatal errors do.
  void exitIf(OpBuilder &b, Location loc, Value lost, Value bytes) {
    failIf(b, loc, lost,
           "sptune: the SpGEMM kernel ran out of memory allocating this many "
           "bytes (a dense workspace, asked for by gustavson-accumulator=dense "
           "or a schedule's accumulator = dense, takes 9-17 bytes per column "
           "of C per thread, and auto or hash may take less; one pass, by "
           "passes = one, allocates C with a coordinate and a value per "
           "product): ",
           bytes);
  }

  /// When `condition`: prints `message` and `number`, and exits with status
  /// 1.
  void failIf(OpBuilder &b, Location loc, Value condition, StringRef message,
              Value number) {
    auto check = scf::IfOp::create(b, loc, TypeRange{}, condition,
                                   /*withElseRegion=*/false);
    OpBuilder t = check.getThenBodyBuilder();
    vector::PrintOp::create(t, loc, message);
    vector::PrintOp::create(t, loc, number);
    func::CallOp::create(
        t, loc, exitFn,
        ValueRange{arith::ConstantIntOp::create(t, loc, t.getI32Type(), 1)});
  }

  /// Exits with a message when `count` (index) exceeds what an unsigned
  /// integer of `type` holds (nothing to check for index or 64 bits):
  /// C's positions and coordinates would wrap, a silently wrong result.
  void failIfUnrepresentable(Value count, Type type, StringRef message) {
    if (type.isIndex() || type.getIntOrFloatBitWidth() >= 64)
      return;
    uint64_t largest = (uint64_t(1) << type.getIntOrFloatBitWidth()) - 1;
    failIf(b, loc,
           arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, count,
                                 constantIndex(b, loc, int64_t(largest))),
           message, count);
  }

  /// `then()` or `otherwise()` by `condition`, each building its branch's
  /// values (of `types`) at the branch's start; the if's results.
  SmallVector<Value> ifElse(Value condition, TypeRange types,
                            function_ref<SmallVector<Value>()> then,
                            function_ref<SmallVector<Value>()> otherwise) {
    auto branch = scf::IfOp::create(b, loc, types, condition,
                                    /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      scf::YieldOp::create(b, loc, then());
      b.setInsertionPointToStart(branch.elseBlock());
      scf::YieldOp::create(b, loc, otherwise());
    }
    return SmallVector<Value>(branch.getResults());
  }

  /// Puts a row's `length` columns in `scratch` in order and clears their
  /// bits in `seen`. Where the words of `seen` they span number at most
  /// kWordsPerColumn times the columns (most rows of a product with
  /// locality, and long rows), the set bits are read off those words in
  /// order (counting trailing zeros) and the words zeroed; elsewhere the
  /// columns are sorted (rankSortShortRow up to 2 kRankSortColumns, else
  /// upstream's sort: `scratch` has identity layout) and their words
  /// zeroed.
  void orderColumns(OpBuilder &b, Location loc, Value seen, Value scratch,
                    Value length) {
    constexpr int64_t kWordsPerColumn = 4;
    Value zero = constantIndex(b, loc, 0);
    ValueRange span = forRange(
        b, loc, zero, length, ValueRange{constantIndex(b, loc, -1), zero},
        [&](OpBuilder &b, Location loc, Value q, ValueRange lowHigh) {
          Value col = load(b, loc, scratch, q);
          return SmallVector<Value>{
              arith::MinUIOp::create(b, loc, lowHigh[0], col),
              arith::MaxUIOp::create(b, loc, lowHigh[1], col)};
        });
    Value firstWord = wordOf(b, loc, span[0]);
    Value endWord = plusOne(b, loc, wordOf(b, loc, span[1]));
    Value words = arith::SubIOp::create(b, loc, endWord, firstWord);
    Value readOff = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, length,
                              constantIndex(b, loc, 1)),
        arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ule, words,
            arith::MulIOp::create(b, loc, length,
                                  constantIndex(b, loc, kWordsPerColumn))));
    auto branch = scf::IfOp::create(b, loc, TypeRange{}, readOff,
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    Type i64 = b.getI64Type();
    forRange(
        b, loc, firstWord, endWord, ValueRange{zero},
        [&](OpBuilder &b, Location loc, Value w, ValueRange next) {
          Value base =
              arith::MulIOp::create(b, loc, w, constantIndex(b, loc, 64));
          auto bits = scf::WhileOp::create(
              b, loc, TypeRange{i64, b.getIndexType()},
              ValueRange{load(b, loc, seen, w), next[0]},
              [&](OpBuilder &b, Location loc, ValueRange args) {
                Value more = arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::ne, args[0],
                    arith::ConstantIntOp::create(b, loc, i64, 0));
                scf::ConditionOp::create(b, loc, more, args);
              },
              [&](OpBuilder &b, Location loc, ValueRange args) {
                Value bit = math::CountTrailingZerosOp::create(b, loc, args[0]);
                Value col = add(b, loc, base,
                                arith::IndexCastUIOp::create(
                                    b, loc, b.getIndexType(), bit));
                store(b, loc, col, scratch, args[1]);
                Value rest = arith::AndIOp::create(
                    b, loc, args[0],
                    arith::SubIOp::create(
                        b, loc, args[0],
                        arith::ConstantIntOp::create(b, loc, i64, 1)));
                scf::YieldOp::create(
                    b, loc, ValueRange{rest, plusOne(b, loc, args[1])});
              });
          store(b, loc, arith::ConstantIntOp::create(b, loc, i64, 0), seen, w);
          return SmallVector<Value>{bits.getResult(1)};
        });
    b.setInsertionPointToStart(branch.elseBlock());
    sortColumns(b, loc, scratch, /*slots=*/Value(), length);
    clearSeen(b, loc, seen, scratch, length);
  }

  /// Sorts the `length` columns of `scratch`, and `slots` (when given) with
  /// them: rankSortShortRow in one vector up to kRankSortColumns, in two up
  /// to twice that, else upstream's sort (`scratch` has identity layout).
  void sortColumns(OpBuilder &b, Location loc, Value scratch, Value slots,
                   Value length) {
    auto shortRow = scf::IfOp::create(
        b, loc, TypeRange{},
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, length,
                              constantIndex(b, loc, kRankSortColumns)),
        /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(shortRow.thenBlock());
    rankSortShortRow(b, loc, scratch, slots, length, /*halves=*/1);
    b.setInsertionPointToStart(shortRow.elseBlock());
    auto twoHalves = scf::IfOp::create(
        b, loc, TypeRange{},
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, length,
                              constantIndex(b, loc, 2 * kRankSortColumns)),
        /*withElseRegion=*/true);
    b.setInsertionPointToStart(twoHalves.thenBlock());
    rankSortShortRow(b, loc, scratch, slots, length, /*halves=*/2);
    b.setInsertionPointToStart(twoHalves.elseBlock());
    st::SortOp::create(
        b, loc, length, scratch, slots ? ValueRange{slots} : ValueRange{},
        AffineMap::getMultiDimIdentityMap(1, b.getContext()), IntegerAttr(),
        st::SparseTensorSortKind::HybridQuickSort);
  }

  /// The columns of one of rankSortShortRow's vectors: two AVX-512
  /// registers of 64-bit columns.
  static constexpr int64_t kRankSortColumns = 16;

  /// Sorts the `length` (at most `halves` x kRankSortColumns) distinct
  /// columns at the start of `scratch` in place, and `slots` (when given)
  /// with them, without a branch on their values: all are loaded into
  /// `halves` vectors, and each goes to its rank, the number of the row's
  /// columns below it (a vector compare and a population count per vector).
  /// One vector of 32 lanes instead of two of 16 made cs4's product 1.4x
  /// slower although its rows never took it (its loop of products slowed).
  /// Upstream's sort of rows this short (a binary insertion sort) spends
  /// its time in mispredicted branches: 38% of a mesh's product (cs4, whose
  /// rows of C have ~11 columns spread too far for the bit set's read-off).
  void rankSortShortRow(OpBuilder &b, Location loc, Value scratch, Value slots,
                        Value length, int64_t halves) {
    Type index = b.getIndexType();
    auto columnsType = VectorType::get({kRankSortColumns}, index);
    auto maskType = VectorType::get({kRankSortColumns}, b.getI1Type());
    // Lanes past the row hold the largest index, below no column.
    Value past = vector::BroadcastOp::create(b, loc, columnsType,
                                             constantIndex(b, loc, -1));
    SmallVector<Value> columns, slotsAt;
    for (int64_t h = 0; h < halves; ++h) {
      Value at = constantIndex(b, loc, h * kRankSortColumns);
      Value mask = vector::CreateMaskOp::create(
          b, loc, maskType,
          ValueRange{arith::SubIOp::create(
              b, loc, arith::MaxUIOp::create(b, loc, length, at), at)});
      columns.push_back(vector::MaskedLoadOp::create(
          b, loc, columnsType, scratch, ValueRange{at}, mask, past));
      if (slots)
        slotsAt.push_back(vector::MaskedLoadOp::create(
            b, loc, columnsType, slots, ValueRange{at}, mask, past));
    }
    auto bitsType = VectorType::get({1}, b.getIntegerType(kRankSortColumns));
    for (int64_t h = 0; h < halves; ++h) {
      Value lo = constantIndex(b, loc, h * kRankSortColumns);
      Value hi = arith::MinUIOp::create(
          b, loc, length, constantIndex(b, loc, (h + 1) * kRankSortColumns));
      forRange(
          b, loc, lo, hi, {},
          [&](OpBuilder &b, Location loc, Value q, ValueRange) {
            Value lane = arith::SubIOp::create(b, loc, q, lo);
            Value col = vector::ExtractOp::create(b, loc, columns[h],
                                                  ArrayRef<OpFoldResult>{lane});
            Value all = vector::BroadcastOp::create(b, loc, columnsType, col);
            Value rank;
            for (Value half : columns) {
              Value below = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::ult, half, all);
              Value bits = vector::ExtractOp::create(
                  b, loc, vector::BitCastOp::create(b, loc, bitsType, below),
                  ArrayRef<int64_t>{0});
              Value count = arith::IndexCastUIOp::create(
                  b, loc, index, math::CtPopOp::create(b, loc, bits));
              rank = rank ? arith::AddIOp::create(b, loc, rank, count) : count;
            }
            store(b, loc, col, scratch, rank);
            if (slots)
              store(b, loc,
                    vector::ExtractOp::create(b, loc, slotsAt[h],
                                              ArrayRef<OpFoldResult>{lane}),
                    slots, rank);
            return SmallVector<Value>{};
          });
    }
  }

  /// Zeroes the words of `seen` that hold the `length` columns of `scratch`.
  void clearSeen(OpBuilder &b, Location loc, Value seen, Value scratch,
                 Value length) {
    Value zero = arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);
    forRange(b, loc, constantIndex(b, loc, 0), length, {},
             [&](OpBuilder &b, Location loc, Value q, ValueRange) {
               store(b, loc, zero, seen,
                     wordOf(b, loc, load(b, loc, scratch, q)));
               return SmallVector<Value>{};
             });
  }

  /// The word of a bit set over columns that holds column `col`.
  static Value wordOf(OpBuilder &b, Location loc, Value col) {
    return arith::ShRUIOp::create(b, loc, col, constantIndex(b, loc, 6));
  }

  /// Stores a computed row's columns and values at `at` of `columns` and
  /// `values`.
  void storeRow(OpBuilder &b, Location loc, Value length, const Workspace &ws,
                Value columns, Value values, Value at) {
    Type crdType = cast<MemRefType>(columns.getType()).getElementType();
    forRange(b, loc, constantIndex(b, loc, 0), length, {},
             [&](OpBuilder &b, Location loc, Value q, ValueRange) {
               Value col = load(b, loc, ws.scratch, q);
               Value dst = add(b, loc, at, q);
               store(b, loc, indexAs(b, loc, col, crdType), columns, dst);
               Value sumAt = hashed ? load(b, loc, ws.slots, q) : col;
               store(b, loc, load(b, loc, ws.acc, sumAt), values, dst);
               return SmallVector<Value>{};
             });
  }

  /// counts[i + 1] (counts[0] ignored) summed in place into row starts; also
  /// written as C's positions. Returns the positions and the total.
  std::pair<Value, Value> positionsFromCounts(Value counts) {
    Value zero = constantIndex(b, loc, 0);
    Type posType = cType.getPosType();
    Value positions = allocate(b, loc, posType, plusOne(b, loc, rows));
    store(b, loc, zero, counts, zero);
    store(b, loc, indexAs(b, loc, zero, posType), positions, zero);
    forRange(b, loc, zero, rows, {},
             [&](OpBuilder &b, Location loc, Value row, ValueRange) {
               Value next = plusOne(b, loc, row);
               Value sum = add(b, loc, load(b, loc, counts, row),
                               load(b, loc, counts, next));
               store(b, loc, sum, counts, next);
               store(b, loc, indexAs(b, loc, sum, posType), positions, next);
               return SmallVector<Value>{};
             });
    Value entries = load(b, loc, counts, rows);
    // Checked before any position is read back (the one pass moves entries
    // by them).
    failIfUnrepresentable(entries, posType,
                          "sptune: the SpGEMM kernel's product has more "
                          "entries than C's positions' width holds: ");
    return {positions, entries};
  }

  /// Dimension `d` of a CSR operand: static, or its level's size.
  Value dimension(st::SparseTensorType type, const CsrBuffers &buffers,
                  unsigned d) {
    int64_t size = type.getDimShape()[d];
    if (!ShapedType::isDynamic(size))
      return constantIndex(b, loc, size);
    return levelSize(b, loc, buffers.specifier, d);
  }

  /// The blocks' bounds and the work prefix: work[i] is the work of the
  /// rows before i (each row's products, plus one); bounds[t], t =
  /// 0..blocks, the first row of block t, cut where the work reaches
  /// t / blocks of the total.
  std::pair<Value, Value> blockBounds(Value blocks) {
    Type index = b.getIndexType();
    Value zero = constantIndex(b, loc, 0);
    Value work = allocate(b, loc, index, plusOne(b, loc, rows));
    store(b, loc, zero, work, zero);
    // The most products a row makes (the hash table's size), in the same
    // pass.
    widest = forRange(
        b, loc, zero, rows, ValueRange{zero},
        [&](OpBuilder &b, Location loc, Value row, ValueRange most) {
          Value before = plusOne(b, loc, load(b, loc, work, row));
          Value total = forRange(
              b, loc, loadPosition(b, loc, a.positions, row),
              loadPosition(b, loc, a.positions, plusOne(b, loc, row)), before,
              [&](OpBuilder &b, Location loc, Value p, ValueRange sum) {
                Value k = loadPosition(b, loc, a.coordinates, p);
                Value products = arith::SubIOp::create(
                    b, loc,
                    loadPosition(b, loc, bm.positions, plusOne(b, loc, k)),
                    loadPosition(b, loc, bm.positions, k));
                return SmallVector<Value>{add(b, loc, sum[0], products)};
              })[0];
          store(b, loc, total, work, plusOne(b, loc, row));
          return SmallVector<Value>{arith::MaxUIOp::create(
              b, loc, most[0], arith::SubIOp::create(b, loc, total, before))};
        })[0];
    Value total = load(b, loc, work, rows);
    Value bounds = allocate(b, loc, index, plusOne(b, loc, blocks));
    forRange(b, loc, zero, blocks, {},
             [&](OpBuilder &b, Location loc, Value t, ValueRange) {
               Value goal = arith::DivUIOp::create(
                   b, loc, arith::MulIOp::create(b, loc, total, t), blocks);
               store(b, loc, firstRowReaching(b, loc, work, zero, rows, goal),
                     bounds, t);
               return SmallVector<Value>{};
             });
    store(b, loc, rows, bounds, blocks);
    return {bounds, work};
  }

  /// An scf.parallel over the blocks; in each, a workspace (a bit set over
  /// C's columns, all clear, and a list of columns; or a hash table, all
  /// free, with a list of columns and their slots only with sums), and with
  /// `withAccumulator` its sums, all freed at its end;
  /// `perRow(row, workspace, carried)` for each of the block's rows in order
  /// (leaving `seen` clear), threading the value `initial(block)` gives through
  /// them (no value without `initial`).
  void overBlocks(Value blocks, Value bounds, bool withAccumulator,
                  function_ref<Value(OpBuilder &, Location, Value)> initial,
                  function_ref<Value(OpBuilder &, Location, Value,
                                     const Workspace &, Value)>
                      perRow) {
    Value zero = constantIndex(b, loc, 0);
    Value one = constantIndex(b, loc, 1);
    Type index = b.getIndexType();
    Type element = cType.getElementType();
    // Each block allocates its workspace in its thread (its pages first
    // touched there); a block without rows (more threads than rows, or rows
    // of no products around a heavy one) allocates none. A block whose
    // allocation fails computes nothing and marks `failed`; after the loop
    // the kernel says so once and exits, so that no thread calls exit()
    // while others still run.
    struct Part {
      Value Workspace::*field;
      Type element;
      Value size;
    };
    SmallVector<Part> parts;
    Value words = wordOf(b, loc, add(b, loc, cols, constantIndex(b, loc, 63)));
    if (hashed) {
      parts = {{&Workspace::stamps, index, tableSize},
               {&Workspace::keys, index, tableSize}};
      // Counting a row's columns needs the table only.
      if (withAccumulator) {
        parts.push_back({&Workspace::scratch, index, rowBound});
        parts.push_back({&Workspace::acc, element, tableSize});
        parts.push_back({&Workspace::slots, index, rowBound});
      }
    } else {
      parts = {{&Workspace::seen, b.getI64Type(), words},
               {&Workspace::scratch, index, cols}};
      if (withAccumulator)
        parts.push_back({&Workspace::acc, element, cols});
    }
    Type i64 = b.getI64Type();
    Value failed = allocate(b, loc, i64, one);
    store(b, loc, arith::ConstantIntOp::create(b, loc, i64, 0), failed, zero);
    parallelFor(
        b, loc, blocks, [&](OpBuilder &b, Location loc, Value t) {
          Workspace ws;
          SmallVector<Value> owned;
          Value lost = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
          Value busy = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult, load(b, loc, bounds, t),
              load(b, loc, bounds, plusOne(b, loc, t)));
          // `size`, or nothing in a block without rows.
          auto sizeHere = [&](Value size) -> Value {
            return arith::SelectOp::create(b, loc, busy, size,
                                           constantIndex(b, loc, 0));
          };
          for (const Part &part : parts) {
            Value size = sizeHere(part.size);
            Value buffer = allocateUnchecked(b, loc, part.element, size);
            ws.*part.field = buffer;
            owned.push_back(buffer);
            lost = arith::OrIOp::create(b, loc, lost,
                                        isLost(b, loc, buffer, size));
          }
          auto branch = scf::IfOp::create(b, loc, TypeRange{}, lost,
                                          /*withElseRegion=*/true);
          {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToStart(branch.thenBlock());
            memref::AtomicRMWOp::create(
                b, loc, arith::AtomicRMWKind::ori,
                arith::ConstantIntOp::create(b, loc, i64, 1), failed,
                ValueRange{constantIndex(b, loc, 0)});
            b.setInsertionPointToStart(branch.elseBlock());
            auto fill = [&](Value buffer, Value size, Value v) {
              forRange(b, loc, constantIndex(b, loc, 0), size, {},
                       [&](OpBuilder &b, Location loc, Value w, ValueRange) {
                         store(b, loc, v, buffer, w);
                         return SmallVector<Value>{};
                       });
            };
            if (hashed)
              // No row is all ones.
              fill(ws.stamps, sizeHere(tableSize), constantIndex(b, loc, -1));
            else
              fill(ws.seen, sizeHere(words),
                   arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0));
            SmallVector<Value> carried;
            if (initial)
              carried.push_back(initial(b, loc, t));
            forRange(b, loc, load(b, loc, bounds, t),
                     load(b, loc, bounds, plusOne(b, loc, t)), carried,
                     [&](OpBuilder &b, Location loc, Value row, ValueRange c) {
                       Workspace rowWs = ws;
                       if (hashed)
                         std::tie(rowWs.rowMask, rowWs.rowShift) =
                             rowTable(b, loc, row);
                       Value next = perRow(b, loc, row, rowWs,
                                           c.empty() ? Value() : c[0]);
                       return c.empty() ? SmallVector<Value>{}
                                        : SmallVector<Value>{next};
                     });
          }
          // free(NULL) does nothing.
          for (Value buffer : owned)
            memref::DeallocOp::create(b, loc, buffer);
        });
    // The bytes a block's workspace asks for.
    DataLayout layout =
        DataLayout::closest(b.getInsertionBlock()->getParentOp());
    Value bytes = zero;
    for (const Part &part : parts)
      bytes = add(b, loc, bytes,
                  arith::MulIOp::create(
                      b, loc, part.size,
                      constantIndex(b, loc, layout.getTypeSize(part.element))));
    Value anyLost = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, load(b, loc, failed, zero),
        arith::ConstantIntOp::create(b, loc, i64, 0));
    exitIf(b, loc, anyLost, bytes);
    memref::DeallocOp::create(b, loc, failed);
  }

  /// Folds `step(col, A(row, k) * B(k, col), carried)` over the products of
  /// A's row `row`, in order; returns the last carried value.
  Value forEachProduct(
      OpBuilder &b, Location loc, Value row, Value init,
      function_ref<Value(OpBuilder &, Location, Value, Value, Value)> step) {
    return forRange(
        b, loc, loadPosition(b, loc, a.positions, row),
        loadPosition(b, loc, a.positions, plusOne(b, loc, row)), init,
        [&](OpBuilder &b, Location loc, Value p, ValueRange carried) {
          Value k = loadPosition(b, loc, a.coordinates, p);
          Value x = load(b, loc, a.values, p);
          return SmallVector<Value>{forRange(
              b, loc, loadPosition(b, loc, bm.positions, k),
              loadPosition(b, loc, bm.positions, plusOne(b, loc, k)),
              carried[0],
              [&](OpBuilder &b, Location loc, Value q, ValueRange c) {
                Value col = loadPosition(b, loc, bm.coordinates, q);
                Value y = load(b, loc, bm.values, q);
                Value product =
                    isFloat ? arith::MulFOp::create(b, loc, x, y).getResult()
                            : arith::MulIOp::create(b, loc, x, y).getResult();
                return SmallVector<Value>{step(b, loc, col, product, c[0])};
              })[0]};
        })[0];
  }

  /// `already()` when column `col`'s bit is set in `seen`, else sets it and
  /// `fresh()`; both give the carried index value.
  Value firstTime(OpBuilder &b, Location loc, Value seen, Value col,
                  Value carried,
                  function_ref<Value(OpBuilder &, Location)> already,
                  function_ref<Value(OpBuilder &, Location)> fresh) {
    Type i64 = b.getI64Type();
    Value word = wordOf(b, loc, col);
    Value bits = load(b, loc, seen, word);
    Value shift = arith::IndexCastUIOp::create(
        b, loc, i64,
        arith::AndIOp::create(b, loc, col, constantIndex(b, loc, 63)));
    Value mask = arith::ShLIOp::create(
        b, loc, arith::ConstantIntOp::create(b, loc, i64, 1), shift);
    Value set =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                              arith::AndIOp::create(b, loc, bits, mask),
                              arith::ConstantIntOp::create(b, loc, i64, 0));
    auto branch = scf::IfOp::create(b, loc, TypeRange{carried.getType()}, set,
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(b, loc, already(b, loc));
    b.setInsertionPointToStart(branch.elseBlock());
    store(b, loc, arith::OrIOp::create(b, loc, bits, mask), seen, word);
    scf::YieldOp::create(b, loc, fresh(b, loc));
    return branch.getResult(0);
  }

  OpBuilder &b;
  Location loc;
  /// libc's exit(int).
  func::FuncOp exitFn;
  CsrBuffers a, bm;
  st::SparseTensorType cType;
  bool isFloat;
  Value rows, cols;
  /// The work prefix of blockBounds, and the most products a row makes.
  Value work, widest;
  /// Whether the code being built keeps sums in a hash table; then its
  /// size and a row's most distinct columns (sizeTable).
  bool hashed = false;
  Value tableSize, rowBound;
};

} // namespace

/// `settings` as the dictionary kGustavsonSettingsAttrName holds.
static DictionaryAttr settingsAttr(Builder &b, const GustavsonSettings &s) {
  const char *accumulator =
      s.accumulator == GustavsonAccumulator::Dense  ? "dense"
      : s.accumulator == GustavsonAccumulator::Hash ? "hash"
                                                    : "auto";
  return b.getDictionaryAttr(
      {b.getNamedAttr("accumulator", b.getStringAttr(accumulator)),
       b.getNamedAttr("one_pass_bytes", b.getI64IntegerAttr(s.onePassBytes)),
       b.getNamedAttr("threads", b.getI32IntegerAttr(s.threads))});
}

/// The inverse of settingsAttr, or failure (with an error on `f`).
static FailureOr<GustavsonSettings> readSettings(func::FuncOp f) {
  auto dict = f->getAttrOfType<DictionaryAttr>(kGustavsonSettingsAttrName);
  auto accumulator = dict ? dict.getAs<StringAttr>("accumulator") : nullptr;
  auto onePass = dict ? dict.getAs<IntegerAttr>("one_pass_bytes") : nullptr;
  auto threads = dict ? dict.getAs<IntegerAttr>("threads") : nullptr;
  GustavsonSettings s;
  if (accumulator && accumulator.getValue() == "dense")
    s.accumulator = GustavsonAccumulator::Dense;
  else if (accumulator && accumulator.getValue() == "hash")
    s.accumulator = GustavsonAccumulator::Hash;
  else if (!accumulator || accumulator.getValue() != "auto")
    accumulator = nullptr;
  if (!accumulator || !onePass || !threads || onePass.getInt() < 0 ||
      threads.getInt() < 0) {
    f.emitError("sptune: the Gustavson kernel's '")
        << kGustavsonSettingsAttrName
        << "' must be {accumulator = \"auto\" | \"dense\" | \"hash\", "
           "one_pass_bytes >= 0 : i64, threads >= 0 : i32}";
    return failure();
  }
  s.onePassBytes = onePass.getInt();
  s.threads = static_cast<int>(threads.getInt());
  return s;
}

/// The types of A, B and C recorded on the kernel `f`'s declaration, or an
/// error on it when they are not those of a product the kernel computes
/// (whyNotRowWiseSpgemm's operands): plain CSR tensors of one integer or
/// float element type, C's positions and coordinates of 32 bits or more,
/// static sizes that agree (A m x k, B k x n, C m x n). A declaration
/// written by hand is checked before a body is written on its buffers.
static FailureOr<std::array<st::SparseTensorType, 3>>
readTensorTypes(func::FuncOp f) {
  auto types = f->getAttrOfType<ArrayAttr>(kGustavsonSpgemmAttrName);
  std::array<RankedTensorType, 3> tensors;
  bool ok = types && types.size() == 3;
  for (unsigned n = 0; ok && n < 3; ++n) {
    auto attr = dyn_cast<TypeAttr>(types[n]);
    tensors[n] = attr ? dyn_cast<RankedTensorType>(attr.getValue()) : nullptr;
    ok = tensors[n] && whyNotPlainCsr(tensors[n], n == 2 ? 32 : 0).empty() &&
         isa<FloatType, IntegerType>(tensors[n].getElementType()) &&
         tensors[n].getElementType() == tensors[0].getElementType();
  }
  // Sizes known on both sides agree.
  auto agree = [&](unsigned t, unsigned d, unsigned u, unsigned e) {
    int64_t x = tensors[t].getDimSize(d), y = tensors[u].getDimSize(e);
    return ShapedType::isDynamic(x) || ShapedType::isDynamic(y) || x == y;
  };
  ok = ok && agree(0, 1, 1, 0) && agree(2, 0, 0, 0) && agree(2, 1, 1, 1);
  if (!ok) {
    f.emitError("sptune: the Gustavson kernel's '")
        << kGustavsonSpgemmAttrName
        << "' must be [A, B, C]: three plain CSR tensors of one integer or "
           "float element type, C's positions and coordinates of 32 bits or "
           "more, sizes m x k, k x n and m x n";
    return failure();
  }
  return std::array<st::SparseTensorType, 3>{st::SparseTensorType(tensors[0]),
                                             st::SparseTensorType(tensors[1]),
                                             st::SparseTensorType(tensors[2])};
}

void mlir::sptune::outlineGustavsonSpgemm(RewriterBase &rewriter,
                                          linalg::LinalgOp op,
                                          const GustavsonSettings &settings) {
  int left = spgemmLeftFactor(op);
  Value a = op->getOperand(left), bm = op->getOperand(1 - left);
  Type c = op->getResult(0).getType();
  auto module = op->getParentOfType<ModuleOp>();
  FunctionType type = rewriter.getFunctionType({a.getType(), bm.getType()}, c);
  // One declaration per signature and settings.
  DictionaryAttr settingsDict = settingsAttr(rewriter, settings);
  func::FuncOp callee;
  for (func::FuncOp f : module.getOps<func::FuncOp>())
    if (f->hasAttr(kGustavsonSpgemmAttrName) && f.getFunctionType() == type &&
        f->getAttr(kGustavsonSettingsAttrName) == settingsDict)
      callee = f;
  if (!callee) {
    callee = func::FuncOp::create(op.getLoc(), "sptune_gustavson_spgemm", type);
    callee.setPrivate();
    // Renamed when the name is taken.
    SymbolTable(module).insert(callee, module.getBody()->begin());
    callee->setAttr(kGustavsonSpgemmAttrName,
                    rewriter.getTypeArrayAttr({a.getType(), bm.getType(), c}));
    callee->setAttr(kGustavsonSettingsAttrName, settingsDict);
    if (settings.threads > 0)
      callee->setAttr(kOmpThreadsAttrName,
                      rewriter.getI32IntegerAttr(settings.threads));
    for (unsigned n = 0; n < 2; ++n)
      callee.setArgAttr(n, "bufferization.access",
                        rewriter.getStringAttr("read"));
  }
  rewriter.setInsertionPoint(op);
  auto call =
      func::CallOp::create(rewriter, op.getLoc(), callee, ValueRange{a, bm});
  rewriter.replaceOp(op, call.getResults());
}

/// Whether `f` is a Gustavson kernel still to be given its body.
static bool isGustavsonDeclaration(func::FuncOp f) {
  return f->hasAttr(kGustavsonSpgemmAttrName) && f.isDeclaration();
}

bool mlir::sptune::hasGustavsonDeclarations(ModuleOp module) {
  return llvm::any_of(module.getOps<func::FuncOp>(), isGustavsonDeclaration);
}

LogicalResult mlir::sptune::defineGustavsonSpgemmKernels(ModuleOp module) {
  SmallVector<func::FuncOp> kernels;
  for (func::FuncOp f : module.getOps<func::FuncOp>())
    if (isGustavsonDeclaration(f))
      kernels.push_back(f);
  if (kernels.empty())
    return success();
  // libc's exit, which the kernels call when an allocation fails.
  MLIRContext *ctx = module.getContext();
  FunctionType exitType =
      FunctionType::get(ctx, {IntegerType::get(ctx, 32)}, {});
  func::FuncOp exitFn;
  if (Operation *existing = module.lookupSymbol("exit")) {
    exitFn = dyn_cast<func::FuncOp>(existing);
    if (!exitFn || exitFn.getFunctionType() != exitType)
      return existing->emitError("sptune: the Gustavson kernel calls libc's "
                                 "exit, but the module defines 'exit' as ")
             << *existing;
  } else {
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    exitFn = func::FuncOp::create(b, module.getLoc(), "exit", exitType);
    exitFn.setPrivate();
  }
  for (func::FuncOp f : kernels) {
    FailureOr<GustavsonSettings> settings = readSettings(f);
    if (failed(settings))
      return failure();
    FailureOr<std::array<st::SparseTensorType, 3>> types = readTensorTypes(f);
    if (failed(types))
      return failure();
    auto [aType, bType, cType] = *types;
    // Code generation's fields of a CSR tensor: positions and coordinates
    // of level 1, values, the specifier.
    auto fields = [](st::SparseTensorType t) {
      auto buffer = [](Type e) {
        return MemRefType::get({ShapedType::kDynamic}, e);
      };
      return SmallVector<Type>{buffer(t.getPosType()), buffer(t.getCrdType()),
                               buffer(t.getElementType()),
                               st::StorageSpecifierType::get(t.getEncoding())};
    };
    SmallVector<Type> inputs = fields(aType);
    llvm::append_range(inputs, fields(bType));
    FunctionType expected =
        FunctionType::get(module.getContext(), inputs, fields(cType));
    if (f.getFunctionType() != expected)
      return f.emitError("sptune: the Gustavson kernel's signature after "
                         "sparsification is ")
             << f.getFunctionType() << ", not the buffers of CSR tensors ("
             << expected << ")";
    // The marks are spent (the lowered module does not depend on sptune).
    for (unsigned n = 0; n < f.getNumArguments(); ++n)
      f.removeArgAttr(n, "bufferization.access");
    f->removeAttr(kGustavsonSpgemmAttrName);
    f->removeAttr(kGustavsonSettingsAttrName);
    f->setAttr(kGustavsonKernelAttrName, UnitAttr::get(ctx));
    Block *entry = f.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockBegin(entry);
    auto csr = [&](unsigned first) {
      return CsrBuffers{
          entry->getArgument(first), entry->getArgument(first + 1),
          entry->getArgument(first + 2), entry->getArgument(first + 3)};
    };
    GustavsonBuilder builder(b, f.getLoc(), csr(0), csr(4), aType, bType, cType,
                             exitFn);
    SmallVector<Value> results = builder.build(f, *settings);
    func::ReturnOp::create(b, f.getLoc(), results);
  }
  return success();
}
