//===- Multiversion.cpp - Variants and a run-time dispatcher --------------===//

#include "sptune/Transforms/Multiversion.h"

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
/// operand, then the rule.
class RouteBuilder {
public:
  RouteBuilder(OpBuilder &b, Location loc, Value sparse,
               const st::DispatchRule &rule)
      : b(b), loc(loc), rule(rule) {
    computeFeatures(sparse);
  }

  /// The variant index the rule picks, as an index value.
  Value route() { return emitNode(0); }

private:
  Value f64Of(Value index) {
    Value i64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
    return arith::UIToFPOp::create(b, loc, b.getF64Type(), i64);
  }
  Value f64(double v) {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  }

  void computeFeatures(Value sparse) {
    using F = st::DispatchFeatures;
    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
    Value rows = tensor::DimOp::create(b, loc, sparse, c0);
    Value cols = tensor::DimOp::create(b, loc, sparse, c1);
    Value nnz = sparse_tensor::NumberOfEntriesOp::create(b, loc, sparse);
    Value rowsF = f64Of(rows), nnzF = f64Of(nnz), zero = f64(0);
    Value hasRows =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, rowsF, zero);
    Value mean = arith::SelectOp::create(
        b, loc, hasRows, arith::DivFOp::create(b, loc, nnzF, rowsF), zero);
    values[F::Rows] = rowsF;
    values[F::Cols] = f64Of(cols);
    values[F::Nnz] = nnzF;
    values[F::RowMean] = mean;
    if (!rule.readsRowLengths())
      return;
    // One pass over the rows: the sum of squared lengths and the longest.
    Value positions = sparse_tensor::ToPositionsOp::create(
        b, loc, sparse, sparse_tensor::Level(1));
    auto loop = scf::ForOp::create(
        b, loc, c0, rows, c1, ValueRange{zero, c0},
        [&](OpBuilder &nb, Location l, Value row, ValueRange acc) {
          Value next = arith::AddIOp::create(nb, l, row, c1);
          Value begin = memref::LoadOp::create(nb, l, positions, row);
          Value end = memref::LoadOp::create(nb, l, positions, next);
          Value length = arith::SubIOp::create(nb, l, end, begin);
          if (!length.getType().isIndex())
            length = arith::IndexCastUIOp::create(nb, l, nb.getIndexType(),
                                                  length);
          Value lengthF = arith::UIToFPOp::create(
              nb, l, nb.getF64Type(),
              arith::IndexCastUIOp::create(nb, l, nb.getI64Type(), length));
          Value squares = arith::AddFOp::create(
              nb, l, acc[0], arith::MulFOp::create(nb, l, lengthF, lengthF));
          Value longest = arith::MaxUIOp::create(nb, l, acc[1], length);
          scf::YieldOp::create(nb, l, ValueRange{squares, longest});
        });
    Value squares = loop.getResult(0);
    // cv^2 = (E[len^2] - mean^2) / mean^2, 0 without rows or entries; the
    // rule's thresholds on cv are compared squared (both are >= 0).
    Value meanSquared = arith::MulFOp::create(b, loc, mean, mean);
    Value variance = arith::SubFOp::create(
        b, loc,
        arith::SelectOp::create(
            b, loc, hasRows, arith::DivFOp::create(b, loc, squares, rowsF),
            zero),
        meanSquared);
    Value hasEntries = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                             meanSquared, zero);
    cvSquared = arith::SelectOp::create(
        b, loc, hasEntries,
        arith::DivFOp::create(b, loc, variance, meanSquared), zero);
    values[F::RowMax] = f64Of(loop.getResult(1));
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
  Value values[st::DispatchFeatures::Count];
  Value cvSquared;
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
  {
    OpBuilder::InsertionGuard guard(b);
    Block *entry = route.addEntryBlock();
    b.setInsertionPointToStart(entry);
    RouteBuilder builder(b, loc, entry->getArgument(0), plan.rule);
    func::ReturnOp::create(b, loc, builder.route());
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
  options.applicable = k.applicable;
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
