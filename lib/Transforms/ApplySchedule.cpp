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
// Before 2., dense operands are transposed into the scheduled layouts, and
// an SDDMM that would insert into a fresh sparse output is rewritten to
// update a copy of its sampling matrix in place (usesCopiedSampleForm).
//
//===----------------------------------------------------------------------===//

#include "sptune/Transforms/ApplySchedule.h"
#include "sptune/Transforms/ConvertStorage.h"
#include "sptune/Analysis/KernelMatcher.h"
#include "sptune/Analysis/ScheduleMapping.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Target/KnobEncoding.h"
#include "sptune/Target/Target.h"
#include "sptune/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
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
  return convertSparseStorage(rewriter, op->getLoc(), sparse, newType);
}

/// Rows of the transposed result per parallel panel of a layout change.
static constexpr int64_t kTransposePanel = 64;

/// `value` transposed (a 2-D tensor, dimensions swapped): the source of a
/// transposition that already produced `value`, else a new linalg.transpose.
/// The result is written into `dest` when given (destination-passing style:
/// an output transposed back lands in the buffer of the original output).
static Value transposed(IRRewriter &rewriter, Location loc, Value value,
                        Value dest = Value()) {
  if (auto t = value.getDefiningOp<linalg::TransposeOp>())
    if (t.getPermutation() == ArrayRef<int64_t>{1, 0})
      return t.getInput();
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> sizes = {
      tensor::getMixedSize(rewriter, loc, value, 1),
      tensor::getMixedSize(rewriter, loc, value, 0)};
  Value init = dest ? dest
                    : tensor::EmptyOp::create(rewriter, loc, sizes,
                                              type.getElementType())
                          .getResult();
  // The copy as a generic over the *source's* dimensions (d0 = source row,
  // d1 = source column, the contiguous one innermost): each source row is
  // read with unit stride and the writes of a panel stay in a cache-sized
  // block. (linalg.transpose iterates over the result's dimensions, which
  // reads the source with a stride of a whole row for every element.)
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
  SmallVector<AffineMap> maps = {AffineMap::get(2, 0, {d0, d1}, ctx),
                                 AffineMap::get(2, 0, {d1, d0}, ctx)};
  SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
  auto transpose = linalg::GenericOp::create(
      rewriter, loc, TypeRange{init.getType()}, ValueRange{value},
      ValueRange{init}, maps, iterators,
      [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, args.front());
      });
  // Parallel panels of kTransposePanel source columns (= rows of the
  // result; scf.forall, run by OpenMP after lowering).
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes({rewriter.getIndexAttr(0),
                       rewriter.getIndexAttr(kTransposePanel)});
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(transpose.getOperation()), tiling);
  if (failed(tiled))
    return transpose->getResult(0);
  rewriter.replaceOp(transpose, tiled->replacements);
  return tiled->replacements.front();
}

/// Puts each dense operand of `generic` whose layout the schedule changes
/// into that layout: the operand is transposed (or a transposition in the
/// IR is elided) and its indexing map swapped; an output is transposed in,
/// computed transposed, and transposed back for the users.
static void applyDenseLayouts(IRRewriter &rewriter, linalg::GenericOp generic,
                              KernelAttr kernel,
                              const ::sptune::Schedule &schedule) {
  const auto &dense = ::sptune::Schedule::denseOperands(schedule.kernel);
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  bool changed = false;
  for (unsigned n = 0; n < dense.size(); ++n) {
    int idx = denseOperandIndex(kernel, n);
    if (idx < 0)
      continue;
    SmallVector<LoopRole> roles = kernel.getOperandRoles(idx);
    if (roles.back() == schedule.contiguousRole(n))
      continue;
    Location loc = generic.getLoc();
    rewriter.setInsertionPoint(generic);
    Value operand = generic->getOperand(idx);
    Value newOperand = transposed(rewriter, loc, operand);
    AffineMap m = maps[idx];
    maps[idx] = AffineMap::get(m.getNumDims(), m.getNumSymbols(),
                               {m.getResult(1), m.getResult(0)},
                               m.getContext());
    changed = true;
    rewriter.modifyOpInPlace(generic,
                             [&] { generic->setOperand(idx, newOperand); });
    // A transposition made here owns a fresh buffer that nothing else
    // frees (the CPU pipeline has no deallocation pass for dense
    // temporaries): free it after its last use, or every call leaks it.
    bool fresh = newOperand.getDefiningOp<scf::ForallOp>() ||
                 newOperand.getDefiningOp<linalg::GenericOp>();
    if (static_cast<int64_t>(idx) < generic.getNumDpsInputs()) {
      if (fresh) {
        rewriter.setInsertionPointAfter(generic);
        bufferization::DeallocTensorOp::create(rewriter, loc, newOperand);
      }
      continue;
    }
    // An output: the op now yields it transposed.
    unsigned result = idx - generic.getNumDpsInputs();
    Value res = generic->getResult(result);
    SmallVector<OpOperand *> users;
    for (OpOperand &use : res.getUses())
      users.push_back(&use);
    res.setType(newOperand.getType());
    rewriter.setInsertionPointAfter(generic);
    // Back into the original output's buffer, so that the result stays
    // in place of the output (as callers threading it through loops need).
    Value back = transposed(rewriter, loc, res, operand);
    for (OpOperand *use : users)
      rewriter.modifyOpInPlace(use->getOwner(), [&] { use->set(back); });
    // C^T, computed in place of the transposed-in output, is dead once
    // transposed back.
    if (fresh) {
      rewriter.setInsertionPointAfter(back.getDefiningOp());
      bufferization::DeallocTensorOp::create(rewriter, loc, res);
    }
  }
  if (changed)
    rewriter.modifyOpInPlace(generic, [&] {
      generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
}

/// The SDDMM X = S .* (A B) into a fresh sparse X, rewritten as an in-place
/// update of a copy of S: X0 = copy(S), then for every stored (i, j),
/// X0(i,j) = reduce_k(present(X0(i,j)) ? X0(i,j) * A(i,k) * B(k,j)) — with
/// the reduction innermost the sparsifier starts it from the identity and
/// reads X0(i,j) (= S(i,j)) before any write, which is S(i,j) * (A B)(i,j)
/// (checked numerically by the executed tests and sptune-fuzz). An
/// elementwise product into sparse storage, C = S ⊙ B, is the same without
/// the reduction: X0(i,j) = present(X0(i,j)) ? X0(i,j) * B(i,j); its result
/// has exactly S's stored entries, as upstream's insertion form gives. The
/// product keeps the op's invariant factors (a fused scale).
static linalg::GenericOp rewriteIntoCopiedSample(IRRewriter &rewriter,
                                                 linalg::GenericOp generic,
                                                 KernelAttr kernel,
                                                 bool reassociate) {
  // A vector length asks for the reduction to be reassociated into SIMD
  // lanes, which the sparse vectorizer does for the other forms; here the
  // reduction reads the stored value inside the loop, which that
  // vectorizer does not handle, so LLVM's loop vectorizer does it and needs
  // the permission on the operations.
  auto fastmath = arith::FastMathFlagsAttr::get(
      rewriter.getContext(), reassociate ? arith::FastMathFlags::reassoc |
                                               arith::FastMathFlags::contract
                                         : arith::FastMathFlags::none);
  unsigned sparseIdx = kernel.getSparseOperand();
  unsigned outIdx = generic.getNumDpsInputs();
  Location loc = generic.getLoc();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  SmallVector<AffineMap> oldMaps = generic.getIndexingMapsArray();
  for (unsigned idx = 0; idx < outIdx; ++idx)
    if (idx != sparseIdx) {
      inputs.push_back(generic->getOperand(idx));
      maps.push_back(oldMaps[idx]);
    }
  maps.push_back(oldMaps[sparseIdx]);
  rewriter.setInsertionPoint(generic);
  Value sampling = generic->getOperand(sparseIdx);
  auto type = cast<RankedTensorType>(generic->getResult(0).getType());
  Value copy = bufferization::AllocTensorOp::create(
      rewriter, loc, type, ValueRange(), sampling, Value(), IntegerAttr());
  Type elemType = type.getElementType();
  SmallVector<InvariantFactor> scale = invariantFactors(generic);
  bool hasReduction = llvm::any_of(
      generic.getIteratorTypesArray(), [](utils::IteratorType t) {
        return t == utils::IteratorType::reduction;
      });
  auto build = [&](OpBuilder &b, Location l, ValueRange args) {
    Value out = args.back();
    auto unary = sparse_tensor::UnaryOp::create(b, l, elemType, out);
    {
      OpBuilder::InsertionGuard guard(b);
      Block *present = b.createBlock(&unary.getPresentRegion(), {}, elemType,
                                     {l});
      Value product = present->getArgument(0);
      for (Value v : args.drop_back())
        product = arith::MulFOp::create(b, l, product, v, fastmath);
      for (const InvariantFactor &f : scale) {
        // A constant of the old body is made again in the new one; a value
        // from outside the op is used as it is.
        Value factor = f.value;
        if (Operation *def = factor.getDefiningOp();
            def && generic->isProperAncestor(def))
          factor = b.clone(*def)->getResult(0);
        product = f.divides
                      ? arith::DivFOp::create(b, l, product, factor, fastmath)
                            .getResult()
                      : arith::MulFOp::create(b, l, product, factor, fastmath)
                            .getResult();
      }
      sparse_tensor::YieldOp::create(b, l, product);
      // The absent region stays empty: nothing is stored where S has no
      // entry.
    }
    if (!hasReduction) {
      // An elementwise product: the stored value times the other factors.
      linalg::YieldOp::create(b, l, unary.getResult());
      return;
    }
    Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(elemType));
    auto reduce = sparse_tensor::ReduceOp::create(b, l, out, unary, zero);
    {
      OpBuilder::InsertionGuard guard(b);
      Block *body = b.createBlock(&reduce.getRegion(), {},
                                  {elemType, elemType}, {l, l});
      Value sum = arith::AddFOp::create(b, l, body->getArgument(0),
                                        body->getArgument(1), fastmath);
      sparse_tensor::YieldOp::create(b, l, sum);
    }
    linalg::YieldOp::create(b, l, reduce.getResult());
  };
  auto updated = linalg::GenericOp::create(
      rewriter, loc, TypeRange{type}, inputs, ValueRange{copy}, maps,
      generic.getIteratorTypesArray(), build);
  Value oldInit = generic.getDpsInitOperand(0)->get();
  rewriter.replaceOp(generic, updated->getResults());
  if (Operation *empty = oldInit.getDefiningOp(); empty && empty->use_empty())
    rewriter.eraseOp(empty);
  return updated;
}

std::string mlir::sptune::whyTargetRefusesKernel(linalg::LinalgOp op,
                                                 KernelAttr kernel,
                                                 const ::sptune::Target &target) {
  if (kernel.getKind() == KernelKind::SpGEMM &&
      !target.hasOwnKernel(kernel.getKind()))
    return "target '" + std::string(target.name()) +
           "' has no sparse x sparse product kernel";
  if (kernel.getKind() == KernelKind::MTTKRP &&
      !target.hasOwnKernel(kernel.getKind()))
    return "target '" + std::string(target.name()) + "' has no MTTKRP kernel";
  if (kernel.getKind() == KernelKind::BatchedSpMM &&
      !target.hasOwnKernel(kernel.getKind()))
    return "target '" + std::string(target.name()) +
           "' has no batched SpMM kernel";
  std::string elementType;
  llvm::raw_string_ostream os(elementType);
  os << kernel.getElementType();
  if (std::string why = target.whyUnsupportedElementType(elementType);
      !why.empty())
    return why;
  llvm::Expected<::sptune::KernelDescriptor> d = describeKernel(op);
  if (!d) {
    // A recognized kernel is describable; nothing to refuse it for.
    llvm::consumeError(d.takeError());
    return "";
  }
  return target.whyUnsupportedBody(*d);
}

/// `op` as a linalg.generic: itself, or its generalization (an error on the
/// op when it has none).
static FailureOr<linalg::GenericOp> asGeneric(RewriterBase &rewriter,
                                              linalg::LinalgOp op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return generic;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::GenericOp> g = linalg::generalizeNamedOp(rewriter, op);
  if (failed(g))
    return op->emitError("sptune: cannot generalize the kernel op");
  return *g;
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
  // A hand-written schedule is checked like the tuner's choice: a kernel
  // the tuner would leave unscheduled on this target is refused.
  if (const ::sptune::Target *target =
          ::sptune::TargetRegistry::lookup(schedule.target))
    if (std::string refused = whyTargetRefusesKernel(op, kernel, *target);
        !refused.empty())
      return op->emitError("sptune: cannot apply schedule: ") << refused;

  MLIRContext *ctx = op->getContext();
  IRRewriter rewriter(ctx);
  // A kernel on tensors whose result nobody uses computes nothing: the
  // rewrites below (and any canonicalization) erase it, so erase it here
  // rather than lose it half-way (issue 35: "lost the kernel while mapping
  // it to level space", where mlir-opt --sparsifier compiles the function).
  if (op.hasPureTensorSemantics() && op->use_empty()) {
    op->emitRemark("sptune: the kernel's result is unused; erased it "
                   "instead of applying the schedule");
    rewriter.eraseOp(op);
    return success();
  }
  // An SpGEMM, MTTKRP or batched SpMM keeps its operands' storage: the
  // target's lowering hands it to a kernel of its own, built as the
  // schedule's knobs say (keepsOperandStorage). It is generalized here, as
  // every scheduled kernel is (generalizing a named op later would drop its
  // schedule). Its function takes no schedule: the kernel gets a function
  // of its own there.
  if (::sptune::keepsOperandStorage(kernel.getKind())) {
    FailureOr<linalg::GenericOp> scheduled = asGeneric(rewriter, op);
    if (failed(scheduled))
      return failure();
    (*scheduled)->removeAttr(SptuneDialect::kKernelAttrName);
    (*scheduled)->setAttr(SptuneDialect::kScheduleAttrName, scheduleAttr);
    return success();
  }
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
      llvm::SmallPtrSet<Operation *, 4> users(result.getUsers().begin(),
                                              result.getUsers().end());
      Value back =
          convertSparseStorage(rewriter, op->getLoc(), result, oldType);
      // Blocked storage stores the zeros of its blocks: keep only the
      // entries of the sample (`sparse`, the output itself for an in-place
      // SDDMM), still in the caller's storage — unless it was retyped: then
      // the caller passes the blocks themselves.
      if ((schedule.splitRow > 1 || schedule.splitCol > 1) &&
          sparse.getType() == oldType) {
        Value withBlockZeros = back;
        back = keepEntriesOf(rewriter, op->getLoc(), withBlockZeros, sparse);
        bufferization::DeallocTensorOp::create(rewriter, op->getLoc(),
                                               withBlockZeros);
      }
      rewriter.replaceUsesWithIf(result, back, [&](OpOperand &use) {
        return users.contains(use.getOwner());
      });
    }
  }

  // 2. Generic form, then level space (and upstream's sort) for this op.
  FailureOr<linalg::GenericOp> asGenericOp = asGeneric(rewriter, op);
  if (failed(asGenericOp))
    return failure();
  linalg::GenericOp generic = *asGenericOp;
  generic->removeAttr(SptuneDialect::kKernelAttrName);
  generic->removeAttr(SptuneDialect::kScheduleAttrName);
  generic->removeAttr(kSortedAttrName);
  Location loc = generic.getLoc();

  // Dense layouts, and the in-place form of an SDDMM into a fresh output or
  // of an elementwise product into sparse storage.
  applyDenseLayouts(rewriter, generic, kernel, schedule);
  Value init = generic.getDpsInitOperand(0)->get();
  if (usesCopiedSampleForm(kernel, schedule,
                           init.getDefiningOp<tensor::EmptyOp>() != nullptr)) {
    const ::sptune::Target *target =
        ::sptune::TargetRegistry::lookup(schedule.target);
    bool vectorized =
        target && target->knobEncoding().parallelism(schedule).vectorized > 0;
    generic = rewriteIntoCopiedSample(rewriter, generic, kernel, vectorized);
    sparseIdx = generic.getNumDpsInputs(); // the copy, updated in place
  }

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
  llvm::Expected<SmallVector<unsigned>> interchange =
      scheduledInterchange(generic, sparseIdx, schedule);
  if (!interchange)
    return generic->emitError("sptune: cannot order the loops: ")
           << llvm::toString(interchange.takeError());
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
