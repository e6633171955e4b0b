//===- SampledAggregation.cpp - An SDDMM and its SpMM in one pass ---------===//

#include "cpu/SampledAggregation.h"

#include "cpu/BalancedRows.h"
#include "cpu/CpuKnobs.h"
#include "cpu/FilledOutput.h"
#include "cpu/KernelOutlining.h"

#include "sptune/IR/SptuneDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensorType.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::sptune;
namespace st = mlir::sparse_tensor;

namespace {

/// The CPU schedule of `op` when it is one for `kernel`, else null.
ScheduleAttr cpuSchedule(Operation *op, ::sptune::KernelType kernel) {
  auto attr = dyn_cast_or_null<ScheduleAttr>(
      op->getAttr(SptuneDialect::kScheduleAttrName));
  if (!attr || attr.getSchedule().target != ::sptune::TargetKind::CPU ||
      attr.getSchedule().kernel != kernel)
    return {};
  return attr;
}

/// Whether `type` is a CSR matrix: plain storage (isPlainSparseStorage),
/// dense rows over compressed, unique and ordered columns.
bool isCsr(Type type) {
  if (!isPlainSparseStorage(type, 2))
    return false;
  st::SparseTensorType t(cast<RankedTensorType>(type));
  return t.isDenseLvl(0) && t.isCompressedLvl(1) && t.isUniqueLvl(1) &&
         t.isOrderedLvl(1);
}

/// The static size of dimension 1 of a ranked tensor `v`, or -1.
int64_t innerSize(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getRank() != 2 || type.isDynamicDim(1))
    return -1;
  return type.getDimSize(1);
}

using Dims = std::vector<unsigned>;

/// What `op` computes, or nullopt (the error dropped: the caller says why).
std::optional<::sptune::KernelDescriptor> described(linalg::LinalgOp op) {
  llvm::Expected<::sptune::KernelDescriptor> d = describeKernel(op);
  if (!d) {
    llvm::consumeError(d.takeError());
    return std::nullopt;
  }
  return std::move(*d);
}

/// The source of `v` when `v` is a sparse_tensor.convert from sparse storage
/// to sparse storage of the same shape and element type (what
/// sptune-apply-schedule inserts for a schedule's `levels` or `widths`): the
/// same entries in another format, which the fused kernel reads, or does not
/// store, as they are. Null otherwise.
Value sameEntriesSource(Value v) {
  auto convert = v.getDefiningOp<st::ConvertOp>();
  if (!convert)
    return {};
  auto from = cast<RankedTensorType>(convert.getSource().getType());
  auto to = cast<RankedTensorType>(v.getType());
  if (!st::getSparseTensorEncoding(from) || !st::getSparseTensorEncoding(to) ||
      from.getShape() != to.getShape() ||
      from.getElementType() != to.getElementType())
    return {};
  return convert.getSource();
}

/// Collects the factors of `v`, a product in `op`'s body: each value of
/// `pending` (the stored value and the body's inputs) exactly once, and
/// invariant factors (values defined outside `op`, or constants), which may
/// divide when constant and non-zero. False for anything else.
bool collectSampledFactors(Value v, linalg::LinalgOp op,
                           SmallVector<Value> &pending,
                           SmallVector<InvariantFactor> &factors) {
  if (auto *it = llvm::find(pending, v); it != pending.end()) {
    pending.erase(it);
    return true;
  }
  Operation *def = v.getDefiningOp();
  Operation *scope =
      def ? def : cast<BlockArgument>(v).getOwner()->getParentOp();
  if (!op->isAncestor(scope) || isa<arith::ConstantOp>(scope)) {
    factors.push_back({v, /*divides=*/false});
    return true;
  }
  if (!def)
    return false; // an input met twice, or another argument
  if (auto mul = dyn_cast<arith::MulFOp>(def))
    return collectSampledFactors(mul.getLhs(), op, pending, factors) &&
           collectSampledFactors(mul.getRhs(), op, pending, factors);
  FloatAttr divisor;
  if (auto div = dyn_cast<arith::DivFOp>(def);
      div && matchPattern(div.getRhs(), m_Constant(&divisor)) &&
      !divisor.getValue().isZero()) {
    factors.push_back({div.getRhs(), /*divides=*/true});
    return collectSampledFactors(div.getLhs(), op, pending, factors);
  }
  return false;
}

/// The invariant factors of `op`'s product when its body is the in-place
/// sampled product sptune-apply-schedule writes (ApplySchedule.cpp,
/// rewriteIntoCopiedSample): reduce(out, unary(out){present: out * the
/// inputs * invariants}, 0){+}; failure otherwise.
FailureOr<SmallVector<InvariantFactor>>
sampledProductFactors(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  auto reduce = yield && yield.getNumOperands() == 1
                    ? yield.getOperand(0).getDefiningOp<st::ReduceOp>()
                    : nullptr;
  Value out = body->getArguments().back();
  if (!reduce || reduce.getX() != out ||
      !matchPattern(reduce.getIdentity(), m_AnyZeroFloat()))
    return failure();
  Block &sum = reduce.getRegion().front();
  auto add = sum.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || add.getLhs() == add.getRhs() ||
      llvm::any_of(add->getOperands(), [&](Value v) {
        return !llvm::is_contained(sum.getArguments(), v);
      }))
    return failure();
  auto unary = reduce.getY().getDefiningOp<st::UnaryOp>();
  if (!unary || unary.getX() != out || !unary.getAbsentRegion().empty() ||
      !unary.getPresentRegion().hasOneBlock())
    return failure();
  Block &present = unary.getPresentRegion().front();
  // The stored value and each input exactly once.
  SmallVector<Value> pending(body->getArguments().drop_back());
  pending.push_back(present.getArgument(0));
  SmallVector<InvariantFactor> factors;
  if (present.getNumArguments() != 1 ||
      !collectSampledFactors(present.getTerminator()->getOperand(0), op,
                             pending, factors) ||
      !pending.empty())
    return failure();
  return factors;
}

/// Why the SDDMM half of a pair cannot be fused, or "" (filling the
/// SDDMM's operands into `pair`).
std::string whyNotFusableSddmm(linalg::LinalgOp op, SampledAggregation &pair,
                               Type &element) {
  pair.schedule = cpuSchedule(op, ::sptune::KernelType::SDDMM);
  if (!pair.schedule)
    return "it has no CPU SDDMM schedule";
  if (::sptune::cpuKnobs(pair.schedule.getSchedule()).rowOrder !=
      ::sptune::RowOrderKind::Natural)
    return "its schedule visits the rows in another order";
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return "it is not the in-place SDDMM sptune-apply-schedule gives";
  auto copy = op.getDpsInitOperand(0)
                  ->get()
                  .getDefiningOp<bufferization::AllocTensorOp>();
  if (!copy || !copy.getCopy() ||
      copy.getCopy().getType() != op->getResult(0).getType())
    return "its output is not a copy of the sampling matrix";
  std::optional<::sptune::KernelDescriptor> d = described(op);
  if (!d)
    return "its body cannot be described";
  const auto &ops = d->operands;
  FailureOr<SmallVector<InvariantFactor>> factors = sampledProductFactors(op);
  if (failed(factors) || d->loops.size() != 3 || ops.size() != 3 ||
      d->numReductions() != 1)
    return "it is not a sampled product over one reduction";
  pair.factors = *factors;
  unsigned i = ops[2].dims[0], j = ops[2].dims[1], k = 0;
  while (k < 3 && !d->loops[k].reduction)
    ++k;
  using Kind = ::sptune::KernelOperand::Kind;
  if (ops[0].kind != Kind::Dense || ops[1].kind != Kind::Dense)
    return "it reads a sparse A or B";
  if (ops[0].dims != Dims{i, k} || ops[1].dims != Dims{j, k})
    return "it does not read A(i, k) and B^T(j, k) with k contiguous (the "
           "fused kernel needs the schedule's layout [a : k, b : k])";
  element = getElementTypeOrSelf(op->getResult(0).getType());
  if (!element.isF32() && !element.isF64())
    return "its element type is not f32 or f64";
  // S as the caller stores it, where the schedule converted it: the value
  // furthest back on the chain of conversions that is CSR (each value after
  // it holds the same entries), which the fused kernel reads row by row.
  for (Value v = copy.getCopy(); v; v = sameEntriesSource(v))
    if (isCsr(v.getType()))
      pair.sample = v;
  if (!pair.sample)
    return "the sampling matrix is not CSR";
  pair.a = op.getDpsInputOperand(0)->get();
  pair.bt = op.getDpsInputOperand(1)->get();
  int64_t width = innerSize(pair.a);
  if (width < 1 || width != innerSize(pair.bt) ||
      width * element.getIntOrFloatBitWidth() / 8 > kMaxFusedRowBytes)
    return "its K is dynamic or its rows of A above " +
           std::to_string(kMaxFusedRowBytes) + " bytes";
  for (Value v : {pair.a, pair.bt})
    if (getElementTypeOrSelf(v.getType()) != element)
      return "its operands' element types differ";
  return "";
}

/// Why the SpMM half of a pair (the op reading the SDDMM's result `e`)
/// cannot be fused, or "" (filling its operands into `pair`).
std::string whyNotFusableSpmm(linalg::LinalgOp op, Value e,
                              SampledAggregation &pair, Type element) {
  if (!cpuSchedule(op, ::sptune::KernelType::SpMM))
    return "the SDDMM's result feeds an op that is not a scheduled CPU SpMM "
           "(a blocked SDDMM's result is copied back to S's storage first)";
  ScheduleAttr own =
      cast<ScheduleAttr>(op->getAttr(SptuneDialect::kScheduleAttrName));
  const ::sptune::CpuKnobs &knobs = ::sptune::cpuKnobs(own.getSchedule());
  const ::sptune::CpuKnobs &sddmmKnobs =
      ::sptune::cpuKnobs(pair.schedule.getSchedule());
  if (knobs.rowOrder != ::sptune::RowOrderKind::Natural)
    return "the SpMM's schedule visits the rows in another order";
  if (knobs.parallel != sddmmKnobs.parallel ||
      knobs.threads != sddmmKnobs.threads)
    return "the SDDMM's and the SpMM's schedules disagree on parallel or "
           "threads";
  if (op->getBlock() != pair.sddmm->getBlock())
    return "the SpMM is in another block";
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return "the SpMM does not have two inputs and one output";
  unsigned eIdx = op.getDpsInputOperand(0)->get() == e ? 0 : 1;
  if (op.getDpsInputOperand(eIdx)->get() != e ||
      op.getDpsInputOperand(1 - eIdx)->get() == e)
    return "the SpMM reads the SDDMM's result twice";
  std::optional<::sptune::KernelDescriptor> d = described(op);
  if (!d)
    return "the SpMM's body cannot be described";
  const auto &ops = d->operands;
  if (d->body != ::sptune::KernelDescriptor::Body::MultiplyAccumulate ||
      d->loops.size() != 3 || ops.size() != 3 || d->numReductions() != 1 ||
      ops[2].kind != ::sptune::KernelOperand::Kind::Output)
    return "the SpMM is not a multiply-accumulate into a dense output";
  unsigned i = ops[2].dims[0], n = ops[2].dims[1];
  const Dims &eDims = ops[eIdx].dims;
  if (ops[1 - eIdx].kind != ::sptune::KernelOperand::Kind::Dense)
    return "the SpMM's H is sparse";
  if (eDims.size() != 2 || eDims[0] != i || !d->loops[eDims[1]].reduction ||
      ops[1 - eIdx].dims != Dims{eDims[1], n})
    return "the SpMM does not compute Y(i, n) += E(i, j) H(j, n) with n "
           "contiguous";
  pair.h = op.getDpsInputOperand(1 - eIdx)->get();
  pair.init = op.getDpsInitOperand(0)->get();
  // Y starts from a fill of a fresh tensor: the kernel allocates Y
  // (cpu/FilledOutput.h).
  pair.fillValue = freshFillValue(pair.init);
  if (!pair.fillValue)
    return "the SpMM's output does not start from a linalg.fill of a fresh "
           "tensor";
  int64_t width = innerSize(pair.init);
  if (width < 1 || width != innerSize(pair.h) ||
      width * element.getIntOrFloatBitWidth() / 8 > kMaxFusedRowBytes)
    return "the SpMM's N is dynamic or its rows of Y above " +
           std::to_string(kMaxFusedRowBytes) + " bytes";
  for (Value v : {pair.h, pair.init, pair.fillValue})
    if (getElementTypeOrSelf(v.getType()) != element)
      return "the SpMM's element types differ from the SDDMM's";
  return "";
}

} // namespace

std::string mlir::sptune::whyNotSampledAggregation(linalg::LinalgOp sddmm,
                                                   SampledAggregation &pair) {
  pair = SampledAggregation();
  pair.sddmm = sddmm;
  Type element;
  if (std::string why = whyNotFusableSddmm(sddmm, pair, element); !why.empty())
    return why;
  // E, or E converted to other formats (the SpMM's schedule's), as the SpMM
  // reads it: each value's one use besides deallocations.
  Value e = sddmm->getResult(0);
  linalg::LinalgOp consumer;
  while (!consumer) {
    Operation *next = nullptr;
    for (Operation *user : e.getUsers()) {
      if (isa<bufferization::DeallocTensorOp>(user))
        continue;
      if (next)
        return "the SDDMM's result has uses besides one SpMM";
      next = user;
    }
    if (!next)
      break;
    if (next->getNumResults() == 1 &&
        sameEntriesSource(next->getResult(0)) == e) {
      pair.conversions.push_back(next);
      e = next->getResult(0);
      continue;
    }
    consumer = dyn_cast<linalg::LinalgOp>(next);
    if (!consumer)
      return "the SDDMM's result has uses besides one SpMM";
  }
  if (!consumer)
    return "the SDDMM's result feeds no SpMM";
  pair.spmm = consumer;
  if (std::string why = whyNotFusableSpmm(consumer, e, pair, element);
      !why.empty())
    return why;
  llvm::append_range(pair.factors, invariantFactors(consumer));
  return "";
}

void mlir::sptune::outlineSampledAggregation(RewriterBase &rewriter,
                                             const SampledAggregation &pair,
                                             bool parallel) {
  Operation *sddmm = pair.sddmm, *spmm = pair.spmm;
  Location loc = spmm->getLoc();
  Type element = getElementTypeOrSelf(pair.init.getType());
  rewriter.setInsertionPoint(spmm);
  // f: the product of the invariant factors (a constant of a body is made
  // again before the call).
  Value scale;
  for (const InvariantFactor &f : pair.factors) {
    Value v = f.value;
    if (Operation *def = v.getDefiningOp();
        def && (sddmm->isProperAncestor(def) || spmm->isProperAncestor(def)))
      v = rewriter.clone(*def)->getResult(0);
    if (!scale)
      scale = arith::ConstantOp::create(rewriter, loc,
                                        rewriter.getFloatAttr(element, 1.0));
    scale = f.divides
                ? arith::DivFOp::create(rewriter, loc, scale, v).getResult()
                : arith::MulFOp::create(rewriter, loc, scale, v).getResult();
  }
  if (!scale)
    scale = arith::ConstantOp::create(rewriter, loc,
                                      rewriter.getFloatAttr(element, 1.0));
  SmallVector<Value> operands = {pair.sample, pair.a,         pair.bt,
                                 pair.h,      pair.fillValue, scale};
  Type y = spmm->getResult(0).getType();
  FunctionType type =
      rewriter.getFunctionType(ValueRange(operands).getTypes(), {y});
  // One declaration per signature, schedule and parallelism.
  // S, A, B^T, H and Y.
  DictionaryAttr marks = kernelMarks(rewriter, parallel,
                                     {pair.sample.getType(), pair.a.getType(),
                                      pair.bt.getType(), pair.h.getType(), y});
  func::FuncOp callee = declareKernel(
      spmm->getParentOfType<ModuleOp>(), loc, "sptune_sampled_aggregation",
      type,
      {rewriter.getNamedAttr(kSampledAggregationAttrName, marks),
       rewriter.getNamedAttr(SptuneDialect::kScheduleAttrName, pair.schedule)},
      4);
  auto call = func::CallOp::create(rewriter, loc, callee, operands);
  // Deallocations of the call's operands before it move after it: B^T's,
  // which sptune-apply-schedule frees after the SDDMM, and that of S in
  // another width, freed after its conversion for the SDDMM (ConvertStorage).
  SmallVector<Operation *> deallocs;
  for (Value v : operands)
    for (Operation *user : v.getUsers())
      if (isa<bufferization::DeallocTensorOp>(user) &&
          user->getBlock() == call->getBlock() && user->isBeforeInBlock(call) &&
          !llvm::is_contained(deallocs, user))
        deallocs.push_back(user);
  for (Operation *op : deallocs)
    op->moveAfter(call);
  rewriter.replaceOp(spmm, call.getResults());
  // E in other formats, E, and their deallocations, last first.
  for (Operation *conversion : llvm::reverse(pair.conversions)) {
    for (Operation *user : llvm::make_early_inc_range(conversion->getUsers()))
      rewriter.eraseOp(user);
    rewriter.eraseOp(conversion);
  }
  for (Operation *user : llvm::make_early_inc_range(sddmm->getUsers()))
    rewriter.eraseOp(user);
  Operation *copy =
      linalg::LinalgOp(pair.sddmm).getDpsInitOperand(0)->get().getDefiningOp();
  Value converted = cast<bufferization::AllocTensorOp>(copy).getCopy();
  rewriter.eraseOp(sddmm);
  // S's copy (an allocation: never trivially dead), Y's fill and the fresh
  // tensor it fills (whyNotFusableSpmm), where nothing else uses them.
  Operation *fill = pair.init.getDefiningOp();
  Operation *filled =
      cast<DestinationStyleOpInterface>(fill).getDpsInits()[0].getDefiningOp();
  for (Operation *dead : {copy, fill, filled})
    if (dead && dead->use_empty())
      rewriter.eraseOp(dead);
  // S in the SDDMM's formats, where only S's copy read them.
  while (Value source = sameEntriesSource(converted)) {
    Operation *conversion = converted.getDefiningOp();
    if (!conversion->use_empty())
      break;
    rewriter.eraseOp(conversion);
    converted = source;
  }
}

namespace {

/// How many entries ahead the fused kernel prefetches the rows of B^T and H
/// it will read. Measured on the Intel Xeon VM (bench/gat-layer.py's layer,
/// K = N = 64, f32, 3 runs each): the layer 1.07x to 1.27x faster than
/// without prefetches on five graph matrices (ct2010 the most); 4 and 16
/// entries within noise of 8.
constexpr int64_t kPrefetchEntries = 8;

/// The fused kernel's body on its buffers (the file header's loop).
void buildBody(OpBuilder &b, Location loc, ValueRange args, MemRefType yType,
               int64_t k, bool parallel) {
  Type element = yType.getElementType();
  int64_t n = yType.getDimSize(1);
  Value positions = args[0], coordinates = args[1], values = args[2];
  Value specifier = args[3], a = args[4], bt = args[5], h = args[6],
        fill = args[7], scale = args[8];
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  // S's rows (its first level's size).
  Value rows = levelSize(b, loc, specifier, 0);
  Value y = memref::AllocOp::create(
      b, loc, yType, yType.isDynamicDim(0) ? ValueRange{rows} : ValueRange{});
  auto rowType = VectorType::get({k}, element);
  auto outType = VectorType::get({n}, element);
  auto fastmath =
      arith::FastMathFlags::reassoc | arith::FastMathFlags::contract;
  // S's stored entries run to positions[rows] (its buffers may be longer).
  Value entries = loadPosition(b, loc, positions, rows);
  Value lastEntry = arith::SubIOp::create(b, loc, entries, c1);
  Value prefetchDistance =
      arith::ConstantIndexOp::create(b, loc, kPrefetchEntries);
  int64_t lineElements = 64 / (element.getIntOrFloatBitWidth() / 8);
  auto coordinate = [&](OpBuilder &b, Location loc, Value p) {
    return loadPosition(b, loc, coordinates, p);
  };
  auto row = [&](OpBuilder &b, Location loc, Value i) {
    auto [lo, hi] = loadPositionRange(b, loc, positions, i);
    Value ai = vector::LoadOp::create(b, loc, rowType, a, ValueRange{i, c0});
    Value yi = vector::BroadcastOp::create(b, loc, outType, fill);
    auto entries = scf::ForOp::create(
        b, loc, lo, hi, c1, ValueRange{yi},
        [&](OpBuilder &b, Location loc, Value p, ValueRange acc) {
          Value j = coordinate(b, loc, p);
          // The rows of B^T and H that the entry kPrefetchEntries on reads
          // (the last entry's near the end) into the caches: their column
          // is random, so the hardware does not fetch them ahead.
          Value ahead = coordinate(
              b, loc,
              arith::MinUIOp::create(
                  b, loc, arith::AddIOp::create(b, loc, p, prefetchDistance),
                  lastEntry));
          for (auto [buffer, width] : {std::pair(bt, k), std::pair(h, n)})
            for (int64_t at = 0; at < width; at += lineElements)
              memref::PrefetchOp::create(
                  b, loc, buffer,
                  ValueRange{ahead, arith::ConstantIndexOp::create(b, loc, at)},
                  /*isWrite=*/false, /*localityHint=*/3,
                  /*isDataCache=*/true);
          Value bj =
              vector::LoadOp::create(b, loc, rowType, bt, ValueRange{j, c0});
          Value products = arith::MulFOp::create(b, loc, ai, bj, fastmath);
          Value dot = vector::ReductionOp::create(
              b, loc, vector::CombiningKind::ADD, products, fastmath);
          Value s = arith::MulFOp::create(
              b, loc, memref::LoadOp::create(b, loc, values, p), dot, fastmath);
          s = arith::MulFOp::create(b, loc, s, scale, fastmath);
          Value hj =
              vector::LoadOp::create(b, loc, outType, h, ValueRange{j, c0});
          Value splat = vector::BroadcastOp::create(b, loc, outType, s);
          Value next = vector::FMAOp::create(b, loc, splat, hj, acc[0]);
          scf::YieldOp::create(b, loc, next);
        });
    vector::StoreOp::create(b, loc, entries.getResult(0), y, ValueRange{i, c0});
  };
  Operation *loop = rowLoop(b, loc, c0, rows, parallel, row);
  // Marked as the sparsifier marks its loops: sptune-balance-rows cuts
  // such a loop over rows of compressed storage (S's positions) into
  // blocks of equal stored entries when the schedule says omp = balanced.
  if (parallel)
    loop->setAttr(kSparsifierLoopAttrName,
                  b.getStringAttr(kSampledAggregationAttrName));
  func::ReturnOp::create(b, loc, y);
}

} // namespace

LogicalResult mlir::sptune::defineSampledAggregationKernels(ModuleOp module) {
  return defineDeclaredKernels(
      module, kSampledAggregationAttrName, 5,
      [&](func::FuncOp f, bool parallel,
          ArrayRef<RankedTensorType> tensors) -> LogicalResult {
        // S CSR; A and B^T rows of one static K, H and Y of one static N, all
        // of S's element type (f32 or f64), within kMaxFusedRowBytes.
        auto rowsOf = [&](RankedTensorType t, RankedTensorType u,
                          Type element) {
          return t.getRank() == 2 && u.getRank() == 2 && !t.isDynamicDim(1) &&
                 t.getDimSize(1) > 0 && t.getDimSize(1) == u.getDimSize(1) &&
                 t.getElementType() == element &&
                 u.getElementType() == element &&
                 t.getDimSize(1) * element.getIntOrFloatBitWidth() / 8 <=
                     kMaxFusedRowBytes;
        };
        Type element = floatElementOf(tensors, isCsr);
        if (!element || !rowsOf(tensors[1], tensors[2], element) ||
            !rowsOf(tensors[3], tensors[4], element))
          return f.emitError("sptune: the fused SDDMM-SpMM kernel's '")
                 << kSampledAggregationAttrName
                 << "' must be {parallel = bool, types = [S (CSR), A, B^T, H, "
                    "Y]} with rows of A and B^T of one static size, of H and Y "
                    "of another, f32 or f64, at most "
                 << kMaxFusedRowBytes << " bytes";
        SmallVector<Type> inputs = sparseBufferTypes(tensors[0]);
        // A, B^T, H, Y's fill value, f; Y.
        for (RankedTensorType t : tensors.slice(1, 3))
          inputs.push_back(MemRefType::get(t.getShape(), t.getElementType()));
        inputs.append({element, element});
        FunctionType expected = FunctionType::get(
            module.getContext(), inputs,
            {MemRefType::get(tensors[4].getShape(), element)});
        // The marks are spent; the schedule stays for the OpenMP passes.
        FailureOr<OpBuilder> b = startKernelBody(f, kSampledAggregationAttrName,
                                                 expected, "fused SDDMM-SpMM");
        if (failed(b))
          return failure();
        buildBody(*b, f.getLoc(), f.getArguments(),
                  cast<MemRefType>(expected.getResult(0)),
                  tensors[1].getDimSize(1), parallel);
        return success();
      });
}
