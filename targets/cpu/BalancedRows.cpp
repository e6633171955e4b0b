//===- BalancedRows.cpp - Row blocks of equal stored entries --------------===//

#include "cpu/BalancedRows.h"

#include "cpu/CpuKnobs.h"
#include "cpu/CpuPasses.h"

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_CPUBALANCEROWS
#include "cpu/CpuPasses.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;

namespace {

/// The OpenMP runtime's default team size (libomp; what an omp.parallel
/// without num_threads gets).
constexpr const char *kMaxThreadsFn = "omp_get_max_threads";

/// Whether `v` is `row + 1`.
bool isNextRow(Value v, Value row) {
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add)
    return false;
  for (int n = 0; n < 2; ++n)
    if (add->getOperand(n) == row &&
        matchPattern(add->getOperand(1 - n), m_One()))
      return true;
  return false;
}

} // namespace

Value mlir::sptune::rowPositionsOf(Operation *loop, Value row) {
  llvm::SetVector<Value> atRow;
  llvm::SmallPtrSet<Value, 4> atNext;
  // Anywhere in the body: with the free loop outside the sparse one (SpMM
  // as dot products) the positions are read inside it.
  loop->walk([&](memref::LoadOp load) {
    if (load.getIndices().size() != 1)
      return;
    Value buffer = load.getMemRef();
    auto type = cast<MemRefType>(buffer.getType());
    if (!type.getElementType().isIntOrIndex() ||
        loop->isAncestor(buffer.getParentBlock()->getParentOp()))
      return;
    Value index = load.getIndices().front();
    if (index == row)
      atRow.insert(buffer);
    else if (isNextRow(index, row))
      atNext.insert(buffer);
  });
  for (Value b : atRow)
    if (atNext.contains(b))
      return b;
  return {};
}

Value mlir::sptune::loadPosition(OpBuilder &b, Location loc, Value positions,
                                 Value i) {
  Value v = memref::LoadOp::create(b, loc, positions, i);
  if (v.getType().isIndex())
    return v;
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
}

std::pair<Value, Value> mlir::sptune::loadPositionRange(OpBuilder &b,
                                                        Location loc,
                                                        Value positions,
                                                        Value i) {
  Value next = arith::AddIOp::create(b, loc, i,
                                     arith::ConstantIndexOp::create(b, loc, 1));
  return {loadPosition(b, loc, positions, i),
          loadPosition(b, loc, positions, next)};
}

Value mlir::sptune::firstRowReaching(OpBuilder &b, Location loc,
                                     Value positions, Value lo, Value hi,
                                     Value target) {
  return firstRowReaching(
      b, loc,
      [&](OpBuilder &b, Location loc, Value r) {
        return loadPosition(b, loc, positions, r);
      },
      lo, hi, target);
}

Value mlir::sptune::firstRowReaching(OpBuilder &b, Location loc,
                                     WorkBefore workBefore, Value lo, Value hi,
                                     Value target) {
  Type index = b.getIndexType();
  auto search = scf::WhileOp::create(
      b, loc, TypeRange{index, index}, ValueRange{lo, hi},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           args[0], args[1]);
        scf::ConditionOp::create(b, loc, more, args);
      },
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        Value half = arith::ShRUIOp::create(
            b, loc, arith::SubIOp::create(b, loc, args[1], args[0]), one);
        Value mid = arith::AddIOp::create(b, loc, args[0], half);
        Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            workBefore(b, loc, mid), target);
        Value next = arith::AddIOp::create(b, loc, mid, one);
        scf::YieldOp::create(
            b, loc,
            ValueRange{arith::SelectOp::create(b, loc, below, next, args[0]),
                       arith::SelectOp::create(b, loc, below, args[1], mid)});
      });
  return search.getResult(0);
}

Value mlir::sptune::maxThreads(OpBuilder &b, Location loc, Operation *within) {
  auto module = within->getParentOfType<ModuleOp>();
  auto fn = module.lookupSymbol<func::FuncOp>(kMaxThreadsFn);
  if (!fn) {
    // (A symbol of that name that is no func.func makes the module fail to
    // verify below: a clear error rather than a redefinition.)
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    fn = func::FuncOp::create(b, loc, kMaxThreadsFn,
                              b.getFunctionType({}, {b.getI32Type()}));
    fn.setPrivate();
  }
  Value n = func::CallOp::create(b, loc, fn).getResult(0);
  n = arith::IndexCastOp::create(b, loc, b.getIndexType(), n);
  // At least one block, whatever the runtime says.
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  return arith::MaxUIOp::create(b, loc, n, one);
}

scf::ParallelOp mlir::sptune::balancedRowBlocks(
    OpBuilder &b, Location loc, Value lo, Value hi, Value blocks,
    WorkBefore workBefore,
    function_ref<void(OpBuilder &, Location, Value, Value)> block) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // The loop may be empty (hi <= lo): then no work is read.
  Value nonEmpty =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lo, hi);
  auto ends = scf::IfOp::create(
      b, loc, nonEmpty,
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(
            b, loc, ValueRange{workBefore(b, loc, lo), workBefore(b, loc, hi)});
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, ValueRange{zero, zero});
      });
  Value first = ends.getResult(0);
  Value work = arith::SubIOp::create(b, loc, ends.getResult(1), first);
  return scf::ParallelOp::create(
      b, loc, ValueRange{zero}, ValueRange{blocks}, ValueRange{one},
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
        Value t = ivs.front();
        auto share = [&](Value k) {
          Value scaled = arith::MulIOp::create(b, loc, work, k);
          return arith::AddIOp::create(
              b, loc, first, arith::DivUIOp::create(b, loc, scaled, blocks));
        };
        Value next = arith::AddIOp::create(b, loc, t, one);
        Value begin = firstRowReaching(b, loc, workBefore, lo, hi, share(t));
        Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           next, blocks);
        Value end = arith::SelectOp::create(
            b, loc, last, hi,
            firstRowReaching(b, loc, workBefore, begin, hi, share(next)));
        block(b, loc, begin, end);
        scf::ReduceOp::create(b, loc);
      });
}

std::string mlir::sptune::balanceRowsByEntries(RewriterBase &rewriter,
                                               scf::ParallelOp loop,
                                               int threads) {
  // Only the sparsifier's loops (and sptune's fused SDDMM-SpMM kernel's,
  // marked alike): their positions arrays are non-decreasing, which the
  // binary searches rely on.
  if (!loop->hasAttr(kSparsifierLoopAttrName))
    return "the loop is not one the sparsifier emitted";
  if (loop.getNumLoops() != 1 || loop.getNumReductions() != 0)
    return "the loop is not a one-dimensional loop without reductions";
  if (!matchPattern(loop.getStep().front(), m_One()))
    return "the loop's step is not 1";
  Value positions = rowPositionsOf(loop, loop.getInductionVars().front());
  if (!positions)
    return "the loop reads no positions array at its row and the next";

  Location loc = loop.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(loop);
  Value blocks = threads > 0
                     ? arith::ConstantIndexOp::create(rewriter, loc, threads)
                     : maxThreads(rewriter, loc, loop);
  Block *body = loop.getBody();
  Value row = loop.getInductionVars().front();
  scf::ParallelOp blocked = balancedRowBlocks(
      rewriter, loc, loop.getLowerBound().front(), loop.getUpperBound().front(),
      blocks,
      [&](OpBuilder &b, Location loc, Value r) {
        return loadPosition(b, loc, positions, r);
      },
      [&](OpBuilder &b, Location loc, Value begin, Value end) {
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        scf::ForOp::create(
            b, loc, begin, end, one, ValueRange{},
            [&](OpBuilder &b, Location loc, Value r, ValueRange) {
              IRMapping map;
              map.map(row, r);
              for (Operation &op : body->without_terminator())
                b.clone(op, map);
              scf::YieldOp::create(b, loc);
            });
      });
  // Keep the sparsifier's marks (e.g. "Emitted from") on the new loop.
  for (NamedAttribute a : loop->getDiscardableAttrs())
    blocked->setAttr(a.getName(), a.getValue());
  rewriter.eraseOp(loop);
  return "";
}

namespace {
struct CpuBalanceRowsPass
    : public mlir::sptune::impl::CpuBalanceRowsBase<CpuBalanceRowsPass> {
  using CpuBalanceRowsBase::CpuBalanceRowsBase;

  /// A module pass: cutting a loop may declare omp_get_max_threads in the
  /// module, which functions processed in parallel must not race on.
  void runOnOperation() override {
    // The same range the schedules' thread counts have (whyIllegal).
    if (std::string why = ::sptune::whyBadThreadsOption(threads);
        !why.empty()) {
      getOperation().emitError("sptune-balance-rows: ") << why;
      return signalPassFailure();
    }
    for (func::FuncOp func :
         llvm::make_early_inc_range(getOperation().getOps<func::FuncOp>()))
      if (failed(balance(func)))
        return signalPassFailure();
  }

  LogicalResult balance(func::FuncOp func) {
    auto attr = dyn_cast_or_null<ScheduleAttr>(
        func->getAttr(SptuneDialect::kScheduleAttrName));
    if (!attr || attr.getSchedule().target != ::sptune::TargetKind::CPU)
      return success();
    const ::sptune::CpuKnobs &knobs = ::sptune::cpuKnobs(attr.getSchedule());
    if (knobs.omp != ::sptune::OmpScheduleKind::Balanced)
      return success();
    // The team's size as sptune-omp-schedule sets it: the option, else the
    // schedule's.
    int blocks = threads >= 0 ? static_cast<int>(threads) : knobs.threads;
    // The outermost parallel loops: the kernels' row loops. None when the
    // kernels were moved to functions of their own (different settings in
    // one function) or run sequentially: nothing to cut here then.
    SmallVector<scf::ParallelOp> loops;
    func.walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        loops.push_back(loop);
    });
    if (loops.empty())
      return success();
    IRRewriter rewriter(func.getContext());
    int64_t balanced = 0;
    std::string why;
    for (scf::ParallelOp loop : loops) {
      std::string whyNot = balanceRowsByEntries(rewriter, loop, blocks);
      if (whyNot.empty())
        ++balanced;
      else
        why = whyNot;
    }
    // A schedule that asks for balanced rows and does not get them would
    // run with OpenMP's static schedule, silently: an error instead.
    if (balanced == 0)
      return func.emitError("sptune: omp = balanced cannot cut the rows of @")
             << func.getSymName() << ": " << why;
    return success();
  }
};
} // namespace
