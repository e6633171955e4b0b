//===- Autotune.cpp - sptune-autotune -------------------------------------===//
//
// Thin pass over the ScheduleTuner: find each kernel's matrix, ask the tuner,
// attach the winner and say why in a remark.
//
//===----------------------------------------------------------------------===//

#include "sptune/Analysis/ScheduleMapping.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Schedule/DefaultSchedule.h"
#include "sptune/Transforms/Passes.h"
#include "sptune/Tune/ScheduleTuner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/Support/Format.h"

#include <map>

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_AUTOTUNE
#include "sptune/Transforms/Passes.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;
namespace st = ::sptune;

namespace {
struct LoadedMatrix {
  st::CsrMatrix csr; ///< in canonical orientation
  bool ok = false;
  std::string error;
};

struct AutotunePass
    : public mlir::sptune::impl::AutotuneBase<AutotunePass> {
  using AutotuneBase::AutotuneBase;

  /// The matrix source of the kernel: the pass option, else a
  /// `sptune.matrix` attribute on the function argument it reads.
  std::string matrixSourceFor(linalg::LinalgOp op, unsigned sparseIdx) {
    if (!matrix.empty())
      return matrix;
    auto arg = dyn_cast<BlockArgument>(op->getOperand(sparseIdx));
    if (!arg)
      return "";
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (!func)
      return "";
    if (auto s = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                   SptuneDialect::kMatrixAttrName))
      return s.str();
    return "";
  }

  const LoadedMatrix &load(const std::string &source, bool transposed) {
    std::string key = source + (transposed ? "|T" : "");
    auto it = matrices.find(key);
    if (it != matrices.end())
      return it->second;
    LoadedMatrix &lm = matrices[key];
    st::CooMatrix coo;
    st::MatrixInfo info;
    if (!st::loadMatrix(source, coo, info, lm.error))
      return lm;
    lm.csr = st::CsrMatrix::fromCoo(std::move(coo));
    if (transposed)
      lm.csr = lm.csr.transposed();
    lm.ok = true;
    return lm;
  }

  void runOnOperation() override {
    std::optional<st::TargetKind> targetKind = st::parseTargetKind(target);
    std::optional<st::CostModelMode> costMode = st::parseCostModelMode(mode);
    if (!targetKind || !costMode) {
      getOperation()->emitError("sptune-autotune: unknown ")
          << (!targetKind ? "target '" + target + "'"
                          : "mode '" + mode +
                                "' (expected release, development or "
                                "heuristic)");
      return signalPassFailure();
    }
    std::string error;
    st::CostModelOptions cmOptions;
    cmOptions.logPath = logPath;
    std::unique_ptr<st::CostModel> model =
        st::createCostModel(*costMode, modelPath, &error, cmOptions);
    if (!model) {
      getOperation()->emitError("sptune-autotune: cannot load the cost model: ")
          << error;
      return signalPassFailure();
    }

    bool ok = true;
    getOperation()->walk([&](linalg::LinalgOp op) {
      auto kernel = dyn_cast_or_null<KernelAttr>(
          op->getAttr(SptuneDialect::kKernelAttrName));
      if (!kernel || op->hasAttr(SptuneDialect::kScheduleAttrName))
        return;
      ok &= succeeded(tune(op, kernel, *model, *targetKind));
    });
    if (!ok)
      signalPassFailure();
  }

  LogicalResult tune(linalg::LinalgOp op, KernelAttr kernel,
                     const st::CostModel &model, st::TargetKind targetKind) {
    st::KernelType type = toKernelType(kernel.getKind());
    LoopRole freeRole =
        type == st::KernelType::SDDMM ? LoopRole::K : LoopRole::J;
    int64_t free = 1;
    if (type != st::KernelType::SpMV) {
      free = kernel.getLoopSize(freeRole);
      if (ShapedType::isDynamic(free))
        free = freeSize;
    }
    auto attach = [&](const st::Schedule &s) {
      op->setAttr(SptuneDialect::kScheduleAttrName,
                  ScheduleAttr::get(op->getContext(), s));
    };
    auto applicable = [kernel](const st::Schedule &s) {
      return whyNotApplicable(kernel, s);
    };

    unsigned sparseIdx = kernel.getSparseOperand();
    std::string source = matrixSourceFor(op, sparseIdx);
    if (source.empty()) {
      st::Schedule s = st::defaultSchedule(targetKind, type, nullptr, free);
      if (!applicable(s).empty())
        s = st::mlirDefaultSchedule(targetKind, type);
      attach(s);
      op->emitRemark("sptune-autotune: no matrix for this kernel (give "
                     "matrix=... or a 'sptune.matrix' argument attribute); "
                     "using the heuristic schedule");
      return success();
    }
    bool transposed = isSparseOperandTransposed(kernel);
    const LoadedMatrix &lm = load(source, transposed);
    if (!lm.ok)
      return op->emitError("sptune-autotune: ") << lm.error;
    int64_t rows = kernel.getLoopSize(LoopRole::I);
    int64_t cols = kernel.getLoopSize(type == st::KernelType::SDDMM
                                          ? LoopRole::J
                                          : LoopRole::K);
    if ((!ShapedType::isDynamic(rows) && rows != lm.csr.rows) ||
        (!ShapedType::isDynamic(cols) && cols != lm.csr.cols))
      return op->emitError("sptune-autotune: matrix '")
             << source << "' is " << lm.csr.rows << "x" << lm.csr.cols
             << " but the kernel's sparse operand is "
             << (ShapedType::isDynamic(rows) ? std::string("?")
                                             : std::to_string(rows))
             << "x"
             << (ShapedType::isDynamic(cols) ? std::string("?")
                                             : std::to_string(cols))
             << " (canonical rows x cols)";

    st::TuneOptions options;
    options.target = targetKind;
    options.candidates = candidates;
    options.seed = seed;
    options.topK = std::max(1u, static_cast<unsigned>(topK));
    options.measureTopK = measureTopK;
    options.measureHeuristic = measureHeuristic;
    options.matrixSource = transposed ? "" : source;
    options.applicable = applicable;
    std::string error;
    std::optional<st::TuneResult> result =
        st::tuneSchedule(model, lm.csr, type, free, options, error);
    if (!result)
      return op->emitError("sptune-autotune: ") << error;
    attach(result->chosen);

    std::string text;
    llvm::raw_string_ostream remark(text);
    bool guarded = !result->top.empty() && result->top.back().guard;
    remark << "sptune-autotune (" << st::toString(model.mode()) << ", "
           << result->numCandidates << " candidates ranked in "
           << llvm::format("%.1f", result->rankSeconds * 1e3) << " ms"
           << (result->measured ? ", top " + std::to_string(measureTopK) +
                                      (guarded ? " and the heuristic" : "") +
                                      " measured"
                                : std::string())
           << "): chose " << result->chosen.str() << "; ranking:";
    for (const st::RankedCandidate &c : result->top) {
      if (c.guard)
        remark << " + heuristic";
      remark << " #" << c.rank << " score " << llvm::format("%.3f", c.score);
      if (c.seconds)
        remark << " measured " << llvm::format("%.3f", *c.seconds * 1e3)
               << " ms";
      else if (!c.measureStatus.empty())
        remark << " (" << c.measureStatus << ")";
      remark << " [" << c.schedule.str() << "]";
    }
    if (transposed && measureTopK > 0)
      remark << "; not measured: the sparse operand is on the right";
    op->emitRemark(remark.str());
    return success();
  }

  std::map<std::string, LoadedMatrix> matrices;
};
} // namespace
