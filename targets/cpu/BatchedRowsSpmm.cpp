//===- BatchedRowsSpmm.cpp - Batched SpMM over all rows of a batch --------===//

#include "cpu/BatchedRowsSpmm.h"

#include "cpu/BalancedRows.h"
#include "cpu/CooEntries.h"
#include "cpu/CpuPasses.h"
#include "cpu/FilledOutput.h"
#include "cpu/HugePageBuffers.h"
#include "cpu/KernelOutlining.h"

#include "sptune/Analysis/KernelMatcher.h"
#include "sptune/IR/SptuneDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensorType.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::sptune;
namespace st = mlir::sparse_tensor;

namespace {

/// Dense batches of CSR rows, or ordered COO (cpu/CooEntries.h).
bool isBatchedCsrOrCoo(Type type) {
  return isBatchedCsr(type) || isOrderedCoo(type, 3);
}

/// N when `type` is a dense rank-3 tensor of `element` with N static
/// innermost (within kMaxBatchedRowBytes), else -1.
int64_t rowWidth(Type type, Type element) {
  return staticRowWidth(type, element, 3, kMaxBatchedRowBytes);
}

} // namespace

std::string mlir::sptune::whyNotBatchedRowsSpmm(linalg::LinalgOp op,
                                                BatchedRowsSpmm &spmm) {
  BatchedSpmmInputs inputs;
  if (std::string why = whyNotKernelBatchedSpmm(op, &inputs); !why.empty())
    return why;
  spmm.op = op;
  spmm.a = op.getDpsInputOperand(inputs.a)->get();
  spmm.b = op.getDpsInputOperand(inputs.b)->get();
  spmm.fillValue = freshFillValue(op.getDpsInitOperand(0)->get());
  return "";
}

void mlir::sptune::outlineBatchedRowsSpmm(RewriterBase &rewriter,
                                          const BatchedRowsSpmm &spmm,
                                          bool parallel, int threads) {
  SmallVector<NamedAttribute> marks = {rewriter.getNamedAttr(
      kBatchedSpmmThreadsAttrName, rewriter.getI64IntegerAttr(threads))};
  if (parallel && threads > 0)
    marks.push_back(rewriter.getNamedAttr(kOmpThreadsAttrName,
                                          rewriter.getI32IntegerAttr(threads)));
  replaceWithKernelCall(rewriter, spmm.op, "sptune_batched_spmm",
                        kBatchedRowsSpmmAttrName, {spmm.a, spmm.b},
                        spmm.fillValue, parallel, marks);
}

/// The blocks `f` carries (kBatchedSpmmThreadsAttrName), `defaults` when it
/// carries none; an error on `f` when they are malformed.
static FailureOr<int> blocksOf(func::FuncOp f, int defaults) {
  Attribute attr = f->getAttr(kBatchedSpmmThreadsAttrName);
  if (!attr)
    return defaults;
  auto threads = dyn_cast<IntegerAttr>(attr);
  if (!threads || threads.getInt() < 0 ||
      threads.getInt() > ::sptune::kMaxCpuThreads)
    return f.emitError("sptune: the batched SpMM kernel's '")
           << kBatchedSpmmThreadsAttrName << "' must be an integer in [0, "
           << ::sptune::kMaxCpuThreads << "]";
  f->removeAttr(kBatchedSpmmThreadsAttrName);
  return static_cast<int>(threads.getInt());
}

namespace {

/// What both bodies start with: A's batches and rows per batch (its first
/// levels' sizes), C (its rows on cache lines, as bufferization allocates
/// them) and a row of C's fill value in vector registers.
struct OutputC {
  Value batches, rowsPerBatch, c, filled;
};
OutputC allocateC(OpBuilder &b, Location loc, Value specifier, MemRefType cType,
                  Value fill) {
  Value batches = levelSize(b, loc, specifier, 0);
  Value rowsPerBatch = levelSize(b, loc, specifier, 1);
  SmallVector<Value> sizes;
  if (cType.isDynamicDim(0))
    sizes.push_back(batches);
  if (cType.isDynamicDim(1))
    sizes.push_back(rowsPerBatch);
  auto alloc =
      memref::AllocOp::create(b, loc, cType, sizes, b.getI64IntegerAttr(64));
  // Written in each call: a large C on huge pages (cpu/HugePageBuffers.h).
  alloc->setAttr(kHugePageBufferAttrName, b.getUnitAttr());
  Value c = alloc;
  auto rowType = VectorType::get({cType.getDimSize(2)}, cType.getElementType());
  return {batches, rowsPerBatch, c,
          vector::BroadcastOp::create(b, loc, rowType, fill)};
}

/// The kernel's body on its buffers (the file header's loop). `args`: A's
/// positions, coordinates, values and specifier, B and C's fill value.
void buildBody(OpBuilder &b, Location loc, ValueRange args, MemRefType cType,
               bool parallel, int threads, Operation *within) {
  Value positions = args[0], coordinates = args[1], values = args[2];
  Value specifier = args[3], bMat = args[4], fill = args[5];
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  auto [batches, rowsPerBatch, c, filled] =
      allocateC(b, loc, specifier, cType, fill);
  auto rowType = cast<VectorType>(filled.getType());
  Value rows = arith::MulIOp::create(b, loc, batches, rowsPerBatch);
  // Row r = batch * rowsPerBatch + i: C(batch, i, :) = fill + sum over its
  // stored (k, v) of v B(batch, k, :). A block divides its first row into
  // (batch, i) and carries them over its rows, instead of a division per
  // row (as costly as a row's few entries). (At least 1: with no rows per
  // batch there are no rows, but every block still divides its first.)
  Value perBatch = arith::MaxUIOp::create(b, loc, rowsPerBatch, c1);
  auto block = [&](OpBuilder &b, Location loc, Value begin, Value end) {
    Value firstBatch = arith::DivUIOp::create(b, loc, begin, perBatch);
    Value firstI = arith::RemUIOp::create(b, loc, begin, perBatch);
    scf::ForOp::create(
        b, loc, begin, end, c1, ValueRange{firstBatch, firstI},
        [&](OpBuilder &b, Location loc, Value r, ValueRange at) {
          Value batch = at[0], i = at[1];
          auto [firstEntry, endEntry] = loadPositionRange(b, loc, positions, r);
          Value sum = scaledRowSum(
              b, loc, firstEntry, endEntry, filled, coordinates, values,
              rowType, [&](OpBuilder &b, Location loc, Value k) -> Value {
                return vector::LoadOp::create(b, loc, rowType, bMat,
                                              ValueRange{batch, k, c0});
              });
          vector::StoreOp::create(b, loc, sum, c, ValueRange{batch, i, c0});
          Value nextI = arith::AddIOp::create(b, loc, i, c1);
          Value wraps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              nextI, perBatch);
          scf::YieldOp::create(
              b, loc,
              ValueRange{arith::SelectOp::create(
                             b, loc, wraps,
                             arith::AddIOp::create(b, loc, batch, c1), batch),
                         arith::SelectOp::create(b, loc, wraps, c0, nextI)});
        });
  };
  // Blocks of equal work for the threads: a row's entries and its store of
  // C's row, counted as one more.
  rowBlocks(
      b, loc, c0, rows, parallel, threads, within,
      [&](OpBuilder &b, Location loc, Value r) -> Value {
        return arith::AddIOp::create(b, loc, loadPosition(b, loc, positions, r),
                                     r);
      },
      block);
  func::ReturnOp::create(b, loc, c);
}

/// The kernel's body on COO buffers (cpu/CooEntries.h): A's positions and
/// coordinates (one buffer of (b, i, k) structures, or three), values and
/// specifier, B and C's fill value. C is written once, as rows r = b m + i
/// of its flattened view: the entries are cut into blocks at row starts,
/// each owning the rows CooEntries::ownedRow says, each walked once, a
/// row's sum of A(b, i, k) B(b, k, :) stored where (b, i) changes and the
/// rows without entries it owns filled.
void buildCooBody(OpBuilder &b, Location loc, func::FuncOp f,
                  RankedTensorType aType, MemRefType cType, bool parallel,
                  int threads) {
  ValueRange args = f.getArguments();
  CooEntries entries(b, loc, aType, args);
  unsigned n = entries.consumed();
  Value values = args[n++], specifier = args[n++];
  Value bMat = args[n++], fill = args[n++];
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  auto [batches, rowsPerBatch, c, filled] =
      allocateC(b, loc, specifier, cType, fill);
  // C's rows, batch after batch.
  Value rowsOfC = memref::CollapseShapeOp::create(
      b, loc, c, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  Value allRows = arith::MulIOp::create(b, loc, batches, rowsPerBatch);
  auto rowType = cast<VectorType>(filled.getType());
  auto fillRows = [&](OpBuilder &b, Location loc, Value lo, Value hi) {
    rowLoop(
        b, loc, lo, hi, /*parallel=*/false,
        [&](OpBuilder &b, Location loc, Value r) {
          vector::StoreOp::create(b, loc, filled, rowsOfC, ValueRange{r, c0});
        });
  };
  auto rowOf = [&](OpBuilder &b, Location loc, Value e) -> Value {
    return arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, entries.coordinate(b, loc, 0, e),
                              rowsPerBatch),
        entries.coordinate(b, loc, 1, e));
  };
  // Without entries, no block owns a row.
  Value none = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                     entries.first, entries.end);
  scf::IfOp::create(b, loc, none, [&](OpBuilder &b, Location loc) {
    fillRows(b, loc, c0, allRows);
    scf::YieldOp::create(b, loc);
  });
  auto block = [&](OpBuilder &b, Location loc, Value from, Value to) {
    entries.ownedBlock(
        b, loc, from, to, allRows, rowOf, fillRows,
        [&](OpBuilder &b, Location loc, Value from, Value to,
            Value firstRow) -> Value {
          return CooEntries::walkRowSums(
              b, loc, from, to, firstRow, filled, rowOf,
              [&](OpBuilder &b, Location loc, Value row, Value r) {
                vector::StoreOp::create(b, loc, row, rowsOfC,
                                        ValueRange{r, c0});
              },
              fillRows,
              [&](OpBuilder &b, Location loc, Value e, Value sum) -> Value {
                Value v = vector::BroadcastOp::create(
                    b, loc, rowType, memref::LoadOp::create(b, loc, values, e));
                Value bk = vector::LoadOp::create(
                    b, loc, rowType, bMat,
                    ValueRange{entries.coordinate(b, loc, 0, e),
                               entries.coordinate(b, loc, 2, e), c0});
                return vector::FMAOp::create(b, loc, v, bk, sum);
              });
        });
  };
  entries.blocks(b, loc, /*groupLevels=*/2, parallel, threads, f, block);
  func::ReturnOp::create(b, loc, c);
}

} // namespace

LogicalResult mlir::sptune::defineBatchedRowsSpmmKernels(ModuleOp module,
                                                         int threads) {
  return defineDeclaredKernels(
      module, kBatchedRowsSpmmAttrName, 3,
      [&](func::FuncOp f, bool parallel,
          ArrayRef<RankedTensorType> tensors) -> LogicalResult {
        Type element = floatElementOf(tensors, isBatchedCsrOrCoo);
        int64_t width = element ? rowWidth(tensors[2], element) : -1;
        if (width < 0 || rowWidth(tensors[1], element) != width)
          return f.emitError("sptune: the batched SpMM kernel's '")
                 << kBatchedRowsSpmmAttrName
                 << "' must be {parallel = bool, types = [A (dense batches of "
                    "CSR rows, or COO), B, C]} with B and C of one static "
                    "innermost "
                    "size, f32 or f64, rows of at most "
                 << kMaxBatchedRowBytes << " bytes";
        FailureOr<int> blocks = blocksOf(f, threads);
        if (failed(blocks))
          return failure();
        SmallVector<Type> inputs = sparseBufferTypes(tensors[0]);
        // B, C's fill value; C.
        inputs.append(
            {MemRefType::get(tensors[1].getShape(), element), element});
        auto cType = MemRefType::get(tensors[2].getShape(), element);
        FailureOr<OpBuilder> b = startKernelBody(
            f, kBatchedRowsSpmmAttrName,
            FunctionType::get(module.getContext(), inputs, {cType}),
            "batched SpMM");
        if (failed(b))
          return failure();
        if (isOrderedCoo(tensors[0], 3))
          buildCooBody(*b, f.getLoc(), f, tensors[0], cType, parallel, *blocks);
        else
          buildBody(*b, f.getLoc(), f.getArguments(), cType, parallel, *blocks,
                    f);
        return success();
      });
}
