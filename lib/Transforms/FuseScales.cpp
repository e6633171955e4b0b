//===- FuseScales.cpp - A scale after a kernel folded into it -------------===//
//
// fuseScaleIntoProducer, and the pass sptune-fuse-scales that applies it to
// every elementwise scale of a kernel's result in a module.
//
//===----------------------------------------------------------------------===//

#include "sptune/Transforms/FuseScales.h"
#include "sptune/Analysis/KernelMatcher.h"
#include "sptune/Support/Error.h"
#include "sptune/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_FUSESCALES
#include "sptune/Transforms/Passes.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;
namespace st = ::sptune;

/// Whether `op` is elementwise over one input: identity maps, parallel
/// loops, one input and one output of the same rank.
static bool isElementwiseUnary(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1)
    return false;
  return llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); }) &&
         llvm::all_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
           return t == utils::IteratorType::parallel;
         });
}

/// Whether the tensor `init` holds nothing to add to: a fresh sparse tensor
/// or a dense zero.
static bool startsFromNothing(Value init) {
  bool sparse = static_cast<bool>(sparse_tensor::getSparseTensorEncoding(
      init.getType()));
  if (init.getDefiningOp<tensor::EmptyOp>())
    return sparse;
  if (auto alloc = init.getDefiningOp<bufferization::AllocTensorOp>())
    return sparse && !alloc.getCopy();
  if (matchPattern(init, m_AnyZeroFloat()) || matchPattern(init, m_Zero()))
    return true;
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return matchPattern(fill.getInputs()[0], m_AnyZeroFloat()) ||
           matchPattern(fill.getInputs()[0], m_Zero());
  return false;
}

llvm::Expected<linalg::LinalgOp>
mlir::sptune::fuseScaleIntoProducer(RewriterBase &rewriter,
                                    linalg::GenericOp scale) {
  auto refuse = [](const char *reason) { return st::makeError(reason); };
  if (!isElementwiseUnary(scale))
    return refuse("not an elementwise op on one input");
  auto producer = scale.getDpsInputs()[0].getDefiningOp<linalg::LinalgOp>();
  if (!producer || producer->getNumResults() != 1)
    return refuse("its input is not the result of a linalg op");
  if (!producer->getResult(0).hasOneUse())
    return refuse("the kernel's result has other uses");
  if (producer->getResult(0).getType() != scale->getResult(0).getType())
    return refuse("the scaled result's type is not the kernel's");

  // The scale: one input times invariant factors.
  llvm::Expected<st::KernelDescriptor> scaleBody = describeKernel(scale);
  if (!scaleBody) {
    llvm::consumeError(scaleBody.takeError());
    return refuse("the op is not a product of its input");
  }
  SmallVector<InvariantFactor> factors = invariantFactors(scale);
  if (scaleBody->body != st::KernelDescriptor::Body::ElementwiseProduct ||
      factors.empty())
    return refuse("its body does not multiply its input by invariant factors");

  // The kernel: a product, and a sum that starts from nothing.
  llvm::Expected<st::KernelDescriptor> kernel = describeKernel(producer);
  if (!kernel) {
    llvm::consumeError(kernel.takeError());
    return refuse("the producer is not a kernel sptune describes");
  }
  using Body = st::KernelDescriptor::Body;
  if (kernel->body != Body::MultiplyAccumulate &&
      kernel->body != Body::ElementwiseProduct)
    return refuse("the producer's body is not a multiply-accumulate or an "
                  "elementwise product");
  bool accumulates = kernel->body == Body::MultiplyAccumulate;
  if (accumulates && !startsFromNothing(producer.getDpsInits()[0]))
    return refuse("the producer adds to an output that may hold values");
  // Every factor must be available in the kernel's body.
  DominanceInfo dominance(producer->getParentOp());
  for (const InvariantFactor &f : factors) {
    Operation *def = f.value.getDefiningOp();
    bool inScale = def && scale->isProperAncestor(def);
    if (!inScale && !matchPattern(f.value, m_Constant()) &&
        !dominance.properlyDominates(f.value, producer))
      return refuse("a factor is computed after the kernel");
  }

  OpBuilder::InsertionGuard guard(rewriter);
  // A named op's body is fixed: the kernel becomes a linalg.generic.
  if (!isa<linalg::GenericOp>(producer)) {
    rewriter.setInsertionPoint(producer);
    FailureOr<linalg::GenericOp> generic = linalg::generalizeNamedOp(
        rewriter, cast<linalg::LinalgOp>(producer.getOperation()));
    if (failed(generic))
      return refuse("the kernel cannot be written as a linalg.generic");
    producer = *generic;
  }
  Block *body = producer.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  Value outArg = body->getArgument(producer.getNumDpsInputs());
  OpOperand *product = &yield->getOpOperand(0);
  if (accumulates) {
    Operation *add = yield.getOperand(0).getDefiningOp();
    product = add->getOperand(0) == outArg ? &add->getOpOperand(1)
                                           : &add->getOpOperand(0);
  }

  rewriter.setInsertionPoint(product->getOwner());
  Value scaled = product->get();
  Location loc = scale.getLoc();
  bool isFloat = isa<FloatType>(scaled.getType());
  for (const InvariantFactor &f : factors) {
    Value factor = f.value;
    // Constants are made again in the kernel's body; values from before
    // the kernel are used as they are.
    if (matchPattern(factor, m_Constant()) &&
        !dominance.properlyDominates(factor, producer))
      factor = rewriter.clone(*factor.getDefiningOp())->getResult(0);
    if (f.divides)
      scaled = arith::DivFOp::create(rewriter, loc, scaled, factor);
    else if (isFloat)
      scaled = arith::MulFOp::create(rewriter, loc, scaled, factor);
    else
      scaled = arith::MulIOp::create(rewriter, loc, scaled, factor);
  }
  rewriter.modifyOpInPlace(product->getOwner(),
                           [&] { product->set(scaled); });
  Value scaleInit = scale.getDpsInits()[0];
  rewriter.replaceOp(scale, producer->getResults());
  if (Operation *init = scaleInit.getDefiningOp();
      init && init->use_empty() && isa<tensor::EmptyOp>(init))
    rewriter.eraseOp(init);
  return producer;
}

namespace {
struct FuseScalesPass
    : public mlir::sptune::impl::FuseScalesBase<FuseScalesPass> {
  using FuseScalesBase::FuseScalesBase;

  void runOnOperation() override {
    // Scales of a sparse kernel's result (sparse or dense).
    SmallVector<linalg::GenericOp> scales;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (!isElementwiseUnary(op))
        return;
      if (Operation *def = op.getDpsInputs()[0].getDefiningOp();
          def && hasSparseOperand(def))
        scales.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : scales) {
      // An op that does not qualify is left as it is, silently: most
      // elementwise ops after a kernel are no scales.
      llvm::Expected<linalg::LinalgOp> kernel =
          fuseScaleIntoProducer(rewriter, op);
      if (!kernel)
        llvm::consumeError(kernel.takeError());
      else if (emitRemarks)
        (*kernel)->emitRemark("sptune-fuse-scales: the scale of this "
                              "kernel's result is folded into its product");
    }
  }
};
} // namespace
