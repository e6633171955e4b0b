//===- RowOrder.cpp - Rows visited in a matrix-dependent order ------------===//

#include "cpu/RowOrder.h"

#include "cpu/BalancedRows.h"
#include "cpu/CpuKnobs.h"
#include "cpu/CpuPasses.h"

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Matrix/RowOrder.h"
#include "sptune/Support/Error.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include <map>

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_CPUVISITROWSINORDER
#include "cpu/CpuPasses.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;
namespace st = ::sptune;

namespace {

/// The name of the globals holding row orders (uniqued per module).
constexpr const char *kRowOrderGlobalName = "__sptune_row_order";

bool isSparse(Type t) {
  return sparse_tensor::getSparseTensorEncoding(t) != nullptr;
}

/// The sparse operand of a kernel whose rows are ordered: its first sparse
/// input (SDDMM's sample, SpMM's and SpMV's matrix), else its sparse output
/// (SDDMM updating a copy of its sample in place).
Value sparseInputOf(linalg::LinalgOp op) {
  for (OpOperand *in : op.getDpsInputOperands())
    if (isSparse(in->get().getType()))
      return in->get();
  for (OpOperand &out : op.getDpsInitsMutable())
    if (isSparse(out.get().getType()))
      return out.get();
  return {};
}

/// The function argument `v` is (a chain of conversions, casts or copies
/// of: a schedule's storage, a widening storage copy, SDDMM's copied
/// sample); null when it is computed otherwise.
BlockArgument argumentBehind(Value v) {
  while (true) {
    if (auto convert = v.getDefiningOp<sparse_tensor::ConvertOp>())
      v = convert.getSource();
    else if (auto cast = v.getDefiningOp<tensor::CastOp>())
      v = cast.getSource();
    else if (auto copy = v.getDefiningOp<bufferization::AllocTensorOp>();
             copy && copy.getCopy())
      v = copy.getCopy();
    else if (auto copy = v.getDefiningOp<linalg::LinalgOp>();
             copy && copy->hasAttr(SptuneDialect::kStorageCopyAttrName) &&
             copy.getNumDpsInputs() >= 1)
      v = copy.getDpsInputOperand(0)->get();
    else
      break;
  }
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || !arg.getOwner()->isEntryBlock() ||
      !isa<func::FuncOp>(arg.getOwner()->getParentOp()))
    return {};
  return arg;
}

/// The sparse kernels of `func`: the linalg ops with a sparse operand,
/// other than the storage copies that belong to a scheduled kernel.
SmallVector<linalg::LinalgOp> sparseKernelsOf(func::FuncOp func) {
  SmallVector<linalg::LinalgOp> kernels;
  func.walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(SptuneDialect::kStorageCopyAttrName))
      return;
    if (llvm::any_of(op->getOperandTypes(), isSparse))
      kernels.push_back(op);
  });
  return kernels;
}

} // namespace

bool mlir::sptune::wantsRowOrder(Operation *op) {
  auto attr = dyn_cast_or_null<ScheduleAttr>(
      op->getAttr(SptuneDialect::kScheduleAttrName));
  return attr && attr.getSchedule().target == st::TargetKind::CPU &&
         st::cpuKnobs(attr.getSchedule()).rowOrder != st::RowOrderKind::Natural;
}

LogicalResult mlir::sptune::embedRowOrder(linalg::LinalgOp op,
                                          const st::CsrMatrix &m) {
  if (std::string why = st::whyNoReverseCuthillMcKee(m); !why.empty())
    return op->emitError("sptune: reorder = rcm cannot order this kernel's "
                         "rows: ")
           << why;
  Value sparse = sparseInputOf(op);
  if (!sparse)
    return op->emitError("sptune: reorder = rcm needs a kernel with a sparse "
                         "input");
  for (int64_t size : cast<ShapedType>(sparse.getType()).getShape())
    if (!ShapedType::isDynamic(size) && size != m.rows)
      return op->emitError("sptune: reorder = rcm: the matrix the order is "
                           "computed from is ")
             << m.rows << " x " << m.cols << ", the kernel's sparse operand "
             << sparse.getType();
  // One row or none: nothing to order (and no row loop may be left to
  // rewrite). The mark without a global says so.
  if (m.rows <= 1) {
    op->setAttr(kRowOrderAttrName, UnitAttr::get(op->getContext()));
    return success();
  }

  std::vector<int32_t> order = st::reverseCuthillMcKee(m);
  auto module = op->getParentOfType<ModuleOp>();
  // Created detached: the symbol table inserts it, renamed when the module
  // has a symbol of that name already.
  OpBuilder b(module.getContext());
  auto i32 = b.getI32Type();
  auto type = MemRefType::get({m.rows}, i32);
  auto value = DenseElementsAttr::get(RankedTensorType::get({m.rows}, i32),
                                      llvm::ArrayRef<int32_t>(order));
  auto global = memref::GlobalOp::create(
      b, op.getLoc(), kRowOrderGlobalName, b.getStringAttr("private"), type,
      value, /*constant=*/true, /*alignment=*/b.getI64IntegerAttr(64));
  SymbolTable(module).insert(global, module.getBody()->begin());
  op->setAttr(kRowOrderAttrName,
              FlatSymbolRefAttr::get(global.getSymNameAttr()));
  return success();
}

LogicalResult mlir::sptune::embedRowOrders(ModuleOp module,
                                           const std::string &matrixOption) {
  SmallVector<linalg::LinalgOp> kernels;
  module.walk([&](linalg::LinalgOp op) {
    if (wantsRowOrder(op) && !op->hasAttr(kRowOrderAttrName))
      kernels.push_back(op);
  });
  std::map<std::string, st::CsrMatrix> loaded;
  for (linalg::LinalgOp op : kernels) {
    // Where the matrix is named: as sptune-autotune resolves it.
    std::string attr, source;
    if (Value sparse = sparseInputOf(op))
      if (BlockArgument arg = argumentBehind(sparse))
        if (auto name =
                cast<func::FuncOp>(arg.getOwner()->getParentOp())
                    .getArgAttrOfType<StringAttr>(
                        arg.getArgNumber(), SptuneDialect::kMatrixAttrName))
          attr = name.str();
    if (!attr.empty() && !matrixOption.empty() &&
        !st::sameMatrixSource(attr, matrixOption))
      return op->emitError("sptune: reorder = rcm: the lowering's matrix='")
             << matrixOption << "' and the 'sptune.matrix' attribute of the "
             << "kernel's sparse argument ('" << attr
             << "') name different matrices";
    source = attr.empty() ? matrixOption : attr;
    if (source.empty())
      return op->emitError(
          "sptune: reorder = rcm computes the order of the rows when the "
          "module is compiled, from the matrix the kernel is compiled for: "
          "name it with a 'sptune.matrix' attribute on the sparse argument "
          "or sptune-lower-cpu's matrix= option");
    auto [it, fresh] = loaded.try_emplace(source);
    if (fresh) {
      st::CooMatrix coo;
      st::MatrixInfo info;
      std::string error;
      if (st::takeErrorMessage(st::loadMatrix(source, coo, info), error))
        return op->emitError("sptune: reorder = rcm: cannot load the matrix '")
               << source << "': " << error;
      it->second = st::CsrMatrix::fromCoo(std::move(coo));
    }
    if (failed(embedRowOrder(op, it->second)))
      return failure();
  }
  return success();
}

bool mlir::sptune::sharesRowOrderedKernel(func::FuncOp func) {
  SmallVector<linalg::LinalgOp> kernels = sparseKernelsOf(func);
  return kernels.size() > 1 && llvm::any_of(kernels, [](linalg::LinalgOp op) {
           return wantsRowOrder(op);
         });
}

LogicalResult mlir::sptune::markRowOrderFunctions(ModuleOp module) {
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    for (linalg::LinalgOp op : sparseKernelsOf(func)) {
      // (A unit mark: nothing to order.)
      auto order = op->getAttrOfType<FlatSymbolRefAttr>(kRowOrderAttrName);
      if (!order)
        continue;
      if (sharesRowOrderedKernel(func))
        return op->emitError("sptune: reorder = rcm needs the kernel in a "
                             "function of its own, and it could not be "
                             "moved to one (see the warning above)");
      func->setAttr(kRowOrderAttrName, order);
    }
  }
  return success();
}

std::string mlir::sptune::visitRowsInOrder(RewriterBase &rewriter,
                                           Operation *loop,
                                           memref::GlobalOp global) {
  // The kernel's loops, not those of a conversion in the same function.
  auto origin = loop->getAttrOfType<StringAttr>(kSparsifierLoopAttrName);
  if (!origin || origin.getValue() != "linalg.generic")
    return "the loop is not one the sparsifier emitted for the kernel";
  Value row, lb, ub, step;
  if (auto p = dyn_cast<scf::ParallelOp>(loop)) {
    if (p.getNumLoops() != 1 || p.getNumReductions() != 0)
      return "the loop is not a one-dimensional loop without reductions";
    row = p.getInductionVars().front();
    lb = p.getLowerBound().front();
    ub = p.getUpperBound().front();
    step = p.getStep().front();
  } else if (auto f = dyn_cast<scf::ForOp>(loop)) {
    // Values carried from one row to the next would see them in another
    // order.
    if (f.getNumRegionIterArgs() != 0)
      return "the loop carries values from row to row";
    row = f.getInductionVar();
    lb = f.getLowerBound();
    ub = f.getUpperBound();
    step = f.getStep();
  } else {
    return "the loop is not an scf.parallel or scf.for";
  }
  if (!matchPattern(lb, m_Zero()) || !matchPattern(step, m_One()))
    return "the loop does not count rows from 0 by 1";
  if (!rowPositionsOf(loop, row))
    return "the loop reads no positions array at its row and the next";

  int64_t length = global.getType().getShape().front();
  Location loc = loop->getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(loop);
  Value order = memref::GetGlobalOp::create(rewriter, loc, global.getType(),
                                            global.getSymName());
  // The order is for the matrix the module was compiled for: a run-time
  // operand with another row count keeps storage order.
  Value matches = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::eq, ub,
      arith::ConstantIndexOp::create(rewriter, loc, length));
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);

  Block &body = loop->getRegion(0).front();
  rewriter.setInsertionPointToStart(&body);
  // In bounds either way: row n < length when the lengths match, else 0.
  Value at = arith::SelectOp::create(rewriter, loc, matches, row, zero);
  Value entry = memref::LoadOp::create(rewriter, loc, order, at);
  Value ordered = arith::SelectOp::create(
      rewriter, loc, matches,
      arith::IndexCastUIOp::create(rewriter, loc, rewriter.getIndexType(),
                                   entry),
      row);
  rewriter.replaceUsesWithIf(row, ordered, [&](OpOperand &use) {
    Operation *user = use.getOwner();
    return user != at.getDefiningOp() && user != ordered.getDefiningOp() &&
           loop->isProperAncestor(user);
  });
  return "";
}

namespace {
struct CpuVisitRowsInOrderPass
    : public mlir::sptune::impl::CpuVisitRowsInOrderBase<
          CpuVisitRowsInOrderPass> {
  using CpuVisitRowsInOrderBase::CpuVisitRowsInOrderBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (func::FuncOp func : module.getOps<func::FuncOp>()) {
      auto name = func->getAttrOfType<FlatSymbolRefAttr>(kRowOrderAttrName);
      if (!name)
        continue;
      func->removeAttr(kRowOrderAttrName);
      auto global = symbols.lookup<memref::GlobalOp>(name.getValue());
      if (!global || global.getType().getRank() != 1 ||
          !global.getType().getElementType().isInteger(32)) {
        func.emitError("sptune: '")
            << kRowOrderAttrName << "' names no rank-1 i32 memref.global";
        return signalPassFailure();
      }
      // The outermost loops over rows (one per column panel when the free
      // loop is cut into panels).
      IRRewriter rewriter(func.getContext());
      int rewritten = 0;
      std::string why;
      // Only the outermost of the sparsifier's loops: the rows, never a loop
      // nested in a rejected one.
      func.walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (!isa<scf::ParallelOp, scf::ForOp>(op) ||
            !op->hasAttr(kSparsifierLoopAttrName))
          return WalkResult::advance();
        std::string whyNot = visitRowsInOrder(rewriter, op, global);
        if (whyNot.empty())
          ++rewritten;
        else if (why.empty())
          why = whyNot;
        return WalkResult::skip();
      });
      if (why.empty())
        why = "the function has no loop the sparsifier emitted";
      // A schedule that asks for an order and does not get it would run in
      // storage order, silently: an error instead.
      if (rewritten == 0) {
        func.emitError("sptune: reorder = rcm cannot order the rows of @")
            << func.getSymName() << ": " << why;
        return signalPassFailure();
      }
    }
  }
};
} // namespace
