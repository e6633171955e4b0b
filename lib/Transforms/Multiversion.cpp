//===- Multiversion.cpp - Variants and a run-time dispatcher --------------===//

#include "sptune/Transforms/Multiversion.h"

#include "sptune/Analysis/ScheduleMapping.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Matrix/Generators.h"
#include "sptune/Support/Error.h"
#include "sptune/Target/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensorType.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::sptune;
namespace st = ::sptune;

std::string mlir::sptune::variantFunctionName(llvm::StringRef function,
                                              unsigned variant) {
  return (function + "__sptune_v" + llvm::Twine(variant)).str();
}

std::string mlir::sptune::routeFunctionName(llvm::StringRef function) {
  return (function + "__sptune_route").str();
}

/// The sparse operand of `k` as the function argument it is, or null.
static BlockArgument sparseArgument(const KernelTuningContext &k) {
  auto arg =
      dyn_cast<BlockArgument>(k.op->getOperand(k.kernel.getSparseOperand()));
  if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()) ||
      !arg.getOwner()->isEntryBlock())
    return {};
  return arg;
}

std::string mlir::sptune::whyNotMultiversioned(const KernelTuningContext &k) {
  if (!k.target->rewritesIR())
    return "target '" + std::string(k.target->name()) +
           "' emits programs, not IR variants";
  // Variants are the model's picks for training matrices. The shipped
  // model has no SpGEMM feature; one learned with `sptune-learn --kernel
  // spgemm` has, but SpGEMM variants are neither built nor tested.
  if (k.type == ::sptune::KernelType::SpGEMM)
    return "SpGEMM kernels get one schedule (multi-versioning picks no "
           "SpGEMM variants; the shipped cost model has no SpGEMM feature)";
  // Variants are chosen at run time by a matrix's features; an MTTKRP's
  // operand is a 3-D tensor, whose features no dispatch computes.
  if (k.type == ::sptune::KernelType::MTTKRP)
    return "MTTKRP kernels get one schedule (run-time dispatch reads a "
           "matrix's features, not a 3-D tensor's)";
  if (k.type == ::sptune::KernelType::BatchedSpMM)
    return "batched SpMM kernels get one schedule (run-time dispatch reads a "
           "matrix's features, not a batch's)";
  auto func = k.op->getParentOfType<func::FuncOp>();
  if (!func)
    return "the kernel is not in a function";
  unsigned kernels = 0;
  func->walk([&](Operation *op) {
    kernels += op->hasAttr(SptuneDialect::kKernelAttrName);
  });
  if (kernels != 1)
    return "its function @" + func.getSymName().str() + " holds " +
           std::to_string(kernels) +
           " kernels (a dispatcher routes one; put each in its own function)";
  if (!sparseArgument(k))
    return "the sparse operand is not an argument of @" +
           func.getSymName().str() +
           " (the dispatcher reads the matrix it is called with)";
  if (k.transposed)
    return "the sparse operand is on the right of the product (the "
           "dispatcher reads the row lengths of a row-major operand)";
  auto type = sparse_tensor::getSparseTensorType(
      k.op->getOperand(k.kernel.getSparseOperand()));
  if (type.getLvlRank() != 2 || !type.isIdentity() || !type.isDenseLvl(0) ||
      !type.isCompressedLvl(1))
    return "the sparse operand is not stored as CSR (the dispatcher reads its "
           "row positions)";
  return "";
}

llvm::Expected<std::vector<std::string>>
mlir::sptune::trainingMatrixSources(const std::string &spec) {
  if (spec.empty())
    return st::defaultDispatchTrainingSpecs();
  std::vector<std::string> sources;
  if (llvm::sys::fs::is_directory(spec)) {
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(spec, ec), end;
         it != end && !ec; it.increment(ec))
      if (llvm::sys::path::extension(it->path()) == ".mtx")
        sources.push_back(it->path());
    if (ec)
      return st::makeError("cannot list training matrices in '" + spec +
                           "': " + ec.message());
    std::sort(sources.begin(), sources.end());
    if (sources.empty())
      return st::makeError("no .mtx files in the training directory '" + spec +
                           "'");
    return sources;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(spec);
  if (!file)
    return st::makeError("cannot read the training matrices '" + spec +
                         "': " + file.getError().message());
  llvm::StringRef dir = llvm::sys::path::parent_path(spec);
  llvm::SmallVector<llvm::StringRef> lines;
  (*file)->getBuffer().split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.split('#').first.trim();
    if (line.empty())
      continue;
    if (st::isGenSpec(line) || llvm::sys::path::is_absolute(line)) {
      sources.push_back(line.str());
    } else {
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, line);
      sources.push_back(path.str().str());
    }
  }
  if (sources.empty())
    return st::makeError("the training matrices file '" + spec +
                         "' names no matrix");
  return sources;
}

namespace {
/// Builds the route function's body: the dispatch features of a CSR
/// operand, then the rule. When the rule reads the row lengths (a pass over
/// the rows), the choice is cached in `cache` (memref<5xi64>: the positions
/// buffer's address, rows, columns, entries, the variant) and a call with
/// the same buffer and sizes takes it without the pass. A stale entry (a
/// buffer freed and reused for another matrix of the same sizes) can only
/// cost speed: every variant computes the same result.
class RouteBuilder {
public:
  RouteBuilder(OpBuilder &b, Location loc, const st::DispatchRule &rule,
               memref::GlobalOp cache)
      : b(b), loc(loc), rule(rule), cache(cache) {}

  /// The variant index the rule picks for `sparse`, as an index value.
  Value build(Value sparse) {
    c0 = arith::ConstantIndexOp::create(b, loc, 0);
    c1 = arith::ConstantIndexOp::create(b, loc, 1);
    rows = tensor::DimOp::create(b, loc, sparse, c0);
    Value cols = tensor::DimOp::create(b, loc, sparse, c1);
    Value nnz = sparse_tensor::NumberOfEntriesOp::create(b, loc, sparse);
    using F = st::DispatchFeatures;
    Value rowsF = f64Of(rows), nnzF = f64Of(nnz), zero = f64(0);
    hasRows =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, rowsF, zero);
    mean = arith::SelectOp::create(
        b, loc, hasRows, arith::DivFOp::create(b, loc, nnzF, rowsF), zero);
    values[F::Rows] = rowsF;
    values[F::Cols] = f64Of(cols);
    values[F::Nnz] = nnzF;
    values[F::RowMean] = mean;
    if (!rule.readsRowLengths())
      return emitNode(0);
    Value positions = sparse_tensor::ToPositionsOp::create(
        b, loc, sparse, sparse_tensor::Level(1));
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, positions);
    Value slots = memref::GetGlobalOp::create(b, loc, cache.getType(),
                                              cache.getSymName());
    SmallVector<Value> key = {i64Of(address), i64Of(rows), i64Of(cols),
                              i64Of(nnz)};
    Value hit = arith::ConstantIntOp::create(b, loc, 1, 1);
    for (unsigned n = 0; n < key.size(); ++n)
      hit = arith::AndIOp::create(
          b, loc, hit,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                load(slots, n), key[n]));
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{b.getIndexType()}, hit,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(b, loc,
                         Value(arith::IndexCastOp::create(
                             b, loc, b.getIndexType(), load(slots, 4))));
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    rowLengthFeatures(positions);
    Value variant = emitNode(0);
    key.push_back(i64Of(variant));
    for (unsigned n = 0; n < key.size(); ++n)
      memref::StoreOp::create(b, loc, key[n], slots,
                              ValueRange{arith::ConstantIndexOp::create(b, loc, n)});
    scf::YieldOp::create(b, loc, variant);
    return ifOp.getResult(0);
  }

private:
  Value i64Of(Value index) {
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
  }
  Value f64Of(Value index) {
    return arith::UIToFPOp::create(b, loc, b.getF64Type(), i64Of(index));
  }
  Value f64(double v) {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  }
  Value load(Value slots, unsigned n) {
    return memref::LoadOp::create(
        b, loc, slots, ValueRange{arith::ConstantIndexOp::create(b, loc, n)});
  }

  /// One pass over the rows in integers (the sum of squared lengths and the
  /// longest; no floating-point dependence chain), then cv^2 = (E[len^2] -
  /// mean^2) / mean^2, 0 without rows or entries: the rule's thresholds on
  /// cv are compared squared (both are >= 0).
  void rowLengthFeatures(Value positions) {
    Value zero64 = arith::ConstantIntOp::create(b, loc, 0, 64);
    auto loop = scf::ForOp::create(
        b, loc, c0, rows, c1, ValueRange{zero64, c0},
        [&](OpBuilder &nb, Location l, Value row, ValueRange acc) {
          Value next = arith::AddIOp::create(nb, l, row, c1);
          Value begin = memref::LoadOp::create(nb, l, positions, row);
          Value end = memref::LoadOp::create(nb, l, positions, next);
          Value length = arith::SubIOp::create(nb, l, end, begin);
          if (!length.getType().isIndex())
            length = arith::IndexCastUIOp::create(nb, l, nb.getIndexType(),
                                                  length);
          Value length64 =
              arith::IndexCastUIOp::create(nb, l, nb.getI64Type(), length);
          Value squares = arith::AddIOp::create(
              nb, l, acc[0], arith::MulIOp::create(nb, l, length64, length64));
          Value longest = arith::MaxUIOp::create(nb, l, acc[1], length);
          scf::YieldOp::create(nb, l, ValueRange{squares, longest});
        });
    Value zero = f64(0);
    Value squares =
        arith::UIToFPOp::create(b, loc, b.getF64Type(), loop.getResult(0));
    Value meanSquared = arith::MulFOp::create(b, loc, mean, mean);
    Value variance = arith::SubFOp::create(
        b, loc,
        arith::SelectOp::create(
            b, loc, hasRows,
            arith::DivFOp::create(b, loc, squares,
                                  values[st::DispatchFeatures::Rows]),
            zero),
        meanSquared);
    Value hasEntries = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                             meanSquared, zero);
    cvSquared = arith::SelectOp::create(
        b, loc, hasEntries,
        arith::DivFOp::create(b, loc, variance, meanSquared), zero);
    values[st::DispatchFeatures::RowMax] = f64Of(loop.getResult(1));
  }

  Value emitNode(int n) {
    const st::DispatchRule::Node &node = rule.nodes[n];
    if (node.feature < 0)
      return arith::ConstantIndexOp::create(b, loc, node.variant);
    Value cond;
    if (node.feature == st::DispatchFeatures::RowCv) {
      cond = node.threshold < 0
                 ? arith::ConstantIntOp::create(b, loc, 0, 1).getResult()
                 : arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE,
                                         cvSquared,
                                         f64(node.threshold * node.threshold))
                       .getResult();
    } else {
      cond = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE,
                                   values[node.feature], f64(node.threshold));
    }
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{b.getIndexType()}, cond,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(b, loc, emitNode(node.left));
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(b, loc, emitNode(node.right));
    return ifOp.getResult(0);
  }

  OpBuilder &b;
  Location loc;
  const st::DispatchRule &rule;
  memref::GlobalOp cache;
  Value c0, c1, rows, hasRows, mean, cvSquared;
  Value values[st::DispatchFeatures::Count];
};
} // namespace

/// Empties `func`'s body down to its entry block's arguments.
static void clearBody(func::FuncOp func) {
  Region &body = func.getBody();
  for (Block &block : body)
    for (Operation &op : block)
      op.dropAllReferences();
  while (body.getBlocks().size() > 1)
    body.back().erase();
  Block &entry = body.front();
  while (!entry.empty())
    entry.back().erase();
}

LogicalResult
mlir::sptune::emitMultiversioned(KernelTuningContext &k,
                                 const st::MultiversionPlan &plan,
                                 llvm::StringRef trainingDescription,
                                 llvm::StringRef note) {
  auto func = k.op->getParentOfType<func::FuncOp>();
  auto module = func->getParentOfType<ModuleOp>();
  if (!module || plan.variants.empty())
    return k.op->emitError("sptune-autotune: cannot multi-version this kernel "
                           "(no module, or no variant)");
  SymbolTable symbols(module);
  llvm::StringRef name = func.getSymName();
  std::vector<std::string> names;
  for (unsigned n = 0; n < plan.variants.size(); ++n)
    names.push_back(variantFunctionName(name, n));
  names.push_back(routeFunctionName(name));
  if (symbols.lookup(names.back() + "_cache"))
    return k.op->emitError("sptune-autotune: cannot multi-version @")
           << name << ": the module already has a symbol @" << names.back()
           << "_cache";
  // A declaration of the type the definition will have (a caller that
  // calls a variant or the route directly) gives way to it; anything else
  // by that name is an error.
  BlockArgument sparse = sparseArgument(k);
  auto routeType = FunctionType::get(func.getContext(), {sparse.getType()},
                                     {IndexType::get(func.getContext())});
  SmallVector<Operation *> declarations;
  for (const std::string &taken : names) {
    Operation *existing = symbols.lookup(taken);
    if (!existing)
      continue;
    auto declared = dyn_cast<func::FuncOp>(existing);
    FunctionType wanted =
        taken == names.back() ? routeType : func.getFunctionType();
    if (!declared || !declared.isExternal() ||
        declared.getFunctionType() != wanted)
      return k.op->emitError("sptune-autotune: cannot multi-version @")
             << name << ": the module already has a symbol @" << taken
             << " (only a declaration of type " << wanted
             << " may be there)";
    declarations.push_back(existing);
  }
  for (Operation *declaration : declarations)
    declaration->erase();

  // The remark first: the kernel is gone from @f afterwards.
  std::string text;
  llvm::raw_string_ostream remark(text);
  remark << "sptune-autotune: no matrix for this kernel: "
         << plan.variants.size() << " variants chosen for "
         << plan.trainingMatrices << " training matrices (" << trainingDescription
         << "; " << plan.pooledSchedules
         << " schedules pooled), dispatched at run time by the rule: "
         << plan.rule.str() << ";";
  for (unsigned n = 0; n < plan.variants.size(); ++n)
    remark << " variant v" << n << " (" << plan.routedCounts[n]
           << " training matrices) [" << plan.variants[n].str() << "]";
  remark << "; " << plan.routedToBest << " of the " << plan.trainingMatrices
         << " training matrices are routed to their best pooled schedule";
  if (plan.scoresArePredictions)
    remark << ", and the routed variants are predicted at "
           << llvm::format("%.3f", plan.routedShareOfBest)
           << " of each one's best (one schedule for all: "
           << llvm::format("%.3f", plan.singleShareOfBest) << ")";
  if (plan.guardKeptHeuristic > 0)
    remark << "; the model's guard kept the heuristic's schedule as the best "
              "of "
           << plan.guardKeptHeuristic << " training matrices";
  if (!plan.fallbackReason.empty())
    remark << "; ranked by the heuristic: " << plan.fallbackReason;
  if (!note.empty())
    remark << "; " << note;
  k.op->emitRemark(remark.str());

  // The variants: copies of @f, each kernel with its schedule.
  MLIRContext *ctx = func.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointAfter(func);
  std::vector<func::FuncOp> variants;
  for (unsigned n = 0; n < plan.variants.size(); ++n) {
    auto copy = cast<func::FuncOp>(b.clone(*func));
    copy.setSymName(names[n]);
    copy->walk([&](Operation *op) {
      if (op->hasAttr(SptuneDialect::kKernelAttrName))
        op->setAttr(SptuneDialect::kScheduleAttrName,
                    ScheduleAttr::get(ctx, plan.variants[n]));
    });
    copy->setAttr("sptune.variant_of", FlatSymbolRefAttr::get(func));
    variants.push_back(copy);
  }

  // The route: dispatch features and the rule.
  Location loc = func.getLoc();
  auto route = func::FuncOp::create(b, loc, names.back(), routeType);
  memref::GlobalOp cache;
  if (plan.rule.readsRowLengths()) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(route);
    auto type = MemRefType::get({5}, b.getI64Type());
    cache = memref::GlobalOp::create(
        b, loc, names.back() + "_cache", b.getStringAttr("private"), type,
        DenseElementsAttr::get(RankedTensorType::get({5}, b.getI64Type()),
                               b.getI64IntegerAttr(-1).getValue()),
        /*constant=*/false, /*alignment=*/nullptr);
  }
  {
    OpBuilder::InsertionGuard guard(b);
    Block *entry = route.addEntryBlock();
    b.setInsertionPointToStart(entry);
    RouteBuilder builder(b, loc, plan.rule, cache);
    func::ReturnOp::create(b, loc, builder.build(entry->getArgument(0)));
  }

  // @f becomes the dispatcher.
  unsigned sparseIndex = sparse.getArgNumber();
  clearBody(func);
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  Value which =
      func::CallOp::create(b, loc, route, ValueRange{entry.getArgument(sparseIndex)})
          .getResult(0);
  TypeRange results = func.getFunctionType().getResults();
  SmallVector<int64_t> cases;
  for (unsigned n = 1; n < variants.size(); ++n)
    cases.push_back(n);
  auto dispatch = scf::IndexSwitchOp::create(b, loc, results, which, cases,
                                             cases.size());
  auto callIn = [&](Region &region, func::FuncOp callee) {
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(&region);
    auto call = func::CallOp::create(b, loc, callee, entry.getArguments());
    scf::YieldOp::create(b, loc, call.getResults());
  };
  callIn(dispatch.getDefaultRegion(), variants[0]);
  for (unsigned n = 1; n < variants.size(); ++n)
    callIn(dispatch.getCaseRegions()[n - 1], variants[n]);
  func::ReturnOp::create(b, loc, dispatch.getResults());
  func->setAttr("sptune.dispatch", b.getStringAttr(plan.rule.str()));
  return success();
}

LogicalResult mlir::sptune::multiversionKernel(KernelTuningContext &k,
                                               const st::CostModel &model,
                                               llvm::StringRef note) {
  const KernelTuningOptions &o = *k.options;
  llvm::Expected<std::vector<std::string>> sources =
      trainingMatrixSources(o.trainingMatrices);
  if (!sources)
    return k.op->emitError("sptune-autotune: ")
           << llvm::toString(sources.takeError());
  std::vector<const st::CsrMatrix *> matrices;
  for (const std::string &source : *sources) {
    llvm::Expected<const st::CsrMatrix *> m =
        k.matrixCache().get(source, /*transposed=*/false);
    if (!m)
      return k.op->emitError("sptune-autotune: training matrix '")
             << source << "': " << llvm::toString(m.takeError());
    matrices.push_back(*m);
  }
  st::MultiversionOptions options;
  options.variants = o.multiversion;
  options.candidates = o.candidates;
  options.seed = o.seed;
  // Variants keep the operand's storage: one that changed it would convert
  // the matrix on every call of the dispatcher (the measurements the model
  // learned from convert once, outside the timing).
  auto storage = sparse_tensor::getSparseTensorEncoding(
      k.op->getOperand(k.kernel.getSparseOperand()).getType());
  KernelAttr kernel = k.kernel;
  options.applicable = [&k, storage, kernel](const st::Schedule &s) {
    if (buildScheduledEncoding(kernel, s) != storage)
      return std::string("changes the sparse operand's storage");
    return k.applicable(s);
  };
  llvm::Expected<st::MultiversionPlan> plan = st::planMultiversion(
      model, *k.target, matrices, k.type, k.free, options);
  if (!plan)
    return k.op->emitError("sptune-autotune: ")
           << llvm::toString(plan.takeError());
  std::string description =
      o.trainingMatrices.empty()
          ? std::string("the built-in generated set")
          : "from '" + o.trainingMatrices + "'";
  return emitMultiversioned(k, *plan, description, note);
}
