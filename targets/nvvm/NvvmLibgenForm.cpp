//===- NvvmLibgenForm.cpp - sptune-nvvm-libgen-form -----------------------===//
//
// Upstream's cuSPARSE matcher (sparse-gpu-codegen with zero threads) checks
// the indexing maps of a kernel against the canonical dimension-space forms,
// e.g. SpMM = (i, k), (k, j) -> (i, j) with loops (parallel, parallel,
// reduction). A kernel scheduled by sptune-apply-schedule is in level space
// (sparse operands behind sparse_tensor.reinterpret_map, a BSR operand with
// four levels) with its loops in the scheduled order, so the matcher misses
// it. For the cuSPARSE path the loop order means nothing (the library has its
// own), so this pass puts such a kernel back: each operand's dimensions are
// written through its encoding's lvlToDim map in terms of the level-space
// loops, every distinct expression (i1 * 2 + i0, k, ...) becomes one loop,
// the output's loops come first and the reduction last. The body is kept; the
// new op computes exactly what the old one did.
//
//===----------------------------------------------------------------------===//

#include "nvvm/NvvmPasses.h"
#include "nvvm/NvvmKnobs.h"

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_NVVMLIBGENFORM
#include "nvvm/NvvmPasses.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;

namespace {

/// One operand of the kernel in dimension space.
struct DimOperand {
  Value value;                   ///< the dimension-space tensor
  SmallVector<AffineExpr> exprs; ///< its indices over the level-space loops
};

struct NvvmLibgenFormPass
    : public mlir::sptune::impl::NvvmLibgenFormBase<NvvmLibgenFormPass> {
  using NvvmLibgenFormBase::NvvmLibgenFormBase;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> work;
    getOperation()->walk([&](linalg::GenericOp op) {
      auto attr = dyn_cast_or_null<ScheduleAttr>(
          op->getAttr(SptuneDialect::kScheduleAttrName));
      if (!attr)
        return;
      const ::sptune::Schedule &s = attr.getSchedule();
      if (s.target == ::sptune::TargetKind::NVVM && gpuKnobs(s).libgen)
        work.push_back(op);
    });
    bool ok = true;
    for (linalg::GenericOp op : work)
      ok &= succeeded(rebuild(op));
    if (!ok)
      signalPassFailure();
  }

  LogicalResult rebuild(linalg::GenericOp op) {
    auto fail = [&](const Twine &why) {
      return op->emitError("sptune-nvvm-libgen-form: cannot give this kernel "
                           "the form of the cuSPARSE matcher: ")
             << why;
    };
    if (op.getNumDpsInits() != 1 || op->getNumResults() != 1)
      return fail("it must have one output");
    if (!op.getRegion().getOps<linalg::IndexOp>().empty())
      return fail("its body uses linalg.index");
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
      if (isa<LoopLikeOpInterface>(p))
        return fail("it is inside a loop (a tiled kernel); the cuSPARSE path "
                  "takes no tiling");

    unsigned numLoops = op.getNumLoops();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();

    // Every operand in dimension space.
    SmallVector<DimOperand> operands;
    for (OpOperand &o : op->getOpOperands()) {
      DimOperand d;
      d.value = o.get();
      AffineMap map = maps[o.getOperandNumber()];
      if (auto demap = d.value.getDefiningOp<sparse_tensor::ReinterpretMapOp>()) {
        d.value = demap.getSource();
        auto enc = sparse_tensor::getSparseTensorEncoding(d.value.getType());
        if (!enc)
          return fail("a reinterpreted operand has no sparse encoding");
        if (!enc.isIdentity())
          map = enc.getLvlToDim().compose(map);
      } else if (auto enc = sparse_tensor::getSparseTensorEncoding(
                     d.value.getType());
                 enc && !enc.isIdentity()) {
        return fail("a sparse operand with a non-identity map is not behind "
                    "a sparse_tensor.reinterpret_map");
      }
      for (AffineExpr e : map.getResults())
        d.exprs.push_back(
            simplifyAffineExpr(e, map.getNumDims(), map.getNumSymbols()));
      operands.push_back(std::move(d));
    }

    // One loop per distinct index expression; each level-space loop must
    // belong to exactly one of them.
    SmallVector<AffineExpr> loops;
    auto addLoop = [&](AffineExpr e) {
      if (!llvm::is_contained(loops, e))
        loops.push_back(e);
    };
    const DimOperand &out = operands.back();
    for (AffineExpr e : out.exprs)
      addLoop(e);
    size_t numOutputLoops = loops.size();
    for (const DimOperand &d : operands)
      for (AffineExpr e : d.exprs)
        addLoop(e);
    SmallVector<utils::IteratorType> newIterators;
    SmallVector<int> owner(numLoops, -1);
    for (auto [n, e] : llvm::enumerate(loops)) {
      std::optional<utils::IteratorType> kind;
      for (unsigned d = 0; d < numLoops; ++d) {
        if (!e.isFunctionOfDim(d))
          continue;
        if (owner[d] >= 0)
          return fail("loop d" + Twine(d) +
                      " appears in two different index expressions");
        owner[d] = static_cast<int>(n);
        if (kind && *kind != iterators[d])
          return fail("an index expression mixes parallel and reduction "
                      "loops");
        kind = iterators[d];
      }
      if (!kind)
        return fail("an operand is indexed by a constant");
      newIterators.push_back(*kind);
    }
    for (unsigned d = 0; d < numLoops; ++d)
      if (owner[d] < 0)
        return fail("loop d" + Twine(d) + " indexes no operand");
    // Parallel loops of the output first (they are), then the others in the
    // order found, reductions last.
    SmallVector<unsigned> order;
    for (unsigned n = 0; n < loops.size(); ++n)
      if (n < numOutputLoops || newIterators[n] == utils::IteratorType::parallel)
        order.push_back(n);
    for (unsigned n = numOutputLoops; n < loops.size(); ++n)
      if (newIterators[n] != utils::IteratorType::parallel)
        order.push_back(n);
    SmallVector<unsigned> position(loops.size());
    for (auto [p, n] : llvm::enumerate(order))
      position[n] = p;

    MLIRContext *ctx = op.getContext();
    SmallVector<AffineMap> newMaps;
    for (const DimOperand &d : operands) {
      SmallVector<AffineExpr> results;
      for (AffineExpr e : d.exprs) {
        unsigned n = llvm::find(loops, e) - loops.begin();
        results.push_back(getAffineDimExpr(position[n], ctx));
      }
      newMaps.push_back(AffineMap::get(loops.size(), 0, results, ctx));
    }
    SmallVector<utils::IteratorType> orderedIterators;
    for (unsigned n : order)
      orderedIterators.push_back(newIterators[n]);

    // The new op, the same body.
    IRRewriter rewriter(ctx);
    rewriter.setInsertionPoint(op);
    SmallVector<Value> inputs, outputs;
    for (auto [n, d] : llvm::enumerate(operands))
      (n + 1 < operands.size() ? inputs : outputs).push_back(d.value);
    Type resultType = outputs.front().getType();
    auto generic = linalg::GenericOp::create(rewriter, op.getLoc(),
                                             TypeRange{resultType}, inputs,
                                             outputs, newMaps, orderedIterators);
    IRMapping mapping;
    op.getRegion().cloneInto(&generic.getRegion(), mapping);
    if (Attribute s = op->getAttr(SptuneDialect::kScheduleAttrName))
      generic->setAttr(SptuneDialect::kScheduleAttrName, s);

    // Users of the level-space result see it through a reinterpret_map back.
    Value oldResult = op->getResult(0), newResult = generic->getResult(0);
    for (OpOperand &use : llvm::make_early_inc_range(oldResult.getUses())) {
      auto remap = dyn_cast<sparse_tensor::ReinterpretMapOp>(use.getOwner());
      if (remap && remap.getType() == newResult.getType()) {
        rewriter.replaceOp(remap, newResult);
        continue;
      }
      if (oldResult.getType() != newResult.getType()) {
        generic->erase();
        return fail("a user of the level-space result cannot take the "
                    "dimension-space one");
      }
      rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(newResult); });
    }
    llvm::SetVector<Operation *> demaps;
    for (Value v : op->getOperands())
      if (auto demap = v.getDefiningOp<sparse_tensor::ReinterpretMapOp>())
        demaps.insert(demap);
    rewriter.eraseOp(op);
    for (Operation *demap : demaps)
      if (demap->use_empty())
        rewriter.eraseOp(demap);
    return success();
  }
};
} // namespace
