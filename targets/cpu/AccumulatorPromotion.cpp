//===- AccumulatorPromotion.cpp - Keep loop accumulators in registers -----===//

#include "cpu/AccumulatorPromotion.h"
#include "cpu/BufferRoot.h"
#include "cpu/CpuPasses.h"

#include "sptune/IR/SptuneDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <optional>

using namespace mlir;
using namespace mlir::sptune;

namespace {

/// The two refusals that are the normal case (a loop with nothing to promote,
/// the vector loop over the free dimension itself): no remark for them.
constexpr const char *kNoVectorStore = "the loop stores no vector";
constexpr const char *kVaryingPosition = "a store's position changes with the loop";

/// The value of an index computed from constants only (the unrolled copies of
/// a loop's induction variable are such sums and products).
std::optional<int64_t> constantIndex(Value v) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return c;
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> lhs = constantIndex(def->getOperand(0));
  std::optional<int64_t> rhs = constantIndex(def->getOperand(1));
  if (!lhs || !rhs)
    return std::nullopt;
  if (isa<arith::AddIOp>(def))
    return *lhs + *rhs;
  if (isa<arith::SubIOp>(def))
    return *lhs - *rhs;
  if (isa<arith::MulIOp>(def))
    return *lhs * *rhs;
  return std::nullopt;
}

/// Whether `v` has the same value in every iteration of `loop`, except that
/// it may depend on `innerIv` (the loop about to be unrolled).
bool isInvariantIn(scf::ForOp loop, Value v, Value innerIv) {
  if (v == innerIv || loop.isDefinedOutsideOfLoop(v))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumRegions() != 0 || !isPure(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return isInvariantIn(loop, operand, innerIv);
  });
}

/// A nested loop that can be unrolled into `loop`: fixed trip count of at
/// most kMaxAccumulatorUnroll and no nested regions.
bool isUnrollableInnerLoop(scf::ForOp inner) {
  std::optional<APInt> trips = inner.getStaticTripCount();
  if (!trips || trips->getSExtValue() < 1 ||
      trips->getSExtValue() > kMaxAccumulatorUnroll)
    return false;
  return llvm::all_of(*inner.getBody(), [](Operation &op) {
    return op.getNumRegions() == 0;
  });
}

/// A vector access of a candidate buffer.
struct Access {
  Operation *op;
  Value memref;
  ValueRange indices;
  VectorType type;
};

std::optional<Access> asVectorAccess(Operation *op) {
  if (auto load = dyn_cast<vector::LoadOp>(op))
    return Access{op, load.getBase(), load.getIndices(), load.getVectorType()};
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return Access{op, store.getBase(), store.getIndices(),
                  store.getVectorType()};
  return std::nullopt;
}

/// One index of a promoted position: a constant or a loop-invariant value.
struct IndexKey {
  Value value;
  std::optional<int64_t> constant;
  bool operator==(const IndexKey &o) const {
    return constant ? (o.constant && *constant == *o.constant)
                    : (!o.constant && value == o.value);
  }
};

/// The positions of one buffer that are promoted, in first-seen order.
struct Group {
  SmallVector<IndexKey> indices;
  /// The indices as first seen, or null where only the constant is known
  /// outside the loop (for the load before it and the store after it).
  SmallVector<Value> indexValues;
  VectorType type;
  Value init; // the load before the loop
};

enum class Overlap { Same, Disjoint, Unknown };

Overlap overlapOf(const Group &g, ArrayRef<IndexKey> indices, VectorType type) {
  if (g.type != type || g.indices.size() != indices.size())
    return Overlap::Unknown;
  if (llvm::equal(g.indices, indices))
    return Overlap::Same;
  if (type.getRank() != 1 || type.isScalable())
    return Overlap::Unknown;
  for (size_t d = 0; d + 1 < indices.size(); ++d)
    if (!(g.indices[d] == indices[d]))
      return Overlap::Unknown;
  const IndexKey &a = g.indices.back(), &b = indices.back();
  if (!a.constant || !b.constant)
    return Overlap::Unknown;
  int64_t distance = *a.constant > *b.constant ? *a.constant - *b.constant
                                               : *b.constant - *a.constant;
  return distance >= type.getNumElements() ? Overlap::Disjoint
                                           : Overlap::Unknown;
}

/// Checks what can be checked before the IR changes and collects the buffers
/// to promote (those stored to) and the inner loops to unroll.
LogicalResult precheck(scf::ForOp loop, SetVector<Value> &buffers,
                       SmallVectorImpl<scf::ForOp> &toUnroll,
                       std::string &whyNot) {
  Block *body = loop.getBody();
  auto placementOk = [&](Operation *op, Value &innerIv) {
    if (op->getBlock() == body) {
      innerIv = nullptr;
      return true;
    }
    auto inner = dyn_cast<scf::ForOp>(op->getParentOp());
    if (!inner || inner->getBlock() != body || !isUnrollableInnerLoop(inner))
      return false;
    innerIv = inner.getInductionVar();
    return true;
  };

  // Every write is a vector store placed where it can be promoted.
  WalkResult walk = body->walk([&](Operation *op) -> WalkResult {
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
        isa<scf::YieldOp>(op))
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      if (isPure(op))
        return WalkResult::advance();
      whyNot = "'" + op->getName().getStringRef().str() +
               "' has unknown memory effects";
      return WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &e : instances) {
      if (isa<MemoryEffects::Read>(e.getEffect()))
        continue;
      auto store = dyn_cast<vector::StoreOp>(op);
      Value innerIv;
      if (!store || !placementOk(op, innerIv)) {
        whyNot = "'" + op->getName().getStringRef().str() +
                 "' writes memory in the loop";
        return WalkResult::interrupt();
      }
      buffers.insert(store.getBase());
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (buffers.empty()) {
    whyNot = kNoVectorStore;
    return failure();
  }

  // Two stored views of one buffer could overlap in ways positions do not
  // show: each promoted buffer has a root of its own.
  llvm::DenseSet<Value> promotedRoots;
  for (Value buffer : buffers)
    if (!promotedRoots.insert(bufferRoot(buffer)).second) {
      whyNot = "the loop stores through two views of one buffer";
      return failure();
    }

  // Every access of a promoted buffer is one of its vector loads and stores
  // at an invariant position; every other read has another root.
  walk = body->walk([&](Operation *op) -> WalkResult {
    for (Value operand : op->getOperands()) {
      if (!buffers.contains(operand))
        continue;
      std::optional<Access> access = asVectorAccess(op);
      Value innerIv;
      if (!access || access->memref != operand || !placementOk(op, innerIv)) {
        whyNot = "'" + op->getName().getStringRef().str() +
                 "' uses a promoted buffer";
        return WalkResult::interrupt();
      }
      for (Value index : access->indices)
        if (!isInvariantIn(loop, index, innerIv)) {
          whyNot = kVaryingPosition;
          return WalkResult::interrupt();
        }
      if (innerIv) {
        auto inner = cast<scf::ForOp>(op->getParentOp());
        if (!llvm::is_contained(toUnroll, inner))
          toUnroll.push_back(inner);
      }
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return WalkResult::advance();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &e : instances) {
      if (!isa<MemoryEffects::Read>(e.getEffect()))
        continue;
      Value read = e.getValue();
      if (!read) {
        whyNot = "'" + op->getName().getStringRef().str() +
                 "' reads memory it does not name";
        return WalkResult::interrupt();
      }
      if (buffers.contains(read))
        continue;
      if (promotedRoots.contains(bufferRoot(read))) {
        whyNot = "the loop reads another view of a promoted buffer";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

} // namespace

/// promoteLoopAccumulators' work: the count, or 0 with `whyNot` set.
static int64_t promoteInto(RewriterBase &rewriter, scf::ForOp loop,
                           std::string &whyNot) {
  SetVector<Value> buffers;
  SmallVector<scf::ForOp> toUnroll;
  if (failed(precheck(loop, buffers, toUnroll, whyNot)))
    return 0;

  // Unroll the vector loops over the free dimension, then hoist what became
  // invariant (the unrolled copies' positions) out of `loop`.
  for (scf::ForOp inner : toUnroll)
    if (failed(loopUnrollFull(inner))) {
      whyNot = "an inner vector loop could not be unrolled";
      return 0;
    }
  moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));

  // Group the accesses by position; positions must be equal or disjoint.
  llvm::MapVector<Value, SmallVector<Group>> groups;
  llvm::DenseMap<Operation *, std::pair<Value, unsigned>> groupOf;
  SmallVector<Operation *> accesses;
  for (Operation &op : *loop.getBody()) {
    std::optional<Access> access = asVectorAccess(&op);
    if (!access || !buffers.contains(access->memref))
      continue;
    SmallVector<IndexKey> keys;
    for (Value index : access->indices) {
      std::optional<int64_t> c = constantIndex(index);
      if (!c && !loop.isDefinedOutsideOfLoop(index)) {
        whyNot = "a position is not invariant after unrolling";
        return 0;
      }
      keys.push_back(IndexKey{c ? Value() : index, c});
    }
    SmallVector<Group> &list = groups[access->memref];
    std::optional<unsigned> found;
    for (auto [i, g] : llvm::enumerate(list)) {
      Overlap o = overlapOf(g, keys, access->type);
      if (o == Overlap::Unknown) {
        whyNot = "two promoted positions may overlap";
        return 0;
      }
      if (o == Overlap::Same)
        found = i;
    }
    if (!found) {
      found = list.size();
      SmallVector<Value> outside;
      for (Value index : access->indices)
        outside.push_back(loop.isDefinedOutsideOfLoop(index) ? index : Value());
      list.push_back(Group{keys, outside, access->type, {}});
    }
    groupOf[&op] = {access->memref, *found};
    accesses.push_back(&op);
  }

  // One load per position before the loop.
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> inits;
  SmallVector<std::pair<Value, unsigned>> order;
  auto materialize = [&](const Group &g) {
    SmallVector<Value> indices;
    for (auto [key, value] : llvm::zip(g.indices, g.indexValues))
      indices.push_back(
          value ? value
                : arith::ConstantIndexOp::create(rewriter, loc, *key.constant)
                      .getResult());
    return indices;
  };
  for (auto &[buffer, list] : groups)
    for (auto [i, g] : llvm::enumerate(list)) {
      g.init = vector::LoadOp::create(rewriter, loc, g.type, buffer,
                                      materialize(g));
      inits.push_back(g.init);
      order.push_back({buffer, static_cast<unsigned>(i)});
    }

  // Loads become the current value, stores update it, the loop yields it.
  auto rewriteBody = [&](OpBuilder &, Location,
                         ArrayRef<BlockArgument> bbArgs) {
    SmallVector<Value> current(bbArgs.begin(), bbArgs.end());
    auto slot = [&](Operation *op) {
      auto [buffer, i] = groupOf[op];
      return static_cast<size_t>(
          llvm::find(order, std::make_pair(buffer, i)) - order.begin());
    };
    for (Operation *op : accesses) {
      size_t s = slot(op);
      if (auto load = dyn_cast<vector::LoadOp>(op)) {
        rewriter.replaceAllUsesWith(load.getResult(), current[s]);
      } else {
        current[s] = cast<vector::StoreOp>(op).getValueToStore();
      }
    }
    for (Operation *op : accesses)
      rewriter.eraseOp(op);
    return current;
  };
  FailureOr<LoopLikeOpInterface> promoted =
      cast<LoopLikeOpInterface>(loop.getOperation())
          .replaceWithAdditionalYields(rewriter, inits,
                                       /*replaceInitOperandUsesInLoop=*/false,
                                       rewriteBody);
  if (failed(promoted)) {
    whyNot = "the loop could not carry the accumulators";
    return 0;
  }
  auto newLoop = cast<scf::ForOp>(promoted->getOperation());

  // One store per position after the loop.
  rewriter.setInsertionPointAfter(newLoop);
  unsigned first = newLoop.getNumResults() - order.size();
  for (auto [n, slot] : llvm::enumerate(order)) {
    Group &g = groups[slot.first][slot.second];
    vector::StoreOp::create(rewriter, loc, newLoop.getResult(first + n),
                            slot.first, materialize(g));
  }
  return static_cast<int64_t>(order.size());
}

AccumulatorPromotion
mlir::sptune::promoteLoopAccumulators(RewriterBase &rewriter, scf::ForOp loop) {
  AccumulatorPromotion result;
  result.promoted = promoteInto(rewriter, loop, result.whyNot);
  return result;
}

//===----------------------------------------------------------------------===//
// sptune-promote-accumulators
//===----------------------------------------------------------------------===//

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_CPUPROMOTEACCUMULATORS
#include "cpu/CpuPasses.h.inc"
} // namespace sptune
} // namespace mlir

namespace {
struct CpuPromoteAccumulatorsPass
    : public mlir::sptune::impl::CpuPromoteAccumulatorsBase<
          CpuPromoteAccumulatorsPass> {
  using CpuPromoteAccumulatorsBase::CpuPromoteAccumulatorsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func->hasAttr(mlir::sptune::SptuneDialect::kScheduleAttrName))
      return;
    // Innermost loops first: promoting or unrolling a loop only replaces
    // loops nested in it, which come earlier in this list.
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(func.getContext());
    for (scf::ForOp loop : loops) {
      Location loc = loop.getLoc(); // `loop` is replaced when promoted
      auto [promoted, whyNot] = promoteLoopAccumulators(rewriter, loop);
      if (!remarks)
        continue;
      if (promoted > 0)
        emitRemark(loc)
            << "sptune: " << promoted
            << " accumulator vector(s) kept in registers across the loop";
      else if (whyNot != kNoVectorStore && whyNot != kVaryingPosition)
        emitRemark(loc)
            << "sptune: accumulators not promoted: " << whyNot;
    }
  }
};
} // namespace
