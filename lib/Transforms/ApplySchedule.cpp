//===- ApplySchedule.cpp - sptune-apply-schedule --------------------------===//
//
// Rewrites each scheduled kernel into its scheduled storage and loop order.
// The meaning of a schedule in MLIR terms (encoding, loop permutation) comes
// from the ScheduleMapping analysis; applySchedule (ApplySchedule.h) only
// rewrites, and the pass calls it on every scheduled op:
//   1. the sparse operand gets the scheduled encoding (convert or retype);
//   2. the op is generalized and mapped into level space by upstream's
//      sparse-reinterpret-map patterns (applied to this op only);
//   3. its loops are interchanged into the scheduled order and marked
//      `sorted`, which the sparsifier keeps (d0 outermost);
//   4. the free dense loop is strip-mined by the schedule's tile.
//
//===----------------------------------------------------------------------===//

#include "sptune/Transforms/ApplySchedule.h"
#include "sptune/Analysis/ScheduleMapping.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_APPLYSCHEDULE
#include "sptune/Transforms/Passes.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;

/// Name of the upstream attribute that tells the sparsifier a generic's loop
/// order is final.
static constexpr StringLiteral kSortedAttrName = "sorted";

namespace {
/// Follows one op through pattern rewrites that replace it.
struct ReplacementTracker : public RewriterBase::Listener {
  explicit ReplacementTracker(linalg::GenericOp op) : current(op) {}
  void notifyOperationReplaced(Operation *op, ValueRange values) override {
    if (op != current.getOperation())
      return;
    current = {};
    if (values.empty())
      return;
    Value v = values.front();
    // A sparse result comes back through a reinterpret_map to its type.
    if (auto demap = v.getDefiningOp<sparse_tensor::ReinterpretMapOp>())
      v = demap.getSource();
    current = v.getDefiningOp<linalg::GenericOp>();
  }
  void notifyOperationErased(Operation *op) override {
    if (op == current.getOperation())
      current = {};
  }
  linalg::GenericOp current;
};

} // namespace

/// Gives the sparse operand the scheduled type: retypes a function
/// argument used only here (when asked), else inserts a conversion.
static Value retypeOrConvert(IRRewriter &rewriter, Operation *op, Value sparse,
                             RankedTensorType newType, bool retypeArgs) {
  auto arg = dyn_cast<BlockArgument>(sparse);
  auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                  : func::FuncOp();
  if (retypeArgs && func && arg.getOwner()->isEntryBlock() && arg.hasOneUse()) {
    arg.setType(newType);
    SmallVector<Type> inputs(func.getArgumentTypes());
    inputs[arg.getArgNumber()] = newType;
    func.setFunctionType(
        FunctionType::get(func.getContext(), inputs, func.getResultTypes()));
    return arg;
  }
  rewriter.setInsertionPoint(op);
  return sparse_tensor::ConvertOp::create(rewriter, op->getLoc(), newType,
                                          sparse);
}

LogicalResult mlir::sptune::applySchedule(linalg::LinalgOp op,
                                          const ::sptune::Schedule &schedule,
                                          const ScheduleRewriteOptions &options) {
  auto kernel =
      dyn_cast_or_null<KernelAttr>(op->getAttr(SptuneDialect::kKernelAttrName));
  if (!kernel)
    return op->emitError("sptune: op has no #sptune.kernel; run "
                         "sptune-extract-kernels first");
  auto scheduleAttr = ScheduleAttr::get(op->getContext(), schedule);
  std::string why = whyNotApplicable(kernel, schedule);
  if (!why.empty())
    return op->emitError("sptune: cannot apply schedule: ") << why;

  MLIRContext *ctx = op->getContext();
  IRRewriter rewriter(ctx);
  auto func = op->getParentOfType<func::FuncOp>();
  unsigned sparseIdx = kernel.getSparseOperand();

  // 1. The scheduled storage.
  Value sparse = op->getOperand(sparseIdx);
  auto oldType = cast<RankedTensorType>(sparse.getType());
  auto newType =
      RankedTensorType::get(oldType.getShape(), oldType.getElementType(),
                            buildScheduledEncoding(kernel, schedule));
  if (newType != oldType) {
    Value converted =
        retypeOrConvert(rewriter, op, sparse, newType, options.retypeArgs);
    rewriter.modifyOpInPlace(op, [&] { op->setOperand(sparseIdx, converted); });
    // An SDDMM whose output shares the sampling pattern: the output gets
    // the same storage (a fresh tensor.empty is simply retyped).
    unsigned outIdx = op.getNumDpsInputs();
    if (sparseIdx < outIdx &&
        kernel.getOperandKinds()[outIdx] == OperandKind::SparseOut) {
      Value init = op->getOperand(outIdx);
      Value newInit;
      if (auto empty = init.getDefiningOp<tensor::EmptyOp>()) {
        rewriter.setInsertionPoint(op);
        newInit = tensor::EmptyOp::create(rewriter, op->getLoc(), newType,
                                          empty.getDynamicSizes());
      } else {
        newInit =
            retypeOrConvert(rewriter, op, init, newType, options.retypeArgs);
      }
      rewriter.modifyOpInPlace(op, [&] { op->setOperand(outIdx, newInit); });
    }
    // The result takes the scheduled type when the output is sparse;
    // convert it back for the users.
    if (sparseIdx >= outIdx ||
        kernel.getOperandKinds()[outIdx] == OperandKind::SparseOut) {
      Value result = op->getResult(0);
      result.setType(newType);
      rewriter.setInsertionPointAfter(op);
      auto back = sparse_tensor::ConvertOp::create(rewriter, op->getLoc(),
                                                   oldType, result);
      rewriter.replaceAllUsesExcept(result, back, back);
    }
  }

  // 2. Generic form, then level space (and upstream's sort) for this op.
  linalg::GenericOp generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> g = linalg::generalizeNamedOp(rewriter, op);
    if (failed(g))
      return op->emitError("sptune: cannot generalize the kernel op");
    generic = *g;
  }
  generic->removeAttr(SptuneDialect::kKernelAttrName);
  generic->removeAttr(SptuneDialect::kScheduleAttrName);
  generic->removeAttr(kSortedAttrName);
  Location loc = generic.getLoc();

  RewritePatternSet patterns(ctx);
  populateSparseReinterpretMap(patterns, ReinterpretMapScope::kGenericOnly);
  ReplacementTracker tracker(generic);
  GreedyRewriteConfig config;
  config.setListener(&tracker);
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily({generic.getOperation()}, std::move(patterns),
                                config);
  generic = tracker.current;
  if (!generic)
    return emitError(loc, "sptune: lost the kernel while mapping it to "
                          "level space");

  // 3. The scheduled loop order.
  FailureOr<SmallVector<unsigned>> interchange =
      scheduledInterchange(generic, sparseIdx, schedule, why);
  if (failed(interchange))
    return generic->emitError("sptune: cannot order the loops: ") << why;
  FailureOr<linalg::GenericOp> ordered =
      linalg::interchangeGenericOp(rewriter, generic, *interchange);
  if (failed(ordered))
    return generic->emitError("sptune: loop interchange failed");
  generic = *ordered;
  auto mark = [&](Operation *o) {
    o->setAttr(kSortedAttrName, rewriter.getBoolAttr(true));
    o->setAttr(SptuneDialect::kScheduleAttrName, scheduleAttr);
  };
  mark(generic);

  // 4. Strip-mine the free dense loop.
  if (schedule.tile > 0) {
    int free = freeLoopPosition(generic, sparseIdx);
    SmallVector<OpFoldResult> sizes(generic.getNumLoops(),
                                    rewriter.getIndexAttr(0));
    sizes[free] = rewriter.getIndexAttr(schedule.tile);
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(sizes);
    rewriter.setInsertionPoint(generic);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(generic.getOperation()), tiling);
    if (failed(tiled))
      return generic->emitError("sptune: tiling the free loop failed");
    rewriter.replaceOp(generic, tiled->replacements);
    for (Operation *t : tiled->tiledOps) {
      mark(t);
      // The free loop does not index the sparse operand, so its "slice"
      // is the whole tensor: use the tensor itself (the sparsifier does not
      // take slices of most formats).
      auto slice =
          t->getOperand(sparseIdx).getDefiningOp<tensor::ExtractSliceOp>();
      if (slice && slice.getSource().getType() == slice.getType()) {
        rewriter.modifyOpInPlace(
            t, [&] { t->setOperand(sparseIdx, slice.getSource()); });
        if (slice->use_empty())
          rewriter.eraseOp(slice);
      }
    }
  }

  if (func)
    func->setAttr(SptuneDialect::kScheduleAttrName, scheduleAttr);
  return success();
}

namespace {
/// Thin: checks the attributes, then `applySchedule` on each scheduled op.
struct ApplySchedulePass
    : public mlir::sptune::impl::ApplyScheduleBase<ApplySchedulePass> {
  using ApplyScheduleBase::ApplyScheduleBase;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> work;
    bool ok = true;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!op->hasAttr(SptuneDialect::kScheduleAttrName))
        return;
      if (!isa_and_nonnull<KernelAttr>(
              op->getAttr(SptuneDialect::kKernelAttrName))) {
        op->emitError("sptune: op has a schedule but no #sptune.kernel; run "
                      "sptune-extract-kernels first");
        ok = false;
        return;
      }
      if (!isa<ScheduleAttr>(op->getAttr(SptuneDialect::kScheduleAttrName))) {
        op->emitError("sptune: 'sptune.schedule' must be a #sptune.schedule");
        ok = false;
        return;
      }
      work.push_back(op);
    });
    for (linalg::LinalgOp op : work) {
      auto attr =
          cast<ScheduleAttr>(op->getAttr(SptuneDialect::kScheduleAttrName));
      ok &= succeeded(applySchedule(op, attr.getSchedule(), {retypeArgs}));
    }
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
