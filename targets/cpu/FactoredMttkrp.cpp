//===- FactoredMttkrp.cpp - MTTKRP, each fiber summed once ---------------===//

#include "cpu/FactoredMttkrp.h"

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

std::string mlir::sptune::whyNotFactoredMttkrp(linalg::LinalgOp op,
                                               FactoredMttkrp &mttkrp) {
  MttkrpInputs inputs;
  if (std::string why = whyNotKernelMttkrp(op, &inputs); !why.empty())
    return why;
  mttkrp.op = op;
  mttkrp.b = op.getDpsInputOperand(inputs.b)->get();
  mttkrp.c = op.getDpsInputOperand(inputs.c)->get();
  mttkrp.d = op.getDpsInputOperand(inputs.d)->get();
  mttkrp.fillValue = freshFillValue(op.getDpsInitOperand(0)->get());
  return "";
}

void mlir::sptune::outlineFactoredMttkrp(RewriterBase &rewriter,
                                         const FactoredMttkrp &mttkrp,
                                         bool parallel,
                                         const MttkrpSettings &settings) {
  SmallVector<NamedAttribute> marks = {rewriter.getNamedAttr(
      kMttkrpSettingsAttrName,
      rewriter.getDictionaryAttr(
          {rewriter.getNamedAttr(
               "form",
               rewriter.getStringAttr(::sptune::toString(settings.form))),
           rewriter.getNamedAttr(
               "threads", rewriter.getI64IntegerAttr(settings.threads))}))};
  if (parallel && settings.threads > 0)
    marks.push_back(rewriter.getNamedAttr(
        kOmpThreadsAttrName, rewriter.getI32IntegerAttr(settings.threads)));
  replaceWithKernelCall(rewriter, mttkrp.op, "sptune_mttkrp",
                        kFactoredMttkrpAttrName, {mttkrp.b, mttkrp.c, mttkrp.d},
                        mttkrp.fillValue, parallel, marks);
}

/// The settings `f` carries (kMttkrpSettingsAttrName), `defaults` when it
/// carries none; an error on `f` when they are malformed.
static FailureOr<MttkrpSettings> settingsOf(func::FuncOp f,
                                            const MttkrpSettings &defaults) {
  Attribute attr = f->getAttr(kMttkrpSettingsAttrName);
  if (!attr)
    return defaults;
  auto dict = dyn_cast<DictionaryAttr>(attr);
  auto form = dict ? dict.getAs<StringAttr>("form") : StringAttr();
  auto threads = dict ? dict.getAs<IntegerAttr>("threads") : IntegerAttr();
  MttkrpSettings settings;
  bool known = false;
  for (MttkrpForm candidate :
       {MttkrpForm::Auto, MttkrpForm::Factored, MttkrpForm::EntryWise})
    if (form && form.getValue() == ::sptune::toString(candidate)) {
      settings.form = candidate;
      known = true;
    }
  if (!dict || dict.size() != 2 || !known || !threads || threads.getInt() < 0 ||
      threads.getInt() > ::sptune::kMaxCpuThreads)
    return f.emitError("sptune: the MTTKRP kernel's '")
           << kMttkrpSettingsAttrName
           << "' must be {form = \"auto\" | \"factored\" | \"entry_wise\", "
              "threads = N} with N in [0, "
           << ::sptune::kMaxCpuThreads << "]";
  settings.threads = static_cast<int>(threads.getInt());
  f->removeAttr(kMttkrpSettingsAttrName);
  return settings;
}

namespace {

/// CSF, or ordered COO (sptune/Analysis/SparseStorage.h).
bool isCsfOrCoo(Type type) { return isCsf(type) || isOrderedCoo(type, 3); }

/// The rank R when `type` is a dense R-column matrix of `element` (R static,
/// within kMaxMttkrpRowBytes), else -1.
int64_t factorRank(Type type, Type element) {
  return staticRowWidth(type, element, 2, kMaxMttkrpRowBytes);
}

/// Stores `filled` into the rows [lo, hi) of `a`, in order.
void fillRows(OpBuilder &b, Location loc, Value a, Value filled, Value lo,
              Value hi) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  rowLoop(b, loc, lo, hi, /*parallel=*/false,
          [&](OpBuilder &b, Location loc, Value i) {
            vector::StoreOp::create(b, loc, filled, a, ValueRange{i, c0});
          });
}

/// `row` + B(i, k, l) C(k, :) D(l, :) for the entry of value `value` at
/// (k, l): one multiply and one fused multiply-add per vector, with no fiber
/// sum (the entry-wise form, for fibers of about one entry).
Value addEntry(OpBuilder &b, Location loc, Value row, Value value, Value c,
               Value k, Value d, Value l) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  auto rowType = cast<VectorType>(row.getType());
  Value v = vector::BroadcastOp::create(b, loc, rowType, value);
  Value vc = arith::MulFOp::create(
      b, loc, v, vector::LoadOp::create(b, loc, rowType, c, ValueRange{k, c0}));
  return vector::FMAOp::create(
      b, loc, vc, vector::LoadOp::create(b, loc, rowType, d, ValueRange{l, c0}),
      row);
}

/// What both bodies start with: B's slices (its first level's size), A
/// (allocated on a cache line, as bufferization allocates it), and a row of
/// A's fill value and one of zeros in vector registers.
struct OutputA {
  Value rows, a, filled, zero;
};
OutputA allocateA(OpBuilder &b, Location loc, Value specifier, MemRefType aType,
                  Value fill) {
  Type element = aType.getElementType();
  Value rows = levelSize(b, loc, specifier, 0);
  auto alloc = memref::AllocOp::create(
      b, loc, aType, aType.isDynamicDim(0) ? ValueRange{rows} : ValueRange{},
      b.getI64IntegerAttr(64));
  // Written in each call: a large A on huge pages (cpu/HugePageBuffers.h).
  alloc->setAttr(kHugePageBufferAttrName, b.getUnitAttr());
  Value a = alloc;
  auto rowType = VectorType::get({aType.getDimSize(1)}, element);
  return {rows, a, vector::BroadcastOp::create(b, loc, rowType, fill),
          vector::BroadcastOp::create(
              b, loc, rowType,
              arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0)))};
}

/// Whether the fibers of slices [first, slices) are short for the typical
/// entry: the mean length of the fiber holding an entry (sum over fibers of
/// length^2 / entries), estimated from kFiberLengthSamples entries evenly
/// spaced (each fiber found by a binary search over the fibers' entry
/// positions), is below kShortFiberLength. False without entries.
Value shortFibers(OpBuilder &b, Location loc, Value fiberPositions,
                  Value entryPositions, Value first, Value slices) {
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value firstFiber = loadPosition(b, loc, fiberPositions, first);
  Value endFiber = loadPosition(b, loc, fiberPositions, slices);
  Value firstEntry = loadPosition(b, loc, entryPositions, firstFiber);
  Value entries = arith::SubIOp::create(
      b, loc, loadPosition(b, loc, entryPositions, endFiber), firstEntry);
  Value samples = index(kFiberLengthSamples);
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, entries,
                                    index(0));
  // Without entries nothing is sampled (the search would find no fiber).
  auto sampled = scf::IfOp::create(
      b, loc, any,
      [&](OpBuilder &b, Location loc) {
        auto sum = scf::ForOp::create(
            b, loc, index(0), samples, index(1), ValueRange{index(0)},
            [&](OpBuilder &b, Location loc, Value n, ValueRange total) {
              // Entry firstEntry + entries (2 n + 1) / (2 samples).
              Value p = arith::AddIOp::create(
                  b, loc, firstEntry,
                  arith::DivUIOp::create(
                      b, loc,
                      arith::MulIOp::create(
                          b, loc, entries,
                          arith::AddIOp::create(
                              b, loc,
                              arith::MulIOp::create(b, loc, n, index(2)),
                              index(1))),
                      arith::MulIOp::create(b, loc, samples, index(2))));
              // Its fiber: the one before the first fiber starting after p.
              Value after =
                  firstRowReaching(b, loc, entryPositions, firstFiber, endFiber,
                                   arith::AddIOp::create(b, loc, p, index(1)));
              Value f = arith::SubIOp::create(b, loc, after, index(1));
              auto [from, to] = loadPositionRange(b, loc, entryPositions, f);
              scf::YieldOp::create(
                  b, loc,
                  arith::AddIOp::create(b, loc, total[0],
                                        arith::SubIOp::create(b, loc, to, from))
                      .getResult());
            });
        scf::YieldOp::create(b, loc, sum.getResult(0));
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, index(0));
      });
  Value shortOnes = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, sampled.getResult(0),
      index(kShortFiberLength * kFiberLengthSamples));
  return arith::AndIOp::create(b, loc, any, shortOnes);
}

/// The kernel's body on its buffers (the file header's loop). `args`: B's
/// buffers (positions and coordinates of each compressed level, values,
/// specifier), C, D and A's fill value.
void buildBody(OpBuilder &b, Location loc, func::FuncOp f, MemRefType aType,
               bool denseSlices, bool parallel, int threads, MttkrpForm form) {
  ValueRange args = f.getArguments();
  unsigned n = 0;
  Value slicePositions, sliceCoordinates;
  if (!denseSlices) {
    slicePositions = args[n++];
    sliceCoordinates = args[n++];
  }
  Value fiberPositions = args[n++], fiberCoordinates = args[n++];
  Value entryPositions = args[n++], entryCoordinates = args[n++];
  Value values = args[n++], specifier = args[n++];
  Value c = args[n++], d = args[n++], fill = args[n++];
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  auto [rows, a, filled, zero] = allocateA(b, loc, specifier, aType, fill);
  auto rowType = cast<VectorType>(filled.getType());
  // The slices are positions [first, slices) of the first level.
  Value first = c0, slices = rows;
  if (!denseSlices) {
    first = loadPosition(b, loc, slicePositions, c0);
    slices = loadPosition(b, loc, slicePositions, c1);
    // Rows of no slice hold the fill's value: without slices, all.
    scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, first, slices),
        [&](OpBuilder &b, Location loc) {
          fillRows(b, loc, a, filled, c0, rows);
          scf::YieldOp::create(b, loc);
        });
  }
  // Entry-wise when `form` says so, or, for `auto`, when B's fibers are
  // short for the typical entry (the file header).
  Value entryWise =
      form == MttkrpForm::Auto
          ? shortFibers(b, loc, fiberPositions, entryPositions, first, slices)
          : arith::ConstantIntOp::create(b, loc, b.getI1Type(),
                                         form == MttkrpForm::EntryWise)
                .getResult();
  // Slice s: A(i, :) = fill + sum over its fibers (k) of
  // C(k, :) (sum over the fiber's entries (l) of B(i, k, l) D(l, :)).
  auto slice = [&](OpBuilder &b, Location loc, Value s) {
    Value i = denseSlices ? s : loadPosition(b, loc, sliceCoordinates, s);
    if (!denseSlices) {
      // Slice s writes the rows of no slice from the previous slice's row
      // (or the first row) to its own, the last slice those after its own:
      // A is written once, in parallel.
      Value previous = arith::SubIOp::create(
          b, loc, arith::MaxUIOp::create(b, loc, s, c1), c1);
      Value atFirst =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s, first);
      auto from = scf::IfOp::create(
          b, loc, atFirst,
          [&](OpBuilder &b, Location loc) { scf::YieldOp::create(b, loc, c0); },
          [&](OpBuilder &b, Location loc) {
            scf::YieldOp::create(
                b, loc,
                arith::AddIOp::create(
                    b, loc, loadPosition(b, loc, sliceCoordinates, previous),
                    c1)
                    .getResult());
          });
      fillRows(b, loc, a, filled, from.getResult(0), i);
      Value last =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                arith::AddIOp::create(b, loc, s, c1), slices);
      Value after = arith::AddIOp::create(b, loc, i, c1);
      fillRows(b, loc, a, filled, after,
               arith::SelectOp::create(b, loc, last, rows, after));
    }
    auto [firstFiber, endFiber] = loadPositionRange(b, loc, fiberPositions, s);
    // Entry-wise: one loop over the slice's entries, adding B(i, k, l)
    // C(k, :) D(l, :) each; the fiber f holding entry p (so its k) follows
    // p without a branch (one step where p reaches f's end; fibers without
    // entries, possible in assembled storage, are stepped over by a loop
    // that almost never runs).
    auto entryWiseRow = [&](OpBuilder &b, Location loc) -> Value {
      Value firstEntry = loadPosition(b, loc, entryPositions, firstFiber);
      Value endEntry = loadPosition(b, loc, entryPositions, endFiber);
      auto entries = scf::ForOp::create(
          b, loc, firstEntry, endEntry, c1, ValueRange{filled, firstFiber},
          [&](OpBuilder &b, Location loc, Value p, ValueRange carried) {
            auto endOf = [&](OpBuilder &b, Location loc, Value f) {
              return loadPosition(b, loc, entryPositions,
                                  arith::AddIOp::create(b, loc, f, c1));
            };
            auto pastEnd = [&](OpBuilder &b, Location loc, Value f) -> Value {
              return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, p,
                                           endOf(b, loc, f));
            };
            Value f = carried[1];
            f = arith::AddIOp::create(
                b, loc, f,
                arith::IndexCastUIOp::create(b, loc, b.getIndexType(),
                                             pastEnd(b, loc, f)));
            auto skip = scf::WhileOp::create(
                b, loc, TypeRange{f.getType()}, ValueRange{f},
                [&](OpBuilder &b, Location loc, ValueRange args) {
                  scf::ConditionOp::create(b, loc, pastEnd(b, loc, args[0]),
                                           args);
                },
                [&](OpBuilder &b, Location loc, ValueRange args) {
                  scf::YieldOp::create(
                      b, loc,
                      arith::AddIOp::create(b, loc, args[0], c1).getResult());
                });
            f = skip.getResult(0);
            Value row = addEntry(b, loc, carried[0],
                                 memref::LoadOp::create(b, loc, values, p), c,
                                 loadPosition(b, loc, fiberCoordinates, f), d,
                                 loadPosition(b, loc, entryCoordinates, p));
            scf::YieldOp::create(b, loc, ValueRange{row, f});
          });
      return entries.getResult(0);
    };
    auto factoredRow = [&](OpBuilder &b, Location loc) -> Value {
      auto fibers = scf::ForOp::create(
          b, loc, firstFiber, endFiber, c1, ValueRange{filled},
          [&](OpBuilder &b, Location loc, Value f, ValueRange out) {
            Value k = loadPosition(b, loc, fiberCoordinates, f);
            auto [first, end] = loadPositionRange(b, loc, entryPositions, f);
            Value fiberSum = scaledRowSum(
                b, loc, first, end, zero, entryCoordinates, values, rowType,
                [&](OpBuilder &b, Location loc, Value l) -> Value {
                  return vector::LoadOp::create(b, loc, rowType, d,
                                                ValueRange{l, c0});
                });
            Value ck =
                vector::LoadOp::create(b, loc, rowType, c, ValueRange{k, c0});
            // A fiber without entries (possible in assembled storage) adds
            // nothing, as in the sparsifier's loops: 0 * C(k, :) would turn an
            // infinite or NaN C(k, :) into NaN.
            Value added = vector::FMAOp::create(b, loc, fiberSum, ck, out[0]);
            Value empty = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::eq, first, end);
            scf::YieldOp::create(
                b, loc,
                arith::SelectOp::create(b, loc, empty, out[0], added)
                    .getResult());
          });
      return fibers.getResult(0);
    };
    auto row = scf::IfOp::create(
        b, loc, entryWise,
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, entryWiseRow(b, loc));
        },
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, factoredRow(b, loc));
        });
    vector::StoreOp::create(b, loc, row.getResult(0), a, ValueRange{i, c0});
  };
  // Blocks of slices of equal work, one per thread: a slice's entries and
  // fibers.
  rowBlocks(
      b, loc, first, slices, parallel, threads, f,
      [&](OpBuilder &b, Location loc, Value s) -> Value {
        Value fiber = loadPosition(b, loc, fiberPositions, s);
        return arith::AddIOp::create(
            b, loc, loadPosition(b, loc, entryPositions, fiber), fiber);
      },
      [&](OpBuilder &b, Location loc, Value from, Value to) {
        scf::ForOp::create(b, loc, from, to, c1, ValueRange{},
                           [&](OpBuilder &b, Location loc, Value s,
                               ValueRange) {
                             slice(b, loc, s);
                             scf::YieldOp::create(b, loc);
                           });
      });
  func::ReturnOp::create(b, loc, a);
}

/// The kernel's body on COO buffers (cpu/CooEntries.h): positions of the
/// first level, the coordinates (one buffer of (i, k, l) structures, or
/// three), values and specifier, then C, D and A's fill value. The entries
/// are cut into blocks at slice starts, so that each block writes its own
/// rows of A.
void buildCooBody(OpBuilder &b, Location loc, func::FuncOp f,
                  RankedTensorType bType, MemRefType aType, bool parallel,
                  int threads, MttkrpForm form) {
  ValueRange args = f.getArguments();
  CooEntries entries(b, loc, bType, args);
  unsigned n = entries.consumed();
  Value values = args[n++], specifier = args[n++];
  Value c = args[n++], d = args[n++], fill = args[n++];
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  auto [rows, a, filled, zero] = allocateA(b, loc, specifier, aType, fill);
  auto rowType = cast<VectorType>(filled.getType());
  auto coordinate = [&](OpBuilder &b, Location loc, unsigned level, Value p) {
    return entries.coordinate(b, loc, level, p);
  };
  auto sliceOf = [&](OpBuilder &b, Location loc, Value e) {
    return coordinate(b, loc, 0, e);
  };
  // Rows of no slice hold the fill's value, each written by the block that
  // owns it (CooEntries::ownedRow); without entries, all.
  scf::IfOp::create(b, loc,
                    arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          entries.first, entries.end),
                    [&](OpBuilder &b, Location loc) {
                      fillRows(b, loc, a, filled, c0, rows);
                      scf::YieldOp::create(b, loc);
                    });
  // Factored: a fiber's sum of B(i, k, l) D(l, :) grows entry by entry;
  // where (i, k) changes, the fiber ends: C(k, :) times its sum is added to
  // the slice's row, and where i changes the row is stored (A(i, :) = fill
  // + sum over the slice's fibers). The last fiber and slice end after the
  // loop. Returns the last slice's row.
  auto walkFactored = [&](OpBuilder &b, Location loc, Value from, Value to,
                          Value firstRow) -> Value {
    Value i0 = coordinate(b, loc, 0, from), k0 = coordinate(b, loc, 1, from);
    fillRows(b, loc, a, filled, firstRow, i0);
    auto walk = scf::ForOp::create(
        b, loc, from, to, c1, ValueRange{i0, k0, zero, filled},
        [&](OpBuilder &b, Location loc, Value e, ValueRange carried) {
          Value i = coordinate(b, loc, 0, e), k = coordinate(b, loc, 1, e);
          Value newSlice = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ne, i, carried[0]);
          Value newFiber = arith::OrIOp::create(
              b, loc, newSlice,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, k,
                                    carried[1]));
          auto ended = scf::IfOp::create(
              b, loc, newFiber,
              [&](OpBuilder &b, Location loc) {
                Value ck = vector::LoadOp::create(b, loc, rowType, c,
                                                  ValueRange{carried[1], c0});
                Value row =
                    vector::FMAOp::create(b, loc, carried[2], ck, carried[3]);
                auto stored = scf::IfOp::create(
                    b, loc, newSlice,
                    [&](OpBuilder &b, Location loc) {
                      vector::StoreOp::create(b, loc, row, a,
                                              ValueRange{carried[0], c0});
                      fillRows(b, loc, a, filled,
                               arith::AddIOp::create(b, loc, carried[0], c1),
                               i);
                      scf::YieldOp::create(b, loc, filled);
                    },
                    [&](OpBuilder &b, Location loc) {
                      scf::YieldOp::create(b, loc, row);
                    });
                scf::YieldOp::create(b, loc,
                                     ValueRange{zero, stored.getResult(0)});
              },
              [&](OpBuilder &b, Location loc) {
                scf::YieldOp::create(b, loc,
                                     ValueRange{carried[2], carried[3]});
              });
          Value v = vector::BroadcastOp::create(
              b, loc, rowType, memref::LoadOp::create(b, loc, values, e));
          Value dl = vector::LoadOp::create(
              b, loc, rowType, d, ValueRange{coordinate(b, loc, 2, e), c0});
          Value fiberSum =
              vector::FMAOp::create(b, loc, v, dl, ended.getResult(0));
          scf::YieldOp::create(b, loc,
                               ValueRange{i, k, fiberSum, ended.getResult(1)});
        });
    ValueRange last = walk.getResults();
    Value ck =
        vector::LoadOp::create(b, loc, rowType, c, ValueRange{last[1], c0});
    vector::StoreOp::create(b, loc,
                            vector::FMAOp::create(b, loc, last[2], ck, last[3]),
                            a, ValueRange{last[0], c0});
    return last[0];
  };
  // Entry-wise: each entry adds B(i, k, l) C(k, :) D(l, :) to the slice's
  // row, which is stored where i changes, and after the loop. Returns the
  // last slice's row.
  auto walkEntryWise = [&](OpBuilder &b, Location loc, Value from, Value to,
                           Value firstRow) -> Value {
    return CooEntries::walkRowSums(
        b, loc, from, to, firstRow, filled, sliceOf,
        [&](OpBuilder &b, Location loc, Value row, Value i) {
          vector::StoreOp::create(b, loc, row, a, ValueRange{i, c0});
        },
        [&](OpBuilder &b, Location loc, Value lo, Value hi) {
          fillRows(b, loc, a, filled, lo, hi);
        },
        [&](OpBuilder &b, Location loc, Value e, Value row) {
          return addEntry(
              b, loc, row, memref::LoadOp::create(b, loc, values, e), c,
              coordinate(b, loc, 1, e), d, coordinate(b, loc, 2, e));
        });
  };
  // A block's entries [from, to) in one pass, in order (entry-wise unless
  // `form` asks for factored sums).
  auto block = [&](OpBuilder &b, Location loc, Value from, Value to) {
    entries.ownedBlock(
        b, loc, from, to, rows, sliceOf,
        [&](OpBuilder &b, Location loc, Value lo, Value hi) {
          fillRows(b, loc, a, filled, lo, hi);
        },
        [&](OpBuilder &b, Location loc, Value from, Value to,
            Value firstRow) -> Value {
          return form == MttkrpForm::Factored
                     ? walkFactored(b, loc, from, to, firstRow)
                     : walkEntryWise(b, loc, from, to, firstRow);
        });
  };
  entries.blocks(b, loc, /*groupLevels=*/1, parallel, threads, f, block);
  func::ReturnOp::create(b, loc, a);
}

} // namespace

LogicalResult mlir::sptune::defineFactoredMttkrpKernels(ModuleOp module,
                                                        int threads,
                                                        MttkrpForm form) {
  return defineDeclaredKernels(
      module, kFactoredMttkrpAttrName, 4,
      [&](func::FuncOp f, bool parallel,
          ArrayRef<RankedTensorType> tensors) -> LogicalResult {
        Type element = floatElementOf(tensors, isCsfOrCoo);
        int64_t rank = element ? factorRank(tensors[3], element) : -1;
        if (rank < 0 || factorRank(tensors[1], element) != rank ||
            factorRank(tensors[2], element) != rank)
          return f.emitError("sptune: the factored MTTKRP kernel's '")
                 << kFactoredMttkrpAttrName
                 << "' must be {parallel = bool, types = [B (CSF or COO), C, "
                    "D, A]} "
                    "with C, D and A of one static number of columns, f32 or "
                    "f64, rows of at most "
                 << kMaxMttkrpRowBytes << " bytes";
        FailureOr<MttkrpSettings> settings =
            settingsOf(f, MttkrpSettings{form, threads});
        if (failed(settings))
          return failure();
        st::SparseTensorType bType(tensors[0]);
        SmallVector<Type> inputs = sparseBufferTypes(tensors[0]);
        // C, D, A's fill value; A.
        for (RankedTensorType t : tensors.slice(1, 2))
          inputs.push_back(MemRefType::get(t.getShape(), element));
        inputs.push_back(element);
        auto aType = MemRefType::get(tensors[3].getShape(), element);
        FailureOr<OpBuilder> b = startKernelBody(
            f, kFactoredMttkrpAttrName,
            FunctionType::get(module.getContext(), inputs, {aType}),
            "factored MTTKRP");
        if (failed(b))
          return failure();
        if (isOrderedCoo(tensors[0], 3))
          buildCooBody(*b, f.getLoc(), f, tensors[0], aType, parallel,
                       settings->threads, settings->form);
        else
          buildBody(*b, f.getLoc(), f, aType, bType.isDenseLvl(0), parallel,
                    settings->threads, settings->form);
        return success();
      });
}
