//===- ReductionFactoring.cpp - Multiply a reduction's invariant once -----===//

#include "cpu/ReductionFactoring.h"
#include "cpu/CpuPasses.h"

#include "sptune/IR/SptuneDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

using namespace mlir;
using namespace mlir::sptune;

namespace {

bool allowsReassociation(Operation *op) {
  auto fm = dyn_cast<arith::ArithFastMathInterface>(op);
  return fm && arith::bitEnumContainsAll(fm.getFastMathFlagsAttr().getValue(),
                                         arith::FastMathFlags::reassoc);
}

/// Whether anything in `loop`'s body writes memory.
bool writesMemory(scf::ForOp loop) {
  WalkResult walk = loop.getBody()->walk([](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
                     isa<scf::YieldOp>(op)
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    return effects.hasEffect<MemoryEffects::Write>() ||
                   effects.hasEffect<MemoryEffects::Allocate>() ||
                   effects.hasEffect<MemoryEffects::Free>()
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// The factors of the product `v`: the operands of a tree of `arith.mulf`s
/// in `body`, each used once and allowing reassociation; `flags` is narrowed
/// to the fast-math flags all of them have.
void collectFactors(Value v, Block *body, SmallVectorImpl<Value> &factors,
                    arith::FastMathFlags &flags) {
  auto mul = v.getDefiningOp<arith::MulFOp>();
  if (!mul || mul->getBlock() != body || !mul->hasOneUse() ||
      !allowsReassociation(mul)) {
    factors.push_back(v);
    return;
  }
  flags = flags & mul.getFastmath();
  collectFactors(mul.getLhs(), body, factors, flags);
  collectFactors(mul.getRhs(), body, factors, flags);
}

/// Whether factor `v` has one value in all of `loop`'s iterations: defined
/// outside it, or (when `hoistLoads`) a load of a buffer and indices defined
/// outside it.
bool isInvariantFactor(scf::ForOp loop, Value v, bool hoistLoads) {
  if (loop.isDefinedOutsideOfLoop(v))
    return true;
  if (!hoistLoads)
    return false;
  auto load = v.getDefiningOp<memref::LoadOp>();
  return load && load->getBlock() == loop.getBody() &&
         llvm::all_of(load->getOperands(), [&](Value operand) {
           return loop.isDefinedOutsideOfLoop(operand);
         });
}

Value product(RewriterBase &rewriter, Location loc, ArrayRef<Value> factors,
              arith::FastMathFlagsAttr flags) {
  Value result = factors.front();
  for (Value f : factors.drop_front())
    result = arith::MulFOp::create(rewriter, loc, result, f, flags);
  return result;
}

} // namespace

int64_t mlir::sptune::factorReductionInvariants(RewriterBase &rewriter,
                                                scf::ForOp loop) {
  // The sum is multiplied after the loop, and invariant loads move before
  // it. With no iteration the result must be `init` as it is, and a moved
  // load could read out of bounds: unless the loop is known to run, both
  // are guarded by whether it does.
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (loop.getNumRegionIterArgs() == 0 ||
      (trips && (trips->isZero() || trips->isNegative())))
    return 0;
  bool knownToRun = trips.has_value();
  Value runs; // i1, built before the loop when first needed
  auto runsValue = [&](Location loc) {
    if (!runs) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(loop);
      runs = arith::CmpIOp::create(rewriter, loc,
                                   loop.getUnsignedCmp()
                                       ? arith::CmpIPredicate::ult
                                       : arith::CmpIPredicate::slt,
                                   loop.getLowerBound(), loop.getUpperBound());
    }
    return runs;
  };
  bool hoistLoads = !writesMemory(loop);
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  int64_t factored = 0;
  for (unsigned n = 0; n < loop.getNumRegionIterArgs(); ++n) {
    BlockArgument acc = loop.getRegionIterArgs()[n];
    auto floatType = dyn_cast<FloatType>(acc.getType());
    auto add = yield.getOperand(n).getDefiningOp<arith::AddFOp>();
    if (!floatType || !add || add->getBlock() != body || !add->hasOneUse() ||
        !allowsReassociation(add) || !acc.hasOneUse())
      continue;
    Value term = add.getLhs() == acc ? add.getRhs() : add.getLhs();
    if (term == acc || (add.getLhs() != acc && add.getRhs() != acc))
      continue;
    SmallVector<Value> factors;
    arith::FastMathFlags common = add.getFastmath();
    collectFactors(term, body, factors, common);
    SmallVector<Value> invariant, varying;
    for (Value f : factors)
      (isInvariantFactor(loop, f, hoistLoads) ? invariant : varying)
          .push_back(f);
    if (invariant.empty() || varying.empty())
      continue;

    Location loc = add.getLoc();
    // The new operations take only the flags the old ones all had.
    auto flags = arith::FastMathFlagsAttr::get(loop.getContext(), common);
    // The invariant loads move before the loop, the product of the
    // invariant factors is formed there.
    rewriter.setInsertionPoint(loop);
    Value zero = arith::ConstantOp::create(rewriter, loc, floatType,
                                           rewriter.getFloatAttr(floatType, 0));
    for (Value &f : invariant) {
      if (loop.isDefinedOutsideOfLoop(f))
        continue;
      Operation *load = f.getDefiningOp();
      if (knownToRun) {
        f = rewriter.clone(*load)->getResult(0);
        continue;
      }
      // Loaded only when the loop runs (any value serves otherwise: the
      // result is then `init`).
      auto guarded = scf::IfOp::create(
          rewriter, loc, runsValue(loc),
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(b, l, b.clone(*load)->getResult(0));
          },
          [&](OpBuilder &b, Location l) {
            Value other = arith::ConstantOp::create(
                b, l, f.getType(), b.getFloatAttr(f.getType(), 0));
            scf::YieldOp::create(b, l, other);
          });
      f = guarded.getResult(0);
    }
    Value scale = product(rewriter, loc, invariant, flags);
    Value init = loop.getInitArgs()[n];

    // Inside: the sum of the varying factors' products, from zero.
    rewriter.setInsertionPoint(add);
    Value newTerm = product(rewriter, loc, varying, flags);
    Value newSum = arith::AddFOp::create(rewriter, loc, acc, newTerm, flags);
    rewriter.modifyOpInPlace(yield, [&] { yield->setOperand(n, newSum); });
    rewriter.modifyOpInPlace(
        loop, [&] { loop.getInitArgsMutable()[n].assign(zero); });

    // After: init + scale * sum, for every user of the loop's result.
    rewriter.setInsertionPointAfter(loop);
    Value result = loop.getResult(n);
    Value scaled = arith::MulFOp::create(rewriter, loc, scale, result, flags);
    Value total = arith::AddFOp::create(rewriter, loc, init, scaled, flags);
    if (!knownToRun)
      total =
          arith::SelectOp::create(rewriter, loc, runsValue(loc), total, init);
    rewriter.replaceAllUsesExcept(result, total, scaled.getDefiningOp());
    ++factored;
  }
  // The old product and sum (and loads they alone used) are dead now.
  bool erased = factored > 0;
  while (erased) {
    erased = false;
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
      if (op.use_empty() && !op.hasTrait<OpTrait::IsTerminator>() &&
          (isPure(&op) || isa<memref::LoadOp>(op))) {
        rewriter.eraseOp(&op);
        erased = true;
      }
  }
  return factored;
}

//===----------------------------------------------------------------------===//
// sptune-factor-reductions
//===----------------------------------------------------------------------===//

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_CPUFACTORREDUCTIONS
#include "cpu/CpuPasses.h.inc"
} // namespace sptune
} // namespace mlir

namespace {
struct CpuFactorReductionsPass
    : public mlir::sptune::impl::CpuFactorReductionsBase<
          CpuFactorReductionsPass> {
  using CpuFactorReductionsBase::CpuFactorReductionsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func->hasAttr(mlir::sptune::SptuneDialect::kScheduleAttrName))
      return;
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(func.getContext());
    for (scf::ForOp loop : loops) {
      int64_t n = factorReductionInvariants(rewriter, loop);
      if (remarks && n > 0)
        emitRemark(loop.getLoc())
            << "sptune: " << n
            << " sum(s) multiplied by their loop-invariant factor once";
    }
  }
};
} // namespace
