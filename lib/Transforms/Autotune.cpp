//===- Autotune.cpp - sptune-autotune -------------------------------------===//
//
// Thin pass over the ScheduleTuner: find each kernel's matrix, ask the tuner,
// attach the winner and say why in a remark.
//
//===----------------------------------------------------------------------===//

#include "sptune/Analysis/ScheduleMapping.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Target/Target.h"
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
    llvm::Expected<const st::Target &> targetInfo =
        st::TargetRegistry::get(target);
    if (!targetInfo) {
      getOperation()->emitError("sptune-autotune: ")
          << llvm::toString(targetInfo.takeError());
      return signalPassFailure();
    }
    std::string error;
    st::CostModelOptions cmOptions;
    cmOptions.logPath = logPath;
    std::unique_ptr<st::CostModel> model =
        st::createCostModel(mode, modelPath, &error, cmOptions);
    if (!model) {
      getOperation()->emitError("sptune-autotune: cannot load the cost model: ")
          << error;
      return signalPassFailure();
    }
    if (measureTopK > 0) {
      measurer = st::createDefaultCandidateMeasurer();
      if (!measurer) {
        getOperation()->emitError(
            "sptune-autotune: measure-top-k needs a measurer, and this "
            "program has none (sptune-opt has one; a compiler that links the "
            "passes calls sptune::registerWorkerCandidateMeasurer())");
        return signalPassFailure();
      }
    }
    st::TargetKind targetKind = targetInfo->kind();

    bool ok = true;
    getOperation()->walk([&](linalg::LinalgOp op) {
      auto kernel = dyn_cast_or_null<KernelAttr>(
          op->getAttr(SptuneDialect::kKernelAttrName));
      if (!kernel || op->hasAttr(SptuneDialect::kScheduleAttrName))
        return;
      ok &= succeeded(tune(op, kernel, *model, targetKind));
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
    // Schedules the IR is rewritten into must fit the op; emitted ones
    // (SPADE's) only its kernel.
    bool rewritesIR = st::TargetRegistry::lookup(targetKind)->rewritesIR();
    auto applicable = [kernel, rewritesIR](const st::Schedule &s) {
      if (rewritesIR)
        return whyNotApplicable(kernel, s);
      return s.kernel == toKernelType(kernel.getKind())
                 ? std::string()
                 : std::string("schedule is for another kernel");
    };

    unsigned sparseIdx = kernel.getSparseOperand();
    std::string source = matrixSourceFor(op, sparseIdx);
    if (source.empty()) {
      const st::Target &t = *st::TargetRegistry::lookup(targetKind);
      st::Schedule s = t.heuristicSchedule(type, nullptr, free);
      if (!applicable(s).empty())
        s = t.referenceSchedule(type);
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
    options.measurer = measurer.get();
    llvm::Expected<st::TuneResult> result =
        st::tuneSchedule(model, lm.csr, type, free, options);
    if (!result)
      return op->emitError("sptune-autotune: ")
             << llvm::toString(result.takeError());
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
    if (!result->fallbackReason.empty())
      remark << "; ranked by the heuristic: " << result->fallbackReason;
    op->emitRemark(remark.str());
    return success();
  }

  std::map<std::string, LoadedMatrix> matrices;
  /// Created per run (passes are copied when cloned: shared, not unique).
  std::shared_ptr<st::CandidateMeasurer> measurer;
};
} // namespace
