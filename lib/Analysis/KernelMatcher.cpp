//===- KernelMatcher.cpp - Recognize sparse kernels in linalg -------------===//
//
// Recognition works on the LinalgOp interface, so named ops (linalg.matmul,
// linalg.matvec, also with explicit indexing_maps) and linalg.generic are
// handled alike: first the body must be a multiply-accumulate (or the SDDMM
// "spy" idiom of upstream MLIR), whose product may also have invariant
// factors (a fused scale: a constant or a value defined outside the op, or
// a division by a non-zero constant), then the indexing maps must give
// every loop one canonical role.
//
//===----------------------------------------------------------------------===//

#include "sptune/Analysis/KernelMatcher.h"
#include "sptune/Analysis/BatchedSpmmForm.h"
#include "sptune/Analysis/MttkrpForm.h"
#include "sptune/Analysis/SpgemmForm.h"
#include "sptune/Schedule/KernelTypes.h"
#include "sptune/Support/Error.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::sptune;

bool mlir::sptune::hasSparseOperand(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), [](Type t) {
    return static_cast<bool>(sparse_tensor::getSparseTensorEncoding(t));
  });
}

namespace {
/// The algebraic shape of a linalg body.
enum class BodyKind {
  /// out + x0 * x1 * ... over all inputs (and invariant factors).
  MulAcc,
  /// Upstream's in-place SDDMM: out = present(out) ? out + a * b : absent.
  Spy,
};

/// A kernel being assembled from an op.
struct Assignment {
  KernelKind kind;
  SmallVector<LoopRole> loopRoles; // indexed by loop dim
  SmallVector<OperandKind> operandKinds;
};
} // namespace

static bool isBlockArg(Value v, Block *body, unsigned number) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner() == body && arg.getArgNumber() == number;
}

/// The operands of a multiplication (arith.mulf, or arith.muli for integer
/// kernels), or nothing.
static std::optional<std::pair<Value, Value>> multiplication(Value v) {
  if (auto mul = v.getDefiningOp<arith::MulFOp>())
    return std::make_pair(mul.getLhs(), mul.getRhs());
  if (auto mul = v.getDefiningOp<arith::MulIOp>())
    return std::make_pair(mul.getLhs(), mul.getRhs());
  return std::nullopt;
}

/// The operands of an addition (arith.addf or arith.addi), or nothing.
static std::optional<std::pair<Value, Value>> addition(Value v) {
  if (auto add = v.getDefiningOp<arith::AddFOp>())
    return std::make_pair(add.getLhs(), add.getRhs());
  if (auto add = v.getDefiningOp<arith::AddIOp>())
    return std::make_pair(add.getLhs(), add.getRhs());
  return std::nullopt;
}

/// Whether `v`, a factor of a product in `op`'s body, is one no loop
/// changes: a constant, or a value defined outside `op` (a function
/// argument, a scalar computed before the op).
static bool isInvariantFactor(Value v, Operation *op) {
  if (matchPattern(v, m_Constant()))
    return true;
  return !op->getRegion(0).isAncestor(v.getParentRegion());
}

namespace {
/// The factors of a product in `op`'s body: the block arguments at the
/// leaves of a tree of multiplications (`inputs`, by argument number), and
/// the leaves that are invariant factors (isInvariantFactor) or divisors
/// that are non-zero constants (x / 2.0).
struct Factors {
  SmallVector<unsigned> inputs;
  SmallVector<InvariantFactor> invariants;
};
} // namespace

static bool collectFactors(Value v, Operation *op, Factors &factors) {
  Block *body = &op->getRegion(0).front();
  if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == body) {
    factors.inputs.push_back(arg.getArgNumber());
    return true;
  }
  if (factors.inputs.size() + factors.invariants.size() > 6)
    return false;
  if (isInvariantFactor(v, op)) {
    factors.invariants.push_back({v, /*divides=*/false});
    return true;
  }
  // A divisor must be a non-zero constant: upstream's sparsifier does not
  // divide by a value that may be zero (x / 0 is not 0 where x is absent).
  if (auto div = v.getDefiningOp<arith::DivFOp>()) {
    FloatAttr divisor;
    if (!matchPattern(div.getRhs(), m_Constant(&divisor)) ||
        divisor.getValue().isZero())
      return false;
    factors.invariants.push_back({div.getRhs(), /*divides=*/true});
    return collectFactors(div.getLhs(), op, factors);
  }
  auto mul = multiplication(v);
  return mul && collectFactors(mul->first, op, factors) &&
         collectFactors(mul->second, op, factors);
}

/// True when `factors` names each of the inputs 0..numInputs-1 exactly once.
static bool coversInputs(const Factors &product, unsigned numInputs) {
  SmallVector<unsigned> factors = product.inputs;
  llvm::sort(factors);
  if (factors.size() != numInputs)
    return false;
  for (unsigned i = 0; i < numInputs; ++i)
    if (factors[i] != i)
      return false;
  return true;
}

/// Returns the single value yielded by `region`'s sparse_tensor.yield.
static Value regionYield(Region &region) {
  if (!region.hasOneBlock())
    return {};
  auto yield = dyn_cast<sparse_tensor::YieldOp>(region.front().getTerminator());
  if (!yield || yield->getNumOperands() != 1)
    return {};
  return yield->getOperand(0);
}

/// Matches upstream's SDDMM "spy" body:
///   %u = sparse_tensor.unary %s present={ a * b } absent={}
///   %r = sparse_tensor.reduce %s, %u, %zero { p + q }
/// The identity must be a zero constant: with any other value the reduction
/// is not a plain sum of the sampled products. The product may have
/// invariant factors (`factors`).
static bool isSpyBody(sparse_tensor::ReduceOp reduce, linalg::LinalgOp op,
                      Factors &factors) {
  Block *body = op.getBlock();
  unsigned numInputs = op.getNumDpsInputs();
  unsigned outArg = numInputs;
  if (!isBlockArg(reduce.getX(), body, outArg) ||
      !matchPattern(reduce.getIdentity(), m_AnyZeroFloat()))
    return false;
  auto unary = reduce.getY().getDefiningOp<sparse_tensor::UnaryOp>();
  if (!unary || !isBlockArg(unary.getX(), body, outArg) ||
      !unary.getAbsentRegion().empty())
    return false;
  Value product = regionYield(unary.getPresentRegion());
  if (!product || !collectFactors(product, op, factors) ||
      !coversInputs(factors, numInputs))
    return false;
  Value sum = regionYield(reduce.getRegion());
  auto add = sum ? sum.getDefiningOp<arith::AddFOp>() : nullptr;
  if (!add)
    return false;
  Block &redBlock = reduce.getRegion().front();
  auto isRedArg = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &redBlock;
  };
  return isRedArg(add.getLhs()) && isRedArg(add.getRhs()) &&
         add.getLhs() != add.getRhs();
}

namespace {
/// What analyzeBody found: the body's shape, and its product's invariant
/// factors (a fused scale).
struct AnalyzedBody {
  BodyKind kind;
  SmallVector<InvariantFactor> invariants;
};
} // namespace

static FailureOr<AnalyzedBody> analyzeBody(linalg::LinalgOp op,
                                           std::string &reason) {
  Block *body = op.getBlock();
  unsigned numInputs = op.getNumDpsInputs();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1) {
    reason = "op does not yield exactly one value";
    return failure();
  }
  Value result = yield.getOperand(0);
  if (auto add = addition(result)) {
    Value product = isBlockArg(add->first, body, numInputs)    ? add->second
                    : isBlockArg(add->second, body, numInputs) ? add->first
                                                               : Value();
    Factors factors;
    if (product && collectFactors(product, op, factors) &&
        coversInputs(factors, numInputs))
      return AnalyzedBody{BodyKind::MulAcc, factors.invariants};
  }
  if (auto reduce = result.getDefiningOp<sparse_tensor::ReduceOp>()) {
    if (Factors factors; isSpyBody(reduce, op, factors))
      return AnalyzedBody{BodyKind::Spy, factors.invariants};
    reason = "sparse_tensor.reduce body is not the sampled multiply-"
             "accumulate of an SDDMM";
    return failure();
  }
  reason = "body is not a multiply-accumulate";
  return failure();
}

/// The loop dims an operand's indexing map reads, in order.
static SmallVector<unsigned> operandLoops(AffineMap map) {
  SmallVector<unsigned> dims;
  for (AffineExpr e : map.getResults())
    dims.push_back(cast<AffineDimExpr>(e).getPosition());
  return dims;
}

/// Gives each loop a role and each operand a kind, or says why not.
static FailureOr<Assignment>
assignRoles(linalg::LinalgOp op, BodyKind bodyKind, std::string &reason) {
  unsigned numInputs = op.getNumDpsInputs();
  unsigned numLoops = op.getNumLoops();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<SmallVector<unsigned>> loops;
  for (AffineMap map : maps)
    loops.push_back(operandLoops(map));
  SmallVector<bool> sparse;
  for (OpOperand &operand : op->getOpOperands())
    sparse.push_back(static_cast<bool>(
        sparse_tensor::getSparseTensorEncoding(operand.get().getType())));
  bool sparseOut = sparse.back();
  unsigned numSparseInputs = llvm::count(ArrayRef(sparse).drop_back(), true);

  auto iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> reductions;
  for (unsigned l = 0; l < numLoops; ++l)
    if (iterators[l] == utils::IteratorType::reduction)
      reductions.push_back(l);
  if (reductions.size() != 1) {
    reason = "expected exactly one reduction loop, found " +
             std::to_string(reductions.size());
    return failure();
  }
  unsigned k = reductions.front();

  Assignment a;
  a.loopRoles.assign(numLoops, LoopRole::K);
  auto setRole = [&](unsigned loop, LoopRole role) { a.loopRoles[loop] = role; };
  auto rolesOf = [&](unsigned operand) {
    SmallVector<LoopRole> roles;
    for (unsigned l : loops[operand])
      roles.push_back(a.loopRoles[l]);
    return roles;
  };
  auto otherLoop = [&](ArrayRef<unsigned> exclude) -> unsigned {
    for (unsigned l = 0; l < numLoops; ++l)
      if (!llvm::is_contained(exclude, l))
        return l;
    return numLoops;
  };
  auto sameSet = [](ArrayRef<LoopRole> x, std::initializer_list<LoopRole> y) {
    return x.size() == y.size() &&
           llvm::all_of(y, [&](LoopRole r) { return llvm::is_contained(x, r); });
  };
  const char *notAProduct = "indexing maps do not form a matrix product";

  if (bodyKind == BodyKind::Spy) {
    // ins(A(i,k), B(k,j)) outs(S(i,j) sparse): sampling in place.
    if (numInputs != 2 || numLoops != 3 || !sparseOut || numSparseInputs) {
      reason = "sampling body on operands that do not form an SDDMM";
      return failure();
    }
    ArrayRef<unsigned> outLoops = loops.back();
    if (outLoops.size() != 2 || llvm::is_contained(outLoops, k)) {
      reason = notAProduct;
      return failure();
    }
    setRole(outLoops[0], LoopRole::I);
    setRole(outLoops[1], LoopRole::J);
    a.kind = KernelKind::SDDMM;
    a.operandKinds = {OperandKind::Dense, OperandKind::Dense,
                      OperandKind::SparseOut};
    bool ok = (sameSet(rolesOf(0), {LoopRole::I, LoopRole::K}) &&
               sameSet(rolesOf(1), {LoopRole::K, LoopRole::J})) ||
              (sameSet(rolesOf(1), {LoopRole::I, LoopRole::K}) &&
               sameSet(rolesOf(0), {LoopRole::K, LoopRole::J}));
    if (!ok) {
      reason = notAProduct;
      return failure();
    }
    return a;
  }

  if (numSparseInputs > 1) {
    if (numInputs != 2) {
      reason = "more than one sparse input";
      return failure();
    }
    // SpGEMM: C(i,j) += A(i,k) * B(k,j), A, B and C sparse (either input
    // order), in the forms a row-wise kernel computes (SpgemmForm.h).
    if (std::string why = whyNotRowWiseSpgemm(op); !why.empty()) {
      reason = "both inputs are sparse, and this sparse x sparse product is "
               "not tuned: " +
               why;
      return failure();
    }
    int left = spgemmLeftFactor(op);
    setRole(loops[left][0], LoopRole::I);
    setRole(loops[1 - left][1], LoopRole::J);
    setRole(loops[left][1], LoopRole::K);
    a.kind = KernelKind::SpGEMM;
    a.operandKinds = {OperandKind::Sparse, OperandKind::Sparse,
                      OperandKind::SparseOut};
    return a;
  }
  if (numSparseInputs == 0) {
    reason = "sparse output of a product of dense inputs that is not sampled";
    return failure();
  }
  unsigned s = llvm::find(sparse, true) - sparse.begin();

  if (numInputs == 3) {
    // SDDMM: X(i,j) += S(i,j) * A(i,k) * B(k,j).
    if (numLoops != 3 || loops[s].size() != 2 ||
        llvm::is_contained(loops[s], k)) {
      reason = "three-input product whose sparse input is not the sampling "
               "matrix";
      return failure();
    }
    setRole(loops[s][0], LoopRole::I);
    setRole(loops[s][1], LoopRole::J);
    a.kind = KernelKind::SDDMM;
    for (unsigned o = 0; o < numInputs; ++o)
      a.operandKinds.push_back(o == s ? OperandKind::Sparse : OperandKind::Dense);
    if (sparseOut) {
      auto sEnc = sparse_tensor::getSparseTensorEncoding(
          op->getOperand(s).getType());
      auto oEnc = sparse_tensor::getSparseTensorEncoding(
          op->getOperands().back().getType());
      if (sEnc != oEnc) {
        reason = "sparse output does not share the encoding of the sampling "
                 "matrix";
        return failure();
      }
    }
    a.operandKinds.push_back(sparseOut ? OperandKind::SparseOut
                                       : OperandKind::Out);
    SmallVector<unsigned> dense;
    for (unsigned o = 0; o < numInputs; ++o)
      if (o != s)
        dense.push_back(o);
    bool ok = sameSet(rolesOf(numInputs), {LoopRole::I, LoopRole::J}) &&
              ((sameSet(rolesOf(dense[0]), {LoopRole::I, LoopRole::K}) &&
                sameSet(rolesOf(dense[1]), {LoopRole::K, LoopRole::J})) ||
               (sameSet(rolesOf(dense[1]), {LoopRole::I, LoopRole::K}) &&
                sameSet(rolesOf(dense[0]), {LoopRole::K, LoopRole::J})));
    if (!ok) {
      reason = notAProduct;
      return failure();
    }
    return a;
  }

  if (numInputs != 2) {
    reason = "expected two or three inputs, found " + std::to_string(numInputs);
    return failure();
  }
  if (sparseOut) {
    reason = "sparse output of an unsampled product (only an SDDMM may write "
             "a sparse output)";
    return failure();
  }
  unsigned d = 1 - s;
  a.operandKinds = {OperandKind::Dense, OperandKind::Dense, OperandKind::Out};
  a.operandKinds[s] = OperandKind::Sparse;

  if (numLoops == 3) {
    // SpMM: C(i,j) += A(i,k) * B(k,j), A sparse (either side).
    if (loops[s].size() != 2 || !llvm::is_contained(loops[s], k)) {
      reason = notAProduct;
      return failure();
    }
    unsigned i = loops[s][0] == k ? loops[s][1] : loops[s][0];
    setRole(i, LoopRole::I);
    setRole(otherLoop({i, k}), LoopRole::J);
    a.kind = KernelKind::SpMM;
    if (!sameSet(rolesOf(d), {LoopRole::K, LoopRole::J}) ||
        !sameSet(rolesOf(2), {LoopRole::I, LoopRole::J})) {
      reason = notAProduct;
      return failure();
    }
    return a;
  }
  if (numLoops == 2) {
    // SpMV: y(i) += A(i,k) * x(k), A sparse.
    if (loops[s].size() != 2) {
      reason = "sparse vector operand (only sparse matrices are supported)";
      return failure();
    }
    if (!llvm::is_contained(loops[s], k)) {
      reason = notAProduct;
      return failure();
    }
    unsigned i = loops[s][0] == k ? loops[s][1] : loops[s][0];
    setRole(i, LoopRole::I);
    a.kind = KernelKind::SpMV;
    if (!sameSet(rolesOf(d), {LoopRole::K}) ||
        !sameSet(rolesOf(2), {LoopRole::I})) {
      reason = "indexing maps do not form a matrix-vector product";
      return failure();
    }
    return a;
  }
  reason = "expected 2 or 3 loops, found " + std::to_string(numLoops);
  return failure();
}

/// The roles and operand kinds of an op of a kernel type defined by its form
/// (the Hadamard product, types added at run time), found from its
/// descriptor.
///
/// An elementwise product's result has the pattern of its sparse input, so
/// a sparse output stored exactly like that input (same encoding, same
/// indexing) is the same kernel writing into sparse storage (`sparse_out`).
static FailureOr<Assignment>
assignAddedType(linalg::LinalgOp op, const ::sptune::KernelDescriptor &d) {
  using ::sptune::KernelOperand;
  if (!d.operands.empty() &&
      d.operands.back().kind == KernelOperand::Kind::SparseOutput) {
    // The sparse input with the output's encoding and indexing.
    Value out = op->getOperands().back();
    AffineMap outMap = op.getIndexingMapsArray().back();
    bool shared = false;
    for (OpOperand *in : op.getDpsInputOperands())
      shared |= in->get().getType() == out.getType() &&
                op.getMatchingIndexingMap(in) == outMap;
    if (!shared)
      return failure();
  }
  std::optional<::sptune::KernelTypeMatch> m =
      ::sptune::matchKernelTypeByForm(d);
  if (!m)
    return failure();
  Assignment a;
  a.kind = m->type;
  a.loopRoles.assign(m->loopRoles.begin(), m->loopRoles.end());
  for (const KernelOperand &o : d.operands)
    a.operandKinds.push_back(o.kind == KernelOperand::Kind::Sparse
                                 ? OperandKind::Sparse
                             : o.kind == KernelOperand::Kind::SparseOutput
                                 ? OperandKind::SparseOut
                             : o.output() ? OperandKind::Out
                                          : OperandKind::Dense);
  return a;
}

/// The body's meaning for a descriptor: the matcher's multiply-accumulate
/// forms, or an elementwise product of every input (no accumulation).
/// `kind` is analyzeBody's verdict on `op`. Sets `d.body` and `d.scaled`.
static void describeBody(linalg::LinalgOp op, FailureOr<AnalyzedBody> kind,
                         ::sptune::KernelDescriptor &d) {
  using Body = ::sptune::KernelDescriptor::Body;
  if (succeeded(kind)) {
    d.body = kind->kind == BodyKind::Spy ? Body::SampledMultiplyAccumulate
                                         : Body::MultiplyAccumulate;
    d.scaled = !kind->invariants.empty();
    return;
  }
  auto yield = dyn_cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  Factors factors;
  if (yield && yield.getNumOperands() == 1 &&
      collectFactors(yield.getOperand(0), op, factors) &&
      coversInputs(factors, op.getNumDpsInputs())) {
    d.body = Body::ElementwiseProduct;
    d.scaled = !factors.invariants.empty();
    return;
  }
  d.body = Body::Other;
}

/// describeKernel with the body already analyzed (the matcher needs the
/// analysis too, and its reason).
static FailureOr<::sptune::KernelDescriptor>
describeAnalyzedKernel(linalg::LinalgOp op, FailureOr<AnalyzedBody> bodyKind,
                       std::string &why) {
  using ::sptune::KernelOperand;
  if (op.getNumDpsInits() != 1 || op->getNumResults() > 1) {
    why = "op does not have exactly one output";
    return failure();
  }
  ::sptune::KernelDescriptor d;
  static const char *kLoopNames[] = {"i", "j", "k", "l", "m", "n", "p", "q"};
  auto iterators = op.getIteratorTypesArray();
  for (unsigned l = 0; l < op.getNumLoops(); ++l) {
    ::sptune::KernelLoop loop;
    loop.name = l < 8 ? kLoopNames[l] : "d" + std::to_string(l);
    loop.reduction = iterators[l] == utils::IteratorType::reduction;
    d.loops.push_back(loop);
  }
  unsigned numInputs = op.getNumDpsInputs();
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type) {
      why = "operand #" + std::to_string(operand.getOperandNumber()) +
            " is not a ranked tensor";
      return failure();
    }
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false)) {
      why = "indexing maps are not projected permutations";
      return failure();
    }
    KernelOperand o;
    auto encoding = sparse_tensor::getSparseTensorEncoding(type);
    bool output = operand.getOperandNumber() >= numInputs;
    o.kind = encoding ? (output ? KernelOperand::Kind::SparseOutput
                                : KernelOperand::Kind::Sparse)
                      : (output ? KernelOperand::Kind::Output
                                : KernelOperand::Kind::Dense);
    llvm::raw_string_ostream os(o.elementType);
    os << type.getElementType();
    os.flush();
    for (auto [dim, loop] : llvm::enumerate(operandLoops(map))) {
      o.dims.push_back(loop);
      // A loop is static when any operand dimension it indexes is.
      if (!ShapedType::isDynamic(type.getShape()[dim]))
        d.loops[loop].size = type.getShape()[dim];
    }
    if (encoding) {
      for (sparse_tensor::LevelType lt : encoding.getLvlTypes())
        o.levels.push_back(lt.toMLIRString());
      o.posWidth = encoding.getPosWidth();
      o.crdWidth = encoding.getCrdWidth();
    }
    d.operands.push_back(std::move(o));
  }
  describeBody(op, bodyKind, d);
  return d;
}

llvm::Expected<::sptune::KernelDescriptor>
mlir::sptune::describeKernel(linalg::LinalgOp op) {
  std::string ignored, why;
  FailureOr<::sptune::KernelDescriptor> described =
      describeAnalyzedKernel(op, analyzeBody(op, ignored), why);
  if (failed(described))
    return ::sptune::makeError(why);
  return std::move(*described);
}

std::string mlir::sptune::whyNotPlainProductOfShape(
    linalg::LinalgOp op, unsigned inputs, StringRef shape, StringRef what,
    ::sptune::KernelDescriptor &descriptor) {
  if (op.getNumDpsInputs() != inputs || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1)
    return "it is not a product of " +
           (inputs == 2   ? std::string("two")
            : inputs == 3 ? std::string("three")
                          : std::to_string(inputs)) +
           " inputs into one result";
  llvm::Expected<::sptune::KernelDescriptor> d = describeKernel(op);
  if (!d)
    return llvm::toString(d.takeError());
  if (d->shapeName() != shape)
    return "it is not " + what.str() + " (seen as " +
           (d->shapeName().empty() ? std::string("no known shape")
                                   : d->shapeName()) +
           ")";
  if (d->body != ::sptune::KernelDescriptor::Body::MultiplyAccumulate ||
      d->scaled)
    return "its body is not a plain multiply-accumulate";
  descriptor = std::move(*d);
  return "";
}

SmallVector<InvariantFactor>
mlir::sptune::invariantFactors(linalg::LinalgOp op) {
  std::string ignored;
  FailureOr<AnalyzedBody> body = analyzeBody(op, ignored);
  if (succeeded(body))
    return body->invariants;
  auto yield = dyn_cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  Factors factors;
  if (yield && yield.getNumOperands() == 1 &&
      collectFactors(yield.getOperand(0), op, factors) &&
      coversInputs(factors, op.getNumDpsInputs()))
    return factors.invariants;
  return {};
}

/// The roles of a product a target's own kernel computes (an MTTKRP, a
/// batched SpMM): the loops of its sparse input `sparse` take
/// `sparseRoles`, every other loop is `j`; its other inputs are dense, its
/// output dense.
static Assignment ownKernelRoles(linalg::LinalgOp op, KernelKind kind,
                                 unsigned sparse,
                                 ArrayRef<LoopRole> sparseRoles) {
  Assignment a;
  a.kind = kind;
  a.loopRoles.assign(op.getNumLoops(), LoopRole::J);
  SmallVector<unsigned> loops = operandLoops(op.getIndexingMapsArray()[sparse]);
  for (auto [loop, role] : llvm::zip(loops, sparseRoles))
    a.loopRoles[loop] = role;
  for (unsigned n = 0; n < op.getNumDpsInputs(); ++n)
    a.operandKinds.push_back(n == sparse ? OperandKind::Sparse
                                         : OperandKind::Dense);
  a.operandKinds.push_back(OperandKind::Out);
  return a;
}

KernelMatch mlir::sptune::matchSparseKernel(linalg::LinalgOp op) {
  KernelMatch match;
  match.isSparse = hasSparseOperand(op);
  if (!match.isSparse)
    return match;
  // The body is analyzed once, for the descriptor and the match.
  std::string bodyReason;
  FailureOr<AnalyzedBody> body = analyzeBody(op, bodyReason);
  std::string whyNot;
  if (FailureOr<::sptune::KernelDescriptor> d =
          describeAnalyzedKernel(op, body, whyNot);
      succeeded(d))
    match.descriptor = std::move(*d);

  // An MTTKRP (its sparse operand a 3-D tensor) is the kernel type
  // `mttkrp` in the forms sptune's kernel computes (MttkrpForm.h), else it
  // passes through with the reason: roles assigned here, not by the body.
  FailureOr<Assignment> ownKernel = failure();
  if (match.descriptor && match.descriptor->shapeName() == "mttkrp") {
    MttkrpInputs inputs;
    if (std::string why = whyNotKernelMttkrp(op, &inputs); !why.empty()) {
      match.reason = "an MTTKRP that sptune's kernel does not compute: " + why;
      return match;
    }
    ownKernel = ownKernelRoles(op, KernelKind::MTTKRP, inputs.b,
                               {LoopRole::I, LoopRole::K, LoopRole::L});
  }
  // Likewise a batched SpMM (BatchedSpmmForm.h): the kernel type
  // `batched_spmm`.
  if (match.descriptor && match.descriptor->shapeName() == "batched-spmm") {
    BatchedSpmmInputs inputs;
    if (std::string why = whyNotKernelBatchedSpmm(op, &inputs); !why.empty()) {
      match.reason =
          "a batched SpMM that sptune's kernel does not compute: " + why;
      return match;
    }
    ownKernel = ownKernelRoles(op, KernelKind::BatchedSpMM, inputs.a,
                               {LoopRole::B, LoopRole::I, LoopRole::K});
  }

  // Operand types: ranked tensors of matrices/vectors (an MTTKRP's or a
  // batched SpMM's 3-D tensors) with one element type.
  Type elementType;
  for (auto [n, operand] : llvm::enumerate(op->getOperands())) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type) {
      match.reason = "operand #" + std::to_string(n) + " is not a ranked tensor";
      return match;
    }
    if (type.getRank() < 1 || type.getRank() > (succeeded(ownKernel) ? 3 : 2)) {
      match.reason = "operand #" + std::to_string(n) + " has rank " +
                     std::to_string(type.getRank()) +
                     " (only matrices and vectors are supported)";
      return match;
    }
    Type et = type.getElementType();
    // A target may still leave some types unscheduled
    // (Target::whyUnsupportedElementType).
    if (!isKernelElementType(et)) {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << "element type " << et << " is not " << kernelElementTypesText();
      match.reason = s;
      return match;
    }
    if (elementType && et != elementType) {
      match.reason = "operands have different element types";
      return match;
    }
    elementType = et;
  }
  if (op->getNumResults() != 1 || op.getNumDpsInits() != 1) {
    match.reason = "op does not have exactly one output";
    return match;
  }
  if (!llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
        return map.isProjectedPermutation(/*allowZeroInResults=*/false);
      })) {
    match.reason = "indexing maps are not projected permutations";
    return match;
  }

  FailureOr<Assignment> a = failure();
  if (succeeded(ownKernel))
    a = std::move(ownKernel);
  else if (succeeded(body))
    a = assignRoles(op, body->kind, match.reason);
  else
    match.reason = bodyReason;
  if (failed(a)) {
    // Not SpMM, SDDMM, SpMV or SpGEMM: perhaps a kernel type defined by its
    // form (sptune/Schedule/KernelTypes.h).
    if (!match.descriptor)
      return match;
    a = assignAddedType(op, *match.descriptor);
    if (failed(a))
      return match;
    match.reason.clear();
  }

  SmallVector<LoopRole> operandDims;
  SmallVector<int64_t> operandRanks;
  for (AffineMap map : op.getIndexingMapsArray()) {
    for (unsigned l : operandLoops(map))
      operandDims.push_back(a->loopRoles[l]);
    operandRanks.push_back(map.getNumResults());
  }
  // The schedule's sparse operand: the first sparse input (an SpGEMM's A,
  // which may come second), else the sampling output.
  unsigned sparseIdx = a->kind == KernelKind::SpGEMM
                           ? static_cast<unsigned>(spgemmLeftFactor(op))
                           : llvm::find(a->operandKinds, OperandKind::Sparse) -
                                 a->operandKinds.begin();
  if (sparseIdx == a->operandKinds.size())
    sparseIdx = a->operandKinds.size() - 1; // the sampling output
  auto encoding = sparse_tensor::getSparseTensorEncoding(
      op->getOperand(sparseIdx).getType());
  // A loop is static when any operand dimension it indexes is static (the
  // linalg verifier keeps static sizes consistent). getStaticLoopRanges()
  // would only look at the first operand dimension of each loop.
  SmallVector<int64_t> loopSizes(op.getNumLoops(), ShapedType::kDynamic);
  for (OpOperand &operand : op->getOpOperands()) {
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(operand.get().getType()).getShape();
    for (auto [d, l] :
         llvm::enumerate(operandLoops(op.getMatchingIndexingMap(&operand))))
      if (!ShapedType::isDynamic(shape[d]))
        loopSizes[l] = shape[d];
  }

  // The attribute verifier is a consistency check of this matcher. Should it
  // fail, turn its message into the reason instead of emitting an error from
  // an analysis.
  std::string verifierMessage;
  {
    ScopedDiagnosticHandler capture(op->getContext(), [&](Diagnostic &diag) {
      verifierMessage = diag.str();
      return success();
    });
    auto emitError = [&] { return mlir::emitError(op->getLoc()); };
    match.kernel = KernelAttr::getChecked(
        llvm::function_ref<InFlightDiagnostic()>(emitError), op->getContext(),
        a->kind, ArrayRef<LoopRole>(a->loopRoles),
        ArrayRef<int64_t>(loopSizes), ArrayRef<OperandKind>(a->operandKinds),
        ArrayRef<LoopRole>(operandDims), ArrayRef<int64_t>(operandRanks),
        elementType, encoding);
  }
  if (!match.kernel)
    match.reason = "kernel description failed verification: " + verifierMessage;
  return match;
}
