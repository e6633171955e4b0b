//===- ReductionJam.cpp - Interleave independent reductions ---------------===//

#include "cpu/ReductionJam.h"
#include "cpu/BufferRoot.h"
#include "cpu/CpuPasses.h"

#include "sptune/IR/SptuneDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::sptune;

namespace {

/// The refusals that are the normal case (a loop with no reduction loop in
/// it, the reduction loop itself): no remark for them.
constexpr const char *kNoInnerReduction =
    "the loop holds no loop that carries values";
constexpr const char *kCarriesValues = "the loop carries values";

enum class Effect { None, Read, Other };

/// How `op` touches memory: not at all, reads only, or otherwise (writes,
/// allocations, unknown effects).
Effect effectOf(Operation *op) {
  if (isPure(op))
    return Effect::None;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return Effect::Other;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  for (const MemoryEffects::EffectInstance &e : list)
    if (!isa<MemoryEffects::Read>(e.getEffect()))
      return Effect::Other;
  return Effect::Read;
}

/// Whether `op` is an `scf.if` with no loop nested in it.
bool isLoopFreeBranch(Operation *op) {
  if (!isa<scf::IfOp>(op))
    return false;
  WalkResult walk = op->walk([](Operation *nested) {
    return isa<LoopLikeOpInterface>(nested) ? WalkResult::interrupt()
                                            : WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

/// Why the copies of `outer`'s iterations cannot run interleaved, or "".
std::string whyNotJammable(scf::ForOp outer, scf::ForOp &inner) {
  if (outer.getNumRegionIterArgs() != 0)
    return kCarriesValues;
  std::optional<int64_t> step = getConstantIntValue(outer.getStep());
  if (!step || *step != 1)
    return "the loop's step is not 1";
  if (!outer.getInductionVar().getType().isIndex() || outer.getUnsignedCmp())
    return "the loop's induction variable is not a signed index";
  inner = nullptr;
  for (Operation &op : outer.getBody()->without_terminator()) {
    auto loop = dyn_cast<scf::ForOp>(op);
    if (loop && loop.getNumRegionIterArgs() > 0 && !inner) {
      inner = loop;
      continue;
    }
    // A branch without loops in it (sptune-factor-reductions guards a load
    // with one) is copied like any operation.
    if (op.getNumRegions() != 0 && !isLoopFreeBranch(&op))
      return inner ? "the loop holds more than the reduction loop"
                   : kNoInnerReduction;
  }
  if (!inner)
    return kNoInnerReduction;
  for (Value bound :
       {inner.getLowerBound(), inner.getUpperBound(), inner.getStep()})
    if (!outer.isDefinedOutsideOfLoop(bound))
      return "the reduction loop's bounds change with the loop";
  for (Operation &op : inner.getBody()->without_terminator()) {
    if (op.getNumRegions() != 0)
      return "the reduction loop nests another region";
    if (effectOf(&op) != Effect::None && effectOf(&op) != Effect::Read)
      return "the reduction loop writes memory";
  }

  // Writes: scalar stores at an index that is the induction variable itself,
  // so no two iterations write one element.
  Value iv = outer.getInductionVar();
  SmallVector<memref::StoreOp> stores;
  SmallVector<Operation *> reads;
  WalkResult walk = outer.getBody()->walk([&](Operation *op) {
    // Loops and branches: their nested operations are walked.
    if (isa<scf::ForOp, scf::IfOp, scf::YieldOp>(op))
      return WalkResult::advance();
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      // A view made in the loop could move with the induction variable.
      if (!llvm::is_contained(store.getIndices(), iv) ||
          !outer.isDefinedOutsideOfLoop(store.getMemRef()))
        return WalkResult::interrupt();
      stores.push_back(store);
      return WalkResult::advance();
    }
    switch (effectOf(op)) {
    case Effect::None:
      return WalkResult::advance();
    case Effect::Read:
      reads.push_back(op);
      return WalkResult::advance();
    case Effect::Other:
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return "the loop writes memory other than by scalar stores indexed by "
           "its induction variable into a buffer defined outside it";
  // Reads of a written buffer: only a plain load of the very element the
  // iteration writes (the same buffer value and indices as a store).
  for (memref::StoreOp store : stores) {
    Value root = bufferRoot(store.getMemRef());
    for (Operation *read : reads) {
      auto load = dyn_cast<memref::LoadOp>(read);
      if (!load) {
        // Another kind of read: refused unless none of its operands is a
        // view of the written buffer.
        if (llvm::any_of(read->getOperands(), [&](Value v) {
              return isa<MemRefType>(v.getType()) && bufferRoot(v) == root;
            }))
          return "the loop reads a buffer it writes other than by a load";
        continue;
      }
      if (bufferRoot(load.getMemRef()) != root)
        continue;
      if (load.getMemRef() != store.getMemRef() ||
          !llvm::equal(load.getIndices(), store.getIndices()))
        return "the loop reads a buffer it writes at other positions";
    }
    for (memref::StoreOp other : stores)
      if (other != store && bufferRoot(other.getMemRef()) == root)
        return "the loop writes one buffer twice";
  }
  return "";
}

} // namespace

ReductionJam mlir::sptune::jamReductionLoop(RewriterBase &rewriter,
                                            scf::ForOp outer, unsigned factor) {
  if (factor < 2)
    return {false, "the factor is below 2"};
  scf::ForOp inner;
  if (std::string why = whyNotJammable(outer, inner); !why.empty())
    return {false, why};

  Location loc = outer.getLoc();
  Block *body = outer.getBody();
  SmallVector<Operation *> before, after;
  for (Operation &op : body->without_terminator())
    if (&op != inner.getOperation())
      (op.isBeforeInBlock(inner) ? before : after).push_back(&op);

  // split = lo + max(hi - lo, 0) / factor * factor: the main loop runs the
  // whole groups, the original loop the rest.
  rewriter.setInsertionPoint(outer);
  Value lo = outer.getLowerBound(), hi = outer.getUpperBound();
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value step = arith::ConstantIndexOp::create(rewriter, loc, factor);
  Value trips = arith::MaxSIOp::create(
      rewriter, loc, arith::SubIOp::create(rewriter, loc, hi, lo), zero);
  Value whole = arith::MulIOp::create(
      rewriter, loc, arith::DivUIOp::create(rewriter, loc, trips, step), step);
  Value split = arith::AddIOp::create(rewriter, loc, lo, whole);

  auto main = scf::ForOp::create(rewriter, loc, lo, split, step);
  rewriter.setInsertionPointToStart(main.getBody());
  SmallVector<IRMapping> copies(factor);
  for (unsigned u = 0; u < factor; ++u) {
    Value iv = main.getInductionVar();
    if (u > 0)
      iv = arith::AddIOp::create(
          rewriter, loc, iv, arith::ConstantIndexOp::create(rewriter, loc, u));
    copies[u].map(outer.getInductionVar(), iv);
  }
  for (unsigned u = 0; u < factor; ++u)
    for (Operation *op : before)
      rewriter.clone(*op, copies[u]);

  unsigned carried = inner.getNumRegionIterArgs();
  SmallVector<Value> inits;
  for (unsigned u = 0; u < factor; ++u)
    for (Value init : inner.getInitArgs())
      inits.push_back(copies[u].lookupOrDefault(init));
  auto jammed = scf::ForOp::create(
      rewriter, inner.getLoc(), inner.getLowerBound(), inner.getUpperBound(),
      inner.getStep(), inits,
      [&](OpBuilder &b, Location l, Value iv, ValueRange args) {
        SmallVector<Value> yields;
        // Copy by copy within each iteration: `factor` independent chains.
        for (unsigned u = 0; u < factor; ++u) {
          IRMapping map = copies[u];
          map.map(inner.getInductionVar(), iv);
          for (unsigned n = 0; n < carried; ++n)
            map.map(inner.getRegionIterArgs()[n], args[u * carried + n]);
          for (Operation &op : inner.getBody()->without_terminator())
            b.clone(op, map);
          for (Value y : inner.getBody()->getTerminator()->getOperands())
            yields.push_back(map.lookupOrDefault(y));
        }
        scf::YieldOp::create(b, l, yields);
      });
  jammed->setDiscardableAttrs(inner->getDiscardableAttrDictionary());
  for (unsigned u = 0; u < factor; ++u)
    for (unsigned n = 0; n < carried; ++n)
      copies[u].map(inner.getResult(n), jammed.getResult(u * carried + n));
  for (unsigned u = 0; u < factor; ++u)
    for (Operation *op : after)
      rewriter.clone(*op, copies[u]);

  // The original loop runs what is left.
  rewriter.modifyOpInPlace(outer,
                           [&] { outer.getLowerBoundMutable().assign(split); });
  return {true, ""};
}

//===----------------------------------------------------------------------===//
// sptune-jam-reductions
//===----------------------------------------------------------------------===//

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_CPUJAMREDUCTIONS
#include "cpu/CpuPasses.h.inc"
} // namespace sptune
} // namespace mlir

namespace {
struct CpuJamReductionsPass
    : public mlir::sptune::impl::CpuJamReductionsBase<CpuJamReductionsPass> {
  using CpuJamReductionsBase::CpuJamReductionsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (factor < 1 || factor > kMaxReductionJam) {
      func.emitError("sptune-jam-reductions: factor must be 1 to ")
          << kMaxReductionJam << ", got " << static_cast<unsigned>(factor);
      return signalPassFailure();
    }
    if (factor == 1 ||
        !func->hasAttr(mlir::sptune::SptuneDialect::kScheduleAttrName))
      return;
    // Only loops present before the pass: the main loops it creates hold
    // the jammed loop and are not jammed again.
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(func.getContext());
    for (scf::ForOp loop : loops) {
      auto [jammed, whyNot] = jamReductionLoop(rewriter, loop, factor);
      if (!remarks)
        continue;
      if (jammed)
        emitRemark(loop.getLoc())
            << "sptune: " << static_cast<unsigned>(factor)
            << " iterations interleaved around the reduction loop";
      else if (whyNot != kNoInnerReduction && whyNot != kCarriesValues)
        emitRemark(loop.getLoc())
            << "sptune: iterations not interleaved: " << whyNot;
    }
  }
};
} // namespace
